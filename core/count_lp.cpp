#include "core/count_lp.h"

#include <ClpSimplex.hpp>
#include <CoinPackedMatrix.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "core/validation.h"

namespace dpx {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double costOf(const CountLpSpec& s, std::size_t i, std::size_t j) {
    const double d = std::abs(static_cast<double>(i) - static_cast<double>(j));
    switch (s.cost) {
        case LpCostKind::L0:
            return i == j ? 0.0 : 1.0;
        case LpCostKind::L0d:
            return d > s.d ? 1.0 : 0.0;
        case LpCostKind::L1:
            return d;
        case LpCostKind::L2:
            return d * d;
        case LpCostKind::Custom:
            return s.customCost[i * (static_cast<std::size_t>(s.n) + 1) + j];
    }
    return 0;
}

// The objective of any column-stochastic matrix p (row-major, size m = n+1).
double objectiveOf(const CountLpSpec& s, const std::vector<double>& w, const std::vector<double>& p,
                   std::size_t m) {
    double sum = 0;
    double worst = 0;
    for (std::size_t j = 0; j < m; ++j) {
        double loss = 0;
        for (std::size_t i = 0; i < m; ++i) {
            loss += costOf(s, i, j) * p[i * m + j];
        }
        sum += w[j] * loss;
        worst = std::max(worst, loss);
    }
    return s.aggregate == LpAggregate::Sum ? sum : worst;
}

// Triplets of the constraint matrix, built in one go.
struct Rows {
    std::vector<int> row, col;
    std::vector<double> val;
    std::vector<double> lo, hi;
    int add(double lower, double upper) {
        lo.push_back(lower);
        hi.push_back(upper);
        return static_cast<int>(lo.size()) - 1;
    }
    void put(int r, int c, double v) {
        row.push_back(r);
        col.push_back(c);
        val.push_back(v);
    }
    // a·x[p] − b·x[q] ≥ 0 (or = 0)
    void difference(int p, int q, double b, bool equal) {
        const int r = add(0, equal ? 0 : kInf);
        put(r, p, 1);
        put(r, q, -b);
    }
};

// Smallest λ with (1−λ)a + λu ≤ e^ε((1−λ)b + λu) for every ratio of adjacent columns.
double uniformShareNeeded(const std::vector<double>& p, std::size_t m, double epsilon) {
    const double e = std::exp(epsilon);
    const double u = 1.0 / static_cast<double>(m);
    double lambda = 0;
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j + 1 < m; ++j) {
            for (int dir = 0; dir < 2; ++dir) {
                const double a = dir == 0 ? p[i * m + j] : p[i * m + j + 1];
                const double b = dir == 0 ? p[i * m + j + 1] : p[i * m + j];
                const double excess = a - e * b;
                if (excess > 0) {
                    lambda = std::max(lambda, excess / (excess + (e - 1) * u));
                }
            }
        }
    }
    return lambda;
}

}  // namespace

const char* lpStatusName(LpStatus s) {
    switch (s) {
        case LpStatus::Optimal:
            return "optimal";
        case LpStatus::Infeasible:
            return "infeasible";
        case LpStatus::TimeLimit:
            return "time limit";
        case LpStatus::Failed:
            return "failed";
    }
    return "?";
}

Status CountLpSpec::validate() const {
    if (n < 1 || n > kMaxCountPeople) {
        return Error{"the number of people n must be in [1, " + std::to_string(kMaxCountPeople) +
                     "], got " + std::to_string(n)};
    }
    if (auto s = validateEpsilon(epsilon); !s) {
        return s;
    }
    const auto m = static_cast<std::size_t>(n) + 1;
    if (cost == LpCostKind::L0d && (d < 0 || d > n)) {
        return Error{"the distance d of the L0,d loss must be in [0, n], got " + std::to_string(d)};
    }
    if (cost == LpCostKind::Custom) {
        if (customCost.size() != m * m) {
            return Error{"a custom cost matrix for n = " + std::to_string(n) + " needs " +
                         std::to_string(m * m) + " entries, got " +
                         std::to_string(customCost.size())};
        }
        for (double c : customCost) {
            if (!std::isfinite(c) || c < 0) {
                return Error{"custom costs must be finite and ≥ 0"};
            }
        }
    }
    if (!weights.empty()) {
        if (weights.size() != m) {
            return Error{"got " + std::to_string(weights.size()) + " weights for " +
                         std::to_string(m) + " inputs"};
        }
        double sum = 0;
        for (double w : weights) {
            if (!std::isfinite(w) || w < 0) {
                return Error{"weights must be finite and ≥ 0"};
            }
            sum += w;
        }
        if (std::abs(sum - 1) > 1e-9) {
            return Error{"weights must sum to 1, they sum to " + formatNumber(sum)};
        }
    }
    if (!(timeLimitSeconds > 0)) {
        return Error{"the time limit must be > 0 seconds"};
    }
    return okStatus();
}

Expected<std::vector<double>> binomialWeights(int n, double p) {
    if (n < 1 || n > kMaxCountPeople) {
        return Error{"n must be in [1, " + std::to_string(kMaxCountPeople) + "]"};
    }
    if (!std::isfinite(p) || p < 0 || p > 1) {
        return Error{"the Binomial prior needs p in [0, 1], got " + formatNumber(p)};
    }
    std::vector<double> w(static_cast<std::size_t>(n) + 1);
    for (int j = 0; j <= n; ++j) {
        // log C(n, j) + j log p + (n−j) log(1−p), with 0·log 0 = 0.
        double l = std::lgamma(n + 1.0) - std::lgamma(j + 1.0) - std::lgamma(n - j + 1.0);
        l += j > 0 ? j * std::log(p) : 0.0;
        l += n - j > 0 ? (n - j) * std::log1p(-p) : 0.0;
        w[static_cast<std::size_t>(j)] = std::exp(l);
    }
    double sum = 0;
    for (double v : w) {
        sum += v;
    }
    for (double& v : w) {
        v /= sum;
    }
    return w;
}

Expected<CountLpResult> designCountMechanism(const CountLpSpec& spec) {
    if (auto s = spec.validate(); !s) {
        return s.error();
    }
    const auto n = static_cast<std::size_t>(spec.n);
    const std::size_t m = n + 1;
    const double alpha = std::exp(-spec.epsilon);
    if (!(alpha > 0)) {
        return Error{"ε = " + formatNumber(spec.epsilon) + " is too large: α = e^(−ε) underflows"};
    }
    const std::vector<double> w =
        spec.weights.empty() ? std::vector<double>(m, 1.0 / static_cast<double>(m)) : spec.weights;
    const bool minimax = spec.aggregate == LpAggregate::Max;
    const int nVars = static_cast<int>(m * m) + (minimax ? 1 : 0);
    const int tVar = static_cast<int>(m * m);
    auto var = [m](std::size_t i, std::size_t j) { return static_cast<int>(i * m + j); };
    auto has = [&](CountProperty p) {
        return std::find(spec.constraints.begin(), spec.constraints.end(), p) !=
               spec.constraints.end();
    };

    Rows rows;
    for (std::size_t j = 0; j < m; ++j) {  // columns sum to 1
        const int r = rows.add(1, 1);
        for (std::size_t i = 0; i < m; ++i) {
            rows.put(r, var(i, j), 1);
        }
    }
    for (std::size_t i = 0; i < m; ++i) {  // α ≤ P[i][j]/P[i][j+1] ≤ 1/α
        for (std::size_t j = 0; j + 1 < m; ++j) {
            rows.difference(var(i, j), var(i, j + 1), alpha, false);
            rows.difference(var(i, j + 1), var(i, j), alpha, false);
        }
    }
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < m; ++j) {
            if (has(CountProperty::RowHonest) && i != j) {
                rows.difference(var(i, i), var(i, j), 1, false);
            }
            if (has(CountProperty::ColumnHonest) && i != j) {
                rows.difference(var(j, j), var(i, j), 1, false);
            }
            if (has(CountProperty::RowMonotone)) {
                if (j >= 1 && j <= i) {
                    rows.difference(var(i, j), var(i, j - 1), 1, false);
                }
                if (j >= i && j + 1 < m) {
                    rows.difference(var(i, j), var(i, j + 1), 1, false);
                }
            }
            if (has(CountProperty::ColumnMonotone)) {
                if (i >= 1 && i <= j) {
                    rows.difference(var(i, j), var(i - 1, j), 1, false);
                }
                if (i >= j && i + 1 < m) {
                    rows.difference(var(i, j), var(i + 1, j), 1, false);
                }
            }
            if (has(CountProperty::Symmetric) && i * m + j < (n - i) * m + (n - j)) {
                rows.difference(var(i, j), var(n - i, n - j), 1, true);
            }
        }
        if (has(CountProperty::Fair) && i >= 1) {
            rows.difference(var(i, i), var(0, 0), 1, true);
        }
    }
    std::vector<double> colLo(static_cast<std::size_t>(nVars), 0.0);
    std::vector<double> colHi(static_cast<std::size_t>(nVars), 1.0);
    if (has(CountProperty::WeaklyHonest)) {
        for (std::size_t i = 0; i < m; ++i) {
            colLo[static_cast<std::size_t>(var(i, i))] = 1.0 / static_cast<double>(m);
        }
    }
    std::vector<double> obj(static_cast<std::size_t>(nVars), 0.0);
    if (minimax) {
        colHi[static_cast<std::size_t>(tVar)] = kInf;
        obj[static_cast<std::size_t>(tVar)] = 1;
        for (std::size_t j = 0; j < m; ++j) {  // Σ_i c(i,j) P[i][j] − t ≤ 0
            const int r = rows.add(-kInf, 0);
            for (std::size_t i = 0; i < m; ++i) {
                const double c = costOf(spec, i, j);
                if (c != 0) {
                    rows.put(r, var(i, j), c);
                }
            }
            rows.put(r, tVar, -1);
        }
    } else {
        for (std::size_t i = 0; i < m; ++i) {
            for (std::size_t j = 0; j < m; ++j) {
                obj[static_cast<std::size_t>(var(i, j))] = w[j] * costOf(spec, i, j);
            }
        }
    }

    const CoinPackedMatrix matrix(true, rows.row.data(), rows.col.data(), rows.val.data(),
                                  static_cast<CoinBigIndex>(rows.val.size()));
    ClpSimplex model;
    model.setLogLevel(0);
    model.loadProblem(matrix, colLo.data(), colHi.data(), obj.data(), rows.lo.data(),
                      rows.hi.data());
    model.setMaximumSeconds(spec.timeLimitSeconds);
    const auto start = std::chrono::steady_clock::now();
    model.dual();  // dual simplex: faster here than primal (2x) or CLP's automatic choice
    CountLpResult result;
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    switch (model.status()) {
        case 0:
            result.status = LpStatus::Optimal;
            break;
        case 1:
            result.status = LpStatus::Infeasible;
            return result;
        case 3:
            result.status = LpStatus::TimeLimit;
            return result;
        default:
            result.status = LpStatus::Failed;
            return result;
    }

    // Repair: clear negatives, renormalise columns, then mix in the least share of the uniform
    // mechanism that makes every adjacent-column ratio ≤ e^ε, and verify exactly.
    const double* x = model.getColSolution();
    std::vector<double> p(x, x + m * m);
    result.solverObjective = objectiveOf(spec, w, p, m);
    for (std::size_t j = 0; j < m; ++j) {
        double sum = 0;
        for (std::size_t i = 0; i < m; ++i) {
            p[i * m + j] = std::max(p[i * m + j], 0.0);
            sum += p[i * m + j];
        }
        for (std::size_t i = 0; i < m; ++i) {
            p[i * m + j] /= sum;
        }
    }
    const double u = 1.0 / static_cast<double>(m);
    double lambda = uniformShareNeeded(p, m, spec.epsilon);
    std::vector<double> q = p;
    for (int attempt = 0; attempt < 60; ++attempt) {
        for (std::size_t k = 0; k < q.size(); ++k) {
            q[k] = (1 - lambda) * p[k] + lambda * u;
        }
        auto candidate = CountMechanism::fromRowMajor(m, q, "LP optimum");
        if (candidate && candidate->achievedEpsilon() <= spec.epsilon) {
            result.mechanism = std::move(*candidate);
            break;
        }
        // Rounding left a ratio a hair above e^ε: a little more of the uniform mechanism.
        lambda = std::min(1.0, lambda > 0 ? lambda * 1.5 + 1e-15 : 1e-15);
    }
    if (!result.mechanism) {
        result.status = LpStatus::Failed;
        return result;
    }
    result.repairUniformShare = lambda;
    result.objective = objectiveOf(spec, w, result.mechanism->rowMajor(), m);
    result.repairCost = result.objective - result.solverObjective;
    if (spec.cost == LpCostKind::L0 || spec.cost == LpCostKind::L0d) {
        result.normalised = static_cast<double>(m) / static_cast<double>(n) * result.objective;
    }
    const double spikeLevel = u + 1e-9;
    for (std::size_t i = 0; i < m; ++i) {
        double lo = kInf;
        double hi = 0;
        for (std::size_t j = 0; j < m; ++j) {
            lo = std::min(lo, result.mechanism->at(i, j));
            hi = std::max(hi, result.mechanism->at(i, j));
        }
        if (hi <= 1e-9) {
            result.gaps.push_back(i);
        }
        if (lo > spikeLevel) {
            result.spikes.push_back(i);
        }
    }
    return result;
}

}  // namespace dpx
