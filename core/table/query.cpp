#include "core/table/query.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numbers>
#include <optional>

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/log1p.hpp>
#include <boost/math/tools/roots.hpp>

#include "core/base/validation.h"

namespace dpx {

namespace {

bool inBox(const ContingencyTable& t, std::span<const BinRange> box, std::uint64_t index) {
    for (std::size_t a = t.attributeCount(); a-- > 0;) {
        const std::uint64_t n = t.attribute(a).size();
        const std::uint64_t c = index % n;
        index /= n;
        if (c < box[a].lo || c > box[a].hi)
            return false;
    }
    return true;
}

// Calls f(index) for every cell of the box in index order (odometer over the ranges).
template <class F>
void forEachBoxCell(const ContingencyTable& t, std::span<const BinRange> box, F&& f) {
    const std::size_t k = t.attributeCount();
    std::vector<std::uint64_t> c(k);
    for (std::size_t a = 0; a < k; ++a)
        c[a] = box[a].lo;
    while (true) {
        f(t.cellIndex(c));
        std::size_t a = k;
        while (a-- > 0) {
            if (c[a] < box[a].hi) {
                ++c[a];
                break;
            }
            c[a] = box[a].lo;
        }
        if (a == static_cast<std::size_t>(-1))
            return;
    }
}

std::string trim(std::string_view s) {
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
        --e;
    return std::string(s.substr(b, e - b));
}

std::string someLabels(const Attribute& a) {
    std::string s;
    const std::size_t shown = std::min<std::size_t>(a.size(), 6);
    for (std::size_t i = 0; i < shown; ++i)
        s += (i ? ", " : "") + ("'" + a.labels[i] + "'");
    if (a.size() > shown)
        s += ", … (" + std::to_string(a.size()) + " bins)";
    return s;
}

// One bin of attribute `a` from text: an exact label, "#n" (0-based position) or, for numeric
// bins, a number inside [first edge, last edge] (the bin that contains it).
Expected<std::uint64_t> parseBin(const Attribute& a, const std::string& text) {
    if (text.empty())
        return Error{"attribute '" + a.name + "': a bin is missing"};
    std::optional<std::uint64_t> found;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a.labels[i] == text) {
            if (found) {
                return Error{"attribute '" + a.name + "': the label '" + text +
                             "' names several bins; use its position #" + std::to_string(*found) +
                             " or #" + std::to_string(i)};
            }
            found = i;
        }
    }
    if (found)
        return *found;
    if (text[0] == '#') {
        const std::string digits = text.substr(1);
        if (digits.empty() || digits.size() > 19 ||
            !std::all_of(digits.begin(), digits.end(),
                         [](char ch) { return ch >= '0' && ch <= '9'; })) {
            return Error{"attribute '" + a.name + "': '" + text +
                         "' is not a bin position (write #0, #1, …)"};
        }
        const std::uint64_t pos = std::stoull(digits);
        if (pos >= a.size()) {
            return Error{"attribute '" + a.name + "' has bins #0 to #" +
                         std::to_string(a.size() - 1) + "; there is no " + text};
        }
        return pos;
    }
    if (!a.edges.empty()) {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() + text.size() && std::isfinite(v)) {
            if (v < a.edges.front() || v > a.edges.back()) {
                return Error{"attribute '" + a.name + "': " + text + " is outside its bins [" +
                             formatNumber(a.edges.front()) + ", " + formatNumber(a.edges.back()) +
                             "]"};
            }
            // The bin [e_i, e_{i+1}) holding v; the last edge belongs to the last bin.
            const auto it = std::upper_bound(a.edges.begin(), a.edges.end(), v);
            const auto i = static_cast<std::uint64_t>(it - a.edges.begin());
            return std::min<std::uint64_t>(i == 0 ? 0 : i - 1, a.size() - 1);
        }
    }
    return Error{"attribute '" + a.name + "' has no bin '" + text + "' (bins: " + someLabels(a) +
                 "; or write a position #n" + (a.edges.empty() ? "" : " or a number") + ")"};
}

Expected<BinRange> parseRange(const Attribute& a, const std::string& value) {
    // A whole label first (labels may contain ".."), then LO..HI split at each "..".
    if (auto whole = parseBin(a, value))
        return BinRange{*whole, *whole};
    std::optional<Error> firstError;
    for (std::size_t p = value.find(".."); p != std::string::npos; p = value.find("..", p + 1)) {
        const std::string lo = trim(value.substr(0, p)), hi = trim(value.substr(p + 2));
        Expected<std::uint64_t> l =
            lo.empty() ? Expected<std::uint64_t>{std::uint64_t{0}} : parseBin(a, lo);
        Expected<std::uint64_t> h =
            hi.empty() ? Expected<std::uint64_t>{a.size() - 1} : parseBin(a, hi);
        if (l && h) {
            if (*l > *h) {
                return Error{"attribute '" + a.name + "': the range " + value +
                             " is empty (its first bin comes after its last)"};
            }
            return BinRange{*l, *h};
        }
        if (!firstError)
            firstError = !l ? l.error() : h.error();
    }
    if (firstError)
        return *firstError;
    return parseBin(a, value).error();
}

// ---- the law of a sum of m i.i.d. cell noises ---------------------------------------------

constexpr double kQuadTolerance = 1e-13;

// Discrete Laplace(α): φ_Z(t) = (1−α)²/(1 − 2α cos t + α²) = 1/(1 + c·sin²(t/2)),
// c = 4α/(1−α)². Returns m·ln(1/φ_Z(t)) = m·log1p(c sin²(t/2)), stable for small t.
struct DiscreteSum {
    double m, c;
    double mlog(double t) const {
        const double s = std::sin(t / 2);
        return m * std::log1p(c * s * s);
    }
    // The upper end t₁ of the integrals: φ^m(t) ≤ e^{−700} beyond it (the integrands are then
    // below 10^{−304} times their size at 0), π when φ^m never gets that small.
    double cutoff() const {
        const double s2 = std::expm1(700 / m) / c;
        return s2 >= 1 ? std::numbers::pi : 2 * std::asin(std::sqrt(s2));
    }
};

// Adaptive Gauss–Kronrod (31 points) with relative tolerance kQuadTolerance; `depth` bounds the
// bisections (a piece whose integrand is rounding noise would otherwise be split forever). The
// rule runs on [−1, 1] and the result is scaled here: Boost 1.74 compares the error on [−1, 1]
// with a tolerance scaled by the interval, so on an interval much shorter than 1 (T = a(1 + u),
// u of width 10⁻⁹) it would bisect to the full depth.
double integrate(const auto& f, double a, double b, unsigned depth = 15) {
    const double mid = (a + b) / 2, half = (b - a) / 2;
    double err = 0;
    return half *
           boost::math::quadrature::gauss_kronrod<double, 31>::integrate(
               [&](double x) { return f(mid + half * x); }, -1.0, 1.0, depth, kQuadTolerance, &err);
}

// E|S| for S the sum of m discrete Laplace(α), by the Fejér identity |k| = (1/2π)∫_{−π}^{π}
// (1 − cos kt)/(1 − cos t) dt for integers k, so E|S| = (1/π)∫₀^π (1 − φ_Z(t)^m)/(1 − cos t) dt
// (a characteristic-function inversion with a positive, non-oscillating integrand). Beyond t₁,
// φ^m < e^{−700} and ∫_{t₁}^π dt/(1 − cos t) = cot(t₁/2) exactly.
double discreteMeanAbs(double alpha, double m) {
    const DiscreteSum d{m, 4 * alpha / ((1 - alpha) * (1 - alpha))};
    const double t1 = d.cutoff();
    auto f = [&](double t) {
        const double s = std::sin(t / 2);
        if (s == 0)
            return m * d.c / 2;  // limit at 0: m·Var(Z)
        return -std::expm1(-d.mlog(t)) / (2 * s * s);
    };
    const double tail = t1 < std::numbers::pi ? 1 / std::tan(t1 / 2) : 0;
    return (integrate(f, 0, t1) + tail) / std::numbers::pi;
}

// Pr[|S| ≤ k] for integer k ≥ 0, by lattice inversion with the Dirichlet kernel:
// Σ_{|j|≤k} Pr[S = j] = (1/π)∫₀^π φ_Z(t)^m · sin((k + ½)t)/sin(t/2) dt; truncated at t₁ where
// the rest is below e^{−700}·(2k + 1)·π.
double discreteAbsCdf(double alpha, double m, double k) {
    const DiscreteSum d{m, 4 * alpha / ((1 - alpha) * (1 - alpha))};
    const double t1 = d.cutoff();
    auto f = [&](double t) {
        const double s = std::sin(t / 2);
        if (s == 0)
            return 2 * k + 1;
        return std::exp(-d.mlog(t)) * std::sin((k + 0.5) * t) / s;
    };
    // Split at the oscillation's half-periods π/(k + ½) so each piece is smooth (≤ 4096 pieces).
    const double period = std::numbers::pi / (k + 0.5);
    const double pieces = std::min(4096.0, std::max(1.0, std::ceil(t1 / period)));
    double sum = 0;
    for (double i = 0; i < pieces; ++i)
        sum += integrate(f, t1 * i / pieces, t1 * (i + 1) / pieces, 6);
    return std::clamp(sum / std::numbers::pi, 0.0, 1.0);
}

// Pr[|S| ≤ x] for S = b(G₁ − G₂), G_i ~ Gamma(m, 1) (the sum of m Laplace(b)). With
// T = G₁ + G₂ ~ Gamma(2m) and B = G₁/T ~ Beta(m, m) independent, |S|/b = T·W with W = |2B − 1| and
// W² ~ Beta(½, m) (the density of 2B − 1 is ∝ (1 − w²)^{m−1}). So, y = x/b,
//   Pr[|S| ≤ x] = P(2m, y) + ∫_{T>y} I_{(y/T)²}(½, m) dΓ_{2m}(T),
// P the regularised lower incomplete gamma, I the regularised incomplete beta (Boost.Math),
// integrated by adaptive Gauss–Kronrod over all but 2·10⁻²⁰ of the Gamma(2m) mass:
//  - m ≤ 10⁵: T between the Boost.Math Gamma quantiles 10⁻²⁰ and 1 − 10⁻²⁰, density
//    gamma_p_derivative (checked: it integrates to 1 within 10⁻¹³ there);
//  - m > 10⁵ (where Boost's incomplete-gamma series gives up and gamma_p_derivative loses digits,
//    1.3·10⁻⁷ of mass at m = 10¹⁹): T = a(1 + u), a = 2m, over u ∈ [−δ, δ], δ = 10/√a, with the
//    density written exactly as a·f(a(1 + u)) = √(a/2π)·exp(a·(log1p(u) − u) − μ(a))/(1 + u),
//    μ(a) = lnΓ(a) − (a − ½)ln a + a − ½ln 2π = 1/(12a) − 1/(360a³) + ε, |ε| < 1/(1260a⁵)
//    (Stirling's series, alternating). The tails left out are below e^{−46} < 10⁻²⁰ by the
//    Chernoff bounds Pr[T ≥ a(1+δ)] ≤ e^{−a(δ − ln(1+δ))}, Pr[T ≤ a(1−δ)] ≤ e^{a(δ + ln(1−δ))}
//    (exponents ≤ −(50 − 333/√a) ≤ −46 for a > 2·10⁵).
struct LaplaceSum {
    static constexpr double kLargeShape = 1e5;
    double m, a;
    double lo, hi;  // the range of T (small m) or of u (large m)
    explicit LaplaceSum(double terms) : m(terms), a(2 * terms) {
        if (m <= kLargeShape) {
            lo = boost::math::gamma_p_inv(a, 1e-20);
            hi = boost::math::gamma_q_inv(a, 1e-20);
        } else {
            hi = 10 / std::sqrt(a);
            lo = -hi;
        }
    }
    double absCdf(double y) const {
        if (y <= 0)
            return 0;
        auto inner = [&](double t) {
            const double w = y / t;
            return w >= 1 ? 1.0 : boost::math::ibeta(0.5, m, w * w);
        };
        double p = 0;
        if (m <= kLargeShape) {
            p = boost::math::gamma_p(a, y);
            const double from = std::max(y, lo);
            auto f = [&](double t) { return inner(t) * boost::math::gamma_p_derivative(a, t); };
            const double mode = std::clamp(a - 1, from, hi);  // split at the peak
            if (mode > from)
                p += integrate(f, from, mode);
            if (mode < hi)
                p += integrate(f, mode, hi);
        } else {
            const double mu = 1 / (12 * a) - 1 / (360 * a * a * a);
            const double c = std::sqrt(a / (2 * std::numbers::pi));
            auto f = [&](double u) {
                return inner(a * (1 + u)) * c * std::exp(a * boost::math::log1pmx(u) - mu) /
                       (1 + u);
            };
            // The kink of inner() at T = y (u = y/a − 1), if inside, and the peak at u = 0.
            std::vector<double> cuts{lo, hi};
            const double uy = y / a - 1;
            if (uy > lo && uy < hi)
                cuts.push_back(uy);
            if (0 > lo && 0 < hi)
                cuts.push_back(0);
            std::sort(cuts.begin(), cuts.end());
            for (std::size_t i = 0; i + 1 < cuts.size(); ++i)
                p += integrate(f, cuts[i], cuts[i + 1]);
        }
        return std::clamp(p, 0.0, 1.0);
    }
};

// The smallest x in [0, hi] with cdf(x) ≥ level for a continuous, increasing cdf (TOMS 748).
double continuousQuantile(const auto& cdf, double level, double hi) {
    auto g = [&](double x) { return cdf(x) - level; };
    std::uintmax_t iterations = 200;
    const auto r = boost::math::tools::toms748_solve(
        g, 0.0, hi, -level, g(hi), boost::math::tools::eps_tolerance<double>(48), iterations);
    return (r.first + r.second) / 2;
}

}  // namespace

// ---- TableQuery ------------------------------------------------------------------------------

TableQuery TableQuery::all(const ContingencyTable& table) {
    TableQuery q;
    for (const Attribute& a : table.attributes())
        q.box.push_back({0, a.size() - 1});
    return q;
}

Expected<TableQuery> TableQuery::marginalCell(
    const ContingencyTable& table, std::span<const std::pair<std::size_t, std::uint64_t>> fixed) {
    TableQuery q = all(table);
    std::vector<bool> seen(table.attributeCount(), false);
    for (const auto& [a, bin] : fixed) {
        if (a >= table.attributeCount()) {
            return Error{"attribute number " + std::to_string(a + 1) + " does not exist (" +
                         std::to_string(table.attributeCount()) + " attributes)"};
        }
        if (seen[a])
            return Error{"attribute '" + table.attribute(a).name + "' is fixed twice"};
        seen[a] = true;
        if (bin >= table.attribute(a).size()) {
            return Error{"attribute '" + table.attribute(a).name + "' has " +
                         std::to_string(table.attribute(a).size()) + " bins; there is no bin #" +
                         std::to_string(bin)};
        }
        q.box[a] = {bin, bin};
    }
    return q;
}

TableQuery TableQuery::ofCells(std::vector<std::uint64_t> cells) {
    TableQuery q;
    q.kind = Kind::Cells;
    q.cells = std::move(cells);
    return q;
}

Status TableQuery::validate(const ContingencyTable& table) const {
    if (table.attributeCount() == 0)
        return Error{"the table is empty (no attribute)"};
    if (kind == Kind::Box) {
        if (box.size() != table.attributeCount()) {
            return Error{"a box needs one range per attribute: the table has " +
                         std::to_string(table.attributeCount()) + " attributes, the box " +
                         std::to_string(box.size()) + " ranges"};
        }
        for (std::size_t a = 0; a < box.size(); ++a) {
            const Attribute& at = table.attribute(a);
            if (box[a].lo > box[a].hi || box[a].hi >= at.size()) {
                return Error{"attribute '" + at.name + "': the range #" +
                             std::to_string(box[a].lo) + "..#" + std::to_string(box[a].hi) +
                             " is not inside its bins #0..#" + std::to_string(at.size() - 1)};
            }
        }
        return okStatus();
    }
    if (cells.empty())
        return Error{"a query of cells needs at least one cell"};
    std::vector<std::uint64_t> sorted = cells;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (CellCount{sorted[i]} >= table.cellCount()) {
            return Error{"cell index " + std::to_string(sorted[i]) + " is outside the domain of " +
                         cellCountText(table.cellCount()) + " cells"};
        }
        if (i > 0 && sorted[i - 1] == sorted[i])
            return Error{"cell " + table.cellLabel(sorted[i]) + " is in the query twice"};
    }
    return okStatus();
}

CellCount TableQuery::cellCount(const ContingencyTable& table) const {
    (void)table;
    if (kind == Kind::Cells)
        return cells.size();
    CellCount n = 1;
    for (const BinRange& r : box)
        n *= CellCount{r.hi - r.lo} + 1;
    return n;
}

std::string TableQuery::describe(const ContingencyTable& table) const {
    if (kind == Kind::Cells)
        return cells.size() == 1 ? "1 cell" : std::to_string(cells.size()) + " cells";
    std::string s;
    for (std::size_t a = 0; a < box.size() && a < table.attributeCount(); ++a) {
        const Attribute& at = table.attribute(a);
        if (box[a].lo == 0 && box[a].hi + 1 == at.size())
            continue;
        s += (s.empty() ? "" : ", ") + at.name + " = " + at.labels[box[a].lo];
        if (box[a].hi != box[a].lo)
            s += " … " + at.labels[box[a].hi];
    }
    return s.empty() ? "all cells" : s;
}

Expected<TableQuery> parseBoxQuery(const ContingencyTable& table, std::string_view text) {
    TableQuery q = TableQuery::all(table);
    const std::string s = trim(text);
    if (s.empty())
        return q;  // no attribute named: the whole domain
    // Items start at the beginning or after a comma, with "NAME=" for an attribute NAME (labels
    // may contain commas, "[0, 10)", so the text is split only where an attribute name follows).
    struct Item {
        std::size_t attribute, start, valueStart;
    };
    std::vector<Item> items;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i != 0 && s[i - 1] != ',')
            continue;
        std::size_t j = i;
        while (j < s.size() && s[j] == ' ')
            ++j;
        std::optional<std::size_t> best;
        for (std::size_t a = 0; a < table.attributeCount(); ++a) {
            const std::string& name = table.attribute(a).name;
            std::size_t e = j + name.size();
            if (s.compare(j, name.size(), name) != 0)
                continue;
            while (e < s.size() && s[e] == ' ')
                ++e;
            if (e < s.size() && s[e] == '=' &&
                (!best || name.size() > table.attribute(*best).name.size()))
                best = a;
        }
        if (best) {
            const std::size_t eq = s.find('=', j + table.attribute(*best).name.size());
            items.push_back({*best, i, eq + 1});
        } else if (i == 0) {
            const std::size_t eq = s.find('=');
            const std::string name = trim(s.substr(0, std::min(eq, s.find(','))));
            if (eq == std::string::npos) {
                return Error{"the box '" + s + "' is not of the form ATTR=LO..HI,ATTR=BIN,…"};
            }
            auto idx = table.attributeIndex(name);
            return idx.error();
        }
    }
    std::vector<bool> seen(table.attributeCount(), false);
    for (std::size_t n = 0; n < items.size(); ++n) {
        const Item& it = items[n];
        const std::size_t end = n + 1 < items.size() ? items[n + 1].start - 1 : s.size();
        const std::string value = trim(s.substr(it.valueStart, end - it.valueStart));
        const Attribute& at = table.attribute(it.attribute);
        if (seen[it.attribute])
            return Error{"attribute '" + at.name + "' is named twice in the box"};
        seen[it.attribute] = true;
        if (value.empty()) {
            return Error{"attribute '" + at.name +
                         "': no bins given (write NAME=LO..HI, NAME=LABEL or NAME=#n)"};
        }
        auto r = parseRange(at, value);
        if (!r)
            return r.error();
        q.box[it.attribute] = *r;
    }
    return q;
}

Expected<std::int64_t> trueAnswer(const ContingencyTable& table, const TableQuery& query) {
    if (auto st = query.validate(table); !st)
        return st.error();
    std::int64_t sum = 0;
    if (query.kind == TableQuery::Kind::Cells) {
        for (std::uint64_t i : query.cells)
            sum += table.count(i);
        return sum;
    }
    const CellCount boxCells = query.cellCount(table);
    if (table.isDense() && boxCells < CellCount{table.occupiedCount()} * table.attributeCount()) {
        const auto& counts = table.denseCounts();
        forEachBoxCell(table, query.box, [&](std::uint64_t i) { sum += counts[i]; });
    } else {
        table.forEachOccupied([&](std::uint64_t i, std::int64_t c) {
            if (inBox(table, query.box, i))
                sum += c;
        });
    }
    return sum;
}

Expected<double> noisyAnswer(const ContingencyTable& table, const TableQuery& query,
                             std::span<const double> noisyDense) {
    if (auto st = query.validate(table); !st)
        return st.error();
    if (CellCount{noisyDense.size()} != table.cellCount()) {
        return Error{"the noisy table has " + std::to_string(noisyDense.size()) +
                     " values but the table has " + cellCountText(table.cellCount()) + " cells"};
    }
    double sum = 0;
    if (query.kind == TableQuery::Kind::Cells) {
        for (std::uint64_t i : query.cells)
            sum += noisyDense[i];
    } else {
        forEachBoxCell(table, query.box, [&](std::uint64_t i) { sum += noisyDense[i]; });
    }
    if (!std::isfinite(sum))
        return Error{"the noisy answer is not a finite number"};
    return sum;
}

Expected<double> noisyAnswerSparse(const ContingencyTable& table, const TableQuery& query,
                                   std::span<const std::pair<std::uint64_t, double>> released) {
    if (auto st = query.validate(table); !st)
        return st.error();
    std::vector<std::uint64_t> cells;
    if (query.kind == TableQuery::Kind::Cells) {
        cells = query.cells;
        std::sort(cells.begin(), cells.end());
    }
    double sum = 0;
    for (const auto& [i, v] : released) {
        if (CellCount{i} >= table.cellCount()) {
            return Error{"released cell index " + std::to_string(i) + " is outside the domain of " +
                         cellCountText(table.cellCount()) + " cells"};
        }
        const bool in = query.kind == TableQuery::Kind::Cells
                            ? std::binary_search(cells.begin(), cells.end(), i)
                            : inBox(table, query.box, i);
        if (in)
            sum += v;
    }
    if (!std::isfinite(sum))
        return Error{"the noisy answer is not a finite number"};
    return sum;
}

// ---- SummedNoise -----------------------------------------------------------------------------

double SummedNoise::variance() const {
    return cell.variance() * cellCountDouble(terms);
}

double SummedNoise::rmse() const {
    return std::sqrt(variance());
}

// Closed forms (m as a double: for m > 2⁵³ its rounding changes the result by < 2⁻⁵³ relative):
//  Gaussian: Σ ~ N(0, mσ²), E|Σ| = σ√(2m/π).
//  Laplace: Σ = b(G₁ − G₂) = bT(2B − 1) (see LaplaceSum), E|Σ| = b·E[T]·E|2B − 1| with
//    E|2B − 1| = 2·4^{−m}/(m·B(m, m)) (from d/dx[xᵐ(1−x)ᵐ] = m xᵐ⁻¹(1−x)ᵐ⁻¹(1 − 2x)), so
//    E|Σ| = 4b·Γ(2m)/(4ᵐΓ(m)²) = 2b·Γ(m + ½)/(√π·Γ(m)) (Legendre duplication); the ratio by
//    Boost.Math tgamma_delta_ratio (relative error a few ulps for every m).
//  Discrete Laplace: the Fejér-kernel inversion of discreteMeanAbs (adaptive Gauss–Kronrod,
//    relative tolerance 10⁻¹³).
double SummedNoise::meanAbs() const {
    if (terms <= 1)
        return cell.meanAbs();
    const double m = cellCountDouble(terms);
    const double p = cell.parameter();
    switch (cell.kind()) {
        case NoiseKind::Gaussian:
            return p * std::sqrt(2 * m / std::numbers::pi);
        case NoiseKind::Laplace:
            return 2 * p / (std::sqrt(std::numbers::pi) * boost::math::tgamma_delta_ratio(m, 0.5));
        case NoiseKind::DiscreteLaplace:
            return discreteMeanAbs(p, m);
    }
    return std::numeric_limits<double>::quiet_NaN();
}

// Quantiles of |Σ|:
//  Gaussian: σ√m·√2·erf⁻¹(level), closed form.
//  Laplace: the root of LaplaceSum::absCdf(x/b) = level (TOMS 748, relative tolerance 2⁻⁴⁷); the
//    cdf is exact up to the quadrature tolerance 10⁻¹³ and the 2·10⁻²⁰ of Gamma mass left out.
//  Discrete Laplace: the smallest integer k with Pr[|Σ| ≤ k] ≥ level (bisection over integers;
//    each probability by the Dirichlet-kernel inversion of discreteAbsCdf, accurate to about
//    10⁻¹²; when m is so large that one value of Σ has a probability below that, k can be off by
//    the few units whose probabilities that error spans — a relative error below 10⁻⁹).
// The search is bracketed by Chebyshev's bound Pr[|Σ| > x] ≤ Var/x².
double SummedNoise::absQuantile(double level) const {
    if (terms <= 1)
        return cell.absQuantile(level);
    const double m = cellCountDouble(terms);
    const double p = cell.parameter();
    const double hi = std::sqrt(variance() / (1 - level)) * 1.01;
    switch (cell.kind()) {
        case NoiseKind::Gaussian:
            return p * std::sqrt(m) * std::numbers::sqrt2 * boost::math::erf_inv(level);
        case NoiseKind::Laplace: {
            const LaplaceSum law(m);
            return continuousQuantile([&](double x) { return law.absCdf(x / p); }, level, hi);
        }
        case NoiseKind::DiscreteLaplace: {
            double lo = 0, up = std::ceil(hi);  // Pr[|Σ| ≤ up] ≥ level
            if (discreteAbsCdf(p, m, 0) >= level)
                return 0;
            while (up - lo > 1) {  // invariant: cdf(lo) < level ≤ cdf(up)
                const double mid = std::floor(lo + (up - lo) / 2);
                (discreteAbsCdf(p, m, mid) >= level ? up : lo) = mid;
            }
            return up;
        }
    }
    return std::numeric_limits<double>::quiet_NaN();
}

std::string SummedNoise::describe() const {
    return "sum of " + cellCountText(terms) + " " + cell.describe();
}

Expected<QueryReadout> queryReadout(const ContingencyTable& table, const TableQuery& query,
                                    const NoiseDistribution& cellNoise, double level,
                                    std::span<const double> noisyDense) {
    if (!(level > 0 && level < 1)) {
        return Error{"the confidence level must be strictly between 0 and 1 (got " +
                     formatNumber(level) + ")"};
    }
    const double p = cellNoise.parameter();
    if (cellNoise.kind() == NoiseKind::DiscreteLaplace ? !(p > 0 && p < 1)
                                                       : !(std::isfinite(p) && p > 0)) {
        return Error{"the cell noise " + cellNoise.describe() +
                     " is not a valid law (b and σ must be finite and > 0, α in (0, 1))"};
    }
    auto truth = trueAnswer(table, query);
    if (!truth)
        return truth.error();
    QueryReadout r;
    r.query = query.describe(table);
    r.cells = query.cellCount(table);
    r.truth = *truth;
    r.level = level;
    if (!noisyDense.empty()) {
        auto noisy = noisyAnswer(table, query, noisyDense);
        if (!noisy)
            return noisy.error();
        r.noisy = *noisy;
    }
    const SummedNoise sum{cellNoise, r.cells};
    r.rmse = sum.rmse();
    r.meanAbsError = sum.meanAbs();
    r.halfWidth = sum.absQuantile(level);
    r.method = "exact (" + sum.describe() + ")";
    return r;
}

}  // namespace dpx
