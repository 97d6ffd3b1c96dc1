#include "app/cli/commands/query.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cmath>
#include <limits>
#include <ostream>

#include "app/cli/args.h"
#include "app/cli/commands/estimate.h"
#include "app/cli/commands/table_input.h"
#include "app/cli/output.h"
#include "core/base/simulation_rng.h"
#include "core/table/query.h"

namespace dpx::cli {

namespace {

// The most cells whose noise the simulated answer draws one by one.
constexpr std::uint64_t kMaxSimulatedTerms = std::uint64_t{1} << 24;

}  // namespace

int cmdQuery(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = Args::parse(
        argv, 2,
        {"counts", "counts-file", "counts-layout", "data", "column", "bins", "table", "joint",
         "box", "mechanism", "epsilon", "delta", "calibration", "neighbouring", "level", "seed"},
        kJointFlags, kJointRepeatable);
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    if (auto st = checkCountsExclusive(a); !st) {
        return fail(err, st.error());
    }
    if (!asksForTable(a)) {
        return fail(err,
                    "dpx query needs a table: --counts-file PATH or --data FILE --joint --column A "
                    "--bins SPEC --column B --bins SPEC ...");
    }
    for (const char* required : {"box", "mechanism", "epsilon"}) {
        if (!a.has(required)) {
            return fail(err, std::string("--") + required + " is required");
        }
    }
    auto level = a.number("level", 0.95);
    if (!level) {
        return fail(err, level.error());
    }
    if (!std::isfinite(*level) || *level <= 0 || *level >= 1) {
        return fail(err, "--level must be in (0, 1) (got " + a.text("level", "") + ")");
    }
    auto seed = a.unsignedInt("seed", 1);
    if (!seed) {
        return fail(err, seed.error());
    }
    auto relation = neighbouringFromName(a.text("neighbouring", "add-remove"));
    if (!relation) {
        return fail(err, "--neighbouring: " + relation.error().message);
    }
    auto t = tableFromArgs(a);
    if (!t) {
        return fail(err, t.error());
    }
    const ContingencyTable& table = t->table;
    auto query = parseBoxQuery(table, *a.get("box"));
    if (!query) {
        return fail(err, "--box: " + query.error().message);
    }
    // One record touches one cell: the table's sensitivity is that of a histogram over its cells.
    auto sens = tableSensitivity(table, *relation, ContributionBound{1, 1});
    if (!sens) {
        return fail(err, sens.error());
    }
    auto mech = mechanismFromArgs(a, *sens);
    if (!mech) {
        return fail(err, mech.error());
    }
    auto readout = queryReadout(table, *query, mech->noise, *level);
    if (!readout) {
        return fail(err, readout.error());
    }
    QJsonObject o;
    o[QStringLiteral("query")] = qs(readout->query);
    o[QStringLiteral("box")] = qs(*a.get("box"));
    QJsonArray names;
    for (const Attribute& at : table.attributes()) {
        names.append(qs(at.name));
    }
    o[QStringLiteral("attributes")] = names;
    o[QStringLiteral("source")] = qs(t->source);
    o[QStringLiteral("table_cells")] = cellCountJson(table.cellCount());
    o[QStringLiteral("cells")] = cellCountJson(readout->cells);
    o[QStringLiteral("true_answer")] = static_cast<qint64>(readout->truth);
    o[QStringLiteral("mechanism")] = mechanismJson(*mech);
    o[QStringLiteral("cell_noise")] = qs(mech->noise.describe());
    QJsonObject e;
    e[QStringLiteral("rmse")] = readout->rmse;
    e[QStringLiteral("mean_abs")] = readout->meanAbsError;
    e[QStringLiteral("level")] = readout->level;
    e[QStringLiteral("half_width")] = readout->halfWidth;
    e[QStringLiteral("method")] = qs(readout->method);
    o[QStringLiteral("expected_error")] = e;
    o[QStringLiteral("warnings")] = toArray(undeclaredDomainWarnings(table));
    // The simulated answer: the true answer plus one draw of the noise of each covered cell, from
    // the seeded generator (a preview of what a release would show; not a release).
    if (readout->cells <= CellCount{kMaxSimulatedTerms}) {
        SimulationRng rng(*seed, 0);
        double noise = 0;
        for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(readout->cells); ++i) {
            noise += sampleNoise(mech->noise, rng);
        }
        const double noisy = static_cast<double>(readout->truth) + noise;
        QJsonObject s;
        s[QStringLiteral("noisy_answer")] = noisy;
        s[QStringLiteral("interval")] =
            QJsonArray{noisy - readout->halfWidth, noisy + readout->halfWidth};
        // A string: JSON numbers cannot hold every 64-bit seed exactly.
        s[QStringLiteral("seed")] = QString::number(*seed);
        s[QStringLiteral("note")] =
            QStringLiteral("simulated on a seeded generator: a preview, not a release");
        o[QStringLiteral("simulated")] = s;
    } else {
        warn(err, "the box covers " + cellCountText(readout->cells) +
                      " cells; no noisy answer is simulated beyond " +
                      std::to_string(kMaxSimulatedTerms) + " cells (the expected error is exact)");
    }
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
