#include "app/cli/commands/audit.h"

#include <QJsonArray>
#include <QJsonObject>
#include <chrono>
#include <cmath>
#include <optional>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/output.h"
#include "core/audit/dp_audit.h"
#include "core/base/noise_distribution.h"
#include "core/base/simulation_rng.h"
#include "core/count/count_mechanism.h"
#include "core/release/exact_samplers.h"

namespace dpx::cli {

namespace {

constexpr double kMaxAuditEpsilon = 10;
constexpr std::uint64_t kDefaultSamples = 1000000;
constexpr double kAuditAlpha = 1e-7;
constexpr int kGmPeople = 10;  // GM on n = 10, audited at true counts 4 and 5

// One audit to run: the mechanism, its neighbouring inputs, the event families and the claim.
struct AuditCase {
    std::string name;
    bool broken = false;
    std::string description;
    AuditMechanism mechanism;
    std::int64_t first = 0, second = 1;
    AuditEventFamilies families;
    double delta = 0;
    std::string note;
};

AuditEventFamilies integerFamilies() {
    return {true, true, true, true};
}

AuditEventFamilies thresholdFamilies() {
    return {true, false, false, false};
}

AuditMechanism continuousLaplace(double b) {
    const NoiseDistribution noise = NoiseDistribution::laplace(b);
    return [noise](const std::vector<std::int64_t>& in, AuditRandomness& rng) -> Expected<double> {
        return static_cast<double>(in[0]) + sampleNoise(noise, rng.simulation());
    };
}

AuditMechanism matrixMechanism(const CountMechanismSampler& sampler) {
    return
        [sampler](const std::vector<std::int64_t>& in, AuditRandomness& rng) -> Expected<double> {
            auto i = sampler.sample(static_cast<std::size_t>(in[0]), rng);
            if (!i) {
                return i.error();
            }
            return static_cast<double>(*i);
        };
}

Expected<AuditCase> correctCase(const std::string& name, const Rational& eps, double epsD,
                                double delta) {
    AuditCase c;
    c.name = name;
    if (name == "discrete-laplace") {
        const DiscreteLaplaceParams p{eps, 1};
        if (auto s = p.validate(); !s) {
            return s.error();
        }
        const Rational t = p.scale();
        c.description = "exact discrete Laplace, t = 1/epsilon = " + t.toString() + ", h vs h+1";
        c.mechanism = [t](const std::vector<std::int64_t>& in,
                          AuditRandomness& rng) -> Expected<double> {
            auto z = sampleDiscreteLaplace(t, rng);
            if (!z) {
                return z.error();
            }
            return static_cast<double>(in[0] + *z);
        };
        c.families = integerFamilies();
    } else if (name == "discrete-gaussian") {
        auto cal = calibrateDiscreteGaussian(eps, delta, 1);
        if (!cal) {
            return cal.error();
        }
        const Rational s2 = cal->sigma2;
        c.description = "exact discrete Gaussian, sigma^2 = " + s2.toString() +
                        " calibrated to (epsilon, delta), h vs h+1";
        c.mechanism = [s2](const std::vector<std::int64_t>& in,
                           AuditRandomness& rng) -> Expected<double> {
            auto z = sampleDiscreteGaussian(s2, rng);
            if (!z) {
                return z.error();
            }
            return static_cast<double>(in[0] + *z);
        };
        c.families = integerFamilies();
        c.delta = cal->delta;
        c.note = "audited against the delta computed at sigma^2 (claimed_delta), at most --delta";
    } else if (name == "gm") {
        auto gm = truncatedGeometric(kGmPeople, epsD);
        if (!gm) {
            return gm.error();
        }
        auto sampler = CountMechanismSampler::create(*gm);
        if (!sampler) {
            return sampler.error();
        }
        c.description = "GM matrix (n = 10) through the exact matrix sampler, count 4 vs 5";
        c.mechanism = matrixMechanism(*sampler);
        c.first = 4;
        c.second = 5;
        c.families = integerFamilies();
    } else if (name == "laplace") {
        c.description = "continuous Laplace b = 1/epsilon (simulation path), h vs h+1";
        c.mechanism = continuousLaplace(1 / epsD);
        c.families = thresholdFamilies();
        c.note =
            "threshold events only: floating-point Laplace is porous in its low-order bits "
            "(try --broken naive-float-laplace); releases use the exact samplers";
    } else {
        return Error{"--mechanism: unknown mechanism '" + name +
                     "' (discrete-laplace, discrete-gaussian, gm, laplace or all)"};
    }
    return c;
}

// Deliberately broken mechanisms (negative controls), NOT DP and never used outside `dpx audit`.
Expected<AuditCase> brokenCase(const std::string& name, double epsD) {
    AuditCase c;
    c.name = name;
    c.broken = true;
    if (name == "laplace-half-scale") {
        c.description = "BROKEN: continuous Laplace at b = 1/(2 epsilon), true epsilon doubled";
        c.mechanism = continuousLaplace(0.5 / epsD);
        c.families = thresholdFamilies();
    } else if (name == "naive-float-laplace") {
        // Textbook inverse-CDF Laplace in doubles (Mironov, CCS 2012): under D = 0 the output is X
        // itself, whose bits go below 2^-53 near 0; under D' = 1 every output fl(1 + X) is a
        // multiple of 2^-53 — a porous output set the low-order-bit events find.
        const double b = 1 / epsD;
        c.description =
            "BROKEN: naive floating-point Laplace b = 1/epsilon (inverse CDF in "
            "doubles), 0 vs 1";
        c.mechanism = [b](const std::vector<std::int64_t>& in,
                          AuditRandomness& rng) -> Expected<double> {
            const double u = rng.simulation().uniform() - 0.5;
            const double sign = u < 0 ? -1.0 : 1.0;
            return static_cast<double>(in[0]) - b * sign * std::log(1 - 2 * std::fabs(u));
        };
        c.families = {true, false, true, true};
    } else if (name == "perturbed-matrix") {
        auto gm = truncatedGeometric(kGmPeople, epsD);
        if (!gm) {
            return gm.error();
        }
        // Column 5: three quarters of P[4][5] moved to P[5][5]; achieved ε = claimed + ln 4.
        std::vector<std::vector<double>> rows(gm->size(), std::vector<double>(gm->size()));
        for (std::size_t i = 0; i < gm->size(); ++i) {
            for (std::size_t j = 0; j < gm->size(); ++j) {
                rows[i][j] = gm->at(i, j);
            }
        }
        const double moved = rows[4][5] * 0.75;
        rows[4][5] -= moved;
        rows[5][5] += moved;
        auto broken = CountMechanism::fromRows(rows, "GM with column 5 perturbed");
        if (!broken) {
            return broken.error();
        }
        auto sampler = CountMechanismSampler::create(*broken);
        if (!sampler) {
            return sampler.error();
        }
        c.description = "BROKEN: GM (n = 10) with P[4][5] divided by 4 (achieved epsilon " +
                        std::to_string(broken->achievedEpsilon()) + "), count 4 vs 5";
        c.mechanism = matrixMechanism(*sampler);
        c.first = 4;
        c.second = 5;
        c.families = integerFamilies();
    } else {
        return Error{"--broken: unknown mechanism '" + name +
                     "' (laplace-half-scale, naive-float-laplace or perturbed-matrix)"};
    }
    return c;
}

QJsonArray familyNames(const AuditEventFamilies& f) {
    QJsonArray a;
    if (f.thresholds) {
        a.append(QStringLiteral("thresholds"));
    }
    if (f.points) {
        a.append(QStringLiteral("points"));
    }
    if (f.lowOrderBits) {
        a.append(QStringLiteral("low-order-bits"));
    }
    if (f.observedOnly) {
        a.append(QStringLiteral("observed-only"));
    }
    return a;
}

QJsonObject directionJson(const AuditDirection& d) {
    QJsonObject o;
    o[QStringLiteral("direction")] =
        d.leftIsFirst ? QStringLiteral("Pr[M(D) in S] <= e^eps Pr[M(D') in S] + delta")
                      : QStringLiteral("Pr[M(D') in S] <= e^eps Pr[M(D) in S] + delta");
    o[QStringLiteral("event")] = d.found ? QJsonValue(qs(d.event.describe())) : QJsonValue();
    o[QStringLiteral("left_count")] = static_cast<double>(d.leftCount);
    o[QStringLiteral("right_count")] = static_cast<double>(d.rightCount);
    o[QStringLiteral("test_samples")] = static_cast<double>(d.n);
    o[QStringLiteral("left_lower")] = d.leftLower;
    o[QStringLiteral("right_upper")] = d.rightUpper;
    o[QStringLiteral("epsilon_lower_bound")] = d.epsilonLowerBound;
    o[QStringLiteral("violation")] = d.violation;
    return o;
}

}  // namespace

int cmdAudit(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args =
        Args::parse(argv, 2, {"mechanism", "epsilon", "delta", "samples", "seed", "broken"});
    if (!args) {
        return fail(err, args.error().message);
    }
    const Args& a = *args;
    auto eps = parseDecimal(a.text("epsilon", "1"), "--epsilon");
    if (!eps) {
        return fail(err, eps.error().message);
    }
    const double epsD = eps->toDouble();
    if (!(eps->sign() > 0) || !(epsD <= kMaxAuditEpsilon)) {
        return fail(err, "--epsilon must be > 0 and at most 10");
    }
    auto delta = a.number("delta", 1e-5);
    if (!delta) {
        return fail(err, delta.error().message);
    }
    if (!(*delta > 0 && *delta < 1)) {
        return fail(err, "--delta must be in (0, 1)");
    }
    auto samples = a.unsignedInt("samples", kDefaultSamples);
    if (!samples) {
        return fail(err, samples.error().message);
    }
    auto seed = a.unsignedInt("seed", 1);
    if (!seed) {
        return fail(err, seed.error().message);
    }
    if (a.has("broken") && a.has("mechanism")) {
        return fail(err, "give --mechanism or --broken, not both");
    }
    if (a.has("delta") &&
        (a.has("broken") || (a.text("mechanism", "all") != "all" &&
                             a.text("mechanism", "all") != "discrete-gaussian"))) {
        return fail(err, "--delta applies only to --mechanism discrete-gaussian (or all)");
    }

    std::vector<AuditCase> cases;
    if (a.has("broken")) {
        auto c = brokenCase(a.text("broken", ""), epsD);
        if (!c) {
            return fail(err, c.error().message);
        }
        cases.push_back(std::move(*c));
    } else {
        const std::string which = a.text("mechanism", "all");
        std::vector<std::string> names;
        if (which == "all") {
            names = {"discrete-laplace", "discrete-gaussian", "gm", "laplace"};
        } else {
            names = {which};
        }
        for (const auto& n : names) {
            auto c = correctCase(n, *eps, epsD, *delta);
            if (!c) {
                return fail(err, c.error().message);
            }
            cases.push_back(std::move(*c));
        }
    }

    QJsonArray audits;
    bool allAsExpected = true;
    for (const auto& c : cases) {
        AuditParams p;
        p.epsilon = epsD;
        p.delta = c.delta;
        p.samplesPerInput = *samples;
        p.alpha = kAuditAlpha;
        p.seed = *seed;
        p.families = c.families;
        if (auto s = p.validate(); !s) {
            return fail(err, "--samples: " + s.error().message);
        }
        const auto t0 = std::chrono::steady_clock::now();
        auto r = runDpAudit(c.mechanism, {c.first}, {c.second}, p);
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!r) {
            err << "dpx: error: audit of " << c.name << ": " << r.error().message << '\n';
            return kFailure;
        }
        const bool asExpected = r->violationFound == c.broken;
        allAsExpected = allAsExpected && asExpected;
        const AuditDirection& t = r->tightest();
        QJsonObject o;
        o[QStringLiteral("mechanism")] = qs(c.name);
        o[QStringLiteral("broken")] = c.broken;
        o[QStringLiteral("description")] = qs(c.description);
        o[QStringLiteral("claimed_epsilon")] = epsD;
        o[QStringLiteral("claimed_delta")] = c.delta;
        o[QStringLiteral("neighbours")] =
            QJsonArray{static_cast<double>(c.first), static_cast<double>(c.second)};
        o[QStringLiteral("event_families")] = familyNames(c.families);
        o[QStringLiteral("candidate_events")] = static_cast<double>(r->candidateEvents);
        o[QStringLiteral("verdict")] =
            r->violationFound ? QStringLiteral("violation") : QStringLiteral("passed");
        o[QStringLiteral("expected_verdict")] =
            c.broken ? QStringLiteral("violation") : QStringLiteral("passed");
        o[QStringLiteral("as_expected")] = asExpected;
        o[QStringLiteral("tightest_event")] =
            t.found ? QJsonValue(qs(t.event.describe())) : QJsonValue();
        o[QStringLiteral("epsilon_lower_bound")] = t.epsilonLowerBound;
        o[QStringLiteral("epsilon_lower_bound_confidence")] = 1 - kAuditAlpha;
        o[QStringLiteral("violation_confidence")] = 1 - kAuditAlpha;
        o[QStringLiteral("samples_per_input")] = static_cast<double>(*samples);
        o[QStringLiteral("seconds")] = secs;
        o[QStringLiteral("directions")] =
            QJsonArray{directionJson(r->directions[0]), directionJson(r->directions[1])};
        QJsonArray warnings;
        for (const auto& w : r->warnings) {
            warnings.append(qs(w));
        }
        o[QStringLiteral("warnings")] = warnings;
        if (!c.note.empty()) {
            o[QStringLiteral("note")] = qs(c.note);
        }
        audits.append(o);
    }
    QJsonObject o;
    o[QStringLiteral("command")] = QStringLiteral("audit");
    o[QStringLiteral("seed")] = QString::number(*seed);
    o[QStringLiteral("alpha")] = kAuditAlpha;
    o[QStringLiteral("method")] = QStringLiteral(
        "event chosen on the first half of the samples, tested on the second with one-sided "
        "Clopper-Pearson bounds at alpha/4 per side; a false alarm for an (epsilon, delta)-DP "
        "mechanism has probability <= alpha per audit");
    o[QStringLiteral("audits")] = audits;
    o[QStringLiteral("all_as_expected")] = allAsExpected;
    printJson(out, o);
    return allAsExpected ? kOk : kFailure;
}

}  // namespace dpx::cli
