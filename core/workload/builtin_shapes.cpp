// Built-in data shapes (issue #20): see builtin_shapes.h.
#include "core/workload/builtin_shapes.h"

#include <cmath>

#include "core/base/simulation_rng.h"

namespace dpx {

namespace {

// One dimension's profile of a product shape.
std::vector<double> profile(std::string_view name, std::size_t n) {
    std::vector<double> p(n, 1.0);
    const double nd = static_cast<double>(n);
    if (name == "step") {
        // 16 runs; run r has level 10^(2·((r·7) mod 16)/15): a fixed permutation of levels
        // from 1 to 100, so neighbouring runs differ.
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t run = i * 16 / n;
            p[i] = std::pow(10.0, 2.0 * static_cast<double>((run * 7) % 16) / 15.0);
        }
    } else if (name == "gauss") {
        const double centre = (nd - 1) / 2, sd = nd / 12;
        for (std::size_t i = 0; i < n; ++i) {
            const double z = (static_cast<double>(i) - centre) / sd;
            p[i] = std::exp(-0.5 * z * z);
        }
    } else if (name == "zipf") {
        for (std::size_t i = 0; i < n; ++i) {
            p[i] = 1.0 / static_cast<double>(i + 1);
        }
    }
    return p;
}

}  // namespace

const std::vector<std::string>& builtinShapeNames() {
    static const std::vector<std::string> names{"uniform", "step", "gauss", "zipf", "sparse"};
    return names;
}

Expected<std::vector<double>> builtinShape(std::string_view name, const DomainShape& shape) {
    if (auto s = validateShape(shape); !s) {
        return s.error();
    }
    bool known = false;
    std::string list;
    for (const std::string& n : builtinShapeNames()) {
        known = known || n == name;
        list += (list.empty() ? "" : ", ") + n;
    }
    if (!known) {
        return Error{"unknown data shape '" + std::string(name) + "'; the built-in shapes are " +
                     list};
    }
    const std::size_t cells = shapeCells(shape);
    std::vector<double> x(cells, 1.0);
    if (name == "sparse") {
        // A fixed generator: cell i is non-empty with probability 1/100, weight 1…100.
        SimulationRng rng(0x5ba75e, 0);
        std::size_t nonEmpty = 0;
        for (double& v : x) {
            const bool on = rng.uniform() < 0.01;
            const double w = std::floor(1 + 100 * rng.uniform());
            v = on ? w : 0.0;
            nonEmpty += on ? 1 : 0;
        }
        if (nonEmpty == 0) {
            x[cells / 2] = 1;  // tiny domains: never an empty shape
        }
        return x;
    }
    // A product of one profile per dimension, cells in C order.
    std::vector<std::vector<double>> profiles;
    for (std::size_t n : shape) {
        profiles.push_back(profile(name, n));
    }
    std::vector<std::size_t> coord(shape.size(), 0);
    for (std::size_t i = 0; i < cells; ++i) {
        double v = 1;
        for (std::size_t d = 0; d < shape.size(); ++d) {
            v *= profiles[d][coord[d]];
        }
        x[i] = v;
        for (std::size_t d = shape.size(); d-- > 0;) {
            if (++coord[d] < shape[d]) {
                break;
            }
            coord[d] = 0;
        }
    }
    return x;
}

}  // namespace dpx
