#include "core/count/count_mechanism.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/base/validation.h"

namespace dpx {

namespace {

std::string cell(std::size_t i, std::size_t j) {
    return "P[" + std::to_string(i) + "][" + std::to_string(j) + "]";
}

std::string cellValue(const CountMechanism& m, std::size_t i, std::size_t j) {
    return cell(i, j) + " = " + formatNumber(m.at(i, j));
}

Status validatePeople(int n) {
    if (n < 1 || n > kMaxCountPeople) {
        return Error{"the number of people n must be an integer in [1, " +
                     std::to_string(kMaxCountPeople) + "], got " + std::to_string(n)};
    }
    return okStatus();
}

// α = e^(−ε) for a valid ε, or an error if α is not representable in (0, 1).
Expected<double> alphaFor(double epsilon) {
    if (auto s = validateEpsilon(epsilon); !s) {
        return s.error();
    }
    const double alpha = std::exp(-epsilon);
    if (!(alpha > 0) || !(alpha < 1)) {
        return Error{"ε = " + formatNumber(epsilon) +
                     " is outside the range where α = exp(−ε) is representable in (0, 1)"};
    }
    return alpha;
}

PropertyCheck violation(std::size_t i, std::size_t j, std::string reason) {
    return PropertyCheck{false, i, j, std::move(reason)};
}

}  // namespace

const char* countPropertyName(CountProperty p) {
    switch (p) {
        case CountProperty::RowHonest:
            return "RH";
        case CountProperty::RowMonotone:
            return "RM";
        case CountProperty::ColumnHonest:
            return "CH";
        case CountProperty::ColumnMonotone:
            return "CM";
        case CountProperty::Fair:
            return "F";
        case CountProperty::WeaklyHonest:
            return "WH";
        case CountProperty::Symmetric:
            return "S";
    }
    return "?";
}

const PropertyCheck& CountProperties::get(CountProperty p) const {
    switch (p) {
        case CountProperty::RowHonest:
            return rowHonest;
        case CountProperty::RowMonotone:
            return rowMonotone;
        case CountProperty::ColumnHonest:
            return columnHonest;
        case CountProperty::ColumnMonotone:
            return columnMonotone;
        case CountProperty::Fair:
            return fair;
        case CountProperty::WeaklyHonest:
            return weaklyHonest;
        case CountProperty::Symmetric:
            return symmetric;
    }
    return symmetric;
}

// ---------------------------------------------------------------------------------------------
// Construction and validation

Expected<CountMechanism> CountMechanism::fromRows(const std::vector<std::vector<double>>& rows,
                                                  std::string name) {
    const std::size_t size = rows.size();
    if (size < 2) {
        return Error{"a count mechanism matrix needs at least 2 rows (n ≥ 1), got " +
                     std::to_string(size)};
    }
    std::vector<double> p;
    p.reserve(size * size);
    for (std::size_t i = 0; i < size; ++i) {
        if (rows[i].size() != size) {
            return Error{"the matrix must be square: row " + std::to_string(i) + " has " +
                         std::to_string(rows[i].size()) + " entries, expected " +
                         std::to_string(size)};
        }
        p.insert(p.end(), rows[i].begin(), rows[i].end());
    }
    return fromRowMajor(size, std::move(p), std::move(name));
}

Expected<CountMechanism> CountMechanism::fromRowMajor(std::size_t size, std::vector<double> p,
                                                      std::string name) {
    if (size < 2 || size > static_cast<std::size_t>(kMaxCountPeople) + 1) {
        return Error{"a count mechanism matrix must have between 2 and " +
                     std::to_string(kMaxCountPeople + 1) + " rows and columns, got " +
                     std::to_string(size)};
    }
    if (p.size() != size * size) {
        return Error{"the matrix must be square: " + std::to_string(p.size()) +
                     " entries for size " + std::to_string(size)};
    }
    for (std::size_t i = 0; i < size; ++i) {
        for (std::size_t j = 0; j < size; ++j) {
            const double v = p[i * size + j];
            if (!std::isfinite(v)) {
                return Error{"entry " + cell(i, j) + " is not finite (" + formatNumber(v) + ")"};
            }
            if (v < 0) {
                return Error{"entry " + cell(i, j) + " = " + formatNumber(v) +
                             " is negative; probabilities must be ≥ 0"};
            }
        }
    }
    for (std::size_t j = 0; j < size; ++j) {
        double sum = 0;
        for (std::size_t i = 0; i < size; ++i) {
            sum += p[i * size + j];
        }
        if (!(std::abs(sum - 1) <= kColumnSumTolerance)) {
            return Error{"column " + std::to_string(j) + " (true count " + std::to_string(j) +
                         ") sums to " + formatNumber(sum) + " (off by " + formatNumber(sum - 1) +
                         "); every column must sum to 1"};
        }
    }
    return CountMechanism(size, std::move(p), std::move(name));
}

double CountMechanism::columnSum(std::size_t j) const {
    double sum = 0;
    for (std::size_t i = 0; i < size_; ++i) {
        sum += at(i, j);
    }
    return sum;
}

// ---------------------------------------------------------------------------------------------
// Privacy

double CountMechanism::epsilonOver(bool allPairs) const {
    const double inf = std::numeric_limits<double>::infinity();
    double worst = 0;
    for (std::size_t j = 0; j + 1 < size_; ++j) {
        const std::size_t kEnd = allPairs ? size_ : j + 2;
        for (std::size_t k = j + 1; k < kEnd; ++k) {
            for (std::size_t i = 0; i < size_; ++i) {
                const double a = at(i, j);
                const double b = at(i, k);
                if (a == 0 && b == 0) {
                    continue;  // 0/0: the output is impossible under both inputs
                }
                if (a == 0 || b == 0) {
                    return inf;
                }
                worst = std::max(worst, std::abs(std::log(a) - std::log(b)));
            }
        }
    }
    return worst;
}

double CountMechanism::achievedEpsilon() const {
    return epsilonOver(false);
}

double CountMechanism::achievedEpsilonAllPairs() const {
    return epsilonOver(true);
}

// ---------------------------------------------------------------------------------------------
// Structural properties (seed 001 §6; digest "Structural properties"). Each scan visits cells in
// row-major order and reports the first cell at which a defining inequality fails.

CountProperties CountMechanism::properties() const {
    const double tol = kPropertyTolerance;
    const std::size_t n = people();
    CountProperties r;
    for (std::size_t i = 0; i <= n && r.rowHonest.holds; ++i) {
        for (std::size_t j = 0; j <= n; ++j) {
            if (at(i, j) > at(i, i) + tol) {
                r.rowHonest = violation(i, j,
                                        cellValue(*this, i, j) + " > " + cellValue(*this, i, i) +
                                            " (row honesty needs the diagonal to be the row max)");
                break;
            }
        }
    }
    for (std::size_t i = 0; i <= n && r.rowMonotone.holds; ++i) {
        for (std::size_t j = 0; j <= n; ++j) {
            if (j >= 1 && j <= i && at(i, j - 1) > at(i, j) + tol) {
                r.rowMonotone = violation(
                    i, j,
                    cellValue(*this, i, j - 1) + " > " + cellValue(*this, i, j) +
                        " (row monotonicity: entries must not decrease towards the diagonal)");
                break;
            }
            if (j >= i && j < n && at(i, j + 1) > at(i, j) + tol) {
                r.rowMonotone = violation(
                    i, j,
                    cellValue(*this, i, j + 1) + " > " + cellValue(*this, i, j) +
                        " (row monotonicity: entries must not increase away from the diagonal)");
                break;
            }
        }
    }
    for (std::size_t i = 0; i <= n && r.columnHonest.holds; ++i) {
        for (std::size_t j = 0; j <= n; ++j) {
            if (at(i, j) > at(j, j) + tol) {
                r.columnHonest =
                    violation(i, j,
                              cellValue(*this, i, j) + " > " + cellValue(*this, j, j) +
                                  " (column honesty needs the diagonal to be the column max)");
                break;
            }
        }
    }
    for (std::size_t i = 0; i <= n && r.columnMonotone.holds; ++i) {
        for (std::size_t j = 0; j <= n; ++j) {
            if (i >= 1 && i <= j && at(i - 1, j) > at(i, j) + tol) {
                r.columnMonotone = violation(
                    i, j,
                    cellValue(*this, i - 1, j) + " > " + cellValue(*this, i, j) +
                        " (column monotonicity: entries must not decrease towards the diagonal)");
                break;
            }
            if (i >= j && i < n && at(i + 1, j) > at(i, j) + tol) {
                r.columnMonotone =
                    violation(i, j,
                              cellValue(*this, i + 1, j) + " > " + cellValue(*this, i, j) +
                                  " (column monotonicity: entries must not increase away from the "
                                  "diagonal)");
                break;
            }
        }
    }
    for (std::size_t i = 1; i <= n; ++i) {
        if (std::abs(at(i, i) - at(0, 0)) > tol) {
            r.fair = violation(i, i,
                               cellValue(*this, i, i) + " ≠ " + cellValue(*this, 0, 0) +
                                   " (fairness needs a constant diagonal)");
            break;
        }
    }
    const double floorWh = 1.0 / static_cast<double>(n + 1);
    for (std::size_t i = 0; i <= n; ++i) {
        if (at(i, i) < floorWh - tol) {
            r.weaklyHonest =
                violation(i, i,
                          cellValue(*this, i, i) + " < 1/(n+1) = " + formatNumber(floorWh) +
                              " (weak honesty)");
            break;
        }
    }
    for (std::size_t i = 0; i <= n && r.symmetric.holds; ++i) {
        for (std::size_t j = 0; j <= n; ++j) {
            if (std::abs(at(i, j) - at(n - i, n - j)) > tol) {
                r.symmetric =
                    violation(i, j,
                              cellValue(*this, i, j) + " ≠ " + cellValue(*this, n - i, n - j) +
                                  " (symmetry: P[i][j] = P[n−i][n−j])");
                break;
            }
        }
    }
    return r;
}

// ---------------------------------------------------------------------------------------------
// Losses (seed 001 §2.4.3 BASICDP objective, §6 L0)

std::vector<double> CountMechanism::uniformWeights() const {
    return std::vector<double>(size_, 1.0 / static_cast<double>(size_));
}

Status CountMechanism::validateWeights(const std::vector<double>& weights) const {
    if (weights.size() != size_) {
        return Error{"the weights must have n+1 = " + std::to_string(size_) + " entries, got " +
                     std::to_string(weights.size())};
    }
    double sum = 0;
    for (std::size_t j = 0; j < size_; ++j) {
        if (!std::isfinite(weights[j]) || weights[j] < 0) {
            return Error{"weight w[" + std::to_string(j) + "] = " + formatNumber(weights[j]) +
                         " must be finite and ≥ 0"};
        }
        sum += weights[j];
    }
    if (!(std::abs(sum - 1) <= 1e-9)) {
        return Error{"the weights must sum to 1 (a prior over the true count), got " +
                     formatNumber(sum)};
    }
    return okStatus();
}

Expected<double> CountMechanism::l0(const std::vector<double>& weights) const {
    if (auto s = validateWeights(weights); !s) {
        return s.error();
    }
    double hit = 0;
    for (std::size_t j = 0; j < size_; ++j) {
        hit += weights[j] * at(j, j);
    }
    const double n = static_cast<double>(people());
    return (n + 1) / n * (1 - hit);
}

double CountMechanism::l0() const {
    return l0(uniformWeights()).value();
}

Expected<double> CountMechanism::expectedLoss(const std::vector<double>& weights,
                                              CountLoss t) const {
    if (auto s = validateWeights(weights); !s) {
        return s.error();
    }
    double total = 0;
    for (std::size_t j = 0; j < size_; ++j) {
        double col = 0;
        for (std::size_t i = 0; i < size_; ++i) {
            const double d = std::abs(static_cast<double>(i) - static_cast<double>(j));
            double cost = 0;
            switch (t) {
                case CountLoss::L0Indicator:
                    cost = (i != j) ? 1.0 : 0.0;
                    break;
                case CountLoss::L1:
                    cost = d;
                    break;
                case CountLoss::L2:
                    cost = d * d;
                    break;
            }
            col += cost * at(i, j);
        }
        total += weights[j] * col;
    }
    return total;
}

CountMechanism CountMechanism::symmetrised() const {
    const std::size_t n = people();
    std::vector<double> q(p_.size());
    for (std::size_t i = 0; i <= n; ++i) {
        for (std::size_t j = 0; j <= n; ++j) {
            q[i * size_ + j] = 0.5 * (at(i, j) + at(n - i, n - j));
        }
    }
    return CountMechanism(size_, std::move(q), name_ + " (symmetrised)");
}

// ---------------------------------------------------------------------------------------------
// Named mechanisms (seed 001 §6; digest "Named mechanisms")

// Validated (n, ε) of a count mechanism and the powers α^0 … α^n (one table instead of a pow()
// per matrix entry).
Expected<std::vector<double>> alphaPowers(int n, double epsilon) {
    if (auto s = validatePeople(n); !s) {
        return s.error();
    }
    const auto alpha = alphaFor(epsilon);
    if (!alpha) {
        return alpha.error();
    }
    std::vector<double> pw(static_cast<std::size_t>(n) + 1);
    pw[0] = 1;
    for (std::size_t k = 1; k < pw.size(); ++k) {
        pw[k] = pw[k - 1] * *alpha;
    }
    return pw;
}

Expected<CountMechanism> truncatedGeometric(int n, double epsilon) {
    const auto powers = alphaPowers(n, epsilon);
    if (!powers) {
        return powers.error();
    }
    const std::vector<double>& pw = *powers;
    const double a = pw[1];  // n ≥ 1
    const auto size = static_cast<std::size_t>(n) + 1;
    const auto last = static_cast<std::size_t>(n);
    // Clamping the two-sided geometric Pr[Z = z] = (1−α)/(1+α)·α^|z|: the tail mass
    // Pr[Z ≤ −j] = (1−α)/(1+α)·α^j/(1−α) = α^j/(1+α) lands on output 0 (the digest's x = 1/(1+α)),
    // likewise Pr[Z ≥ n−j] = α^(n−j)/(1+α) on output n.
    const double x = 1 / (1 + a);
    const double y = (1 - a) / (1 + a);
    std::vector<double> p(size * size);
    for (std::size_t i = 0; i < size; ++i) {
        for (std::size_t j = 0; j < size; ++j) {
            const std::size_t d = i > j ? i - j : j - i;
            double v = 0;
            if (i == 0) {
                v = x * pw[j];
            } else if (i == last) {
                v = x * pw[last - j];
            } else {
                v = y * pw[d];
            }
            p[i * size + j] = v;
        }
    }
    return CountMechanism::fromRowMajor(size, std::move(p), "GM");
}

Expected<CountMechanism> explicitFair(int n, double epsilon) {
    const auto powers = alphaPowers(n, epsilon);
    if (!powers) {
        return powers.error();
    }
    const std::vector<double>& pw = *powers;
    const auto size = static_cast<std::size_t>(n) + 1;
    const auto last = static_cast<std::size_t>(n);
    // Unnormalised shape (y = 1). Every column then sums to the same S (even n:
    // 1 + 2Σ_{k=1}^{n/2} α^k; odd n: 1 + 2Σ_{k=1}^{(n−1)/2} α^k + α^((n+1)/2)), so dividing each
    // column by its own sum yields the common y = 1/S on the diagonal (F holds). Normalising per
    // column avoids the cancellation of the even-n closed form (1−α)/(1+α−2α^(n/2+1)) as α → 1.
    std::vector<double> p(size * size);
    for (std::size_t j = 0; j < size; ++j) {
        const std::size_t m = std::min(j, last - j);
        double sum = 0;
        for (std::size_t i = 0; i < size; ++i) {
            const std::size_t d = i > j ? i - j : j - i;
            const std::size_t e = d <= m ? d : (d + m + 1) / 2;  // ⌈(d+m)/2⌉
            const double v = pw[e];
            p[i * size + j] = v;
            sum += v;
        }
        for (std::size_t i = 0; i < size; ++i) {
            p[i * size + j] /= sum;
        }
    }
    return CountMechanism::fromRowMajor(size, std::move(p), "EM");
}

Expected<CountMechanism> uniformMechanism(int n) {
    if (auto s = validatePeople(n); !s) {
        return s.error();
    }
    const auto size = static_cast<std::size_t>(n) + 1;
    return CountMechanism::fromRowMajor(
        size, std::vector<double>(size * size, 1.0 / static_cast<double>(size)), "UM");
}

Expected<CountMechanism> randomizedResponse(double epsilon) {
    const auto alpha = alphaFor(epsilon);
    if (!alpha) {
        return alpha.error();
    }
    const double keep = 1 / (1 + *alpha);
    const double flip = *alpha / (1 + *alpha);
    return CountMechanism::fromRowMajor(2, {keep, flip, flip, keep}, "RR");
}

Expected<CountMechanism> generalizedRandomizedResponse(int k, double epsilon) {
    if (k < 2 || k > kMaxCountPeople + 1) {
        return Error{"the number of categories k must be an integer in [2, " +
                     std::to_string(kMaxCountPeople + 1) + "], got " + std::to_string(k)};
    }
    const auto alpha = alphaFor(epsilon);
    if (!alpha) {
        return alpha.error();
    }
    const auto size = static_cast<std::size_t>(k);
    // e^ε/(e^ε+k−1) and 1/(e^ε+k−1), written with α = e^(−ε) so that large ε cannot overflow.
    const double denom = 1 + static_cast<double>(k - 1) * *alpha;
    std::vector<double> p(size * size, *alpha / denom);
    for (std::size_t i = 0; i < size; ++i) {
        p[i * size + i] = 1 / denom;
    }
    return CountMechanism::fromRowMajor(size, std::move(p), "GRR");
}

}  // namespace dpx
