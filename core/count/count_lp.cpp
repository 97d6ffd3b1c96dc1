#include "core/count/count_lp.h"

#include <ClpEventHandler.hpp>
#include <ClpSimplex.hpp>
#include <CoinPackedMatrix.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "core/base/validation.h"

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

// The LP in triplet form, built in one go. Variables are the cells P[i][j] (flat index k = i·m +
// j); with the symmetry reduction a cell and its mirror m²−1−k share the variable min(k, m²−1−k),
// rows are merged accordingly and rows that become duplicates are dropped. Row and column order
// depend only on (n, cost, constraints, symmetry), never on ε, so a basis carries over between ε
// values.
class Formulation {
public:
    Formulation(std::size_t m, bool symmetric) : m_(m), symmetric_(symmetric) {
        const std::size_t cells = m * m;
        cells_ = symmetric ? (cells + 1) / 2 : cells;
    }
    int variableOf(std::size_t i, std::size_t j) const {
        const std::size_t k = i * m_ + j;
        return static_cast<int>(symmetric_ ? std::min(k, m_ * m_ - 1 - k) : k);
    }
    std::size_t cellVariables() const { return cells_; }

    // Adds lo ≤ Σ coef·x ≤ hi over the given (variable, coefficient) terms.
    void addRow(double lo, double hi, std::vector<std::pair<int, double>>& terms) {
        std::sort(terms.begin(), terms.end());
        std::size_t out = 0;
        for (std::size_t t = 0; t < terms.size(); ++t) {
            if (out > 0 && terms[out - 1].first == terms[t].first) {
                terms[out - 1].second += terms[t].second;
            } else {
                terms[out++] = terms[t];
            }
        }
        terms.resize(out);
        std::erase_if(terms, [](const auto& t) { return t.second == 0; });
        if (terms.empty()) {
            return;  // 0 = 0, e.g. F's P[n][n] = P[0][0] under the symmetry reduction
        }
        if (symmetric_ && isDuplicate(lo, hi, terms)) {
            return;
        }
        const int r = static_cast<int>(rowLo.size());
        rowLo.push_back(lo);
        rowHi.push_back(hi);
        rowStart_.push_back(val.size());
        for (const auto& [c, v] : terms) {
            row.push_back(r);
            col.push_back(c);
            val.push_back(v);
        }
    }
    // x[p] − b·x[q] ≥ 0 (or = 0) for cells p = (pi, pj), q = (qi, qj).
    void addDifference(std::size_t pi, std::size_t pj, std::size_t qi, std::size_t qj, double b,
                       bool equal) {
        scratch_.clear();
        scratch_.emplace_back(variableOf(pi, pj), 1.0);
        scratch_.emplace_back(variableOf(qi, qj), -b);
        addRow(0, equal ? 0 : kInf, scratch_);
    }
    int rows() const { return static_cast<int>(rowLo.size()); }

    std::vector<int> row, col;
    std::vector<double> val;
    std::vector<double> rowLo, rowHi;

private:
    bool isDuplicate(double lo, double hi, const std::vector<std::pair<int, double>>& terms) {
        std::uint64_t h = std::hash<double>{}(lo) ^ (std::hash<double>{}(hi)*31);
        for (const auto& [c, v] : terms) {
            h = h * 1000003u ^ static_cast<std::uint64_t>(c);
            h = h * 1000003u ^ std::hash<double>{}(v);
        }
        auto& bucket = seen_[h];
        for (int r : bucket) {
            const std::size_t b = rowStart_[static_cast<std::size_t>(r)];
            const std::size_t e = static_cast<std::size_t>(r) + 1 < rowStart_.size()
                                      ? rowStart_[static_cast<std::size_t>(r) + 1]
                                      : val.size();
            if (rowLo[static_cast<std::size_t>(r)] != lo ||
                rowHi[static_cast<std::size_t>(r)] != hi || e - b != terms.size()) {
                continue;
            }
            bool same = true;
            for (std::size_t t = 0; t < terms.size() && same; ++t) {
                same = col[b + t] == terms[t].first && val[b + t] == terms[t].second;
            }
            if (same) {
                return true;
            }
        }
        bucket.push_back(static_cast<int>(rowLo.size()));
        return false;
    }

    std::size_t m_;
    bool symmetric_;
    std::size_t cells_;
    std::vector<std::size_t> rowStart_;
    std::unordered_map<std::uint64_t, std::vector<int>> seen_;
    std::vector<std::pair<int, double>> scratch_;
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
        case LpStatus::Cancelled:
            return "cancelled";
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
    if (!std::isfinite(minDiagonal) || minDiagonal < 0 || minDiagonal > 1) {
        return Error{"the minimum diagonal must be a probability in [0, 1], got " +
                     formatNumber(minDiagonal)};
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

namespace {

// c(i,j) = c(n−i,n−j) and w_j = w_{n−j} (exactly, as the LP would see them).
bool problemIsSymmetric(const CountLpSpec& spec, const std::vector<double>& w, std::size_t m) {
    const std::size_t n = m - 1;
    for (std::size_t j = 0; j < m; ++j) {
        if (w[j] != w[n - j]) {
            return false;
        }
    }
    if (spec.cost == LpCostKind::Custom) {
        for (std::size_t i = 0; i < m; ++i) {
            for (std::size_t j = 0; j < m; ++j) {
                if (costOf(spec, i, j) != costOf(spec, n - i, n - j)) {
                    return false;
                }
            }
        }
    }
    return true;
}

// The whole LP for one α: constraint triplets, bounds and objective.
struct LpData {
    Formulation f;
    std::vector<double> colLo, colHi, obj;
    int columns = 0;
};

LpData buildLp(const CountLpSpec& spec, const std::vector<double>& w, double alpha,
               bool symmetric) {
    const auto n = static_cast<std::size_t>(spec.n);
    const std::size_t m = n + 1;
    LpData lp{Formulation(m, symmetric), {}, {}, {}, 0};
    Formulation& f = lp.f;
    const bool minimax = spec.aggregate == LpAggregate::Max;
    const int cellVars = static_cast<int>(f.cellVariables());
    const int tVar = cellVars;
    lp.columns = cellVars + (minimax ? 1 : 0);
    auto has = [&](CountProperty p) {
        return std::find(spec.constraints.begin(), spec.constraints.end(), p) !=
               spec.constraints.end();
    };

    std::vector<std::pair<int, double>> terms;
    for (std::size_t j = 0; j < m; ++j) {  // columns sum to 1
        terms.clear();
        for (std::size_t i = 0; i < m; ++i) {
            terms.emplace_back(f.variableOf(i, j), 1.0);
        }
        f.addRow(1, 1, terms);
    }
    for (std::size_t i = 0; i < m; ++i) {  // α ≤ P[i][j]/P[i][j+1] ≤ 1/α
        for (std::size_t j = 0; j + 1 < m; ++j) {
            f.addDifference(i, j, i, j + 1, alpha, false);
            f.addDifference(i, j + 1, i, j, alpha, false);
        }
    }
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < m; ++j) {
            if (has(CountProperty::RowHonest) && i != j) {
                f.addDifference(i, i, i, j, 1, false);
            }
            if (has(CountProperty::ColumnHonest) && i != j) {
                f.addDifference(j, j, i, j, 1, false);
            }
            if (has(CountProperty::RowMonotone)) {
                if (j >= 1 && j <= i) {
                    f.addDifference(i, j, i, j - 1, 1, false);
                }
                if (j >= i && j + 1 < m) {
                    f.addDifference(i, j, i, j + 1, 1, false);
                }
            }
            if (has(CountProperty::ColumnMonotone)) {
                if (i >= 1 && i <= j) {
                    f.addDifference(i, j, i - 1, j, 1, false);
                }
                if (i >= j && i + 1 < m) {
                    f.addDifference(i, j, i + 1, j, 1, false);
                }
            }
            // S holds by construction under the reduction (the rows would be 0 = 0).
            if (has(CountProperty::Symmetric) && !symmetric && i * m + j < (n - i) * m + (n - j)) {
                f.addDifference(i, j, n - i, n - j, 1, true);
            }
        }
        if (has(CountProperty::Fair) && i >= 1) {
            f.addDifference(i, i, 0, 0, 1, true);
        }
    }
    lp.colLo.assign(static_cast<std::size_t>(lp.columns), 0.0);
    lp.colHi.assign(static_cast<std::size_t>(lp.columns), 1.0);
    const double floor = std::max(
        spec.minDiagonal, has(CountProperty::WeaklyHonest) ? 1.0 / static_cast<double>(m) : 0.0);
    if (floor > 0) {
        for (std::size_t i = 0; i < m; ++i) {
            lp.colLo[static_cast<std::size_t>(f.variableOf(i, i))] = floor;
        }
    }
    lp.obj.assign(static_cast<std::size_t>(lp.columns), 0.0);
    if (minimax) {
        lp.colHi[static_cast<std::size_t>(tVar)] = kInf;
        lp.obj[static_cast<std::size_t>(tVar)] = 1;
        for (std::size_t j = 0; j < m; ++j) {  // Σ_i c(i,j) P[i][j] − t ≤ 0
            terms.clear();
            for (std::size_t i = 0; i < m; ++i) {
                if (const double c = costOf(spec, i, j); c != 0) {
                    terms.emplace_back(f.variableOf(i, j), c);
                }
            }
            terms.emplace_back(tVar, -1.0);
            f.addRow(-kInf, 0, terms);
        }
    } else {
        for (std::size_t i = 0; i < m; ++i) {
            for (std::size_t j = 0; j < m; ++j) {
                lp.obj[static_cast<std::size_t>(f.variableOf(i, j))] += w[j] * costOf(spec, i, j);
            }
        }
    }
    return lp;
}

// Stops the simplex between iterations when the stop token fires.
class StopHandler : public ClpEventHandler {
public:
    explicit StopHandler(std::stop_token stop) : stop_(std::move(stop)) {}
    int event(Event e) override {
        if ((e == endOfIteration || e == endOfFactorization) && stop_.stop_requested()) {
            return 0;  // CLP status 5: stopped by event
        }
        return -1;
    }
    ClpEventHandler* clone() const override { return new StopHandler(*this); }

private:
    std::stop_token stop_;
};

// One solve. `basis` (size rows + columns, CLP status codes) is the warm start when not empty and
// receives the final basis when the solve is optimal.
CountLpResult solveOnce(const CountLpSpec& spec, const std::vector<double>& w, double epsilon,
                        bool symmetric, std::vector<unsigned char>& basis,
                        const std::stop_token& stop) {
    const auto n = static_cast<std::size_t>(spec.n);
    const std::size_t m = n + 1;
    const LpData lp = buildLp(spec, w, std::exp(-epsilon), symmetric);
    const Formulation& f = lp.f;
    const CoinPackedMatrix matrix(true, f.row.data(), f.col.data(), f.val.data(),
                                  static_cast<CoinBigIndex>(f.val.size()));
    ClpSimplex model;
    model.setLogLevel(0);
    model.loadProblem(matrix, lp.colLo.data(), lp.colHi.data(), lp.obj.data(), f.rowLo.data(),
                      f.rowHi.data());
    StopHandler handler(stop);
    model.passInEventHandler(&handler);
    model.setMaximumSeconds(spec.timeLimitSeconds);
    CountLpResult result;
    result.symmetryReduced = symmetric;
    result.lpRows = model.numberRows();
    result.lpColumns = model.numberColumns();
    const auto total = static_cast<std::size_t>(model.numberRows() + model.numberColumns());
    if (basis.size() == total) {
        model.copyinStatus(basis.data());
        result.warmStarted = true;
    }
    // A primal tolerance of 1e-10 instead of CLP's 1e-7: the ratio rows between tiny tail entries
    // are then violated by so little that the repair below mixes in ~1e-8 of the uniform
    // mechanism instead of ~1e-4 (n = 100, ε = 0.5: repair cost 5e-9 instead of 6e-5 in L0), for
    // about 1.6x the solve time.
    model.setPrimalTolerance(1e-10);
    const auto start = std::chrono::steady_clock::now();
    model.dual();  // dual simplex: faster here than primal (2x), barrier or CLP's automatic choice
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.iterations = model.numberIterations();
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
        case 5:
            result.status = stop.stop_requested() ? LpStatus::Cancelled : LpStatus::Failed;
            return result;
        default:
            result.status = LpStatus::Failed;
            return result;
    }
    basis.assign(model.statusArray(), model.statusArray() + total);

    // Repair: clear negatives, renormalise columns, then mix in the least share of the uniform
    // mechanism that makes every adjacent-column ratio ≤ e^ε, and verify exactly.
    const double* x = model.getColSolution();
    std::vector<double> p(m * m);
    for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = 0; j < m; ++j) {
            p[i * m + j] = x[f.variableOf(i, j)];
        }
    }
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
    double lambda = uniformShareNeeded(p, m, epsilon);
    std::vector<double> q = p;
    for (int attempt = 0; attempt < 60; ++attempt) {
        for (std::size_t k = 0; k < q.size(); ++k) {
            q[k] = (1 - lambda) * p[k] + lambda * u;
        }
        auto candidate = CountMechanism::fromRowMajor(m, q, "LP optimum");
        if (candidate && candidate->achievedEpsilon() <= epsilon) {
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

Status checkAlpha(double epsilon) {
    if (!(std::exp(-epsilon) > 0)) {
        return Error{"ε = " + formatNumber(epsilon) + " is too large: α = e^(−ε) underflows"};
    }
    return okStatus();
}

std::vector<double> weightsOf(const CountLpSpec& spec) {
    const std::size_t m = static_cast<std::size_t>(spec.n) + 1;
    return spec.weights.empty() ? std::vector<double>(m, 1.0 / static_cast<double>(m))
                                : spec.weights;
}

}  // namespace

Expected<CountLpResult> designCountMechanism(const CountLpSpec& spec, std::stop_token stop) {
    if (auto s = spec.validate(); !s) {
        return s.error();
    }
    if (auto s = checkAlpha(spec.epsilon); !s) {
        return s.error();
    }
    const std::vector<double> w = weightsOf(spec);
    const bool symmetric =
        spec.exploitSymmetry && problemIsSymmetric(spec, w, static_cast<std::size_t>(spec.n) + 1);
    std::vector<unsigned char> basis;
    return solveOnce(spec, w, spec.epsilon, symmetric, basis, stop);
}

Expected<std::vector<CountLpResult>> designCountMechanismSweep(const CountLpSpec& spec,
                                                               const std::vector<double>& epsilons,
                                                               std::stop_token stop,
                                                               const LpSweepProgress& progress) {
    if (epsilons.empty()) {
        return Error{"an ε sweep needs at least one ε value"};
    }
    for (double e : epsilons) {
        CountLpSpec one = spec;
        one.epsilon = e;
        if (auto s = one.validate(); !s) {
            return s.error();
        }
        if (auto s = checkAlpha(e); !s) {
            return s.error();
        }
    }
    const std::vector<double> w = weightsOf(spec);
    const bool symmetric =
        spec.exploitSymmetry && problemIsSymmetric(spec, w, static_cast<std::size_t>(spec.n) + 1);
    std::vector<std::size_t> order(epsilons.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return epsilons[a] > epsilons[b]; });
    std::vector<CountLpResult> results(epsilons.size());
    for (CountLpResult& r : results) {
        r.status = LpStatus::Cancelled;
    }
    std::vector<unsigned char> basis;
    std::size_t done = 0;
    for (std::size_t k : order) {
        if (stop.stop_requested()) {
            break;
        }
        results[k] = solveOnce(spec, w, epsilons[k], symmetric, basis, stop);
        if (results[k].status != LpStatus::Optimal) {
            basis.clear();
        }
        if (progress) {
            progress(++done, epsilons.size());
        }
    }
    return results;
}

}  // namespace dpx
