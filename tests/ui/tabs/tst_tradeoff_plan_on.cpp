// Choosing ε without leaking (issue #22) in the window, offscreen: the Trade-off tab marks curves
// computed on the confidential data (the badge above the plot and the plot's subtitle); planning on
// a public proxy computes the curves on the proxy — equal to core's errorCurve on the proxy built
// directly from the bins and the declared N — and says so; a proxy without a declared N draws
// nothing and says why; the Plan on box writes the document; the session keys are written only when
// not at their defaults and read back; the release dialog says which was used.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QStandardPaths>
#include <QTest>
#include <cmath>

#include "core/choosing/public_proxy.h"
#include "core/choosing/tradeoff.h"
#include "tests/ui/tabs/tradeoff_test_support.h"
#include "tests/ui/window_test_support.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/model/engine.h"
#include "ui/release/release_dialog.h"
#include "ui/tabs/tradeoff_tab.h"

using namespace dpx;
using namespace dpx::ui;
using dpx::ui::test::applyAndWait;
using dpx::ui::test::curveIndex;
using dpx::ui::test::curvesDone;

class TestTradeoffPlanOn : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);
    }

    void marksTheConfidentialDataAndPlansOnAProxy() {
        MainWindow w;
        w.resize(1520, 900);
        w.show();
        ExplorerState s = w.document()->state();
        s.tradeoff.configs = {QStringLiteral("laplace:clamp"), QStringLiteral("gm:identity")};
        s.tradeoff.points = 6;
        QVERIFY(applyAndWait(w, s));
        TradeoffTab* v = w.tradeoffView();
        QVERIFY(w.showTab(QStringLiteral("tradeoff")));
        QTRY_VERIFY_WITH_TIMEOUT(curvesDone(*v), 30000);
        // The default: the confidential data, marked above the plot and in the plot.
        QVERIFY(v->basisLabel()->isVisible());
        QVERIFY2(
            v->basisLabel()->text().contains(QStringLiteral("Computed on the confidential data")),
            qPrintable(v->basisLabel()->text()));
        QCOMPARE(v->basisSubtitleText(), QStringLiteral("computed on the confidential data"));
        QVERIFY(!v->planned().proxy);
        // The Errors tab's expected errors are on the confidential data too, and say so.
        auto* errorsCaption = w.findChild<QLabel*>(QStringLiteral("errorsCaption"));
        QVERIFY(errorsCaption);
        QVERIFY(
            errorsCaption->text().contains(QStringLiteral("Computed on the confidential data")));
        const Histogram truth = *w.engine()->dataset().histogram;
        QCOMPARE(v->planned().histogram->counts(), truth.counts());

        // A uniform proxy of declared N = 10 000: the curves are core's on that proxy.
        s = w.document()->state();
        s.tradeoff.planOn = QStringLiteral("uniform");
        s.tradeoff.planPopulation = 10000;
        QVERIFY(w.document()->apply(s, QStringLiteral("test")));
        QTRY_VERIFY_WITH_TIMEOUT(curvesDone(*v) && v->planned().proxy, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(curvesDone(*v), 30000);
        QVERIFY2(v->basisLabel()->text().contains(QStringLiteral("public proxy: uniform, N = 10")),
                 qPrintable(v->basisLabel()->text()));
        QCOMPARE(v->basisSubtitleText(), QStringLiteral("computed on a public proxy, N = 10") +
                                             QChar(0x202F) + QStringLiteral("000"));
        PlanOn plan = *parsePlanOn("uniform");
        plan.population = 10000;
        auto proxy = buildProxyHistogram(plan, truth.size(), truth.labels(), truth.edges());
        QVERIFY(proxy);
        QCOMPARE(v->planned().histogram->counts(), proxy->counts());
        QVERIFY(proxy->counts() != truth.counts());
        const std::size_t li = curveIndex(*v, QStringLiteral("laplace:clamp"));
        QVERIFY(li < v->curves().size());
        TradeoffConfig c;
        c.estimator = EstimatorKind::Clamp;
        c.metric = {s.tradeoff.metric, s.view.scale};
        c.sensitivity = w.engine()->dataset().sensitivity;
        CurveOptions o;
        o.threads = 1;
        auto ref = errorCurve(*proxy, c, v->grid(), o);
        QVERIFY(ref);
        for (std::size_t i = 0; i < ref->points.size(); ++i) {
            QVERIFY(v->curves()[li].points[i].exact);
            QVERIFY2(std::abs(v->curves()[li].points[i].value - ref->points[i].value) <=
                         1e-12 * ref->points[i].value,
                     qPrintable(QString::number(i)));
        }

        // N not declared: no curves, and the status says why.
        s.tradeoff.planPopulation = 0;
        QVERIFY(w.document()->apply(s, QStringLiteral("test")));
        QTRY_VERIFY_WITH_TIMEOUT(
            v->statusLabel()->text().contains(QStringLiteral("declared, not read from the data")),
            10000);
        QVERIFY(!v->planned().histogram);
        // A bad parameter: the status names it.
        s.tradeoff.planOn = QStringLiteral("weights:1,2");
        s.tradeoff.planPopulation = 50;
        QVERIFY(w.document()->apply(s, QStringLiteral("test")));
        QTRY_VERIFY_WITH_TIMEOUT(v->statusLabel()->text().contains(QStringLiteral("same bins")),
                                 10000);
    }

    void theBoxWritesTheDocumentAndTheReleaseSaysIt() {
        MainWindow w;
        w.resize(1024, 768);
        w.show();
        QVERIFY(dpx::ui::test::waitForData(w));
        TradeoffTab* v = w.tradeoffView();
        PlanOnBox* box = v->planOnBox();
        box->kindCombo()->setCurrentIndex(box->kindCombo()->findData(QStringLiteral("normal")));
        box->parameterEdit()->setText(QStringLiteral("50%,20%"));
        Q_EMIT box->parameterEdit()->editingFinished();
        box->populationSpin()->setValue(30000);
        QTRY_COMPARE(w.document()->state().tradeoff.planOn, QStringLiteral("normal:50%,20%"));
        QTRY_COMPARE(w.document()->state().tradeoff.planPopulation, qint64{30000});
        const ReleaseContext c = releaseContextOf(w.document()->state(), w.engine()->dataset());
        QCOMPARE(
            c.epsilonChosenOn,
            QStringLiteral("public proxy: normal (mean 50 %, sd 20 % of the range), N = 30000"));
        ReleaseDialog d(c, w.engine()->runner());
        QCOMPARE(d.chosenOnText(), QStringLiteral("ε chosen on: public proxy (normal (mean 50 %, "
                                                  "sd 20 % of the range), N = 30000)."));
        QVERIFY(d.request());
        QCOMPARE(d.request()->spec.epsilonChosenOn, c.epsilonChosenOn.toStdString());
        // Back to the confidential data.
        box->kindCombo()->setCurrentIndex(0);
        QTRY_COMPARE(w.document()->state().tradeoff.planOn, QStringLiteral("confidential"));
        const ReleaseContext c2 = releaseContextOf(w.document()->state(), w.engine()->dataset());
        QCOMPARE(c2.epsilonChosenOn, QStringLiteral("confidential data"));
        ReleaseDialog d2(c2, w.engine()->runner());
        QVERIFY(d2.chosenOnText().contains(QStringLiteral("the confidential data")));
    }

    void sessionKeysOnlyWhenNotDefault() {
        ExplorerState s;
        QJsonObject t = s.toJson().value(QStringLiteral("tradeoff")).toObject();
        QVERIFY(!t.contains(QStringLiteral("plan_on")));
        QVERIFY(!t.contains(QStringLiteral("plan_population")));
        s.tradeoff.planOn = QStringLiteral("release:/data/r.csv");
        s.tradeoff.planPopulation = 1234;
        const QJsonObject j = s.toJson();
        t = j.value(QStringLiteral("tradeoff")).toObject();
        QCOMPARE(t.value(QStringLiteral("plan_on")).toString(),
                 QStringLiteral("release:/data/r.csv"));
        QCOMPARE(t.value(QStringLiteral("plan_population")).toInteger(), 1234);
        auto back = ExplorerState::fromJson(j);
        QVERIFY(back);
        QCOMPARE(back->tradeoff.planOn, s.tradeoff.planOn);
        QCOMPARE(back->tradeoff.planPopulation, qint64{1234});
        // Refused: an unknown kind, a population out of range.
        QJsonObject bad = j;
        t[QStringLiteral("plan_on")] = QStringLiteral("gaussian:1,2");
        bad[QStringLiteral("tradeoff")] = t;
        auto r1 = ExplorerState::fromJson(bad);
        QVERIFY(!r1);
        QVERIFY2(QString::fromStdString(r1.error().message).contains(QStringLiteral("plan_on")),
                 r1.error().message.c_str());
        t[QStringLiteral("plan_on")] = QStringLiteral("uniform");
        t[QStringLiteral("plan_population")] = -4;
        bad[QStringLiteral("tradeoff")] = t;
        QVERIFY(!ExplorerState::fromJson(bad));
    }
};

QTEST_MAIN(TestTradeoffPlanOn)
#include "tst_tradeoff_plan_on.moc"
