#include "app/cli/commands/interval.h"

#include <QJsonObject>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "app/cli/commands/estimate.h"
#include "app/cli/output.h"
#include "core/intervals/intervals.h"
#include "io/sources/csv_reader.h"

namespace dpx::cli {

namespace {

QJsonObject intervalJson(const NoiseInterval& n) {
    QJsonObject o;
    o[QStringLiteral("half_width")] = n.halfWidth;
    o[QStringLiteral("coverage")] = n.coverage;
    o[QStringLiteral("method")] = QString::fromStdString(n.method);
    return o;
}

// The weights of a sample: one number > 0 per data record of column `column` of a CSV file
// (the io/ CSV reader: its dialect, limits and messages). An empty or non-numeric cell is an error
// naming its line.
Expected<std::vector<double>> readWeightColumn(const std::string& path, const std::string& column) {
    data::CsvOptions options;
    auto schema = data::inspectCsv(path, options);
    if (!schema) {
        return schema.error();
    }
    std::size_t index = schema->columns.size();
    for (std::size_t i = 0; i < schema->columns.size(); ++i) {
        if (schema->columns[i].name == column) {
            index = i;
        }
    }
    if (index == schema->columns.size()) {
        return Error{"no column '" + column + "' in " + path};
    }
    std::vector<double> weights;
    auto pass = data::csvForEachRecord(
        path, options,
        [&](std::int64_t line, const std::vector<std::string_view>& fields) -> Status {
            const std::string text(fields[index]);
            char* end = nullptr;
            const double w = std::strtod(text.c_str(), &end);
            if (text.empty() || end != text.c_str() + text.size()) {
                return Error{"line " + std::to_string(line) + ": the weight '" + text +
                             "' is not a number"};
            }
            weights.push_back(w);
            return okStatus();
        });
    if (!pass) {
        return pass.error();
    }
    return weights;
}

}  // namespace

int cmdInterval(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = Args::parse(argv, 2,
                            {"mechanism", "epsilon", "delta", "calibration", "sensitivity", "bins",
                             "cells", "confidence", "count", "sample", "population",
                             "effective-sample", "weights", "weight-column"});
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
    // A weighted sample (issue #22): the weight column gives n (its rows), N (Σw, unless
    // --population) and the effective sample size (Kish 1965); or n_eff is declared.
    std::optional<WeightSummary> weights;
    if (a.has("weights") != a.has("weight-column")) {
        return fail(err, "--weights FILE and --weight-column W go together", kInvalid);
    }
    if (a.has("weights")) {
        if (a.has("effective-sample")) {
            return fail(err,
                        "--effective-sample: give either the effective sample size or a weight "
                        "column (--weights, --weight-column), not both",
                        kInvalid);
        }
        auto w = readWeightColumn(*a.get("weights"), *a.get("weight-column"));
        if (!w) {
            return fail(err, "--weights: " + w.error().message, kInvalid);
        }
        auto k = kishEffectiveSampleSize(*w);
        if (!k) {
            return fail(err, "--weights: " + k.error().message, kInvalid);
        }
        weights = *k;
    }
    const bool anySampling = a.has("count") || a.has("sample") || a.has("population") ||
                             a.has("effective-sample") || weights;
    if (anySampling) {
        if (weights && !a.has("count")) {
            return fail(err, "--count: a weighted sample needs the count C of the bin", kInvalid);
        }
        if (!weights && !(a.has("count") && a.has("sample") && a.has("population"))) {
            return fail(err,
                        "--count, --sample and --population go together (a count out of a sample "
                        "of n rows from a population of N)",
                        kInvalid);
        }
        auto c = a.number("count");
        auto n = weights && !a.has("sample") ? Expected<double>(static_cast<double>(weights->rows))
                                             : a.number("sample");
        auto pop = weights && !a.has("population") ? Expected<double>(weights->sumWeights)
                                                   : a.number("population");
        auto nEff = weights ? Expected<double>(weights->effectiveSampleSize)
                            : a.number("effective-sample", 0);
        for (const auto* v : {&c, &n, &pop, &nEff}) {
            if (!*v) {
                return fail(err, v->error());
            }
        }
        if (a.has("effective-sample") && !(*nEff > 0)) {
            return fail(err, "--effective-sample: must be a number ≥ 2", kInvalid);
        }
        auto si = samplingIntervals(*c, *n, *pop, noise, *level, *nEff);
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
        if (*nEff > 0) {
            j[QStringLiteral("effective_sample_size")] = *nEff;
            j[QStringLiteral("design_effect")] = *n / *nEff;
        }
        if (weights) {
            QJsonObject w;
            w[QStringLiteral("rows")] = static_cast<qint64>(weights->rows);
            w[QStringLiteral("sum")] = weights->sumWeights;
            w[QStringLiteral("sum_of_squares")] = weights->sumSquares;
            w[QStringLiteral("note")] = QStringLiteral(
                "n, N = the sum of the weights and n_eff = (sum w)^2 / sum w^2 (Kish 1965) are "
                "computed from the data's weight column and are not differentially private: to "
                "publish, declare them (--sample, --population, --effective-sample)");
            j[QStringLiteral("weights")] = w;
        }
        o[QStringLiteral("population")] = j;
    }
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
