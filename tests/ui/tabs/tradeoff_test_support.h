// Shared by the Trade-off tab's tests (tst_tradeoff_tab, tst_tradeoff_algorithms).
#pragma once

#include <QString>
#include <cstddef>

#include "ui/tabs/tradeoff_tab.h"

namespace dpx::ui::test {

// Every selected curve delivered and nothing running (refinement included).
inline bool curvesDone(const TradeoffTab& v) {
    if (v.computing() || v.curves().empty()) {
        return false;
    }
    for (std::size_t i = 0; i < v.curves().size(); ++i) {
        if (v.curves()[i].points.empty() && v.curveErrors()[i].isEmpty()) {
            return false;
        }
    }
    return true;
}

inline std::size_t curveIndex(const TradeoffTab& v, const QString& id) {
    return static_cast<std::size_t>(v.curveIds().indexOf(id));
}

}  // namespace dpx::ui::test
