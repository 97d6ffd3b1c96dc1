#include "core/matrix_mechanism/lbfgsb.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace dpx {

extern "C" {
// L-BFGS-B 3.0's reverse-communication driver (Fortran 77; liblbfgsb). Character arguments are
// followed by their lengths (gfortran ≥ 8 passes them as size_t); LOGICAL is a 4-byte integer.
void setulb_(int* n, int* m, double* x, double* l, double* u, int* nbd, double* f, double* g,
             double* factr, double* pgtol, double* wa, int* iwa, char* task, int* iprint,
             char* csave, int* lsave, int* isave, double* dsave, std::size_t taskLength,
             std::size_t csaveLength);
}

namespace {

constexpr std::size_t kTaskLength = 60;

void setTask(char* task, const char* text) {
    std::memset(task, ' ', kTaskLength);
    std::memcpy(task, text, std::strlen(text));
}

bool taskStartsWith(const char* task, const char* prefix) {
    return std::strncmp(task, prefix, std::strlen(prefix)) == 0;
}

std::string taskText(const char* task) {
    std::string s(task, kTaskLength);
    while (!s.empty() && s.back() == ' ') {
        s.pop_back();
    }
    return s;
}

}  // namespace

Expected<BoundedMinimizeResult> minimizeBounded(
    const ObjectiveWithGradient& f, std::vector<double> x0, std::span<const double> lower,
    std::span<const double> upper, const BoundedMinimizeOptions& options, std::stop_token stop,
    const IterationCallback& onIteration) {
    const std::size_t n = x0.size();
    if (n == 0 || n > static_cast<std::size_t>(std::numeric_limits<int>::max() / 8)) {
        return Error{"L-BFGS-B: the number of variables must be in [1, 2^28)"};
    }
    if (lower.size() != n || upper.size() != n) {
        return Error{"L-BFGS-B: " + std::to_string(n) + " variables but " +
                     std::to_string(lower.size()) + " lower and " + std::to_string(upper.size()) +
                     " upper bounds"};
    }
    if (options.memory < 1 || options.memory > 100 || !(options.ftol >= 0) ||
        !(options.pgtol >= 0) || options.maxIterations < 1 || options.maxEvaluations < 1) {
        return Error{"L-BFGS-B: memory must be in [1, 100], ftol and pgtol ≥ 0, limits ≥ 1"};
    }
    std::vector<int> nbd(n);
    std::vector<double> l(n, 0.0), u(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const bool hasLower = std::isfinite(lower[i]);
        const bool hasUpper = std::isfinite(upper[i]);
        if (std::isnan(lower[i]) || std::isnan(upper[i]) ||
            (hasLower && hasUpper && lower[i] > upper[i]) ||
            lower[i] == std::numeric_limits<double>::infinity() ||
            upper[i] == -std::numeric_limits<double>::infinity()) {
            return Error{"L-BFGS-B: the bounds of variable " + std::to_string(i) +
                         " are inconsistent"};
        }
        // nbd: 0 unbounded, 1 lower only, 2 both, 3 upper only.
        nbd[i] = hasLower ? (hasUpper ? 2 : 1) : (hasUpper ? 3 : 0);
        if (hasLower) {
            l[i] = lower[i];
            x0[i] = std::max(x0[i], l[i]);
        }
        if (hasUpper) {
            u[i] = upper[i];
            x0[i] = std::min(x0[i], u[i]);
        }
        if (!std::isfinite(x0[i])) {
            return Error{"L-BFGS-B: the start point is not finite"};
        }
    }
    int nn = static_cast<int>(n);
    int m = static_cast<int>(options.memory);
    // factr is in units of the machine precision (L-BFGS-B's documentation; SciPy does the same).
    double factr = options.ftol / std::numeric_limits<double>::epsilon();
    double pgtol = options.pgtol;
    const std::size_t mm = options.memory;
    std::vector<double> wa(2 * mm * n + 5 * n + 11 * mm * mm + 8 * mm);
    std::vector<int> iwa(3 * n);
    char task[kTaskLength], csave[kTaskLength];
    int iprint = -1;
    int lsave[4] = {0, 0, 0, 0};
    int isave[44] = {};
    double dsave[29] = {};
    std::vector<double> x = std::move(x0), g(n, 0.0);
    double fx = 0;
    BoundedMinimizeResult result;
    // The best point evaluated: what is returned, whatever way the iteration stops (a limit can
    // stop it at a trial point of the line search).
    std::vector<double> best;
    double bestValue = std::numeric_limits<double>::infinity();
    setTask(task, "START");
    setTask(csave, "");
    while (true) {
        setulb_(&nn, &m, x.data(), l.data(), u.data(), nbd.data(), &fx, g.data(), &factr, &pgtol,
                wa.data(), iwa.data(), task, &iprint, csave, lsave, isave, dsave, kTaskLength,
                kTaskLength);
        if (taskStartsWith(task, "FG")) {
            if (stop.stop_requested()) {
                return Error{"cancelled"};
            }
            if (result.evaluations >= options.maxEvaluations) {
                result.stopReason = "evaluation limit";
                break;
            }
            fx = f(x, g);
            ++result.evaluations;
            if (!std::isfinite(fx) ||
                !std::all_of(g.begin(), g.end(), [](double v) { return std::isfinite(v); })) {
                return Error{"L-BFGS-B: the objective or its gradient is not finite"};
            }
            if (fx < bestValue) {
                bestValue = fx;
                best = x;
            }
            continue;
        }
        if (taskStartsWith(task, "NEW_X")) {
            ++result.iterations;
            if (onIteration) {
                onIteration(result.iterations, fx);
            }
            if (stop.stop_requested()) {
                return Error{"cancelled"};
            }
            if (result.iterations >= options.maxIterations) {
                result.stopReason = "iteration limit";
                break;
            }
            continue;
        }
        result.stopReason = taskText(task);
        result.converged = taskStartsWith(task, "CONVERGENCE");
        if (taskStartsWith(task, "ERROR")) {
            return Error{"L-BFGS-B: " + result.stopReason};
        }
        break;  // CONVERGENCE, ABNORMAL_TERMINATION_IN_LNSRCH, WARNING
    }
    if (best.empty()) {
        return Error{"L-BFGS-B: stopped before evaluating the objective (" + result.stopReason +
                     ")"};
    }
    result.x = std::move(best);
    result.value = bestValue;
    return result;
}

}  // namespace dpx
