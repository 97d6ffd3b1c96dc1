// What the Strategy tab (issue #23, the strategy designer) computes, without widgets, so that it
// runs on a worker and is tested on its own. Everything here calls core's existing API:
//   - the design: designStrategy (HDMM, McKenna, Miklau, Hay & Machanavajjhala, VLDB 2018:
//     OPT₀ p-Identity in 1-D, OPT⊗ in k-D) on the workload built from WorkloadSpec text, twice:
//     for Laplace measurement (‖A‖₁²·trace, HDMM's objective; the solid curves) and for
//     Gaussian measurement (‖A‖₂²·trace; the dashed curves), from the same random starts;
//   - the baselines on the same workload: Identity, HB (Qardaji, Yang & Li 2013), Privelet's Haar
//     wavelet (Xiao, Wang & Gehrke 2010) and the best b-ary hierarchy (Hay, Rastogi, Miklau &
//     Suciu 2010; b chosen by its exact error on this workload, per measurement law: Δ₁²·trace
//     under Laplace, Δ₂²·trace under Gaussian);
//   - exact expected errors from expectedLeastSquaresError (never Monte Carlo). Every strategy's
//     error is σ²·trace((AᵀA)⁻¹WᵀW) with σ² the per-row variance of the measurement
//     (measurementVariance), so core is asked once for the trace (at Laplace, ε = 1) and the curve
//     against ε multiplies it by measurementVariance at each ε, Laplace or Gaussian — the same
//     product core forms (tested equal to core's own call at every ε);
//   - the simulated application to a table: measureStrategy (SimulationRng), least squares or
//     nonNegativeLeastSquares, the workload's answers — a simulation, never a release.
#pragma once

#include <QString>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <stop_token>
#include <vector>

#include "core/base/expected.h"
#include "core/matrix_mechanism/hdmm.h"
#include "core/workload/strategy.h"
#include "core/workload/workload.h"

namespace dpx {
class ContingencyTable;
}

namespace dpx::ui {

// Largest matrices drawn as heatmaps (rows and columns each).
inline constexpr std::size_t kDesignerMaxDrawn = 2048;
// Largest workload whose per-query errors are computed (one quadratic form per query).
inline constexpr std::uint64_t kDesignerMaxPerQuery = std::uint64_t{1} << 20;
// ... and at most this many queries × cells when each needs a solve with A (1-D).
inline constexpr double kDesignerMaxPerQueryWork = 5e7;
// The ε grid of the RMSE curves: 0.01 … 10, log-spaced.
std::vector<double> designerEpsilonGrid();

struct DesignerInputs {
    DomainShape shape{256};
    QString workload = QStringLiteral("allrange");  // WorkloadSpec text
    std::vector<std::size_t> p;                     // per dimension; empty: HDMM's n/16
    std::size_t restarts = 3;
    std::uint64_t seed = 0;
    DesignTemplate templ = DesignTemplate::Automatic;
};

// The measurement laws a strategy of the comparison is drawn and compared for.
enum class DesignerLaw {
    Both,
    Laplace,   // chosen for Laplace measurement (the best hierarchy by Δ₁²·trace)
    Gaussian,  // chosen for Gaussian measurement (the best hierarchy by Δ₂²·trace)
};

// One strategy of the comparison. trace = trace((AᵀA)⁻¹WᵀW), from core.
struct DesignerStrategy {
    QString name;         // "Optimised (OPT₀ p-Identity(16))", "Identity", "HB", ...
    QString description;  // the strategy's describe()
    QString unavailable;  // why it is not shown (empty: it is)
    double trace = std::numeric_limits<double>::quiet_NaN();
    std::shared_ptr<const LinearStrategy> strategy;
    DesignerLaw law = DesignerLaw::Both;
    bool optimised = false;  // a designed strategy (drawn in the first colour), not a baseline
    bool drawnFor(MeasurementNoise noise) const {
        return law == DesignerLaw::Both ||
               (law == DesignerLaw::Laplace) == (noise == MeasurementNoise::Laplace);
    }
};

// The designs for Laplace (the result itself) and for Gaussian measurement (`gaussian`): each
// carries its template, objective, optimised strategy at strategies[0], per-query forms and A.
struct DesignerResult {
    DesignerInputs inputs;
    std::shared_ptr<const Workload> workload;
    QString workloadDescription;
    QString templateName;
    std::vector<std::size_t> p;
    double objective = 0;  // designStrategy's ‖A‖²·trace((AᵀA)⁻¹WᵀW) for its law
    MeasurementNoise measurement = MeasurementNoise::Laplace;  // the law designed for
    bool objectiveIsBound = false;  // OPT₊: the objective bounds least squares from above
    std::size_t iterations = 0;
    // [0] the optimised strategy (designed for Laplace: law Laplace), then Identity, HB,
    // Privelet, the best hierarchy: one entry when Laplace (Δ₁²·trace) and Gaussian (Δ₂²·trace)
    // measurement choose the same b, else the Laplace one (law Laplace) and the Gaussian one
    // (law Gaussian); last, the strategy designed for Gaussian measurement (law Gaussian,
    // optimised). In `gaussian`, strategies holds that one design alone.
    std::vector<DesignerStrategy> strategies;
    // The optimised strategy's wᵀ(AᵀA)⁻¹w per query (multiply by σ² for the variance); empty
    // with perQueryNote saying why.
    std::vector<double> perQueryForm;
    QString perQueryNote;
    // W (wRows × cells) and A (aRows × cells), row-major, when small enough; else the note says
    // why they are not drawn.
    std::vector<double> w;
    std::size_t wRows = 0;
    QString wNote;
    std::vector<double> a;
    std::size_t aRows = 0;
    QString aNote;
    // The design for Gaussian measurement (same workload, template, p, restarts and seed), with
    // its own per-query forms and A; null in that design itself.
    std::shared_ptr<const DesignerResult> gaussian;
};

// The design shown for measurement `noise`: the result itself (Laplace) or its Gaussian design.
const DesignerResult& designerFor(const DesignerResult& r, MeasurementNoise noise);

// The per-query errors of the result laid out on a grid when every query has its own cell of
// one (issue #23: "the per-query error as a heatmap"):
//   - 1-D all ranges: the range [a, b] at row a, column b (a ≤ b; the rest NaN);
//   - 2-D, every query a prefix [0, r] × [0, c]: at (r, c);
//   - 2-D, every query a box of one extent h × w (single cells — identity, the 2-way marginal
//     of two attributes, your own cells — or rectangles): at its top-left cell, a grid of
//     (R − h + 1) × (C − w + 1);
// and no two queries on one cell. Otherwise (ranges of several extents, 1-way marginals next to
// each other, three or more dimensions) rows == 0 and `why` says why the errors are drawn along
// the query index instead.
struct PerQueryGrid {
    std::size_t rows = 0, cols = 0;
    std::vector<double> form;  // rows × cols, row-major: the query's wᵀ(AᵀA)⁻¹w, NaN: none
    std::vector<std::uint64_t> query;  // rows × cols: the query's index (for its name)
    QString xLabel, yLabel;
    QString layout;  // "each cell is the query of that cell", …
    QString why;     // rows == 0: why the queries do not map to cells
};
PerQueryGrid perQueryGrid(const DesignerResult& r);

// A marginal workload over three or more attributes (issue #23, session 32): the per-query
// errors as one small grid per marginal (the cells of a marginal are its queries), in the
// workload's order — every k of `ways` in turn, the k-subsets of the attributes in
// lexicographic order, each marginal's cells in C order over its attributes (checked against
// every query's box). A 1-way marginal is a strip (1 × n_a), a 2-way one n_a × n_b (rows: the
// first attribute), a k-way one n_first × ∏ n_rest.
struct MarginalPanel {
    std::vector<std::size_t> attributes;  // 0-based, increasing
    std::size_t rows = 0, cols = 0;
    std::vector<double> form;  // rows × cols, row-major: wᵀ(AᵀA)⁻¹w of the cell's query
    std::vector<std::uint64_t> query;  // rows × cols: the query's index
};
struct MarginalPanels {
    std::vector<MarginalPanel> panels;  // empty: `why` says why not
    QString why;
};
inline constexpr std::size_t kDesignerMaxPanels = 120;
MarginalPanels marginalPanels(const DesignerResult& r);
// "[3, 9]" (1-D) or "[0, 2] × [1, 1]" (k-D): the query's box, for captions.
QString queryText(const RangeQuery& q);

// Validates the inputs, builds the workload, designs the strategy for Laplace and for Gaussian
// measurement (cancellable, progress in [0, 0.7]), then the baselines' exact errors and the
// matrices (progress to 1). Errors come from core as they are (a workload designStrategy does not
// handle yet says so).
Expected<DesignerResult> designForWindow(const DesignerInputs& in, std::stop_token stop = {},
                                         const std::function<void(double)>& progress = {});

// RMSE per query of `s` on the result's workload under `spec`: √(σ²·trace / q).
Expected<double> designerRmse(const DesignerResult& r, const DesignerStrategy& s,
                              const MeasurementSpec& spec);
// "The optimised strategy's RMSE is 2.3× below HB's (the best baseline) at every ε." for the
// measurement `noise` (δ for Gaussian) over the ε grid.
QString designerVerdict(const DesignerResult& r, MeasurementNoise noise, double delta);

// The table as a data vector over its own shape (any number of attributes, dense, ≤ 2^26 cells);
// the message says why not.
Expected<std::vector<double>> designerTableVector(const ContingencyTable* table,
                                                  DomainShape* shape);

// The strategy optimised for spec's law applied to x in simulation: y = A·x + noise
// (SimulationRng(seed, 0)),
// x̂ by least squares or non-negative least squares, the workload's answers.
struct DesignerApplied {
    bool nnls = false;
    std::vector<double> truth;     // W·x
    std::vector<double> estimate;  // W·x̂
    std::vector<double> sd;   // per query √(σ²·wᵀ(AᵀA)⁻¹w) (least squares' exact sd)
    double realisedRmse = 0;  // ‖W·x̂ − W·x‖₂ / √q
    double expectedRmse = 0;  // √(σ²·trace / q)
};
Expected<DesignerApplied> applyDesign(const DesignerResult& r, const std::vector<double>& x,
                                      const MeasurementSpec& spec, std::uint64_t seed, bool nnls,
                                      std::stop_token stop = {});

}  // namespace dpx::ui
