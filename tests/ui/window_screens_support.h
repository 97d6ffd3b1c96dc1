// What the screen tests share (issue #21): the tabs and pages showTab opens, and waiting for a
// tab's first computation to be drawn.
#pragma once

#include <QApplication>
#include <QStringList>
#include <QTest>

#include "ui/main_window.h"
#include "ui/model/engine.h"
#include "ui/model/job_runner.h"

namespace dpx::ui::test {

inline const QStringList kTabs = {
    QStringLiteral("histogram"),      QStringLiteral("matrix"),     QStringLiteral("errors"),
    QStringLiteral("risk"),           QStringLiteral("tradeoff"),   QStringLiteral("budget"),
    QStringLiteral("ldp-experiment"), QStringLiteral("mechanisms"), QStringLiteral("table"),
    QStringLiteral("workbench"),      QStringLiteral("strategy")};

// The pages inside tabs that showTab opens by name: each lays out its own controls.
inline const QStringList kPages = {QStringLiteral("ldp-ranges"),  QStringLiteral("ldp-marginals"),
                                   QStringLiteral("ldp-means"),   QStringLiteral("sparse"),
                                   QStringLiteral("rdp"),         QStringLiteral("select"),
                                   QStringLiteral("vector-mean"), QStringLiteral("kde")};

// The tab's plots with their first computation drawn: wait (at most a few seconds) for the jobs.
inline void settle(MainWindow& w) {
    for (int k = 0; k < 20; ++k) {
        QTest::qWait(50);
        if (!w.engine()->runner()->isRunning(QStringLiteral("data"))) {
            break;
        }
    }
    QApplication::processEvents();
}

}  // namespace dpx::ui::test
