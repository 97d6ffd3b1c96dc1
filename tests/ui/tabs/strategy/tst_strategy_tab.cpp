// The Strategy tab (ui/tabs/strategy, issue #23): the numbers it shows are core's, recomputed
// here independently — designStrategy's objective, expectedLeastSquaresError of the optimised
// strategy and of each baseline (Identity, HB, Privelet, every b-ary hierarchy, the best one
// chosen by brute force) at Laplace and Gaussian measurement for several ε, and the curve points
// drawn in the ε plot; the simulation on a table equals core's measure + infer with the same seed
// (least squares and non-negative); cancel stops a long design; a workload core does not design
// shows core's message; the choices survive a session round trip (and stay out of default
// sessions); the tab in the window ("strategy").
#include <QApplication>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QTest>
#include <cmath>

#include "core/base/simulation_rng.h"
#include "core/matrix_mechanism/hdmm.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "core/table/table.h"
#include "core/workload/strategy.h"
#include "tests/ui/tabs/attribute_test_support.h"
#include "ui/main_window.h"
#include "ui/model/engine.h"
#include "ui/model/explorer_state.h"
#include "ui/model/job_runner.h"
#include "ui/tabs/strategy/strategy_data.h"
#include "ui/tabs/strategy/strategy_tab.h"
#include "ui/widgets/plot_title.h"

using namespace dpx;
using dpx::ui::DesignerInputs;
using dpx::ui::StrategyChoices;
using dpx::ui::StrategyTab;

using dpx::test::numbered;

namespace {

std::shared_ptr<const ContingencyTable> table1d(std::size_t n) {
    std::vector<std::int64_t> counts(n);
    for (std::size_t i = 0; i < n; ++i) {
        counts[i] = static_cast<std::int64_t>((i * 37) % 11 + (i < 4 ? 90 : 0));
    }
    auto t = ContingencyTable::dense({numbered("age", n)}, counts);
    return std::make_shared<const ContingencyTable>(std::move(*t));
}

bool near(double a, double b, double rel = 1e-12) {
    return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

bool waitDone(StrategyTab& tab, int ms = 20000) {
    QElapsedTimer timer;
    timer.start();
    QTest::qWait(50);
    while (tab.busy() && timer.elapsed() < ms) {
        QTest::qWait(20);
    }
    return !tab.busy();
}

StrategyChoices small1d(int n) {
    StrategyChoices c;
    c.n = n;
    c.restarts = 1;
    c.seed = 5;
    return c;
}

// Core's expected RMSE of `s` on `w` under Laplace or Gaussian at ε (δ = 1e-6).
double coreRmse(const LinearStrategy& s, const Workload& w, bool gaussian, double eps) {
    auto e = expectedLeastSquaresError(
        s, w, gaussian ? MeasurementSpec::gaussian(eps, 1e-6) : MeasurementSpec::laplace(eps));
    return e ? e->rmse : NAN;
}

// trace((AᵀA)⁻¹WᵀW) densely, independently of core's solvers: A (rows × n, row-major) from its
// columns, AᵀA by Cholesky, W (q × n) explicit. Returns NaN when AᵀA is singular.
double denseTrace(const std::vector<double>& a, std::size_t rows, const std::vector<double>& w,
                  std::size_t q, std::size_t n) {
    std::vector<double> m(n * n, 0.0), g(n * n, 0.0);
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                m[i * n + j] += a[r * n + i] * a[r * n + j];
            }
        }
    }
    for (std::size_t r = 0; r < q; ++r) {
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                g[i * n + j] += w[r * n + i] * w[r * n + j];
            }
        }
    }
    // Cholesky m = L Lᵀ (in place, lower triangle).
    for (std::size_t j = 0; j < n; ++j) {
        double d = m[j * n + j];
        for (std::size_t k = 0; k < j; ++k) {
            d -= m[j * n + k] * m[j * n + k];
        }
        if (!(d > 1e-12)) {
            return NAN;
        }
        m[j * n + j] = std::sqrt(d);
        for (std::size_t i = j + 1; i < n; ++i) {
            double v = m[i * n + j];
            for (std::size_t k = 0; k < j; ++k) {
                v -= m[i * n + k] * m[j * n + k];
            }
            m[i * n + j] = v / m[j * n + j];
        }
    }
    // trace(M⁻¹G) = Σ_c (M⁻¹ g_c)_c over the columns g_c of G.
    double trace = 0;
    std::vector<double> x(n);
    for (std::size_t c = 0; c < n; ++c) {
        for (std::size_t i = 0; i < n; ++i) {
            double v = g[i * n + c];
            for (std::size_t k = 0; k < i; ++k) {
                v -= m[i * n + k] * x[k];
            }
            x[i] = v / m[i * n + i];
        }
        for (std::size_t i = n; i-- > 0;) {
            double v = x[i];
            for (std::size_t k = i + 1; k < n; ++k) {
                v -= m[k * n + i] * x[k];
            }
            x[i] = v / m[i * n + i];
        }
        trace += x[c];
    }
    return trace;
}

}  // namespace

class TestStrategyTab : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void dataEqualsCore();
    void bestHierarchyPerLaw();
    void perQueryErrorOnAGrid();
    void perQueryHeatmapIn2d();
    void marginalHeatmapsPerMarginal();
    void badInputsNameTheProblem();
    void plotShowsCoresErrors();
    void cancelStops();
    void simulationEqualsCore();
    void unsupportedWorkloadShowsCoresMessage();
    void choicesInSessions();
    void inTheWindow();
};

void TestStrategyTab::dataEqualsCore() {
    DesignerInputs in;
    in.shape = {64};
    in.workload = QStringLiteral("allrange");
    in.restarts = 2;
    in.seed = 3;
    auto r = ui::designForWindow(in);
    QVERIFY2(r, r ? "" : r.error().message.c_str());
    auto w = Workload::make(*WorkloadSpec::parse("allrange"), {64});
    QVERIFY(w);
    StrategyOptimizeOptions o;
    o.restarts = 2;
    o.seed = 3;
    auto d = designStrategy(*w, {}, o);
    QVERIFY(d);
    QCOMPARE(r->objective, d->objective);
    QCOMPARE(r->p, d->p);
    QVERIFY(r->strategies.size() == 6 || r->strategies.size() == 7);
    // The strategy designed for Gaussian measurement (‖A‖₂²·trace), last: core's with the same
    // starts, drawn for Gaussian only, its curve at core's exact Gaussian error; it is never
    // worse under Gaussian than the Laplace design, which is drawn for Laplace only.
    {
        StrategyOptimizeOptions og = o;
        og.measurement = MeasurementNoise::Gaussian;
        auto dg = designStrategy(*w, {}, og);
        QVERIFY(dg);
        const ui::DesignerStrategy& g = r->strategies.back();
        QVERIFY2(g.name.startsWith(QStringLiteral("Optimised for Gaussian")), qPrintable(g.name));
        QVERIFY(g.optimised && r->strategies[0].optimised);
        QVERIFY(g.drawnFor(MeasurementNoise::Gaussian) && !g.drawnFor(MeasurementNoise::Laplace));
        QVERIFY(r->strategies[0].drawnFor(MeasurementNoise::Laplace) &&
                !r->strategies[0].drawnFor(MeasurementNoise::Gaussian));
        QVERIFY(r->gaussian);
        QCOMPARE(r->gaussian->objective, dg->objective);
        QCOMPARE(&ui::designerFor(*r, MeasurementNoise::Gaussian), r->gaussian.get());
        QCOMPARE(&ui::designerFor(*r, MeasurementNoise::Laplace), &*r);
        for (double eps : {0.01, 1.0, 10.0}) {
            auto shown = ui::designerRmse(*r, g, MeasurementSpec::gaussian(eps, 1e-6));
            QVERIFY(shown);
            QVERIFY(near(*shown, coreRmse(*dg->strategy, *w, true, eps)));
            QVERIFY(*shown <= coreRmse(*r->strategies[0].strategy, *w, true, eps) * (1 + 1e-9));
        }
        // Its per-query forms: Σ σ²·form = core's total under Gaussian.
        double total = 0;
        const double s2 = std::pow(*gaussianSigma({1.0, 1e-6, dg->strategy->sensitivityL2()}), 2);
        for (double f : r->gaussian->perQueryForm) {
            total += s2 * f;
        }
        auto eg = expectedLeastSquaresError(*dg->strategy, *w, MeasurementSpec::gaussian(1, 1e-6));
        QVERIFY(eg);
        QVERIFY(near(total, eg->totalSquared, 1e-10));
    }
    // The optimised strategy and the three named baselines against core, at several ε.
    std::unique_ptr<LinearStrategy> refs[4] = {std::move(d->strategy), identityStrategy({64}),
                                               hbStrategy({64}).value(),
                                               haarStrategy({64}).value()};
    for (std::size_t i = 0; i < 4; ++i) {
        QVERIFY2(r->strategies[i].unavailable.isEmpty(), qPrintable(r->strategies[i].unavailable));
        for (bool gaussian : {false, true}) {
            for (double eps : {0.01, 0.3, 1.0, 10.0}) {
                const auto spec =
                    gaussian ? MeasurementSpec::gaussian(eps, 1e-6) : MeasurementSpec::laplace(eps);
                auto shown = ui::designerRmse(*r, r->strategies[i], spec);
                QVERIFY(shown);
                const double want = coreRmse(*refs[i], *w, gaussian, eps);
                QVERIFY2(near(*shown, want), qPrintable(QStringLiteral("%1 ε=%2: %3 vs %4")
                                                            .arg(r->strategies[i].name)
                                                            .arg(eps)
                                                            .arg(*shown, 0, 'g', 17)
                                                            .arg(want, 0, 'g', 17)));
            }
        }
    }
    // The best hierarchy under Laplace: the lowest error over b = 2 … 16, root measured or not
    // (HB's weights: every level 1, the root 0), by brute force (bestHierarchyPerLaw checks
    // both laws against a dense computation).
    double best = INFINITY;
    QString bestName;
    for (std::size_t b = 2; b <= 16; ++b) {
        std::size_t levels = 1;
        for (std::size_t m = 1; m < 64; m *= b) {
            ++levels;
        }
        for (bool root : {true, false}) {
            std::vector<double> weights(levels, 1.0);
            weights[0] = root ? 1 : 0;
            auto h = hierarchicalStrategy(64, b, weights);
            QVERIFY2(h, h ? "" : h.error().message.c_str());
            const double e = coreRmse(**h, *w, false, 1);
            if (e < best) {
                best = e;
                bestName = root ? QStringLiteral("(b = %1)").arg(b)
                                : QStringLiteral("(b = %1, no root)").arg(b);
            }
        }
    }
    auto shown = ui::designerRmse(*r, r->strategies[4], MeasurementSpec::laplace(1));
    QVERIFY(shown);
    QVERIFY2(near(*shown, best), qPrintable(QStringLiteral("%1 vs %2").arg(*shown).arg(best)));
    QVERIFY2(r->strategies[4].name.endsWith(bestName), qPrintable(r->strategies[4].name));
    QVERIFY(r->strategies[4].drawnFor(MeasurementNoise::Laplace));
    // The per-query forms: Σ σ²·form = core's total.
    double total = 0;
    for (double f : r->perQueryForm) {
        total += 2 * f;  // Laplace ε = 1, ‖A‖₁ = 1: σ² = 2
    }
    auto e = expectedLeastSquaresError(*r->strategies[0].strategy, *w, 1.0);
    QVERIFY(near(total, e->totalSquared, 1e-10));
    // W of 2 080 queries is too large to draw, and the note says so.
    QCOMPARE(r->wRows, std::size_t{0});
    QVERIFY2(r->wNote.contains(QStringLiteral("too large to draw")), qPrintable(r->wNote));
    // W of the 16 prefixes on 16 cells: the lower triangle of ones.
    DesignerInputs pin;
    pin.shape = {16};
    pin.workload = QStringLiteral("prefix");
    pin.restarts = 1;
    auto pr = ui::designForWindow(pin);
    QVERIFY(pr);
    QCOMPARE(pr->wRows, std::size_t{16});
    for (std::size_t a = 0; a < 16; ++a) {
        for (std::size_t b = 0; b < 16; ++b) {
            QCOMPARE(pr->w[a * 16 + b], b <= a ? 1.0 : 0.0);
        }
    }
    // A: the columns of the strategy, each of L1 norm 1 (p-Identity).
    QCOMPARE(pr->aRows, pr->strategies[0].strategy->rows());
    for (std::size_t b = 0; b < 16; ++b) {
        double l1 = 0;
        for (std::size_t a = 0; a < pr->aRows; ++a) {
            l1 += std::abs(pr->a[a * 16 + b]);
        }
        QVERIFY(near(l1, 1, 1e-12));
    }
    QCOMPARE(r->aRows, r->strategies[0].strategy->rows());
    // The verdict names the best baseline and a ratio.
    const QString v = ui::designerVerdict(*r, MeasurementNoise::Laplace, 1e-6);
    QVERIFY2(v.contains(QStringLiteral("×")) && v.contains(QStringLiteral("every ε")),
             qPrintable(v));
}

void TestStrategyTab::bestHierarchyPerLaw() {
    // Under Laplace the noise scales with Δ₁ = L (levels), under the analytic Gaussian with
    // Δ₂ = √L: the best b-ary hierarchy is chosen by Δ₁²·trace resp. Δ₂²·trace. Brute force over
    // b = 2 … 16, root measured or not, with everything but the hierarchy's rows computed densely
    // here (W explicit, AᵀA by Cholesky, Δ₁ and Δ₂ from A's columns, σ from the Gaussian's own
    // calibration at Δ₂). On all ranges of 64 cells the two laws pick different trees.
    const double delta = 1e-6;
    for (const auto& [text, n] :
         {std::pair{"allrange", std::size_t{64}}, std::pair{"prefix", std::size_t{48}}}) {
        auto w = Workload::make(*WorkloadSpec::parse(text), {n});
        QVERIFY(w);
        const std::size_t q = static_cast<std::size_t>(w->queryCount());
        std::vector<double> wd(q * n, 0.0);
        for (std::size_t i = 0; i < q; ++i) {
            const RangeQuery rq = w->query(i);
            for (std::uint64_t c = rq.box[0].lo; c <= rq.box[0].hi; ++c) {
                wd[i * n + c] = rq.weight;
            }
        }
        double best[2] = {INFINITY, INFINITY};  // Laplace, Gaussian: σ² per unit · trace
        QString bestName[2];
        double bestRmse[2] = {0, 0};
        for (std::size_t b = 2; b <= 16; ++b) {
            std::size_t levels = 1;
            for (std::size_t m = 1; m < n; m *= b) {
                ++levels;
            }
            for (bool root : {true, false}) {
                std::vector<double> weights(levels, 1.0);
                weights[0] = root ? 1 : 0;
                auto h = hierarchicalStrategy(n, b, weights);
                QVERIFY2(h, h ? "" : h.error().message.c_str());
                const std::size_t rows = (*h)->rows();
                std::vector<double> ad(rows * n, 0.0), e(n, 0.0), col(rows);
                double l1 = 0, l2 = 0;
                for (std::size_t j = 0; j < n; ++j) {
                    e[j] = 1;
                    (*h)->measure(e, col);
                    e[j] = 0;
                    double c1 = 0, c2 = 0;
                    for (std::size_t i = 0; i < rows; ++i) {
                        ad[i * n + j] = col[i];
                        c1 += std::abs(col[i]);
                        c2 += col[i] * col[i];
                    }
                    l1 = std::max(l1, c1);
                    l2 = std::max(l2, std::sqrt(c2));
                }
                const double trace = denseTrace(ad, rows, wd, q, n);
                QVERIFY(std::isfinite(trace));
                GaussianParams gp;
                gp.epsilon = 1;
                gp.delta = delta;
                gp.l2Sensitivity = l2;
                auto sigma = gaussianSigma(gp);
                QVERIFY(sigma);
                const double var[2] = {2 * l1 * l1, *sigma * *sigma};  // at ε = 1
                const QString name = root ? QStringLiteral("(b = %1)").arg(b)
                                          : QStringLiteral("(b = %1, no root)").arg(b);
                for (int law = 0; law < 2; ++law) {
                    if (var[law] * trace < best[law]) {
                        best[law] = var[law] * trace;
                        bestName[law] = name;
                        bestRmse[law] = std::sqrt(var[law] * trace / static_cast<double>(q));
                    }
                }
            }
        }
        DesignerInputs in;
        in.shape = {n};
        in.workload = QString::fromLatin1(text);
        in.restarts = 1;
        auto r = ui::designForWindow(in);
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        const bool same = bestName[0] == bestName[1];
        qInfo("%s on %zu cells: Laplace %s RMSE %.6g, Gaussian %s RMSE %.6g (ε = 1)", text, n,
              qPrintable(bestName[0]), bestRmse[0], qPrintable(bestName[1]), bestRmse[1]);
        if (QLatin1String(text) == QLatin1String("allrange")) {
            QVERIFY2(!same, qPrintable(bestName[0]));  // the case this test is for
        }
        QCOMPARE(r->strategies.size(), same ? std::size_t{6} : std::size_t{7});
        for (int law = 0; law < 2; ++law) {
            const ui::DesignerStrategy& s =
                r->strategies[same ? 4 : 4 + static_cast<std::size_t>(law)];
            const QString head = same       ? QStringLiteral("Best hierarchy ")
                                 : law == 0 ? QStringLiteral("Best hierarchy, Laplace ")
                                            : QStringLiteral("Best hierarchy, Gaussian ");
            QCOMPARE(s.name, head + bestName[law]);
            const MeasurementNoise noise =
                law == 0 ? MeasurementNoise::Laplace : MeasurementNoise::Gaussian;
            QVERIFY(s.drawnFor(noise));
            QCOMPARE(s.drawnFor(law == 0 ? MeasurementNoise::Gaussian : MeasurementNoise::Laplace),
                     same);
            auto shown = ui::designerRmse(
                *r, s,
                law == 0 ? MeasurementSpec::laplace(1) : MeasurementSpec::gaussian(1, delta));
            QVERIFY(shown);
            QVERIFY2(near(*shown, bestRmse[law], 1e-9),
                     qPrintable(QStringLiteral("%1: %2 vs dense %3")
                                    .arg(s.name)
                                    .arg(*shown, 0, 'g', 12)
                                    .arg(bestRmse[law], 0, 'g', 12)));
        }
        // The verdict under each law compares with a baseline drawn for that law only.
        for (MeasurementNoise noise : {MeasurementNoise::Laplace, MeasurementNoise::Gaussian}) {
            const QString v = ui::designerVerdict(*r, noise, delta);
            const QString other = noise == MeasurementNoise::Laplace
                                      ? QStringLiteral("Best hierarchy, Gaussian")
                                      : QStringLiteral("Best hierarchy, Laplace");
            QVERIFY2(!v.contains(other), qPrintable(v));
        }
    }
}

void TestStrategyTab::perQueryErrorOnAGrid() {
    // Each query's form lands on the cell the layout names, and nowhere else.
    struct Case {
        const char* workload;
        DomainShape shape;
        std::size_t rows, cols;  // 0: no grid
    };
    const Case cases[] = {
        {"identity", {6, 5}, 6, 5},       {"marginals:2", {6, 5}, 6, 5},
        {"prefix", {6, 5}, 6, 5},         {"rectangles:2x3", {6, 5}, 5, 3},
        {"allrange", {12}, 12, 12},       {"allrange", {6, 5}, 0, 0},
        {"marginals:1", {6, 5}, 0, 0},    {"prefix", {12}, 0, 0},
        {"marginals:2", {3, 4, 2}, 0, 0},
    };
    for (const Case& k : cases) {
        DesignerInputs in;
        in.shape = k.shape;
        in.workload = QString::fromLatin1(k.workload);
        in.restarts = 1;
        auto r = ui::designForWindow(in);
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(r->perQueryForm.size(), static_cast<std::size_t>(r->workload->queryCount()));
        const ui::PerQueryGrid g = ui::perQueryGrid(*r);
        QCOMPARE(g.rows, k.rows);
        QCOMPARE(g.cols, k.cols);
        if (k.rows == 0) {
            QVERIFY2(!g.why.isEmpty(), k.workload);
            QVERIFY(g.form.empty());
            continue;
        }
        QVERIFY(!g.layout.isEmpty());
        std::size_t filled = 0;
        for (std::size_t i = 0; i < r->perQueryForm.size(); ++i) {
            const RangeQuery q = r->workload->query(i);
            std::size_t cell = 0;
            if (k.shape.size() == 1) {
                cell = q.box[0].lo * k.shape[0] + q.box[0].hi;  // [a, b] at (a, b)
            } else if (QLatin1String(k.workload) == QLatin1String("prefix")) {
                QCOMPARE(q.box[0].lo, std::uint64_t{0});
                cell = q.box[0].hi * k.cols + q.box[1].hi;  // [0, r] × [0, c] at (r, c)
            } else {
                cell = q.box[0].lo * k.cols + q.box[1].lo;  // at its top-left cell
            }
            QCOMPARE(g.form[cell], r->perQueryForm[i]);
            QCOMPARE(g.query[cell], std::uint64_t{i});
            ++filled;
        }
        std::size_t notNan = 0;
        for (double f : g.form) {
            notNan += std::isnan(f) ? 0 : 1;
        }
        QCOMPARE(notNan, filled);
    }
}

void TestStrategyTab::perQueryHeatmapIn2d() {
    // On an R × C domain with one query per cell the per-query error is a heatmap of R × C
    // (σ·√form at each cell), under a wrapping title; ranges of several extents keep the plot
    // along the query index with a caption that says why.
    ui::JobRunner runner;
    StrategyTab tab(&runner);
    tab.resize(1024, 700);
    tab.show();
    StrategyChoices c;
    c.domain = QStringLiteral("2d");
    c.rows = 12;
    c.cols = 16;
    c.workload = QStringLiteral("identity");
    c.restarts = 1;
    c.page = QStringLiteral("matrices");
    tab.setChoices(c);
    QVERIFY(waitDone(tab));
    QVERIFY2(tab.result(), qPrintable(tab.message()));
    QCustomPlot* plot = tab.currentPlot();
    auto* map = qobject_cast<QCPColorMap*>(plot->plottable(0));
    QVERIFY(map);
    QCOMPARE(map->data()->keySize(), 16);
    QCOMPARE(map->data()->valueSize(), 12);
    auto spec = tab.measurement();
    QVERIFY(spec);
    const double var = *measurementVariance(*tab.result()->strategies[0].strategy, *spec);
    const auto& form = tab.result()->perQueryForm;
    for (int row : {0, 5, 11}) {
        for (int col : {0, 7, 15}) {
            // Identity on 12 × 16 in C order: query row·16 + col is cell (row, col).
            const double want = std::sqrt(var * form[static_cast<std::size_t>(row * 16 + col)]);
            QVERIFY(near(map->data()->cell(col, row), want, 1e-12));
        }
    }
    // Every query has the same error here (identity measured by a product of 1-Identities):
    // the colour scale spans that value, not QCustomPlot's previous range.
    const QCPRange dr = map->dataRange();
    const double v = map->data()->cell(0, 0);
    QVERIFY2(dr.lower < v && v < dr.upper && dr.size() < 0.5 * v,
             qPrintable(QStringLiteral("%1 … %2 for %3").arg(dr.lower).arg(dr.upper).arg(v)));
    // Narrow (the matrices side by side at 1024 × 768): the titles wrap and show whole.
    tab.resize(620, 560);
    QTest::qWait(200);
    for (QCustomPlot* p : tab.findChildren<QCustomPlot*>()) {
        if (p->isVisible() && p->plotLayout()->rowCount() > 1) {
            if (auto* t = dynamic_cast<ui::PlotTitle*>(p->plotLayout()->element(0, 0))) {
                QVERIFY2(ui::titleFits(t), qPrintable(t->text()));
            }
        }
    }
    for (QCustomPlot* p : tab.findChildren<QCustomPlot*>()) {
        if (auto* t = qobject_cast<QCPTextElement*>(p->plotLayout()->element(0, 0))) {
            QVERIFY2(dynamic_cast<ui::PlotTitle*>(t), "every title is a wrapping PlotTitle");
        }
    }
    c.workload = QStringLiteral("allrange");
    c.rows = 6;
    c.cols = 5;
    tab.setChoices(c);
    QVERIFY(waitDone(tab));
    QVERIFY2(tab.result(), qPrintable(tab.message()));
    plot = tab.currentPlot();
    QVERIFY(qobject_cast<QCPColorMap*>(plot->plottable(0)) == nullptr);
    QVERIFY(dynamic_cast<ui::PlotTitle*>(plot->plotLayout()->element(0, 0)));
    QVERIFY(plot->graphCount() == 1);
    QCOMPARE(static_cast<std::size_t>(plot->graph(0)->dataCount()),
             std::size_t{21 * 15});  // 6·7/2 × 5·6/2 boxes
}

void TestStrategyTab::marginalHeatmapsPerMarginal() {
    // All 2-way marginals of a 3 × 2 × 4 table: one heatmap per marginal ({1,2}: 3 × 2,
    // {1,3}: 3 × 4, {2,3}: 2 × 4), each cell at σ·√(wᵀ(AᵀA)⁻¹w) of that marginal cell's query,
    // against core's per-query error of core's own design (for the noise law shown), the cell
    // found from the query's box (one value on each kept attribute, the whole range elsewhere).
    const DomainShape shape{3, 2, 4};
    auto w = Workload::make(*WorkloadSpec::parse("marginals:2"), shape);
    QVERIFY(w);
    std::vector<std::int64_t> counts(24);
    for (std::size_t i = 0; i < 24; ++i) {
        counts[i] = static_cast<std::int64_t>((i * 7) % 5 + 3);
    }
    auto t = ContingencyTable::dense(
        {numbered("sex", 3), numbered("region", 2), numbered("age", 4)}, counts);
    QVERIFY(t);
    auto table = std::make_shared<const ContingencyTable>(std::move(*t));
    ui::JobRunner runner;
    StrategyTab tab(&runner);
    tab.resize(1024, 768);
    tab.show();
    tab.setWindowTable(table, QStringLiteral("the table"));
    StrategyChoices c;
    c.domain = QStringLiteral("table");
    c.workload = QStringLiteral("marginals:2");
    c.restarts = 2;
    c.seed = 4;
    c.page = QStringLiteral("matrices");
    const std::vector<std::vector<std::size_t>> attrs{{0, 1}, {0, 2}, {1, 2}};
    const QStringList titles{QStringLiteral("sex × region"), QStringLiteral("sex × age"),
                             QStringLiteral("region × age")};
    for (bool gaussian : {false, true}) {
        c.noise = gaussian ? QStringLiteral("gaussian") : QStringLiteral("laplace");
        c.epsilon = gaussian ? 0.5 : 2;
        tab.setChoices(c);
        QVERIFY(waitDone(tab));
        QVERIFY2(tab.result(), qPrintable(tab.message()));
        QCOMPARE(tab.currentPlot(), tab.marginalPlot());
        QVERIFY(tab.marginalPlot()->isVisible());
        // Core's design for the law, from the same starts, and its exact per-query error.
        StrategyOptimizeOptions o;
        o.restarts = 2;
        o.seed = 4;
        o.measurement = gaussian ? MeasurementNoise::Gaussian : MeasurementNoise::Laplace;
        auto d = designStrategy(*w, {}, o);
        QVERIFY(d);
        auto spec = tab.measurement();
        QVERIFY(spec);
        auto e = expectedLeastSquaresError(*d->strategy, *w, *spec, true);
        QVERIFY(e);
        // The data behind it.
        const ui::DesignerResult& shown = ui::designerFor(*tab.result(), o.measurement);
        const ui::MarginalPanels panels = ui::marginalPanels(shown);
        QCOMPARE(panels.panels.size(), std::size_t{3});
        QCustomPlot* plot = tab.marginalPlot();
        QCOMPARE(plot->plottableCount(), 3);
        std::vector<QCPColorScale*> scales;
        for (int i = 0; i < 3; ++i) {
            const ui::MarginalPanel& panel = panels.panels[static_cast<std::size_t>(i)];
            QCOMPARE(panel.attributes, attrs[static_cast<std::size_t>(i)]);
            const std::size_t rows = shape[panel.attributes[0]], cols = shape[panel.attributes[1]];
            QCOMPARE(panel.rows, rows);
            QCOMPARE(panel.cols, cols);
            auto* map = qobject_cast<QCPColorMap*>(plot->plottable(i));
            QVERIFY(map);
            scales.push_back(map->colorScale());
            QCOMPARE(map->data()->keySize(), static_cast<int>(cols));
            QCOMPARE(map->data()->valueSize(), static_cast<int>(rows));
            // The panel's title is the marginal's attributes.
            auto* cell = qobject_cast<QCPLayoutGrid*>(map->keyAxis()->axisRect()->layout());
            QVERIFY(cell);
            auto* title = qobject_cast<QCPTextElement*>(cell->element(0, 0));
            QVERIFY(title);
            QCOMPARE(title->text(), titles[i]);
            for (std::uint64_t q = 0; q < w->queryCount(); ++q) {
                const RangeQuery rq = w->query(q);
                bool mine = true;
                for (std::size_t dd = 0; dd < 3; ++dd) {
                    const bool kept = dd == panel.attributes[0] || dd == panel.attributes[1];
                    mine = mine && (kept ? rq.box[dd].lo == rq.box[dd].hi
                                         : rq.box[dd].lo == 0 && rq.box[dd].hi == shape[dd] - 1);
                }
                if (!mine) {
                    continue;
                }
                const int row = static_cast<int>(rq.box[panel.attributes[0]].lo);
                const int col = static_cast<int>(rq.box[panel.attributes[1]].lo);
                const double want = std::sqrt(e->perQueryVariance[static_cast<std::size_t>(q)]);
                QVERIFY2(near(map->data()->cell(col, row), want, 1e-9),
                         qPrintable(QStringLiteral("%1 query %2: %3 vs %4")
                                        .arg(titles[i])
                                        .arg(q)
                                        .arg(map->data()->cell(col, row))
                                        .arg(want)));
            }
        }
        // One colour scale for all three.
        QVERIFY(scales[0] && scales[0] == scales[1] && scales[1] == scales[2]);
    }
    // Not a marginal workload over ≥ 3 attributes: no panels, a reason.
    DesignerInputs in;
    in.shape = {8, 8};
    in.workload = QStringLiteral("marginals:1");
    in.restarts = 1;
    auto r2 = ui::designForWindow(in);
    QVERIFY(r2);
    const ui::MarginalPanels none = ui::marginalPanels(*r2);
    QVERIFY(none.panels.empty());
    QVERIFY(!none.why.isEmpty());
}

void TestStrategyTab::badInputsNameTheProblem() {
    // A workload over the wrong domain: core's message once, not "workload: workload: …".
    DesignerInputs in;
    in.shape = {16};
    in.workload = QStringLiteral("marginals:2");
    auto r = ui::designForWindow(in);
    QVERIFY(!r);
    const QString m = QString::fromStdString(r.error().message);
    QVERIFY2(
        m.startsWith(QStringLiteral("workload: ")) && m.count(QStringLiteral("workload:")) == 1,
        qPrintable(m));
    QVERIFY2(m.contains(QStringLiteral("2 dimensions")), qPrintable(m));
    // p = 0 and p over the dimension's cells.
    ui::JobRunner runner;
    StrategyTab tab(&runner);
    tab.show();
    StrategyChoices c = small1d(32);
    c.p = {0};
    tab.setChoices(c);
    QVERIFY(waitDone(tab));
    QVERIFY(tab.result() == nullptr);
    QVERIFY2(tab.message().startsWith(QStringLiteral("p: ")), qPrintable(tab.message()));
    QVERIFY2(tab.verdict().contains(tab.message()), qPrintable(tab.verdict()));
}

void TestStrategyTab::plotShowsCoresErrors() {
    ui::JobRunner runner;
    StrategyTab tab(&runner);
    tab.resize(1400, 900);
    tab.show();
    tab.setChoices(small1d(64));
    QVERIFY(waitDone(tab));
    QVERIFY2(tab.result(), qPrintable(tab.message()));
    auto w = Workload::make(*WorkloadSpec::parse("allrange"), {64});
    StrategyOptimizeOptions o;
    o.restarts = 1;
    o.seed = 5;
    auto d = designStrategy(*w, {}, o);
    QVERIFY(d);
    o.measurement = MeasurementNoise::Gaussian;
    auto dg = designStrategy(*w, {}, o);
    QVERIFY(dg);
    const std::vector<double> grid = ui::designerEpsilonGrid();
    QCOMPARE(grid.front(), 0.01);
    QVERIFY(near(grid.back(), 10));
    auto hb = hbStrategy({64});
    // The solid curve of the Laplace design, the dashed one of the Gaussian design (last).
    const std::size_t gIndex = tab.result()->strategies.size() - 1;
    for (double eps : {grid[0], grid[20], grid[40], grid[60]}) {
        QVERIFY(near(tab.shownRmse(0, false, eps), coreRmse(*d->strategy, *w, false, eps), 1e-11));
        QVERIFY(std::isnan(tab.shownRmse(0, true, eps)));
        QVERIFY(
            near(tab.shownRmse(gIndex, true, eps), coreRmse(*dg->strategy, *w, true, eps), 1e-11));
        QVERIFY(std::isnan(tab.shownRmse(gIndex, false, eps)));
        for (bool gaussian : {false, true}) {
            QVERIFY(
                near(tab.shownRmse(2, gaussian, eps), coreRmse(**hb, *w, gaussian, eps), 1e-11));
        }
    }
    QVERIFY(!tab.verdict().isEmpty());
    // ε and noise change what is drawn, not the design.
    const auto* before = tab.result();
    StrategyChoices c = tab.choices();
    c.epsilon = 0.1;
    c.noise = QStringLiteral("gaussian");
    tab.setChoices(c);
    QVERIFY(waitDone(tab));
    QCOMPARE(tab.result(), before);
    QVERIFY2(tab.verdict().contains(QStringLiteral("Gaussian")), qPrintable(tab.verdict()));
}

void TestStrategyTab::cancelStops() {
    ui::JobRunner runner;
    StrategyTab tab(&runner);
    tab.show();
    StrategyChoices c;
    c.n = 4096;  // tens of seconds of L-BFGS-B
    c.restarts = 10;
    tab.setChoices(c);
    QElapsedTimer t;
    t.start();
    while (!runner.isRunning(QStringLiteral("strategy")) && t.elapsed() < 5000) {
        QTest::qWait(10);
    }
    QVERIFY(runner.isRunning(QStringLiteral("strategy")));
    QTest::qWait(100);
    tab.cancel();
    QVERIFY(!tab.busy());
    QVERIFY(tab.result() == nullptr);
    QVERIFY2(tab.message().contains(QStringLiteral("cancelled")), qPrintable(tab.message()));
    QVERIFY(runner.waitForIdle(15000));
    QVERIFY(tab.result() == nullptr);
}

void TestStrategyTab::simulationEqualsCore() {
    ui::JobRunner runner;
    StrategyTab tab(&runner);
    tab.show();
    auto table = table1d(40);
    tab.setWindowTable(table, QStringLiteral("column 'age'"));
    StrategyChoices c;
    c.domain = QStringLiteral("table");
    c.workload = QStringLiteral("range:300:seed=4");
    c.restarts = 1;
    c.epsilon = 0.5;
    c.applySeed = 11;
    tab.setChoices(c);
    QVERIFY(waitDone(tab));
    QVERIFY2(tab.result(), qPrintable(tab.message()));
    std::vector<double> x(table->denseCounts().begin(), table->denseCounts().end());
    auto spec = WorkloadSpec::parse("range:300:seed=4");
    auto w = Workload::make(*spec, {40});
    StrategyOptimizeOptions o;
    o.restarts = 1;
    auto d = designStrategy(*w, {}, o);
    QVERIFY(d);
    for (bool nnls : {false, true}) {
        c.nnls = nnls;
        tab.setChoices(c);
        tab.simulate();
        QVERIFY(waitDone(tab));
        QVERIFY2(tab.applied(), qPrintable(tab.applyMessage()));
        SimulationRng rng(11, 0);
        auto y = measureStrategy(*d->strategy, x, MeasurementSpec::laplace(0.5), rng);
        QVERIFY(y);
        std::vector<double> xhat(40);
        if (nnls) {
            xhat = *nonNegativeLeastSquares(*d->strategy, *y);
        } else {
            d->strategy->leastSquares(*y, xhat);
        }
        auto want = w->answers(xhat);
        auto truth = w->answers(x);
        QCOMPARE(tab.applied()->estimate, *want);
        QCOMPARE(tab.applied()->truth, *truth);
        QCOMPARE(tab.applied()->nnls, nnls);
        QCOMPARE(tab.applied()->sd.size(), std::size_t{300});
        auto e = expectedLeastSquaresError(*d->strategy, *w, 0.5, true);
        QVERIFY(near(tab.applied()->sd[7], std::sqrt(e->perQueryVariance[7]), 1e-10));
        QVERIFY(near(tab.applied()->expectedRmse, e->rmse, 1e-12));
        QVERIFY(tab.applyMessage().contains(QStringLiteral("not a release")));
    }
    // A design for another domain refuses to run on the table, saying why.
    c.domain = QStringLiteral("1d");
    c.n = 16;
    tab.setChoices(c);
    QVERIFY(waitDone(tab));
    tab.simulate();
    QVERIFY(waitDone(tab));
    QVERIFY(!tab.applied());
    QVERIFY2(tab.applyMessage().contains(QStringLiteral("current table's shape")),
             qPrintable(tab.applyMessage()));
}

void TestStrategyTab::unsupportedWorkloadShowsCoresMessage() {
    ui::JobRunner runner;
    StrategyTab tab(&runner);
    tab.show();
    StrategyChoices c;
    c.domain = QStringLiteral("2d");
    c.rows = 4;
    c.cols = 3;
    c.workload = QStringLiteral("marginals:1");
    tab.setChoices(c);
    QVERIFY(waitDone(tab));
    DesignerInputs in;
    in.shape = {4, 3};
    in.workload = c.workload;
    auto r = ui::designForWindow(in);
    if (r) {
        QVERIFY(tab.result());  // after the merge core designs marginals
    } else {
        QVERIFY(tab.result() == nullptr);
        QCOMPARE(tab.message(), QString::fromStdString(r.error().message));
        QVERIFY(tab.verdict().contains(tab.message()));
    }
    // A bad parameter names the problem.
    c.workload = QStringLiteral("range:abc");
    tab.setChoices(c);
    QVERIFY(waitDone(tab));
    QVERIFY2(tab.message().startsWith(QStringLiteral("workload:")), qPrintable(tab.message()));
    // No table: the table domain says so.
    c.domain = QStringLiteral("table");
    c.workload = QStringLiteral("prefix");
    tab.setChoices(c);
    QVERIFY(waitDone(tab));
    QVERIFY2(tab.message().contains(QStringLiteral("no table")), qPrintable(tab.message()));
}

void TestStrategyTab::choicesInSessions() {
    // Defaults stay out of sessions: old sessions keep their bytes.
    ui::ExplorerState s;
    QVERIFY(!s.toJson().contains(QStringLiteral("strategy")));
    StrategyChoices c;
    c.domain = QStringLiteral("2d");
    c.n = 100;
    c.rows = 8;
    c.cols = 12;
    c.workload = QStringLiteral("rectangles:2x3");
    c.p = {2, 3};
    c.restarts = 4;
    c.seed = 9;
    c.epsilon = 0.25;
    c.noise = QStringLiteral("gaussian");
    c.delta = 1e-8;
    c.page = QStringLiteral("matrices");
    c.nnls = true;
    c.applySeed = 17;
    s.strategy = c;
    const QJsonObject o = s.toJson();
    QVERIFY(o.contains(QStringLiteral("strategy")));
    auto back = ui::ExplorerState::fromJson(o);
    QVERIFY2(back, back ? "" : back.error().message.c_str());
    QVERIFY(back->strategy == c);
    QVERIFY(ui::ExplorerState::unknownKeys(o).isEmpty());
    // Through the tab's controls and back.
    ui::JobRunner runner;
    StrategyTab tab(&runner);
    tab.setChoices(c);
    QVERIFY(tab.choices() == c);
    // Bad values name the key.
    QJsonObject bad = o;
    QJsonObject sec = bad.value(QStringLiteral("strategy")).toObject();
    sec[QStringLiteral("noise")] = QStringLiteral("cauchy");
    bad[QStringLiteral("strategy")] = sec;
    auto err = ui::ExplorerState::fromJson(bad);
    QVERIFY(!err);
    QVERIFY2(QString::fromStdString(err.error().message).contains(QStringLiteral("strategy.noise")),
             err.error().message.c_str());
}

void TestStrategyTab::inTheWindow() {
    ui::MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(w.showTab(QStringLiteral("strategy")));
    QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(w.strategyView()));
    ui::ViewChoices v;
    v.tab = QStringLiteral("strategy");
    QVERIFY(v.validate());
    StrategyChoices c = small1d(32);
    w.strategyView()->setChoices(c);
    QVERIFY(waitDone(*w.strategyView()));
    QVERIFY2(w.strategyView()->result(), qPrintable(w.strategyView()->message()));
    QVERIFY(w.engine()->runner()->waitForIdle(30000));
}

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    TestStrategyTab t;
    return QTest::qExec(&t, argc, argv);
}

#include "tst_strategy_tab.moc"
