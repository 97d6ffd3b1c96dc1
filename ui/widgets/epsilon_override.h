// The ε of a "More mechanisms" page: the window's ε by default, or the page's own value when the
// user unticks "Use the window's ε" (a page's experiment may need another ε than the document's,
// e.g. ε = 0.01 and ε = 10 side by side with the main window unchanged).
#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;

namespace dpx::ui {

class LogSliderField;

class EpsilonOverride : public QWidget {
    Q_OBJECT
public:
    explicit EpsilonOverride(QWidget* parent = nullptr);

    // The window's ε changed (no signal; the owner recomputes anyway).
    void setWindowEpsilon(double epsilon);
    // The page's own ε (unticks "follow"); no signal.
    void setOverride(double epsilon);
    void setFollowWindow(bool follow);
    bool followsWindow() const;
    // The ε in force: the window's, or the page's own value.
    double epsilon() const;
    // A short phrase for the page's texts: "ε = 1 (the window's)" / "ε = 0.01 (this page's)".
    QString sourceText() const;

Q_SIGNALS:
    // The ε in force changed by the user (checkbox or a valid typed / slid value).
    void changed();

private:
    QCheckBox* follow_;
    LogSliderField* field_;
    double window_ = 1;
    double own_ = 1;
};

}  // namespace dpx::ui
