// Presentation mode (issue #21, View ▸ Presentation mode, F5): one plot of the window fills the
// screen in large type and a high-contrast look that reads on a washed-out projector (white
// ground, black text and axes, thick lines, big markers, six series colours and marker shapes),
// with the controls reduced to ε. The plot stays the tab's own: whenever it replots, the view draws
// it again in the presentation look (applied for the drawing only, then undone, so the tab is
// unchanged). Esc or F5 leaves; the screen can be saved as PNG or as a one-page PDF slide.
#pragma once

#include <QColor>
#include <QPixmap>
#include <QPointer>
#include <QString>
#include <QWidget>
#include <functional>
#include <vector>

class QCustomPlot;
class QLabel;
class QPushButton;

namespace dpx::ui {

class LogSliderField;

class PresentationView : public QWidget {
    Q_OBJECT
public:
    // The ε field accepts epsilonMin … epsilonMax.
    PresentationView(double epsilonMin, double epsilonMax, QWidget* parent = nullptr);

    // The plot shown (nullptr: a message instead), its title and one line under it saying what
    // it shows.
    void setSource(QCustomPlot* plot, const QString& title, const QString& subtitle);
    QCustomPlot* source() const { return sourceAlive_ ? source_ : nullptr; }
    // The ε shown (no signal); clears a refusal shown on the field.
    void setEpsilon(double epsilon);
    // A refusal of the typed ε, shown on the field.
    void setEpsilonError(const QString& message);
    LogSliderField* epsilonField() const { return epsilon_; }
    // The plot as last drawn in the presentation look.
    QPixmap picture() const { return picture_; }
    // The whole screen (title, plot, ε) as PNG, or as one PDF page of the screen's size; an empty
    // string on success, else what went wrong.
    QString savePng(const QString& path);
    QString savePdf(const QString& path);

    // The presentation look on `plot` at a picture `height` pixels high: text scaled with the
    // height, white ground, black axes, thick lines and big markers, the series in the six
    // colours of presentationSeriesColors() with a marker shape each (then dashed, then dotted).
    // Returns what undoes every change, in reverse order.
    static std::function<void()> applyPresentationLook(QCustomPlot* plot, int height);
    // The series colours of the slides, in order: six, each distinct and at least 4:1 against
    // white.
    static std::vector<QColor> presentationSeriesColors();
    // The presentation's palette: white ground, black text.
    static QPalette presentationPalette(QPalette from);

Q_SIGNALS:
    void epsilonEdited(double epsilon);
    void closeRequested();

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void scheduleRender();
    void render();
    void applyFonts();
    void exportWithDialog(bool pdf);

    QCustomPlot* source_ = nullptr;
    QPointer<QObject> sourceAlive_;  // null once the plot is gone
    QMetaObject::Connection replotted_;
    QPixmap picture_;
    bool renderPending_ = false;
    QLabel* title_ = nullptr;
    QLabel* subtitle_ = nullptr;
    QLabel* canvas_ = nullptr;
    QLabel* epsilonLabel_ = nullptr;
    LogSliderField* epsilon_ = nullptr;
    QPushButton* png_ = nullptr;
    QPushButton* pdf_ = nullptr;
    QPushButton* leave_ = nullptr;
};

// Presents a whole window of its own (a lesson): the presentation palette and full screen (or
// `size` when valid: screenshots, tests), or back to the application's palette and a normal
// window. The widget's property "presenting" says which.
void presentWindow(QWidget* window, bool on, QSize size = {});
// Full screen on the window's screen, also where full screen does not resize (no window manager).
void showOnWholeScreen(QWidget* window);
bool isPresenting(const QWidget* window);

}  // namespace dpx::ui
