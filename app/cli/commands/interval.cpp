#include "app/cli/commands/interval.h"

#include <QJsonObject>

#include <cmath>

#include "app/cli/args.h"
#include "app/cli/commands/estimate.h"
#include "app/cli/output.h"
#include "core/intervals/intervals.h"

namespace dpx::cli {

namespace {

QJsonObject intervalJson(const NoiseInterval& n) {
    QJsonObject o;
    o[QStringLiteral("half_width")] = n.halfWidth;
    o[QStringLiteral("coverage")] = n.coverage;
    o[QStringLiteral("method")] = QString::fromStdString(n.method);
    return o;
}

}  // namespace

int cmdInterval(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = Args::parse(argv, 2,
                            {"mechanism", "epsilon", "delta", "calibration", "sensitivity", "bins",
                             "cells", "confidence", "count", "sample", "population"});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    auto level = a.number("confidence", 0.95);
    if (!level) {
        return fail(err, level.error());
    }
    if (auto s = validateConfidenceLevel(*level); !s) {
        return fail(err, "--confidence: " + s.error().message, kInvalid);
    }
    auto sens = a.number("sensitivity", 1);
    if (!sens) {
        return fail(err, sens.error());
    }
    const Sensitivity s{*sens, *sens, std::floor(*sens) == *sens};
    auto mech = mechanismFromArgs(a, s);
    if (!mech) {
        return fail(err, mech.error());
    }
    const CellNoise noise = CellNoise::of(mech->noise);
    auto bins = a.integer("bins", 1);
    auto cells = a.integer("cells", 0);
    if (!bins || *bins < 1 || *bins > (std::int64_t{1} << 40)) {
        return fail(err, "--bins: the number of bins must be a whole number from 1 to 2^40",
                    kInvalid);
    }
    if (!cells || *cells < 0 || *cells > (std::int64_t{1} << 40)) {
        return fail(err, "--cells: the cells of a range must be a whole number from 1 to 2^40",
                    kInvalid);
    }
    auto table = tableIntervals(noise, static_cast<std::uint64_t>(*bins), *level);
    if (!table) {
        return fail(err, table.error());
    }
    QJsonObject o;
    o[QStringLiteral("mechanism")] = mechanismJson(*mech);
    o[QStringLiteral("confidence")] = *level;
    o[QStringLiteral("bins")] = static_cast<qint64>(*bins);
    o[QStringLiteral("per_bin")] = intervalJson(table->perBin);
    o[QStringLiteral("sentence")] =
        QString::fromStdString(intervalSentence(*level, table->perBin.halfWidth));
    if (*bins > 1) {
        QJsonObject all;
        all[QStringLiteral("exact_max")] = intervalJson(table->exactMax);
        all[QStringLiteral("bonferroni")] = intervalJson(table->bonferroni);
        o[QStringLiteral("all_bins_at_once")] = all;
    }
    if (*cells > 0) {
        auto range = sumInterval(noise, static_cast<std::uint64_t>(*cells), *level);
        if (!range) {
            return fail(err, range.error());
        }
        QJsonObject r = intervalJson(*range);
        r[QStringLiteral("cells")] = static_cast<qint64>(*cells);
        o[QStringLiteral("range")] = r;
    }
    const bool anySampling = a.has("count") || a.has("sample") || a.has("population");
    if (anySampling) {
        if (!(a.has("count") && a.has("sample") && a.has("population"))) {
            return fail(err,
                        "--count, --sample and --population go together (a count out of a sample "
                        "of n rows from a population of N)",
                        kInvalid);
        }
        auto c = a.number("count");
        auto n = a.number("sample");
        auto pop = a.number("population");
        for (const auto* v : {&c, &n, &pop}) {
            if (!*v) {
                return fail(err, v->error());
            }
        }
        auto si = samplingIntervals(*c, *n, *pop, noise, *level);
        if (!si) {
            return fail(err, si.error().message, kInvalid);
        }
        QJsonObject j;
        j[QStringLiteral("estimate")] = si->estimate;
        j[QStringLiteral("sampling_half_width")] = si->sampling;
        j[QStringLiteral("sampling_standard_error")] = si->samplingStandardError;
        j[QStringLiteral("noise_half_width")] = si->noise;
        j[QStringLiteral("combined_half_width")] = si->combined;
        j[QStringLiteral("method")] = QString::fromStdString(si->method);
        o[QStringLiteral("population")] = j;
    }
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
