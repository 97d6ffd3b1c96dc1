// The first DP Explorer window: a built-in example, a mechanism with ε (and δ), one simulated noisy
// draw next to the truth with the 95% noise band, and the expected errors of every estimator.
// The full explorer (document model, undo, tabs) arrives with issue #4.
#pragma once

#include <QFutureWatcher>
#include <QMainWindow>
#include <cstdint>

#include "ui/release_preview.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;
class QCustomPlot;

namespace dpx::ui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    bool selectExample(const QString& id);
    bool selectMechanism(const QString& name);  // laplace, geometric, gaussian
    void setEpsilon(double epsilon);
    // Saves the whole window as PNG once the current computation has been drawn.
    void saveScreenshotWhenReady(const QString& path);

Q_SIGNALS:
    void resultShown();

private:
    void buildUi();
    void recompute();
    void showResult(const PreviewResult& r);
    void savePlot();

    QComboBox* dataset_ = nullptr;
    QComboBox* mechanism_ = nullptr;
    QDoubleSpinBox* epsilon_ = nullptr;
    QLineEdit* delta_ = nullptr;
    QComboBox* calibration_ = nullptr;
    QComboBox* neighbouring_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QLabel* datasetInfo_ = nullptr;
    QLabel* reading_ = nullptr;
    QLabel* message_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QTableWidget* table_ = nullptr;
    QFutureWatcher<PreviewResult> watcher_;
    std::uint64_t generation_ = 0;
    bool pending_ = false;
};

}  // namespace dpx::ui
