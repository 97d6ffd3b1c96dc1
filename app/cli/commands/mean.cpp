#include "app/cli/commands/mean.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/output.h"
#include "core/base/validation.h"
#include "core/mechanisms/vector_mechanisms.h"

namespace dpx::cli {

namespace {

// A core error about one option, prefixed with the option's name.
Error about(const std::string& option, const Error& e) {
    return Error{"--" + option + ": " + e.message};
}

QJsonObject mcJson(const McEstimate& e) {
    QJsonObject o;
    o[QStringLiteral("mean")] = e.mean;
    o[QStringLiteral("standard_error")] = e.standardError;
    return o;
}

const char* scaleName(VectorMechanismKind k) {
    switch (k) {
        case VectorMechanismKind::Laplace:
            return "b";
        case VectorMechanismKind::KNorm:
            return "theta";
        default:
            return "sigma";
    }
}

QJsonObject resultJson(const MeanSimulationResult& r) {
    const VectorMeanMechanism& m = r.mechanism;
    QJsonObject o;
    o[QStringLiteral("name")] = QString::fromLatin1(vectorMechanismName(m.spec.kind));
    if (m.spec.kind == VectorMechanismKind::Gaussian) {
        o[QStringLiteral("calibration")] =
            QString::fromLatin1(gaussianCalibrationName(m.spec.calibration));
    }
    o[QStringLiteral("scale_name")] = QString::fromLatin1(scaleName(m.spec.kind));
    o[QStringLiteral("scale")] = m.scale;
    o[QStringLiteral("epsilon")] = m.epsilon;
    o[QStringLiteral("delta")] = m.delta;
    o[QStringLiteral("guarantee")] = qs(m.guarantee);
    QJsonObject expected;
    expected[QStringLiteral("sampling")] = r.expectedSampling;
    expected[QStringLiteral("noise")] = r.expectedNoise;
    expected[QStringLiteral("total")] = r.expectedTotal;
    o[QStringLiteral("expected")] = expected;
    QJsonObject mc;
    mc[QStringLiteral("sampling")] = mcJson(r.sampling);
    mc[QStringLiteral("noise")] = mcJson(r.noise);
    mc[QStringLiteral("total")] = mcJson(r.total);
    o[QStringLiteral("monte_carlo")] = mc;
    QJsonObject b;
    b[QStringLiteral("sampling_worst_case")] = r.bounds.samplingWorstCase;
    b[QStringLiteral("upper_printed")] = r.bounds.upperPrinted;
    b[QStringLiteral("upper")] = r.bounds.upper;
    b[QStringLiteral("lower")] = r.bounds.lower ? QJsonValue(*r.bounds.lower) : QJsonValue();
    if (!r.bounds.lower) {
        b[QStringLiteral("lower_note")] = qs(r.bounds.lowerNote);
    }
    o[QStringLiteral("bounds")] = b;
    QJsonArray w;
    for (const auto& s : r.warnings) {
        w.append(qs(s));
    }
    o[QStringLiteral("warnings")] = w;
    return o;
}

}  // namespace

int cmdMean(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = Args::parse(argv, 2,
                            {"n", "d", "epsilon", "delta", "mechanism", "calibration", "population",
                             "bias", "trials", "seed"});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    if (!a.has("n")) {
        return fail(err, Error{"missing required option --n (the number of records)"});
    }
    if (!a.has("d")) {
        return fail(err, Error{"missing required option --d (the dimension)"});
    }
    auto n = a.unsignedInt("n", 0);
    if (!n) {
        return fail(err, n.error());
    }
    if (*n < 1) {
        return fail(err, Error{"--n: the number of records must be at least 1"});
    }
    auto d = a.unsignedInt("d", 0);
    if (!d) {
        return fail(err, d.error());
    }
    if (*d < 1 || *d > kMaxVectorDimension) {
        return fail(err, Error{"--d: the dimension must be between 1 and " +
                               std::to_string(kMaxVectorDimension) + " (got " + *a.get("d") + ")"});
    }
    auto eps = a.number("epsilon");
    if (!eps) {
        return fail(err, eps.error());
    }
    if (auto s = validateEpsilon(*eps); !s) {
        return fail(err, about("epsilon", s.error()));
    }
    auto delta = a.number("delta");
    if (!delta) {
        return fail(err, Error{"missing required option --delta (0 < δ < 1: the Gaussian "
                               "mechanisms' δ and the δ of the Kamath & Ullman primer's bounds)"});
    }
    if (auto s = validateDelta(*delta); !s) {
        return fail(err, about("delta", s.error()));
    }
    const std::string mechName = a.text("mechanism", "all");
    std::vector<VectorMechanismKind> kinds;
    if (mechName == "all") {
        kinds = {VectorMechanismKind::Gaussian, VectorMechanismKind::GaussianPrinted,
                 VectorMechanismKind::Laplace, VectorMechanismKind::KNorm};
    } else {
        auto k = vectorMechanismFromName(mechName);
        if (!k) {
            return fail(err, Error{"--mechanism: " + k.error().message + " or all"});
        }
        kinds = {*k};
    }
    auto cal = gaussianCalibrationFromName(a.text("calibration", "analytic"));
    if (!cal) {
        return fail(err, about("calibration", cal.error()));
    }
    if (a.has("calibration") && mechName != "all" && kinds[0] != VectorMechanismKind::Gaussian) {
        return fail(err, Error{"--calibration applies to --mechanism gaussian (or all) only"});
    }
    auto pop = meanPopulationFromName(a.text("population", "bias"));
    if (!pop) {
        return fail(err, about("population", pop.error()));
    }
    if (*pop == MeanPopulation::UniformPrior && a.has("bias")) {
        return fail(err, Error{"--bias applies to --population bias only (the uniform prior "
                               "draws every coordinate's mean from U[−1, 1])"});
    }
    auto bias = a.number("bias", 0.0);
    if (!bias) {
        return fail(err, bias.error());
    }
    if (!std::isfinite(*bias) || *bias < -1 || *bias > 1) {
        return fail(err, Error{"--bias: the mean of every coordinate must lie in [−1, 1] (got " +
                               *a.get("bias") + ")"});
    }
    auto trials = a.unsignedInt("trials", 1000);
    if (!trials) {
        return fail(err, trials.error());
    }
    if (*trials < 1 || *trials > 100'000'000) {
        return fail(err, Error{"--trials must be between 1 and 100000000"});
    }
    auto seed = a.unsignedInt("seed", 1);
    if (!seed) {
        return fail(err, seed.error());
    }

    QJsonObject o;
    o[QStringLiteral("n")] = static_cast<qint64>(*n);
    o[QStringLiteral("d")] = static_cast<qint64>(*d);
    o[QStringLiteral("epsilon")] = *eps;
    o[QStringLiteral("delta")] = *delta;
    o[QStringLiteral("neighbouring")] = QStringLiteral("replace-one");
    o[QStringLiteral("l2_sensitivity")] =
        2 * std::sqrt(static_cast<double>(*d)) / static_cast<double>(*n);
    o[QStringLiteral("l1_sensitivity")] = 2 * static_cast<double>(*d) / static_cast<double>(*n);
    o[QStringLiteral("population")] = QString::fromLatin1(meanPopulationName(*pop));
    if (*pop == MeanPopulation::FixedBias) {
        o[QStringLiteral("bias")] = *bias;
    }
    o[QStringLiteral("trials")] = static_cast<qint64>(*trials);
    o[QStringLiteral("seed")] = QString::number(*seed);
    QJsonArray mechs;
    for (auto kind : kinds) {
        MeanSimulationParams p;
        p.release = {
            static_cast<std::size_t>(*n), static_cast<std::size_t>(*d), *eps, *delta, {kind, *cal}};
        p.population = *pop;
        p.bias = *bias;
        p.trials = static_cast<std::size_t>(*trials);
        p.seed = *seed;
        auto r = simulateMeanError(p);
        if (!r) {
            // A mechanism refused at these parameters (e.g. a Gaussian formula that is not
            // (ε, δ)-DP) is an error when asked for alone, a listed refusal within "all".
            if (kinds.size() == 1) {
                return fail(err, r.error());
            }
            QJsonObject refused;
            refused[QStringLiteral("name")] = QString::fromLatin1(vectorMechanismName(kind));
            refused[QStringLiteral("refused")] = qs(r.error().message);
            mechs.append(refused);
            continue;
        }
        mechs.append(resultJson(*r));
    }
    o[QStringLiteral("mechanisms")] = mechs;
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
