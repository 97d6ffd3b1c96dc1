#include "app/cli/commands/ldp_mean.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cmath>
#include <numbers>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/commands/truth.h"
#include "app/cli/output.h"
#include "core/ldp/mean.h"

namespace dpx::cli {

namespace {

constexpr std::uint64_t kMaxTrials = 1'000'000;

}  // namespace

int cmdLdpMean(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args =
        parseWithTruthOptions(argv, {"epsilon", "shape", "users", "buckets", "trials", "seed"});
    if (!args) {
        return fail(err, args.error().message);
    }
    const Args& a = *args;
    auto eps = a.number("epsilon");
    if (!eps) {
        return fail(err, eps.error().message);
    }
    auto trials = a.unsignedInt("trials", 100);
    auto seed = a.unsignedInt("seed", 1);
    if (!trials) {
        return fail(err, trials.error().message);
    }
    if (!seed) {
        return fail(err, seed.error().message);
    }
    if (*trials < 1 || *trials > kMaxTrials) {
        return fail(err, "--trials must be 1 to " + std::to_string(kMaxTrials));
    }
    // The users' values: a seed 002 shape on [0, 24] h (m = 24, values at the bucket centres), or
    // a histogram of data whose bins stand for their centres (m = the bins' span, values shifted
    // to start at 0); --counts without edges: value = bin index, m = bins − 1.
    ldp::ValueCounts data;
    double m = 24, offset = 0;
    std::string source;
    const bool fromShape = a.has("shape");
    if (fromShape == (a.has("counts") || a.has("data") || a.has("counts-file"))) {
        return fail(err,
                    "give the users' values as --shape normal|uniform|constant with --users N, "
                    "or as --counts/--data (one of them)");
    }
    if (fromShape) {
        auto shape = ldp::telemetryShapeFromName(a.text("shape", ""));
        if (!shape) {
            return fail(err, "--shape: " + shape.error().message);
        }
        if (!a.has("users")) {
            return fail(err, "--shape needs --users N");
        }
        auto users = a.unsignedInt("users", 0);
        auto buckets = a.unsignedInt("buckets", 32);
        if (!users) {
            return fail(err, users.error().message);
        }
        if (!buckets) {
            return fail(err, buckets.error().message);
        }
        if (*users < 1 || *users > 1'000'000'000'000ULL) {
            return fail(err, "--users must be 1 to 10^12");
        }
        if (*buckets < 1 || *buckets > 4096) {
            return fail(err, "--buckets must be 1 to 4096");
        }
        auto v = ldp::telemetryValues(*shape, static_cast<std::size_t>(*buckets), *users);
        if (!v) {
            return fail(err, v.error().message);
        }
        data = *v;
        source = std::string("shape ") + ldp::telemetryShapeName(*shape);
    } else {
        if (a.has("users") || a.has("buckets")) {
            return fail(err, "--users and --buckets go with --shape");
        }
        auto h = trueHistogramFromArgs(a, &err, "1BitMean (users' values on one axis)");
        if (!h) {
            return fail(err, h.error().message);
        }
        data.counts = h->counts();
        if (h->hasEdges()) {
            const auto& e = h->edges();
            offset = e.front();
            m = e.back() - e.front();
            for (std::size_t i = 0; i + 1 < e.size(); ++i) {
                data.values.push_back(0.5 * (e[i] + e[i + 1]) - offset);
            }
        } else {
            if (h->size() < 2) {
                return fail(err, "--counts: at least 2 bins (the values are the bin indices)");
            }
            m = static_cast<double>(h->size() - 1);
            for (std::size_t i = 0; i < h->size(); ++i) {
                data.values.push_back(static_cast<double>(i));
            }
        }
        source = a.has("counts") ? "counts" : "data";
    }
    const ldp::OneBitMeanSpec spec{*eps, m};
    if (auto st = spec.validate(); !st) {
        return fail(err, st.error().message);
    }
    auto mu = ldp::trueMean(data);
    auto var = ldp::oneBitMeanVariance(spec, data);
    if (!mu) {
        return fail(err, mu.error().message);
    }
    if (!var) {
        return fail(err, var.error().message);
    }
    double sum = 0, absSum = 0, absSq = 0;
    for (std::uint64_t t = 0; t < *trials; ++t) {
        auto est = ldp::simulateOneBitMean(spec, data, *seed + t);
        if (!est) {
            return fail(err, est.error().message);
        }
        const double e = std::abs(*est - *mu);
        sum += *est;
        absSum += e;
        absSq += e * e;
    }
    const double k = static_cast<double>(*trials);
    const double meanAbs = absSum / k;
    const double half =
        k > 1
            ? 1.959963984540054 * std::sqrt(std::max(0.0, absSq / k - meanAbs * meanAbs) / (k - 1))
            : 0;
    std::int64_t users = 0;
    for (std::int64_t c : data.counts) {
        users += c;
    }
    QJsonObject o;
    o[QStringLiteral("protocol")] = QStringLiteral("1bitmean");
    o[QStringLiteral("epsilon")] = *eps;
    o[QStringLiteral("range")] = m;
    o[QStringLiteral("offset")] = offset;
    o[QStringLiteral("users")] = static_cast<double>(users);
    o[QStringLiteral("source")] = QString::fromStdString(source);
    o[QStringLiteral("trials")] = static_cast<double>(*trials);
    o[QStringLiteral("seed")] = QString::number(*seed);
    o[QStringLiteral("bit_probability")] =
        QJsonArray{ldp::oneBitProbability(spec, 0), ldp::oneBitProbability(spec, m)};
    o[QStringLiteral("true_mean")] = *mu + offset;
    o[QStringLiteral("mean_estimate")] = sum / k + offset;
    o[QStringLiteral("abs_error")] = QJsonObject{
        {QStringLiteral("mean"), meanAbs},
        {QStringLiteral("ci95"), k > 1 ? QJsonValue(QJsonArray{meanAbs - half, meanAbs + half})
                                       : QJsonValue(QJsonValue::Null)}};
    o[QStringLiteral("expected")] = QJsonObject{
        {QStringLiteral("variance"), *var},
        {QStringLiteral("abs_error"), std::sqrt(2 / std::numbers::pi) * std::sqrt(*var)},
        {QStringLiteral("method"),
         QStringLiteral("exact variance m²(e^ε+1)²/((e^ε−1)²n²)·Σ p(x)(1−p(x)); E|error| by the "
                        "normal approximation √(2/π)·σ")}};
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
