#include "ui/widgets/presentation_view.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMessageBox>
#include <QPainter>
#include <QPdfWriter>
#include <QPushButton>
#include <QScreen>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <vector>

#include "ui/widgets/log_slider_field.h"
#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

namespace {

// A marker line (the current ε, a threshold) on the white slide: thicker, and black when it was
// light for the dark theme (a light grey line vanished on the slide's white).
QPen markerPen(QPen pen, double lineWidth) {
    pen.setWidthF(std::max(pen.widthF() * 2, lineWidth * 0.75));
    if (pen.color().lightnessF() > 0.6) {
        pen.setColor(Qt::black);
    }
    return pen;
}

// The plot's background brush has no getter: reach the protected member (read and restore only).
struct PlotBackground : QCustomPlot {
    static QBrush& of(QCustomPlot* plot) { return plot->*(&PlotBackground::mBackgroundBrush); }
};

// The marker shapes of the series in order: a series with markers keeps its colour's shape, so
// two series stay apart where their colours wash out together.
constexpr std::array<QCPScatterStyle::ScatterShape, 6> kShapes = {
    QCPScatterStyle::ssDisc,    QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
    QCPScatterStyle::ssDiamond, QCPScatterStyle::ssCross,  QCPScatterStyle::ssTriangleInverted};

QFont pixelFont(QFont font, double px, bool bold = false) {
    font.setPixelSize(std::max(1, static_cast<int>(std::lround(px))));
    font.setBold(bold);
    return font;
}

}  // namespace

std::function<void()> PresentationView::applyPresentationLook(QCustomPlot* plot, int height) {
    std::vector<std::function<void()>> undo;
    // Axis labels about 1/30 of the picture's height (36 px on 1080 lines), ticks and legends
    // four fifths of that; lines 1/270 of the height, at least 3 px.
    const double labelPx = std::clamp(height / 30.0, 14.0, 72.0);
    const double tickPx = 0.8 * labelPx;
    const double lineWidth = std::max(3.0, height / 270.0);
    const QColor black(Qt::black);
    const QColor grid(190, 190, 190);

    QBrush& background = PlotBackground::of(plot);
    undo.push_back([plot, b = background] { plot->setBackground(b); });
    plot->setBackground(QBrush(Qt::white));

    auto styleAxis = [&](QCPAxis* axis) {
        undo.push_back([axis, base = axis->basePen(), tick = axis->tickPen(),
                        sub = axis->subTickPen(), lc = axis->labelColor(),
                        tc = axis->tickLabelColor(), lf = axis->labelFont(),
                        tf = axis->tickLabelFont(), gp = axis->grid()->pen()] {
            axis->setBasePen(base);
            axis->setTickPen(tick);
            axis->setSubTickPen(sub);
            axis->setLabelColor(lc);
            axis->setTickLabelColor(tc);
            axis->setLabelFont(lf);
            axis->setTickLabelFont(tf);
            axis->grid()->setPen(gp);
        });
        const QPen axisPen(black, 2);
        axis->setBasePen(axisPen);
        axis->setTickPen(axisPen);
        axis->setSubTickPen(QPen(black, 1));
        axis->setLabelColor(black);
        axis->setTickLabelColor(black);
        axis->setLabelFont(pixelFont(axis->labelFont(), labelPx, true));
        axis->setTickLabelFont(pixelFont(axis->tickLabelFont(), tickPx));
        if (axis->grid()->pen().style() != Qt::NoPen) {
            axis->grid()->setPen(QPen(grid, 1, Qt::SolidLine));
        }
    };
    for (QCPAxisRect* rect : plot->axisRects()) {
        for (QCPAxis* axis : rect->axes()) {
            styleAxis(axis);
        }
    }
    for (QCPLayoutElement* el : plot->plotLayout()->elements(true)) {
        if (auto* scale = qobject_cast<QCPColorScale*>(el)) {
            styleAxis(scale->axis());
        } else if (auto* title = qobject_cast<QCPTextElement*>(el)) {
            undo.push_back([title, f = title->font(), c = title->textColor()] {
                title->setFont(f);
                title->setTextColor(c);
            });
            title->setFont(pixelFont(title->font(), labelPx * 1.1, true));
            title->setTextColor(black);
        }
    }
    // Every legend: inside an axis rect or in a row of the plot's layout of its own (the
    // Trade-off tab's, under the plot, kept its small type on the slide).
    QList<QCPLegend*> legends;
    for (QCPLayoutElement* el : plot->plotLayout()->elements(true)) {
        if (auto* legend = qobject_cast<QCPLegend*>(el); legend && !legends.contains(legend)) {
            legends << legend;
        }
    }
    for (QCPLegend* legend : legends) {
        std::vector<std::pair<QCPAbstractLegendItem*, std::pair<QFont, QColor>>> items;
        for (int i = 0; i < legend->itemCount(); ++i) {
            if (QCPAbstractLegendItem* item = legend->item(i)) {
                items.push_back({item, {item->font(), item->textColor()}});
            }
        }
        undo.push_back([legend, items, f = legend->font(), c = legend->textColor(),
                        b = legend->brush(), p = legend->borderPen()] {
            legend->setFont(f);
            legend->setTextColor(c);
            legend->setBrush(b);
            legend->setBorderPen(p);
            for (const auto& [item, look] : items) {
                item->setFont(look.first);
                item->setTextColor(look.second);
            }
        });
        legend->setFont(pixelFont(legend->font(), tickPx));
        legend->setTextColor(black);
        legend->setBrush(QBrush(QColor(255, 255, 255, 235)));
        legend->setBorderPen(QPen(black, 1.5));
        for (const auto& [item, look] : items) {
            item->setFont(pixelFont(look.first, tickPx));
            item->setTextColor(black);
        }
    }

    // The series: each distinct colour in the order met becomes the next of the six colours of
    // presentationSeriesColors(), its markers the next shape; the seventh and later repeat them
    // dashed, the thirteenth and later dotted. Colour maps (heatmaps) keep their scale.
    const std::vector<QColor> seriesColours = presentationSeriesColors();
    const int colours = static_cast<int>(seriesColours.size());
    std::map<QRgb, int> order;
    int shapeIndex = 0;
    auto mapped = [&](const QColor& c, Qt::PenStyle& style) {
        const auto [it, added] = order.emplace(c.rgb(), static_cast<int>(order.size()));
        const int k = it->second;
        shapeIndex = k;
        style = k < colours ? Qt::SolidLine : (k < 2 * colours ? Qt::DashLine : Qt::DotLine);
        return seriesColours[static_cast<std::size_t>(k % colours)];
    };
    for (int i = 0; i < plot->plottableCount(); ++i) {
        QCPAbstractPlottable* p = plot->plottable(i);
        if (qobject_cast<QCPColorMap*>(p)) {
            continue;
        }
        auto* graph = qobject_cast<QCPGraph*>(p);
        auto* curve = qobject_cast<QCPCurve*>(p);
        const QCPScatterStyle scatter = graph   ? graph->scatterStyle()
                                        : curve ? curve->scatterStyle()
                                                : QCPScatterStyle();
        undo.push_back([p, graph, curve, pen = p->pen(), brush = p->brush(), scatter] {
            p->setPen(pen);
            p->setBrush(brush);
            if (graph) {
                graph->setScatterStyle(scatter);
            } else if (curve) {
                curve->setScatterStyle(scatter);
            }
        });
        const QColor source = p->pen().style() != Qt::NoPen ? p->pen().color() : p->brush().color();
        Qt::PenStyle style = Qt::SolidLine;
        const QColor c = mapped(source, style);
        if (qobject_cast<QCPBars*>(p)) {
            // Bars: a light fill of the colour with a black outline.
            QColor fill = c == QColor(Qt::black) ? QColor(150, 150, 150) : c;
            fill.setAlpha(p->brush().style() == Qt::NoBrush ? 0 : 170);
            p->setBrush(fill.alpha() ? QBrush(fill) : QBrush(Qt::NoBrush));
            p->setPen(QPen(black, std::max(1.5, lineWidth / 2)));
            continue;
        }
        if (p->pen().style() != Qt::NoPen) {
            QPen pen(c, lineWidth, p->pen().style() == Qt::SolidLine ? style : p->pen().style());
            pen.setCapStyle(Qt::RoundCap);
            p->setPen(pen);
        }
        if (p->brush().style() != Qt::NoBrush) {
            QColor fill = c;
            fill.setAlpha(std::clamp(p->brush().color().alpha(), 40, 90));
            p->setBrush(QBrush(fill));
        }
        if (!scatter.isNone()) {
            QCPScatterStyle big = scatter;
            // Shaped markers (not a custom path or pixmap) take the series' shape.
            if (scatter.shape() != QCPScatterStyle::ssCustom &&
                scatter.shape() != QCPScatterStyle::ssPixmap) {
                big.setShape(kShapes[static_cast<std::size_t>(shapeIndex) % kShapes.size()]);
            }
            big.setSize(std::max(scatter.size() * 2, lineWidth * 3.5));
            big.setPen(QPen(c, std::max(2.0, lineWidth / 1.5)));
            if (scatter.brush().style() != Qt::NoBrush) {
                big.setBrush(QBrush(c));
            }
            if (graph) {
                graph->setScatterStyle(big);
            } else if (curve) {
                curve->setScatterStyle(big);
            }
        }
    }
    for (int i = 0; i < plot->itemCount(); ++i) {
        QCPAbstractItem* item = plot->item(i);
        if (auto* text = qobject_cast<QCPItemText*>(item)) {
            undo.push_back([text, f = text->font(), c = text->color()] {
                text->setFont(f);
                text->setColor(c);
            });
            text->setFont(pixelFont(text->font(), tickPx, text->font().bold()));
            text->setColor(black);
        } else if (auto* line = qobject_cast<QCPItemStraightLine*>(item)) {
            undo.push_back([line, pen = line->pen()] { line->setPen(pen); });
            line->setPen(markerPen(line->pen(), lineWidth));
        } else if (auto* segment = qobject_cast<QCPItemLine*>(item)) {
            undo.push_back([segment, pen = segment->pen()] { segment->setPen(pen); });
            segment->setPen(markerPen(segment->pen(), lineWidth));
        }
    }
    return [undo = std::move(undo)] {
        for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
            (*it)();
        }
    };
}

std::vector<QColor> PresentationView::presentationSeriesColors() {
    // Black and five hues of Okabe & Ito 2008's colour-blind-safe palette (blue, vermilion,
    // bluish green, reddish purple, and its orange darkened to ochre), darkened to at least 4:1
    // against the slide's white (WCAG 2.1 relative luminance) and at least 50 apart from each
    // other in CIELAB (ΔE*ab 1976), so that thick lines stay apart on a washed-out projector;
    // tst_window_present checks both. The palette's sky blue and yellow are too light on white.
    return {QColor(0, 0, 0),    QColor(0, 90, 200),   QColor(213, 70, 0),
            QColor(0, 125, 90), QColor(170, 50, 140), QColor(150, 120, 0)};
}

QPalette PresentationView::presentationPalette(QPalette pal) {
    // White ground and black text whatever the window's theme: a projector washes dark greys out.
    for (auto role :
         {QPalette::Window, QPalette::Base, QPalette::Button, QPalette::AlternateBase}) {
        pal.setColor(role, Qt::white);
    }
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
        pal.setColor(role, Qt::black);
    }
    pal.setColor(QPalette::Mid, QColor(120, 120, 120));
    // A disabled button (a lesson's "← Previous" on its first step) still reads as disabled.
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
        pal.setColor(QPalette::Disabled, role, QColor(150, 150, 150));
    }
    return pal;
}

void showOnWholeScreen(QWidget* window) {
    // Without a window manager (a bare X server, a kiosk) full screen does not resize the
    // window: give it the screen's geometry first.
    if (const QScreen* screen =
            window->screen() ? window->screen() : QGuiApplication::primaryScreen()) {
        window->setGeometry(screen->geometry());
    }
    window->showFullScreen();
}

void presentWindow(QWidget* window, bool on, QSize size) {
    window->setProperty("presenting", on);
    if (on) {
        window->setPalette(PresentationView::presentationPalette(window->palette()));
        if (size.isValid()) {
            window->resize(size);
            window->show();
        } else {
            showOnWholeScreen(window);
        }
    } else {
        window->setPalette(QPalette());  // the application's again (follows the theme)
        if (window->isFullScreen()) {
            window->showNormal();
        }
    }
}

bool isPresenting(const QWidget* window) {
    return window->property("presenting").toBool();
}

PresentationView::PresentationView(double epsilonMin, double epsilonMax, QWidget* parent)
    : QWidget(parent) {
    setObjectName(QStringLiteral("presentation"));
    setWindowTitle(tr("DP Explorer — presentation"));
    setAutoFillBackground(true);
    setPalette(presentationPalette(palette()));

    title_ = new QLabel;
    title_->setObjectName(QStringLiteral("presentationTitle"));
    title_->setWordWrap(true);
    subtitle_ = new QLabel;
    subtitle_->setObjectName(QStringLiteral("presentationSubtitle"));
    subtitle_->setWordWrap(true);
    canvas_ = new QLabel;
    canvas_->setObjectName(QStringLiteral("presentationPlot"));
    canvas_->setAlignment(Qt::AlignCenter);
    canvas_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    canvas_->setMinimumSize(200, 150);

    epsilonLabel_ = new QLabel(tr("ε:"));
    epsilon_ = new LogSliderField(epsilonMin, epsilonMax);
    epsilon_->setObjectName(QStringLiteral("presentationEpsilon"));
    epsilonLabel_->setBuddy(epsilon_->lineEdit());
    connect(epsilon_, &LogSliderField::valueEdited, this,
            [this](double v, bool) { Q_EMIT epsilonEdited(v); });
    connect(epsilon_, &LogSliderField::textRejected, this, [this](const QString& text) {
        epsilon_->setError(tr("“%1” is not a number").arg(text));
    });
    png_ = new QPushButton(tr("Save PNG…"));
    png_->setObjectName(QStringLiteral("presentationPng"));
    pdf_ = new QPushButton(tr("Save PDF slide…"));
    pdf_->setObjectName(QStringLiteral("presentationPdf"));
    leave_ = new QPushButton(tr("Leave (Esc)"));
    leave_->setObjectName(QStringLiteral("presentationLeave"));
    for (QPushButton* b : {png_, pdf_, leave_}) {
        b->setFocusPolicy(Qt::NoFocus);
    }
    connect(png_, &QPushButton::clicked, this, [this] { exportWithDialog(false); });
    connect(pdf_, &QPushButton::clicked, this, [this] { exportWithDialog(true); });
    connect(leave_, &QPushButton::clicked, this, &PresentationView::closeRequested);

    auto* controls = new QHBoxLayout;
    controls->addWidget(epsilonLabel_);
    controls->addWidget(epsilon_, 1);
    controls->addSpacing(24);
    controls->addWidget(png_);
    controls->addWidget(pdf_);
    controls->addWidget(leave_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(24, 16, 24, 16);
    layout->addWidget(title_);
    layout->addWidget(subtitle_);
    layout->addWidget(canvas_, 1);
    layout->addLayout(controls);
    applyFonts();
}

void PresentationView::setSource(QCustomPlot* plot, const QString& title, const QString& subtitle) {
    if (replotted_) {
        disconnect(replotted_);
    }
    source_ = plot;
    sourceAlive_ = plot;
    title_->setText(title);
    subtitle_->setText(subtitle);
    subtitle_->setVisible(!subtitle.isEmpty());
    if (plot) {
        replotted_ = connect(plot, &QCustomPlot::afterReplot, this, [this] { scheduleRender(); });
    }
    scheduleRender();
}

void PresentationView::setEpsilon(double epsilon) {
    epsilon_->setValue(epsilon);
    epsilon_->setError({});
}

void PresentationView::setEpsilonError(const QString& message) {
    epsilon_->setError(message);
}

void PresentationView::scheduleRender() {
    if (renderPending_) {
        return;
    }
    renderPending_ = true;
    QTimer::singleShot(0, this, [this] {
        renderPending_ = false;
        render();
    });
}

void PresentationView::render() {
    const QSize size = canvas_->size();
    QCustomPlot* plot = source();
    if (!plot) {
        picture_ = QPixmap();
        canvas_->setPixmap(QPixmap());
        canvas_->setText(tr("This tab has no plot to present."));
        return;
    }
    const qreal dpr = devicePixelRatioF();
    // The look is applied for this one drawing and undone before anything else runs, so the tab
    // keeps its own look; toPixmap draws without emitting afterReplot (no loop).
    const std::function<void()> restore = applyPresentationLook(plot, size.height());
    picture_ = plot->toPixmap(size.width(), size.height(), dpr);
    restore();
    picture_.setDevicePixelRatio(dpr);
    canvas_->setPixmap(picture_);
}

void PresentationView::applyFonts() {
    // Type scales with the screen: the title 1/22 of the height, the rest 1/40.
    const double h = std::max(height(), 400);
    QFont base = font();
    base.setPixelSize(static_cast<int>(std::lround(std::clamp(h / 40.0, 13.0, 54.0))));
    for (QWidget* w : findChildren<QWidget*>()) {
        w->setFont(base);
    }
    QFont title = base;
    title.setPixelSize(static_cast<int>(std::lround(std::clamp(h / 22.0, 18.0, 96.0))));
    title.setBold(true);
    title_->setFont(title);
}

void PresentationView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    applyFonts();
    scheduleRender();
}

void PresentationView::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Escape || event->key() == Qt::Key_F5) {
        Q_EMIT closeRequested();
        return;
    }
    QWidget::keyPressEvent(event);
}

QString PresentationView::savePng(const QString& path) {
    render();
    return grab().save(path, "PNG") ? QString() : tr("Could not write %1.").arg(path);
}

QString PresentationView::savePdf(const QString& path) {
    render();
    const QPixmap shot = grab();
    QPdfWriter writer(path);
    writer.setResolution(96);
    // One page the size of the screen in points (96 px = 72 pt), no margins: a slide.
    writer.setPageSize(QPageSize(QSizeF(width() * 0.75, height() * 0.75), QPageSize::Point));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    writer.setTitle(title_->text());
    writer.setCreator(QStringLiteral("DP Explorer"));
    QPainter painter;
    if (!painter.begin(&writer)) {
        return tr("Could not write %1.").arg(path);
    }
    painter.drawPixmap(QRect(0, 0, writer.width(), writer.height()), shot);
    return painter.end() ? QString() : tr("Could not write %1.").arg(path);
}

void PresentationView::exportWithDialog(bool pdf) {
    const QString path = QFileDialog::getSaveFileName(
        this, pdf ? tr("Save PDF slide") : tr("Save PNG"),
        pdf ? QStringLiteral("dpexplorer-slide.pdf") : QStringLiteral("dpexplorer-slide.png"),
        pdf ? tr("PDF (*.pdf)") : tr("PNG image (*.png)"));
    if (path.isEmpty()) {
        return;
    }
    const QString error = pdf ? savePdf(path) : savePng(path);
    if (!error.isEmpty()) {
        QMessageBox::warning(this, tr("Presentation"), error);
    }
}

}  // namespace dpx::ui
