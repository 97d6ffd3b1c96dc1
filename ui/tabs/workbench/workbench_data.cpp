#include "ui/tabs/workbench/workbench_data.h"

#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>

#include "core/base/simulation_rng.h"
#include "core/table/table.h"
#include "core/workload/builtin_shapes.h"
#include "core/workload/data_scale.h"
#include "core/workload/strategy.h"
#include "ui/widgets/number_format.h"

namespace dpx::ui {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

const QString kTryBuiltin =
    QStringLiteral("Choose a built-in shape in the Data list to compare the algorithms.");

}  // namespace

Expected<WorkbenchData> workbenchDataFromTable(const ContingencyTable* table, const QString& name) {
    if (table == nullptr || table->attributeCount() == 0) {
        return Error{(QStringLiteral("No data is loaded. ") + kTryBuiltin).toStdString()};
    }
    const std::size_t k = table->attributeCount();
    if (k > 2) {
        return Error{QStringLiteral("The window's table has %1 attributes; the algorithms compared "
                                    "here run on 1-D and 2-D data only (choose one or two columns "
                                    "in the Data panel). %2")
                         .arg(k)
                         .arg(kTryBuiltin)
                         .toStdString()};
    }
    if (!table->isDense() ||
        table->cellCount() > CellCount{static_cast<std::uint64_t>(kMaxWorkloadCells)}) {
        return Error{QStringLiteral("The window's table is too large to compare algorithms on "
                                    "(at most 2^26 cells, stored densely): use fewer bins. %1")
                         .arg(kTryBuiltin)
                         .toStdString()};
    }
    if (table->total() <= 0) {
        return Error{(QStringLiteral("The window's table has no records: there is nothing to "
                                     "measure error against. ") +
                      kTryBuiltin)
                         .toStdString()};
    }
    WorkbenchData d;
    for (std::uint64_t s : table->shape()) {
        d.shape.push_back(static_cast<std::size_t>(s));
    }
    d.x.reserve(table->denseCounts().size());
    for (std::int64_t c : table->denseCounts()) {
        d.x.push_back(static_cast<double>(c));
    }
    d.source = QStringLiteral("%1 (%2, %3 records)")
                   .arg(name, domainText(d.shape),
                        formatThinSpaceGrouped(static_cast<long long>(table->total())));
    return d;
}

Expected<WorkbenchData> builtinWorkbenchData(const QString& name, std::size_t dimensions) {
    if (dimensions != 1 && dimensions != 2) {
        return Error{"built-in shapes are 1-D or 2-D"};
    }
    WorkbenchData d;
    d.shape = dimensions == 1 ? DomainShape{kWorkbenchBuiltin1d}
                              : DomainShape{kWorkbenchBuiltin2d, kWorkbenchBuiltin2d};
    auto x = builtinShape(name.toStdString(), d.shape);
    if (!x) {
        return x.error();
    }
    d.x = std::move(*x);
    d.source = QStringLiteral("built-in shape '%1' (%2)").arg(name, domainText(d.shape));
    return d;
}

std::vector<DomainShape> domainChoices(const DomainShape& shape, std::size_t limit) {
    std::vector<DomainShape> out;
    if (shape.empty()) {
        return out;
    }
    std::size_t g = 0;
    for (std::size_t s : shape) {
        g = std::gcd(g, s);
    }
    for (std::size_t k = 1; k <= g; ++k) {
        if (g % k != 0) {
            continue;
        }
        DomainShape d;
        for (std::size_t s : shape) {
            d.push_back(s / k);
        }
        out.push_back(std::move(d));
    }
    if (out.size() > limit && limit >= 2) {
        // Keep the full shape and an even spread of the rest (by factor), smallest last.
        std::vector<DomainShape> kept{out.front()};
        const std::size_t rest = out.size() - 1;
        for (std::size_t i = 1; i < limit; ++i) {
            kept.push_back(out[1 + (i - 1) * (rest - 1) / (limit - 2)]);
        }
        kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
        out = std::move(kept);
    }
    return out;
}

QString domainText(const DomainShape& shape) {
    QStringList parts;
    for (std::size_t s : shape) {
        parts << formatThinSpaceGrouped(static_cast<long long>(s));
    }
    return parts.join(QStringLiteral(" × "));
}

namespace {

Expected<std::vector<double>> parseNumberList(const QString& text, const QString& what,
                                              bool allowData) {
    std::vector<double> out;
    const QStringList parts =
        text.split(QRegularExpression(QStringLiteral("[,;\\s]+")), Qt::SkipEmptyParts);
    for (const QString& p : parts) {
        if (allowData && p.compare(QLatin1String("data"), Qt::CaseInsensitive) == 0) {
            out.push_back(0);
            continue;
        }
        bool ok = false;
        const double v = p.toDouble(&ok);
        if (!ok || !std::isfinite(v) || v <= 0) {
            return Error{QStringLiteral("%1: '%2' is not a number > 0%3")
                             .arg(what, p,
                                  allowData ? QStringLiteral(" (or 'data' for the data as it is)")
                                            : QString())
                             .toStdString()};
        }
        if (allowData && (v != std::floor(v) || v > 1e12)) {
            return Error{QStringLiteral("%1: '%2' is not a whole number of records ≤ 10¹²")
                             .arg(what, p)
                             .toStdString()};
        }
        out.push_back(v);
    }
    if (out.empty()) {
        return Error{(what + QStringLiteral(": give at least one value")).toStdString()};
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace

Expected<std::vector<double>> parseEpsilonList(const QString& text) {
    return parseNumberList(text, QStringLiteral("ε values"), false);
}

Expected<std::vector<double>> parseScaleList(const QString& text) {
    return parseNumberList(text, QStringLiteral("Scales m"), true);
}

QString scaleText(double m) {
    if (m == 0) {
        return QStringLiteral("data");
    }
    return formatThinSpaceGrouped(static_cast<long long>(m));
}

Expected<WorkbenchPrepared> prepareWorkbench(const WorkbenchData& data,
                                             const WorkbenchSettings& settings) {
    if (data.x.empty() || data.shape.empty()) {
        return Error{"no data"};
    }
    const double total = std::accumulate(data.x.begin(), data.x.end(), 0.0);
    if (!(total > 0)) {
        return Error{"the data has no records: there is nothing to measure error against"};
    }
    if (settings.scales.empty() || settings.epsilons.empty()) {
        return Error{"give at least one scale and one ε"};
    }
    WorkbenchPrepared p;
    p.shape = settings.domain.empty() ? data.shape : settings.domain;
    if (p.shape.size() != data.shape.size()) {
        return Error{"the domain size has " + std::to_string(p.shape.size()) +
                     " dimensions; the data has " + std::to_string(data.shape.size())};
    }
    auto spec = WorkloadSpec::parse(settings.workload.toStdString());
    if (!spec) {
        return Error{"workload: " + spec.error().message};
    }
    auto w = Workload::make(*spec, p.shape);
    if (!w) {
        return Error{"workload: " + w.error().message};
    }
    p.workload = std::make_shared<const Workload>(std::move(*w));
    for (double m : settings.scales) {
        std::vector<double> full;
        if (m == 0) {
            full = data.x;
        } else {
            // DPBench's order (as dpx bench): m records drawn on the data's own domain, then
            // coarsened; one generator per scale, so each scale's data is reproducible alone.
            SimulationRng rng(settings.dataSeed, 0);
            auto r = resample(data.x, static_cast<std::uint64_t>(m), rng);
            if (!r) {
                return Error{"scale " + scaleText(m).toStdString() + ": " + r.error().message};
            }
            full = std::move(*r);
        }
        auto c = coarsen(full, data.shape, p.shape);
        if (!c) {
            return Error{"domain size: " + c.error().message};
        }
        p.scales.push_back(m);
        p.scaleTotal.push_back(m == 0 ? total : m);
        p.x.push_back(std::move(*c));
    }
    for (const QString& id : settings.algorithms) {
        const Algorithm* a = findAlgorithm(id.toStdString());
        if (a == nullptr) {
            p.refused.emplace_back(id, QStringLiteral("unknown algorithm"));
            continue;
        }
        const auto& dims = a->info().dimensions;
        if (std::find(dims.begin(), dims.end(), p.shape.size()) == dims.end()) {
            p.refused.emplace_back(
                id, QStringLiteral("runs on %1-D data only").arg(dims.empty() ? 0 : dims.front()));
            continue;
        }
        p.algorithms.push_back(a);
    }
    if (p.algorithms.empty()) {
        return Error{"choose at least one algorithm that runs on " +
                     std::to_string(p.shape.size()) + "-D data"};
    }
    return p;
}

bool measuresGaussian(const Algorithm& algorithm, const WorkbenchSettings& settings) {
    return settings.gaussian && algorithm.info().gaussian;
}

std::vector<WorkbenchCell> exactCells(const WorkbenchPrepared& prepared,
                                      const WorkbenchSettings& settings, std::stop_token stop) {
    std::vector<WorkbenchCell> out;
    for (const Algorithm* a : prepared.algorithms) {
        if (a->info().dataDependent) {
            continue;
        }
        const bool gaussian = measuresGaussian(*a, settings);
        auto s = a->strategyFor(prepared.shape, *prepared.workload,
                                gaussian ? MeasurementNoise::Gaussian : MeasurementNoise::Laplace);
        if (!s || !*s) {
            continue;
        }
        for (double eps : settings.epsilons) {
            if (stop.stop_requested()) {
                return out;
            }
            // The exact error does not depend on the data, hence not on the scale either.
            auto e =
                expectedLeastSquaresError(**s, *prepared.workload,
                                          gaussian ? MeasurementSpec::gaussian(eps, settings.delta)
                                                   : MeasurementSpec::laplace(eps));
            if (!e) {
                break;
            }
            for (std::size_t si = 0; si < prepared.scales.size(); ++si) {
                WorkbenchCell c;
                c.algorithm = qs(a->info().id);
                c.scaleIndex = si;
                c.epsilon = eps;
                c.exactRmse = e->rmse;
                out.push_back(std::move(c));
            }
        }
    }
    return out;
}

std::vector<WorkbenchCell> runAlgorithm(const WorkbenchPrepared& prepared,
                                        const WorkbenchSettings& settings,
                                        const Algorithm& algorithm,
                                        const ProgressCallback& progress, std::stop_token stop) {
    std::vector<WorkbenchCell> out;
    const std::size_t total = prepared.scales.size() * settings.epsilons.size();
    std::size_t done = 0;
    for (std::size_t si = 0; si < prepared.scales.size(); ++si) {
        for (double eps : settings.epsilons) {
            if (stop.stop_requested()) {
                return out;
            }
            WorkbenchCell c;
            c.algorithm = qs(algorithm.info().id);
            c.scaleIndex = si;
            c.epsilon = eps;
            AlgorithmErrorRequest req;
            req.algorithm = &algorithm;
            req.shape = prepared.shape;
            req.x = prepared.x[si];
            req.workload = prepared.workload.get();
            req.epsilon = eps;
            if (measuresGaussian(algorithm, settings)) {
                req.measurement = MeasurementNoise::Gaussian;
                req.delta = settings.delta;
            }
            req.trials = settings.trials;
            req.seed = settings.seed;
            req.scale = prepared.scaleTotal[si];
            req.threads = settings.threads;
            const double before = static_cast<double>(done);
            auto r = algorithmError(
                req,
                [&](double f) {
                    if (progress) {
                        progress((before + f) / static_cast<double>(total));
                    }
                },
                stop);
            if (stop.stop_requested()) {
                return out;
            }
            if (r) {
                c.exactRmse = r->exactRmse;
                c.result = std::move(*r);
            } else {
                c.error = qs(r.error().message);
            }
            out.push_back(std::move(c));
            ++done;
            if (progress) {
                progress(static_cast<double>(done) / static_cast<double>(total));
            }
        }
    }
    return out;
}

double exactValue(const WorkbenchCell& cell, WorkbenchMetric metric, double scaleTotal,
                  std::uint64_t queries) {
    if (!cell.exactRmse) {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (metric == WorkbenchMetric::Rmse) {
        return *cell.exactRmse;
    }
    // ‖d‖₂/(q·m) with ‖d‖₂ replaced by √E‖d‖² = √q·rmse.
    const auto q = static_cast<double>(queries);
    return *cell.exactRmse / (std::sqrt(q) * scaleTotal);
}

WorkbenchValue cellValue(const WorkbenchCell& cell, WorkbenchMetric metric, double scaleTotal,
                         std::uint64_t queries) {
    WorkbenchValue v;
    if (cell.result) {
        const MeanWithError& m =
            metric == WorkbenchMetric::Rmse ? cell.result->rmse : cell.result->scaledL2;
        v.mean = m.mean;
        v.standardError = m.standardError;
        v.valid = std::isfinite(v.mean);
        return v;
    }
    const double e = exactValue(cell, metric, scaleTotal, queries);
    if (std::isfinite(e)) {
        v.mean = e;
        v.exact = true;
        v.valid = true;
    }
    return v;
}

Expected<WorkbenchDetail> workbenchDetail(const Workload& workload, std::vector<double> x,
                                          std::vector<double> estimate, std::size_t worstCount) {
    const DomainShape& shape = workload.shape();
    if (x.size() != shapeCells(shape) || estimate.size() != x.size()) {
        return Error{"the output does not match the domain"};
    }
    WorkbenchDetail d;
    d.shape = shape;
    // Per-query errors when the workload can be listed (up to 10^6 queries here: the map and
    // the worst queries of a larger workload would cost more than the runs).
    constexpr std::uint64_t kMaxListed = 1000000;
    std::vector<double> errors;
    if (workload.explicitQueries() && workload.queryCount() <= kMaxListed) {
        auto a = workload.answers(x);
        auto b = workload.answers(estimate);
        if (!a || !b) {
            return Error{(!a ? a.error() : b.error()).message};
        }
        errors.resize(a->size());
        for (std::size_t i = 0; i < errors.size(); ++i) {
            errors[i] = (*b)[i] - (*a)[i];
        }
        std::vector<std::size_t> order(errors.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        const std::size_t k = std::min(worstCount, order.size());
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k),
                          order.end(), [&](std::size_t i, std::size_t j) {
                              return std::abs(errors[i]) > std::abs(errors[j]) ||
                                     (std::abs(errors[i]) == std::abs(errors[j]) && i < j);
                          });
        for (std::size_t r = 0; r < k; ++r) {
            d.worst.push_back({workload.query(order[r]), errors[order[r]]});
        }
    }
    if (shape.size() == 2) {
        const std::size_t rows = shape[0], cols = shape[1];
        if (!errors.empty()) {
            // Σ|e_q| and the number of queries over every cell, by 2-D difference arrays:
            // +v at (r0, c0), −v at (r0, c1+1) and (r1+1, c0), +v at (r1+1, c1+1), then prefix
            // sums along both axes — O(q + cells) instead of O(q · area).
            std::vector<double> sum((rows + 1) * (cols + 1), 0.0), cnt(sum.size(), 0.0);
            const auto add = [&](std::vector<double>& g, std::size_t r, std::size_t c, double v) {
                g[r * (cols + 1) + c] += v;
            };
            for (std::size_t i = 0; i < errors.size(); ++i) {
                const RangeQuery q = workload.query(i);
                const auto r0 = static_cast<std::size_t>(q.box[0].lo);
                const auto r1 = static_cast<std::size_t>(q.box[0].hi) + 1;
                const auto c0 = static_cast<std::size_t>(q.box[1].lo);
                const auto c1 = static_cast<std::size_t>(q.box[1].hi) + 1;
                const double e = std::abs(errors[i]);
                for (auto* g : {&sum, &cnt}) {
                    const double v = g == &sum ? e : 1.0;
                    add(*g, r0, c0, v);
                    add(*g, r0, c1, -v);
                    add(*g, r1, c0, -v);
                    add(*g, r1, c1, v);
                }
            }
            for (auto* g : {&sum, &cnt}) {
                for (std::size_t r = 0; r <= rows; ++r) {
                    for (std::size_t c = 1; c <= cols; ++c) {
                        (*g)[r * (cols + 1) + c] += (*g)[r * (cols + 1) + c - 1];
                    }
                }
                for (std::size_t r = 1; r <= rows; ++r) {
                    for (std::size_t c = 0; c <= cols; ++c) {
                        (*g)[r * (cols + 1) + c] += (*g)[(r - 1) * (cols + 1) + c];
                    }
                }
            }
            d.cellError.resize(rows * cols);
            for (std::size_t r = 0; r < rows; ++r) {
                for (std::size_t c = 0; c < cols; ++c) {
                    const double n = std::round(cnt[r * (cols + 1) + c]);
                    d.cellError[r * cols + c] = n > 0 ? sum[r * (cols + 1) + c] / n
                                                      : std::numeric_limits<double>::quiet_NaN();
                }
            }
            d.cellErrorMeaning = QStringLiteral(
                "mean |error| of the workload's queries that contain the cell (blank: no query "
                "contains it)");
        } else {
            d.cellError.resize(x.size());
            for (std::size_t i = 0; i < x.size(); ++i) {
                d.cellError[i] = std::abs(estimate[i] - x[i]);
            }
            d.cellErrorMeaning =
                QStringLiteral("|x̂ − x| of each cell (the workload is too large to list)");
        }
    }
    d.x = std::move(x);
    d.estimate = std::move(estimate);
    return d;
}

std::vector<std::vector<std::size_t>> frontierTies(std::span<const ErrorCurve> curves,
                                                   const Frontier& frontier) {
    const auto pointOf = [&curves](std::size_t c, double eps) -> const CurvePoint* {
        if (c >= curves.size()) {
            return nullptr;
        }
        for (const CurvePoint& p : curves[c].points) {
            if (p.epsilon == eps && p.valid()) {
                return &p;
            }
        }
        return nullptr;
    };
    const auto half = [](const CurvePoint& p) {
        return p.exact ? 0.0 : std::max(p.ciHigh - p.value, p.value - p.ciLow);
    };
    std::vector<std::vector<std::size_t>> out;
    for (const FrontierPoint& fp : frontier.points) {
        std::vector<std::size_t> tied;
        if (const CurvePoint* w = pointOf(fp.curve, fp.epsilon)) {
            for (std::size_t j = 0; j < curves.size(); ++j) {
                const CurvePoint* p = j == fp.curve ? nullptr : pointOf(j, fp.epsilon);
                if (p != nullptr && std::abs(p->value - w->value) <= half(*w) + half(*p)) {
                    tied.push_back(j);
                }
            }
        }
        out.push_back(std::move(tied));
    }
    return out;
}

QString frontierWinners(std::span<const ErrorCurve> curves, const Frontier& frontier) {
    const auto ties = frontierTies(curves, frontier);
    QStringList runs;
    std::size_t lastCurve = curves.size();
    std::vector<std::size_t> lastTies;
    for (std::size_t k = 0; k < frontier.points.size(); ++k) {
        const FrontierPoint& fp = frontier.points[k];
        if (fp.curve >= curves.size() || (fp.curve == lastCurve && ties[k] == lastTies)) {
            continue;
        }
        QString run = QStringLiteral("%1 from ε = %2")
                          .arg(QString::fromStdString(curves[fp.curve].label),
                               QString::number(fp.epsilon, 'g', 3));
        if (!ties[k].empty()) {
            QStringList names;
            for (std::size_t j : ties[k]) {
                names << QString::fromStdString(curves[j].label);
            }
            run += QStringLiteral(" (not significantly below %1: add trials)")
                       .arg(names.join(QStringLiteral(", ")));
        }
        runs << run;
        lastCurve = fp.curve;
        lastTies = ties[k];
    }
    return runs.join(QStringLiteral("; "));
}

QString workbenchCsv(const WorkbenchPrepared& prepared, const WorkbenchSettings& settings,
                     const std::vector<WorkbenchCell>& cells) {
    const auto num = [](double v) { return QString::number(v, 'g', 10); };
    // Each row names its noise law: an HDMM row under Gaussian measurement is (ε, δ)-DP, the
    // others ε-DP (δ = 0).
    const auto gaussian = [&](const QString& id) {
        for (const Algorithm* a : prepared.algorithms) {
            if (QString::fromStdString(a->info().id) == id) {
                return measuresGaussian(*a, settings);
            }
        }
        return false;
    };
    QString out = QStringLiteral(
        "algorithm,domain,m,epsilon,noise,delta,trials,scaled_l2,scaled_l2_se,rmse,rmse_se,"
        "exact_rmse,seconds_median,error\n");
    const QString domain = domainText(prepared.shape)
                               .remove(QChar(0x2009))
                               .replace(QStringLiteral(" × "), QStringLiteral("x"));
    for (const WorkbenchCell& c : cells) {
        QStringList f;
        const double m = prepared.scaleTotal[c.scaleIndex];
        f << c.algorithm << domain << num(m) << num(c.epsilon);
        if (gaussian(c.algorithm)) {
            f << QStringLiteral("gaussian") << num(settings.delta);
        } else {
            f << QStringLiteral("laplace") << QStringLiteral("0");
        }
        if (c.result) {
            f << QString::number(c.result->trials) << num(c.result->scaledL2.mean)
              << num(c.result->scaledL2.standardError) << num(c.result->rmse.mean)
              << num(c.result->rmse.standardError);
        } else {
            f << QString() << QString() << QString() << QString() << QString();
        }
        f << (c.exactRmse ? num(*c.exactRmse) : QString())
          << (c.result ? num(c.result->secondsMedian) : QString());
        QString e = c.error;
        if (e.contains(QLatin1Char(',')) || e.contains(QLatin1Char('"'))) {
            e = QLatin1Char('"') + e.replace(QLatin1Char('"'), QStringLiteral("\"\"")) +
                QLatin1Char('"');
        }
        f << e;
        out += f.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return out;
}

}  // namespace dpx::ui
