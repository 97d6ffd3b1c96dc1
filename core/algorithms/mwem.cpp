// MWEM (Hardt, Ligett & McSherry, "A simple and practical algorithm for differentially private
// data release", NIPS 2012) with DPBench's settings (Hay et al. 2016; ektelo Mwem(0.5, 10, m,
// shape, True, 100)): T rounds, each spending ε/T — ratio·ε/T on choosing the workload query the
// current estimate answers worst (exponential mechanism, score |q(x) − q(x̂)|, sensitivity
// Δ = max|w_q|, P ∝ exp(ε_sel·score/(2Δ)); already measured queries score 0), the rest on
// measuring it with Laplace(Δ/ε_meas) — then `sweeps` passes of the multiplicative-weights
// update over every measurement so far: x̂_i ← x̂_i·exp(w_q[i∈q]·(y_q − q(x̂))/(2m)), rescaled to
// total m. The estimate starts uniform at m/N. The true total m is used as if public (as in the
// reference code): MWEM is ε-DP only for neighbours of equal size (info().totalIsPublic).
//
// Speed: every update multiplies a box by one factor, so x̂ is (m/N)·exp(Σ_q a_q[i∈q])/Z and
// cells inside the same measured boxes hold the same value. The cells are grouped by the set of
// measured boxes holding them (≤ 2^T groups, usually far fewer); the sweeps run on the groups
// (O(groups) per update, the same arithmetic as the dense update), and x̂ is written out once per
// round: O(cells) per measured query, never a dense query row.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "core/algorithms/algorithm.h"
#include "core/algorithms/registry_list.h"
#include "core/base/noise_distribution.h"
#include "core/base/simulation_rng.h"
#include "core/mechanisms/exponential_mechanism.h"

namespace dpx {

namespace {

// Calls f(cell) for every cell of the box (C order).
template <class F>
void forEachCell(const DomainShape& shape, const RangeQuery& q, F&& f) {
    if (shape.size() == 1) {
        for (auto i = q.box[0].lo; i <= q.box[0].hi; ++i) {
            f(static_cast<std::size_t>(i));
        }
        return;
    }
    const std::size_t cols = shape[1];
    for (auto r = q.box[0].lo; r <= q.box[0].hi; ++r) {
        for (auto c = q.box[1].lo; c <= q.box[1].hi; ++c) {
            f(static_cast<std::size_t>(r) * cols + static_cast<std::size_t>(c));
        }
    }
}

class Mwem final : public Algorithm {
public:
    const AlgorithmInfo& info() const override {
        static const AlgorithmInfo i{
            "MWEM",
            "Multiplicative weights with the exponential mechanism",
            "Hardt, Ligett & McSherry, NIPS 2012",
            {1, 2},
            true,
            true,
            true,
            {{"rounds", 10, 1, 200, true, "number of rounds T (one query measured per round)"},
             {"ratio", 0.5, 0.01, 0.99, false,
              "fraction of each round's budget spent on choosing the query"},
             {"sweeps", 100, 1, 10000, true,
              "multiplicative-weights passes over all measurements after each round"}},
            "docs/algorithms/mwem.md"};
        return i;
    }

    Expected<AlgorithmRun> run(const AlgorithmContext& context) const override {
        auto values = checkAlgorithmContext(info(), context);
        if (!values) {
            return values.error();
        }
        const Workload& w = *context.workload;
        if (!w.explicitQueries()) {
            return Error{"MWEM: the workload has " + std::to_string(w.queryCount()) +
                         " queries; MWEM scores every query each round and handles at most " +
                         std::to_string(kMaxExplicitQueries)};
        }
        const auto rounds = static_cast<std::size_t>(values->at("rounds"));
        const double ratio = values->at("ratio");
        const auto sweeps = static_cast<std::size_t>(values->at("sweeps"));
        const std::size_t n = context.x.size();
        const auto nq = static_cast<std::size_t>(w.queryCount());
        SimulationRng& rng = *context.rng;

        double m = 0;
        for (double v : context.x) {
            m += v;
        }
        std::vector<RangeQuery> queries(nq);
        double sensitivity = 0;
        for (std::size_t i = 0; i < nq; ++i) {
            queries[i] = w.query(i);
            sensitivity = std::max(sensitivity, std::abs(queries[i].weight));
        }
        if (sensitivity == 0) {
            return Error{"MWEM: every query of the workload has weight 0"};
        }
        auto truth = w.answers(context.x);
        if (!truth) {
            return truth.error();
        }
        const double epsRound = context.epsilon / static_cast<double>(rounds);
        const double epsSelect = ratio * epsRound;
        const double epsMeasure = epsRound - epsSelect;
        const NoiseDistribution noise = NoiseDistribution::laplace(sensitivity / epsMeasure);

        AlgorithmRun out;
        out.estimate.assign(n, n > 0 ? m / static_cast<double>(n) : 0.0);
        // Groups of cells by the set of measured boxes holding them.
        std::vector<std::uint32_t> group(n, 0);
        std::vector<double> groupCells{static_cast<double>(n)};
        std::vector<double> groupValue{out.estimate.empty() ? 0.0 : out.estimate[0]};
        std::vector<std::vector<std::uint32_t>> inQuery;  // groups inside each measured query
        std::vector<double> measured, measuredWeight;
        std::vector<char> chosen(nq, 0);
        for (std::size_t t = 0; t < rounds; ++t) {
            if (context.stop.stop_requested()) {
                return Error{"MWEM: cancelled"};
            }
            // Selection.
            auto estimateAnswers = w.answers(out.estimate);
            if (!estimateAnswers) {
                return estimateAnswers.error();
            }
            std::vector<double> score(nq);
            for (std::size_t i = 0; i < nq; ++i) {
                score[i] = chosen[i] ? 0.0 : std::abs((*truth)[i] - (*estimateAnswers)[i]);
            }
            const std::vector<double> prob =
                exponentialMechanismProbabilities(score, epsSelect / (2 * sensitivity));
            double u = rng.uniform();
            std::size_t pick = nq - 1;
            for (std::size_t i = 0; i < nq; ++i) {
                u -= prob[i];
                if (u < 0) {
                    pick = i;
                    break;
                }
            }
            chosen[pick] = 1;
            // Measurement.
            measured.push_back((*truth)[pick] + sampleNoise(noise, rng));
            measuredWeight.push_back(queries[pick].weight);
            // Split the groups by the new box: a cell of group g inside it moves to group g'.
            constexpr std::uint32_t kNone = 0xFFFFFFFFU;
            std::vector<std::uint32_t> split(groupCells.size(), kNone);
            std::vector<std::uint32_t> inside;  // the groups split off, in creation order
            forEachCell(context.shape, queries[pick], [&](std::size_t cell) {
                const std::uint32_t g = group[cell];
                if (split[g] == kNone) {
                    split[g] = static_cast<std::uint32_t>(groupCells.size());
                    inside.push_back(split[g]);
                    groupCells.push_back(0);
                    groupValue.push_back(groupValue[g]);
                }
                groupCells[g] -= 1;
                groupCells[split[g]] += 1;
                group[cell] = split[g];
            });
            // Earlier queries hold the new groups split from their groups.
            for (auto& list : inQuery) {
                const std::size_t before = list.size();
                for (std::size_t i = 0; i < before; ++i) {
                    if (list[i] < split.size() && split[list[i]] != kNone) {
                        list.push_back(split[list[i]]);
                    }
                }
            }
            inQuery.push_back(std::move(inside));
            // Multiplicative weights over the history (none when m = 0: x̂ stays 0).
            for (std::size_t s = 0; s < (m > 0 ? sweeps : 0); ++s) {
                for (std::size_t h = 0; h < measured.size(); ++h) {
                    double answer = 0;
                    for (std::uint32_t g : inQuery[h]) {
                        answer += groupCells[g] * groupValue[g];
                    }
                    answer *= measuredWeight[h];
                    const double factor =
                        std::exp(measuredWeight[h] * (measured[h] - answer) / (2 * m));
                    for (std::uint32_t g : inQuery[h]) {
                        groupValue[g] *= factor;
                    }
                    double total = 0;
                    for (std::size_t g = 0; g < groupValue.size(); ++g) {
                        total += groupCells[g] * groupValue[g];
                    }
                    const double rescale = total > 0 ? m / total : 0.0;
                    for (double& v : groupValue) {
                        v *= rescale;
                    }
                }
            }
            for (std::size_t i = 0; i < n; ++i) {
                out.estimate[i] = groupValue[group[i]];
            }
            out.spent.push_back({"round " + std::to_string(t + 1) + " selection", epsSelect});
            out.spent.push_back({"round " + std::to_string(t + 1) + " measurement", epsMeasure});
        }
        out.summary = "MWEM: " + std::to_string(rounds) + " rounds, " +
                      std::to_string(groupValue.size()) + " cell groups";
        return out;
    }
};

}  // namespace

const Algorithm& mwemAlgorithm() {
    static const Mwem a;
    return a;
}

}  // namespace dpx
