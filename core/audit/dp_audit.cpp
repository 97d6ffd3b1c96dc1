#include "core/audit/dp_audit.h"

#include <boost/math/special_functions/beta.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <span>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace dpx {

namespace {

Status checkBinomial(std::uint64_t k, std::uint64_t n, double alpha) {
    if (n == 0) {
        return Error{"Clopper-Pearson: n must be at least 1"};
    }
    if (k > n) {
        return Error{"Clopper-Pearson: k = " + std::to_string(k) +
                     " exceeds n = " + std::to_string(n)};
    }
    if (!(alpha > 0 && alpha < 1)) {
        return Error{"Clopper-Pearson: alpha must be in (0, 1)"};
    }
    return okStatus();
}

constexpr int kZeroLowBit = 4096;  // v(0): above every finite double's lowest-bit exponent

// Exponent of the lowest set bit of |y| (y = m·2^v with m odd); kZeroLowBit for 0.
int lowestBitExponent(double y) {
    if (y == 0) {
        return kZeroLowBit;
    }
    int e = 0;
    const double m = std::frexp(std::fabs(y), &e);  // |y| = m·2^e, m in [0.5, 1)
    // m·2^53 is an integer below 2^53 for every finite double (subnormals included).
    const auto mantissa = static_cast<std::uint64_t>(std::ldexp(m, 53));
    return e - 53 + std::countr_zero(mantissa);
}

std::uint64_t bitsOf(double y) {
    return std::bit_cast<std::uint64_t>(y);
}

// Clopper–Pearson bounds for one n and α, memoised by k (counts repeat across events).
class BoundCache {
public:
    BoundCache(std::uint64_t n, double alpha) : n_(n), alpha_(alpha) {}
    double lower(std::uint64_t k) {
        auto it = lower_.find(k);
        if (it != lower_.end()) {
            return it->second;
        }
        const double v = clopperPearsonLower(k, n_, alpha_).value();
        lower_.emplace(k, v);
        return v;
    }
    double upper(std::uint64_t k) {
        auto it = upper_.find(k);
        if (it != upper_.end()) {
            return it->second;
        }
        const double v = clopperPearsonUpper(k, n_, alpha_).value();
        upper_.emplace(k, v);
        return v;
    }

private:
    std::uint64_t n_;
    double alpha_;
    std::unordered_map<std::uint64_t, double> lower_, upper_;
};

constexpr double kNoEvidence = -std::numeric_limits<double>::infinity();

// ln((lo − δ)/hi), or kNoEvidence when lo ≤ δ.
double epsilonBound(double lo, double hi, double delta) {
    if (!(lo > delta)) {
        return kNoEvidence;
    }
    return std::log((lo - delta) / hi);
}

struct Candidate {
    AuditEvent event;
    double score = kNoEvidence;
};

// Sorted values of one feature for both inputs, with counting helpers.
struct SortedPair {
    std::vector<double> a, b;
    static std::uint64_t le(const std::vector<double>& v, double t) {
        return static_cast<std::uint64_t>(std::upper_bound(v.begin(), v.end(), t) - v.begin());
    }
    static std::uint64_t lt(const std::vector<double>& v, double t) {
        return static_cast<std::uint64_t>(std::lower_bound(v.begin(), v.end(), t) - v.begin());
    }
};

std::vector<double> sortedCopy(std::span<const double> v) {
    std::vector<double> s(v.begin(), v.end());
    std::sort(s.begin(), s.end());
    return s;
}

// Distinct values of the pooled samples, or a quantile grid of them when there are too many.
std::vector<double> thresholdValues(const std::vector<double>& a, const std::vector<double>& b,
                                    std::size_t grid) {
    std::vector<double> pooled;
    pooled.reserve(a.size() + b.size());
    std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(pooled));
    std::vector<double> distinct = pooled;
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    if (distinct.size() <= kAuditMaxDistinctValues) {
        return distinct;
    }
    std::vector<double> out;
    out.reserve(grid);
    for (std::size_t i = 0; i < grid; ++i) {
        const double q = (static_cast<double>(i) + 0.5) / static_cast<double>(grid);
        const auto idx = static_cast<std::size_t>(q * static_cast<double>(pooled.size()));
        out.push_back(pooled[std::min(idx, pooled.size() - 1)]);
    }
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

bool inEvent(const AuditEvent& e, double y, const std::unordered_set<std::uint64_t>* set) {
    switch (e.kind) {
        case AuditEventKind::AtMost:
            return y <= e.threshold;
        case AuditEventKind::AtLeast:
            return y >= e.threshold;
        case AuditEventKind::Equal:
            return y == e.threshold;
        case AuditEventKind::LowBitsAtMost:
            return lowestBitExponent(y) <= static_cast<int>(e.threshold);
        case AuditEventKind::LowBitsAtLeast:
            return lowestBitExponent(y) >= static_cast<int>(e.threshold);
        case AuditEventKind::ObservedOnlyD:
        case AuditEventKind::ObservedOnlyDp:
            return set != nullptr && set->count(bitsOf(y)) > 0;
    }
    return false;
}

std::uint64_t countIn(const AuditEvent& e, std::span<const double> ys,
                      const std::unordered_set<std::uint64_t>* set) {
    std::uint64_t c = 0;
    for (double y : ys) {
        c += inEvent(e, y, set) ? 1U : 0U;
    }
    return c;
}

// Values of `from` never seen in `other`.
std::unordered_set<std::uint64_t> onlyIn(std::span<const double> from,
                                         std::span<const double> other) {
    std::unordered_set<std::uint64_t> seen;
    seen.reserve(other.size());
    for (double y : other) {
        seen.insert(bitsOf(y));
    }
    std::unordered_set<std::uint64_t> out;
    for (double y : from) {
        if (seen.count(bitsOf(y)) == 0) {
            out.insert(bitsOf(y));
        }
    }
    return out;
}

}  // namespace

Expected<double> clopperPearsonLower(std::uint64_t k, std::uint64_t n, double alpha) {
    if (auto s = checkBinomial(k, n, alpha); !s) {
        return s.error();
    }
    if (k == 0) {
        return 0.0;
    }
    try {
        return boost::math::ibeta_inv(static_cast<double>(k), static_cast<double>(n - k + 1),
                                      alpha);
    } catch (const std::exception& e) {
        return Error{std::string("Clopper-Pearson lower bound: ") + e.what()};
    }
}

Expected<double> clopperPearsonUpper(std::uint64_t k, std::uint64_t n, double alpha) {
    if (auto s = checkBinomial(k, n, alpha); !s) {
        return s.error();
    }
    if (k == n) {
        return 1.0;
    }
    try {
        // ibetac_inv(a, b, α) = the (1 − α)-quantile, without forming 1 − α.
        return boost::math::ibetac_inv(static_cast<double>(k + 1), static_cast<double>(n - k),
                                       alpha);
    } catch (const std::exception& e) {
        return Error{std::string("Clopper-Pearson upper bound: ") + e.what()};
    }
}

Status AuditParams::validate() const {
    if (!(std::isfinite(epsilon) && epsilon > 0)) {
        return Error{"audit: epsilon must be a finite number > 0"};
    }
    if (!(delta >= 0 && delta < 1)) {
        return Error{"audit: delta must be in [0, 1)"};
    }
    if (samplesPerInput < 1000 || samplesPerInput > kAuditMaxSamples || samplesPerInput % 2 != 0) {
        return Error{"audit: samples per input must be an even number from 1000 to 2*10^7"};
    }
    if (!(alpha > 0 && alpha <= 0.5)) {
        return Error{"audit: alpha must be in (0, 0.5]"};
    }
    if (thresholdGrid < 8 || thresholdGrid > 100000) {
        return Error{"audit: threshold grid must be 8 to 100000 points"};
    }
    if (!families.thresholds && !families.points && !families.lowOrderBits &&
        !families.observedOnly) {
        return Error{"audit: no event family selected"};
    }
    return okStatus();
}

std::string AuditEvent::describe() const {
    std::ostringstream s;
    s.precision(17);
    switch (kind) {
        case AuditEventKind::AtMost:
            s << "y <= " << threshold;
            break;
        case AuditEventKind::AtLeast:
            s << "y >= " << threshold;
            break;
        case AuditEventKind::Equal:
            s << "y == " << threshold;
            break;
        case AuditEventKind::LowBitsAtMost:
            s << "lowest set bit of y at or below 2^" << threshold;
            break;
        case AuditEventKind::LowBitsAtLeast:
            if (threshold >= kZeroLowBit) {
                s << "y == 0";
            } else {
                s << "y is a multiple of 2^" << threshold;
            }
            break;
        case AuditEventKind::ObservedOnlyD:
            s << "y among " << threshold << " values seen under D and never under D'";
            break;
        case AuditEventKind::ObservedOnlyDp:
            s << "y among " << threshold << " values seen under D' and never under D";
            break;
    }
    return s.str();
}

const AuditDirection& AuditResult::tightest() const {
    const AuditDirection& a = directions[0];
    const AuditDirection& b = directions[1];
    if (a.violation != b.violation) {
        return a.violation ? a : b;
    }
    return b.epsilonLowerBound > a.epsilonLowerBound ? b : a;
}

Expected<AuditResult> runDpAudit(const AuditMechanism& mechanism,
                                 const std::vector<std::int64_t>& first,
                                 const std::vector<std::int64_t>& second, const AuditParams& params,
                                 std::stop_token stop, const ProgressCallback& progress) {
    if (auto s = params.validate(); !s) {
        return s.error();
    }
    if (!mechanism) {
        return Error{"audit: no mechanism given"};
    }
    const std::uint64_t n = params.samplesPerInput;
    const std::size_t nn = static_cast<std::size_t>(n);

    // 1. Samples: D from stream 0, D′ from stream 1.
    std::vector<double> ys[2] = {std::vector<double>(nn), std::vector<double>(nn)};
    for (int which = 0; which < 2; ++which) {
        AuditRandomness rng(params.seed, static_cast<std::uint64_t>(which));
        const auto& input = which == 0 ? first : second;
        for (std::size_t i = 0; i < nn; ++i) {
            if ((i & 4095U) == 0) {
                if (stop.stop_requested()) {
                    return Error{"audit: stopped"};
                }
                if (progress) {
                    progress((static_cast<double>(which) * static_cast<double>(n) +
                              static_cast<double>(i)) /
                             (2.0 * static_cast<double>(n)));
                }
            }
            auto y = mechanism(input, rng);
            if (!y) {
                return Error{"audit: the mechanism failed: " + y.error().message};
            }
            if (!std::isfinite(*y)) {
                return Error{"audit: the mechanism returned a non-finite output"};
            }
            ys[which][i] = *y;
        }
    }
    if (progress) {
        progress(1.0);
    }

    AuditResult result;
    result.samplesPerInput = n;
    result.alpha = params.alpha;
    result.epsilon = params.epsilon;
    result.delta = params.delta;
    const std::size_t half = nn / 2;
    const std::size_t quarter = half / 2;
    const std::span<const double> selA(ys[0].data(), half), selB(ys[1].data(), half);
    const std::span<const double> testA(ys[0].data() + half, nn - half);
    const std::span<const double> testB(ys[1].data() + half, nn - half);

    // Decided on the selection half only, so the choice of event never looks at the test half.
    result.integerValued = true;
    for (const auto& v : {selA, selB}) {
        for (double y : v) {
            if (!(std::fabs(y) < 0x1p53 && y == std::nearbyint(y))) {
                result.integerValued = false;
                break;
            }
        }
    }

    // 2. Selection: the best-scoring event of each direction on the first half.
    Candidate best[2];
    std::size_t candidates = 0;
    BoundCache selCache(half, params.alpha / 4);
    auto consider = [&](const AuditEvent& e, std::uint64_t kA, std::uint64_t kB, BoundCache& c) {
        ++candidates;
        const std::uint64_t k[2] = {kA, kB};
        for (int d = 0; d < 2; ++d) {
            const std::uint64_t kl = k[d], kr = k[1 - d];
            if (kl == 0) {
                continue;
            }
            const double s = epsilonBound(c.lower(kl), c.upper(kr), params.delta);
            if (s > best[d].score) {
                best[d] = {e, s};
            }
        }
    };

    const auto& fam = params.families;
    if (fam.thresholds || fam.points) {
        SortedPair v{sortedCopy(selA), sortedCopy(selB)};
        const auto ts = thresholdValues(v.a, v.b, params.thresholdGrid);
        for (double t : ts) {
            const std::uint64_t leA = SortedPair::le(v.a, t), leB = SortedPair::le(v.b, t);
            const std::uint64_t ltA = SortedPair::lt(v.a, t), ltB = SortedPair::lt(v.b, t);
            if (fam.thresholds) {
                consider({AuditEventKind::AtMost, t}, leA, leB, selCache);
                consider({AuditEventKind::AtLeast, t}, half - ltA, half - ltB, selCache);
            }
            if (fam.points && result.integerValued) {
                consider({AuditEventKind::Equal, t}, leA - ltA, leB - ltB, selCache);
            }
        }
    }
    if (fam.lowOrderBits) {
        auto lowBits = [](std::span<const double> s) {
            std::vector<double> out(s.size());
            std::transform(s.begin(), s.end(), out.begin(),
                           [](double y) { return static_cast<double>(lowestBitExponent(y)); });
            std::sort(out.begin(), out.end());
            return out;
        };
        SortedPair v{lowBits(selA), lowBits(selB)};
        std::vector<double> ts;
        std::merge(v.a.begin(), v.a.end(), v.b.begin(), v.b.end(), std::back_inserter(ts));
        ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
        for (double t : ts) {
            consider({AuditEventKind::LowBitsAtMost, t}, SortedPair::le(v.a, t),
                     SortedPair::le(v.b, t), selCache);
            consider({AuditEventKind::LowBitsAtLeast, t}, half - SortedPair::lt(v.a, t),
                     half - SortedPair::lt(v.b, t), selCache);
        }
    }
    // Observed-only sets: built from the first quarter, scored on the second quarter.
    std::unordered_set<std::uint64_t> onlySets[2];
    if (fam.observedOnly && quarter > 0) {
        const std::span<const double> qA(ys[0].data(), quarter), qB(ys[1].data(), quarter);
        const std::span<const double> rA(ys[0].data() + quarter, half - quarter);
        const std::span<const double> rB(ys[1].data() + quarter, half - quarter);
        onlySets[0] = onlyIn(qA, qB);
        onlySets[1] = onlyIn(qB, qA);
        BoundCache quarterCache(half - quarter, params.alpha / 4);
        for (int s = 0; s < 2; ++s) {
            if (onlySets[s].empty()) {
                continue;
            }
            const AuditEvent e{
                s == 0 ? AuditEventKind::ObservedOnlyD : AuditEventKind::ObservedOnlyDp,
                static_cast<double>(onlySets[s].size())};
            consider(e, countIn(e, rA, &onlySets[s]), countIn(e, rB, &onlySets[s]), quarterCache);
        }
    }
    result.candidateEvents = candidates;

    // 3. Test on the second half, each side at confidence 1 − α/4.
    const std::uint64_t testN = n - half;
    BoundCache testCache(testN, params.alpha / 4);
    for (int d = 0; d < 2; ++d) {
        AuditDirection& dir = result.directions[d];
        dir.leftIsFirst = d == 0;
        dir.n = testN;
        if (best[d].score == kNoEvidence) {
            dir.found = false;
            continue;
        }
        dir.found = true;
        dir.event = best[d].event;
        dir.selectionScore = best[d].score;
        const std::unordered_set<std::uint64_t>* set = nullptr;
        if (dir.event.kind == AuditEventKind::ObservedOnlyD) {
            set = &onlySets[0];
        } else if (dir.event.kind == AuditEventKind::ObservedOnlyDp) {
            set = &onlySets[1];
        }
        const std::span<const double> left = d == 0 ? testA : testB;
        const std::span<const double> right = d == 0 ? testB : testA;
        dir.leftCount = countIn(dir.event, left, set);
        dir.rightCount = countIn(dir.event, right, set);
        dir.leftLower = testCache.lower(dir.leftCount);
        dir.rightUpper = testCache.upper(dir.rightCount);
        const double e = epsilonBound(dir.leftLower, dir.rightUpper, params.delta);
        dir.epsilonLowerBound = e == kNoEvidence ? 0.0 : std::max(0.0, e);
        dir.violation = dir.leftLower - params.delta > std::exp(params.epsilon) * dir.rightUpper;
        result.violationFound = result.violationFound || dir.violation;
    }
    if (!result.directions[0].found && !result.directions[1].found) {
        result.warnings.push_back(
            "no candidate event had any evidence on the selection half (the two inputs' "
            "samples look identical to the event families searched)");
    }
    return result;
}

}  // namespace dpx
