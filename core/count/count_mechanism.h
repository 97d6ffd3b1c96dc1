// Count-query mechanism matrices (seed 001 ch. 6, "Count queries and mechanism matrices" in the
// seed digest). n people, true count j ∈ {0..n}; a mechanism is the (n+1)×(n+1) column-stochastic
// matrix P[i][j] = Pr[output i | true count j] (row = output, column = input), α = e^(−ε), Δ1 = 1.
// This file holds the value type, the named closed-form mechanisms (GM, EM, UM, RR, GRR) and the
// checks every matrix can be put through: achieved ε, the seven structural properties, L0/L1/L2
// losses and symmetrisation. The LP designs (BASICDP, WM) come later (issue #3).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/base/expected.h"

namespace dpx {

// Largest n (number of people) accepted by the factories. The matrix is dense, (n+1)² doubles:
// n = 2000 is 32 MB, which is as much as an interactive tool should allocate for one mechanism.
inline constexpr int kMaxCountPeople = 2000;

// Tolerance of the structural-property comparisons (RH, RM, CH, CM, F, WH, S).
inline constexpr double kPropertyTolerance = 1e-12;
// Tolerance of the column sums accepted by CountMechanism::fromRows.
inline constexpr double kColumnSumTolerance = 1e-9;

// The seven linear structural properties of seed 001 §6 (definitions as in the digest).
enum class CountProperty {
    RowHonest,     // RH: P[i][i] ≥ P[i][j] ∀i,j
    RowMonotone,   // RM: 1 ≤ j ≤ i: P[i][j−1] ≤ P[i][j]; i ≤ j < n: P[i][j+1] ≤ P[i][j]
    ColumnHonest,  // CH: P[j][j] ≥ P[i][j] ∀i,j
    ColumnMonotone,  // CM: 1 ≤ i ≤ j: P[i−1][j] ≤ P[i][j]; j ≤ i < n: P[i+1][j] ≤ P[i][j]
    Fair,            // F:  P[i][i] = P[j][j] ∀i,j
    WeaklyHonest,    // WH: P[i][i] ≥ 1/(n+1) ∀i
    Symmetric,       // S:  P[i][j] = P[n−i][n−j]
};
inline constexpr CountProperty kAllCountProperties[] = {
    CountProperty::RowHonest,      CountProperty::RowMonotone, CountProperty::ColumnHonest,
    CountProperty::ColumnMonotone, CountProperty::Fair,        CountProperty::WeaklyHonest,
    CountProperty::Symmetric};

// Short name, "RH", "RM", "CH", "CM", "F", "WH" or "S".
const char* countPropertyName(CountProperty p);

// Result of one property check. If !holds, (row, column) is the first cell, in row-major scan
// order, at which a defining inequality fails (with tolerance kPropertyTolerance), and `reason`
// is a one-line explanation naming the compared cells and values.
struct PropertyCheck {
    bool holds = true;
    std::size_t row = 0;
    std::size_t column = 0;
    std::string reason;
};

struct CountProperties {
    PropertyCheck rowHonest, rowMonotone, columnHonest, columnMonotone, fair, weaklyHonest,
        symmetric;
    const PropertyCheck& get(CountProperty p) const;
};

// Loss exponents of the BASICDP objective Σ_j w_j Σ_i |i−j|^t P[i][j] (t = 0: indicator i ≠ j).
enum class CountLoss { L0Indicator = 0, L1 = 1, L2 = 2 };

// An immutable, validated column-stochastic (n+1)×(n+1) matrix, stored row-major.
class CountMechanism {
public:
    // rows[i][j] = P[i][j]. Requires a square matrix of size ≥ 2 (n ≥ 1) and ≤ kMaxCountPeople+1,
    // finite non-negative entries, and every column summing to 1 within kColumnSumTolerance.
    // Error messages name the offending row, cell or column.
    static Expected<CountMechanism> fromRows(const std::vector<std::vector<double>>& rows,
                                             std::string name = "custom");
    // Same rules for a row-major array of size × size entries (p[i*size + j] = P[i][j]).
    static Expected<CountMechanism> fromRowMajor(std::size_t size, std::vector<double> p,
                                                 std::string name = "custom");

    const std::string& name() const { return name_; }
    // Number of people n; the matrix has size() = n + 1 rows and columns.
    std::size_t people() const { return size_ - 1; }
    std::size_t size() const { return size_; }
    // P[i][j]; precondition i, j < size().
    double at(std::size_t i, std::size_t j) const { return p_[i * size_ + j]; }
    const std::vector<double>& rowMajor() const { return p_; }
    double columnSum(std::size_t j) const;

    // max over adjacent columns (j, j+1) and rows i of |ln P[i][j] − ln P[i][j+1]|: the smallest ε
    // for which the matrix is ε-DP under "counts differ by one". +∞ if a zero faces a non-zero;
    // pairs where both entries are 0 are ignored. Entries that underflowed to 0 (α^k for very
    // large k) therefore show as +∞: the stored matrix is then not ε-DP as stored.
    double achievedEpsilon() const;
    // Same over all column pairs (j, k), j ≠ k: the local-DP neighbouring relation of §6.8 (GRR).
    double achievedEpsilonAllPairs() const;

    CountProperties properties() const;

    // w_j = 1/(n+1), the default prior of seed 001.
    std::vector<double> uniformWeights() const;
    // L0 = (n+1)/n · (1 − Σ_j w_j P[j][j]); the uniform mechanism scores 1 under uniform weights.
    // Weights must have size n+1, be finite and ≥ 0, and sum to 1 within 1e-9.
    Expected<double> l0(const std::vector<double>& weights) const;
    double l0() const;  // uniform weights
    // Σ_j w_j Σ_i |i−j|^t P[i][j] (t = 0: Σ over i ≠ j). Same rules for the weights as l0().
    Expected<double> expectedLoss(const std::vector<double>& weights, CountLoss t) const;

    // ½(P + P^S) with P^S[i][j] = P[n−i][n−j]. Keeps column-stochasticity, ε, every structural
    // property that P has, and L0 under uniform (or any symmetric) weights (seed 001 §6).
    CountMechanism symmetrised() const;

private:
    CountMechanism(std::size_t size, std::vector<double> p, std::string name)
        : size_(size), p_(std::move(p)), name_(std::move(name)) {}
    Status validateWeights(const std::vector<double>& weights) const;
    double epsilonOver(bool allPairs) const;

    std::size_t size_;
    std::vector<double> p_;
    std::string name_;
};

// GM, truncated geometric (Ghosh, Roughgarden & Sundararajan 2009; seed 001 §6): the output of
// clamp(j + Z, 0, n), Pr[Z = z] = (1−α)/(1+α)·α^|z|. P[0][j] = α^j/(1+α), P[n][j] = α^(n−j)/(1+α),
// P[i][j] = (1−α)/(1+α)·α^|i−j| for 0 < i < n. Requires 1 ≤ n ≤ kMaxCountPeople, valid ε with
// α = e^(−ε) representable in (0, 1).
Expected<CountMechanism> truncatedGeometric(int n, double epsilon);

// EM, the explicit fair mechanism (seed 001 eq. 6.15): with m = min(j, n−j), d = |i−j|,
// P[i][j] = y·α^d if d ≤ m, else y·α^⌈(d+m)/2⌉. y is obtained by normalising the columns (all
// columns have the same sum, so the diagonal is the constant y); it equals the closed forms
// n even: y = (1−α)/(1+α−2α^(n/2+1)), n odd: y = 1/(1 + 2Σ_{k=1}^{(n−1)/2} α^k + α^((n+1)/2)).
Expected<CountMechanism> explicitFair(int n, double epsilon);

// UM: P[i][j] = 1/(n+1) (0-DP; L0 = 1).
Expected<CountMechanism> uniformMechanism(int n);

// Randomized response, the n = 1 case: P[0][0] = P[1][1] = 1/(1+α).
Expected<CountMechanism> randomizedResponse(double epsilon);

// GRR (direct encoding, seed 001 §2.4 and §6.8), k×k: diagonal e^ε/(e^ε+k−1) = 1/(1+(k−1)α),
// off-diagonal 1/(e^ε+k−1) = α/(1+(k−1)α). Local DP: use achievedEpsilonAllPairs(). Requires
// 2 ≤ k ≤ kMaxCountPeople+1. people() of the result is k − 1.
Expected<CountMechanism> generalizedRandomizedResponse(int k, double epsilon);

}  // namespace dpx
