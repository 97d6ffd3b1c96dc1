// dpx workload, dpx algorithms and dpx bench (issue #20, docs/cli.md): the JSON against
// independent references computed here — the true answers of prefix and box queries summed cell
// by cell, the realized errors recomputed from the printed answers, the identity's exact expected
// error in closed form, the budget steps summing to ε, the resampled total equal to --scale, the
// coarsened domain; dpx bench's lines (the peer runners' keys, one per cell, the same numbers for
// any thread count); and bad inputs named (an unknown algorithm lists the known ones, a 1-D
// algorithm on 2-D data says so, a bad workload text names its part).
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include "dpx_process.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using dpxtest::describe;
using dpxtest::Run;
using dpxtest::words;

Run dpx(const QStringList& args) {
    return dpxtest::runDpx(args);
}

// The lines of dpx bench, each one JSON object.
std::vector<QJsonObject> jsonLines(const QByteArray& out) {
    std::vector<QJsonObject> lines;
    for (const QByteArray& line : out.split('\n')) {
        if (!line.trimmed().isEmpty()) {
            lines.push_back(QJsonDocument::fromJson(line).object());
        }
    }
    return lines;
}

// A .npy of float64 counts in C order (format 1.0).
QByteArray npyFloat64(const QByteArray& shape, const std::vector<double>& v) {
    QByteArray header = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0) {
        header += ' ';
    }
    header += '\n';
    QByteArray out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(header.size() & 0xFF);
    out += static_cast<char>((header.size() >> 8) & 0xFF);
    out += header;
    out.append(reinterpret_cast<const char*>(v.data()),
               static_cast<qsizetype>(v.size() * sizeof(double)));
    return out;
}

}  // namespace

class TestDpxWorkload : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString npy2d_;  // 8 × 8 counts
    QString oneD_;   // an algorithm that runs on 1-D data only
    QStringList ids_;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        std::vector<double> cells(64);
        for (std::size_t i = 0; i < cells.size(); ++i) {
            cells[i] = double((i * 7) % 5);
        }
        npy2d_ = dir_.filePath(QStringLiteral("grid.npy"));
        QFile f(npy2d_);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(npyFloat64("(8, 8)", cells));
        f.close();
        const Run r = dpx(words("algorithms"));
        QVERIFY2(r.exitCode == 0 && r.jsonOk, describe(r).constData());
        for (const auto& v : r.json[QStringLiteral("algorithms")].toArray()) {
            const QJsonObject a = v.toObject();
            ids_ << a[QStringLiteral("id")].toString();
            const QJsonArray dims = a[QStringLiteral("dimensions")].toArray();
            if (oneD_.isEmpty() && dims.size() == 1 && dims[0].toInt() == 1) {
                oneD_ = a[QStringLiteral("id")].toString();
            }
        }
        QVERIFY2(ids_.contains(QStringLiteral("Identity")), qPrintable(ids_.join(u',')));
    }

    void algorithmsListsTheirFacts() {
        const Run r = dpx(words("algorithms"));
        for (const auto& v : r.json[QStringLiteral("algorithms")].toArray()) {
            const QJsonObject a = v.toObject();
            for (const char* key : {"id", "name", "citation", "dimensions", "data_dependent",
                                    "uses_workload", "total_is_public", "parameters", "doc"}) {
                QVERIFY2(a.contains(QLatin1String(key)),
                         qPrintable(a[QStringLiteral("id")].toString() + QLatin1String(key)));
            }
            QVERIFY(!a[QStringLiteral("citation")].toString().isEmpty());
            for (const auto& p : a[QStringLiteral("parameters")].toArray()) {
                const QJsonObject o = p.toObject();
                QVERIFY(o[QStringLiteral("min")].toDouble() <=
                        o[QStringLiteral("default")].toDouble());
                QVERIFY(o[QStringLiteral("default")].toDouble() <=
                        o[QStringLiteral("max")].toDouble());
            }
        }
        const Run one = dpx(words("algorithms --id identity"));
        QCOMPARE(one.exitCode, 0);
        QCOMPARE(one.json[QStringLiteral("algorithms")].toArray().size(), 1);
        QCOMPARE(one.json[QStringLiteral("algorithms")]
                     .toArray()[0]
                     .toObject()[QStringLiteral("id")]
                     .toString(),
                 QStringLiteral("Identity"));
        const Run two = dpx(words("algorithms --dim 2"));
        for (const auto& v : two.json[QStringLiteral("algorithms")].toArray()) {
            QVERIFY(v.toObject()[QStringLiteral("dimensions")].toArray().contains(2));
        }
        const Run bad = dpx(words("algorithms --id NoSuch"));
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("unknown algorithm 'NoSuch'") && bad.err.contains("Identity"),
                 bad.err.constData());
    }

    void identityOnPrefixes() {
        // 16 cells; prefix workload; the answers are prefix sums, the errors follow from them.
        const QString counts = QStringLiteral("5,0,3,9,1,1,0,0,12,4,4,2,0,7,3,1");
        const Run r =
            dpx({QStringLiteral("workload"), QStringLiteral("--counts"), counts,
                 QStringLiteral("--algorithm"), QStringLiteral("Identity"),
                 QStringLiteral("--epsilon"), QStringLiteral("0.5"), QStringLiteral("--workload"),
                 QStringLiteral("prefix"), QStringLiteral("--trials"), QStringLiteral("400"),
                 QStringLiteral("--seed"), QStringLiteral("3")});
        QVERIFY2(r.exitCode == 0 && r.jsonOk, describe(r).constData());
        const QJsonObject& o = r.json;
        QCOMPARE(o[QStringLiteral("algorithm")].toObject()[QStringLiteral("id")].toString(),
                 QStringLiteral("Identity"));
        QCOMPARE(o[QStringLiteral("workload")].toObject()[QStringLiteral("queries")].toInt(), 16);
        double spent = 0;
        for (const auto& s : o[QStringLiteral("budget")].toArray()) {
            spent += s.toObject()[QStringLiteral("epsilon")].toDouble();
        }
        QVERIFY(std::abs(spent - 0.5) < 1e-12);
        const QJsonArray est = o[QStringLiteral("estimate")].toArray();
        QCOMPARE(est.size(), 16);
        const QJsonArray truth =
            o[QStringLiteral("answers")].toObject()[QStringLiteral("true")].toArray();
        const QJsonArray noisy =
            o[QStringLiteral("answers")].toObject()[QStringLiteral("noisy")].toArray();
        QCOMPARE(truth.size(), 16);
        const QStringList cells = counts.split(u',');
        double prefix = 0, prefixEst = 0, ss = 0, sa = 0, mx = 0;
        for (int i = 0; i < 16; ++i) {
            prefix += cells[i].toDouble();
            prefixEst += est[i].toDouble();
            QCOMPARE(truth[i].toDouble(), prefix);
            QVERIFY(std::abs(noisy[i].toDouble() - prefixEst) < 1e-9 * (1 + std::abs(prefixEst)));
            const double d = noisy[i].toDouble() - truth[i].toDouble();
            ss += d * d;
            sa += std::abs(d);
            mx = std::max(mx, std::abs(d));
        }
        const double m = prefix;  // 52
        const QJsonObject errors = o[QStringLiteral("errors")].toObject();
        const QJsonObject realized = errors[QStringLiteral("realized")].toObject();
        QVERIFY(std::abs(realized[QStringLiteral("L2")].toDouble() - std::sqrt(ss) / 16 / m) <
                1e-12);
        QVERIFY(std::abs(realized[QStringLiteral("L1")].toDouble() - sa / 16 / m) < 1e-12);
        QVERIFY(std::abs(realized[QStringLiteral("Linf")].toDouble() - mx / m) < 1e-12);
        QVERIFY(std::abs(realized[QStringLiteral("rmse")].toDouble() - std::sqrt(ss / 16)) < 1e-9);
        // Identity's exact error on prefixes: E‖d‖² = (2/ε²)·Σ_i (i + 1) = (2/ε²)·136.
        const double exact = std::sqrt(2 / 0.25 * 136 / 16);
        const QJsonObject ex = errors[QStringLiteral("exact_expected")].toObject();
        QVERIFY2(std::abs(ex[QStringLiteral("rmse")].toDouble() - exact) < 1e-9 * exact,
                 qPrintable(QString::number(ex[QStringLiteral("rmse")].toDouble())));
        const QJsonObject trials = errors[QStringLiteral("over_trials")].toObject();
        QCOMPARE(trials[QStringLiteral("trials")].toInt(), 400);
        const QJsonObject rm = trials[QStringLiteral("rmse")].toObject();
        QVERIFY2(std::abs(rm[QStringLiteral("mean")].toDouble() - exact) <
                     5 * rm[QStringLiteral("se")].toDouble() + 0.1 * exact,
                 qPrintable(QString::number(rm[QStringLiteral("mean")].toDouble())));
        QVERIFY(trials[QStringLiteral("seconds")].toDouble() >= 0);
        // The realized run is trial 1 of the trials: the same seed gives the same estimate.
        const Run again =
            dpx({QStringLiteral("workload"), QStringLiteral("--counts"), counts,
                 QStringLiteral("--algorithm"), QStringLiteral("identity"),
                 QStringLiteral("--epsilon"), QStringLiteral("0.5"), QStringLiteral("--workload"),
                 QStringLiteral("prefix"), QStringLiteral("--trials"), QStringLiteral("0"),
                 QStringLiteral("--seed"), QStringLiteral("3")});
        QCOMPARE(again.exitCode, 0);
        QCOMPARE(again.json[QStringLiteral("estimate")].toArray(), est);
        QVERIFY(!again.json[QStringLiteral("errors")].toObject().contains(
            QStringLiteral("over_trials")));
    }

    void scaleAndDomain() {
        // 8 × 8 table from a .npy: resampled to 10^6 records, coarsened to 4 × 2; boxes workload.
        const Run r =
            dpx({QStringLiteral("workload"), QStringLiteral("--counts-file"), npy2d_,
                 QStringLiteral("--algorithm"), QStringLiteral("Identity"),
                 QStringLiteral("--epsilon"), QStringLiteral("1"), QStringLiteral("--scale"),
                 QStringLiteral("1000000"), QStringLiteral("--domain"), QStringLiteral("4x2"),
                 QStringLiteral("--workload"), QStringLiteral("boxes:0..3x0..1;1..2x1..1"),
                 QStringLiteral("--trials"), QStringLiteral("3")});
        QVERIFY2(r.exitCode == 0 && r.jsonOk, describe(r).constData());
        const QJsonObject data = r.json[QStringLiteral("data")].toObject();
        QCOMPARE(data[QStringLiteral("m")].toDouble(), 1e6);
        QCOMPARE(data[QStringLiteral("domain")].toString(), QStringLiteral("4x2"));
        QCOMPARE(data[QStringLiteral("original_domain")].toString(), QStringLiteral("8x8"));
        QCOMPARE(r.json[QStringLiteral("estimate")].toArray().size(), 8);
        const QJsonArray truth =
            r.json[QStringLiteral("answers")].toObject()[QStringLiteral("true")].toArray();
        QCOMPARE(truth.size(), 2);
        QCOMPARE(truth[0].toDouble(), 1e6);  // the whole domain
        // The same data seed gives the same sample; another one a different sample.
        const Run same =
            dpx({QStringLiteral("workload"), QStringLiteral("--counts-file"), npy2d_,
                 QStringLiteral("--algorithm"), QStringLiteral("Identity"),
                 QStringLiteral("--epsilon"), QStringLiteral("1"), QStringLiteral("--scale"),
                 QStringLiteral("1000000"), QStringLiteral("--domain"), QStringLiteral("4x2"),
                 QStringLiteral("--workload"), QStringLiteral("boxes:0..3x0..1;1..2x1..1"),
                 QStringLiteral("--trials"), QStringLiteral("0")});
        QCOMPARE(same.json[QStringLiteral("answers")].toObject()[QStringLiteral("true")].toArray(),
                 truth);
        const Run bad = dpx({QStringLiteral("workload"), QStringLiteral("--counts-file"), npy2d_,
                             QStringLiteral("--algorithm"), QStringLiteral("Identity"),
                             QStringLiteral("--epsilon"), QStringLiteral("1"),
                             QStringLiteral("--domain"), QStringLiteral("3x8")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("3 does not divide"), bad.err.constData());
        const Run dims = dpx({QStringLiteral("workload"), QStringLiteral("--counts-file"), npy2d_,
                              QStringLiteral("--algorithm"), QStringLiteral("Identity"),
                              QStringLiteral("--epsilon"), QStringLiteral("1"),
                              QStringLiteral("--domain"), QStringLiteral("16")});
        QCOMPARE(dims.exitCode, 2);
        QVERIFY2(dims.err.contains("2 dimension"), dims.err.constData());
    }

    void badInputsAreNamed() {
        const Run unknown = dpx(words("workload --counts 1,2,3 --algorithm Magic --epsilon 1"));
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(
            unknown.err.contains("unknown algorithm 'Magic'") && unknown.err.contains("Identity"),
            unknown.err.constData());
        if (!oneD_.isEmpty()) {
            const Run twoD = dpx({QStringLiteral("workload"), QStringLiteral("--counts-file"),
                                  npy2d_, QStringLiteral("--algorithm"), oneD_,
                                  QStringLiteral("--epsilon"), QStringLiteral("1")});
            QCOMPARE(twoD.exitCode, 2);
            QVERIFY2(twoD.err.contains(oneD_.toUtf8() + " runs on 1-D data") &&
                         twoD.err.contains("2-D (8x8)"),
                     twoD.err.constData());
        }
        const Run w = dpx(words(
            "workload --counts 1,2,3 --algorithm Identity --epsilon 1 --workload range:lots"));
        QCOMPARE(w.exitCode, 2);
        QVERIFY2(w.err.contains("--workload") && w.err.contains("'lots'"), w.err.constData());
        const Run box = dpx(words(
            "workload --counts 1,2,3 --algorithm Identity --epsilon 1 --workload boxes:0..9"));
        QCOMPARE(box.exitCode, 2);
        QVERIFY2(box.err.contains("--workload"), box.err.constData());
        const Run p =
            dpx(words("workload --counts 1,2,3 --algorithm Identity --epsilon 1 "
                      "--param rho"));
        QCOMPARE(p.exitCode, 2);
        QVERIFY2(p.err.contains("NAME=VALUE"), p.err.constData());
        const Run q =
            dpx(words("workload --counts 1,2,3 --algorithm Identity --epsilon 1 "
                      "--param rho=0.5"));
        QCOMPARE(q.exitCode, 2);
        QVERIFY2(q.err.contains("no parameter 'rho'"), q.err.constData());
        const Run e = dpx(words("workload --counts 1,2,3 --algorithm Identity --epsilon -1"));
        QCOMPARE(e.exitCode, 2);
        QVERIFY2(e.err.contains("--epsilon"), e.err.constData());
        const Run z = dpx(words("workload --counts 0,0 --algorithm Identity --epsilon 1"));
        QCOMPARE(z.exitCode, 2);
        QVERIFY2(z.err.contains("total 0"), z.err.constData());
        const Run s =
            dpx(words("workload --counts 1,2 --algorithm Identity --epsilon 1 "
                      "--scale 0"));
        QCOMPARE(s.exitCode, 2);
        QVERIFY2(s.err.contains("--scale"), s.err.constData());
    }

    void benchLinesHaveThePeerKeys() {
        const QString args = QStringLiteral(
            "bench --datasets step,sparse --n 256 --m 1000,100000 --eps 1 "
            "--algorithms Identity --workloads range,prefix --trials 3 --seed 4");
        const Run r = dpx(words(args));
        QVERIFY2(r.exitCode == 0, describe(r).constData());
        const std::vector<QJsonObject> lines = jsonLines(r.out);
        QCOMPARE(lines.size(), std::size_t{2 * 2 * 2});
        for (const QJsonObject& l : lines) {
            for (const char* key :
                 {"dim", "dataset", "n", "m", "eps", "algorithm", "workload", "L2", "L2_se", "L1",
                  "Linf", "rmse", "sec_median", "status", "peer"}) {
                QVERIFY2(l.contains(QLatin1String(key)), key);
            }
            QCOMPARE(l[QStringLiteral("peer")].toString(), QStringLiteral("cpp"));
            QCOMPARE(l[QStringLiteral("status")].toString(), QStringLiteral("ok"));
            QCOMPARE(l[QStringLiteral("dim")].toInt(), 1);
            QCOMPARE(l[QStringLiteral("n")].toInt(), 256);
            QCOMPARE(l[QStringLiteral("trials")].toInt(), 3);
            // DPBench's L2 is the RMSE scaled: ‖d‖₂/q/m = rmse/√q/m, trial by trial, so on the
            // means too.
            const double q = l[QStringLiteral("q")].toDouble();
            const double m = l[QStringLiteral("m")].toDouble();
            QVERIFY(std::abs(l[QStringLiteral("L2")].toDouble() -
                             l[QStringLiteral("rmse")].toDouble() / std::sqrt(q) / m) <
                    1e-9 * l[QStringLiteral("L2")].toDouble());
            // Identity's error does not depend on the data: the exact RMSE is printed.
            QVERIFY(l.contains(QStringLiteral("exact_rmse")));
        }
        // Same numbers with two threads (only the seconds may differ).
        const Run two = dpx(words(args + QStringLiteral(" --threads 2")));
        const std::vector<QJsonObject> lines2 = jsonLines(two.out);
        QCOMPARE(lines2.size(), lines.size());
        for (std::size_t i = 0; i < lines.size(); ++i) {
            QCOMPARE(lines2[i][QStringLiteral("L2")].toDouble(),
                     lines[i][QStringLiteral("L2")].toDouble());
            QCOMPARE(lines2[i][QStringLiteral("dataset")], lines[i][QStringLiteral("dataset")]);
        }
    }

    void benchOnAFileAndBadOptions() {
        const Run r =
            dpx({QStringLiteral("bench"), QStringLiteral("--counts-file"),
                 QStringLiteral("GRID=") + npy2d_, QStringLiteral("--n"), QStringLiteral("4"),
                 QStringLiteral("--m"), QStringLiteral("5000"), QStringLiteral("--eps"),
                 QStringLiteral("0.1,1"), QStringLiteral("--algorithms"),
                 QStringLiteral("Identity"), QStringLiteral("--trials"), QStringLiteral("2")});
        QVERIFY2(r.exitCode == 0, describe(r).constData());
        const std::vector<QJsonObject> lines = jsonLines(r.out);
        QCOMPARE(lines.size(), std::size_t{2});
        QCOMPARE(lines[0][QStringLiteral("dataset")].toString(), QStringLiteral("GRID"));
        QCOMPARE(lines[0][QStringLiteral("dim")].toInt(), 2);
        QCOMPARE(lines[0][QStringLiteral("domain")].toString(), QStringLiteral("4x4"));
        // At ten times the ε the identity's error is ten times smaller (exactly, in expectation).
        QVERIFY(std::abs(lines[0][QStringLiteral("exact_rmse")].toDouble() /
                             lines[1][QStringLiteral("exact_rmse")].toDouble() -
                         10) < 1e-9);

        const Run unknown = dpx(words("bench --algorithms Identity,Nope --trials 1"));
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains("unknown algorithm 'Nope'"), unknown.err.constData());
        const Run shape = dpx(words("bench --datasets lumpy --trials 1"));
        QCOMPARE(shape.exitCode, 2);
        QVERIFY2(shape.err.contains("uniform, step"), shape.err.constData());
        const Run n = dpx(words("bench --datasets step --n 1000 --algorithms Identity"));
        QCOMPARE(n.exitCode, 2);
        QVERIFY2(n.err.contains("1000 does not divide"), n.err.constData());
        const Run w = dpx(words("bench --datasets step --workloads prefix,squiggle"));
        QCOMPARE(w.exitCode, 2);
        QVERIFY2(w.err.contains("squiggle"), w.err.constData());
        const Run f = dpx(words("bench --counts-file nameless.npy"));
        QCOMPARE(f.exitCode, 2);
        QVERIFY2(f.err.contains("NAME=PATH"), f.err.constData());
        if (!oneD_.isEmpty()) {
            const Run d =
                dpx({QStringLiteral("bench"), QStringLiteral("--counts-file"),
                     QStringLiteral("GRID=") + npy2d_, QStringLiteral("--algorithms"), oneD_});
            QCOMPARE(d.exitCode, 2);
            QVERIFY2(d.err.contains("runs on 1-D data"), d.err.constData());
        }
    }
};

QTEST_APPLESS_MAIN(TestDpxWorkload)
#include "tst_dpx_workload.moc"
