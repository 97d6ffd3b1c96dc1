// Optimal count-query mechanisms by linear programming (seed 001 §2.4.3 and ch. 6; seed 003
// §1.3.5/§2.3.3): minimise ⊕_j w_j Σ_i c(i, j) P[i][j] over column-stochastic (n+1)×(n+1) matrices
// with α ≤ P[i][j]/P[i][j+1] ≤ 1/α (α = e^(−ε)), plus any of the seven structural properties as
// linear constraints. Solved with COIN-OR CLP. The solver's answer is repaired until it verifies
// as ε-DP exactly (negatives cleared, columns renormalised, a share of the uniform mechanism mixed
// in if a ratio still exceeds e^ε) and the cost of that repair is reported.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/count_mechanism.h"
#include "core/expected.h"

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
    double timeLimitSeconds = 60;
    Status validate() const;
};

// Binomial(n, p) weights w_j = C(n, j) p^j (1−p)^(n−j), p in [0, 1].
Expected<std::vector<double>> binomialWeights(int n, double p);

enum class LpStatus { Optimal, Infeasible, TimeLimit, Failed };
const char* lpStatusName(LpStatus s);  // "optimal", "infeasible", "time limit", "failed"

struct CountLpResult {
    LpStatus status = LpStatus::Failed;
    std::optional<CountMechanism> mechanism;  // the repaired matrix (only when optimal)
    double solverObjective = 0;               // objective of the solver's raw answer
    double objective = 0;              // objective of the repaired matrix (raw, as defined above)
    std::optional<double> normalised;  // L0 and L0d: (n+1)/n · objective, as seed 001 reports it
    double repairUniformShare = 0;     // λ of (1−λ)P + λU used to make the ratios exact
    double repairCost = 0;             // objective − solverObjective
    double seconds = 0;                // solve time
    std::vector<std::size_t> gaps;     // outputs never reported (all-zero rows)
    std::vector<std::size_t> spikes;   // outputs reported with more than 1/(n+1) whatever the input
};

Expected<CountLpResult> designCountMechanism(const CountLpSpec& spec);

}  // namespace dpx
