// Range queries under local DP (issue #7; seed 001 ch. 5, Cormode, Kulkarni & Srivastava,
// "Answering range queries under local differential privacy", VLDB 2019). No Qt.
//
// Two collection protocols over an ordered domain {0, …, D−1}:
//  * HH_B, hierarchical histograms: the domain is padded to B^h ≥ D and organised as a complete
//    B-ary tree (level 0 the root, level h the leaves, level ℓ has B^ℓ nodes). Each user samples
//    ONE level ℓ ∈ {1, …, h} uniformly (the root is known: its fraction is 1) and reports the node
//    of that level containing their value through a frequency oracle (any ldp::Protocol) over the
//    B^ℓ nodes (seed 001 §5.4.1). A range is answered by summing the nodes of its B-adic
//    decomposition; optionally after the least-squares consistency step of Hay et al. 2010
//    (seed 001 §5.4.2).
//  * HaarHRR: the Haar wavelet details d_u = f(left half of u) − f(right half of u) of the
//    binary tree over D′ = 2^h ≥ D leaves. Each user samples one height l ∈ {1, …, h}, where
//    their details form a signed one-hot vector over the D′/2^l nodes, and reports one
//    Hadamard coefficient of it through binary RR (seed 001 §5.4.3; HRR of §4.7).
//
// Estimates are fractions of the population (the range answer R[a,b] = (1/N)·#{i : a ≤ x_i ≤ b}).
// Per level the collector divides by the realised number of users N_ℓ of that level ("we work in
// terms of fractions rather than counts", seed 001 §5.4.1): the level-sampling factor h enters
// through N_ℓ ≈ N/h, which is why every variance below carries a factor h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/ldp/protocols.h"

namespace dpx::ldp {

// A closed range [lo, hi] of domain values.
struct Range {
    std::size_t lo = 0;
    std::size_t hi = 0;
    std::size_t length() const { return hi - lo + 1; }  // precondition lo ≤ hi
};

// ---------------------------------------------------------------------------------------------
// Hierarchy geometry and B-adic decomposition (seed 001 §5.4, Facts 2–3).

struct Hierarchy {
    std::size_t domain = 0;                              // D ≥ 2
    std::size_t branching = 0;                           // B ≥ 2
    std::size_t height = 0;                              // h ≥ 1: the smallest h with B^h ≥ D
    std::size_t paddedDomain = 0;                        // B^h ≤ kMaxDomain
    std::size_t nodesAt(std::size_t level) const;        // B^level, level ∈ [0, h]
    std::size_t leavesPerNode(std::size_t level) const;  // B^(h − level)
};
// Errors: D < 2, B < 2, B^h > kMaxDomain.
Expected<Hierarchy> makeHierarchy(std::size_t domain, std::size_t branching);

struct TreeNode {
    std::size_t level = 0;  // 0 = root … h = leaves
    std::size_t index = 0;  // 0 … B^level − 1, left to right
    bool operator==(const TreeNode&) const = default;
};
// The leaf range a node covers: [index·B^(h−level), (index+1)·B^(h−level) − 1] (may extend into
// the padding ≥ D).
Range nodeRange(const Hierarchy& shape, const TreeNode& node);

// The canonical B-adic decomposition of [lo, hi] (hi < D): disjoint B-adic intervals, left to
// right, each the largest B-adic interval that starts where the previous ended and fits (greedy;
// this is the decomposition of the seed's example D = 32, B = 2, [2,22] = [2,3] ∪ [4,7] ∪ [8,15]
// ∪ [16,19] ∪ [20,21] ∪ [22,22]). Errors: lo > hi, hi ≥ D.
Expected<std::vector<TreeNode>> badicDecomposition(const Hierarchy& shape, Range range);

// Upper bound on the number of nodes of that decomposition for a range of length r:
// 1 if r = 1, else 2(B−1)·⌈log_B r⌉ (at most B−1 nodes per level on each fringe, and only the
// levels whose node size B^j < r or a single node of size r are used). Derived here: the seed's
// Fact 3, (B−1)(2⌈log_B r⌉ − 1), is garbled/wrong (it gives 1 for the unaligned [1,2], B = 2,
// which needs 2 nodes). Never exceeds 2(B−1)·h. Errors: r = 0, r > B^h.
Expected<std::size_t> badicNodeBound(const Hierarchy& shape, std::size_t rangeLength);

// ---------------------------------------------------------------------------------------------
// Tree values: levels[ℓ][k] is the (estimated) fraction of users in node (ℓ, k), ℓ = 0…h.
using TreeLevels = std::vector<std::vector<double>>;

// The exact node fractions of a data set (no noise): the reference for tests and previews.
// Errors: counts.size() ≠ D, negative counts, no users.
Expected<TreeLevels> exactTree(const Hierarchy& shape, std::span<const std::int64_t> trueCounts);

// Least-squares consistency (Hay, Rastogi, Miklau & Suciu, VLDB 2010, Thm 3; seed 001 §5.4.2),
// for any B, under the seed's assumption that all node estimates have equal variance:
//  stage 1 (bottom-up weighted averaging; i = height with leaves at i = 1):
//     z(v) = (B^i − B^(i−1))/(B^i − 1)·y(v) + (B^(i−1) − 1)/(B^i − 1)·Σ_{children u} z(u),
//  stage 2 (top-down mean consistency):
//     x(v) = z(v) + (x(parent) − Σ_{siblings u of v, v included} z(u))/B.
// RootMode::Observed: the root value is one more noisy observation (Hay et al. exactly);
// the output is argmin Σ_v (x_v − y_v)² over consistent trees.
// RootMode::Known: the root value is exact (for HH_B the root fraction is 1 and no user reports
// it): z(root) = y(root), and the output is argmin Σ_{v ≠ root} (x_v − y_v)² over consistent
// trees with x_root = y_root (the Lagrange solution; checked against a dense solve in the tests).
// Output: children sum exactly (up to rounding) to their parent. Errors: B < 2, a level of the
// wrong size, non-finite values.
enum class RootMode { Known, Observed };
Expected<TreeLevels> enforceConsistency(std::size_t branching, const TreeLevels& levels,
                                        RootMode rootMode = RootMode::Known);

// ---------------------------------------------------------------------------------------------
// HH_B collection.

struct HierarchicalConfig {
    // The frequency oracle used at every level: protocol, ε, bits (DBitFlip). oracle.domain is
    // the data domain D; the oracle of level ℓ runs with domain B^ℓ.
    ProtocolSpec oracle{Protocol::OUE, 1.0986122886681098, 2, 1};  // ε = ln 3 (seed default)
    std::size_t branching = 2;                                     // B ≥ 2
    // Errors: invalid oracle at some level (e.g. RR, which is binary only; DBitFlip with more
    // bits than the B nodes of level 1), bad B, B^h > kMaxDomain.
    Status validate() const;
};

struct HierarchicalEstimate {
    Hierarchy shape;
    TreeLevels levels;                      // levels[0] = {1}; levels[ℓ] the estimated fractions
    std::vector<std::uint64_t> levelUsers;  // N_ℓ (index 0 unused, 0)
    std::uint64_t users = 0;
    bool consistent = false;  // true after makeConsistent
    bool cancelled = false;
    std::vector<std::string> warnings;  // e.g. a level that no user sampled
};

// One simulated HH_B collection from the true counts θ (Σθ = N, size D). Level assignment is
// exact: each value's θ_v users are split over the h levels by a multinomial(θ_v; 1/h, …, 1/h)
// (sequential binomials), so N_ℓ is multinomial(N; 1/h, …); then ldp::simulateAggregate draws
// each level's reports (exact in distribution for every protocol but OLH, see ldp.h). A level
// with N_ℓ = 0 gets the uniform 1/B^ℓ and a warning. Errors: invalid config, counts.size() ≠ D,
// negative counts, N = 0, errors of the oracle.
Expected<HierarchicalEstimate> simulateHierarchical(const HierarchicalConfig& config,
                                                    std::span<const std::int64_t> trueCounts,
                                                    std::uint64_t seed,
                                                    const std::stop_token& stop = {});

// The same estimate after enforceConsistency(B, levels, RootMode::Known) (HH_B^CI in the seed).
Expected<HierarchicalEstimate> makeConsistent(const HierarchicalEstimate& estimate);

// ---------------------------------------------------------------------------------------------
// HaarHRR collection.

struct HaarConfig {
    double epsilon = 1.0986122886681098;  // finite > 0 (ε = ln 3, the seed's default)
    std::size_t domain = 2;               // D ≥ 2; padded to D′ = 2^⌈log2 D⌉ ≤ kMaxDomain
    Status validate() const;
};

struct HaarEstimate {
    std::size_t domain = 0;        // D
    std::size_t paddedDomain = 0;  // D′ = 2^h
    std::size_t height = 0;        // h
    // details[l][k], l = 1…h (details[0] empty): d̂ of the node k at height l (covering leaves
    // [k·2^l, (k+1)·2^l − 1]) = estimated f(left half) − f(right half). The average coefficient
    // (total fraction 1) is known and not estimated.
    std::vector<std::vector<double>> details;
    std::vector<std::uint64_t> levelUsers;  // N_l (index 0 unused)
    std::uint64_t users = 0;
    bool cancelled = false;
    std::vector<std::string> warnings;
};

// The exact Haar details of a data set (no noise). Errors as exactTree.
Expected<HaarEstimate> exactHaar(std::size_t domain, std::span<const std::int64_t> trueCounts);

// One simulated HaarHRR collection, per user (O(N + D′ log D′)): user with value x samples l
// uniformly in {1…h}; their level-l vector is s·e_k with k = x >> l and s = +1 if x lies in the
// left half of node k, −1 otherwise; they sample a row j of the (D′/2^l)-point Hadamard matrix
// uniformly and send (l, j, RR(s·(−1)^popcount(j & k))) with p = e^ε/(e^ε+1). The collector
// computes d̂_k = [Σ_j H[j][k]·S_j]/(N_l·(2p−1)) with S_j the sum of the ±1 reports on row j
// (unbiased: E[report | j] = (2p−1)·s·H[j][k] and H·H = m·I). Errors: bad config, counts.size()
// ≠ D, negative counts, N = 0.
Expected<HaarEstimate> simulateHaarHrr(const HaarConfig& config,
                                       std::span<const std::int64_t> trueCounts, std::uint64_t seed,
                                       const std::stop_token& stop = {});

// ---------------------------------------------------------------------------------------------
// Answers. Range answers are estimated fractions (may be negative or exceed 1).
//  HH:   Σ of the decomposition's nodes (the root counts as exactly 1).
//  Haar: R[a,b] = P(b) − P(a−1) with the prefix P(x) = (x+1)/D′ + Σ_l d̂_{u_l}·(O_L − O_R)/2^l,
//        u_l the height-l node containing x and O_L, O_R the overlaps of [0, x] with its halves
//        (from f_i = 1/D′ + Σ_{u ∋ i} ±d_u/2^{l(u)}; seed 001 §5.4.3, derived here because the
//        printed formula is garbled).
// Errors: lo > hi, hi ≥ D, an estimate of the wrong shape.
Expected<double> answerRange(const HierarchicalEstimate& estimate, Range range);
Expected<double> answerRange(const HaarEstimate& estimate, Range range);

// P̂(x) = R̂[0, x] for x = 0 … D−1.
Expected<std::vector<double>> allPrefixes(const HierarchicalEstimate& estimate);
Expected<std::vector<double>> allPrefixes(const HaarEstimate& estimate);

// q-quantile by binary search over prefix queries (seed 001 §5.4.4): the x found satisfies
// P̂(x) ≥ q and (x = 0 or P̂(x−1) < q), i.e. it is the smallest x with P̂(x) ≥ q whenever P̂ is
// non-decreasing (always true without noise; noisy prefixes need not be monotone, and then the
// search returns one crossing of level q in O(log D) prefix queries). If P̂(D−1) < q it returns
// D−1. Errors: q ∉ [0, 1] or NaN.
Expected<std::size_t> quantile(const HierarchicalEstimate& estimate, double q);
Expected<std::size_t> quantile(const HaarEstimate& estimate, double q);
// The same search over given prefixes, prefixes[x] = P̂(x) for x = 0 … D−1 (the flat baseline's
// running sums of frequency estimates, or the true prefix fractions). Errors: no prefixes,
// q ∉ [0, 1] or NaN.
Expected<std::size_t> quantileOfPrefixes(std::span<const double> prefixes, double q);

// ---------------------------------------------------------------------------------------------
// Variance bounds (Var of one range answer, fractions; V_F the per-user variance factor of the
// oracle, i.e. Var[f̂_j] = V_F/N for N users; seed 001 §5.2). α = max(1, ⌈log_B r⌉).
//  HH_B (Thm 6 with p_ℓ = 1/h, eq. 5.1):   2(B−1)·V_F·h·α/N.
//  HH_B + consistency (eq. 5.2's derivation): (B+1)/2·V_F·h·α/N. (The seed's argument for this
//       one is per level and heuristic; the tests check it against simulation.)
//  HaarHRR (eq. 5.3):                     ½·h²·V_F/N with h = log2 D′ and V_F of HRR,
//       1/(2p−1)² = ((e^ε+1)/(e^ε−1))² (derived: per user Var = ‖w‖²/(2p−1)² − (w·d)², ≤ 2
//       weights of size ≤ ½ per level; note the seed quotes V_F = 4e^ε/(e^ε−1)² (OUE's, f → 0),
//       which is smaller than HRR's by exactly 1 and would not bound HaarHRR).
// Seed's α = ⌈log_B r⌉ gives 0 for r = 1; a point query costs one node, hence the max.
// Errors: r = 0 or > padded domain, V_F ≤ 0 or non-finite, N = 0.
Expected<double> hierarchicalVarianceBound(const Hierarchy& shape, std::size_t rangeLength,
                                           double varianceFactor, std::uint64_t users,
                                           bool consistent);
Expected<double> haarVarianceBound(std::size_t domain, double epsilon, std::uint64_t users);

// Var of the flat baseline's range answers (seed 001 §5.3.2, Fact 1: a range is the sum of the
// per-value estimates), one value per range: Σ_{j = lo…hi} valueVariances[j]. Exact when the
// per-value estimates are uncorrelated (OUE, SUE, HRR, dBitFlip, OLH aggregate), an upper bound
// under negative covariances (RR, GRR). Errors: no variances, a range beyond them or lo > hi.
Expected<std::vector<double>> flatRangeVariances(std::span<const double> valueVariances,
                                                 std::span<const Range> ranges);

// Var[f̂_i] of HaarHRR's leaf estimates f̂_i = P̂(i) − P̂(i − 1), i = 0 … D−1, to first order in
// 1/N (derived here): leaf i is 1/D′ + Σ_l ±d_{u_l(i)}/2^l over the h heights; with N/h users per
// height and V = 1/(2p−1)² = coth²(ε/2), Var[d̂_u] = (V − d_u²)·h/N, and the uniform split of the
// users over the heights removes f_i(1 − f_i)/N (delta method, as for HH):
//     Var[f̂_i] ≈ (h/N)·Σ_l (V − d_{u_l(i)}²)/4^l − f_i(1 − f_i)/N   (clamped at 0).
// Leaves share coefficients, so their estimates are correlated. Errors: bad config,
// counts.size() ≠ D, negative counts, N = 0.
Expected<std::vector<double>> haarLeafVariances(const HaarConfig& config,
                                                std::span<const std::int64_t> trueCounts);

// V_F of the HH oracle: max over levels ℓ = 1…h and f ∈ {0, 0.01, …, 1} of
// N·estimatorVariance(oracle at domain B^ℓ, N, f) (N = 10^6), so that it bounds every node.
// (For OUE this is (e^ε+1)²/(e^ε−1)², attained at f = 1; the seed's 4e^ε/(e^ε−1)² is the f → 0
// value. A range's nodes are disjoint, so the f-dependent part adds at most slope·h/N in total.)
Expected<double> hierarchicalVarianceFactor(const HierarchicalConfig& config);

// Predicted Var of one HH range answer without consistency, two parts:
//  oracle noise:  Σ over the decomposition's nodes of estimatorVariance(oracle at level ℓ, N/h,
//                 f_node) with the true node fractions;
//  level split:   [h·Σ_ℓ a_ℓ(1 − a_ℓ) − r(1 − r)]/N, with a_ℓ the true fraction covered by the
//                 decomposition's nodes at level ℓ ≥ 1 and r = Σ_ℓ a_ℓ: each level's users are a
//                 random subset, so its node fractions differ from the population's (derived here
//                 by the delta method over the uniform level choice of every user; a single node
//                 of fraction f gets f(1 − f)(h − 1)/N; the oracle part alone is 20% low at ε = 3).
// Exact to first order in 1/N for protocols whose node estimates at a level are uncorrelated
// (OUE, SUE, OLH aggregate, HRR: uncorrelated); an upper bound for GRR (negative covariances).
Expected<double> hierarchicalPredictedVariance(const HierarchicalConfig& config,
                                               std::span<const std::int64_t> trueCounts,
                                               Range range);
// The same for a workload, one value per range (the exact tree is built once).
Expected<std::vector<double>> hierarchicalPredictedVariances(
    const HierarchicalConfig& config, std::span<const std::int64_t> trueCounts,
    std::span<const Range> ranges);

// ---------------------------------------------------------------------------------------------
// Workloads and error metric.

// All D(D+1)/2 ranges, ordered by lo then hi. Errors: D < 1, more than 2^24 ranges (D > 5792).
Expected<std::vector<Range>> allRanges(std::size_t domain);
// `count` ranges drawn uniformly (with replacement) from all D(D+1)/2 ranges, seeded.
// Errors: D < 1, count = 0 or > 2^24.
Expected<std::vector<Range>> sampleRanges(std::size_t domain, std::size_t count,
                                          std::uint64_t seed);

// Mean over `ranges` of (R̂ − R)² with R the true fraction. Errors: counts.size() ≠ D, negative
// counts, N = 0, empty or invalid ranges.
Expected<double> rangeMse(const HierarchicalEstimate& estimate,
                          std::span<const std::int64_t> trueCounts, std::span<const Range> ranges);
Expected<double> rangeMse(const HaarEstimate& estimate, std::span<const std::int64_t> trueCounts,
                          std::span<const Range> ranges);

}  // namespace dpx::ldp
