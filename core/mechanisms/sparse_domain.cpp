#include "core/mechanisms/sparse_domain.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <optional>

#include "core/base/moments.h"
#include "core/base/noise_distribution.h"
#include "core/base/random_variates.h"
#include "core/base/trial_blocks.h"
#include "core/base/validation.h"

namespace dpx {

namespace {

constexpr CellCount kTwo64 = CellCount{1} << 64;

// The empty cells, each crossing τ independently with probability π, are a Bernoulli(π) process
// over their ranks 0, 1, …, n − 1 (n = p − q, up to 2⁶⁴). It is drawn by its gaps: the number of
// non-crossing empty cells before the next crossing one is G ~ Geometric(π), Pr[G ≥ g] = (1 − π)^g
// = e^{−λg}, λ = −ln(1 − π). Walking the ranks by gaps gives the crossing ranks in increasing
// order in O(number released) time, and is exactly the Bernoulli process, so (Devroye 1986,
// "Non-Uniform Random Variate Generation", §X.4, the waiting-time method) the number of crossing
// ranks below n is Binomial(n, π) and, given that number k, the set of ranks is uniform among the
// k-subsets of [0, n) (every set of k ranks has probability π^k(1 − π)^{n−k}): uniform without
// replacement — the two facts of the header, drawn together.
//
// G can be near 2⁶⁴ (π ≈ 1/(2p)), beyond the 53 bits of a double, so it is drawn in two exact
// parts with M = 2³²: G = M·Q + R, Q = ⌊G/M⌋, R = G mod M. Pr[Q = j, R = r] = π(1−π)^{Mj + r}
// factorises into (1 − ρ)^j·ρ (ρ = 1 − (1 − π)^M) times π(1 − π)^r/ρ, so Q and R are independent,
// Q ~ Geometric(ρ) (Q = ⌊E/(λM)⌋, E ~ Exp(1)) and R is the geometric truncated to [0, M), drawn by
// inverting its cdf: R = ⌊−log1p(U·expm1(−λM))/λ⌋, U uniform on [0, 1). Each part is below 2⁵³
// in the cases that matter (Q ≤ ~2⁴⁰, R < 2³²), so floating-point rounding only moves the
// boundaries between consecutive integers by a relative 2⁻⁵³ (the same accuracy as every
// floating-point sampler here).
class GapSampler {
public:
    explicit GapSampler(double pi)
        : lambda_(-std::log1p(-pi)),
          blockLambda_(lambda_ * kM),
          blockTail_(std::expm1(-blockLambda_)) {}
    // G, or nullopt when it exceeds `limit` (the walk is then past the last empty cell).
    std::optional<CellCount> next(SimulationRng& rng, CellCount limit) {
        const double q = std::floor(rng.exponential() / blockLambda_);
        if (!(q < 0x1.0p64))  // G ≥ 2⁹⁶ > any domain (also catches +∞ when π underflows)
            return std::nullopt;
        const double u = rng.uniform();
        const double x = -std::log1p(u * blockTail_) / lambda_;
        const auto r = static_cast<std::uint64_t>(std::min(std::floor(x), kM - 1));
        const CellCount g = CellCount{static_cast<std::uint64_t>(q)} * CellCount{1ULL << 32} + r;
        if (g > limit)
            return std::nullopt;
        return g;
    }

private:
    static constexpr double kM = 0x1.0p32;
    double lambda_, blockLambda_, blockTail_;
};

}  // namespace

double defaultSparseDomainThreshold(double epsilon, CellCount cells) {
    if (cells < kTwo64) {
        // The same value as the dense page's default for every p it can hold.
        return defaultSparseThreshold(epsilon, static_cast<std::size_t>(cells));
    }
    // p = 2⁶⁴: ln p = 64 ln 2, in long double.
    return static_cast<double>(2.0L / static_cast<long double>(epsilon) * 64.0L * std::log(2.0L));
}

double sparseDomainThreshold(const SparseHistogramParams& params, CellCount cells) {
    return params.threshold ? *params.threshold
                            : defaultSparseDomainThreshold(params.epsilon, cells);
}

Expected<SparseDomainExpectedError> sparseDomainExpectedError(const ContingencyTable& table,
                                                              const SparseHistogramParams& params) {
    if (auto s = params.validate(); !s)
        return s.error();
    if (table.cellCount() == 0)
        return Error{"the table has no cells"};
    SparseDomainExpectedError r;
    r.cells = table.cellCount();
    r.occupied = table.occupiedCount();
    r.scale = params.noiseScale();
    r.threshold = sparseDomainThreshold(params, r.cells);
    const double empty = cellCountDouble(r.cells - r.occupied);
    const NoiseDistribution laplace = NoiseDistribution::laplace(r.scale);
    r.emptyReleaseProbability = laplace.survival(r.threshold);  // ½e^{−τ/b}
    r.expectedReleasedEmpty = empty * r.emptyReleaseProbability;
    r.emptyL1 = empty * sparseCellExpectedL1(0, r.scale, r.threshold);
    table.forEachOccupied([&](std::uint64_t, std::int64_t c) {
        const auto h = static_cast<double>(c);
        r.occupiedL1 += sparseCellExpectedL1(h, r.scale, r.threshold);
        r.expectedReleasedOccupied += laplace.survival(r.threshold - h);
    });
    r.thresholdedL1 = r.emptyL1 + r.occupiedL1;
    r.plainLaplaceL1 = cellCountDouble(r.cells) * r.scale;
    return r;
}

// Values of the crossing empty cells: for τ ≥ 0 and x ≥ 0, Pr[L > τ + x | L > τ] =
// ½e^{−(τ+x)/b} / ½e^{−τ/b} = e^{−x/b}, so L given L > τ is τ + Exp(b) (the upper tail of the
// Laplace is exponential beyond 0; τ < 0 is refused by SparseHistogramParams::validate).
Expected<SparseDomainRelease> simulateSparseDomain(const ContingencyTable& table,
                                                   const SparseHistogramParams& params,
                                                   SimulationRng& rng) {
    auto expected = sparseDomainExpectedError(table, params);
    if (!expected)
        return expected.error();
    const double b = expected->scale, tau = expected->threshold;
    if (expected->expectedReleasedEmpty > kMaxSparseDomainExpectedReleased) {
        return Error{"at τ = " + formatNumber(tau) + " about " +
                     formatNumber(expected->expectedReleasedEmpty) + " of the " +
                     cellCountText(expected->cells - expected->occupied) +
                     " empty cells would be released (at most " +
                     formatNumber(kMaxSparseDomainExpectedReleased) +
                     "); raise τ — the default for this domain is (2/ε)·ln p = " +
                     formatNumber(defaultSparseDomainThreshold(params.epsilon, expected->cells))};
    }
    SparseDomainRelease out;
    out.domainCells = expected->cells;
    out.occupiedCells = expected->occupied;
    out.threshold = tau;
    out.scale = b;

    // Occupied cells: the dense rule, one Laplace draw each, in index order.
    const NoiseDistribution laplace = NoiseDistribution::laplace(b);
    std::vector<std::uint64_t> occupied;
    occupied.reserve(static_cast<std::size_t>(expected->occupied));
    std::vector<std::pair<std::uint64_t, double>> fromOccupied;
    table.forEachOccupied([&](std::uint64_t i, std::int64_t c) {
        occupied.push_back(i);
        const double y = static_cast<double>(c) + sampleNoise(laplace, rng);
        if (y > tau)
            fromOccupied.emplace_back(i, y);
    });

    // Empty cells: the Bernoulli(π) process over their ranks (GapSampler), each rank mapped to
    // its cell by skipping the occupied cells: the empty cell of rank r is r + j, j the number of
    // occupied cells below it (the smallest fixed point of j = #{occupied ≤ r + j}); ranks come in
    // increasing order, so j only grows.
    std::vector<std::pair<std::uint64_t, double>> fromEmpty;
    const CellCount n = expected->cells - expected->occupied;
    if (n > 0 && expected->emptyReleaseProbability > 0) {
        GapSampler gaps(expected->emptyReleaseProbability);
        CellCount rank = 0;  // the first rank not yet walked past
        std::size_t j = 0;
        while (true) {
            const auto g = gaps.next(rng, n - rank - 1);
            if (!g)
                break;
            rank += *g;  // < n
            const auto r = static_cast<std::uint64_t>(rank);
            while (j < occupied.size() && occupied[j] <= r + j)
                ++j;
            fromEmpty.emplace_back(r + j, tau + b * rng.exponential());
            rank += 1;
            if (rank >= n)
                break;
        }
    }
    out.releasedOccupied = fromOccupied.size();
    out.releasedEmpty = fromEmpty.size();
    out.cells.resize(fromOccupied.size() + fromEmpty.size());
    std::merge(fromOccupied.begin(), fromOccupied.end(), fromEmpty.begin(), fromEmpty.end(),
               out.cells.begin(), [](const auto& x, const auto& y) { return x.first < y.first; });
    return out;
}

namespace {

constexpr std::uint64_t kMaxDomainTrials = 10'000'000;
constexpr std::uint64_t kDomainTrialBlock = 4;

// Binomial(n, ½) for n up to 2⁶⁴ (binomial() takes n ≤ 2⁶²: Bin(a + b, p) = Bin(a, p) + Bin(b, p)).
CellCount binomialHalf(SimulationRng& rng, CellCount n) {
    CellCount k = 0;
    while (n > 0) {
        const auto chunk = static_cast<std::uint64_t>(std::min<CellCount>(n, kMaxBinomialTrials));
        k += binomial(rng, chunk, 0.5);
        n -= chunk;
    }
    return k;
}

// ‖h − out‖₁ of a thresholded release: Σ_occupied h, corrected cell by cell where a value was
// released (|y − h| instead of h; h = 0 for an empty cell).
double releaseL1(const ContingencyTable& table, const SparseDomainRelease& rel,
                 double occupiedTotal) {
    double err = occupiedTotal;
    for (const auto& [cell, y] : rel.cells) {
        const auto h = static_cast<double>(table.count(cell));
        err += std::abs(y - h) - h;
    }
    return err;
}

}  // namespace

Expected<SparseDomainMonteCarlo> sparseDomainMonteCarlo(const ContingencyTable& table,
                                                        const SparseHistogramParams& params,
                                                        const MonteCarloOptions& options) {
    auto exact = sparseDomainExpectedError(table, params);
    if (!exact)
        return exact.error();
    if (options.trials < 2 || options.trials > kMaxDomainTrials) {
        return Error{"trials must be in [2, " + groupThousands(kMaxDomainTrials) + "] (got " +
                     std::to_string(options.trials) + ")"};
    }
    const double b = exact->scale;
    const CellCount empty = exact->cells - exact->occupied;
    double occupiedTotal = 0;
    std::vector<double> occupiedCounts;
    occupiedCounts.reserve(static_cast<std::size_t>(exact->occupied));
    table.forEachOccupied([&](std::uint64_t, std::int64_t c) {
        occupiedTotal += static_cast<double>(c);
        occupiedCounts.push_back(static_cast<double>(c));
    });
    // Refuse a threshold that would release too many empty cells before starting (the same
    // message as one release).
    SparseDomainMonteCarlo out;
    {
        SimulationRng rng(options.seed, 0);
        auto first = simulateSparseDomain(table, params, rng);
        if (!first)
            return first.error();
        out.firstRelease = std::move(*first);
    }
    const std::uint64_t trials = options.trials;
    SparseMonteCarloResult& r = out.mc;
    r.thresholdedL1.assign(trials, 0.0);
    r.clampedL1.assign(trials, 0.0);
    std::vector<double> releasedT(trials, 0.0), releasedC(trials, 0.0);
    std::atomic<bool> failed{false};
    const NoiseDistribution laplace = NoiseDistribution::laplace(b);
    const auto kept = static_cast<std::size_t>(
        runTrialBlocks(trials, kDomainTrialBlock, options.threads, options.stop, options.progress,
                       [&](std::uint64_t t) {
                           const auto ti = static_cast<std::size_t>(t);
                           // Stream t: the thresholded release first (trial 0's is firstRelease),
                           // then the clamped method's draws.
                           SimulationRng rng(options.seed, t);
                           auto rel = simulateSparseDomain(table, params, rng);
                           if (!rel) {
                               failed = true;  // cannot happen after the first release succeeded
                               return;
                           }
                           r.thresholdedL1[ti] = releaseL1(table, *rel, occupiedTotal);
                           releasedT[ti] = static_cast<double>(rel->cells.size());
                           double errC = 0, nC = 0;
                           for (double h : occupiedCounts) {
                               const double y = h + sampleNoise(laplace, rng);
                               if (y > 0) {
                                   errC += std::abs(y - h);
                                   nC += 1;
                               } else {
                                   errC += h;
                               }
                           }
                           const CellCount k = binomialHalf(rng, empty);
                           if (k > 0)
                               errC += b * gammaVariate(rng, cellCountDouble(k));
                           r.clampedL1[ti] = errC;
                           releasedC[ti] = nC + cellCountDouble(k);
                       }));
    if (failed)
        return Error{"a simulated release failed"};
    r.cancelled = kept < trials;
    r.trials = kept;
    for (auto* v : {&r.thresholdedL1, &r.clampedL1, &releasedT, &releasedC})
        v->resize(kept);
    std::tie(r.meanThresholded, r.seThresholded) = meanAndStandardError(r.thresholdedL1);
    std::tie(r.meanClamped, r.seClamped) = meanAndStandardError(r.clampedL1);
    r.meanReleasedThresholded = meanAndStandardError(releasedT).first;
    r.meanReleasedClamped = meanAndStandardError(releasedC).first;

    // The exact values in the dense form the page draws.
    SparseExpectedError& ex = r.expected;
    ex.threshold = exact->threshold;
    ex.scale = b;
    ex.cells = exact->cells > std::numeric_limits<std::size_t>::max()
                   ? std::numeric_limits<std::size_t>::max()
                   : static_cast<std::size_t>(exact->cells);
    ex.occupied = static_cast<std::size_t>(exact->occupied);
    ex.thresholdedL1 = exact->thresholdedL1;
    // E max(L, 0) = b/2 per empty cell (sparseCellExpectedL1(0, b, 0)).
    ex.clampedL1 = cellCountDouble(empty) * sparseCellExpectedL1(0, b, 0);
    for (double h : occupiedCounts)
        ex.clampedL1 += sparseCellExpectedL1(h, b, 0);
    ex.plainLaplaceL1 = exact->plainLaplaceL1;
    const double p = cellCountDouble(exact->cells), q = static_cast<double>(exact->occupied);
    ex.boundAtThreshold =
        (p - q) * 0.5 * std::exp(-ex.threshold / b) * (ex.threshold + b) + q * (ex.threshold + b);
    if (!params.threshold) {
        // ((2q+1)/ε)(ln p + 1), ln p in long double for p = 2⁶⁴.
        const long double lnP = exact->cells == kTwo64
                                    ? 64.0L * std::log(2.0L)
                                    : std::log(static_cast<long double>(exact->cells));
        ex.seedBound = (2 * q + 1) / params.epsilon * static_cast<double>(lnP + 1.0L);
    }
    if (2 * exact->occupied > exact->cells) {
        ex.warnings.push_back(
            "more than half the cells are occupied: thresholding is meant for sparse "
            "histograms and can be worse than clamping here (Hall 2012, §2.4.1)");
    }
    r.warnings = ex.warnings;
    if (r.cancelled) {
        r.warnings.push_back("cancelled after " + std::to_string(kept) + " of " +
                             std::to_string(trials) + " trials");
    }
    out.exact = std::move(*exact);
    return out;
}

}  // namespace dpx
