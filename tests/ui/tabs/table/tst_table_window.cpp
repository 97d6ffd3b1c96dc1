// The Table tab in the window (issue #19): MainWindow has the tab, with its empty state until the
// window hands it a table; a 256 × 256 table (skewed, and sparse) drawn at 1600 × 1000 and
// 1024 × 768, light and dark, fills the heatmaps (the picture has many colours, the axes carry
// the bin labels). With DPX_TABLE_SHOTS=DIR set, every combination of table, ε = 0.01, 1, 10,
// theme and size is saved there as PNG (the pictures looked at for the issue and the docs).
#include <QApplication>
#include <QDir>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <cmath>
#include <random>

#include "tests/ui/window_test_support.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/tabs/table/table_tab.h"
#include "ui/widgets/qcustomplot_include.h"

using namespace dpx;
using dpx::ui::MainWindow;
using dpx::ui::TableTab;
using dpx::ui::TableViewInputs;

namespace {

// 256 × 256: "skewed" counts falling off from one corner (every cell occupied), "sparse" 5 % of
// the cells occupied with 1 … 50 records.
ContingencyTable shotTable(bool skewed) {
    std::vector<Attribute> attrs;
    for (const char* name : {"age", "hours"}) {
        Attribute a;
        a.name = name;
        for (int i = 0; i < 256; ++i) {
            a.labels.push_back(std::to_string(i));
        }
        attrs.push_back(a);
    }
    std::mt19937_64 rng(19);
    std::vector<std::int64_t> counts(256 * 256, 0);
    for (std::size_t i = 0; i < 256; ++i) {
        for (std::size_t j = 0; j < 256; ++j) {
            if (skewed) {
                counts[i * 256 + j] = static_cast<std::int64_t>(
                    std::floor(3000.0 * std::exp(-static_cast<double>(i + 2 * j) / 40.0)));
            } else if (rng() % 20 == 0) {
                counts[i * 256 + j] = static_cast<std::int64_t>(1 + rng() % 50);
            }
        }
    }
    return *ContingencyTable::dense(std::move(attrs), std::move(counts));
}

// A Laplace release (b = 1/ε) with the estimate clamped at 0.
TableViewInputs release(const ContingencyTable& t, double eps) {
    std::mt19937_64 rng(5);
    std::exponential_distribution<double> expo(1.0);
    TableViewInputs in;
    in.truth = t;
    for (std::int64_t c : t.denseCounts()) {
        const double z = static_cast<double>(c) + (expo(rng) - expo(rng)) / eps;
        in.noisy.push_back(z);
        in.estimate.push_back(std::max(0.0, z));
    }
    in.cellNoise = NoiseDistribution::laplace(1 / eps);
    in.epsilon = eps;
    in.mechanismName = QStringLiteral("Laplace");
    return in;
}

void setDark(MainWindow& w, bool dark) {
    ui::ExplorerState s = w.document()->state();
    if (s.view.dark != dark) {
        s.view.dark = dark;
        (void)w.document()->apply(s, QStringLiteral("theme"));
    }
}

// Distinct colours in a picture (sampled every 3 pixels).
int colours(const QImage& img) {
    QSet<QRgb> seen;
    for (int y = 0; y < img.height(); y += 3) {
        for (int x = 0; x < img.width(); x += 3) {
            seen.insert(img.pixel(x, y));
        }
    }
    return static_cast<int>(seen.size());
}

}  // namespace

class TestTableWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tabInWindow();
    void screenshots();
};

void TestTableWindow::tabInWindow() {
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    TableTab* tab = w.tableView();
    QVERIFY(tab);
    QVERIFY(w.showTab(QStringLiteral("table")));
    QCOMPARE(w.tabs()->currentWidget(), tab);
    // Before the first release of the data (the event loop has not run yet): the empty state.
    QCOMPARE(tab->messageText(),
             QStringLiteral("Choose two or more columns in the data panel to see the table"));
    QVERIFY(w.currentPlot() == nullptr);
    // The window's release of its one-column example reaches the tab (its 1-D view).
    QVERIFY(dpx::ui::test::waitForData(w));
    QVERIFY(QTest::qWaitFor([&] { return w.currentPlot() != nullptr; }, 30000));
    tab->setInputs(release(shotTable(true), 1));
    QCOMPARE(w.currentPlot(), tab->heatmapPlot());
}

void TestTableWindow::screenshots() {
    const QString dir = qEnvironmentVariable("DPX_TABLE_SHOTS");
    const bool all = !dir.isEmpty();
    if (all) {
        QDir().mkpath(dir);
    }
    MainWindow w;
    w.show();
    // The window hands the tab its own release of the loaded data (the built-in example); the
    // pictures below are of hand-made inputs, given after that first release.
    QVERIFY(dpx::ui::test::waitForData(w));
    QVERIFY(w.showTab(QStringLiteral("table")));
    TableTab* tab = w.tableView();
    for (const bool skewed : {true, false}) {
        const ContingencyTable t = shotTable(skewed);
        for (const double eps : {0.01, 1.0, 10.0}) {
            for (const bool dark : {false, true}) {
                for (const QSize size : {QSize(1600, 1000), QSize(1024, 768)}) {
                    if (!all && (eps != 1.0 || dark || size.width() != 1600)) {
                        continue;
                    }
                    setDark(w, dark);
                    w.resize(size);
                    tab->setInputs(release(t, eps));
                    tab->setLogScale(skewed);
                    tab->selectBox(BinRange{10, 40}, BinRange{5, 30});
                    QVERIFY(QTest::qWaitFor([&] { return !tab->busy(); }, 60000));
                    QTest::qWait(100);
                    const QImage plot = tab->heatmapPlot()->grab().toImage();
                    QVERIFY2(colours(plot) > 50, qPrintable(QString::number(colours(plot))));
                    QVERIFY(tab->readout());
                    if (all) {
                        const QString name =
                            QStringLiteral("%1/table-%2-eps%3-%4-%5.png")
                                .arg(dir,
                                     skewed ? QStringLiteral("skewed") : QStringLiteral("sparse"))
                                .arg(eps)
                                .arg(dark ? QStringLiteral("dark") : QStringLiteral("light"))
                                .arg(size.width());
                        QVERIFY(w.grab().save(name));
                    }
                }
            }
        }
    }
    if (!all) {
        return;
    }
    // Three attributes (the marginals list) and one attribute (the bar view), light, 1600 × 1000.
    setDark(w, false);
    w.resize(1600, 1000);
    std::vector<Attribute> attrs;
    for (const auto& [name, n] :
         {std::pair<const char*, int>{"age", 40}, {"hours", 30}, {"sex", 2}}) {
        Attribute a;
        a.name = name;
        for (int i = 0; i < n; ++i) {
            a.labels.push_back(std::string(name) == "sex" ? (i ? "Male" : "Female")
                                                          : std::to_string(i * 2 + 17));
        }
        attrs.push_back(a);
    }
    std::vector<std::int64_t> counts(40 * 30 * 2);
    for (std::size_t c = 0; c < counts.size(); ++c) {
        counts[c] = static_cast<std::int64_t>(c * 7919 % 23);
    }
    const auto three = ContingencyTable::dense(attrs, counts);
    QVERIFY(three);
    tab->setInputs(release(*three, 0.5));
    tab->setLogScale(false);
    tab->selectBox(BinRange{5, 15}, BinRange{3, 9});
    QVERIFY(QTest::qWaitFor([&] { return !tab->busy(); }, 60000));
    QTest::qWait(100);
    QVERIFY(w.grab().save(dir + QStringLiteral("/table-k3.png")));
    const auto one = three->marginal(std::vector<std::size_t>{0});
    QVERIFY(one);
    tab->setInputs(release(*one, 0.5));
    tab->selectRange(BinRange{10, 20});
    QVERIFY(QTest::qWaitFor([&] { return !tab->busy(); }, 60000));
    QTest::qWait(100);
    QVERIFY(w.grab().save(dir + QStringLiteral("/table-k1.png")));
}

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    TestTableWindow t;
    return QTest::qExec(&t, argc, argv);
}

#include "tst_table_window.moc"
