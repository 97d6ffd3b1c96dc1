#include "app/cli/commands/kde.h"

#include <QJsonArray>
#include <QJsonObject>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/output.h"
#include "core/base/validation.h"
#include "core/histogram/dataset.h"
#include "core/mechanisms/functional_kde.h"

namespace dpx::cli {

namespace {

constexpr std::size_t kDefaultDataGridPoints = 512;

struct GridSpec {
    double lo = 0;
    double hi = 1;
    std::size_t count = 0;
};

// --grid LO:HI:COUNT.
Expected<GridSpec> parseGrid(const std::string& text) {
    const auto c1 = text.find(':');
    const auto c2 = c1 == std::string::npos ? c1 : text.find(':', c1 + 1);
    if (c2 == std::string::npos || text.find(':', c2 + 1) != std::string::npos) {
        return Error{"--grid: expected LO:HI:COUNT, got '" + text + "'"};
    }
    auto lo = parseNumber(text.substr(0, c1), "--grid LO");
    if (!lo) {
        return lo.error();
    }
    auto hi = parseNumber(text.substr(c1 + 1, c2 - c1 - 1), "--grid HI");
    if (!hi) {
        return hi.error();
    }
    const std::string countText = text.substr(c2 + 1);
    std::size_t count = 0;
    const auto r = std::from_chars(countText.data(), countText.data() + countText.size(), count);
    if (r.ec != std::errc() || r.ptr != countText.data() + countText.size()) {
        return Error{"--grid: COUNT '" + countText + "' is not a whole number"};
    }
    if (!std::isfinite(*lo) || !std::isfinite(*hi) || !(*hi > *lo)) {
        return Error{"--grid: needs finite LO < HI (got " + formatNumber(*lo) + ":" +
                     formatNumber(*hi) + ")"};
    }
    if (count < kMinKdeGridPoints || count > kMaxKdeGridPoints) {
        return Error{"--grid: COUNT must be between " + std::to_string(kMinKdeGridPoints) +
                     " and " + std::to_string(kMaxKdeGridPoints) + " (got " + countText + ")"};
    }
    return GridSpec{*lo, *hi, count};
}

}  // namespace

int cmdKde(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = Args::parse(
        argv, 2,
        {"data", "column", "example", "bandwidth", "grid", "epsilon", "delta", "samples", "seed"});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    if (a.has("data") == a.has("example")) {
        return fail(err, Error{"give exactly one of --data FILE (with --column C) and "
                               "--example fig32"});
    }
    const bool example = a.has("example");
    if (example && *a.get("example") != "fig32") {
        return fail(err, Error{"--example: unknown example '" + *a.get("example") +
                               "' (the one example is fig32: Hall 2012, Fig. 3.2)"});
    }
    if (example && a.has("column")) {
        return fail(err, Error{"--column applies to --data only"});
    }
    if (!example && !a.has("column")) {
        return fail(err, Error{"--data needs --column C (the numeric column to estimate)"});
    }
    // Fig. 3.2's setting is the default for the example; --data needs h, ε, δ given.
    if (!example) {
        for (const char* req : {"bandwidth", "epsilon", "delta"}) {
            if (!a.has(req)) {
                return fail(err, Error{std::string("missing required option --") + req +
                                       " (needed with --data)"});
            }
        }
    }
    auto h = a.number("bandwidth", 0.1);
    if (!h) {
        return fail(err, h.error());
    }
    if (auto s = validatePositiveFinite(*h, "the bandwidth h"); !s) {
        return fail(err, Error{"--bandwidth: " + s.error().message});
    }
    auto eps = a.number("epsilon", 1.0);
    if (!eps) {
        return fail(err, eps.error());
    }
    if (auto s = validateEpsilon(*eps); !s) {
        return fail(err, Error{"--epsilon: " + s.error().message});
    }
    auto delta = a.number("delta", 0.1);
    if (!delta) {
        return fail(err, delta.error());
    }
    if (auto s = validateDelta(*delta); !s) {
        return fail(err, Error{"--delta: " + s.error().message});
    }
    auto samples = a.unsignedInt("samples", 3);
    if (!samples) {
        return fail(err, samples.error());
    }
    if (*samples < 1 || *samples > kMaxKdeSamples) {
        return fail(err, Error{"--samples must be between 1 and " + std::to_string(kMaxKdeSamples) +
                               " (got " + *a.get("samples") + ")"});
    }
    auto seed = a.unsignedInt("seed", 1);
    if (!seed) {
        return fail(err, seed.error());
    }
    std::optional<GridSpec> grid;
    if (a.has("grid")) {
        auto g = parseGrid(*a.get("grid"));
        if (!g) {
            return fail(err, g.error());
        }
        grid = *g;
    }

    QJsonObject source;
    std::vector<double> data;
    if (example) {
        auto x = twoClusterSample(100, *seed);
        if (!x) {
            return fail(err, x.error());
        }
        data = std::move(*x);
        source[QStringLiteral("example")] = QStringLiteral("fig32");
        source[QStringLiteral("description")] = QStringLiteral(
            "Hall 2012, Fig. 3.2: 100 points from an equal mixture of N(0.3, 0.1²) and "
            "N(0.7, 0.1²) (the thesis does not state the spread)");
        if (!grid) {
            grid = GridSpec{0, 1, 1000};
        }
    } else {
        const std::string path = *a.get("data");
        const std::string column = *a.get("column");
        auto table = readCsvFile(path);
        if (!table) {
            return fail(err, Error{"--data: " + table.error().message});
        }
        auto index = table->indexOf(column);
        if (!index) {
            return fail(err, Error{"--column: " + index.error().message});
        }
        const DataColumn& c = table->column(*index);
        if (!c.isNumeric()) {
            return fail(err, Error{"--column: '" + column +
                                   "' is a text column; a kernel density estimate needs numbers"});
        }
        std::size_t missing = 0;
        for (double v : c.numbers()) {
            if (std::isnan(v)) {
                ++missing;
            } else {
                data.push_back(v);
            }
        }
        if (data.empty()) {
            return fail(err, Error{"--column: '" + column + "' has no values (all missing)"});
        }
        source[QStringLiteral("data")] = qs(path);
        source[QStringLiteral("column")] = qs(column);
        source[QStringLiteral("missing_skipped")] = static_cast<qint64>(missing);
        if (!grid) {
            // The data range widened by 3h on each side.
            const auto [mn, mx] = std::minmax_element(data.begin(), data.end());
            grid = GridSpec{*mn - 3 * *h, *mx + 3 * *h, kDefaultDataGridPoints};
        }
    }

    FunctionalKdeParams p;
    p.bandwidth = *h;
    p.gridLo = grid->lo;
    p.gridHi = grid->hi;
    p.gridPoints = grid->count;
    p.epsilon = *eps;
    p.delta = *delta;
    p.samples = static_cast<std::size_t>(*samples);
    p.seed = *seed;
    auto r = releaseFunctionalKde(data, p);
    if (!r) {
        return fail(err, r.error());
    }
    QJsonObject o;
    o[QStringLiteral("source")] = source;
    o[QStringLiteral("n")] = static_cast<qint64>(r->n);
    o[QStringLiteral("bandwidth")] = *h;
    o[QStringLiteral("epsilon")] = *eps;
    o[QStringLiteral("delta")] = *delta;
    o[QStringLiteral("sensitivity")] = r->sensitivity;
    o[QStringLiteral("c_delta")] = r->cDelta;
    o[QStringLiteral("noise_sd")] = r->noiseScale;
    QJsonObject g;
    g[QStringLiteral("lo")] = grid->lo;
    g[QStringLiteral("hi")] = grid->hi;
    g[QStringLiteral("count")] = static_cast<qint64>(grid->count);
    o[QStringLiteral("grid")] = g;
    o[QStringLiteral("factor_rank")] = static_cast<qint64>(r->factorRank);
    o[QStringLiteral("covariance_error_bound")] = r->covarianceError;
    o[QStringLiteral("seed")] = QString::number(*seed);
    o[QStringLiteral("x")] = toArray(r->grid);
    o[QStringLiteral("true_kde")] = toArray(r->trueKde);
    QJsonArray rel;
    for (const auto& v : r->releases) {
        rel.append(toArray(v));
    }
    o[QStringLiteral("releases")] = rel;
    QJsonArray w;
    for (const auto& s : r->warnings) {
        w.append(qs(s));
    }
    o[QStringLiteral("warnings")] = w;
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
