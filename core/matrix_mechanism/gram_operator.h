// G = WᵀW of a 1-D workload as an operator (issue #23): what the matrix mechanism's objective
// trace((AᵀA)⁻¹ WᵀW) needs, without materialising W (AllRange on 1 024 cells has 524 800
// queries) and, for the structured workloads, without the dense n × n G either:
//   Identity   G = I
//   Total      G = 1·1ᵀ
//   Prefix     G_jk = n − max(j, k)                  (the prefixes [0, i] containing j and k)
//   AllRange   G_jk = (min(j, k) + 1)·(n − max(j, k)) (the ranges [a, b] with a ≤ j, k ≤ b)
// multiply in O(n) per row by running sums; listed ranges (random ranges, boxes) as Wᵀ(W·x) in
// O(q + n) per row (answers from prefix sums, Wᵀ by a difference array); anything else dense.
// A weighted union Σ_i c_i² G_i (the workload W = [c_1 W_1; c_2 W_2; …]) is a sum of them.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/workload/workload.h"

namespace dpx {

class GramOperator {
public:
    // The Gram matrix of a 1-D workload (weight c: the workload's rows scaled by c).
    static Expected<GramOperator> of(const Workload& w, double weight = 1);
    // c_1² G_1 + c_2² G_2 + … over the same domain.
    static Expected<GramOperator> unionOf(std::span<const GramOperator> parts);
    // Σ_q c_q·r_q r_qᵀ for the listed inclusive ranges r_q = [lo_q, hi_q] of an n-cell domain
    // (c_q ≥ 0 finite; the surrogate workloads of the union-of-Kronecker design).
    static Expected<GramOperator> ranges(std::size_t n, std::span<const BinRange> ranges,
                                         std::span<const double> coefficients);
    // c·G (c > 0 finite).
    Expected<GramOperator> scaled(double c) const;

    std::size_t size() const { return n_; }
    std::uint64_t queryCount() const { return queries_; }
    // out = X·G for X of `rows` rows of size() (row-major); out has the same layout.
    void multiply(std::span<const double> x, std::size_t rows, std::span<double> out) const;
    // G's diagonal and trace.
    const std::vector<double>& diagonal() const { return diagonal_; }
    double trace() const;
    // trace(G·S) for a dense symmetric n × n matrix S (row-major): O(n) products with G.
    double traceWith(std::span<const double> s) const;
    // The dense G (tests; n ≤ 8 192).
    std::vector<double> dense() const;
    std::string describe() const { return describe_; }

private:
    enum class Kind { Identity, Total, Prefix, AllRange, Ranges, Dense };
    struct Part {
        Kind kind = Kind::Identity;
        double weight2 = 1;               // c²
        std::vector<std::size_t> lo, hi;  // Ranges: inclusive ends
        std::vector<double> queryWeight;  // Ranges: the queries' own weights
        std::vector<double> denseMatrix;  // Dense: row-major n × n
    };
    void multiplyPart(const Part& p, const double* x, double* out, std::vector<double>& scratch,
                      std::vector<double>& scratch2) const;

    std::size_t n_ = 0;
    std::uint64_t queries_ = 0;
    std::vector<Part> parts_;
    std::vector<double> diagonal_;
    std::string describe_;
};

}  // namespace dpx
