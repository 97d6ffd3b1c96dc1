// Queries on a table of several attributes (issue #19): a box (a range of bins on every
// attribute), a set of cells, or one cell of a marginal (a box that fixes some attributes and
// spans the others). For any query: its true answer, its answer on a noisy table, and the law of
// its noise when every cell gets independent noise of one law — the sum of m independent copies,
// m the number of cells the query covers — with the expected error and a confidence interval,
// exact for Laplace, discrete Laplace (two-sided geometric) and Gaussian cell noise.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/base/noise_distribution.h"
#include "core/table/table.h"

namespace dpx {

// An inclusive range of bins [lo, hi] of one attribute.
struct BinRange {
    std::uint64_t lo = 0, hi = 0;
    bool operator==(const BinRange&) const = default;
};

struct TableQuery {
    enum class Kind { Box, Cells };
    Kind kind = Kind::Box;
    // Box: one range per attribute, in the table's attribute order.
    std::vector<BinRange> box;
    // Cells: distinct cell indices.
    std::vector<std::uint64_t> cells;

    // The whole domain of `table` (every range full).
    static TableQuery all(const ContingencyTable& table);
    // One cell of the marginal over `fixed` (attribute, bin) pairs; the other attributes span.
    static Expected<TableQuery> marginalCell(
        const ContingencyTable& table,
        std::span<const std::pair<std::size_t, std::uint64_t>> fixed);
    static TableQuery ofCells(std::vector<std::uint64_t> cells);

    // Checks the query against the table (k ranges, lo ≤ hi < size; cells inside, distinct).
    Status validate(const ContingencyTable& table) const;
    // Number of cells covered (up to 2⁶⁴).
    CellCount cellCount(const ContingencyTable& table) const;
    // "age = 30–39 … 40–49, hours = 41 … 99" (box) or "3 cells".
    std::string describe(const ContingencyTable& table) const;
};

// A box from text, the syntax dpx uses: "ATTR=LO..HI,ATTR=BIN,..." with bins named by their label
// or by their 0-based position "#3"; attributes not named span their whole range.
Expected<TableQuery> parseBoxQuery(const ContingencyTable& table, std::string_view text);

// Σ of the true counts over the query. Cost: O(cells of the box) for a dense table and a box
// narrower than the occupied cells, O(occupied cells) otherwise.
Expected<std::int64_t> trueAnswer(const ContingencyTable& table, const TableQuery& query);

// Σ of noisy values over the query, for a dense noisy vector (one value per cell, index order)
// or for a sparse release (the released cells; every other cell released as 0).
Expected<double> noisyAnswer(const ContingencyTable& table, const TableQuery& query,
                             std::span<const double> noisyDense);
Expected<double> noisyAnswerSparse(const ContingencyTable& table, const TableQuery& query,
                                   std::span<const std::pair<std::uint64_t, double>> released);

// The law of the sum of m independent copies of one cell noise law.
struct SummedNoise {
    NoiseDistribution cell = NoiseDistribution::laplace(1);
    CellCount terms = 1;  // m ≥ 1
    double variance() const;
    double rmse() const;  // √variance
    // E|Σ|: exact (Gaussian: σ√(2m/π); Laplace: via the law of b(G₁ − G₂), G_i ~ Gamma(m, 1);
    // discrete Laplace: via the difference of two negative binomials).
    double meanAbs() const;
    // Smallest t ≥ 0 with Pr[|Σ| ≤ t] ≥ level (level in (0, 1)); exact as for meanAbs.
    double absQuantile(double level) const;
    std::string describe() const;  // "sum of 12 Laplace(b = 2)"
};

// Everything a query's readout shows.
struct QueryReadout {
    std::string query;            // describe()
    CellCount cells = 0;          // cells covered
    std::int64_t truth = 0;       // true answer
    std::optional<double> noisy;  // when a noisy table was given
    // Expected error of the noisy answer (unbiased per-cell noise, no post-processing): RMSE and
    // E|error|, and the half-width of the `level` interval noisy ± halfWidth.
    double rmse = 0, meanAbsError = 0, halfWidth = 0, level = 0.95;
    std::string method;  // "exact (sum of m Laplace)", "Monte Carlo (N trials)", ...
};
Expected<QueryReadout> queryReadout(const ContingencyTable& table, const TableQuery& query,
                                    const NoiseDistribution& cellNoise, double level,
                                    std::span<const double> noisyDense = {});

// Exposed for tests: the two ways SummedNoise computes Pr[|S| ≤ k] for S the sum of m discrete
// Laplace(α) (k ≥ 0 an integer, m ≥ 1): lattice inversion of the characteristic function, and
// direct summation over a negative binomial (query.cpp says which is used when).
namespace detail {
double discreteSumAbsCdfInversion(double alpha, double m, double k);
double discreteSumAbsCdfDirect(double alpha, double m, double k);
}  // namespace detail

}  // namespace dpx
