#include "ui/widgets/page.h"

#include "ui/widgets/plot_refresh.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QTextDocument>
#include <algorithm>

#include "ui/widgets/plot_style.h"
#include "ui/widgets/plot_title.h"
#include "ui/widgets/qcustomplot_include.h"
#include "ui/widgets/side_by_side.h"
#include "ui/widgets/side_panel_width.h"

namespace dpx::ui {

QString Page::statusText() const {
    return status_ ? status_->text() : QString();
}

QLabel* Page::makeStatusLine(const QString& objectName) {
    status_ = new QLabel;
    if (!objectName.isEmpty()) {
        status_->setObjectName(objectName);
    }
    status_->setWordWrap(true);
    return status_;
}

QScrollArea* Page::scrollingSidePanel(QWidget* side, int minWidth, int maxWidth) {
    auto* scroll = new QScrollArea;
    scroll->setWidget(side);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    if (minWidth == maxWidth) {
        scroll->setFixedWidth(minWidth);
    } else {
        scroll->setMinimumWidth(minWidth);
        scroll->setMaximumWidth(maxWidth);
    }
    followContentsWidth(scroll);  // never narrower than the controls need (zoom, fonts)
    return scroll;
}

void Page::placeBesideSidePanel(QWidget* main, QWidget* side, bool flush) {
    auto* layout = new QHBoxLayout(this);
    if (flush) {
        layout->setContentsMargins(0, 0, 0, 0);
    }
    layout->addWidget(main, 1);
    layout->addWidget(side);
    sideBySideOrStacked(this, layout);
}

void Page::placeBesideSidePanel(QLayout* main, QWidget* side, bool flush) {
    auto* layout = new QHBoxLayout(this);
    if (flush) {
        layout->setContentsMargins(0, 0, 0, 0);
    }
    layout->addLayout(main, 1);
    layout->addWidget(side);
    sideBySideOrStacked(this, layout);
}

QFont Page::titleFont() const {
    return QFont(font().family(), font().pointSize() + 1, QFont::Bold);
}

QCPTextElement* Page::addPlotTitle(QCustomPlot* plot, const QString& text) {
    plot->plotLayout()->insertRow(0);
    auto* title = new PlotTitle(plot, text, titleFont());
    plot->plotLayout()->addElement(0, 0, title);
    addStyledPlot(plot);
    titles_.push_back(title);
    return title;
}

void Page::addStyledPlot(QCustomPlot* plot) {
    if (std::find(plots_.begin(), plots_.end(), plot) == plots_.end()) {
        plots_.push_back(plot);
    }
}

void Page::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && !plots_.empty()) {
        for (QCustomPlot* plot : plots_) {
            applyPlotPalette(plot, palette());
        }
        for (QCPTextElement* title : titles_) {
            title->setTextColor(palette().color(QPalette::WindowText));
        }
        restyle();
    }
}

void Page::setRunButtons(QPushButton* run, QPushButton* cancel) {
    run_ = run;
    cancel_ = cancel;
}

void Page::setRunning(bool running) {
    running_ = running;
    if (run_) {
        run_->setEnabled(!running);
    }
    if (cancel_) {
        cancel_->setEnabled(running);
    }
}

void Page::endWithMessage(const QString& text, const std::function<void()>& forgetResult) {
    setRunning(false);
    hasResult_ = false;
    drawn_ = true;
    setStatus(text, true);
    forgetResult();
    Q_EMIT finished();
}

void Page::finishCurvePlot(QCustomPlot* plot, const QString& dashedKey, PlotExtent fitted,
                           PlotExtent whenEmpty, const QString& emptyHint) {
    if (!dashedKey.isEmpty()) {
        QCPGraph* key = plot->addGraph();
        key->setPen(QPen(palette().color(QPalette::WindowText), 1.2, Qt::DashLine));
        key->setName(dashedKey);
    }
    if (fitted.hi > 0) {
        plot->yAxis->setRange(fitted.lo / 1.6, fitted.hi * 1.6);
        plot->xAxis->setRange(fitted.xlo / 1.3, fitted.xhi * 1.3);
    } else {
        plot->yAxis->setRange(whenEmpty.lo, whenEmpty.hi);
        plot->xAxis->setRange(whenEmpty.xlo, whenEmpty.xhi);
        if (!emptyHint.isEmpty()) {
            setStatus(emptyHint);
        }
    }
    plot->legend->setVisible(plot->legend->itemCount() > 0);
    replotWhenVisible(plot);
}

void Page::setStatus(const QString& text, bool error) {
    setMessageText(status_, text, error);
}

void Page::setMessageText(QLabel* label, const QString& text, bool error) {
    label->setStyleSheet(error ? QStringLiteral("color: #d62728; font-weight: bold;") : QString());
    if (text.isEmpty()) {
        label->clear();
    } else {
        label->setText(text);
    }
}

QString Page::plainTextOf(const QLabel* label) {
    QTextDocument doc;
    doc.setHtml(label->text());
    return doc.toPlainText();
}

}  // namespace dpx::ui
