#include "ui/tabs/strategy/strategy_data.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/simulation_rng.h"
#include "core/matrix_mechanism/hdmm.h"
#include "core/table/table.h"
#include "ui/widgets/number_format.h"

namespace dpx::ui {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

bool stopped(const std::stop_token& stop) {
    return stop.stop_requested();
}

// trace((AᵀA)⁻¹WᵀW) from core: its exact total squared error at Laplace, ε = 1, divided by the
// per-row variance it used (core forms totalSquared = σ²·trace).
void fillTrace(DesignerStrategy& s, const Workload& w) {
    const MeasurementSpec unit = MeasurementSpec::laplace(1);
    auto e = expectedLeastSquaresError(*s.strategy, w, unit);
    auto v = measurementVariance(*s.strategy, unit);
    if (!e) {
        s.unavailable = qs(e.error().message);
        return;
    }
    if (!v) {
        s.unavailable = qs(v.error().message);
        return;
    }
    s.trace = e->totalSquared / *v;
}

DesignerStrategy baseline(const QString& name, Expected<std::unique_ptr<LinearStrategy>> strategy) {
    DesignerStrategy s;
    s.name = name;
    if (!strategy) {
        s.unavailable = qs(strategy.error().message);
        return s;
    }
    s.description = qs((*strategy)->describe());
    s.strategy = std::shared_ptr<const LinearStrategy>(std::move(strategy).value());
    return s;
}

// Levels of the b-ary hierarchy over n cells (the root, then down to single cells).
std::size_t hierarchyLevels(std::size_t n, std::size_t b) {
    std::size_t levels = 1;
    for (std::size_t m = 1; m < n; m *= b) {
        ++levels;
    }
    return levels;
}

// The b-ary hierarchy (Hay et al. 2010) on every dimension (their Kronecker product in k-D), the
// root measured or not (HB's choice, Qardaji et al. 2013).
Expected<std::unique_ptr<LinearStrategy>> hierarchyOf(const DomainShape& shape, std::size_t b,
                                                      bool root) {
    std::vector<std::unique_ptr<LinearStrategy>> factors;
    for (std::size_t n : shape) {
        std::vector<double> weights;
        if (!root && n > 1) {
            weights.assign(hierarchyLevels(n, b), 1.0);
            weights[0] = 0;
        }
        auto f = hierarchicalStrategy(n, b, std::move(weights));
        if (!f) {
            return f.error();
        }
        factors.push_back(std::move(f).value());
    }
    if (factors.size() == 1) {
        return std::move(factors[0]);
    }
    return kroneckerStrategy(std::move(factors));
}

// The hierarchies whose branching b (2 … 16, at most the smallest dimension), with or without
// the root, give the lowest exact error on the workload, one per measurement law. The error is
// σ²·trace((AᵀA)⁻¹WᵀW) and σ² scales with the square of the sensitivity the law is calibrated
// to: Laplace σ² = 2(Δ₁/ε)², the analytic Gaussian (Balle & Wang 2018) σ = Δ₂·σ(ε, δ, 1) — so
// the criterion is Δ₁²·trace under Laplace and Δ₂²·trace under Gaussian, at every ε and δ. A
// hierarchy of L levels, each of weight 1, has Δ₁ = L but Δ₂ = √L, so Gaussian measurement
// favours deeper trees (smaller b) than Laplace does. One entry when both laws pick the same
// tree, else two (the Laplace one first), each marked with the law it is drawn for.
std::vector<DesignerStrategy> bestHierarchies(const Workload& w, const std::stop_token& stop) {
    struct Best {
        DesignerStrategy s;
        double error = INFINITY;
        std::size_t b = 0;
        bool root = false;
    };
    Best best[2];  // [0] Laplace (Δ₁²), [1] Gaussian (Δ₂²)
    const std::size_t smallest = *std::min_element(w.shape().begin(), w.shape().end());
    const std::size_t maxB = std::min<std::size_t>(16, smallest);
    const auto unavailable = [](const QString& why) {
        DesignerStrategy u;
        u.name = QStringLiteral("Best hierarchy");
        u.unavailable = why;
        return std::vector<DesignerStrategy>{u};
    };
    if (maxB < 2) {
        return unavailable(QStringLiteral("a hierarchy needs at least 2 cells per dimension"));
    }
    QString lastError;
    for (std::size_t b = 2; b <= maxB && !stopped(stop); ++b) {
        for (bool root : {true, false}) {
            DesignerStrategy s = baseline(QString(), hierarchyOf(w.shape(), b, root));
            if (s.unavailable.isEmpty()) {
                fillTrace(s, w);
            }
            if (!s.unavailable.isEmpty()) {
                lastError = s.unavailable;
                continue;
            }
            const double l1 = s.strategy->sensitivityL1();
            const double l2 = s.strategy->sensitivityL2();
            const double error[2] = {s.trace * l1 * l1, s.trace * l2 * l2};
            for (int law = 0; law < 2; ++law) {
                if (!best[law].s.strategy || error[law] < best[law].error) {
                    best[law] = Best{s, error[law], b, root};
                }
            }
        }
    }
    if (!best[0].s.strategy || !best[1].s.strategy) {
        return unavailable(lastError.isEmpty() ? QStringLiteral("cancelled") : lastError);
    }
    const auto label = [](const QString& head, std::size_t b, bool root) {
        return root ? QStringLiteral("%1 (b = %2)").arg(head).arg(b)
                    : QStringLiteral("%1 (b = %2, no root)").arg(head).arg(b);
    };
    std::vector<DesignerStrategy> out;
    if (best[0].b == best[1].b && best[0].root == best[1].root) {
        best[0].s.name = label(QStringLiteral("Best hierarchy"), best[0].b, best[0].root);
        out.push_back(std::move(best[0].s));
        return out;
    }
    best[0].s.name = label(QStringLiteral("Best hierarchy, Laplace"), best[0].b, best[0].root);
    best[0].s.law = DesignerLaw::Laplace;
    best[1].s.name = label(QStringLiteral("Best hierarchy, Gaussian"), best[1].b, best[1].root);
    best[1].s.law = DesignerLaw::Gaussian;
    out.push_back(std::move(best[0].s));
    out.push_back(std::move(best[1].s));
    return out;
}

// Calls f(cell) for every cell of the box, C order.
template <class F>
void forEachCell(const RangeQuery& q, const DomainShape& shape, F&& f) {
    const std::size_t k = shape.size();
    std::vector<std::size_t> stride(k, 1);
    for (std::size_t d = k - 1; d > 0; --d) {
        stride[d - 1] = stride[d] * shape[d];
    }
    std::vector<std::uint64_t> at(k);
    for (std::size_t d = 0; d < k; ++d) {
        at[d] = q.box[d].lo;
    }
    while (true) {
        std::size_t c = 0;
        for (std::size_t d = 0; d < k; ++d) {
            c += static_cast<std::size_t>(at[d]) * stride[d];
        }
        f(c);
        std::size_t d = k;
        while (true) {
            if (d == 0) {
                return;
            }
            --d;
            if (at[d] < q.box[d].hi) {
                ++at[d];
                break;
            }
            at[d] = q.box[d].lo;
        }
    }
}

QString tooLarge(const QString& what, std::uint64_t rows, std::size_t cols) {
    return QStringLiteral("%1 has %2 rows × %3 columns: too large to draw (at most %4 of each).")
        .arg(what, formatThinSpaceGrouped(static_cast<long long>(rows)),
             formatThinSpaceGrouped(static_cast<long long>(cols)),
             formatThinSpaceGrouped(static_cast<long long>(kDesignerMaxDrawn)));
}

}  // namespace

std::vector<double> designerEpsilonGrid() {
    std::vector<double> out;
    for (int i = 0; i <= 60; ++i) {
        out.push_back(std::pow(10.0, -2.0 + i / 20.0));
    }
    return out;
}

QString queryText(const RangeQuery& q) {
    QStringList parts;
    for (const BinRange& b : q.box) {
        parts << QStringLiteral("[%1, %2]").arg(b.lo).arg(b.hi);
    }
    return parts.join(QStringLiteral(" × "));
}

PerQueryGrid perQueryGrid(const DesignerResult& r) {
    PerQueryGrid g;
    const Workload& w = *r.workload;
    const DomainShape& shape = w.shape();
    const std::size_t q = r.perQueryForm.size();
    if (q == 0 || q != w.queryCount()) {
        g.why = r.perQueryNote;
        return g;
    }
    const auto place = [&](std::size_t rows, std::size_t cols, auto&& cellOf) {
        g.rows = rows;
        g.cols = cols;
        g.form.assign(rows * cols, std::numeric_limits<double>::quiet_NaN());
        g.query.assign(rows * cols, 0);
        for (std::size_t i = 0; i < q; ++i) {
            const std::size_t c = cellOf(w.query(i));
            if (!std::isnan(g.form[c])) {
                return false;  // two queries on one cell
            }
            g.form[c] = r.perQueryForm[i];
            g.query[c] = i;
        }
        return true;
    };
    const auto fail = [&](const QString& why) {
        g = PerQueryGrid{};
        g.why = why;
        return g;
    };
    if (shape.size() == 1) {
        if (w.spec().kind != WorkloadKind::AllRange || shape[0] < 2) {
            return fail(QStringLiteral(
                "in one dimension only all ranges map onto a grid (by their two ends)"));
        }
        const std::size_t n = shape[0];
        place(n, n, [n](const RangeQuery& rq) {
            return static_cast<std::size_t>(rq.box[0].lo) * n +
                   static_cast<std::size_t>(rq.box[0].hi);
        });
        g.xLabel = QStringLiteral("b (last cell of the range)");
        g.yLabel = QStringLiteral("a (first cell of the range)");
        g.layout = QStringLiteral("the range [a, b] at row a, column b (grey: a > b)");
        return g;
    }
    if (shape.size() != 2) {
        return fail(QStringLiteral("the domain has %1 dimensions (a heatmap of the queries needs "
                                   "one or two)")
                        .arg(shape.size()));
    }
    const std::size_t rows = shape[0], cols = shape[1];
    bool prefixes = true, oneExtent = true;
    const RangeQuery first = w.query(0);
    const std::uint64_t h = first.box[0].hi - first.box[0].lo,
                        wd = first.box[1].hi - first.box[1].lo;
    for (std::size_t i = 0; i < q && (prefixes || oneExtent); ++i) {
        const RangeQuery rq = w.query(i);
        prefixes = prefixes && rq.box[0].lo == 0 && rq.box[1].lo == 0;
        oneExtent =
            oneExtent && rq.box[0].hi - rq.box[0].lo == h && rq.box[1].hi - rq.box[1].lo == wd;
    }
    const QString severalExtents = QStringLiteral(
        "the queries are boxes of several extents, which do not map one to one onto cells");
    if (oneExtent) {
        const std::size_t gr = rows - static_cast<std::size_t>(h);
        const std::size_t gc = cols - static_cast<std::size_t>(wd);
        if (!place(gr, gc, [gc](const RangeQuery& rq) {
                return static_cast<std::size_t>(rq.box[0].lo) * gc +
                       static_cast<std::size_t>(rq.box[1].lo);
            })) {
            return fail(QStringLiteral("two of the queries cover the same cells"));
        }
        g.xLabel = QStringLiteral("column");
        g.yLabel = QStringLiteral("row");
        g.layout = h == 0 && wd == 0
                       ? QStringLiteral("each cell shows the error of that cell's query")
                       : QStringLiteral(
                             "each cell (r, c) shows the error of the %1 × %2 box whose top-left "
                             "cell is (r, c)")
                             .arg(h + 1)
                             .arg(wd + 1);
    } else if (prefixes) {
        if (!place(rows, cols, [cols](const RangeQuery& rq) {
                return static_cast<std::size_t>(rq.box[0].hi) * cols +
                       static_cast<std::size_t>(rq.box[1].hi);
            })) {
            return fail(severalExtents);
        }
        g.xLabel = QStringLiteral("c (last column of the prefix)");
        g.yLabel = QStringLiteral("r (last row of the prefix)");
        g.layout = QStringLiteral("each cell (r, c) shows the error of the prefix [0, r] × [0, c]");
    } else {
        return fail(severalExtents);
    }
    return g;
}

MarginalPanels marginalPanels(const DesignerResult& r) {
    MarginalPanels out;
    const auto fail = [&out](const QString& why) {
        out.panels.clear();
        out.why = why;
        return out;
    };
    if (!r.workload) {
        return fail(QStringLiteral("no workload"));
    }
    const Workload& w = *r.workload;
    const DomainShape& shape = w.shape();
    const std::size_t dims = shape.size();
    if (w.spec().kind != WorkloadKind::Marginals || dims < 3) {
        return fail(
            QStringLiteral("the workload is not a marginal workload over three or more "
                           "attributes"));
    }
    if (r.perQueryForm.size() != w.queryCount()) {
        return fail(r.perQueryNote.isEmpty() ? QStringLiteral("no per-query errors")
                                             : r.perQueryNote);
    }
    std::uint64_t next = 0;
    for (std::size_t k : w.spec().ways) {
        if (k < 1 || k > dims) {
            return fail(QStringLiteral("a marginal order outside 1 … %1").arg(dims));
        }
        std::vector<std::size_t> pick(k);
        for (std::size_t i = 0; i < k; ++i) {
            pick[i] = i;
        }
        while (true) {
            if (out.panels.size() >= kDesignerMaxPanels) {
                return fail(QStringLiteral("more than %1 marginals: too many to draw one by one")
                                .arg(kDesignerMaxPanels));
            }
            MarginalPanel panel;
            panel.attributes = pick;
            panel.rows = k == 1 ? 1 : shape[pick[0]];
            std::size_t cells = 1;
            for (std::size_t a : pick) {
                cells *= shape[a];
            }
            panel.cols = cells / panel.rows;
            panel.form.resize(cells);
            panel.query.resize(cells);
            for (std::size_t c = 0; c < cells; ++c, ++next) {
                if (next >= w.queryCount()) {
                    return fail(
                        QStringLiteral("the workload has fewer queries than its marginals"));
                }
                // The cell's values on the marginal's attributes (C order) must be the query's
                // box: one value on each kept attribute, the whole range on the others.
                const RangeQuery q = w.query(next);
                std::size_t rest = c;
                std::vector<std::uint64_t> value(dims, 0);
                for (std::size_t m = k; m-- > 0;) {
                    value[pick[m]] = rest % shape[pick[m]];
                    rest /= shape[pick[m]];
                }
                for (std::size_t d = 0; d < dims; ++d) {
                    const bool kept = std::find(pick.begin(), pick.end(), d) != pick.end();
                    const BinRange want =
                        kept ? BinRange{value[d], value[d]}
                             : BinRange{0, static_cast<std::uint64_t>(shape[d] - 1)};
                    if (q.box[d].lo != want.lo || q.box[d].hi != want.hi) {
                        return fail(QStringLiteral("the queries are not in the marginals' order"));
                    }
                }
                panel.form[c] = r.perQueryForm[static_cast<std::size_t>(next)];
                panel.query[c] = next;
            }
            out.panels.push_back(std::move(panel));
            std::size_t i = k;
            while (i > 0 && pick[i - 1] == dims - k + i - 1) {
                --i;
            }
            if (i == 0) {
                break;
            }
            ++pick[i - 1];
            for (std::size_t j = i; j < k; ++j) {
                pick[j] = pick[j - 1] + 1;
            }
        }
    }
    if (next != w.queryCount()) {
        return fail(QStringLiteral("the workload has more queries than its marginals"));
    }
    return out;
}

namespace {

// One design for `law`: the optimised strategy at strategies[0], its per-query forms and A (the
// baselines and W are the caller's). Progress through `report` in [0, 1].
Expected<DesignerResult> designOne(const DesignerInputs& in, std::shared_ptr<const Workload> w,
                                   MeasurementNoise law, std::stop_token stop,
                                   const std::function<void(double)>& report) {
    DesignerResult r;
    r.inputs = in;
    r.workload = std::move(w);
    r.workloadDescription = qs(r.workload->describe());
    r.measurement = law;
    const Workload& wl = *r.workload;

    StrategyOptimizeOptions options;
    options.restarts = in.restarts;
    options.seed = in.seed;
    options.measurement = law;
    auto d = designStrategy(wl, in.templ, in.p, options, stop, [&](double f) { report(0.9 * f); });
    if (stopped(stop)) {
        return Error{"cancelled"};
    }
    if (!d) {
        return d.error();
    }
    r.templateName = qs(d->templateName);
    r.p = d->p;
    r.objective = d->objective;
    r.objectiveIsBound = d->objectiveIsBound;
    r.iterations = d->iterations;
    DesignerStrategy opt;
    opt.optimised = true;
    opt.law = law == MeasurementNoise::Laplace ? DesignerLaw::Laplace : DesignerLaw::Gaussian;
    // The legend's name: the template without its details (OPT₊ lists every part's template;
    // the full name is in the status line).
    QString shortName = r.templateName;
    if (d->objectiveIsBound) {
        shortName = QStringLiteral("OPT₊");
    } else if (d->kind == DesignTemplate::Marginals) {
        shortName = QStringLiteral("OPT_M");
    } else if (const qsizetype cut = shortName.indexOf(QStringLiteral(" (union of Kronecker"));
               cut > 0) {
        shortName = shortName.left(cut) + QStringLiteral(", union");
    }
    opt.name = law == MeasurementNoise::Laplace
                   ? QStringLiteral("Optimised (%1)").arg(shortName)
                   : QStringLiteral("Optimised for Gaussian (%1)").arg(shortName);
    opt.description = qs(d->strategy->describe());
    opt.strategy = std::shared_ptr<const LinearStrategy>(std::move(d->strategy));
    if (d->objectiveIsBound) {
        // OPT₊: HDMM's objective (each part answered from its own strategy), an upper bound on
        // least squares over the stack, whose exact error needs a conjugate-gradient solve per
        // query. The stack has unit sensitivity for its law, so the bound is the trace's.
        opt.name += QStringLiteral(", upper bound");
        opt.trace = d->objective;
    } else {
        fillTrace(opt, wl);
    }
    r.strategies.push_back(std::move(opt));

    // Per-query forms of the optimised strategy.
    const LinearStrategy& a = *r.strategies[0].strategy;
    const DomainShape& shape = in.shape;
    const std::size_t cells = shapeCells(shape);
    // One solve with A per query unless the strategy is a Kronecker product (k-D), whose
    // quadratic forms factor: a budget on queries × cells keeps this to seconds.
    const bool kronecker = shape.size() > 1;
    if (r.objectiveIsBound) {
        r.perQueryNote = QStringLiteral(
            "OPT₊ stacks one strategy per part; its per-query errors under least squares need a "
            "conjugate-gradient solve each and are not computed here. The curve shows HDMM's "
            "bound (each part answered from its own strategy).");
    } else if (wl.queryCount() > kDesignerMaxPerQuery ||
               (!kronecker && static_cast<double>(wl.queryCount()) * static_cast<double>(cells) >
                                  kDesignerMaxPerQueryWork)) {
        r.perQueryNote =
            QStringLiteral(
                "%1 queries on %2 cells: too many to compute their errors one by one here "
                "(at most %3 queries and 5·10⁷ queries × cells in 1-D); the RMSE "
                "against ε is exact all the same.")
                .arg(formatThinSpaceGrouped(static_cast<long long>(wl.queryCount())),
                     formatThinSpaceGrouped(static_cast<long long>(cells)),
                     formatThinSpaceGrouped(static_cast<long long>(kDesignerMaxPerQuery)));
    } else {
        const MeasurementSpec unit = MeasurementSpec::laplace(1);
        auto e = expectedLeastSquaresError(a, wl, unit, true);
        auto v = measurementVariance(a, unit);
        if (!e || !v) {
            r.perQueryNote = qs(!e ? e.error().message : v.error().message);
        } else {
            r.perQueryForm = std::move(e->perQueryVariance);
            for (double& f : r.perQueryForm) {
                f /= *v;
            }
        }
    }
    if (stopped(stop)) {
        return Error{"cancelled"};
    }
    if (a.rows() > kDesignerMaxDrawn || cells > kDesignerMaxDrawn) {
        r.aNote = tooLarge(QStringLiteral("A"), a.rows(), cells);
    } else {
        r.aRows = a.rows();
        r.a.assign(r.aRows * cells, 0.0);
        std::vector<double> e(cells, 0.0), col(r.aRows);
        for (std::size_t j = 0; j < cells; ++j) {
            e[j] = 1;
            a.measure(e, col);
            e[j] = 0;
            for (std::size_t i = 0; i < r.aRows; ++i) {
                r.a[i * cells + j] = col[i];
            }
        }
    }
    report(1);
    return r;
}

}  // namespace

const DesignerResult& designerFor(const DesignerResult& r, MeasurementNoise noise) {
    return noise == MeasurementNoise::Gaussian && r.gaussian ? *r.gaussian : r;
}

Expected<DesignerResult> designForWindow(const DesignerInputs& in, std::stop_token stop,
                                         const std::function<void(double)>& progress) {
    const auto report = [&](double f) {
        if (progress) {
            progress(f);
        }
    };
    if (auto s = validateShape(in.shape); !s) {
        return Error{"domain: " + s.error().message};
    }
    if (in.restarts < 1 || in.restarts > 100) {
        return Error{"restarts: expected 1 to 100, got " + std::to_string(in.restarts)};
    }
    if (!in.p.empty() && in.p.size() != in.shape.size()) {
        return Error{"p: give one value per dimension (" + std::to_string(in.shape.size()) +
                     "), got " + std::to_string(in.p.size())};
    }
    auto spec = WorkloadSpec::parse(in.workload.toStdString());
    if (!spec) {
        return Error{"workload: " + spec.error().message};
    }
    auto w = Workload::make(*spec, in.shape);
    if (!w) {
        // Core's message may name the workload already ("workload: a 2-way marginal needs …").
        const std::string& m = w.error().message;
        return Error{m.rfind("workload", 0) == 0 ? m : "workload: " + m};
    }
    auto workload = std::make_shared<const Workload>(std::move(w).value());
    // The two designs: Laplace (HDMM's objective) then Gaussian, from the same starts.
    auto laplace = designOne(in, workload, MeasurementNoise::Laplace, stop,
                             [&](double f) { report(0.35 * f); });
    if (!laplace) {
        return laplace.error();
    }
    auto gaussian = designOne(in, workload, MeasurementNoise::Gaussian, stop,
                              [&](double f) { report(0.35 + 0.35 * f); });
    if (!gaussian) {
        return gaussian.error();
    }
    DesignerResult r = std::move(laplace).value();
    const Workload& wl = *r.workload;
    report(0.75);

    const DomainShape& shape = in.shape;
    std::vector<DesignerStrategy> bases;
    bases.push_back(baseline(QStringLiteral("Identity"), identityStrategy(shape)));
    bases.push_back(baseline(QStringLiteral("HB"), hbStrategy(shape)));
    bases.push_back(baseline(QStringLiteral("Privelet (Haar)"), haarStrategy(shape)));
    for (DesignerStrategy& b : bases) {
        if (stopped(stop)) {
            return Error{"cancelled"};
        }
        if (b.unavailable.isEmpty()) {
            fillTrace(b, wl);
        }
        r.strategies.push_back(std::move(b));
    }
    report(0.85);
    for (DesignerStrategy& h : bestHierarchies(wl, stop)) {
        r.strategies.push_back(std::move(h));
    }
    if (stopped(stop)) {
        return Error{"cancelled"};
    }
    r.strategies.push_back(gaussian->strategies[0]);
    r.gaussian = std::make_shared<const DesignerResult>(std::move(gaussian).value());
    report(0.95);

    // W as a dense matrix when small.
    const std::size_t cells = shapeCells(shape);
    if (wl.queryCount() > kDesignerMaxDrawn || cells > kDesignerMaxDrawn) {
        r.wNote = tooLarge(QStringLiteral("W"), wl.queryCount(), cells);
    } else {
        r.wRows = static_cast<std::size_t>(wl.queryCount());
        r.w.assign(r.wRows * cells, 0.0);
        for (std::size_t i = 0; i < r.wRows; ++i) {
            const RangeQuery q = wl.query(i);
            forEachCell(q, shape, [&](std::size_t c) { r.w[i * cells + c] = q.weight; });
        }
    }
    report(1);
    return r;
}

Expected<double> designerRmse(const DesignerResult& r, const DesignerStrategy& s,
                              const MeasurementSpec& spec) {
    if (!s.strategy || !s.unavailable.isEmpty()) {
        return Error{s.name.toStdString() + ": " + s.unavailable.toStdString()};
    }
    auto v = measurementVariance(*s.strategy, spec);
    if (!v) {
        return v.error();
    }
    return std::sqrt(*v * s.trace / static_cast<double>(r.workload->queryCount()));
}

QString designerVerdict(const DesignerResult& r, MeasurementNoise noise, double delta) {
    const DesignerResult& design = designerFor(r, noise);
    if (r.strategies.empty() || design.strategies.empty() ||
        !design.strategies[0].unavailable.isEmpty()) {
        return QString();
    }
    const DesignerStrategy& optimised = design.strategies[0];
    const auto specAt = [&](double eps) {
        return noise == MeasurementNoise::Laplace ? MeasurementSpec::laplace(eps)
                                                  : MeasurementSpec::gaussian(eps, delta);
    };
    // The best baseline at ε = 1.
    const DesignerStrategy* best = nullptr;
    double bestRmse = 0;
    for (std::size_t i = 1; i < r.strategies.size(); ++i) {
        if (!r.strategies[i].drawnFor(noise) || r.strategies[i].optimised) {
            continue;  // the best hierarchy chosen for the other law, or a design
        }
        auto e = designerRmse(r, r.strategies[i], specAt(1));
        if (e && (!best || *e < bestRmse)) {
            best = &r.strategies[i];
            bestRmse = *e;
        }
    }
    if (!best) {
        return QStringLiteral("No baseline has an exact error on this workload.");
    }
    double lo = INFINITY, hi = 0;
    for (double eps : designerEpsilonGrid()) {
        auto o = designerRmse(r, optimised, specAt(eps));
        auto b = designerRmse(r, *best, specAt(eps));
        if (!o || !b) {
            return QString::fromStdString(!o ? o.error().message : b.error().message);
        }
        lo = std::min(lo, *b / *o);
        hi = std::max(hi, *b / *o);
    }
    const QString noiseName =
        noise == MeasurementNoise::Laplace
            ? QStringLiteral("Laplace")
            : QStringLiteral("Gaussian, δ = %1").arg(formatSignificant(delta, 3));
    // Both variances scale alike in ε (Laplace 2(Δ₁/ε)², Gaussian σ linear in Δ₂), so the ratio
    // is the same at every ε; the range is reported should it ever not be.
    const bool constant = hi / lo - 1 < 1e-6;
    const QString name = best->name.section(QStringLiteral(" ("), 0, 0);
    const QString bestName = best->name;
    const QString bestQualifier = name == bestName
                                      ? QStringLiteral("the best baseline")
                                      : QStringLiteral("the best baseline, %1").arg(bestName);
    if (lo > 0.99 && hi < 1.01) {
        return QStringLiteral(
                   "The optimised strategy's RMSE equals %1's (the best baseline) to "
                   "within 1 % at every ε (%2).")
            .arg(bestName, noiseName);
    }
    const auto ratio = [](double v) { return QString::number(v, 'g', 3) + QStringLiteral("×"); };
    if (lo >= 1) {
        return constant ? QStringLiteral(
                              "The optimised strategy's RMSE is %1 below %2's (%3) at "
                              "every ε (%4).")
                              .arg(ratio(lo), name, bestQualifier, noiseName)
                        : QStringLiteral(
                              "The optimised strategy's RMSE is %1 to %2 below %3's "
                              "(%4) for ε from 0.01 to 10 (%5).")
                              .arg(ratio(lo), ratio(hi), name, bestQualifier, noiseName);
    }
    if (hi <= 1) {
        return constant ? QStringLiteral(
                              "%1's RMSE is %2 below the optimised strategy's at every "
                              "ε (%3): the template does not fit this workload.")
                              .arg(bestName, ratio(1 / hi), noiseName)
                        : QStringLiteral(
                              "%1's RMSE is %2 to %3 below the optimised strategy's "
                              "for ε from 0.01 to 10 (%4).")
                              .arg(bestName, ratio(1 / hi), ratio(1 / lo), noiseName);
    }
    return QStringLiteral(
               "The optimised strategy and %1 cross: the ratio of their RMSE goes from "
               "%2 to %3 over ε from 0.01 to 10 (%4).")
        .arg(bestName, ratio(lo), ratio(hi), noiseName);
}

Expected<std::vector<double>> designerTableVector(const ContingencyTable* table,
                                                  DomainShape* shape) {
    if (!table || table->attributeCount() == 0) {
        return Error{"no table is loaded: open data in the Data panel first"};
    }
    if (!table->isDense() ||
        table->cellCount() > CellCount{static_cast<std::uint64_t>(kMaxWorkloadCells)}) {
        return Error{
            "the current table is too large to measure here (at most 2^26 cells, "
            "stored densely): use fewer bins or attributes"};
    }
    DomainShape s;
    for (std::uint64_t n : table->shape()) {
        s.push_back(static_cast<std::size_t>(n));
    }
    std::vector<double> x;
    x.reserve(table->denseCounts().size());
    for (std::int64_t c : table->denseCounts()) {
        x.push_back(static_cast<double>(c));
    }
    if (shape) {
        *shape = std::move(s);
    }
    return x;
}

Expected<DesignerApplied> applyDesign(const DesignerResult& r, const std::vector<double>& x,
                                      const MeasurementSpec& spec, std::uint64_t seed, bool nnls,
                                      std::stop_token stop) {
    const DesignerResult& design = designerFor(r, spec.noise);
    if (design.strategies.empty() || !design.strategies[0].strategy) {
        return Error{"no optimised strategy to apply"};
    }
    const LinearStrategy& a = *design.strategies[0].strategy;
    const Workload& w = *r.workload;
    if (x.size() != shapeCells(w.shape())) {
        return Error{"the table has " + std::to_string(x.size()) +
                     " cells but the designed strategy is for a domain of " +
                     std::to_string(shapeCells(w.shape())) +
                     " cells: choose \"the current table's shape\" as the domain"};
    }
    if (!w.explicitQueries()) {
        return Error{"the workload has too many queries to answer one by one"};
    }
    SimulationRng rng(seed, 0);
    auto y = measureStrategy(a, x, spec, rng);
    if (!y) {
        return y.error();
    }
    std::vector<double> xhat(x.size());
    if (nnls) {
        auto z = nonNegativeLeastSquares(a, *y, stop);
        if (!z) {
            return z.error();
        }
        xhat = std::move(z).value();
    } else {
        a.leastSquares(*y, xhat);
    }
    if (stopped(stop)) {
        return Error{"cancelled"};
    }
    DesignerApplied out;
    out.nnls = nnls;
    auto truth = w.answers(x);
    auto est = w.answers(xhat);
    if (!truth || !est) {
        return !truth ? truth.error() : est.error();
    }
    out.truth = std::move(truth).value();
    out.estimate = std::move(est).value();
    auto v = measurementVariance(a, spec);
    if (!v) {
        return v.error();
    }
    if (design.perQueryForm.size() == out.truth.size()) {
        out.sd.reserve(out.truth.size());
        for (double f : design.perQueryForm) {
            out.sd.push_back(std::sqrt(*v * f));
        }
    }
    long double sum = 0;
    for (std::size_t i = 0; i < out.truth.size(); ++i) {
        const long double d = out.estimate[i] - out.truth[i];
        sum += d * d;
    }
    const double q = static_cast<double>(out.truth.size());
    out.realisedRmse = std::sqrt(static_cast<double>(sum) / q);
    out.expectedRmse = std::sqrt(*v * design.strategies[0].trace / q);
    return out;
}

}  // namespace dpx::ui
