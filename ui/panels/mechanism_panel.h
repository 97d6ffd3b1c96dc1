// The mechanism panel: which mechanism, ε and δ on log scales, Gaussian calibration, estimator,
// group size for count mechanisms, and the seed of the simulated draw. Edits go to the document;
// refused values stay visible, marked, with the reason underneath. A plain-language reading of
// the current guarantee sits at the bottom.
#pragma once

#include <QWidget>
#include <memory>

#include "ui/model/explorer_state.h"
#include "ui/widgets/form_rows.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace dpx::ui {

class ExplorerDocument;
class LogSliderField;

class MechanismPanel : public QWidget {
    Q_OBJECT
public:
    explicit MechanismPanel(ExplorerDocument* doc, QWidget* parent = nullptr);

    LogSliderField* epsilonField() const { return epsilon_; }
    LogSliderField* deltaField() const { return delta_; }
    QComboBox* mechanismBox() const { return mechanism_; }
    QLabel* messageLabel() const { return message_; }
    QLabel* readingLabel() const { return reading_; }
    QSpinBox* ldpBitsBox() const { return ldpBits_; }
    QComboBox* ldpSimulatorBox() const { return ldpSimulator_; }
    QComboBox* estimatorBox() const { return estimator_; }

private:
    void showState(const ExplorerState& s);
    void report(const QString& field, const Status& st);

    ExplorerDocument* doc_;
    QComboBox* mechanism_;
    LogSliderField* epsilon_;
    LogSliderField* delta_;
    QComboBox* calibration_;
    QComboBox* estimator_;
    QSpinBox* groupSize_;
    QLabel* groupSizeLabel_;
    QSpinBox* ldpBits_;
    QLabel* ldpBitsLabel_;
    QComboBox* ldpSimulator_;
    QLabel* ldpSimulatorLabel_;
    std::unique_ptr<FormRows> formRows_;  // the controls' rows (see form_rows.h)
    QLineEdit* seed_;
    QPushButton* newDraw_;
    QLabel* message_;
    QString messageField_;  // the control whose refused value message_ describes
    QLabel* reading_;
};

// "ε = 1: …" — what the guarantee means, in one or two sentences (also used by tests and docs).
QString plainReading(const ExplorerState& s);

}  // namespace dpx::ui
