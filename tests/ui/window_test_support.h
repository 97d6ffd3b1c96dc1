// What the window tests share: apply a state to a MainWindow's document and wait until the
// window has shown its result (releaseShown), or 30 s.
#pragma once

#include <QSignalSpy>
#include <QString>

#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/explorer_state.h"

namespace dpx::ui::test {

inline bool applyAndWait(MainWindow& w, const ExplorerState& s) {
    QSignalSpy shown(&w, &MainWindow::releaseShown);
    if (!w.document()->apply(s, QStringLiteral("test"))) {
        return false;
    }
    return shown.wait(30000) || !shown.isEmpty();
}

}  // namespace dpx::ui::test
