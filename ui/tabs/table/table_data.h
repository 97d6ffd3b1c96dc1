// What the Table tab draws, computed without widgets (so that it can run off the GUI thread for
// big tables and be tested on its own): the inputs the window hands the tab, the 1- and 2-way
// marginals of the true, noisy and estimated tables, each marginal's L1 error with its exact
// expected value, and a box written in the syntax `dpx` reads (parseBoxQuery).
#pragma once

#include <QString>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/base/expected.h"
#include "core/base/noise_distribution.h"
#include "core/estimators/estimator.h"
#include "core/table/query.h"
#include "core/table/table.h"

namespace dpx::ui {

// The Table tab's inputs: the true table and one release of it.
struct TableViewInputs {
    ContingencyTable truth;
    // One noisy value per cell, in the table's cell order (C order), as the histogram path draws
    // them.
    std::vector<double> noisy;
    // The same after the chosen estimator (one per cell; empty: the noisy values).
    std::vector<double> estimate;
    // The estimator that made `estimate` (issue #22: after resize or NoiseFirst the readout shows
    // the interval a release states around the noisy answer, widened to hold the estimate).
    EstimatorKind estimator = EstimatorKind::Identity;
    // The law of every cell's noise; absent for mechanisms without one per-cell noise law (then no
    // exact expected errors are shown).
    std::optional<NoiseDistribution> cellNoise;
    double epsilon = 0;
    QString mechanismName;
};

// Checks the inputs: a dense table of at least one attribute, one noisy (and estimated) value per
// cell, all finite, ε > 0 and finite. The message names the problem.
Status validateTableInputs(const TableViewInputs& inputs);

// Σ of `values` (one per cell of a table of `shape`, C order) over every attribute not in `keep`:
// the marginal over `keep` (distinct attributes, in the order given), in C order over the kept
// attributes — the cell order of ContingencyTable::marginal(keep). One pass over the cells.
std::vector<double> sumToMarginal(std::span<const std::uint64_t> shape,
                                  std::span<const std::size_t> keep,
                                  std::span<const double> values);

// One marginal of the three tables.
struct MarginalLayers {
    std::vector<std::size_t> keep;               // kept attributes (1 or 2), in the order drawn
    std::vector<std::uint64_t> shape;            // their sizes
    std::vector<double> truth, noisy, estimate;  // C order over the kept attributes
    // Cells of the table summed in each marginal cell (the number of noise terms in each).
    CellCount termsPerCell = 1;
};
Expected<MarginalLayers> marginalLayers(const TableViewInputs& inputs,
                                        std::span<const std::size_t> keep);

// A marginal's error: L1 = Σ over its cells |noisy − true|, and its exact expected value
// Σ over its cells E|sum of the cell noises| (every marginal cell sums termsPerCell independent
// cell noises: SummedNoise::meanAbs), when the cell noise law is known.
struct MarginalError {
    std::vector<std::size_t> keep;
    std::uint64_t cells = 0;  // cells of the marginal
    CellCount termsPerCell = 1;
    double l1 = 0;
    std::optional<double> expectedL1;
};
// All 1-way marginals, then all 2-way marginals (a < b), for k ≥ 2 attributes.
std::vector<MarginalError> marginalErrors(const TableViewInputs& inputs);
double expectedMarginalL1(const NoiseDistribution& cellNoise, std::uint64_t marginalCells,
                          CellCount termsPerCell);

// A bin of `attribute` as a token of the box syntax: its label when the label reads back as that
// bin (unique, non-empty, without ',', '=', "..", a leading '#' or surrounding spaces), otherwise
// its position "#i".
std::string boxBinToken(const Attribute& attribute, std::uint64_t bin);
// "ATTR=LO..HI,ATTR=BIN" for the given ranges of the given attributes (a range of one bin is
// written as that bin).
std::string boxQueryText(const ContingencyTable& table, std::span<const std::size_t> attributes,
                         std::span<const BinRange> ranges);
// The box query over the whole table whose ranges on `attributes` are `ranges`.
TableQuery boxOver(const ContingencyTable& table, std::span<const std::size_t> attributes,
                   std::span<const BinRange> ranges);

}  // namespace dpx::ui
