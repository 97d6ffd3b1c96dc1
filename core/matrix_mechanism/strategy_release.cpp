#include "core/matrix_mechanism/strategy_release.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "core/base/validation.h"
#include "core/histogram/dataset.h"
#include "core/intervals/intervals.h"
#include "core/intervals/simulated_linear.h"
#include "core/release/exact_samplers.h"

namespace dpx {

namespace {

constexpr double kExactDouble = 9007199254740992.0;  // 2^53

}  // namespace

Status checkStrategyReleaseSpec(const ReleaseSpec& spec) {
    if (auto v = spec.validate(); !v) {
        return v;
    }
    if (spec.mechanism != ReleaseMechanism::DiscreteLaplace &&
        spec.mechanism != ReleaseMechanism::DiscreteGaussian) {
        return Error{std::string("mechanism: a release through a designed strategy adds discrete "
                                 "Laplace noise (calibrated on the strategy's Δ1) or discrete "
                                 "Gaussian noise (on its Δ2) to its integer queries; ") +
                     releaseMechanismName(spec.mechanism) + " is not offered for it"};
    }
    if (spec.postProcessing != EstimatorKind::Identity) {
        return Error{
            "post-processing: a release through a designed strategy publishes the least-squares "
            "inference from its measurements (unbiased, with exact intervals); other "
            "post-processing is not offered for it"};
    }
    return okStatus();
}

namespace {

std::string shapeText(const std::vector<std::size_t>& shape) {
    std::string out;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        out += (d ? " × " : "") + std::to_string(shape[d]);
    }
    return out;
}

// "±7" when every cell has the same half-width, else "its own ± (±5.8 to ±10.5)".
std::string rangeText(double lo, double hi) {
    return lo == hi ? "±" + halfWidthText(hi)
                    : "its own ± (from ±" + halfWidthText(lo) + " to ±" + halfWidthText(hi) +
                          ", in the lower/upper columns)";
}

}  // namespace

Expected<StrategyReleasePlan> planStrategyRelease(std::shared_ptr<const Workload> w,
                                                  DesignTemplate t, std::vector<std::size_t> p,
                                                  const StrategyOptimizeOptions& options,
                                                  double tolerance, std::stop_token stop) {
    if (!w) {
        return Error{"strategy release: no workload"};
    }
    if (shapeCells(w->shape()) > kMaxReleaseCells) {
        return Error{
            "strategy release: " + groupThousands(static_cast<long long>(shapeCells(w->shape()))) +
            " cells; a release takes at most " +
            groupThousands(static_cast<long long>(kMaxReleaseCells))};
    }
    auto design = designStrategy(*w, t, std::move(p), options, stop);
    if (!design) {
        return design.error();
    }
    // Δ1 of the release is Δ1(K) times at most 2·cap; keep room for every cap.
    auto k =
        chooseIntegerStrategy(*w, *design, tolerance, kMaxExactSensitivity / (2 * kMaxReleaseCap));
    if (!k) {
        return k.error();
    }
    auto plan = planFromIntegerStrategy(std::move(w), design->templateName, std::move(k).value());
    if (plan) {
        plan->measurement = design->measurement;
    }
    return plan;
}

namespace {

// The marginals of a marginal workload, each once, in the order its queries list them
// (workload.h: the orders as listed, per order the subsets in lexicographic order; a union's
// parts in turn). Identity is the full table, total the empty marginal.
Expected<std::vector<std::size_t>> workloadMarginals(const Workload& w) {
    const std::size_t dims = w.shape().size();
    std::vector<std::size_t> out;
    const auto add = [&out](std::size_t b) {
        if (std::find(out.begin(), out.end(), b) == out.end()) {
            out.push_back(b);
        }
    };
    switch (w.spec().kind) {
        case WorkloadKind::Identity:
            add((std::size_t{1} << dims) - 1);
            return out;
        case WorkloadKind::Total:
            add(0);
            return out;
        case WorkloadKind::Marginals:
            for (std::size_t k : w.spec().ways) {
                // The k-subsets of {0 … dims−1} in lexicographic order.
                std::vector<std::size_t> c(k);
                for (std::size_t i = 0; i < k; ++i) {
                    c[i] = i;
                }
                while (true) {
                    std::size_t b = 0;
                    for (std::size_t i : c) {
                        b |= std::size_t{1} << i;
                    }
                    add(b);
                    std::size_t i = k;
                    while (i > 0 && c[i - 1] == dims - k + i - 1) {
                        --i;
                    }
                    if (i == 0) {
                        break;
                    }
                    ++c[i - 1];
                    for (std::size_t j = i; j < k; ++j) {
                        c[j] = c[j - 1] + 1;
                    }
                }
            }
            return out;
        case WorkloadKind::Union:
            for (const Workload& part : w.parts()) {
                auto m = workloadMarginals(part);
                if (!m) {
                    return m.error();
                }
                for (std::size_t b : *m) {
                    add(b);
                }
            }
            return out;
        default:
            return Error{w.describe() + " is not a set of marginals"};
    }
}

// "attributes 1 and 3" (1-based), "attribute 2", "the grand total".
std::string marginalText(std::size_t b, std::size_t dims) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < dims; ++i) {
        if (b >> i & 1U) {
            names.push_back(std::to_string(i + 1));
        }
    }
    if (names.empty()) {
        return "the grand total";
    }
    std::string out = names.size() == 1 ? "attribute " : "attributes ";
    for (std::size_t i = 0; i < names.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    }
    return out;
}

std::size_t marginalCells(const DomainShape& shape, std::size_t b) {
    std::size_t n = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        n *= (b >> i & 1U) ? shape[i] : 1;
    }
    return n;
}

// out = M_b·x: the sums of x over the attributes not in b, in C order of the kept ones.
void addUpMarginal(const DomainShape& shape, std::size_t b, std::span<const double> x,
                   std::span<double> out) {
    const std::size_t dims = shape.size();
    std::vector<std::size_t> stride(dims, 0), digit(dims, 0);
    std::size_t size = 1;
    for (std::size_t i = dims; i-- > 0;) {
        if (b >> i & 1U) {
            stride[i] = size;
            size *= shape[i];
        }
    }
    std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(size), 0.0);
    std::size_t index = 0;
    for (double v : x) {
        out[index] += v;
        for (std::size_t i = dims; i-- > 0;) {
            if (++digit[i] < shape[i]) {
                index += stride[i];
                break;
            }
            digit[i] = 0;
            index -= (shape[i] - 1) * stride[i];
        }
    }
}

}  // namespace

Expected<StrategyReleasePlan> planFromIntegerStrategy(std::shared_ptr<const Workload> w,
                                                      std::string templateName, IntegerStrategy k) {
    if (!w || !k.linear) {
        return Error{"strategy release: no workload or no strategy"};
    }
    if (w->shape() != k.shape) {
        return Error{"strategy release: the strategy was designed for " + shapeText(k.shape) +
                     " cells, the workload is over " + shapeText(w->shape())};
    }
    StrategyReleasePlan plan;
    if (k.fullColumnRank()) {
        auto forms = k.cellVarianceForms();
        if (!forms) {
            return forms.error();
        }
        plan.valueForms = std::move(forms).value();
    } else {
        const DomainShape& shape = k.shape;
        const std::size_t dims = shape.size();
        const std::string head = "strategy release: " + templateName +
                                 " does not measure the full table, so its cells are not "
                                 "determined";
        if (k.kind != DesignTemplate::Marginals) {
            return Error{head +
                         " and the workload's answers are published only through an OPT_M "
                         "(marginals) design; choose the p-Identity template"};
        }
        auto marginals = workloadMarginals(*w);
        if (!marginals) {
            return Error{head + "; its answers are published only for a workload of marginals, " +
                         "and " + marginals.error().message + "; choose the p-Identity template"};
        }
        // Structurally: marginal b is determined iff some measured marginal a ⊇ b' (b' = b
        // without the attributes of one bin, whose eigenspaces are empty): then M_b = S·M_a.
        // Otherwise K's eigenvalue on E_{b'} is 0 while M_b has weight there
        // (marginals_strategy.h).
        std::size_t oneBin = 0;
        for (std::size_t i = 0; i < dims; ++i) {
            oneBin |= shape[i] == 1 ? std::size_t{1} << i : 0;
        }
        std::string measured;
        for (std::size_t a = 0; a < k.marginalWeights.size(); ++a) {
            if (k.marginalWeights[a] > 0) {
                measured += (measured.empty() ? "" : "; ") + marginalText(a, dims);
            }
        }
        for (std::size_t b : *marginals) {
            const std::size_t need = b & ~oneBin;
            bool inside = false;
            for (std::size_t a = 0; a < k.marginalWeights.size() && !inside; ++a) {
                inside = k.marginalWeights[a] > 0 && (a & need) == need;
            }
            if (!inside) {
                return Error{head + ", and the workload's marginal over " + marginalText(b, dims) +
                             " is not inside any measured marginal (measured: " + measured +
                             "), so least squares would publish biased answers; choose the "
                             "p-Identity template"};
            }
        }
        // Numerically, and the forms: m = M_b's first row (its first cell); K⁺K·m = m, and
        // m_qᵀ(KᵀK)⁺m_q is the same for every cell q of M_b (KᵀK and M_bᵀM_b are diagonal in the
        // same eigenbasis, where each cell's row has the same weight on each eigenspace:
        // marginals_strategy.h), so one solve per marginal gives all of them.
        const std::size_t cells = shapeCells(shape);
        std::vector<double> m(cells), y(k.linear->rows()), back(cells), g(cells);
        for (std::size_t b : *marginals) {
            std::fill(m.begin(), m.end(), 0.0);
            double norm2 = 0;
            for (std::size_t c = 0; c < cells; ++c) {
                bool first = true;  // every kept attribute at its first bin
                std::size_t rest = c;
                for (std::size_t i = dims; i-- > 0;) {
                    first = first && (!(b >> i & 1U) || rest % shape[i] == 0);
                    rest /= shape[i];
                }
                m[c] = first ? 1.0 : 0.0;
                norm2 += m[c];
            }
            k.linear->measure(m, y);
            k.linear->leastSquares(y, back);
            double residual = 0;
            for (std::size_t c = 0; c < cells; ++c) {
                residual += (back[c] - m[c]) * (back[c] - m[c]);
            }
            if (!(residual <= 1e-16 * norm2)) {
                return Error{head + ", and the workload's marginal over " + marginalText(b, dims) +
                             " is not reproduced by least squares on it (relative residual " +
                             formatShortest(std::sqrt(residual / norm2)) +
                             "); choose the p-Identity template"};
            }
            k.linear->solveGram(m, g);
            double form = 0;
            for (std::size_t c = 0; c < cells; ++c) {
                form += m[c] * g[c];
            }
            if (!(form > 0) || !std::isfinite(form)) {
                return Error{"strategy release: the variance of the marginal over " +
                             marginalText(b, dims) + " is not positive and finite"};
            }
            plan.valueForms.insert(plan.valueForms.end(), marginalCells(shape, b), form);
        }
        plan.published = StrategyPublished::WorkloadMarginals;
        plan.publishedMarginals = std::move(marginals).value();
    }
    if (!(k.roundedObjective > 0)) {
        // A strategy rounded by hand (chooseIntegerStrategy sets it): its exact error, for the
        // expected RMSE the release states.
        auto f = integerStrategyObjective(k, *w);
        if (!f || !std::isfinite(*f)) {
            return Error{"strategy release: " + templateName + " does not answer the workload (" +
                         (f ? std::string("its error is not finite") : f.error().message) + ")"};
        }
        k.roundedObjective = *f;
    }
    plan.workload = std::move(w);
    plan.templateName = std::move(templateName);
    plan.strategy = std::make_shared<const IntegerStrategy>(std::move(k));
    plan.intervalCache = std::make_shared<StrategyIntervalCache>();
    return plan;
}

std::size_t strategyPublishedCount(const StrategyReleasePlan& plan) {
    if (!plan.strategy) {
        return 0;
    }
    if (plan.published == StrategyPublished::Cells) {
        return shapeCells(plan.strategy->shape);
    }
    std::size_t n = 0;
    for (std::size_t b : plan.publishedMarginals) {
        n += marginalCells(plan.strategy->shape, b);
    }
    return n;
}

std::string strategyPublishedText(const StrategyReleasePlan& plan,
                                  const std::vector<std::string>& names) {
    if (!plan.strategy) {
        return "nothing (no strategy)";
    }
    const std::size_t count = strategyPublishedCount(plan);
    if (plan.published == StrategyPublished::Cells) {
        return "the " + groupThousands(static_cast<long long>(count)) +
               (plan.strategy->shape.size() > 1 ? " cells of the table" : " bins");
    }
    std::string list;
    for (std::size_t b : plan.publishedMarginals) {
        std::string name;
        for (std::size_t i = 0; i < plan.strategy->shape.size(); ++i) {
            if (b >> i & 1U) {
                name += (name.empty() ? "" : " × ") +
                        (i < names.size() ? names[i] : "attribute " + std::to_string(i + 1));
            }
        }
        list += (list.empty() ? "" : ", ") + (name.empty() ? std::string("the total") : name);
    }
    return "the workload's marginals, not the cells (the full table is not measured): " + list +
           " (" + groupThousands(static_cast<long long>(count)) + " values)";
}

void strategyEstimates(const StrategyReleasePlan& plan, std::span<const double> y,
                       std::span<double> out) {
    const IntegerStrategy& k = *plan.strategy;
    if (plan.published == StrategyPublished::Cells) {
        k.linear->leastSquares(y, out);
        return;
    }
    std::vector<double> xhat(shapeCells(k.shape));
    k.linear->leastSquares(y, xhat);  // the minimum-norm solution K⁺y
    std::size_t at = 0;
    for (std::size_t b : plan.publishedMarginals) {
        addUpMarginal(k.shape, b, xhat, out.subspan(at));
        at += marginalCells(k.shape, b);
    }
}

MeasurementNoise strategyMeasurementFor(ReleaseMechanism m) {
    return m == ReleaseMechanism::DiscreteGaussian ? MeasurementNoise::Gaussian
                                                   : MeasurementNoise::Laplace;
}

StrategyPlanner strategyPlanner(WorkloadSpec workload, DesignTemplate t, std::vector<std::size_t> p,
                                StrategyOptimizeOptions options) {
    return [workload = std::move(workload), t, p = std::move(p), options](
               const DomainShape& shape) -> Expected<std::shared_ptr<const StrategyReleasePlan>> {
        auto w = Workload::make(workload, shape);
        if (!w) {
            return w.error();
        }
        std::vector<std::size_t> ps = p;
        if (ps.size() == 1 && shape.size() > 1) {
            ps.assign(shape.size(), ps[0]);
        }
        auto plan = planStrategyRelease(std::make_shared<const Workload>(std::move(w).value()), t,
                                        ps, options);
        if (!plan) {
            return plan.error();
        }
        return std::make_shared<const StrategyReleasePlan>(std::move(plan).value());
    };
}

// Simulated intervals of one plan, by noise law and level: computed once (a preview and the
// release share them), data-free.
struct StrategyIntervalCache {
    std::mutex mutex;
    std::map<std::tuple<int, double, double>, SimulatedLinearIntervals> byLaw;
};

namespace {

// How many noise vectors the simulated intervals draw for a plan: at most 10 000, within a work
// budget of 10⁸ sampled or solved entries, 2·10⁷ cell estimates and 8·10⁶ kept order statistics;
// 0 when the budget leaves fewer than 2 000 (the bound alone is then stated). Measured: AllRange
// on 1 024 cells ~0.3 s, on 64 × 64 cells (4 882 draws) ~1.5 s of CPU. `values`: the published
// values (the cells, or the published marginals' cells, which are added up from the cells).
std::uint64_t simulationDraws(std::size_t rows, std::size_t cells, std::size_t values,
                              double level) {
    constexpr double kWork = 1e8, kKept = 8e6, kCellEstimates = 2e7;
    constexpr std::uint64_t kMost = 10'000, kLeast = 2'000;
    const double work = static_cast<double>(rows + cells + (values == cells ? 0 : values));
    auto n = static_cast<std::uint64_t>(
        std::min(kWork / work, kCellEstimates / static_cast<double>(std::max(cells, values))));
    // Order statistics kept per value ≈ N·(1 − L) plus a margin: at most kKept in all.
    const double perDraw = (1 - level) * 1.2 + 1e-3;
    n = std::min<std::uint64_t>(
        {n, kMost, static_cast<std::uint64_t>(kKept / (static_cast<double>(values) * perDraw))});
    return n < kLeast ? 0 : n;
}

}  // namespace

Expected<ReleaseIntervalStatement> strategyIntervals(const StrategyReleasePlan& plan,
                                                     const CellNoise& rowNoise, double level,
                                                     std::stop_token stop) {
    if (!plan.strategy || plan.valueForms.empty() ||
        plan.valueForms.size() != strategyPublishedCount(plan)) {
        return Error{"strategy release: the plan is incomplete"};
    }
    const bool answers = plan.published == StrategyPublished::WorkloadMarginals;
    auto perCell = linearEstimateInterval(rowNoise, level);
    if (!perCell) {
        return perCell.error();
    }
    const std::size_t cells = plan.valueForms.size();  // the published values
    auto all = linearEstimateInterval(rowNoise, 1 - (1 - level) / static_cast<double>(cells));
    if (!all) {
        return all.error();
    }
    std::vector<double> scales(cells);
    for (std::size_t j = 0; j < cells; ++j) {
        scales[j] = std::sqrt(plan.valueForms[j]);
    }
    const double maxScale = *std::max_element(scales.begin(), scales.end());

    // The simulated law of the estimates (core/intervals/simulated_linear.h), cached in the plan.
    const IntegerStrategy& k = *plan.strategy;
    const std::size_t rows = k.linear->rows();
    std::optional<SimulatedLinearIntervals> sim;
    const std::uint64_t draws = simulationDraws(rows, shapeCells(k.shape), cells, level);
    const auto key = std::make_tuple(static_cast<int>(rowNoise.kind), rowNoise.parameter, level);
    if (draws > 0) {
        std::mutex uncached;  // a plan made by hand has no cache
        std::unique_lock lock(plan.intervalCache ? plan.intervalCache->mutex : uncached);
        if (plan.intervalCache) {
            if (auto it = plan.intervalCache->byLaw.find(key);
                it != plan.intervalCache->byLaw.end())
                sim = it->second;
        }
        if (!sim) {
            SimulatedLinearOptions options;
            options.draws = draws;
            const LinearEstimateMap map = [&plan](std::span<const double> z,
                                                  std::span<double> out) {
                strategyEstimates(plan, z, out);
            };
            auto s = simulatedLinearIntervals(rowNoise, rows, scales, map, level, options, stop);
            if (!s) {
                return s.error();
            }
            sim = std::move(s).value();
            if (plan.intervalCache) {
                plan.intervalCache->byLaw.emplace(key, *sim);
            }
        }
    }

    ReleaseIntervalStatement iv;
    iv.level = level;
    iv.halfWidths.resize(cells);
    double lo = INFINITY, hi = 0;
    std::size_t simulatedTighter = 0;
    for (std::size_t j = 0; j < cells; ++j) {
        const double bound = perCell->halfWidth * scales[j];
        double h = bound;
        if (sim && sim->halfWidths[j] < bound) {
            h = sim->halfWidths[j];
            ++simulatedTighter;
        }
        iv.halfWidths[j] = h;
        lo = std::min(lo, h);
        hi = std::max(hi, h);
    }
    iv.halfWidth = hi;
    iv.coverage = level;
    // The texts of a cells release as before; a marginals release names its values.
    const std::string unit = answers ? "value" : "cell";
    const std::string units = answers ? "published marginal counts" : "cells";
    const std::string form = answers ? "√(m_qᵀ(KᵀK)⁺m_q)" : "√(e_jᵀ(KᵀK)⁻¹e_j)";
    const std::string boundMethod = perCell->method + "; per " + unit + " ×" + form;
    const double bonferroni = all->halfWidth * maxScale;
    if (sim) {
        iv.method = "per " + unit + " the smaller of two valid half-widths: (1) " + sim->method +
                    "; (2) " + boundMethod + ". The simulated one is used for " +
                    std::to_string(simulatedTighter) + " of " + std::to_string(cells) + " " + units;
    } else {
        iv.method = boundMethod + " (too many " + units + " and measurements to simulate the law)";
    }
    if (sim && sim->simultaneous * maxScale < bonferroni) {
        iv.simultaneousHalfWidth = sim->simultaneous * maxScale;
        iv.simultaneousMethod =
            std::string("the simulated law of the largest studentised error max_") +
            (answers ? "q |e_q|/" : "j |e_j|/") + form + " over all " + std::to_string(cells) +
            " " + units + ", the same order statistic";
    } else {
        iv.simultaneousHalfWidth = bonferroni;
        iv.simultaneousMethod = "Bonferroni over " + std::to_string(cells) + " " + units +
                                " (level 1 − (1 − " + levelPercentText(level) + ")/" +
                                std::to_string(cells) + " per " + unit +
                                "), the bound valid for any "
                                "coefficients";
    }
    const std::string each = answers ? "published marginal count" : "published count";
    iv.sentence = "With " + levelPercentText(level) + " confidence each " + each + " is within " +
                  rangeText(lo, hi) + " of the count before noise" +
                  (simulatedTighter == cells ? "." : " (a conservative bound).");
    iv.simultaneousSentence = "With " + levelPercentText(level) + " confidence all " +
                              std::to_string(cells) + " " + each + "s are within ±" +
                              halfWidthText(iv.simultaneousHalfWidth) +
                              " of their counts before noise at once.";
    return iv;
}

Expected<StrategyReleaseLaw> strategyReleaseLaw(const ReleaseSpec& spec,
                                                const StrategyReleasePlan& plan) {
    if (auto s = checkStrategyReleaseSpec(spec); !s) {
        return s.error();
    }
    if (!plan.strategy || !plan.workload || plan.valueForms.empty()) {
        return Error{"strategy release: the plan is incomplete"};
    }
    const IntegerStrategy& k = *plan.strategy;
    StrategyReleaseLaw law;
    law.mechanism = spec.mechanism;
    law.l1 = releaseL1Sensitivity(spec) * k.l1;
    if (__builtin_mul_overflow(releaseL2SensitivitySquared(spec), k.l2Squared, &law.l2Squared)) {
        return Error{"strategy release: Δ2² of the rounded strategy leaves the 64-bit range"};
    }
    CellNoise noise;
    if (spec.mechanism == ReleaseMechanism::DiscreteGaussian) {
        // σ² on Δ2² = Δ2(K)²·(cap² or 2·cap²): see the header for the derivation.
        const std::string what =
            std::string(neighbouringName(spec.relation)) + " with cap " +
            std::to_string(spec.contributionCap) +
            " through the strategy, Delta2(K)^2 = " + std::to_string(k.l2Squared);
        auto cal = calibrateGaussianByZcdp(
            parseDecimal(spec.epsilon, "epsilon").value(),
            parseDecimal(spec.delta, "delta").value(), law.l2Squared, "for " + what,
            "through the strategy (Δ2² = " + groupThousands(law.l2Squared) + ")",
            "a smaller contribution cap");
        if (!cal) {
            return Error{"strategy release: " + cal.error().message};
        }
        noise = CellNoise::discreteGaussian(cal->sigma2.toDouble());
        law.gaussian = std::move(cal).value();
    } else {
        DiscreteLaplaceParams params{parseDecimal(spec.epsilon, "epsilon").value(), law.l1};
        if (auto v = params.validate(); !v) {
            return Error{"strategy release: " + v.error().message};
        }
        law.scale = params.scale();
        law.alpha = std::exp(-1.0 / law.scale.toDouble());
        noise = CellNoise{CellNoiseKind::DiscreteLaplace, law.alpha};
    }
    law.rowVariance = noise.variance();
    // E‖W x̂ − W x‖² = v·trace((KᵀK)⁻¹WᵀW) = v·roundedObjective/Δ1(K)².
    const double kl1 = static_cast<double>(k.l1);
    law.expectedRmse = std::sqrt(law.rowVariance * k.roundedObjective / (kl1 * kl1) /
                                 static_cast<double>(plan.workload->queryCount()));

    auto intervals = strategyIntervals(plan, noise, spec.confidenceLevel);
    if (!intervals) {
        return intervals.error();
    }
    law.intervals = std::move(intervals).value();
    return law;
}

Expected<ReleaseCost> strategyReleaseCost(const ReleaseSpec& spec,
                                          const StrategyReleasePlan& plan) {
    auto law = strategyReleaseLaw(spec, plan);
    if (!law) {
        return law.error();
    }
    auto cost = releaseCost(spec);  // ε, δ as typed; ρ = ε²/2 for the discrete Laplace
    if (!cost) {
        return cost.error();
    }
    if (law->gaussian) {
        cost->rho = law->gaussian->rho.toString();
        cost->sigma2 = law->gaussian->sigma2.toString();
    }
    return cost;
}

Expected<HistogramRelease> releaseThroughStrategy(const ReleaseSpec& spec,
                                                  const StrategyReleasePlan& plan,
                                                  const Histogram& declaredTruth,
                                                  ReleaseRandomness& randomness) {
    auto law = strategyReleaseLaw(spec, plan);
    if (!law) {
        return law.error();
    }
    if (!spec.binsDeclared) {
        return Error{
            "bins: a release needs bins declared before the data are read; bins found in the "
            "data reveal which values occur"};
    }
    const IntegerStrategy& k = *plan.strategy;
    const std::size_t cells = declaredTruth.size();
    if (cells != shapeCells(k.shape)) {
        return Error{"strategy release: the strategy was designed for " + shapeText(k.shape) +
                     " cells, the data have " + std::to_string(cells)};
    }
    auto measured = k.measure(declaredTruth.counts());
    if (!measured) {
        return measured.error();
    }
    std::vector<std::int64_t> y = std::move(measured).value();
    auto noise = [&]() -> Expected<std::vector<std::int64_t>> {
        if (law->gaussian) {
            // The sampler's Δ only has to pass validation: the privacy is the calibration's ρ, δ.
            return releaseDiscreteGaussianNoise(DiscreteGaussianParams{law->gaussian->sigma2, 1},
                                                y.size(), randomness);
        }
        return releaseDiscreteLaplaceNoise(
            DiscreteLaplaceParams{parseDecimal(spec.epsilon, "epsilon").value(), law->l1}, y.size(),
            randomness);
    }();
    if (!noise) {
        return noise.error();
    }
    std::vector<double> noisy(y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
        std::int64_t v = 0;
        if (__builtin_add_overflow(y[i], (*noise)[i], &v) ||
            std::fabs(static_cast<double>(v)) >= kExactDouble) {
            return Error{
                "strategy release: a measurement leaves the range of exact doubles "
                "(counts too large for this strategy's rounding)"};
        }
        y[i] = v;
        noisy[i] = static_cast<double>(v);
    }
    HistogramRelease out;
    out.values.resize(strategyPublishedCount(plan));
    strategyEstimates(plan, noisy, out.values);
    const bool answers = plan.published == StrategyPublished::WorkloadMarginals;

    ReleaseMetadata md = releaseMetadataCommon(spec, declaredTruth);
    md.l1Sensitivity = law->l1;
    md.l2SensitivitySquared = law->l2Squared;
    md.l2Sensitivity = static_cast<std::int64_t>(
        std::ceil(std::sqrt(static_cast<double>(md.l2SensitivitySquared))));
    md.postProcessing = answers ? "the workload's marginals of the least-squares inference "
                                  "through the strategy (matrix mechanism)"
                                : "least squares through the strategy (matrix mechanism)";
    const std::string rows = groupThousands(static_cast<long long>(y.size()));
    const std::string afterGuarantee =
        "; the bins were fixed before the data were read, the strategy was designed without the "
        "data, and the published counts are computed from the noisy measurements alone.";
    if (law->gaussian) {
        const ReleaseGaussianCalibration& cal = *law->gaussian;
        md.samplerAlgorithm =
            "exact discrete Gaussian from discrete Laplace by rejection (CKS 2020 Algorithm 3) "
            "on each of the strategy's " +
            rows + " integer queries";
        md.noiseParameter = "sigma^2 = " + cal.sigma2.toString();
        md.deltaAchieved = formatShortest(cal.delta);
        md.rho = cal.rho.toString();
        md.notes = cal.warnings;
        md.notes.push_back(cal.method);
        md.guarantee = releasePersonPhrase(spec) +
                       " changes the probability of any released set of measurements by at most "
                       "a factor of e^" +
                       spec.epsilon + " plus " + spec.delta + " ((" + spec.epsilon + ", " +
                       spec.delta + ")-differential privacy, also " + md.rho + "-zCDP)" +
                       afterGuarantee;
    } else {
        md.samplerAlgorithm =
            "exact discrete Laplace by rejection (CKS 2020 Algorithm 2) on each of the "
            "strategy's " +
            rows + " integer queries";
        md.noiseParameter = "scale t = Δ1/ε = " + law->scale.toString();
        auto cost = releaseCost(spec);  // ε as typed, ρ = ε²/2
        if (!cost) {
            return cost.error();
        }
        md.rho = cost->rho;
        md.guarantee = releasePersonPhrase(spec) +
                       " changes the probability of any released set of measurements by at most "
                       "a factor of e^" +
                       spec.epsilon + " (" + spec.epsilon + "-differential privacy)" +
                       afterGuarantee;
    }
    md.intervals = law->intervals;

    StrategyReleaseStatement st;
    st.workload = plan.workload->spec().text();
    st.templateName = plan.templateName;
    st.integerStrategy = k.describe();
    st.scale = k.scale;
    st.strategyL1 = k.l1;
    st.strategyL2Squared = k.l2Squared;
    st.queries = plan.workload->queryCount();
    st.expectedRmse = law->expectedRmse;
    st.roundingLoss = k.designObjective > 0 ? k.roundedObjective / k.designObjective - 1 : 0;
    st.inference =
        answers ? "the workload's marginals M_b·x̂ of the minimum-norm least-squares solution "
                  "x̂ = K⁺y (unbiased: K does not determine the cells, but every published "
                  "marginal lies inside a measured one, so M_b·K⁺K = M_b)"
                : "least squares x̂ = argmin ‖K·x̂ − y‖₂ (unbiased; K has full column rank)";
    if (answers) {
        st.published = "workload answers";
        for (std::size_t b : plan.publishedMarginals) {
            PublishedMarginalStatement pm;
            for (std::size_t i = 0; i < k.shape.size(); ++i) {
                if (b >> i & 1U) {
                    pm.attributes.push_back(i);
                }
            }
            pm.values = marginalCells(k.shape, b);
            st.publishedMarginals.push_back(std::move(pm));
        }
    }
    st.measurements = std::move(y);
    for (const auto& f : k.factors) {
        st.factorDiagonals.push_back(f.diagonal);
        st.factorExtraRows.push_back(f.extra);
    }
    st.marginalWeights = k.marginalWeights;
    for (const auto& part : k.parts) {  // OPT₊: the stacked parts' own entries
        StrategyPartStatement ps;
        ps.rows = part->rows();
        for (const auto& f : part->factors) {
            ps.factorDiagonals.push_back(f.diagonal);
            ps.factorExtraRows.push_back(f.extra);
        }
        ps.marginalWeights = part->marginalWeights;
        st.parts.push_back(std::move(ps));
    }
    md.strategy = std::move(st);
    out.metadata = std::move(md);
    return out;
}

Expected<HistogramRelease> releaseTableThroughStrategy(const ReleaseSpec& spec,
                                                       const StrategyReleasePlan& plan,
                                                       const ContingencyTable& table,
                                                       ReleaseRandomness& randomness) {
    auto cells = declaredTableCells(table);
    if (!cells) {
        return cells.error();
    }
    const auto tableShape = table.shape();
    if (plan.strategy && !std::equal(tableShape.begin(), tableShape.end(),
                                     plan.strategy->shape.begin(), plan.strategy->shape.end())) {
        return Error{"strategy release: the strategy was designed for " +
                     shapeText(plan.strategy->shape) + " cells, the table is " +
                     shapeText({tableShape.begin(), tableShape.end()})};
    }
    ReleaseSpec s = spec;
    s.binsDeclared = true;  // every attribute checked above
    auto release = releaseThroughStrategy(s, plan, *cells, randomness);
    if (!release) {
        return release.error();
    }
    addTableAttributes(release->metadata, table);
    return release;
}

}  // namespace dpx
