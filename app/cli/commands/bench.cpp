#include "app/cli/commands/bench.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <map>
#include <ostream>
#include <set>

#include "app/cli/args.h"
#include "app/cli/commands/workload.h"
#include "app/cli/output.h"
#include "core/algorithms/algorithm_error.h"
#include "core/base/simulation_rng.h"
#include "core/base/validation.h"
#include "core/workload/builtin_shapes.h"
#include "core/workload/data_scale.h"
#include "io/sources/counts_file.h"

namespace dpx::cli {

namespace {

// DPBench's full domains, on which the built-in shapes are drawn and resampled before coarsening.
const DomainShape kBase1d{4096};
const DomainShape kBase2d{256, 256};

struct Dataset {
    std::string name;
    DataVector data;
};

// `text` cut at ',' (or at ';' when it has one, for workload texts that contain commas).
std::vector<std::string> listOf(const std::string& text) {
    std::vector<std::string> out;
    for (const std::string& s : split(text, text.find(';') != std::string::npos ? ';' : ',')) {
        if (!s.empty()) {
            out.push_back(s);
        }
    }
    return out;
}

Expected<std::vector<double>> numbersOf(const Args& a, const std::string& name,
                                        const std::string& fallback) {
    std::vector<double> out;
    for (const std::string& s : listOf(a.text(name, fallback))) {
        auto v = parseNumber(s, "--" + name);
        if (!v) {
            return v.error();
        }
        out.push_back(*v);
    }
    if (out.empty()) {
        return Error{"--" + name + " is empty"};
    }
    return out;
}

Expected<std::vector<Dataset>> datasetsFromArgs(const Args& a, std::size_t dim) {
    std::map<std::string, std::string> files;  // NAME → PATH
    for (const std::string& item : a.all("counts-file")) {
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
            return Error{"--counts-file '" + item + "': expected NAME=PATH (e.g. PATENT=p.npy)"};
        }
        if (!files.emplace(item.substr(0, eq), item.substr(eq + 1)).second) {
            return Error{"--counts-file: the name '" + item.substr(0, eq) + "' is given twice"};
        }
    }
    std::vector<std::string> names;
    if (a.has("datasets")) {
        names = listOf(*a.get("datasets"));
    } else if (!files.empty()) {
        for (const auto& [name, path] : files) {
            names.push_back(name);
        }
    } else {
        names = builtinShapeNames();
    }
    std::vector<Dataset> out;
    for (const std::string& name : names) {
        Dataset d;
        d.name = name;
        if (auto f = files.find(name); f != files.end()) {
            auto file = data::readCountsFile(f->second);
            if (!file) {
                return Error{"--counts-file " + name + ": " + file.error().message};
            }
            auto v = dataVectorFromTable(file->table, file->description);
            if (!v) {
                return Error{"--counts-file " + name + ": " + v.error().message};
            }
            d.data = std::move(*v);
        } else {
            const DomainShape& base = dim == 2 ? kBase2d : kBase1d;
            auto x = builtinShape(name, base);
            if (!x) {
                return Error{"--datasets: " + x.error().message +
                             (files.empty() ? "" : ", or a name given with --counts-file")};
            }
            d.data.shape = base;
            d.data.x = std::move(*x);
            d.data.source = "built-in shape '" + name + "'";
        }
        out.push_back(std::move(d));
    }
    return out;
}

// The workload of a bench name: "range" is DPBench's RandomRange(nq, seed); anything else a
// WorkloadSpec text.
Expected<WorkloadSpec> workloadOf(const std::string& name, std::uint64_t nq, std::uint64_t seed) {
    if (name == "range") {
        return WorkloadSpec::parse("range:" + std::to_string(nq) + ":seed=" + std::to_string(seed));
    }
    return WorkloadSpec::parse(name);
}

// What one cell's trials share.
struct CellOptions {
    std::uint64_t trials = 5, seed = 0;
    unsigned threads = 1;
};

// One cell of the grid: T trials of `alg`, as one JSON object with the peer runners' keys.
QJsonObject benchLine(const std::string& dataset, const DomainShape& shape, std::uint64_t m,
                      double eps, const Algorithm& alg, const std::string& wName,
                      const Expected<Workload>& w, const std::vector<double>& x,
                      const CellOptions& options) {
    QJsonObject line;
    line[QStringLiteral("peer")] = QStringLiteral("cpp");
    line[QStringLiteral("dim")] = static_cast<qint64>(shape.size());
    line[QStringLiteral("dataset")] = qs(dataset);
    // The peers' n: the side length (n × n in 2-D).
    line[QStringLiteral("n")] = static_cast<qint64>(shape[0]);
    line[QStringLiteral("domain")] = qs(domainText(shape));
    line[QStringLiteral("m")] = static_cast<qint64>(m);
    line[QStringLiteral("eps")] = eps;
    line[QStringLiteral("algorithm")] = qs(alg.info().id);
    line[QStringLiteral("workload")] = qs(wName);
    if (!w) {
        line[QStringLiteral("status")] = qs("error: " + w.error().message);
        return line;
    }
    line[QStringLiteral("q")] = static_cast<qint64>(w->queryCount());
    AlgorithmErrorRequest req;
    req.algorithm = &alg;
    req.shape = shape;
    req.x = x;
    req.workload = &*w;
    req.epsilon = eps;
    req.trials = options.trials;
    req.seed = options.seed;
    req.scale = static_cast<double>(m);
    req.threads = options.threads;
    auto r = algorithmError(req);
    if (!r) {
        line[QStringLiteral("status")] = qs("error: " + r.error().message);
        return line;
    }
    line[QStringLiteral("status")] = QStringLiteral("ok");
    line[QStringLiteral("trials")] = static_cast<qint64>(r->trials);
    line[QStringLiteral("L2")] = r->scaledL2.mean;
    line[QStringLiteral("L2_se")] = r->scaledL2.standardError;
    line[QStringLiteral("L1")] = r->scaledL1.mean;
    line[QStringLiteral("L1_se")] = r->scaledL1.standardError;
    line[QStringLiteral("Linf")] = r->scaledLinf.mean;
    line[QStringLiteral("Linf_se")] = r->scaledLinf.standardError;
    line[QStringLiteral("rmse")] = r->rmse.mean;
    line[QStringLiteral("rmse_se")] = r->rmse.standardError;
    if (r->exactRmse) {
        line[QStringLiteral("exact_rmse")] = *r->exactRmse;
    }
    line[QStringLiteral("sec_median")] = r->secondsMedian;
    line[QStringLiteral("total_is_public")] = alg.info().totalIsPublic;
    return line;
}

}  // namespace

int cmdBench(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto args =
        Args::parse(argv, 2,
                    {"datasets", "counts-file", "dim", "n", "m", "eps", "algorithms", "workloads",
                     "trials", "seed", "data-seed", "range-seed", "nq", "threads"},
                    {}, {"counts-file"});
    if (!args) {
        return fail(err, args.error());
    }
    const Args& a = *args;
    auto dim = a.unsignedInt("dim", 1);
    auto trials = a.unsignedInt("trials", 5);
    auto seed = a.unsignedInt("seed", 0);
    auto dataSeed = a.unsignedInt("data-seed", 0);
    auto rangeSeed = a.unsignedInt("range-seed", 9001);
    auto nq = a.unsignedInt("nq", 2000);
    auto threads = a.unsignedInt("threads", 1);
    for (const auto* v : {&dim, &trials, &seed, &dataSeed, &rangeSeed, &nq, &threads}) {
        if (!*v) {
            return fail(err, v->error());
        }
    }
    if (*dim != 1 && *dim != 2) {
        return fail(err, "--dim must be 1 or 2 (the built-in shapes' dimensions)");
    }
    if (*trials < 1 || *trials > 1'000'000) {
        return fail(err, "--trials must be in 1..10^6");
    }
    if (*threads > 1024) {
        return fail(err, "--threads must be at most 1024 (0: every core)");
    }
    auto datasets = datasetsFromArgs(a, static_cast<std::size_t>(*dim));
    if (!datasets) {
        return fail(err, datasets.error());
    }
    auto scales = numbersOf(a, "m", "1000,100000,10000000");
    if (!scales) {
        return fail(err, scales.error());
    }
    for (double m : *scales) {
        if (m < 1 || m > 1e12 || m != std::floor(m)) {
            return fail(err, "--m: the scale " + formatNumber(m) +
                                 " is not a whole number of records in 1..10^12");
        }
    }
    auto epsilons = numbersOf(a, "eps", "0.1,1");
    if (!epsilons) {
        return fail(err, epsilons.error());
    }
    for (double e : *epsilons) {
        if (auto s = validateEpsilon(e); !s) {
            return fail(err, "--eps: " + s.error().message);
        }
    }
    std::vector<const Algorithm*> chosen;
    if (a.has("algorithms")) {
        for (const std::string& id : listOf(*a.get("algorithms"))) {
            auto alg = algorithmFromId(id);
            if (!alg) {
                return fail(err, "--algorithms: " + alg.error().message);
            }
            chosen.push_back(*alg);
        }
    }
    const std::vector<std::string> workloadNames = listOf(a.text("workloads", "range"));
    if (workloadNames.empty()) {
        return fail(err, "--workloads is empty");
    }
    for (const std::string& name : workloadNames) {
        if (auto spec = workloadOf(name, *nq, *rangeSeed); !spec) {
            return fail(err, "--workloads: " + spec.error().message);
        }
    }
    // Every domain size must divide its dataset's domain: checked before any trial runs.
    const std::string nText = a.text("n", "");
    for (const Dataset& d : *datasets) {
        if (!nText.empty()) {
            for (const std::string& n : listOf(nText)) {
                // "256" on a 2-D dataset means 256 × 256, as in the peer runner.
                const std::string full =
                    n.find('x') == std::string::npos && d.data.shape.size() == 2 ? n + "x" + n : n;
                auto to = parseDomain(full, d.data.shape.size());
                if (!to) {
                    return fail(err, "--n (dataset " + d.name + "): " + to.error().message);
                }
                if (auto c = coarsen(d.data.x, d.data.shape, *to); !c) {
                    return fail(err, "--n (dataset " + d.name + "): " + c.error().message);
                }
            }
        }
        for (const Algorithm* alg : chosen) {
            if (auto s = algorithmRunsOn(*alg, d.data.shape); !s) {
                return fail(err, "--algorithms (dataset " + d.name + "): " + s.error().message);
            }
        }
    }

    CellOptions options;
    options.trials = *trials;
    options.seed = *seed;
    options.threads = static_cast<unsigned>(*threads);
    bool anyFailed = false;
    std::set<const Algorithm*> warned;
    for (const Dataset& d : *datasets) {
        std::vector<const Algorithm*> algs = chosen;
        if (algs.empty()) {
            for (const Algorithm* alg : allAlgorithms()) {
                if (algorithmRunsOn(*alg, d.data.shape)) {
                    algs.push_back(alg);
                }
            }
        }
        std::vector<std::string> sizes = listOf(nText);
        if (sizes.empty()) {
            sizes.push_back(std::to_string(d.data.shape[0]));
        }
        for (const Algorithm* alg : algs) {
            if (alg->info().totalIsPublic && warned.insert(alg).second) {
                warn(err, totalIsPublicWarning(alg->info()));
            }
        }
        for (double mValue : *scales) {
            const auto m = static_cast<std::uint64_t>(mValue);
            // DPBench's order: m records drawn on the full domain, then coarsened to each n.
            SimulationRng dataRng(*dataSeed, 0);
            auto full = resample(d.data.x, m, dataRng);
            if (!full) {
                return fail(err, "dataset " + d.name + ": " + full.error().message);
            }
            for (const std::string& n : sizes) {
                const std::string nFull =
                    n.find('x') == std::string::npos && d.data.shape.size() == 2 ? n + "x" + n : n;
                const DomainShape shape = *parseDomain(nFull, d.data.shape.size());
                const std::vector<double> x = *coarsen(*full, d.data.shape, shape);
                for (const std::string& wName : workloadNames) {
                    auto w = Workload::make(*workloadOf(wName, *nq, *rangeSeed), shape);
                    for (double eps : *epsilons) {
                        for (const Algorithm* alg : algs) {
                            const QJsonObject line =
                                benchLine(d.name, shape, m, eps, *alg, wName, w, x, options);
                            anyFailed =
                                anyFailed || line[QStringLiteral("status")] != QStringLiteral("ok");
                            out << QJsonDocument(line).toJson(QJsonDocument::Compact).constData()
                                << '\n'
                                << std::flush;
                        }
                    }
                }
            }
        }
    }
    return anyFailed ? kFailure : kOk;
}

}  // namespace dpx::cli
