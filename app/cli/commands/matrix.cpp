#include "app/cli/commands/matrix.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <ostream>
#include <sstream>

#include "app/cli/args.h"
#include "app/cli/output.h"
#include "core/base/validation.h"
#include "core/count/count_analysis.h"
#include "core/count/count_lp.h"
#include "core/count/count_mechanism.h"
#include "core/count/count_mechanism_io.h"
#include "core/count/lp_objective.h"

namespace dpx::cli {

namespace {

// JSON has no infinity: an infinite achieved ε is written as the string "inf".
QJsonValue epsilonValue(double e) {
    if (std::isinf(e)) {
        return QStringLiteral("inf");
    }
    return e;
}

// The report shared by the generated and the checked matrices. `allPairs`: local-DP neighbours
// (every pair of columns, GRR) instead of adjacent counts.
QJsonObject matrixReport(const CountMechanism& m, const std::string& mechanism, double epsilon,
                         bool allPairs) {
    QJsonObject o;
    o[QStringLiteral("mechanism")] = qs(mechanism);
    o[QStringLiteral("n")] = static_cast<qint64>(m.people());
    o[QStringLiteral("epsilon")] = epsilon;
    o[QStringLiteral("alpha")] = std::exp(-epsilon);
    QJsonArray rows;
    for (std::size_t i = 0; i < m.size(); ++i) {
        QJsonArray row;
        for (std::size_t j = 0; j < m.size(); ++j) {
            row.append(m.at(i, j));
        }
        rows.append(row);
    }
    o[QStringLiteral("matrix")] = rows;
    o[QStringLiteral("l0")] = m.l0();
    const double achieved = allPairs ? m.achievedEpsilonAllPairs() : m.achievedEpsilon();
    o[QStringLiteral("achieved_epsilon")] = epsilonValue(achieved);
    o[QStringLiteral("neighbours")] =
        allPairs ? QStringLiteral("all-pairs") : QStringLiteral("adjacent");
    const CountProperties props = m.properties();
    QJsonObject holds;
    QJsonObject violations;
    for (const CountProperty p : kAllCountProperties) {
        const PropertyCheck& c = props.get(p);
        const QString name = QString::fromLatin1(countPropertyName(p));
        holds[name] = c.holds;
        if (!c.holds) {
            violations[name] = qs(c.reason);
        }
    }
    o[QStringLiteral("properties")] = holds;
    o[QStringLiteral("violations")] = violations;
    bool sumsOk = true;
    for (std::size_t j = 0; j < m.size(); ++j) {
        sumsOk = sumsOk && std::abs(m.columnSum(j) - 1) <= kColumnSumTolerance;
    }
    o[QStringLiteral("column_sums_ok")] = sumsOk;
    // The error law of every true count j (the column j of the matrix, shifted by j), summarised.
    QJsonArray perInput;
    for (const InputErrorDistribution& d : inputErrorDistributions(m)) {
        perInput.append(QJsonObject{{QStringLiteral("input"), static_cast<qint64>(d.input)},
                                    {QStringLiteral("p_correct"), d.pCorrect},
                                    {QStringLiteral("bias"), d.bias},
                                    {QStringLiteral("mean_abs_error"), d.meanAbs},
                                    {QStringLiteral("rmse"), std::sqrt(d.meanSquare)},
                                    {QStringLiteral("p_off_by_more_than_1"), d.pOffByMoreThan(1)}});
    }
    o[QStringLiteral("per_input")] = perInput;
    return o;
}

Expected<CountMechanism> readMatrixFile(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        return Error{"cannot read '" + path + "': it is a directory"};
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return Error{"cannot read '" + path + "': " + std::strerror(errno)};
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) {
        return Error{"cannot read '" + path + "'"};
    }
    const std::string text = buf.str();
    auto endsWith = [&](const char* ext) {
        const std::size_t k = std::strlen(ext);
        if (path.size() < k) {
            return false;
        }
        for (std::size_t i = 0; i < k; ++i) {
            const char c = path[path.size() - k + i];
            if (static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) != ext[i]) {
                return false;
            }
        }
        return true;
    };
    bool json = false;
    if (endsWith(".json")) {
        json = true;
    } else if (!endsWith(".csv")) {
        const std::size_t first = text.find_first_not_of(" \t\r\n");
        json = first != std::string::npos && text[first] == '{';
    }
    auto m = json ? fromJson(text, "file") : fromCsv(text, "file");
    if (!m) {
        return Error{"'" + path + "': " + m.error().message};
    }
    return m;
}

// --objective [minimax-](l0|l1|l2|l0d:D|custom:FILE) (core/count/lp_objective.h; the old
// spelling l0dD is read with a warning on `err`), --constraints rh,rm,ch,cm,f,wh,s (or none),
// --weights uniform|binomial:P|w0,w1,..., --time-limit S, --min-diagonal T.
Expected<CountLpSpec> lpSpecFromArgs(const Args& a, int n, double epsilon, std::ostream& err) {
    CountLpSpec spec;
    spec.n = n;
    spec.epsilon = epsilon;
    auto objective = parseLpObjective(a.text("objective", "l0"), {.allowCustom = true, .n = n});
    if (!objective) {
        return Error{"--objective: " + objective.error().message};
    }
    if (objective->deprecation) {
        warn(err, "--objective: " + *objective->deprecation);
    }
    applyLpObjective(objective->objective, spec);
    if (spec.cost == LpCostKind::Custom) {
        const std::string& path = objective->objective.customPath;
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec)) {
            return Error{"cannot read the cost matrix '" + path + "': it is a directory"};
        }
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            return Error{"cannot read the cost matrix '" + path + "': " + std::strerror(errno)};
        }
        std::ostringstream buf;
        buf << in.rdbuf();
        auto grid = readNumberGridCsv(buf.str());
        if (!grid) {
            return Error{"cost matrix '" + path + "': " + grid.error().message};
        }
        const auto m = static_cast<std::size_t>(n) + 1;
        if (grid->size() != m || (*grid)[0].size() != m) {
            return Error{"cost matrix '" + path + "': expected " + std::to_string(m) + "×" +
                         std::to_string(m) +
                         " costs c(i, j) (line i+1 = output i, field j+1 = "
                         "true count j) for n = " +
                         std::to_string(n) + ", got " + std::to_string(grid->size()) + "×" +
                         std::to_string((*grid)[0].size())};
        }
        for (const auto& row : *grid) {
            spec.customCost.insert(spec.customCost.end(), row.begin(), row.end());
        }
    }
    const std::string constraints = a.text("constraints", "none");
    if (constraints != "none" && !constraints.empty()) {
        std::size_t start = 0;
        for (;;) {
            const std::size_t comma = constraints.find(',', start);
            std::string item = constraints.substr(
                start, comma == std::string::npos ? std::string::npos : comma - start);
            for (char& c : item) {
                c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
            }
            bool found = false;
            for (const CountProperty p : kAllCountProperties) {
                std::string name = countPropertyName(p);
                for (char& c : name) {
                    c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
                }
                if (name == item) {
                    spec.constraints.push_back(p);
                    found = true;
                }
            }
            if (!found) {
                return Error{"unknown constraint '" + item + "' (use rh, rm, ch, cm, f, wh, s)"};
            }
            if (comma == std::string::npos) {
                break;
            }
            start = comma + 1;
        }
    }
    const std::string weights = a.text("weights", "uniform");
    if (weights.rfind("binomial:", 0) == 0) {
        auto pr = parseNumber(weights.substr(9), "--weights binomial:P");
        if (!pr) {
            return pr.error();
        }
        auto w = binomialWeights(n, *pr);
        if (!w) {
            return w.error();
        }
        spec.weights = *w;
    } else if (weights != "uniform") {
        auto list = a.numberList("weights");
        if (!list) {
            return Error{"unknown weights '" + weights +
                         "' (use uniform, binomial:P or a list of n+1 numbers w0,w1,... that sum "
                         "to 1)"};
        }
        spec.weights = *list;
    }
    auto limit = a.number("time-limit", 60.0);
    if (!limit) {
        return limit.error();
    }
    spec.timeLimitSeconds = *limit;
    auto floor = a.number("min-diagonal", 0.0);
    if (!floor) {
        return floor.error();
    }
    spec.minDiagonal = *floor;
    if (auto s = spec.validate(); !s) {
        return s.error();
    }
    return spec;
}

int cmdMatrixCheck(const Args& a, std::ostream& out, std::ostream& err) {
    for (const char* opt : {"mechanism", "n", "k", "format"}) {
        if (a.has(opt)) {
            return fail(err, Error{std::string("--") + opt +
                                   " cannot be combined with --check (the matrix comes from "
                                   "the file)"});
        }
    }
    auto eps = a.number("epsilon");
    if (!eps) {
        return fail(err, eps.error());
    }
    if (auto s = validateEpsilon(*eps); !s) {
        return fail(err, s.error());
    }
    const std::string path = *a.get("check");
    auto m = readMatrixFile(path);
    if (!m) {
        return fail(err, m.error());
    }
    QJsonObject o = matrixReport(*m, "file", *eps, false);
    o[QStringLiteral("file")] = qs(path);
    const double achieved = m->achievedEpsilon();
    o[QStringLiteral("dp_ok")] = achieved <= *eps * (1 + 1e-12);
    printJson(out, o);
    return kOk;
}

// dpx matrix --mechanism optimal --sweep E1,E2,...: the same LP for every ε, warm-started.
// One summary object per ε (no matrices: use a single --epsilon for the matrix itself).
int cmdMatrixSweep(const Args& a, std::ostream& out, std::ostream& err) {
    for (const char* opt : {"epsilon", "format", "k"}) {
        if (a.has(opt)) {
            return fail(err, Error{std::string("--") + opt +
                                   " cannot be combined with --sweep (the sweep lists the ε "
                                   "values and reports JSON summaries)"});
        }
    }
    auto epsilons = a.numberList("sweep");
    if (!epsilons) {
        return fail(err, epsilons.error());
    }
    if (epsilons->size() > 1000) {
        return fail(err, Error{"--sweep takes at most 1000 ε values, got " +
                               std::to_string(epsilons->size())});
    }
    constexpr std::int64_t kUnset = std::numeric_limits<std::int64_t>::min();
    auto n = a.integer("n", kUnset);
    if (!n) {
        return fail(err, n.error());
    }
    if (*n == kUnset) {
        return fail(err, Error{"missing required option --n (the number of people)"});
    }
    if (*n < 1 || *n > kMaxCountPeople) {
        return fail(err, Error{"--n (the number of people) must be an integer in [1, " +
                               std::to_string(kMaxCountPeople) + "], got " + std::to_string(*n)});
    }
    for (double e : *epsilons) {
        if (auto s = validateEpsilon(e); !s) {
            return fail(err, s.error());
        }
    }
    auto spec = lpSpecFromArgs(a, static_cast<int>(*n), epsilons->front(), err);
    if (!spec) {
        return fail(err, spec.error());
    }
    const auto start = std::chrono::steady_clock::now();
    auto results = designCountMechanismSweep(*spec, *epsilons);
    if (!results) {
        return fail(err, results.error());
    }
    const double total =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    QJsonArray rows;
    for (std::size_t k = 0; k < results->size(); ++k) {
        const CountLpResult& r = (*results)[k];
        QJsonObject o;
        o[QStringLiteral("epsilon")] = (*epsilons)[k];
        o[QStringLiteral("alpha")] = std::exp(-(*epsilons)[k]);
        o[QStringLiteral("status")] = QString::fromLatin1(lpStatusName(r.status));
        o[QStringLiteral("warm_started")] = r.warmStarted;
        o[QStringLiteral("iterations")] = r.iterations;
        o[QStringLiteral("solve_seconds")] = r.seconds;
        if (r.mechanism) {
            o[QStringLiteral("objective")] = r.objective;
            o[QStringLiteral("objective_solver")] = r.solverObjective;
            if (r.normalised) {
                o[QStringLiteral("objective_normalised")] = *r.normalised;
            }
            o[QStringLiteral("l0")] = r.mechanism->l0();
            o[QStringLiteral("achieved_epsilon")] = epsilonValue(r.mechanism->achievedEpsilon());
            o[QStringLiteral("repair_uniform_share")] = r.repairUniformShare;
            o[QStringLiteral("repair_cost")] = r.repairCost;
            o[QStringLiteral("gaps")] = static_cast<qint64>(r.gaps.size());
            o[QStringLiteral("spikes")] = static_cast<qint64>(r.spikes.size());
        }
        rows.append(o);
    }
    QJsonObject o;
    o[QStringLiteral("mechanism")] = QStringLiteral("optimal");
    o[QStringLiteral("n")] = static_cast<qint64>(*n);
    o[QStringLiteral("sweep")] = rows;
    o[QStringLiteral("total_seconds")] = total;
    printJson(out, o);
    return kOk;
}

}  // namespace

int cmdMatrix(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args = Args::parse(
        argv, 2,
        {"mechanism", "n", "epsilon", "k", "format", "check", "objective", "constraints", "weights",
         "time-limit", "sweep", "min-diagonal", "delta", "sample", "seed"});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    if (a.has("check")) {
        return cmdMatrixCheck(a, out, err);
    }
    auto mechText = a.text("mechanism");
    if (!mechText) {
        return fail(err, Error{"missing required option --mechanism (geometric, explicit-fair, "
                               "uniform, randomized-response or grr), or --check FILE"});
    }
    const std::string& mech = *mechText;
    const bool grr = mech == "grr";
    const bool optimal = mech == "optimal";
    if (a.has("sweep")) {
        if (!optimal) {
            return fail(err, Error{"--sweep applies to --mechanism optimal only"});
        }
        return cmdMatrixSweep(a, out, err);
    }
    if (mech != "geometric" && mech != "explicit-fair" && mech != "uniform" &&
        mech != "randomized-response" && mech != "laplace" && mech != "gaussian" && !grr &&
        !optimal) {
        return fail(err, Error{"unknown mechanism '" + mech +
                               "' (use geometric, explicit-fair, uniform, randomized-response, "
                               "laplace, gaussian, grr or optimal)"});
    }
    if (a.has("delta") && mech != "gaussian") {
        return fail(err, Error{"--delta applies to --mechanism gaussian only"});
    }
    if (!optimal) {
        for (const char* opt :
             {"objective", "constraints", "weights", "time-limit", "min-diagonal"}) {
            if (a.has(opt)) {
                return fail(
                    err, Error{std::string("--") + opt + " applies to --mechanism optimal only"});
            }
        }
    }
    const std::string format = a.text("format", "json");
    if (format != "json" && format != "csv") {
        return fail(err, Error{"unknown format '" + format + "' (use json or csv)"});
    }
    auto eps = a.number("epsilon");
    if (!eps) {
        return fail(err, eps.error());
    }
    if (auto s = validateEpsilon(*eps); !s) {
        return fail(err, s.error());
    }
    constexpr std::int64_t kUnset = std::numeric_limits<std::int64_t>::min();
    auto n = a.integer("n", kUnset);
    if (!n) {
        return fail(err, n.error());
    }
    auto k = a.integer("k", kUnset);
    if (!k) {
        return fail(err, k.error());
    }
    // Range checks here so that values beyond int are reported as given.
    auto inRange = [](std::int64_t v, std::int64_t lo, std::int64_t hi, const char* what) {
        if (v < lo || v > hi) {
            return Status(Error{std::string(what) + " must be an integer in [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                                std::to_string(v)});
        }
        return okStatus();
    };
    if (!grr && *k != kUnset) {
        return fail(err, Error{"--k applies to --mechanism grr only"});
    }
    Expected<CountMechanism> m = Error{""};
    std::optional<CountLpResult> lp;
    if (optimal) {
        if (*n == kUnset) {
            return fail(err, Error{"missing required option --n (the number of people)"});
        }
        if (auto s = inRange(*n, 1, kMaxCountPeople, "--n (the number of people)"); !s) {
            return fail(err, s.error());
        }
        auto spec = lpSpecFromArgs(a, static_cast<int>(*n), *eps, err);
        if (!spec) {
            return fail(err, spec.error());
        }
        auto r = designCountMechanism(*spec);
        if (!r) {
            return fail(err, r.error());
        }
        if (r->status != LpStatus::Optimal) {
            return fail(err,
                        Error{std::string("the linear program ended with status '") +
                              lpStatusName(r->status) + "' after " + formatNumber(r->seconds) +
                              " s; no mechanism to show"},
                        kFailure);
        }
        lp = *r;
        m = *r->mechanism;
    } else if (grr) {
        if (*k == kUnset) {
            return fail(err, Error{"--mechanism grr needs --k (the number of categories, "
                                   "2 ≤ k ≤ " +
                                   std::to_string(kMaxCountPeople + 1) + ")"});
        }
        if (*n != kUnset && *n != *k - 1) {
            return fail(err, Error{"--n must be k − 1 for grr (the matrix is k×k); got --n " +
                                   std::to_string(*n) + " with --k " + std::to_string(*k)});
        }
        if (auto s = inRange(*k, 2, kMaxCountPeople + 1, "--k (the number of categories)"); !s) {
            return fail(err, s.error());
        }
        m = generalizedRandomizedResponse(static_cast<int>(*k), *eps);
    } else if (mech == "randomized-response") {
        if (*n != kUnset && *n != 1) {
            return fail(err, Error{"randomized response is the n = 1 mechanism; --n must be 1 "
                                   "or left out (got " +
                                   std::to_string(*n) + ")"});
        }
        m = randomizedResponse(*eps);
    } else {
        if (*n == kUnset) {
            return fail(err, Error{"missing required option --n (the number of people, 1 ≤ n ≤ " +
                                   std::to_string(kMaxCountPeople) + ")"});
        }
        if (auto s = inRange(*n, 1, kMaxCountPeople, "--n (the number of people)"); !s) {
            return fail(err, s.error());
        }
        const int people = static_cast<int>(*n);
        if (mech == "geometric") {
            m = truncatedGeometric(people, *eps);
        } else if (mech == "laplace") {
            m = discretizedLaplace(people, *eps);
        } else if (mech == "gaussian") {
            auto delta = a.number("delta");
            if (!delta) {
                return fail(err, Error{"--mechanism gaussian needs --delta (0 < δ < 1)"});
            }
            m = discretizedGaussian(people, *eps, *delta);
        } else if (mech == "explicit-fair") {
            m = explicitFair(people, *eps);
        } else {
            m = uniformMechanism(people);
        }
    }
    if (!m) {
        return fail(err, m.error());
    }
    std::optional<std::vector<int>> samples;
    std::uint64_t seed = 0;
    if (a.has("sample")) {
        if (format == "csv") {
            return fail(err, Error{"--sample needs the JSON report (not --format csv)"});
        }
        auto counts = a.numberList("sample");
        if (!counts) {
            return fail(err, counts.error());
        }
        if (counts->size() > 10'000'000) {
            return fail(err, Error{"--sample takes at most 10 000 000 group counts"});
        }
        std::vector<std::int64_t> groups;
        groups.reserve(counts->size());
        for (std::size_t g = 0; g < counts->size(); ++g) {
            const double c = (*counts)[g];
            if (c != std::floor(c) || c < 0 || c > static_cast<double>(m->people())) {
                return fail(err, Error{"--sample: group count [" + std::to_string(g) +
                                       "] = " + formatNumber(c) + " is not an integer in [0, n = " +
                                       std::to_string(m->people()) + "]"});
            }
            groups.push_back(static_cast<std::int64_t>(c));
        }
        auto sd = a.unsignedInt("seed", 1);
        if (!sd) {
            return fail(err, sd.error());
        }
        seed = *sd;
        auto drawn = sampleOutputs(*m, groups, seed);
        if (!drawn) {
            return fail(err, drawn.error());
        }
        samples = std::move(*drawn);
    } else if (a.has("seed")) {
        return fail(err, Error{"--seed applies to --sample only"});
    }
    if (format == "csv") {
        out << toCsv(*m);
        return kOk;
    }
    QJsonObject o = matrixReport(*m, mech, *eps, grr);
    if (mech == "gaussian") {
        o[QStringLiteral("delta")] = *a.number("delta");
        o[QStringLiteral("guarantee")] = QStringLiteral(
            "(epsilon, delta)-DP only: achieved_epsilon is the matrix's own pure level, which "
            "exceeds epsilon for large n");
    }
    if (samples) {
        QJsonArray arr;
        for (int v : *samples) {
            arr.append(v);
        }
        o[QStringLiteral("samples")] = arr;
        // A string: JSON numbers cannot hold every 64-bit seed exactly.
        o[QStringLiteral("seed")] = QString::number(seed);
    }
    if (grr) {
        o[QStringLiteral("k")] = static_cast<qint64>(m->size());
    }
    if (lp) {
        o[QStringLiteral("status")] = QString::fromLatin1(lpStatusName(lp->status));
        o[QStringLiteral("objective")] = lp->objective;
        o[QStringLiteral("objective_solver")] = lp->solverObjective;
        if (lp->normalised) {
            o[QStringLiteral("objective_normalised")] = *lp->normalised;
        }
        o[QStringLiteral("repair_uniform_share")] = lp->repairUniformShare;
        o[QStringLiteral("repair_cost")] = lp->repairCost;
        o[QStringLiteral("solve_seconds")] = lp->seconds;
        o[QStringLiteral("iterations")] = lp->iterations;
        o[QStringLiteral("symmetry_reduced")] = lp->symmetryReduced;
        o[QStringLiteral("lp_rows")] = lp->lpRows;
        o[QStringLiteral("lp_columns")] = lp->lpColumns;
        QJsonArray gaps;
        for (std::size_t g : lp->gaps) {
            gaps.append(static_cast<qint64>(g));
        }
        QJsonArray spikes;
        for (std::size_t sp : lp->spikes) {
            spikes.append(static_cast<qint64>(sp));
        }
        o[QStringLiteral("gaps")] = gaps;
        o[QStringLiteral("spikes")] = spikes;
    }
    printJson(out, o);
    return kOk;
}

}  // namespace dpx::cli
