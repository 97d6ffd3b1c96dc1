// What the window tests share: apply a state to a MainWindow's document and wait until the
// window has shown its result (releaseShown), or 30 s; wait for the window's first data.
#pragma once

#include <QSignalSpy>
#include <QString>

#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/model/explorer_state.h"

namespace dpx::ui::test {

inline bool applyAndWait(MainWindow& w, const ExplorerState& s) {
    QSignalSpy shown(&w, &MainWindow::releaseShown);
    if (!w.document()->apply(s, QStringLiteral("test"))) {
        return false;
    }
    return shown.wait(30000) || !shown.isEmpty();
}

// Waits for the window's first computation (the built-in example at start-up).
inline bool waitForData(MainWindow& w) {
    QSignalSpy shown(&w, &MainWindow::releaseShown);
    return w.engine()->dataset().histogram.has_value() || shown.wait(30000);
}

}  // namespace dpx::ui::test
