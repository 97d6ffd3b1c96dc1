#include "core/base/privacy_params.h"

#include <cmath>

#include "core/base/validation.h"

namespace dpx {

Status PrivacyParams::validate() const {
    if (auto s = validateEpsilon(epsilon); !s) {
        return s;
    }
    if (!std::isfinite(delta) || delta < 0 || delta >= 1) {
        return Error{"δ must be in [0, 1) (got " + formatNumber(delta) + ")"};
    }
    return okStatus();
}

}  // namespace dpx
