// Optimal count-query mechanisms by linear programming (seed 001 §2.4.3 and ch. 6; seed 003
// §1.3.5/§2.3.3): minimise ⊕_j w_j Σ_i c(i, j) P[i][j] over column-stochastic (n+1)×(n+1) matrices
// with α ≤ P[i][j]/P[i][j+1] ≤ 1/α (α = e^(−ε)), plus any of the seven structural properties as
// linear constraints. Solved with COIN-OR CLP. The solver's answer is repaired until it verifies
// as ε-DP exactly (negatives cleared, columns renormalised, a share of the uniform mechanism mixed
// in if a ratio still exceeds e^ε) and the cost of that repair is reported.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/count/count_mechanism.h"

namespace dpx {

enum class LpCostKind {
    L0,      // c = 1 if i ≠ j
    L0d,     // c = 1 if |i − j| > d
    L1,      // c = |i − j|
    L2,      // c = (i − j)²
    Custom,  // user-supplied (n+1)² costs, row-major c[i][j]
};

enum class LpAggregate {
    Sum,  // Σ_j w_j · loss_j
    Max,  // max_j loss_j (minimax; weights are not used), via an epigraph variable
};

struct CountLpSpec {
    int n = 2;
    double epsilon = 1;
    LpCostKind cost = LpCostKind::L0;
    int d = 0;                       // for L0d
    std::vector<double> customCost;  // for Custom: (n+1)² finite, ≥ 0, row-major
    LpAggregate aggregate = LpAggregate::Sum;
    std::vector<double> weights;  // empty: uniform 1/(n+1); else n+1 values ≥ 0 summing to 1
    std::vector<CountProperty> constraints;
    // Accuracy floor: P[i][i] ≥ minDiagonal for every i (every true count is reported correctly
    // with at least this probability); in [0, 1]. WH is the floor 1/(n+1); both may be given.
    // A high floor makes the LP infeasible (e.g. 0.9 at ε = 0.1).
    double minDiagonal = 0;
    double timeLimitSeconds = 60;
    // Solve over symmetric matrices (P[i][j] = P[n−i][n−j]) when the problem is symmetric: costs
    // with c(i,j) = c(n−i,n−j) and weights with w_j = w_{n−j}. Every constraint is invariant under
    // that reflection, so ½(P + P^S) of any optimum P is feasible with the same objective (for Σ by
    // linearity, for max because max_j ½(a_j + a_{n−j}) ≤ max_j a_j): the optimum value is the
    // same, with about half the variables and constraints. Off: the full LP (for benchmarks).
    bool exploitSymmetry = true;
    Status validate() const;
};

// Binomial(n, p) weights w_j = C(n, j) p^j (1−p)^(n−j), p in [0, 1].
Expected<std::vector<double>> binomialWeights(int n, double p);

enum class LpStatus { Optimal, Infeasible, TimeLimit, Cancelled, Failed };
// "optimal", "infeasible", "time limit", "cancelled", "failed"
const char* lpStatusName(LpStatus s);

struct CountLpResult {
    LpStatus status = LpStatus::Failed;
    std::optional<CountMechanism> mechanism;  // the repaired matrix (only when optimal)
    double solverObjective = 0;               // objective of the solver's raw answer
    double objective = 0;              // objective of the repaired matrix (raw, as defined above)
    std::optional<double> normalised;  // L0 and L0d: (n+1)/n · objective, as seed 001 reports it
    double repairUniformShare = 0;     // λ of (1−λ)P + λU used to make the ratios exact
    double repairCost = 0;             // objective − solverObjective
    double seconds = 0;                // solve time (simplex only)
    int iterations = 0;                // simplex iterations
    bool warmStarted = false;          // started from the previous basis of a sweep
    bool symmetryReduced = false;      // solved over symmetric matrices (see exploitSymmetry)
    int lpRows = 0, lpColumns = 0;     // size of the LP handed to the solver
    std::vector<std::size_t> gaps;     // outputs never reported (all-zero rows)
    std::vector<std::size_t> spikes;   // outputs reported with more than 1/(n+1) whatever the input
};

// Solves the LP. `stop` cancels between simplex iterations (status Cancelled). Errors only for an
// invalid spec; solver outcomes (infeasible, time limit, ...) are reported in the status.
Expected<CountLpResult> designCountMechanism(const CountLpSpec& spec, std::stop_token stop = {});

// The same LP for a series of ε values (spec.epsilon is ignored; every ε is validated first).
// The LP has the same rows and columns for every ε (only the ratio coefficients α change), so each
// solve after the first starts from the optimal basis of the previous one. The values are solved
// from the largest ε down, whatever their order in `epsilons`: a large ε is a cheap cold solve and
// each step towards a smaller ε then needs a few hundred iterations (n = 100, WH + CM, ε = 2 ...
// 0.1 in steps of 0.1: 7.7k iterations in all, against 11k for the single cold solve at ε = 0.1).
// Results come back in the order of `epsilons`. A solve that does not end optimal does not pass
// its basis on. `progress(done, total)` is called after each solve (from the calling thread);
// after `stop` fires, the values not yet solved are reported with status Cancelled.
using LpSweepProgress = std::function<void(std::size_t done, std::size_t total)>;
Expected<std::vector<CountLpResult>> designCountMechanismSweep(
    const CountLpSpec& spec, const std::vector<double>& epsilons, std::stop_token stop = {},
    const LpSweepProgress& progress = {});

}  // namespace dpx
