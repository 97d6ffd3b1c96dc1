// dpx ldp-experiment against its contract (docs/cli.md): seed 002's telemetry experiment, the spec
// echoed and one JSON object per point, reproducible for a seed and independent of --threads;
// every bad option exits with code 2 and one "dpx: error:" line naming it. Reference values: the
// preset of core/ldp/experiment.h and the closed-form OUE variance (seed 001 §2.4).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QProcess>
#include <QStringList>
#include <QTest>

#include "dpx_process.h"

#include <cmath>

namespace {

using dpxtest::describe;
using dpxtest::Run;

Run dpx(const QStringList& args) {
    return dpxtest::runDpx(args);
}

using dpxtest::words;

QStringList strings(const QJsonValue& v) {
    QStringList out;
    for (const auto& x : v.toArray()) {
        out << x.toString();
    }
    return out;
}

QList<double> numbers(const QJsonValue& v) {
    QList<double> out;
    for (const auto& x : v.toArray()) {
        out << x.toDouble(std::nan(""));
    }
    return out;
}

}  // namespace

// Variadic so that arguments holding braced lists pass through whole.
#define RUN_OK(r, ...)                                                               \
    const Run r = dpx(__VA_ARGS__);                                                  \
    QVERIFY2(r.exitCode == 0, describe(r).constData());                              \
    QVERIFY2(r.jsonOk, ("stdout is not a JSON object\n" + describe(r)).constData()); \
    QVERIFY2(r.err.isEmpty(), describe(r).constData())

class TestDpxLdpExperiment : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void help();
    void presetSpecAndPoints();
    void presetOverridden();
    void explicitOptions();
    void expectedMseClosedForm();
    void reproducibleAndThreadIndependent();
    void errors_data();
    void errors();
    // dpx ldp-mean (1BitMean, core/ldp/mean.h), in this executable because it belongs to the same
    // telemetry study.
    void ldpMean();
    void ldpMeanErrors_data();
    void ldpMeanErrors();
};

void TestDpxLdpExperiment::help() {
    const Run r = dpx({QStringLiteral("ldp-experiment"), QStringLiteral("--help")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("dpx ldp-experiment"));
    QVERIFY(r.out.contains("--preset telemetry"));
}

void TestDpxLdpExperiment::presetSpecAndPoints() {
    // The whole preset (891 points × 10 repetitions, a few seconds).
    // "seed002", the preset's name before issue #18, still selects it (echoed as "telemetry").
    RUN_OK(r, words("ldp-experiment --preset seed002"));
    const QJsonObject spec = r.json.value(QStringLiteral("spec")).toObject();
    QCOMPARE(spec.value(QStringLiteral("preset")).toString(), QStringLiteral("telemetry"));
    const QJsonArray protocols = spec.value(QStringLiteral("protocols")).toArray();
    QCOMPARE(protocols.size(), 3);
    const int bits[] = {1, 2, 4};
    for (int i = 0; i < 3; ++i) {
        const QJsonObject p = protocols[i].toObject();
        QCOMPARE(p.value(QStringLiteral("name")).toString(), QStringLiteral("dbitflip"));
        QCOMPARE(p.value(QStringLiteral("bits")).toInt(), bits[i]);
        QCOMPARE(p.value(QStringLiteral("label")).toString(),
                 QStringLiteral("dBitFlip d=%1").arg(bits[i]));
    }
    QCOMPARE(strings(spec.value(QStringLiteral("shapes"))),
             (QStringList{QStringLiteral("normal"), QStringLiteral("uniform"),
                          QStringLiteral("constant")}));
    QCOMPARE(spec.value(QStringLiteral("buckets")).toInt(), 32);
    QCOMPARE(spec.value(QStringLiteral("bucket_hours")).toDouble(), 0.75);
    QCOMPARE(numbers(spec.value(QStringLiteral("users"))),
             (QList<double>{1e3, 2e3, 3e3, 5e3, 1e4, 2e4, 3e4, 5e4, 1e5, 2e5, 3e5}));
    QCOMPARE(numbers(spec.value(QStringLiteral("epsilons"))),
             (QList<double>{0.1, 0.2, 0.3, 0.5, 1, 2, 3, 5, 10}));
    QCOMPARE(spec.value(QStringLiteral("repetitions")).toInt(), 10);
    QCOMPARE(spec.value(QStringLiteral("seed")).toString(), QStringLiteral("1"));
    QCOMPARE(spec.value(QStringLiteral("postprocess")).toString(), QStringLiteral("none"));
    QCOMPARE(spec.value(QStringLiteral("points")).toInt(), 891);
    QVERIFY(spec.value(QStringLiteral("work")).toDouble() > 0);
    QCOMPARE(r.json.value(QStringLiteral("cancelled")).toBool(true), false);
    QVERIFY(r.json.value(QStringLiteral("seconds")).toDouble(-1) >= 0);
    QCOMPARE(strings(r.json.value(QStringLiteral("warnings"))).size(), 1);  // the dBitFlip note

    // Points in protocol-major order, then shape, users, ε; every field present and sensible.
    const QJsonArray points = r.json.value(QStringLiteral("points")).toArray();
    QCOMPARE(points.size(), 891);
    const QStringList shapes = strings(spec.value(QStringLiteral("shapes")));
    const QList<double> users = numbers(spec.value(QStringLiteral("users")));
    const QList<double> eps = numbers(spec.value(QStringLiteral("epsilons")));
    int i = 0;
    for (int p = 0; p < 3; ++p) {
        for (const auto& shape : shapes) {
            for (const double n : users) {
                for (const double e : eps) {
                    const QJsonObject pt = points[i++].toObject();
                    QCOMPARE(pt.value(QStringLiteral("protocol_index")).toInt(), p);
                    QCOMPARE(pt.value(QStringLiteral("protocol")).toString(),
                             QStringLiteral("dBitFlip d=%1").arg(bits[p]));
                    QCOMPARE(pt.value(QStringLiteral("shape")).toString(), shape);
                    QCOMPARE(pt.value(QStringLiteral("users")).toDouble(), n);
                    QCOMPARE(pt.value(QStringLiteral("epsilon")).toDouble(), e);
                    for (const char* key :
                         {"max_error", "max_error_ci95", "wasserstein_hours", "wasserstein_ci95",
                          "expected_max_error", "expected_mse"}) {
                        const double v = pt.value(QLatin1String(key)).toDouble(-1);
                        QVERIFY2(std::isfinite(v) && v > 0, key);
                    }
                    // W1 between distributions on [0, 24] h is at most 24 h.
                    QVERIFY(pt.value(QStringLiteral("wasserstein_hours")).toDouble() <= 24);
                }
            }
        }
    }
}

void TestDpxLdpExperiment::presetOverridden() {
    // Explicit options replace the preset's value of that option only.
    RUN_OK(r, words("ldp-experiment --preset telemetry --users 1000,10000 --epsilons 1 "
                    "--protocols dbitflip:1 --repetitions 3 --seed 5 --postprocess clamp"));
    const QJsonObject spec = r.json.value(QStringLiteral("spec")).toObject();
    QCOMPARE(spec.value(QStringLiteral("preset")).toString(), QStringLiteral("telemetry"));
    QCOMPARE(spec.value(QStringLiteral("protocols")).toArray().size(), 1);
    QCOMPARE(strings(spec.value(QStringLiteral("shapes"))).size(), 3);  // kept
    QCOMPARE(spec.value(QStringLiteral("buckets")).toInt(), 32);        // kept
    QCOMPARE(numbers(spec.value(QStringLiteral("users"))), (QList<double>{1000, 10000}));
    QCOMPARE(numbers(spec.value(QStringLiteral("epsilons"))), (QList<double>{1}));
    QCOMPARE(spec.value(QStringLiteral("repetitions")).toInt(), 3);
    QCOMPARE(spec.value(QStringLiteral("seed")).toString(), QStringLiteral("5"));
    QCOMPARE(spec.value(QStringLiteral("postprocess")).toString(), QStringLiteral("clamp"));
    QCOMPARE(r.json.value(QStringLiteral("points")).toArray().size(), 6);
    QVERIFY(strings(r.json.value(QStringLiteral("warnings")))
                .join(QLatin1Char('\n'))
                .contains(QStringLiteral("before post-processing")));
}

void TestDpxLdpExperiment::explicitOptions() {
    RUN_OK(r, words("ldp-experiment --protocols oue,grr,dbitflip:2,dbitflip,olh,hrr,sue "
                    "--shapes uniform,constant --buckets 8 --users 100:10000:3 "
                    "--epsilons 0.5:2:3 --repetitions 4 --seed 99 --postprocess simplex "
                    "--threads 2"));
    QVERIFY(
        r.json.value(QStringLiteral("spec")).toObject().value(QStringLiteral("preset")).isNull());
    const QJsonObject spec = r.json.value(QStringLiteral("spec")).toObject();
    QStringList labels;
    for (const auto& p : spec.value(QStringLiteral("protocols")).toArray()) {
        labels << p.toObject().value(QStringLiteral("label")).toString();
    }
    QCOMPARE(labels,
             (QStringList{QStringLiteral("OUE"), QStringLiteral("GRR"),
                          QStringLiteral("dBitFlip d=2"), QStringLiteral("dBitFlip d=1"),
                          QStringLiteral("OLH"), QStringLiteral("HRR"), QStringLiteral("SUE")}));
    QCOMPARE(spec.value(QStringLiteral("buckets")).toInt(), 8);
    QCOMPARE(spec.value(QStringLiteral("bucket_hours")).toDouble(), 3.0);
    // 100:10000:3 log-spaced: 100, 1000, 10000; 0.5:2:3: 0.5, 1, 2.
    QCOMPARE(numbers(spec.value(QStringLiteral("users"))), (QList<double>{100, 1000, 10000}));
    QCOMPARE(numbers(spec.value(QStringLiteral("epsilons"))), (QList<double>{0.5, 1, 2}));
    QCOMPARE(spec.value(QStringLiteral("repetitions")).toInt(), 4);
    QCOMPARE(spec.value(QStringLiteral("seed")).toString(), QStringLiteral("99"));
    QCOMPARE(spec.value(QStringLiteral("postprocess")).toString(), QStringLiteral("simplex"));
    QCOMPARE(r.json.value(QStringLiteral("threads")).toInt(), 2);
    QCOMPARE(r.json.value(QStringLiteral("points")).toArray().size(), 7 * 2 * 3 * 3);
}

void TestDpxLdpExperiment::expectedMseClosedForm() {
    // OUE (seed 001 §2.4; Wang et al. 2017): Var f̂_j = [q(1−q) + f(p(1−p) − q(1−q))]/(n(p−q)²)
    // with p = ½, q = 1/(e^ε + 1); uniform data over k = 16 buckets has f = 1/16 everywhere.
    RUN_OK(r, words("ldp-experiment --protocols oue --shapes uniform --buckets 16 --users 4800 "
                    "--epsilons 0.7 --repetitions 2"));
    const QJsonArray points = r.json.value(QStringLiteral("points")).toArray();
    QCOMPARE(points.size(), 1);
    const double p = 0.5, q = 1 / (std::exp(0.7) + 1), f = 1.0 / 16, n = 4800;
    const double var = (q * (1 - q) + f * (p * (1 - p) - q * (1 - q))) / (n * (p - q) * (p - q));
    const double got = points[0].toObject().value(QStringLiteral("expected_mse")).toDouble();
    QVERIFY2(std::abs(got - var) <= 1e-12 * var,
             QByteArray::number(got, 'g', 17) + " vs " + QByteArray::number(var, 'g', 17));
}

void TestDpxLdpExperiment::reproducibleAndThreadIndependent() {
    const char* args =
        "ldp-experiment --protocols dbitflip:1,oue --shapes normal,constant "
        "--users 500,5000 --epsilons 0.5,3 --repetitions 5";
    const QStringList seed11{QStringLiteral("--seed"), QStringLiteral("11")};
    RUN_OK(a, words(args) + seed11 + QStringList{QStringLiteral("--threads"), QStringLiteral("1")});
    RUN_OK(b, words(args) + seed11 + QStringList{QStringLiteral("--threads"), QStringLiteral("2")});
    RUN_OK(c, words(args) + seed11);
    const QJsonArray pa = a.json.value(QStringLiteral("points")).toArray();
    QCOMPARE(pa.size(), 16);
    QCOMPARE(b.json.value(QStringLiteral("points")).toArray(), pa);
    QCOMPARE(c.json.value(QStringLiteral("points")).toArray(), pa);
    // Another seed: other measurements, the same expectations.
    RUN_OK(d, words(args) + QStringList{QStringLiteral("--seed"), QStringLiteral("12")});
    const QJsonArray pd = d.json.value(QStringLiteral("points")).toArray();
    QCOMPARE(pd.size(), pa.size());
    for (int i = 0; i < pa.size(); ++i) {
        const QJsonObject x = pa[i].toObject(), y = pd[i].toObject();
        QVERIFY(x.value(QStringLiteral("max_error")) != y.value(QStringLiteral("max_error")));
        QCOMPARE(x.value(QStringLiteral("expected_max_error")),
                 y.value(QStringLiteral("expected_max_error")));
    }
}

void TestDpxLdpExperiment::errors_data() {
    QTest::addColumn<QString>("args");
    QTest::addColumn<QString>("needle");
    const QString base =
        QStringLiteral("--protocols oue --shapes normal --users 1000 --epsilons 1 ");
    auto row = [&](const char* name, const QString& args, const char* needle) {
        QTest::newRow(name) << args << QString::fromUtf8(needle);
    };
    row("nothing", QString(), "--protocols");
    row("no shapes", QStringLiteral("--protocols oue --users 1000 --epsilons 1"), "--shapes");
    row("no users", QStringLiteral("--protocols oue --shapes normal --epsilons 1"), "--users");
    row("no epsilons", QStringLiteral("--protocols oue --shapes normal --users 1000"),
        "--epsilons");
    row("unknown preset", QStringLiteral("--preset seed003"), "--preset");
    row("unknown option", base + QStringLiteral("--trials 5"), "--trials");
    row("option without value", base + QStringLiteral("--seed"), "--seed");
    row("option twice", base + QStringLiteral("--seed 1 --seed 2"), "--seed");
    row("unknown protocol", QStringLiteral("--preset telemetry --protocols foo"), "--protocols");
    row("empty protocol item", QStringLiteral("--preset telemetry --protocols oue,"),
        "--protocols");
    row("parameter on oue", QStringLiteral("--preset telemetry --protocols oue:2"), "--protocols");
    row("dbitflip:0", QStringLiteral("--preset telemetry --protocols dbitflip:0"), "--protocols");
    row("dbitflip:x", QStringLiteral("--preset telemetry --protocols dbitflip:x"), "--protocols");
    row("dbitflip:-1", QStringLiteral("--preset telemetry --protocols dbitflip:-1"), "--protocols");
    row("dbitflip d > k", QStringLiteral("--preset telemetry --protocols dbitflip:33"),
        "--protocols");
    row("rr with k = 32", QStringLiteral("--preset telemetry --protocols rr"), "--protocols");
    row("protocol twice", QStringLiteral("--preset telemetry --protocols oue,oue"), "--protocols");
    row("olh at eps 45", QStringLiteral("--preset telemetry --protocols olh --epsilons 1,45"),
        "--protocols");
    row("unknown shape", QStringLiteral("--preset telemetry --shapes triangle"), "--shapes");
    row("shape twice", QStringLiteral("--preset telemetry --shapes normal,normal"), "--shapes");
    row("buckets 1", QStringLiteral("--preset telemetry --buckets 1"), "--buckets");
    row("buckets 0", QStringLiteral("--preset telemetry --buckets 0"), "--buckets");
    row("buckets -3", QStringLiteral("--preset telemetry --buckets -3"), "--buckets");
    row("buckets x", QStringLiteral("--preset telemetry --buckets x"), "--buckets");
    row("buckets 2^22 + 1", QStringLiteral("--preset telemetry --buckets 4194305"), "--buckets");
    row("users 0", QStringLiteral("--preset telemetry --users 0"), "--users");
    row("users negative", QStringLiteral("--preset telemetry --users -5"), "--users");
    row("users fraction", QStringLiteral("--preset telemetry --users 1.5"), "--users");
    row("users nan", QStringLiteral("--preset telemetry --users nan"), "--users");
    row("users inf", QStringLiteral("--preset telemetry --users inf"), "--users");
    row("users above 1e15", QStringLiteral("--preset telemetry --users 2e15"), "--users");
    row("users empty item", QStringLiteral("--preset telemetry --users 1000,"), "--users");
    row("users twice", QStringLiteral("--preset telemetry --users 1000,1000"), "--users");
    row("users range LO 0", QStringLiteral("--preset telemetry --users 0:100:3"), "--users");
    row("users range LO > HI", QStringLiteral("--preset telemetry --users 1000:100:3"), "--users");
    row("users range COUNT 0", QStringLiteral("--preset telemetry --users 100:1000:0"), "--users");
    row("users range two parts", QStringLiteral("--preset telemetry --users 100:1000"), "--users");
    row("users range rounding repeats", QStringLiteral("--preset telemetry --users 1:3:10"),
        "--users");
    row("epsilon 0", QStringLiteral("--preset telemetry --epsilons 0"), "--epsilons");
    row("epsilon negative", QStringLiteral("--preset telemetry --epsilons 1,-1"), "--epsilons");
    row("epsilon nan", QStringLiteral("--preset telemetry --epsilons nan"), "--epsilons");
    row("epsilon inf", QStringLiteral("--preset telemetry --epsilons inf"), "--epsilons");
    row("epsilon x", QStringLiteral("--preset telemetry --epsilons x"), "--epsilons");
    row("epsilon 51", QStringLiteral("--preset telemetry --epsilons 51"), "epsilons[0] = 51");
    row("epsilon twice", QStringLiteral("--preset telemetry --epsilons 1,1"), "--epsilons");
    row("epsilons range COUNT 0", QStringLiteral("--preset telemetry --epsilons 0.1:10:0"),
        "--epsilons");
    row("epsilons range LO > HI", QStringLiteral("--preset telemetry --epsilons 10:0.1:3"),
        "--epsilons");
    row("repetitions 0", QStringLiteral("--preset telemetry --repetitions 0"), "--repetitions");
    row("repetitions negative", QStringLiteral("--preset telemetry --repetitions -1"),
        "--repetitions");
    row("repetitions above 1e5", QStringLiteral("--preset telemetry --repetitions 100001"),
        "--repetitions");
    row("repetitions x", QStringLiteral("--preset telemetry --repetitions x"), "--repetitions");
    row("seed negative", QStringLiteral("--preset telemetry --seed -1"), "--seed");
    row("seed x", QStringLiteral("--preset telemetry --seed x"), "--seed");
    row("postprocess unknown", QStringLiteral("--preset telemetry --postprocess round"),
        "--postprocess");
    row("threads 2000", QStringLiteral("--preset telemetry --threads 2000"), "--threads");
    row("threads negative", QStringLiteral("--preset telemetry --threads -1"), "--threads");
    row("too much work", QStringLiteral("--preset telemetry --repetitions 100000"), "too large");
}

void TestDpxLdpExperiment::errors() {
    QFETCH(QString, args);
    QFETCH(QString, needle);
    const Run r = dpx(QStringList{QStringLiteral("ldp-experiment")} +
                      args.split(QLatin1Char(' '), Qt::SkipEmptyParts));
    QVERIFY2(r.exitCode == 2, describe(r).constData());
    QVERIFY2(r.out.isEmpty(), describe(r).constData());
    QVERIFY2(r.err.startsWith("dpx: error: "), describe(r).constData());
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(needle), describe(r).constData());
}

// The bit probabilities are 1/(e^ε+1) and e^ε/(e^ε+1) at the ends (ε-LDP); the mean absolute
// error over 400 trials agrees with √(2/π)·σ from the exact variance (within 4 standard errors);
// the constant shape's mean is the centre of the bucket holding 12 h; --counts uses bin indices.
void TestDpxLdpExperiment::ldpMean() {
    const Run r =
        dpx(words("ldp-mean --epsilon 1 --shape normal --users 20000 --trials 400 "
                  "--seed 3"));
    QVERIFY2(r.exitCode == 0 && r.jsonOk, describe(r).constData());
    const QJsonObject& o = r.json;
    const double e = std::exp(1.0);
    const double pi = std::acos(-1.0);
    const QJsonArray bits = o[QStringLiteral("bit_probability")].toArray();
    QVERIFY(std::abs(bits[0].toDouble() - 1 / (e + 1)) < 1e-15);
    QVERIFY(std::abs(bits[1].toDouble() - e / (e + 1)) < 1e-15);
    QCOMPARE(o[QStringLiteral("range")].toDouble(), 24.0);
    QVERIFY(std::abs(o[QStringLiteral("true_mean")].toDouble() - 12) < 1e-9);
    const QJsonObject ex = o[QStringLiteral("expected")].toObject();
    const double sigma = std::sqrt(ex[QStringLiteral("variance")].toDouble());
    QVERIFY(std::abs(ex[QStringLiteral("abs_error")].toDouble() - sigma * std::sqrt(2 / pi)) <
            1e-12);
    // |N(0, σ²)| has standard deviation σ·√(1 − 2/π); the mean of 400 has that over 20.
    const double measured =
        o[QStringLiteral("abs_error")].toObject()[QStringLiteral("mean")].toDouble();
    QVERIFY2(std::abs(measured - ex[QStringLiteral("abs_error")].toDouble()) <
                 4 * sigma * std::sqrt(1 - 2 / pi) / 20,
             describe(r).constData());
    const Run again =
        dpx(words("ldp-mean --epsilon 1 --shape normal --users 20000 --trials 400 "
                  "--seed 3"));
    QCOMPARE(again.out, r.out);
    const Run c = dpx(words("ldp-mean --epsilon 2 --shape constant --users 1000 --trials 2"));
    QVERIFY2(c.exitCode == 0, describe(c).constData());
    QVERIFY(std::abs(c.json[QStringLiteral("true_mean")].toDouble() - 12.375) < 1e-9);
    const Run k = dpx(words("ldp-mean --epsilon 1 --counts 5,5,0 --trials 2"));
    QVERIFY2(k.exitCode == 0, describe(k).constData());
    QCOMPARE(k.json[QStringLiteral("range")].toDouble(), 2.0);
    QVERIFY(std::abs(k.json[QStringLiteral("true_mean")].toDouble() - 0.5) < 1e-12);
}

void TestDpxLdpExperiment::ldpMeanErrors_data() {
    QTest::addColumn<QString>("args");
    QTest::addColumn<QString>("needle");
    auto row = [](const char* name, const char* args, const char* needle) {
        QTest::newRow(name) << QString::fromUtf8(args) << QString::fromUtf8(needle);
    };
    row("no epsilon", "ldp-mean --shape normal --users 10", "--epsilon");
    row("epsilon 0", "ldp-mean --epsilon 0 --shape normal --users 10", "epsilon");
    row("epsilon nan", "ldp-mean --epsilon nan --shape normal --users 10", "epsilon");
    row("epsilon 60", "ldp-mean --epsilon 60 --shape normal --users 10", "epsilon");
    row("no data", "ldp-mean --epsilon 1", "--shape");
    row("both", "ldp-mean --epsilon 1 --shape normal --users 10 --counts 1,2", "one of them");
    row("bad shape", "ldp-mean --epsilon 1 --shape gamma --users 10", "shape");
    row("no users", "ldp-mean --epsilon 1 --shape normal", "--users");
    row("users 0", "ldp-mean --epsilon 1 --shape normal --users 0", "--users");
    row("buckets 0", "ldp-mean --epsilon 1 --shape normal --users 9 --buckets 0", "--buckets");
    row("trials 0", "ldp-mean --epsilon 1 --shape normal --users 9 --trials 0", "--trials");
    row("one bin", "ldp-mean --epsilon 1 --counts 5", "2 bins");
    row("unknown", "ldp-mean --epsilon 1 --shape normal --users 9 --bogus 1", "bogus");
}

void TestDpxLdpExperiment::ldpMeanErrors() {
    QFETCH(QString, args);
    QFETCH(QString, needle);
    const Run r = dpx(args.split(QLatin1Char(' ')));
    QVERIFY2(r.exitCode == 2, describe(r).constData());
    QVERIFY2(r.out.isEmpty(), describe(r).constData());
    QVERIFY2(QString::fromUtf8(r.err).contains(needle), describe(r).constData());
}

QTEST_GUILESS_MAIN(TestDpxLdpExperiment)
#include "tst_dpx_ldp_experiment.moc"
