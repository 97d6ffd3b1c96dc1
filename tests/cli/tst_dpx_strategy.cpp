// dpx strategy (issue #23, docs/cli.md): the designed strategy's figures against independent
// references — Identity's RMSE on prefixes in closed form (Σ_q |q| / q = (n + 1)/2), the RMSE
// recomputed from the printed objective (‖A‖₁ = 1: √(2f/(ε²q))), the per-query variances
// summing to the total — and the refusals named (a non-product workload in 2-D, a bad --p).
// And `dpx release --strategy marginals:2` on a five-attribute table (OPT_M leaves the full table
// out): the CSV holds the ten 2-way marginals with their intervals, checked against an
// independent count of the generated rows, and the ledger is charged ε as for any release.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include "dpx_process.h"

#include <cmath>
#include <map>

namespace {

using dpxtest::Run;

QJsonObject json(const Run& r) {
    return QJsonDocument::fromJson(r.out).object();
}

QString k(const char* key) {
    return QString::fromUtf8(key);
}

Run dpx(std::initializer_list<const char*> args) {
    QStringList list;
    for (const char* a : args) {
        list << QString::fromUtf8(a);
    }
    return dpxtest::runDpx(list);
}

}  // namespace

class TestDpxStrategy : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void prefixOneDimension();
    void kroneckerTwoDimensions();
    void marginalsAndUnions();
    void refusals();
    void releaseOfTwoWayMarginals();
};

void TestDpxStrategy::prefixOneDimension() {
    const Run r = dpx(
        {"strategy", "--domain", "32", "--workload", "prefix", "--epsilon", "0.5", "--per-query"});
    QVERIFY2(r.exitCode == 0, dpxtest::describe(r).constData());
    const QJsonObject o = json(r);
    QCOMPARE(o[k("data_used")].toBool(true), false);
    QCOMPARE(o[k("template")].toString(), QStringLiteral("OPT₀ p-Identity(2)"));
    const double q = o[k("queries")].toDouble(), eps = 0.5;
    QCOMPARE(q, 32.0);
    QVERIFY(std::abs(o[k("sensitivity_l1")].toDouble() - 1) < 1e-12);
    const double rmse = o[k("rmse")].toDouble();
    QVERIFY(std::abs(rmse - std::sqrt(2 * o[k("objective")].toDouble() / (eps * eps * q))) <
            1e-9 * rmse);
    const QJsonArray base = o[k("baselines")].toArray();
    QCOMPARE(base.size(), 3);
    QCOMPARE(base[0].toObject()[k("strategy")].toString(), QStringLiteral("Identity"));
    const double identity = base[0].toObject()[k("rmse")].toDouble();
    QVERIFY(std::abs(identity - std::sqrt(33.0) / eps) < 1e-9 * identity);
    QVERIFY(rmse < identity);
    double sum = 0;
    for (const auto& v : o[k("per_query_variance")].toArray()) {
        sum += v.toDouble();
    }
    QCOMPARE(o[k("per_query_variance")].toArray().size(), 32);
    QVERIFY(std::abs(sum - o[k("total_squared")].toDouble()) < 1e-9 * sum);
}

void TestDpxStrategy::kroneckerTwoDimensions() {
    const Run r = dpx(
        {"strategy", "--domain", "8x8", "--workload", "allrange", "--p", "2", "--restarts", "2"});
    QVERIFY2(r.exitCode == 0, dpxtest::describe(r).constData());
    const QJsonObject o = json(r);
    QCOMPARE(o[k("template")].toString(), QStringLiteral("OPT⊗ p-Identity(2) ⊗ p-Identity(2)"));
    QCOMPARE(o[k("queries")].toDouble(), 36.0 * 36.0);
    QCOMPARE(o[k("restarts")].toDouble(), 2.0);
    const double rmse = o[k("rmse")].toDouble();
    // Identity on all boxes of 8 × 8: Σ_q |q| = (Σ 1-D range lengths)² = 120², q = 36².
    const double identity = o[k("baselines")].toArray()[0].toObject()[k("rmse")].toDouble();
    QVERIFY(std::abs(identity - std::sqrt(2.0 * 120 * 120 / (36.0 * 36))) < 1e-9 * identity);
    // On 8 cells the optimum of p-Identity is Θ = 0, Identity itself: never worse than it.
    QVERIFY(rmse <= identity * (1 + 1e-9));
}

void TestDpxStrategy::marginalsAndUnions() {
    // All 2-way marginals of 2 × 3 × 2 (OPT_M, chosen automatically): the measured marginals
    // with weights summing to 1, every restart's objective, the RMSE from the objective.
    const Run r = dpx({"strategy", "--domain", "2x3x2", "--workload", "marginals:2", "--epsilon",
                       "0.5", "--restarts", "4"});
    QVERIFY2(r.exitCode == 0, dpxtest::describe(r).constData());
    const QJsonObject o = json(r);
    QVERIFY(o[k("template")].toString().startsWith(QStringLiteral("OPT_M")));
    QCOMPARE(o[k("restart_objectives")].toArray().size(), 4);
    double sum = 0;
    for (const QJsonValue& m : o[k("marginals")].toArray()) {
        sum += m.toObject()[k("weight")].toDouble();
        QVERIFY(!m.toObject()[k("attributes")].toArray().isEmpty());
    }
    QVERIFY(std::abs(sum - 1) < 1e-12);
    const double q = o[k("queries")].toDouble();
    QCOMPARE(q, 6.0 + 4.0 + 6.0);
    QVERIFY(std::abs(o[k("rmse")].toDouble() -
                     std::sqrt(2 * o[k("objective")].toDouble() / (0.25 * q))) < 1e-9);
    // Random boxes in 2-D: OPT⊗ over a union of Kronecker products, with its rounds.
    const Run u = dpx({"strategy", "--domain", "8x8", "--workload", "range:5", "--p", "1"});
    QVERIFY2(u.exitCode == 0, dpxtest::describe(u).constData());
    const QJsonObject uo = json(u);
    QVERIFY(uo[k("template")].toString().contains(QStringLiteral("union of Kronecker")));
    QVERIFY(uo[k("rounds")].toDouble() >= 1);
}

void TestDpxStrategy::refusals() {
    const Run r =
        dpx({"strategy", "--domain", "8x8", "--workload", "prefix", "--template", "opt+"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("--template"));
    const Run m =
        dpx({"strategy", "--domain", "8x8", "--workload", "prefix", "--template", "marginals"});
    QCOMPARE(m.exitCode, 2);
    QVERIFY(m.err.contains("marginal workloads"));
    const Run p = dpx({"strategy", "--domain", "8", "--workload", "prefix", "--p", "x"});
    QCOMPARE(p.exitCode, 2);
    QVERIFY(p.err.contains("--p"));
    const Run big = dpx({"strategy", "--domain", "8", "--workload", "prefix", "--p", "9"});
    QCOMPARE(big.exitCode, 2);
    QVERIFY(big.err.contains("p must be"));
    const Run none = dpx({"strategy", "--workload", "prefix"});
    QCOMPARE(none.exitCode, 2);
    QVERIFY(none.err.contains("--domain"));
}

void TestDpxStrategy::releaseOfTwoWayMarginals() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // 600 rows over a, b, c, d (2 values each) × e (3): on this table the designer's OPT_M
    // strategy for all 2-way marginals leaves the full table out. The truth of every 2-way
    // marginal cell is counted here directly from the rows, keyed as the CSV writes it.
    const QStringList names{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"),
                            QStringLiteral("d"), QStringLiteral("e")};
    const std::vector<QStringList> labels{
        {QStringLiteral("x"), QStringLiteral("y")},
        {QStringLiteral("p"), QStringLiteral("q")},
        {QStringLiteral("0"), QStringLiteral("1")},
        {QStringLiteral("s"), QStringLiteral("t")},
        {QStringLiteral("lo"), QStringLiteral("mid"), QStringLiteral("hi")}};
    QByteArray csv = names.join(QLatin1Char(',')).toUtf8() + "\n";
    std::map<QString, int> truth;
    for (int r = 0; r < 600; ++r) {
        const std::vector<int> v{r % 2, (r / 2 + r / 7) % 2, (r * r / 3) % 2, (r / 5) % 2,
                                 (r / 3 + r / 11) % 3};
        QStringList row;
        for (int i = 0; i < 5; ++i) {
            row << labels[static_cast<std::size_t>(i)][v[static_cast<std::size_t>(i)]];
        }
        csv += row.join(QLatin1Char(',')).toUtf8() + "\n";
        for (int i = 0; i < 5; ++i) {
            for (int j = i + 1; j < 5; ++j) {
                QStringList key{names[i] + QStringLiteral(" × ") + names[j]};
                for (int t = 0; t < 5; ++t) {
                    key << (t == i || t == j ? row[t] : QStringLiteral("(all)"));
                }
                ++truth[key.join(QLatin1Char(','))];
            }
        }
    }
    const QString data = dir.filePath(QStringLiteral("abcde.csv"));
    {
        QFile f(data);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(csv);
    }
    const QString out = dir.filePath(QStringLiteral("m.csv"));
    const QString ledger = dir.filePath(QStringLiteral("ledger.json"));
    QStringList args{QStringLiteral("release"), QStringLiteral("--data"), data,
                     QStringLiteral("--joint")};
    for (int i = 0; i < 5; ++i) {
        args << QStringLiteral("--column") << names[i] << QStringLiteral("--bins")
             << QStringLiteral("categories:") +
                    labels[static_cast<std::size_t>(i)].join(QLatin1Char(','));
    }
    args << QStringLiteral("--mechanism") << QStringLiteral("discrete-laplace")
         << QStringLiteral("--epsilon") << QStringLiteral("1") << QStringLiteral("--strategy")
         << QStringLiteral("marginals:2") << QStringLiteral("--template")
         << QStringLiteral("marginals") << QStringLiteral("--out") << out
         << QStringLiteral("--ledger") << ledger << QStringLiteral("--budget")
         << QStringLiteral("2");
    const Run r = dpxtest::runDpx(args);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject o = json(r);
    QCOMPARE(o[k("bins")].toInt(), 48);  // the declared table
    QCOMPARE(o[k("epsilon_spent")].toDouble(), 1.0);
    const QJsonObject st = o[k("strategy")].toObject();
    QCOMPARE(st[k("published")].toString(), QStringLiteral("workload answers"));
    const int values = 6 * 4 + 4 * 6;  // 6 pairs of binary attributes, 4 binary × e
    QCOMPARE(st[k("published_values")].toInt(), values);
    const QJsonArray published = st[k("published_marginals")].toArray();
    QCOMPARE(published.size(), 10);
    QCOMPARE(published[0].toString(), QStringLiteral("a × b"));
    QVERIFY(o[k("interval")].toString().contains(QStringLiteral("each published marginal count")));
    const double all = o[k("half_width_all_bins")].toDouble();
    QVERIFY(all > 0);

    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines =
        QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + values);
    QCOMPARE(lines[0], QStringLiteral("marginal,a,b,c,d,e,value,lower,upper"));
    int matched = 0;
    for (int i = 1; i < lines.size(); ++i) {
        const QStringList cells = lines[i].split(QLatin1Char(','));
        QCOMPARE(cells.size(), 9);
        const auto it = truth.find(cells.mid(0, 6).join(QLatin1Char(',')));
        const int t = it == truth.end() ? 0 : it->second;
        matched += it != truth.end();
        const double v = cells[6].toDouble(), lo = cells[7].toDouble(), hi = cells[8].toDouble();
        QVERIFY(lo < v && v < hi);
        // Far outside the simultaneous 95 % interval only with negligible probability.
        QVERIFY2(std::fabs(v - t) <= 3 * all, qPrintable(lines[i]));
    }
    QVERIFY2(matched >= values - 4, qPrintable(QString::number(matched)));
}

QTEST_GUILESS_MAIN(TestDpxStrategy)
#include "tst_dpx_strategy.moc"
