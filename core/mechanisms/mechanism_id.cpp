#include "core/mechanisms/mechanism_id.h"

namespace dpx {

const char* mechanismName(MechanismKind kind) {
    switch (kind) {
        case MechanismKind::Laplace:
            return "laplace";
        case MechanismKind::Geometric:
            return "geometric";
        case MechanismKind::Gaussian:
            return "gaussian";
    }
    return "?";
}

Expected<MechanismKind> mechanismFromName(const std::string& name) {
    if (name == "discrete-laplace") {
        return MechanismKind::Geometric;
    }
    for (const MechanismKind kind : kAllMechanismKinds) {
        if (name == mechanismName(kind)) {
            return kind;
        }
    }
    return Error{"unknown mechanism '" + name + "' (use laplace, geometric or gaussian)"};
}

}  // namespace dpx
