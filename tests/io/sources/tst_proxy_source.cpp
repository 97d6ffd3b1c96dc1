// Files of public proxies (io/sources/proxy_source.h, issue #22): shape files of weights (one
// column, or bin,weight, with or without a header) and the released values of a release CSV as
// io/release/release_files.h writes it (labels neutralised against CSV injection read back as
// they were); every refusal names the file, line and column. The expected values are the numbers
// written into the files by hand.
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <string>
#include <vector>

#include "core/release/release.h"
#include "io/release/release_files.h"
#include "io/sources/proxy_source.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using namespace dpx::data;

namespace {

std::string write(const QTemporaryDir& dir, const char* name, const std::string& text) {
    const std::string path = dir.filePath(QString::fromLatin1(name)).toStdString();
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

}  // namespace

class TestProxySource : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void shapeFiles() {
        QTemporaryDir dir;
        auto one = readShapeFile(write(dir, "a.csv", "1\n2.5\n0\n4\n"));
        QVERIFY(one);
        QCOMPARE(one->weights, (std::vector<double>{1, 2.5, 0, 4}));
        auto headed = readShapeFile(write(dir, "b.csv", "bin,weight\nx,1\ny,3\n"));
        QVERIFY(headed);
        QCOMPARE(headed->weights, (std::vector<double>{1, 3}));
        DPX_VERIFY_ERROR(readShapeFile(write(dir, "c.csv", "1\n-2\n")),
                         "c.csv: line 2, column 1: the weight -2 is negative");
        DPX_VERIFY_ERROR(readShapeFile(write(dir, "d.csv", "1\nabc\n")), "line 2|'abc'");
        DPX_VERIFY_ERROR(readShapeFile(write(dir, "e.csv", "1,2,3\n")), "got 3");
        DPX_VERIFY_ERROR(readShapeFile(write(dir, "f.csv", "")), "f.csv");
        DPX_VERIFY_ERROR(readShapeFile(dir.filePath(QStringLiteral("none.csv")).toStdString()),
                         "none.csv");
    }

    void releaseFiles() {
        // A release as the writer makes it: labels that start with '-' are quoted.
        HistogramRelease r;
        r.values = {-3, 12, 40.5};
        r.metadata.binLabels = {"-10-0", "0-10", "10-20"};
        QTemporaryDir dir;
        const std::string csv = releaseCsvText(r);
        QVERIFY(csv.find("'-10-0") != std::string::npos);
        auto read = readReleasedCounts(write(dir, "r.csv", csv));
        QVERIFY(read);
        QCOMPARE(read->weights, (std::vector<double>{-3, 12, 40.5}));
        QCOMPARE(read->labels, r.metadata.binLabels);
        // With interval columns: only "value" is read.
        auto iv =
            readReleasedCounts(write(dir, "i.csv", "bin,value,lower,upper\na,5,1,9\nb,7,3,11\n"));
        QCOMPARE(iv->weights, (std::vector<double>{5, 7}));
        // A table release: no bin labels, the values in C order.
        auto table = readReleasedCounts(write(dir, "t.csv", "sex,age,value\nf,1,4\nf,2,5\n"));
        QCOMPARE(table->weights, (std::vector<double>{4, 5}));
        QVERIFY(table->labels.empty());
        DPX_VERIFY_ERROR(readReleasedCounts(write(dir, "n.csv", "bin,count\na,1\n")),
                         "no 'value' column");
        DPX_VERIFY_ERROR(readReleasedCounts(write(dir, "m.csv", "bin,value\na,1\nb,\n")),
                         "line 3, column 2: the released value is missing");
        DPX_VERIFY_ERROR(readReleasedCounts(write(dir, "h.csv", "bin,value\n")), "no bins");
        // Through a plan: the path is read, the kind kept.
        auto plan = parsePlanOn("release:" + dir.filePath(QStringLiteral("r.csv")).toStdString());
        QVERIFY(plan);
        auto loaded = loadPlanOnFile(*plan);
        QVERIFY(loaded);
        QCOMPARE(loaded->weights.size(), std::size_t{3});
        loaded->population = 100;
        auto h = buildProxyHistogram(*loaded, 3, r.metadata.binLabels);
        QVERIFY(h);
        QCOMPARE(h->total(), std::int64_t{100});
        QCOMPARE(h->counts()[0], std::int64_t{0});  // the negative released count counts as 0
        DPX_VERIFY_ERROR(loadPlanOnFile(*parsePlanOn("shape:/nonexistent/s.csv")),
                         "shape file s.csv");
    }
};

QTEST_APPLESS_MAIN(TestProxySource)
#include "tst_proxy_source.moc"
