// A classroom lesson (issue #21): a sequence of steps, each with a title, a short narrative and a
// plot, stepped with ← / → (or Page Up / Page Down, or the buttons). The lesson's learning goal
// stands in one line at the top; its controls are reduced to the one or two the lesson needs
// (typically ε). Type scales with the window, so the same page reads on a laptop and a projector,
// and every step can be exported as a slide (one PDF page and one PNG per step).
//
// A lesson derives from LessonPage, gives its steps with setSteps(), adds its controls to
// controls(), and draws step k in showStep(k) (plot, narrative via setNarrative(), which controls
// are visible). Everything a step shows is computed by core (core/teaching and the rooms it names).
#pragma once

#include <QFont>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

class QCPGraph;
class QCustomPlot;
class QLabel;
class QPushButton;
class QVBoxLayout;

namespace dpx::ui {

// The name (for --lesson), the title and the one-line learning goal of a lesson.
struct LessonInfo {
    QString name;
    QString title;
    QString goal;
};

class LessonPage : public QWidget {
    Q_OBJECT
public:
    explicit LessonPage(LessonInfo info, QWidget* parent = nullptr);

    const LessonInfo& info() const { return info_; }
    int stepCount() const { return static_cast<int>(steps_.size()); }
    int step() const { return step_; }
    QString stepTitle(int step) const;
    // The current step's narrative without markup (for tests).
    QString narrativeText() const;
    QCustomPlot* plot() const { return plot_; }

    // What exportSlides wrote: pages counts the PDF pages drawn; error is empty on success.
    struct SlideExport {
        int pages = 0;
        QStringList pngFiles;
        QString error;
    };
    // Every step as one page of `pdfPath` (QPdfWriter) and as `<pdf without .pdf>-stepN.png`
    // (N = 1, 2, …), drawn at the page's current size; the current step is restored afterwards.
    SlideExport exportSlides(const QString& pdfPath);

    // The lesson's ε (lessons with an ε control): the value drawn, and setting it as if typed.
    double epsilon() const { return epsilon_; }
    void setEpsilon(double epsilon);

    // A share as a percentage with one decimal (more where needed so that 99.995% does not read
    // 100%: formatPercent) and a true minus sign ("−1.0%", "73.1%").
    static QString percentText(double share);

    // The point size the page's text uses at its current size (grows with the window).
    double basePointSize() const { return basePoint_; }

    // A lesson whose numbers come from a simulation runs it off the GUI thread (ui/model/
    // job_runner) and is busy until the result is drawn. waitUntilReady processes events until it
    // is not (the slide export and --screenshot use it); false after `timeoutMs`.
    virtual bool busy() const { return false; }
    bool waitUntilReady(int timeoutMs = 60000);

public Q_SLOTS:
    void setStep(int step);  // clamped to [0, stepCount − 1]
    void next();
    void previous();

Q_SIGNALS:
    void stepChanged(int step);

protected:
    struct Step {
        QString title;
        QString text;  // the default narrative (rich text); showStep may replace it
    };
    void setSteps(std::vector<Step> steps);
    // The lesson's controls, in the column beside the plot under the narrative.
    QVBoxLayout* controls() const { return controls_; }
    // An ε control (a log slider with a field, min … max) in controls(); a value typed outside the
    // range is refused with a message on the field and the last accepted ε stays drawn.
    void addEpsilonControl(double min, double max, double initial);
    // Replace the current step's narrative (rich text), e.g. with numbers computed for it.
    void setNarrative(const QString& html);
    // Draw step `step`: the plot (cleared before), the narrative, which controls show.
    virtual void showStep(int step) = 0;
    // Redraw the current step (after a control changed).
    void redraw();
    // A font for plot texts, `scale` times the base size.
    QFont plotFont(double scale = 1.0, bool bold = false) const;
    // Colours for the lesson's series that read on light and dark backgrounds and on a projector.
    static QColor seriesColor(int index);
    // Text colour of the current palette.
    QColor textColor() const;
    // A graph drawn in seriesColor(colorIndex) with a light fill below it (the densities of the
    // attack lessons, the score histograms).
    QCPGraph* addFilledGraph(const QString& name, int colorIndex);
    // A dashed vertical line at x (an attacker's decision threshold) labelled to its right at
    // height labelY.
    void addDecisionLine(double x, double labelY, const QString& label);
    // The legend on the palette's base colour, at `alignment` inside the axis rect.
    void showLegend(Qt::Alignment alignment);

    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    // In presentation mode (presentWindow): larger type, thicker lines.
    bool presenting() const;
    void updateBasePoint();
    void thickenForPresentation();
    void applyFonts();
    void updateHeader();

    LessonInfo info_;
    std::vector<Step> steps_;
    int step_ = 0;
    double basePoint_ = 11;
    QLabel* title_ = nullptr;
    QLabel* goal_ = nullptr;
    QLabel* stepLine_ = nullptr;
    QLabel* narrative_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    QVBoxLayout* controls_ = nullptr;
    QPushButton* prev_ = nullptr;
    QPushButton* next_ = nullptr;
    QPushButton* export_ = nullptr;
    bool drawing_ = false;
    double epsilon_ = 1;
    double epsilonMin_ = 0, epsilonMax_ = 0;
    class LogSliderField* epsilonField_ = nullptr;
};

}  // namespace dpx::ui
