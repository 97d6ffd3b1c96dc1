// Local differential privacy in the window (issue #7), driven offscreen: a local protocol as the
// document's mechanism gives the collector's estimate with bands from the exact variance (checked
// against GRR's closed form), the report matrix on the matrix tab with its verified local ε, the
// exact expected SSE and a Monte Carlo that agrees with it; bad choices are refused with a
// message; the settings round-trip through sessions; the Local DP experiment tab reproduces
// core's runner point for point; the trade-off tab offers the local protocols.

#include <QCheckBox>
#include <QJsonObject>
#include <QLineEdit>
#include <QLocale>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "core/ldp/experiment.h"
#include "core/ldp/protocols.h"
#include "tests/ui/window_test_support.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/tabs/ldp/ldp_experiment_page.h"
#include "ui/tabs/ldp/ldp_experiment_tab.h"
#include "ui/tabs/ldp/ldp_mean_page.h"
#include "ui/tabs/ldp/ldp_study_page.h"
#include "ui/tabs/matrix/matrix_tab.h"
#include "ui/tabs/tradeoff_tab.h"

using namespace dpx;
using namespace dpx::ui;
using dpx::ui::test::applyAndWait;

namespace {

// The telemetry example in 8 equal bins on [0, 24] h.
ExplorerState telemetry8(MechanismChoice m, double eps) {
    ExplorerState s;
    s.data.exampleId = QStringLiteral("telemetry");
    s.data.binning.kind = BinningChoice::EqualWidth;
    s.data.binning.bins = 8;
    s.data.binning.rangeLo = 0;
    s.data.binning.rangeHi = 24;
    s.mechanism.kind = m;
    s.mechanism.epsilon = eps;
    return s;
}

}  // namespace

class TestLocalWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);
    }

    // GRR at ε = 1 over D = 8 bins: p = e/(e + 7), q = 1/(e + 7) (seed 001 §2.4); the band of
    // bin j is truth ± 1.96·N·√Var[f̂_j] with Var[f̂_j] = [q(1−q) + f_j(p(1−p) − q(1−q))]/(N(p−q)²)
    // written out here independently of core; E[SSE(identity)] = N²·Σ_j Var[f̂_j] exactly.
    void grrReleaseAndMatrix() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        const ExplorerState s = telemetry8(MechanismChoice::LocalGRR, 1.0);
        QVERIFY(applyAndWait(w, s));
        const ReleaseResult& r = w.engine()->release();
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QVERIFY(r.local.has_value());
        QCOMPARE(r.truth.size(), std::size_t(8));
        double n = 0;
        for (double t : r.truth) {
            n += t;
        }
        QCOMPARE(static_cast<double>(r.localUsers), n);
        const double e = std::exp(1.0);
        const double p = e / (e + 7), q = 1 / (e + 7);
        double sse = 0;
        for (std::size_t j = 0; j < 8; ++j) {
            const double f = r.truth[j] / n;
            const double var =
                (q * (1 - q) + f * (p * (1 - p) - q * (1 - q))) / (n * (p - q) * (p - q));
            const double half = 1.959963984540054 * n * std::sqrt(var);
            QVERIFY(std::abs(r.bandHi[j] - (r.truth[j] + half)) < 1e-9 * (1 + half));
            QVERIFY(std::abs(r.bandLo[j] - (r.truth[j] - half)) < 1e-9 * (1 + half));
            sse += n * n * var;
        }
        // Identity × SSE is exact; NoiseFirst does not apply.
        QVERIFY(r.expected[0][0].available && r.expected[0][0].exact);
        QVERIFY(std::abs(r.expected[0][0].value - sse) < 1e-9 * sse);
        QVERIFY(!r.estimatorApplies[3]);
        // The estimate is N·f̂: it sums to N up to the collector's noise and is seeded.
        const ReleaseResult again = computeRelease(w.engine()->dataset(), s, {});
        QCOMPARE(again.noisy, r.noisy);
        ExplorerState other = s;
        other.mechanism.seed = 2;
        QVERIFY(computeRelease(w.engine()->dataset(), other, {}).noisy != r.noisy);

        // Matrix tab: the report matrix, verified at ε.
        MatrixTab* m = w.matrixView();
        QCOMPARE(m->currentPage(), MatrixTab::Page::Local);
        QVERIFY2(m->localVerdictText().contains(QStringLiteral("ε-local DP ✓")),
                 qPrintable(m->localVerdictText()));
        for (int j : {0, 3, 7}) {
            for (int rep : {0, 3, 7}) {
                const double expected = rep == j ? p : q;
                QVERIFY(std::abs(m->localCellValue(j, rep) - expected) < 1e-12);
            }
        }
        QVERIFY(m->currentPlot() == m->localPlot());

        // Monte Carlo (repeated collections) agrees with the exact SSE.
        QSignalSpy mc(w.engine(), &ExplorerEngine::monteCarloReady);
        QVERIFY(mc.wait(60000));
        const MonteCarloErrors& errors = w.engine()->monteCarlo();
        QVERIFY2(errors.error.isEmpty(), qPrintable(errors.error));
        const ExpectedCell& cell = errors.expected[0][0];
        QVERIFY(cell.available);
        QVERIFY2(std::abs(cell.value - sse) < 4 * cell.halfWidth / 1.96 + 1e-9 * sse,
                 qPrintable(QStringLiteral("MC %1 ± %2 vs exact %3")
                                .arg(cell.value)
                                .arg(cell.halfWidth)
                                .arg(sse)));
    }

    // OUE over 32 bins has 2^32 reports: no matrix, the constants instead; the per-user simulator
    // gives a different draw of the same law (its estimate is within the bands' scale).
    void oueWithoutMatrixAndPerUser() {
        MainWindow w;
        w.show();
        ExplorerState s;
        s.data.exampleId = QStringLiteral("telemetry");
        s.mechanism.kind = MechanismChoice::LocalOUE;
        s.mechanism.epsilon = 2;
        QVERIFY(applyAndWait(w, s));
        const ReleaseResult& r = w.engine()->release();
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QVERIFY(!r.reportMatrix.has_value());
        QVERIFY(!r.reportMatrixWhy.isEmpty());
        QCOMPARE(w.matrixView()->currentPage(), MatrixTab::Page::Local);
        QVERIFY(w.matrixView()->currentPlot() == nullptr);
        s.mechanism.ldpPerUser = true;
        QVERIFY(applyAndWait(w, s));
        const ReleaseResult& u = w.engine()->release();
        QVERIFY2(u.error.isEmpty(), qPrintable(u.error));
        QVERIFY(u.localPerUser);
        double sumAbs = 0, sumSd = 0;
        for (std::size_t j = 0; j < u.truth.size(); ++j) {
            sumAbs += std::abs(u.noisy[j] - u.truth[j]);
            sumSd += std::sqrt(u.localVariance[j]);
        }
        // Σ|error| has mean √(2/π)·Σσ ≈ 0.8·Σσ; far outside [0.4, 1.2]·Σσ means a broken law.
        QVERIFY2(sumAbs > 0.4 * sumSd && sumAbs < 1.2 * sumSd,
                 qPrintable(QStringLiteral("Σ|err| %1, Σσ %2").arg(sumAbs).arg(sumSd)));
    }

    // Choices a protocol cannot take are refused with a message, not a silent result.
    void badChoicesAreExplained() {
        MainWindow w;
        w.show();
        QVERIFY(applyAndWait(w, telemetry8(MechanismChoice::LocalRR, 1)));
        QVERIFY2(w.engine()->release().error.contains(QStringLiteral("exactly 2 bins")),
                 qPrintable(w.engine()->release().error));
        ExplorerState s = telemetry8(MechanismChoice::LocalDBitFlip, 1);
        s.mechanism.ldpBits = 9;
        QVERIFY(applyAndWait(w, s));
        QVERIFY2(w.engine()->release().error.contains(QStringLiteral("d = 9")),
                 qPrintable(w.engine()->release().error));
        s.mechanism.ldpBits = 0;
        QVERIFY(!w.document()->apply(s, QStringLiteral("test")));
        s.mechanism.ldpBits = 4;
        QVERIFY(applyAndWait(w, s));
        QVERIFY2(w.engine()->release().error.isEmpty(), qPrintable(w.engine()->release().error));
    }

    void sessionKeys() {
        ExplorerState s = telemetry8(MechanismChoice::LocalDBitFlip, 3);
        s.mechanism.ldpBits = 2;
        s.mechanism.ldpPerUser = true;
        s.view.tab = QStringLiteral("ldp-experiment");
        auto back = ExplorerState::fromJson(s.toJson());
        QVERIFY(back.hasValue());
        QCOMPARE(back->mechanism.kind, MechanismChoice::LocalDBitFlip);
        QCOMPARE(back->mechanism.ldpBits, 2);
        QVERIFY(back->mechanism.ldpPerUser);
        QCOMPARE(back->view.tab, QStringLiteral("ldp-experiment"));
        QJsonObject o = s.toJson();
        QJsonObject mech = o.value(QStringLiteral("mechanism")).toObject();
        mech[QStringLiteral("ldp_simulator")] = QStringLiteral("magic");
        o[QStringLiteral("mechanism")] = mech;
        QVERIFY(!ExplorerState::fromJson(o).hasValue());
        mech[QStringLiteral("ldp_simulator")] = QStringLiteral("aggregate");
        mech[QStringLiteral("ldp_bits")] = 0;
        o[QStringLiteral("mechanism")] = mech;
        QVERIFY(!ExplorerState::fromJson(o).hasValue());
        // Trade-off ids of local protocols.
        QVERIFY(isTradeoffConfigId(QStringLiteral("oue:clamp")));
        QVERIFY(isTradeoffConfigId(QStringLiteral("dbitflip2:resize")));
        QVERIFY(!isTradeoffConfigId(QStringLiteral("oue:noisefirst")));
        QCOMPARE(configIdOf(s).value_or(QString()), QStringLiteral("dbitflip2:identity"));
    }

    // The experiment tab runs what its controls say, and its points are core's.
    void experimentTabMatchesCore() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        LdpExperimentPage* v = w.ldpExperimentPage();
        ldp::ExperimentSpec spec = ldp::telemetryExperimentPreset();
        spec.protocols.resize(1);  // dBitFlip d = 1
        spec.shapes = {ldp::TelemetryShape::TruncatedNormal};
        spec.populations = {1000, 10000};
        spec.epsilons = {1, 3};
        spec.repetitions = 5;
        spec.seed = 7;
        v->setSpec(spec);
        QSignalSpy done(v, &LdpExperimentPage::finished);
        QVERIFY(v->run());
        QVERIFY(done.wait(60000));
        QCOMPARE(v->points().size(), std::size_t(4));
        auto direct = ldp::runExperiment(spec);
        QVERIFY(direct.hasValue());
        QCOMPARE(direct->points.size(), std::size_t(4));
        for (std::size_t i = 0; i < 4; ++i) {
            QCOMPARE(v->points()[i].users, direct->points[i].users);
            QCOMPARE(v->points()[i].epsilon, direct->points[i].epsilon);
            QCOMPARE(v->points()[i].maxError, direct->points[i].maxError);
            QCOMPARE(v->points()[i].wasserstein, direct->points[i].wasserstein);
        }
        QVERIFY(v->curveCount() > 0);
        QVERIFY(v->toCsv().count(QLatin1Char('\n')) == 5);
        // A bad list is refused with its field named; the previous results stay.
        w.findChild<QLineEdit*>(QStringLiteral("ldpUsers"))->setText(QStringLiteral("1000, many"));
        QVERIFY(!v->run());
        QVERIFY2(v->statusText().contains(QStringLiteral("Users n")), qPrintable(v->statusText()));
        QCOMPARE(v->points().size(), std::size_t(4));
    }

    // The range-query and marginal studies of the experiment tab run core's studies with the
    // controls' settings, and are reachable by tab id.
    void studiesMatchCore() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        LdpExperimentTab* tab = w.ldpExperimentTab();
        LdpStudyPage* ranges = tab->ranges();
        ldp::RangeStudySpec rs = ldp::rangeStudyPreset();
        rs.domain = 64;
        rs.users = 1 << 14;
        rs.epsilons = {1, 2};
        rs.repetitions = 3;
        rs.rangeSamples = 0;
        ranges->setRangeSpec(rs);
        QSignalSpy rangesDone(ranges, &LdpStudyPage::finished);
        QVERIFY(ranges->run());
        QVERIFY(rangesDone.wait(60000));
        auto direct = ldp::runRangeStudy(rs);
        QVERIFY(direct.hasValue());
        QCOMPARE(ranges->rangeResult().points.size(), direct->points.size());
        for (std::size_t i = 0; i < direct->points.size(); ++i) {
            QCOMPARE(ranges->rangeResult().points[i].mse, direct->points[i].mse);
            QCOMPARE(ranges->rangeResult().points[i].analytic, direct->points[i].analytic);
        }
        QCOMPARE(ranges->toCsv().count(QLatin1Char('\n')), 1 + 2 * 5);

        LdpStudyPage* marginals = tab->marginals();
        ldp::MarginalStudySpec ms = ldp::marginalStudyPreset();
        ms.attributes = 4;
        ms.users = 1 << 12;
        ms.epsilons = {1};
        ms.repetitions = 2;
        marginals->setMarginalSpec(ms);
        QSignalSpy marginalsDone(marginals, &LdpStudyPage::finished);
        QVERIFY(marginals->run());
        QVERIFY(marginalsDone.wait(60000));
        auto m = ldp::runMarginalStudy(ms);
        QVERIFY(m.hasValue());
        QCOMPARE(marginals->marginalResult().points.size(), m->points.size());
        QCOMPARE(marginals->marginalResult().points[0].meanTv, m->points[0].meanTv);
        // Bad input: refused with the field named, previous result kept.
        marginals->findChild<QLineEdit*>(QStringLiteral("studyEpsilons"))
            ->setText(QStringLiteral("1, -2"));
        QVERIFY(!marginals->run());
        QVERIFY2(marginals->statusText().contains(QStringLiteral("epsilons[1]")),
                 qPrintable(marginals->statusText()));
        QVERIFY(marginals->hasResult());
        // Means (1BitMean): the view runs core's mean study.
        LdpMeanPage* means = tab->means();
        ldp::MeanStudySpec mean = ldp::telemetryMeanPreset();
        mean.populations = {1000, 10000};
        mean.epsilons = {1};
        mean.repetitions = 5;
        means->setSpec(mean);
        QSignalSpy meansDone(means, &LdpMeanPage::finished);
        QVERIFY(means->run());
        QVERIFY(meansDone.wait(60000));
        auto meanDirect = ldp::runMeanStudy(mean);
        QVERIFY(meanDirect.hasValue());
        QCOMPARE(means->result().points.size(), std::size_t(2));
        QCOMPARE(means->result().points[1].absError, meanDirect->points[1].absError);
        QVERIFY(w.showTab(QStringLiteral("ldp-means")));
        QCOMPARE(tab->currentStudy(), 3);
        // Tab ids choose the study.
        QVERIFY(w.showTab(QStringLiteral("ldp-marginals")));
        QCOMPARE(tab->currentStudy(), 2);
        QCOMPARE(w.currentPlot(), marginals->plot());
        QVERIFY(w.showTab(QStringLiteral("ldp-ranges")));
        QCOMPARE(tab->currentStudy(), 1);
    }

    // The trade-off tab has rows for the local protocols; clicking through to one switches the
    // document to that protocol.
    void tradeoffOffersLocalProtocols() {
        MainWindow w;
        w.show();
        TradeoffTab* t = w.tradeoffView();
        auto* box = t->findChild<QCheckBox*>(QStringLiteral("tradeoff_oue_identity"));
        QVERIFY(box);
        QVERIFY(box->isEnabled());
        auto* nf = t->findChild<QCheckBox*>(QStringLiteral("tradeoff_oue_noisefirst"));
        QVERIFY(nf && !nf->isEnabled());
        t->setSelectedConfigs({QStringLiteral("laplace:identity"), QStringLiteral("oue:identity"),
                               QStringLiteral("dbitflip1:clamp")});
        QVERIFY(t->selectedConfigs().contains(QStringLiteral("oue:identity")));
        QVERIFY(t->selectedConfigs().contains(QStringLiteral("dbitflip1:clamp")));
        QSignalSpy shown(&w, &MainWindow::releaseShown);
        Q_EMIT t->configurationChosen(MechanismChoice::LocalDBitFlip, 2, EstimatorKind::Clamp, 0.5);
        QCOMPARE(w.document()->state().mechanism.kind, MechanismChoice::LocalDBitFlip);
        QCOMPARE(w.document()->state().mechanism.ldpBits, 2);
        QCOMPARE(w.document()->state().mechanism.epsilon, 0.5);
        QVERIFY(shown.wait(30000) || !shown.isEmpty());
    }
};

QTEST_MAIN(TestLocalWindow)
#include "tst_local_page.moc"
