// A plot's title that wraps to the plot's width (issue #21): QCustomPlot's QCPTextElement keeps a
// title on the lines it was given and reserves their height only, so a long title on a narrow plot
// (a 1024 × 768 screen, the side panel open, View ▸ Zoom) is cut at both ends. PlotTitle breaks it
// at word boundaries into as many lines as the width needs and reserves their height; text()
// stays the text given. Every title of the window's plots is one (ui/tabs, ui/widgets/page).
#pragma once

#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

class PlotTitle : public QCPTextElement {
public:
    PlotTitle(QCustomPlot* plot, const QString& text, const QFont& font);
    PlotTitle(QCustomPlot* plot, const QString& text);

    // The width the title wraps to: its column's width when the plot's layout has only the
    // title's column, else its rectangle from the last layout (the viewport's before the first).
    int wrapWidth() const;

protected:
    void draw(QCPPainter* painter) override;
    QSize minimumOuterSizeHint() const override;
    QSize maximumOuterSizeHint() const override;

private:
    QSize wrappedSize() const;  // the text's size wrapped to wrapWidth()
};

// For tests: whether `title` shows its whole text in the rectangle the layout gave it (with the
// element's own text flags: wrapping when it wraps).
bool titleFits(const QCPTextElement* title);

}  // namespace dpx::ui
