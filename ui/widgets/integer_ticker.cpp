#include "ui/widgets/integer_ticker.h"

#include <algorithm>
#include <cmath>

namespace dpx::ui {

double IntegerTicker::getTickStep(const QCPRange& range) {
    const double exact = range.size() / std::max(1, tickCount());
    if (exact <= 1) {
        return 1;
    }
    const double mag = std::pow(10.0, std::floor(std::log10(exact)));
    const double m = exact / mag;
    const double nice = m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10;
    return std::max(1.0, nice * mag);
}

}  // namespace dpx::ui
