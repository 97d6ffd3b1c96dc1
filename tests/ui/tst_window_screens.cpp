// Every screen (issue #21): the window fits its screen, and every tab and a lesson render at
// 1024 × 768 and 1920 × 1080 with no visible widget overflowing its parent, no single-line label,
// check box or button narrower than its text, no plot title or legend entry cut and no lesson
// dot under a legend; the data panel opens wide enough for its controls; View ▸ Zoom scales
// widget fonts and plot texts together; the side panel hides; every tab has its "what am I
// looking at" line. Presentation mode is tst_window_present.
#include <QAbstractButton>
#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QStyleOption>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <memory>

#include "tests/ui/window_screens_support.h"
#include "tests/ui/window_test_support.h"
#include "ui/lessons/lessons.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/job_runner.h"
#include "ui/panels/data_panel.h"
#include "ui/release/release_dialog.h"
#include "ui/tabs/histogram_tab.h"
#include "ui/tabs/strategy/strategy_tab.h"
#include "ui/tabs/tradeoff_tab.h"
#include "ui/widgets/axis_label.h"
#include "ui/widgets/elided_label.h"
#include "ui/widgets/log_slider_field.h"
#include "ui/widgets/plot_legend.h"
#include "ui/widgets/plot_title.h"
#include "ui/widgets/presentation_view.h"
#include "ui/widgets/qcustomplot_include.h"
#include "ui/widgets/side_panel_width.h"
#include "ui/widgets/what_line.h"

using namespace dpx;
using namespace dpx::ui;
using dpx::ui::test::kPages;
using dpx::ui::test::kTabs;
using dpx::ui::test::settle;

namespace {

QString describe(const QWidget* w) {
    QString name = QString::fromLatin1(w->metaObject()->className());
    if (!w->objectName().isEmpty()) {
        name += QLatin1Char('#') + w->objectName();
    }
    if (const auto* l = qobject_cast<const QLabel*>(w)) {
        name += QStringLiteral(" \"%1\"").arg(l->text().left(40));
    } else if (const auto* b = qobject_cast<const QAbstractButton*>(w)) {
        name += QStringLiteral(" \"%1\"").arg(b->text().left(40));
    }
    return name;
}

// Parts of composite widgets that place their children themselves (scroll bars, spin box
// editors, the tab bar's scroll buttons): not the window's layout.
bool isInternal(const QWidget* parent) {
    return qobject_cast<const QTabBar*>(parent) || qobject_cast<const QAbstractSpinBox*>(parent) ||
           qobject_cast<const QComboBox*>(parent) || qobject_cast<const QScrollBar*>(parent) ||
           qobject_cast<const QLineEdit*>(parent) ||
           qobject_cast<const QAbstractScrollArea*>(parent);
}

// How a legend runs out of `room` (called `what`), "" when it lies inside.
QString legendOutside(const QCPLegend* legend, const QRect& room, const QString& what) {
    const QRect r = legend->outerRect();
    if (room.adjusted(-1, -1, 1, 1).contains(r)) {
        return {};
    }
    const auto text = [](const QRect& q) {
        return QStringLiteral("%1,%2 %3×%4").arg(q.x()).arg(q.y()).arg(q.width()).arg(q.height());
    };
    return QStringLiteral("at %1 runs out of %2 (%3)").arg(text(r), what, text(room));
}

// What is wrong with the layout of `root` as shown: every visible widget must lie inside its
// parent (except inside a scroll area's viewport, which scrolls), and a single-line label, check
// box, radio or push button must be at least as wide as its text (else its text is cut).
QStringList layoutProblems(QWidget* root) {
    // Layout requests travel one level per round: settle them all first.
    for (int round = 0; round < 6; ++round) {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    }
    QStringList out;
    for (QWidget* w : root->findChildren<QWidget*>()) {
        if (!w->isVisible() || w->isWindow()) {
            continue;
        }
        // A tab that has to be scrolled sideways does not fit its screen (vertical scrolling,
        // and the side panel's, are allowed).
        if (auto* area = qobject_cast<QScrollArea*>(w);
            area && area->objectName().endsWith(QLatin1String("TabScroll")) &&
            area->horizontalScrollBar()->isVisible()) {
            out << QStringLiteral("%1 must be scrolled sideways: its contents need %2 px, %3 shown")
                       .arg(describe(area))
                       .arg(area->widget()->minimumSizeHint().width())
                       .arg(area->viewport()->width());
        }
        // A table shown whole in its tab must not hide a column to the right (the Budget tab's
        // "Sampling rate", the Errors tab's W1 at 1024 × 768): none is exempt.
        if (auto* table = qobject_cast<QTableView*>(w);
            table && table->horizontalScrollBar()->isVisible()) {
            out << QStringLiteral("%1 must be scrolled sideways to see all its columns")
                       .arg(describe(table));
        }
        QWidget* p = w->parentWidget();
        if (!p || isInternal(p) || p->rect().isEmpty()) {
            continue;  // a collapsed splitter pane shows nothing of its children
        }
        const auto* area = qobject_cast<const QAbstractScrollArea*>(p->parentWidget());
        const bool scrolled = area && area->viewport() == p;
        // A scroll area's contents beyond its viewport must be reachable: by a scroll bar that
        // shows in that direction (a panel that scrolls vertically only and is narrower than its
        // contents cuts its controls at the right).
        if (scrolled && !isInternal(area->parentWidget())) {
            const QRect shown = p->rect().adjusted(-1, -1, 1, 1);
            const QRect g = w->geometry();
            const bool cutSideways = (g.left() < shown.left() || g.right() > shown.right()) &&
                                     !area->horizontalScrollBar()->isVisible();
            const bool cutBelow = (g.top() < shown.top() || g.bottom() > shown.bottom()) &&
                                  !area->verticalScrollBar()->isVisible();
            if (cutSideways || cutBelow) {
                out << QStringLiteral(
                           "%1 (%2×%3) is cut by %4's %5×%6 view with no scroll bar to "
                           "reach the rest")
                           .arg(describe(w))
                           .arg(g.width())
                           .arg(g.height())
                           .arg(describe(area))
                           .arg(p->width())
                           .arg(p->height());
            }
        }
        if (!scrolled && !p->rect().adjusted(-1, -1, 1, 1).contains(w->geometry())) {
            out << QStringLiteral("%1 at %2,%3 %4×%5 overflows %6 (%7×%8)")
                       .arg(describe(w))
                       .arg(w->x())
                       .arg(w->y())
                       .arg(w->width())
                       .arg(w->height())
                       .arg(describe(p))
                       .arg(p->width())
                       .arg(p->height());
        }
        // The status bar's line is drawn with "…" and its whole text as tooltip: a status line,
        // not the view's content.
        if (auto* l = qobject_cast<QLabel*>(w); l && !l->wordWrap() && !l->text().isEmpty() &&
                                                l->pixmap().isNull() &&
                                                l->objectName() != QLatin1String("statusText")) {
            if (l->width() + 2 < l->sizeHint().width()) {
                out << QStringLiteral("%1 is cut: %2 px wide, its text needs %3")
                           .arg(describe(l))
                           .arg(l->width())
                           .arg(l->sizeHint().width());
            }
        }
        // A box narrower than its minimum shows a cut choice (boxes with long choices are made
        // to show what fits on purpose: their minimum is what they need).
        if (auto* box = qobject_cast<QComboBox*>(w);
            box && box->width() + 2 < box->minimumSizeHint().width()) {
            out << QStringLiteral("%1 is cut: %2 px wide, it needs %3")
                       .arg(describe(box))
                       .arg(box->width())
                       .arg(box->minimumSizeHint().width());
        }
        // A plot's titles show their whole text (wrapped where they wrap) in the room the plot's
        // layout gives them, as drawn at the plot's current size.
        if (auto* plot = qobject_cast<QCustomPlot*>(w); plot && plot->width() > 0) {
            plot->replot(QCustomPlot::rpImmediateRefresh);
            for (QCPLayoutElement* e : plot->plotLayout()->elements(true)) {
                if (auto* t = qobject_cast<QCPTextElement*>(e); t && !titleFits(t)) {
                    out << QStringLiteral("%1's title \"%2\" is cut: %3×%4 px shown")
                               .arg(describe(plot), t->text().left(60))
                               .arg(t->rect().width())
                               .arg(t->rect().height());
                }
                // A legend entry narrower than its icon and text draws its text cut.
                if (auto* legend = qobject_cast<QCPLegend*>(e); legend && !legendFits(legend)) {
                    QStringList cut;
                    for (int i = 0; i < legend->itemCount(); ++i) {
                        auto* it = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
                        // The hint is public on the layout element, protected on the item.
                        const auto* el = static_cast<const QCPLayoutElement*>(it);
                        const int need = it ? el->minimumOuterSizeHint().width() : 0;
                        if (it && it->outerRect().width() + 1 < need) {
                            cut << QStringLiteral("\"%1\" (%2 of %3 px)")
                                       .arg(it->plottable()->name().left(40))
                                       .arg(it->outerRect().width())
                                       .arg(need);
                        }
                    }
                    out << QStringLiteral("%1's legend entries are cut: %2")
                               .arg(describe(plot), cut.join(QStringLiteral(", ")));
                }
            }
            // A legend cut as a whole: one inside an axis rect (an inset) lies inside its data
            // area, every legend lies inside the plot and is as tall as its entries need (a
            // tall legend in a short plot ran past the plot's edge or was squeezed, its last
            // entries not drawn at all, while each entry it drew was wide enough).
            for (QCPLayoutElement* e : plot->plotLayout()->elements(true)) {
                auto* legend = qobject_cast<QCPLegend*>(e);
                if (!legend || !legend->visible() || legend->itemCount() == 0) {
                    continue;
                }
                QString cut;
                for (QCPAxisRect* rect : plot->axisRects()) {
                    if (legend->layout() == rect->insetLayout() && cut.isEmpty()) {
                        cut = legendOutside(legend, rect->rect(), QStringLiteral("its axis rect"));
                    }
                }
                if (cut.isEmpty()) {
                    cut = legendOutside(legend, plot->viewport(), QStringLiteral("the plot"));
                }
                const auto* el = static_cast<const QCPLayoutElement*>(legend);
                const int need = el->minimumOuterSizeHint().height();
                if (cut.isEmpty() && legend->outerRect().height() + 1 < need) {
                    cut = QStringLiteral("is %1 px tall, its entries need %2")
                              .arg(legend->outerRect().height())
                              .arg(need);
                }
                if (!cut.isEmpty()) {
                    out << QStringLiteral("%1's legend %2").arg(describe(plot), cut);
                }
            }
            // An axis label longer than its axis runs past the plot's edge ("δ(ε) of the whole
            // pla").
            for (QCPAxisRect* rect : plot->axisRects()) {
                for (QCPAxis* axis : rect->axes()) {
                    if (!axisLabelFits(axis)) {
                        out << QStringLiteral("%1's axis label \"%2\" is longer than its axis")
                                   .arg(describe(plot), axis->label().left(60));
                    }
                }
            }
        }
        // A control lower than its minimum draws its text cut through the middle: a layout
        // gave it less height than it needs (the side panel's Data box on the Random DP page
        // at 1024 × 768, session 33: its buttons, spin box and list squashed to a few pixels).
        if ((qobject_cast<QAbstractButton*>(w) || qobject_cast<QAbstractSpinBox*>(w) ||
             qobject_cast<QComboBox*>(w) || qobject_cast<QLineEdit*>(w)) &&
            !isInternal(w->parentWidget()) &&
            w->height() + 2 < std::min(w->minimumSizeHint().height(), w->sizeHint().height())) {
            out << QStringLiteral("%1 is squashed: %2 px high, it needs %3")
                       .arg(describe(w))
                       .arg(w->height())
                       .arg(std::min(w->minimumSizeHint().height(), w->sizeHint().height()));
        }
        auto* b = qobject_cast<QAbstractButton*>(w);
        if (b && !b->text().isEmpty() &&
            (qobject_cast<QCheckBox*>(b) || qobject_cast<QRadioButton*>(b) ||
             qobject_cast<QPushButton*>(b)) &&
            b->width() + 2 < b->minimumSizeHint().width()) {
            out << QStringLiteral("%1 is cut: %2 px wide, its text needs %3")
                       .arg(describe(b))
                       .arg(b->width())
                       .arg(b->minimumSizeHint().width());
        }
    }
    return out;
}

// The dots of a plot (graphs drawn as points only) that its legend, inside the axis rect, hides:
// a legend may cover a line for a moment, never a dot the narrative counts.
QStringList hiddenDots(QCustomPlot* plot) {
    QStringList out;
    if (!plot->isVisible() || !plot->legend || !plot->legend->visible() ||
        plot->legend->layout() != plot->axisRect()->insetLayout()) {
        return out;
    }
    plot->replot(QCustomPlot::rpImmediateRefresh);
    const QRect legend = plot->legend->outerRect();
    for (int i = 0; i < plot->graphCount(); ++i) {
        QCPGraph* g = plot->graph(i);
        if (g->lineStyle() != QCPGraph::lsNone || !g->visible()) {
            continue;
        }
        int hidden = 0;
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) {
            const QPointF px = g->coordsToPixels(it->key, it->value);
            hidden += legend.contains(px.toPoint()) ? 1 : 0;
        }
        if (hidden > 0) {
            out << QStringLiteral("%1 of the dots \"%2\" are under the legend")
                       .arg(hidden)
                       .arg(g->name());
        }
    }
    return out;
}

// `json` as a session file in `dir`; its path.
QString writeSession(const QTemporaryDir& dir, const QString& json) {
    const QString path = dir.filePath(QStringLiteral("session.json"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        return {};
    }
    f.write(json.toUtf8());
    return path;
}

}  // namespace

class TestWindowScreens : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);  // QSettings away from the user's own
    }

    void everyTabFits_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<double>("zoom");
        QTest::newRow("1024x768") << QSize(1024, 768) << 1.0;
        QTest::newRow("1920x1080") << QSize(1920, 1080) << 1.0;
        // A classroom's zoom on a full-HD projector: fonts 40 % larger, panels as wide as before.
        QTest::newRow("1920x1080 zoom 1.4") << QSize(1920, 1080) << 1.4;
    }

    // Every tab at the size of a classroom projector and of a full-HD screen: nothing overflows,
    // nothing that must be read is cut.
    void everyTabFits() {
        QFETCH(QSize, size);
        QFETCH(double, zoom);
        MainWindow w;
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::waitForData(w));
        QCOMPARE(w.size(), size);
        w.setZoom(zoom);
        const auto unzoom = qScopeGuard([&w] { w.setZoom(1.0); });
        QStringList problems;
        for (const QString& tab : kTabs + kPages) {
            QVERIFY(w.showTab(tab));
            settle(w);
            // A tab whose minimum width is more than the screen leaves makes the whole window
            // grow past the screen's edge (1097 px on a 1024 px screen was seen).
            if (w.width() > size.width() || w.height() > size.height()) {
                problems << tab + QStringLiteral(": the window grew to %1 × %2")
                                      .arg(w.width())
                                      .arg(w.height());
                w.resize(size);
                settle(w);
            }
            for (const QString& p : layoutProblems(&w)) {
                problems << tab + QStringLiteral(": ") + p;
            }
        }
        if (!problems.isEmpty()) {
            qWarning("%s", qPrintable(problems.join(QLatin1Char('\n'))));
        }
        QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("%1 layout problems, the first: %2")
                                                    .arg(problems.size())
                                                    .arg(problems.value(0))));
    }

    // Every tab beside the data panel as a CSV file opens it (the file's options and person id
    // make the panel about 375 px wide, the tabs about 100 px narrower than with an example): the
    // Trade-off tab's configuration grid and the Strategy tab's heatmaps scrolled sideways at
    // 1024 × 768, which the example's narrower panel did not show.
    void everyTabFitsBesideACsvPanel() {
        const QSize size(1024, 768);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString csv = QStringLiteral(QT_TESTCASE_SOURCEDIR "/../cli/golden/people.csv");
        QVERIFY(QFile::exists(csv));
        // A 2-way marginal workload on the Strategy tab's matrices page: W and A side by side.
        const QString session =
            writeSession(dir, QStringLiteral(R"({"format": "dpexplorer-session", "version": 1,
                "data": {"source": "csv", "csv": "%1", "column": "age"},
                "mechanism": {"name": "laplace", "epsilon": 1, "estimator": "clamp"},
                "strategy": {"domain": "2d", "rows": 8, "cols": 8, "workload": "marginals:2",
                             "page": "matrices"},
                "view": {"tab": "histogram"}})")
                                  .arg(csv));
        MainWindow w;
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::waitForData(w));
        const Status opened = w.openSession(session);
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        QTRY_VERIFY_WITH_TIMEOUT(w.engine()->dataset().histogram.has_value() &&
                                     !w.engine()->runner()->isRunning(QStringLiteral("data")),
                                 20000);
        auto* side = w.findChild<QScrollArea*>(QStringLiteral("sidePanel"));
        QVERIFY(side);
        QStringList problems;
        // Every tab and every page inside a tab. The Strategy tab comes after the others: its
        // controls were then cut by 14 px in about one run in three (a vertical scroll bar with
        // nothing to scroll, see ui/widgets/side_panel_width.cpp); the Budget tab's accountants'
        // table scrolled sideways.
        const QStringList tabs = kTabs + kPages;
        auto* strategy = w.findChild<StrategyTab*>();
        QVERIFY(strategy);
        for (const QString& tab : tabs) {
            QVERIFY(w.showTab(tab));
            settle(w);
            // The Strategy tab as a user sees it once its design is drawn (its controls change
            // width when the result arrives).
            if (tab == QLatin1String("strategy")) {
                QTRY_VERIFY_WITH_TIMEOUT(!strategy->busy(), 60000);
                settle(w);
            }
            if (w.width() > size.width()) {
                problems << tab + QStringLiteral(": the window grew to %1 px").arg(w.width());
                w.resize(size);
                settle(w);
            }
            for (const QString& p : layoutProblems(w.tabs()->currentWidget())) {
                problems << tab + QStringLiteral(": ") + p;
            }
        }
        if (!problems.isEmpty()) {
            qWarning("%s", qPrintable(problems.join(QLatin1Char('\n'))));
        }
        QVERIFY2(problems.isEmpty(),
                 qPrintable(QStringLiteral("beside a %1 px data panel: %2 layout problems, the "
                                           "first: %3")
                                .arg(side->width())
                                .arg(problems.size())
                                .arg(problems.value(0))));
    }

    // The Budget tab's plan of the walk-through (docs/sessions/choosing-budget.json: three
    // histograms, one held) at 1024 × 768: its table showed "E[L1]" cut and "Sampling rate" out
    // of sight. At totals ε = 0.01, 1 and 10 the numbers have other lengths (b = 3 125 or
    // 0.3125, E[L1] of 100 000 % or 0.1 %).
    void budgetPlanFits_data() {
        QTest::addColumn<double>("total");
        QTest::addColumn<QSize>("size");
        QTest::newRow("ε 1, 1024x768") << 1.0 << QSize(1024, 768);
        QTest::newRow("ε 0.01, 1024x768") << 0.01 << QSize(1024, 768);
        QTest::newRow("ε 10, 1024x768") << 10.0 << QSize(1024, 768);
        QTest::newRow("ε 1, 1920x1080") << 1.0 << QSize(1920, 1080);
    }

    void budgetPlanFits() {
        QFETCH(double, total);
        QFETCH(QSize, size);
        QFile file(
            QStringLiteral(QT_TESTCASE_SOURCEDIR "/../../docs/sessions/choosing-budget.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QString text = QString::fromUtf8(file.readAll());
        // The total and the held statistic's ε scaled together (the held ε stays inside it).
        QVERIFY(text.contains(QLatin1String(R"("epsilon": 1,)")));
        QVERIFY(text.contains(QLatin1String(R"("hold_value": 0.32)")));
        text.replace(QLatin1String(R"("epsilon": 1,)"),
                     QStringLiteral(R"("epsilon": %1,)").arg(total));
        text.replace(QLatin1String(R"("hold_value": 0.32)"),
                     QStringLiteral(R"("hold_value": %1)").arg(0.32 * total));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString session = writeSession(dir, text);
        MainWindow w;
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::waitForData(w));
        const Status opened = w.openSession(session);
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        QVERIFY(w.showTab(QStringLiteral("budget")));
        auto* table = w.findChild<QTableWidget*>(QStringLiteral("budgetTable"));
        QVERIFY(table);
        // The plan computed: three rows with their expected errors.
        QTRY_VERIFY_WITH_TIMEOUT(
            table->rowCount() == 3 && table->item(2, table->columnCount() - 2) &&
                table->item(2, table->columnCount() - 2)->text() != QStringLiteral("—"),
            20000);
        settle(w);
        QCOMPARE(w.size(), size);
        QStringList problems = layoutProblems(&w);
        if (!problems.isEmpty()) {
            QStringList widths;
            for (int c = 0; c < table->columnCount(); ++c) {
                widths << QString::number(table->horizontalHeader()->sectionSize(c));
            }
            problems << QStringLiteral("the table's columns: %1 = %2 px, %3 shown")
                            .arg(widths.join(QLatin1Char('+')))
                            .arg(table->horizontalHeader()->length())
                            .arg(table->viewport()->width());
        }
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    // The check finds what a squeezed tab looks like: the Trade-off tab on its own, as narrow as
    // it was beside the old fixed-width side panel at 1024 × 768 (about 500 px), overflows.
    void theCheckFindsASqueezedTab() {
        JobRunner runner;
        QWidget host;  // a window is never smaller than its layout's minimum; a child can be
        host.resize(520, 580);
        auto* tab = new TradeoffTab(&runner, &host);
        tab->setGeometry(0, 0, 500, 560);
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        const QStringList problems = layoutProblems(&host);
        QVERIFY2(!problems.isEmpty(), "a 500 px Trade-off tab was not found squeezed");
    }

    // ... and legend entries side by side in less room than their texts need (the Trade-off
    // legend's three columns at 1024 × 768: "frontier (lowes", "gm:iden"); wrapLegendToWidth
    // puts them on more rows, each whole.
    void theCheckFindsACutLegend() {
        QWidget host;
        host.resize(420, 320);
        auto* plot = new QCustomPlot(&host);
        plot->setGeometry(0, 0, 400, 300);
        for (const char* name : {"frontier (lowest expected error)", "gm:identity, clamp",
                                 "geometric: identity, resize"}) {
            QCPGraph* g = plot->addGraph();
            g->setName(QString::fromUtf8(name));
            g->setData({0, 1}, {1, 2});
        }
        plot->legend->setVisible(true);
        plot->axisRect()->insetLayout()->take(plot->legend);
        plot->plotLayout()->addElement(1, 0, plot->legend);
        plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
        plot->legend->setWrap(3);
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        QStringList problems = layoutProblems(&host);
        QVERIFY2(problems.size() == 1 && problems[0].contains(QLatin1String("legend entries")),
                 qPrintable(problems.join(QLatin1Char('\n'))));
        QCOMPARE(legendColumnsThatFit(plot->legend, 400, 3), 1);
        QCOMPARE(legendColumnsThatFit(plot->legend, 4000, 3), 3);
        wrapLegendToWidth(plot, 3);
        problems = layoutProblems(&host);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        QCOMPARE(plot->legend->wrap(), 1);
        // Wide, the entries go side by side again.
        plot->setGeometry(0, 0, 1400, 300);
        host.resize(1420, 320);
        problems = layoutProblems(&host);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        QCOMPARE(plot->legend->wrap(), 3);
    }

    // ... and a legend cut as a whole, each of its entries wide enough: eight entries in the top
    // right corner of a short plot run out of its axis rect and past the plot's bottom edge (the
    // last ones are not drawn at all; two entries fit and pass), and a legend in a row of its own
    // under a plot too short for it is squeezed below what its entries need.
    void theCheckFindsAClippedLegend() {
        QWidget host;
        host.resize(420, 200);
        auto* plot = new QCustomPlot(&host);
        plot->setGeometry(0, 0, 400, 180);
        for (int i = 0; i < 8; ++i) {
            QCPGraph* g = plot->addGraph();
            g->setName(QStringLiteral("series %1").arg(i + 1));
            g->setData({0, 1}, {1, 2});
        }
        plot->legend->setVisible(true);
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        QStringList problems = layoutProblems(&host);
        QVERIFY2(problems.size() == 1 && problems[0].contains(QLatin1String("legend at")) &&
                     problems[0].contains(QLatin1String("runs out of its axis rect")),
                 qPrintable(problems.join(QLatin1Char('\n'))));
        while (plot->graphCount() > 2) {
            plot->removeGraph(plot->graphCount() - 1);
        }
        problems = layoutProblems(&host);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        // Under the plot: its row takes what the legend needs, more than a 60 px plot has.
        for (int i = 2; i < 8; ++i) {
            QCPGraph* g = plot->addGraph();
            g->setName(QStringLiteral("series %1").arg(i + 1));
            g->setData({0, 1}, {1, 2});
        }
        plot->axisRect()->insetLayout()->take(plot->legend);
        plot->plotLayout()->addElement(1, 0, plot->legend);
        plot->setGeometry(0, 0, 400, 60);
        problems = layoutProblems(&host);
        QVERIFY2(problems.filter(QLatin1String("legend")).size() == 1 &&
                     problems.filter(QLatin1String("legend"))[0].contains(QLatin1String("need")),
                 qPrintable(problems.join(QLatin1Char('\n'))));
    }

    // ... and an axis label longer than its axis (the Budget tab's profile at 1024 × 768: "δ(ε)
    // of the whole pla"); fitAxisLabelsOnReplot breaks it onto lines that fit, and gives it back
    // its one line when the plot is tall again.
    void theCheckFindsACutAxisLabel() {
        QWidget host;
        host.resize(420, 200);
        auto* plot = new QCustomPlot(&host);
        plot->setGeometry(0, 0, 400, 180);
        const QString label = QStringLiteral("δ(ε) of the whole plan under every accountant");
        plot->yAxis->setLabel(label);
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        QStringList problems = layoutProblems(&host);
        QVERIFY2(problems.size() == 1 && problems[0].contains(QLatin1String("axis label")),
                 qPrintable(problems.join(QLatin1Char('\n'))));
        fitAxisLabelsOnReplot(plot);
        problems = layoutProblems(&host);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        QVERIFY(plot->yAxis->label().contains(QLatin1Char('\n')));
        QCOMPARE(fullAxisLabel(plot->yAxis), label);
        QCOMPARE(QString(plot->yAxis->label()).replace(QLatin1Char('\n'), QLatin1Char(' ')), label);
        // Tall, one line again; a label the view sets anew is followed.
        host.resize(420, 800);
        plot->setGeometry(0, 0, 400, 780);
        plot->replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(plot->yAxis->label(), label);
        plot->yAxis->setLabel(QStringLiteral("ρ"));
        plot->replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(fullAxisLabel(plot->yAxis), QStringLiteral("ρ"));
        // The breaking itself: the fewest lines that fit, at spaces; a word is never split.
        const QFontMetrics m(plot->yAxis->labelFont());
        const int w = m.horizontalAdvance(QStringLiteral("aaaa bbbb"));
        QCOMPARE(wrapAxisLabel(QStringLiteral("aaaa bbbb"), m, w), QStringLiteral("aaaa bbbb"));
        QCOMPARE(wrapAxisLabel(QStringLiteral("aaaa bbbb"), m, w - 5),
                 QStringLiteral("aaaa\nbbbb"));
        QCOMPARE(wrapAxisLabel(QStringLiteral("aaaa bbbb cccc"), m, w - 5),
                 QStringLiteral("aaaa\nbbbb\ncccc"));
        QCOMPARE(wrapAxisLabel(QStringLiteral("unbreakable"), m, 5), QStringLiteral("unbreakable"));
    }

    // ... and a side panel that scrolls vertically only and is narrower than its controls (the
    // More mechanisms pages' fixed-width panels before issue #21's second round).
    void theCheckFindsACutSidePanel() {
        QWidget host;
        host.resize(400, 300);
        auto* scroll = new QScrollArea(&host);
        scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        scroll->setWidgetResizable(true);
        auto* side = new QWidget;
        auto* row = new QHBoxLayout(side);
        row->addWidget(new QPushButton(QStringLiteral("A button with a long text")));
        row->addWidget(new QPushButton(QStringLiteral("and another one beside it")));
        scroll->setWidget(side);
        scroll->setGeometry(0, 0, 150, 300);
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        const QStringList problems = layoutProblems(&host);
        QVERIFY2(problems.size() == 1 && problems[0].contains(QLatin1String("no scroll bar")),
                 qPrintable(problems.join(QLatin1Char('\n'))));
        // With a scroll bar to reach them the controls are not cut.
        scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
        QApplication::processEvents();
        QVERIFY2(layoutProblems(&host).isEmpty(),
                 qPrintable(layoutProblems(&host).join(QLatin1Char('\n'))));
    }

    // followContentsWidth: the same panel, declared 150 px wide, widens to show its controls,
    // widens again when their font grows (zoom) and returns to its own width when they need less.
    void aFollowedPanelShowsItsControls() {
        QWidget host;
        host.resize(900, 300);
        auto* scroll = new QScrollArea;
        scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        scroll->setWidgetResizable(true);
        auto* side = new QWidget;
        auto* row = new QHBoxLayout(side);
        auto* button = new QPushButton(QStringLiteral("A button with a long text"));
        row->addWidget(button);
        scroll->setWidget(side);
        scroll->setFixedWidth(150);
        auto* layout = new QHBoxLayout(&host);
        layout->addWidget(new QWidget, 1);
        layout->addWidget(scroll);
        followContentsWidth(scroll);
        followContentsWidth(scroll);  // idempotent
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        QApplication::processEvents();
        QVERIFY2(layoutProblems(&host).isEmpty(),
                 qPrintable(layoutProblems(&host).join(QLatin1Char('\n'))));
        const int natural = scroll->width();
        QVERIFY(natural > 150);
        QCOMPARE(natural, contentsWidthNeeded(scroll));
        QFont big = button->font();
        big.setPointSizeF(big.pointSizeF() * 1.6);
        button->setFont(big);
        QTRY_VERIFY(scroll->width() > natural);
        QVERIFY2(layoutProblems(&host).isEmpty(),
                 qPrintable(layoutProblems(&host).join(QLatin1Char('\n'))));
        button->setText(QStringLiteral("OK"));
        QTRY_COMPARE(scroll->width(), 150);
    }

    void lessonFits_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1024x768") << QSize(1024, 768);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }

    void lessonFits() {
        QFETCH(QSize, size);
        for (const LessonInfo& info : lessonCatalogue()) {
            std::unique_ptr<LessonPage> page(createLesson(info.name));
            QVERIFY(page);
            page->resize(size);
            page->show();
            QVERIFY(QTest::qWaitForWindowExposed(page.get()));
            for (int step = 0; step < page->stepCount(); ++step) {
                page->setStep(step);
                QApplication::processEvents();
                QStringList problems = layoutProblems(page.get());
                for (QCustomPlot* plot : page->findChildren<QCustomPlot*>()) {
                    problems << hiddenDots(plot);
                }
                QVERIFY2(problems.isEmpty(),
                         qPrintable(QStringLiteral("%1 step %2: %3")
                                        .arg(info.name)
                                        .arg(step + 1)
                                        .arg(problems.join(QStringLiteral("; ")))));
            }
        }
    }

    // A long ledger line in the status bar (a PLD ledger's: "Ledger pl.json: ε 0.5 left for a
    // pure ε-DP release (ε 0.5 of 1 spent at δ 1e-6, PLD accountant)") made the window 1 097 px
    // wide on a 1024 × 768 screen: the status bar's lines end in "…" instead, the whole text in
    // their tooltips.
    void aLongStatusLineKeepsTheWindowOnScreen() {
        MainWindow w;
        w.resize(1024, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::waitForData(w));
        ElidedLabel* ledger = w.releaseController()->ledgerLabel();
        // The ledger line is filled by a job after the data load: let it finish first.
        QTRY_COMPARE_WITH_TIMEOUT(ledger->text(), QStringLiteral("No ledger"), 20000);
        settle(w);
        // Longer than the whole status bar: it cannot fit, whatever the status text yields.
        QString text = QStringLiteral(
            "Ledger a-rather-long-ledger-name.json: ε 0.5 left for a pure ε-DP release (ε 0.5 of "
            "1 spent at δ 1e-6, PLD accountant; the recorded ε is the authority)");
        text += QStringLiteral(" ") + text + QStringLiteral(" ") + text;
        ledger->setText(text);
        settle(w);
        QCOMPARE(w.width(), 1024);
        QVERIFY(ledger->isVisible());
        QCOMPARE(ledger->text(), text);
        QVERIFY2(ledger->isElided(),
                 qPrintable(QStringLiteral("the ledger line is %1 px wide").arg(ledger->width())));
        QVERIFY(ledger->width() >= 160);
        QCOMPARE(ledger->text(), text);  // the whole text stays (for its tooltip)
        ledger->setText(QStringLiteral("No ledger"));
        settle(w);
        QVERIFY(!ledger->isElided());  // a short line shows whole
    }

    // A window opened straight on a tab (`dpexplorer --tab sparse`, a saved session's tab) lays
    // its side panel out as well as one that switched to it: at 1024 × 768 the Data box was
    // squashed on the More mechanisms pages (the Open buttons a few pixels high, session 33).
    void aTabOpenedAtStartFits_data() {
        QTest::addColumn<QString>("tab");
        for (const QString& t : kTabs + kPages) {
            QTest::newRow(qPrintable(t)) << t;
        }
    }

    void aTabOpenedAtStartFits() {
        QFETCH(QString, tab);
        MainWindow w;
        QVERIFY(w.showTab(tab));
        w.resize(1024, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::waitForData(w));
        settle(w);
        const QStringList problems = layoutProblems(&w);
        QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("%1 layout problems, the first: %2")
                                                    .arg(problems.size())
                                                    .arg(problems.value(0))));
    }

    // A window larger than its screen (a saved geometry from a bigger screen) is made to fit.
    void windowFitsTheScreen() {
        MainWindow w;
        w.resize(6000, 4000);
        w.move(-300, -200);
        w.fitToScreen();
        const QRect avail = w.screen()->availableGeometry();
        QVERIFY2(avail.contains(w.frameGeometry()),
                 qPrintable(QStringLiteral("%1,%2 %3×%4 not inside %5×%6")
                                .arg(w.frameGeometry().x())
                                .arg(w.frameGeometry().y())
                                .arg(w.frameGeometry().width())
                                .arg(w.frameGeometry().height())
                                .arg(avail.width())
                                .arg(avail.height())));
    }

    // View ▸ Show data and mechanism panel: hidden, the tabs take the width; shown again.
    void sidePanelHides() {
        MainWindow w;
        w.resize(1024, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.sidePanelShown());
        const int before = w.tabs()->width();
        w.setSidePanelShown(false);
        QApplication::processEvents();
        QVERIFY(!w.sidePanelShown());
        QVERIFY(w.tabs()->width() > before + 100);
        w.setSidePanelShown(true);
        QApplication::processEvents();
        QVERIFY(w.sidePanelShown());
        // The panel can be narrowed to what its controls need, not below (it cut them), and far
        // below its natural width: a field that does not fit beside its label goes under it.
        auto* split = w.findChild<QSplitter*>(QStringLiteral("mainSplitter"));
        QVERIFY(split);
        auto* side = qobject_cast<QScrollArea*>(split->widget(0));
        QVERIFY(side);
        QCOMPARE(side->minimumWidth(), contentsWidthNeeded(side));
        QVERIFY2(side->minimumWidth() < side->widget()->sizeHint().width(),
                 qPrintable(QString::number(side->minimumWidth())));
    }

    // The data and mechanism panel opens wide enough to show its controls whole (no sideways
    // scrolling, which cut them at its right edge) on a 1024 × 768 screen and a full-HD one, also
    // when the window was built at another size first (the app is resized by --size after it is
    // built; the test screen is 800 × 600) and when the settings hold the splitter of a wider
    // screen (half of a 1920-pixel window); the tabs keep at least two thirds of the window.
    void sidePanelShowsItsControls_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("wideSplitterSaved");
        QTest::newRow("1024x768") << QSize(1024, 768) << false;
        QTest::newRow("1920x1080") << QSize(1920, 1080) << false;
        QTest::newRow("1024x768, a wide splitter saved") << QSize(1024, 768) << true;
    }

    void sidePanelShowsItsControls() {
        QFETCH(QSize, size);
        QFETCH(bool, wideSplitterSaved);
        QSettings settings;
        settings.remove(QStringLiteral("window"));
        const auto forget = qScopeGuard([] { QSettings().remove(QStringLiteral("window")); });
        if (wideSplitterSaved) {
            QSplitter wide;
            wide.addWidget(new QWidget);
            wide.addWidget(new QWidget);
            wide.resize(1920, 1000);
            wide.setSizes({960, 960});
            settings.setValue(QStringLiteral("window/split"), wide.saveState());
        }
        MainWindow w;
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::waitForData(w));
        QApplication::processEvents();
        auto* side = w.findChild<QScrollArea*>(QStringLiteral("sidePanel"));
        QVERIFY(side);
        QVERIFY2(!side->horizontalScrollBar()->isVisible(),
                 qPrintable(QStringLiteral("the side panel is %1 px wide, its controls need %2")
                                .arg(side->width())
                                .arg(contentsWidthNeeded(side))));
        QVERIFY2(side->width() <= std::max(contentsWidthNeeded(side), w.width() / 3) + 2,
                 qPrintable(QStringLiteral("the side panel takes %1 of %2 px; its controls need %3")
                                .arg(side->width())
                                .arg(w.width())
                                .arg(contentsWidthNeeded(side))));
    }

    // Zoom scales the widget fonts and the plots' texts by the same factor; reset restores both.
    void zoomScalesFontsAndPlotText() {
        MainWindow w;
        w.show();
        QVERIFY(test::waitForData(w));
        w.setZoom(1.0);
        QCustomPlot* plot = w.histogramView()->plot();
        const double label = plot->xAxis->labelFont().pointSizeF();
        const double ticks = plot->yAxis->tickLabelFont().pointSizeF();
        const double app = QApplication::font().pointSizeF();
        QVERIFY(label > 0 && ticks > 0 && app > 0);
        w.zoomIn();
        w.zoomIn();  // 1 → 1.1 → 1.25
        QCOMPARE(w.zoom(), 1.25);
        QVERIFY(std::abs(plot->xAxis->labelFont().pointSizeF() - 1.25 * label) < 1e-6);
        QVERIFY(std::abs(plot->yAxis->tickLabelFont().pointSizeF() - 1.25 * ticks) < 1e-6);
        QVERIFY(std::abs(QApplication::font().pointSizeF() - 1.25 * app) < 1e-6);
        w.zoomOut();
        QCOMPARE(w.zoom(), 1.1);
        w.setZoom(1.0);
        QVERIFY(std::abs(plot->xAxis->labelFont().pointSizeF() - label) < 1e-6);
        QVERIFY(std::abs(QApplication::font().pointSizeF() - app) < 1e-6);
    }

    // The CSV options (delimiter, header row, bad rows) show for a CSV source and only for it: a
    // saved session that opens a CSV file shows them once the window is up (they were hidden in
    // the screenshot of such a session), a built-in example hides them, the CSV file chosen again
    // in the Dataset box shows them again.
    void csvOptionsFollowTheSource() {
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("ages.csv"));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("name;age\nann;34\nbob;41\ncid;34\n");
        f.close();
        const QString session = dir.filePath(QStringLiteral("csv.json"));
        {
            MainWindow w;
            ExplorerState s = w.document()->state();
            s.data.source = SourceKind::Csv;
            s.data.csvPath = csv;
            s.data.csvOptions.delimiter = QStringLiteral("semicolon");
            s.data.column = QStringLiteral("age");
            QVERIFY(w.document()->apply(s, QStringLiteral("test")));
            QVERIFY(w.document()->saveSession(session));
        }
        // As dpexplorer --session does: the session opened before the window is shown.
        MainWindow w;
        w.resize(1024, 768);
        QVERIFY(w.openSession(session));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::waitForData(w));
        settle(w);
        QCOMPARE(w.document()->state().data.source, SourceKind::Csv);
        DataPanel* panel = w.dataPanel();
        auto* options = panel->findChild<QWidget*>(QStringLiteral("csvOptionsRow"));
        QVERIFY(options);
        const auto shown = [options] {
            return options->isVisible() &&
                   options->height() >= options->minimumSizeHint().height() &&
                   options->findChild<QComboBox*>()->isVisible();
        };
        // Every row of the panel's form as tall as its field needs (Qt 6.4's setRowVisible left
        // the row after a swapped one 0 px high; the panel now uses FormRows).
        const auto rowsWhole = [panel](const char* when) {
            auto* form = panel->findChild<QFormLayout*>();
            QVERIFY(form);
            for (int r = 0; r < form->rowCount(); ++r) {
                QLayoutItem* item = form->itemAt(r, QFormLayout::FieldRole);
                QWidget* field = item != nullptr ? item->widget() : nullptr;
                if (field == nullptr || !field->isVisible()) {
                    continue;
                }
                QVERIFY2(field->height() >= field->minimumSizeHint().height(),
                         qPrintable(QStringLiteral("%1: the row of %2 is %3 px high, needs %4")
                                        .arg(QLatin1String(when), field->objectName(),
                                             QString::number(field->height()),
                                             QString::number(field->minimumSizeHint().height()))));
            }
        };
        rowsWhole("CSV session opened");
        // The CSV options' and the column type's short choices read whole (the side panel's
        // ten-character boxes cut "Stop at a bad row" and "detected: integer" by a letter).
        QList<QComboBox*> shortChoices = options->findChildren<QComboBox*>();
        shortChoices << panel->findChild<QComboBox*>(QStringLiteral("typeBox"));
        for (QComboBox* box : shortChoices) {
            QVERIFY(box && box->isVisible());
            QStyleOptionComboBox opt;
            opt.initFrom(box);
            opt.currentText = box->currentText();
            const QRect field = box->style()->subControlRect(QStyle::CC_ComboBox, &opt,
                                                             QStyle::SC_ComboBoxEditField, box);
            const int text = box->fontMetrics().horizontalAdvance(box->currentText());
            QVERIFY2(field.width() >= text + 2, qPrintable(QStringLiteral("\"%1\" in a %2 px field")
                                                               .arg(box->currentText())
                                                               .arg(field.width())));
        }
        // The column to count must show whatever else the form gets wrong (a grid for the CSV
        // options took its field, session 33).
        QComboBox* column = panel->columnBox();
        QVERIFY2(column->isVisible() && column->height() >= column->minimumSizeHint().height() - 2,
                 qPrintable(QStringLiteral("the Column box is %1 px high").arg(column->height())));
        QVERIFY2(shown(), "the CSV options are hidden for a CSV source opened from a session");
        QComboBox* box = panel->exampleBox();
        const int csvItem = box->currentIndex();
        const int example = box->findData(QStringLiteral("ages"));
        QVERIFY(example >= 0);
        box->setCurrentIndex(example);
        Q_EMIT box->activated(example);
        settle(w);
        QCOMPARE(w.document()->state().data.source, SourceKind::Example);
        QVERIFY(!options->isVisible());
        rowsWhole("the example chosen");
        box->setCurrentIndex(csvItem);
        Q_EMIT box->activated(csvItem);
        settle(w);
        QCOMPARE(w.document()->state().data.source, SourceKind::Csv);
        QVERIFY2(shown(), "the CSV options stay hidden when the CSV file is chosen again");
        rowsWhole("the CSV file chosen again");
        // The same through undo and redo.
        w.document()->undoStack()->undo();
        settle(w);
        QCOMPARE(w.document()->state().data.source, SourceKind::Example);
        QVERIFY(!options->isVisible());
        rowsWhole("undone");
        w.document()->undoStack()->redo();
        settle(w);
        QVERIFY(shown());
        rowsWhole("redone");
    }

    // Every tab says what it shows in one line, with a paragraph that cites its methods.
    void everyTabSaysWhatItShows() {
        MainWindow w;
        const QRegularExpression year(QStringLiteral("\\b(19|20)\\d\\d\\b"));
        QStringList lines;
        for (const QString& tab : kTabs) {
            QVERIFY(w.showTab(tab));
            WhatLine* what = w.whatLine();
            QVERIFY(!what->line().isEmpty());
            QVERIFY2(year.match(what->paragraph()).hasMatch(), qPrintable(tab));
            QVERIFY(!lines.contains(what->line()));
            lines << what->line();
        }
        WhatLine* what = w.whatLine();
        QVERIFY(!what->isExpanded());
        what->setExpanded(true);
        QVERIFY(what->isExpanded());
    }
};

QTEST_MAIN(TestWindowScreens)
#include "tst_window_screens.moc"
