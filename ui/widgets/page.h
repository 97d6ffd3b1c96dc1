// A page of a tab (the More mechanisms pages, the Local DP experiment pages): a titled plot on the
// left, the page's controls in a side panel that scrolls on the right, a status line, and the
// state screenshots and tests wait on — running, has a result, something drawn. Pages keep only
// what differs: their controls, their computation and their drawing.
#pragma once

#include <functional>

#include <QFont>
#include <QString>
#include <QWidget>
#include <vector>

class QCPTextElement;
class QCustomPlot;
class QLabel;
class QLayout;
class QPushButton;
class QScrollArea;

namespace dpx::ui {

// A plot with this property set to true keeps the minimum width its page gave it when the window
// lets plots go down to 320 px to sit beside their controls (MainWindow): its page then puts the
// controls under the plot on a small screen instead.
inline constexpr const char* kKeepsMinimumWidth = "dpxKeepsMinimumWidth";

class Page : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

    // A computation is under way.
    bool isRunning() const { return running_; }
    // A result is drawn (not only a message).
    bool hasResult() const { return hasResult_; }
    // True while computing, or while nothing is drawn yet (screenshots wait for it).
    virtual bool busy() const { return running_ || !drawn_; }
    // The status line's text as set (with any markup); empty before makeStatusLine.
    QString statusText() const;

Q_SIGNALS:
    void finished();             // a computation's result has been drawn (or failed visibly)
    void exportPlotRequested();  // the page's "Export plot…" button

protected:
    // ---- the skeleton
    // The page's status line (word-wrapped, named `objectName` for tests); made once, placed by
    // the page in its side panel.
    QLabel* makeStatusLine(const QString& objectName = {});
    QLabel* statusLine() const { return status_; }
    // `side` in a frameless scroll area that scrolls vertically only, minWidth to maxWidth wide
    // (fixed when they are equal), but never narrower than `side`'s controls need at the current
    // fonts (followContentsWidth): a panel that scrolls vertically must not cut them.
    static QScrollArea* scrollingSidePanel(QWidget* side, int minWidth, int maxWidth);
    // The page's layout: `main` (a plot, or a layout around it) stretching on the left, `side` on
    // the right; `flush`: no margins around them.
    void placeBesideSidePanel(QWidget* main, QWidget* side, bool flush = false);
    void placeBesideSidePanel(QLayout* main, QWidget* side, bool flush = false);
    // The font of a plot's title: the page's, one point larger, bold.
    QFont titleFont() const;
    // A title in a new first row of `plot` (titleFont); the plot and its title follow the palette.
    QCPTextElement* addPlotTitle(QCustomPlot* plot, const QString& text = {});
    // A plot without such a title that follows the palette too.
    void addStyledPlot(QCustomPlot* plot);
    // On a palette change the page's plots take the new palette (applyPlotPalette) and their titles
    // its text colour; then restyle() does the rest (further axis rects and texts) and redraws.
    void changeEvent(QEvent* event) override;
    virtual void restyle() {}

    // ---- the status line
    // The status line's text: red and bold for an error, the palette's text colour otherwise.
    void setStatus(const QString& text, bool error = false);
    // The same for another message label of the page.
    static void setMessageText(QLabel* label, const QString& text, bool error);
    // A rich-text label's text without markup (for tests and copying).
    static QString plainTextOf(const QLabel* label);

    // ---- the state (the page sets it as its computation goes)
    // The page's Run and Cancel buttons, if it has them: setRunning enables the one that applies.
    void setRunButtons(QPushButton* run, QPushButton* cancel);
    // A computation starts (true) or ends (false).
    void setRunning(bool running);
    // The computation ends with a message instead of a result: not running, no result, `text`
    // in the status line as an error; `forgetResult` drops the page's outcome and redraws (the
    // page cancels its own job first); then finished() as for a result.
    void endWithMessage(const QString& text, const std::function<void()>& forgetResult);
    // The end of a log-log plot drawn from curves: a dashed legend key `dashedKey` (none when
    // empty) for the analytic curves drawn without legend entries, the axes fitted around the
    // data's [lo, hi] × [xlo, xhi] (`fitted`) when there are data, else `whenEmpty` with
    // `emptyHint` in the status line (when not empty), the legend shown when it has entries, the
    // replot.
    struct PlotExtent {
        double lo = 0, hi = 0, xlo = 0, xhi = 0;
    };
    void finishCurvePlot(QCustomPlot* plot, const QString& dashedKey, PlotExtent fitted,
                         PlotExtent whenEmpty, const QString& emptyHint);
    bool hasResult_ = false;  // a result is drawn
    bool drawn_ = false;      // a result or a message is shown: nothing more is awaited

private:
    QLabel* status_ = nullptr;
    std::vector<QCustomPlot*> plots_;
    std::vector<QCPTextElement*> titles_;
    QPushButton* run_ = nullptr;
    QPushButton* cancel_ = nullptr;
    bool running_ = false;
};

}  // namespace dpx::ui
