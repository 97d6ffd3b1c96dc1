// The "Errors" tab driven offscreen: cell texts (exact, Monte Carlo ± half-width, pending,
// unavailable), the bold best value, units per scale, CSV round trip, selection → histogram
// (shares summing to 1, expected / realized lines where given), the scale toggle and Ctrl+C.
// renderScreenshot writes /tmp/errors_view.png with realistic data for a visual check.
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QLabel>
#include <QLocale>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <cmath>
#include <limits>
#include <random>
#include "ui/widgets/qcustomplot_include.h"

#include "ui/tabs/errors_tab.h"

using dpx::EstimatorKind;
using dpx::Metric;
using dpx::Scale;
using dpx::ui::ErrorCellData;
using dpx::ui::ErrorsData;
using dpx::ui::ErrorsTab;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

ErrorCellData exactCell(double realized, double expected, const char* method) {
    ErrorCellData c;
    c.realized = realized;
    c.expected = expected;
    c.exact = true;
    c.method = QString::fromUtf8(method);
    return c;
}

ErrorCellData mcCell(double realized, double expected, double halfWidth) {
    ErrorCellData c;
    c.realized = realized;
    c.expected = expected;
    c.halfWidth = halfWidth;
    c.method = QStringLiteral("Monte Carlo");
    return c;
}

// 3 estimators × 2 metrics with known numbers. Expected SSE: identity 400 (exact), clamp
// 247.5069053213896 (exact, best), resize 300.1234 ± 2.4 (MC); expected L1: identity 20 (exact),
// clamp 12.3412 ± 0.0513 (MC, best), resize unavailable.
ErrorsData smallData() {
    ErrorsData d;
    d.estimators = {EstimatorKind::Identity, EstimatorKind::Clamp, EstimatorKind::Resize};
    d.metrics = {Metric::SSE, Metric::L1};
    d.cells = {
        {exactCell(512.25, 400, "exact (closed form)"), exactCell(22.5, 20, "exact (closed form)")},
        {exactCell(260.75, 247.5069053213896, "exact (quadrature)"), mcCell(13.5, 12.3412, 0.0513)},
        {mcCell(310.0, 300.1234, 2.4), ErrorCellData{14.25, kNaN, 0, QString(), false}},
    };
    d.trials = 20000;
    return d;
}

std::vector<double> gammaSamples(double shape, double mean, std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::gamma_distribution<double> g(shape, mean / shape);
    std::vector<double> v(n);
    for (double& x : v) {
        x = g(rng);
    }
    return v;
}

QString cellText(QTableWidget* t, int r, int c) {
    return t->item(r, c) ? t->item(r, c)->text() : QStringLiteral("<null>");
}
}  // namespace

class TestErrorsView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }

    void formatting() {
        using dpx::ui::formatErrorValue;
        using dpx::ui::formatWithHalfWidth;
        QCOMPARE(formatErrorValue(247.5069053213896), QStringLiteral("247.507"));
        QCOMPARE(formatErrorValue(400), QStringLiteral("400"));
        QCOMPARE(formatErrorValue(0.0123456789), QStringLiteral("0.0123457"));
        QCOMPARE(formatErrorValue(4.0123456e-5), QStringLiteral("4.01235×10⁻⁵"));
        QCOMPARE(formatErrorValue(kNaN), QStringLiteral("—"));
        QCOMPARE(formatWithHalfWidth(12.3412, 0.0513), QStringLiteral("12.34 ± 0.05"));
        QCOMPARE(formatWithHalfWidth(12.3412, 0.0153), QStringLiteral("12.341 ± 0.015"));
        QCOMPARE(formatWithHalfWidth(300.1234, 2.4), QStringLiteral("300.1 ± 2.4"));
        QCOMPARE(formatWithHalfWidth(4.0123e-4, 5.1e-7), QStringLiteral("(4.012 ± 0.005)×10⁻⁴"));
        QCOMPARE(formatWithHalfWidth(5.5, 0), QStringLiteral("5.5"));
    }

    void tableTexts() {
        ErrorsTab v;
        v.setData(smallData());
        QTableWidget* t = v.table();
        QCOMPARE(t->rowCount(), 3);
        QCOMPARE(t->columnCount(), 4);
        QCOMPARE(t->verticalHeaderItem(1)->text(), QStringLiteral("Clamp"));
        QVERIFY(
            t->verticalHeaderItem(1)->toolTip().startsWith(QStringLiteral("Clamp negatives to 0")));
        // realized (this draw) columns 0, 2; expected columns 1, 3.
        QCOMPARE(cellText(t, 0, 0), QStringLiteral("512.25"));
        QCOMPARE(cellText(t, 0, 1), QStringLiteral("400"));
        QCOMPARE(cellText(t, 1, 1), QStringLiteral("247.507"));
        QCOMPARE(cellText(t, 2, 1), QStringLiteral("300.1 ± 2.4"));
        QCOMPARE(cellText(t, 1, 3), QStringLiteral("12.34 ± 0.05"));
        QCOMPARE(cellText(t, 2, 2), QStringLiteral("14.25"));
        QCOMPARE(cellText(t, 2, 3), QStringLiteral("—"));  // not refining: unavailable
        QVERIFY(t->item(2, 3)->toolTip().startsWith(QStringLiteral("Not available")));
        QVERIFY(t->item(1, 1)->toolTip().contains(QStringLiteral("exact (quadrature)")));
        QVERIFY(t->item(1, 3)->toolTip().contains(QStringLiteral("Monte Carlo")));
        QVERIFY(t->item(1, 3)->toolTip().contains(QStringLiteral("20\u202F000 trials")));
        QVERIFY(t->item(0, 1)->textAlignment() & Qt::AlignRight);

        // Best expected value per metric in bold, nothing else; no "best" L1 while the resize
        // value is missing.
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 4; ++c) {
                QCOMPARE(t->item(r, c)->font().bold(), r == 1 && c == 1);
            }
        }
        ErrorsData all = smallData();
        all.cells[2][1] = mcCell(14.25, 15.5, 0.2);
        v.setData(all);
        for (int r = 0; r < 3; ++r) {
            QCOMPARE(t->item(r, 3)->font().bold(), r == 1);
        }
        QVERIFY(t->item(1, 3)->toolTip().contains(QStringLiteral("Lowest expected L1")));

        // Units per scale in the headers.
        QVERIFY(t->horizontalHeaderItem(0)->text().contains(QStringLiteral("SSE (counts²)")));
        QVERIFY(t->horizontalHeaderItem(1)->text().contains(QStringLiteral("expected")));
        QVERIFY(t->horizontalHeaderItem(2)->text().contains(QStringLiteral("L1 (counts)")));
        ErrorsData f = smallData();
        f.scale = Scale::Frequencies;
        f.refining = true;
        v.setData(f);
        QVERIFY(t->horizontalHeaderItem(0)->text().contains(QStringLiteral("SSE (frequency²)")));
        QVERIFY(t->horizontalHeaderItem(3)->text().contains(QStringLiteral("L1 (frequency)")));
        QVERIFY(v.findChild<QRadioButton*>(QStringLiteral("frequenciesRadio"))->isChecked());
        // Refining: the missing value is pending, not unavailable.
        QCOMPARE(cellText(t, 2, 3), QStringLiteral("…"));
        QVERIFY(v.statusLabel()->text().contains(QStringLiteral("refining")));

        // Tiny values (frequency SSE) are shown in units of 10^-6 frequency².
        ErrorsData tiny = f;
        tiny.refining = false;
        for (auto& row : tiny.cells) {
            row[0].realized *= 1e-6;
            row[0].expected *= 1e-6;
            row[0].halfWidth *= 1e-6;
        }
        v.setData(tiny);
        QVERIFY(
            t->horizontalHeaderItem(1)->text().contains(QStringLiteral("SSE (10⁻⁶ frequency²)")));
        QCOMPARE(cellText(t, 0, 1), QStringLiteral("400"));
        QCOMPARE(cellText(t, 2, 1), QStringLiteral("300.1 ± 2.4"));
        QVERIFY(t->item(0, 1)->toolTip().contains(QStringLiteral("0.0004 frequency²")));
        QVERIFY(t->horizontalHeaderItem(3)->text().contains(QStringLiteral("L1 (frequency)")));

        // Error state: no numbers.
        v.setMessage(QStringLiteral("ε must be positive"));
        QCOMPARE(cellText(t, 0, 1), QStringLiteral("—"));
        QCOMPARE(t->item(0, 1)->toolTip(), QStringLiteral("ε must be positive"));
        QVERIFY(v.statusLabel()->text().contains(QStringLiteral("ε must be positive")));
        QCOMPARE(v.histogramPlot()->plottableCount(), 0);
    }

    void csvRoundTrip() {
        ErrorsData d = smallData();
        d.cells[0][0].realized = 1234.56789012345;
        d.cells[2][0].expected = 3.14159265358979e-7;
        d.cells[2][0].halfWidth = 1.2345678901e-9;
        ErrorsTab v;
        v.setData(d);
        const QStringList lines = v.toCsv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 4);  // header + 3 estimators
        const QStringList head = lines[0].split(QLatin1Char(','));
        QCOMPARE(head.size(), 3 + 2 * 4);
        QCOMPARE(head[3], QStringLiteral("SSE realized (counts²)"));
        QCOMPARE(head[4], QStringLiteral("SSE expected (counts²)"));
        QCOMPARE(head[5], QStringLiteral("SSE 95% half-width"));
        auto field = [&](int row, int col) { return lines[row].split(QLatin1Char(','))[col]; };
        auto near = [](const QString& s, double want) {
            bool ok = false;
            const double got = s.toDouble(&ok);
            return ok && std::fabs(got - want) <= 1e-9 * std::fabs(want);
        };
        QCOMPARE(field(1, 0), QStringLiteral("Identity (raw noisy counts)"));
        QCOMPARE(field(1, 1), QStringLiteral("counts"));
        QCOMPARE(field(1, 2), QStringLiteral("20000"));
        QVERIFY(near(field(1, 3), 1234.56789012345));
        QCOMPARE(field(1, 3), QStringLiteral("1234.56789"));  // 10 significant digits
        QVERIFY(near(field(1, 4), 400));
        QCOMPARE(field(1, 5), QStringLiteral("0"));  // exact: no half-width
        QCOMPARE(field(1, 6), QStringLiteral("exact (closed form)"));
        QVERIFY(near(field(2, 4), 247.5069053213896));
        QVERIFY(near(field(2, 8), 12.3412));
        QVERIFY(near(field(2, 9), 0.0513));
        QVERIFY(near(field(3, 4), 3.14159265358979e-7));
        QVERIFY(near(field(3, 5), 1.2345678901e-9));
        QCOMPARE(field(3, 8), QString());  // unavailable: empty field
        QVERIFY(near(field(3, 7), 14.25));
    }

    void selectionRebuildsHistogram() {
        ErrorsData d = smallData();
        const std::size_t n = 5000;
        d.samples.assign(3, std::vector<std::vector<double>>(2));
        for (std::size_t e = 0; e < 3; ++e) {
            for (std::size_t m = 0; m < 2; ++m) {
                d.samples[e][m] = gammaSamples(2.0 + static_cast<double>(e),
                                               d.cells[0][m].expected * (1.0 + 0.3 * double(e)), n,
                                               static_cast<std::uint32_t>(10 * e + m));
            }
        }
        d.trials = static_cast<qint64>(n);
        ErrorsTab v;
        v.resize(900, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.setData(d);
        QSignalSpy spy(&v, &ErrorsTab::selectionChanged);
        QTableWidget* t = v.table();
        // Click the realized L1 cell of Clamp (row 1, column 2).
        const QRect rect = t->visualItemRect(t->item(1, 2));
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, rect.center());
        QCOMPARE(spy.size(), 1);
        QCOMPARE(spy[0][0].value<EstimatorKind>(), EstimatorKind::Clamp);
        QCOMPARE(spy[0][1].value<Metric>(), Metric::L1);
        QCOMPARE(v.selectedEstimator(), EstimatorKind::Clamp);
        // The expected cell of the same pair: same selection, no new signal.
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {},
                          t->visualItemRect(t->item(1, 3)).center());
        QCOMPARE(spy.size(), 1);

        const std::vector<double>& s = d.samples[1][1];
        QCustomPlot* p = v.histogramPlot();
        auto* bars = p->findChild<QCPBars*>(QStringLiteral("histogramBars"));
        QVERIFY(bars);
        double sum = 0;
        double mean = 0;
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) {
            QVERIFY(it->value >= 0);
            sum += it->value;
            mean += it->value * it->key;
        }
        QVERIFY(std::fabs(sum - 1) < 1e-12);
        QVERIFY(bars->data()->size() >= 10 && bars->data()->size() <= 80);
        double want = 0;
        for (double x : s) {
            want += x / static_cast<double>(s.size());
        }
        // Bin centres shift the mean by at most half a bin width.
        QVERIFY2(std::fabs(mean - want) <= bars->width() / 2,
                 qPrintable(QStringLiteral("%1 vs %2").arg(mean).arg(want)));
        const auto [mn, mx] = std::minmax_element(s.begin(), s.end());
        QVERIFY(p->xAxis->range().lower <= *mn);
        QVERIFY(p->xAxis->range().upper >= *mx);
        QVERIFY(p->xAxis->label().contains(QStringLiteral("L1 (counts)")));

        auto* expected = p->findChild<QCPGraph*>(QStringLiteral("expectedLine"));
        auto* realized = p->findChild<QCPGraph*>(QStringLiteral("realizedLine"));
        QVERIFY(expected && realized);
        QCOMPARE(expected->data()->size(), 2);
        for (auto it = expected->data()->constBegin(); it != expected->data()->constEnd(); ++it) {
            QCOMPARE(it->key, 12.3412);
        }
        for (auto it = realized->data()->constBegin(); it != realized->data()->constEnd(); ++it) {
            QCOMPARE(it->key, 13.5);
        }
        QCOMPARE(realized->pen().style(), Qt::DashLine);
        QCOMPARE(expected->pen().style(), Qt::SolidLine);

        // Programmatic selection: histogram follows, no signal.
        QVERIFY(v.select(EstimatorKind::Resize, Metric::SSE));
        QCOMPARE(spy.size(), 1);
        bars = p->findChild<QCPBars*>(QStringLiteral("histogramBars"));
        QVERIFY(bars);
        QVERIFY(p->xAxis->range().upper >=
                *std::max_element(d.samples[2][0].begin(), d.samples[2][0].end()));
        QVERIFY(p->xAxis->label().contains(QStringLiteral("SSE (counts²)")));
        // setData keeps the selection.
        v.setData(d);
        QCOMPARE(v.selectedEstimator(), EstimatorKind::Resize);
        QCOMPARE(v.selectedMetric(), Metric::SSE);
        QCOMPARE(t->currentRow(), 2);

        // No samples: the empty-state message, no bars.
        d.samples.clear();
        v.setData(d);
        QVERIFY(!p->findChild<QCPBars*>(QStringLiteral("histogramBars")));
        auto* msg = p->findChild<QCPItemText*>();
        QVERIFY(msg && msg->visible());
        QVERIFY(msg->text().contains(QStringLiteral("appear here")));
    }

    void scaleToggle() {
        ErrorsTab v;
        v.setData(smallData());
        QSignalSpy spy(&v, &ErrorsTab::scaleToggled);
        auto* freq = v.findChild<QRadioButton*>(QStringLiteral("frequenciesRadio"));
        auto* counts = v.findChild<QRadioButton*>(QStringLiteral("countsRadio"));
        QVERIFY(freq && counts);
        freq->click();
        QCOMPARE(spy.size(), 1);
        QCOMPARE(spy[0][0].value<Scale>(), Scale::Frequencies);
        freq->click();  // already selected: nothing new
        QCOMPARE(spy.size(), 1);
        v.setScale(Scale::Counts);
        QCOMPARE(spy.size(), 1);
        QVERIFY(counts->isChecked());
        QCOMPARE(v.scale(), Scale::Counts);
        v.setScale(Scale::Frequencies);
        QVERIFY(freq->isChecked());
        QCOMPARE(spy.size(), 1);
        counts->click();
        QCOMPARE(spy.size(), 2);
        QCOMPARE(spy[1][0].value<Scale>(), Scale::Counts);
    }

    void copySelection() {
        ErrorsTab v;
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.setData(smallData());
        QTableWidget* t = v.table();
        t->setFocus();
        t->clearSelection();
        t->setRangeSelected(QTableWidgetSelectionRange(0, 1, 1, 3), true);
        QApplication::clipboard()->setText(QStringLiteral("unchanged"));
        QTest::keyClick(t, Qt::Key_C, Qt::ControlModifier);
        QCOMPARE(QApplication::clipboard()->text(),
                 QStringLiteral("400\t22.5\t20\n247.507\t13.5\t12.34 ± 0.05"));

        // A group shown in units of 10⁻⁶ copies the unscaled values.
        ErrorsData tiny = smallData();
        for (auto& row : tiny.cells) {
            row[0].realized *= 1e-6;
            row[0].expected *= 1e-6;
            row[0].halfWidth *= 1e-6;
        }
        v.setData(tiny);
        QCOMPARE(t->item(0, 1)->text(), QStringLiteral("400"));
        t->clearSelection();
        t->setRangeSelected(QTableWidgetSelectionRange(0, 1, 2, 1), true);
        QTest::keyClick(t, Qt::Key_C, Qt::ControlModifier);
        QCOMPARE(QApplication::clipboard()->text(),
                 QStringLiteral("4×10⁻⁴\n2.47507×10⁻⁴\n(3.001 ± 0.024)×10⁻⁴"));
    }

    // Realistic data: 4 estimators × 4 metrics, 20 000 samples per error, written to
    // /tmp/errors_view.png for a visual check.
    void renderScreenshot() {
        const std::size_t n = 20000;
        ErrorsData d;
        d.estimators = {EstimatorKind::Identity, EstimatorKind::Clamp, EstimatorKind::Resize,
                        EstimatorKind::NoiseFirst};
        d.metrics = {Metric::SSE, Metric::L1, Metric::LInf, Metric::W1};
        // Shapes and means per [estimator][metric]; exact where the core has a method.
        const double shape[4][4] = {
            {2, 11, 6, 8}, {2.2, 12, 6.5, 8}, {2.5, 12, 6, 9}, {1.6, 8, 5, 6}};
        const double mean[4][4] = {{2000, 112.8, 29.29, 31.6},
                                   {1512.4, 95.1, 27.9, 28.4},
                                   {1398.2, 90.4, 26.8, 25.2},
                                   {1104.7, 83.2, 28.6, 22.9}};
        const bool exact[4][4] = {{true, true, true, false},
                                  {true, true, true, false},
                                  {false, false, false, false},
                                  {false, false, false, false}};
        d.cells.assign(4, std::vector<ErrorCellData>(4));
        d.samples.assign(4, std::vector<std::vector<double>>(4));
        for (std::size_t e = 0; e < 4; ++e) {
            for (std::size_t m = 0; m < 4; ++m) {
                auto s = gammaSamples(shape[e][m], mean[e][m], n,
                                      static_cast<std::uint32_t>(100 + 4 * e + m));
                double avg = 0;
                double sq = 0;
                for (double x : s) {
                    avg += x;
                    sq += x * x;
                }
                avg /= double(n);
                const double sd = std::sqrt(sq / double(n) - avg * avg);
                ErrorCellData& c = d.cells[e][m];
                c.realized = s[7];
                if (exact[e][m]) {
                    c.exact = true;
                    c.expected = mean[e][m];
                    c.method = m == 2 ? QStringLiteral("exact (quadrature)")
                                      : QStringLiteral("exact (closed form)");
                } else {
                    c.expected = avg;
                    c.halfWidth = 1.96 * sd / std::sqrt(double(n));
                    c.method = QStringLiteral("Monte Carlo");
                }
                d.samples[e][m] = std::move(s);
            }
        }
        d.trials = static_cast<qint64>(n);
        d.refining = true;
        d.note =
            QStringLiteral("Resize and NoiseFirst on 12 bins, Wasserstein-1: Monte Carlo only");
        ErrorsTab v;
        v.resize(1100, 700);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.setData(d);
        QVERIFY(v.select(EstimatorKind::Clamp, Metric::SSE));
        QApplication::processEvents();
        QVERIFY(v.grab().save(QStringLiteral("/tmp/errors_view.png")));
        QVERIFY(QFile::exists(QStringLiteral("/tmp/errors_view.png")));

        // Variants for the visual check: frequency scale (N = 1000) in a dark palette, and the
        // state before any Monte Carlo sample.
        ErrorsData f = d;
        f.scale = Scale::Frequencies;
        for (std::size_t e = 0; e < 4; ++e) {
            for (std::size_t m = 0; m < 4; ++m) {
                const double k = m == 0 ? 1e-6 : m == 3 ? 1.0 : 1e-3;
                ErrorCellData& c = f.cells[e][m];
                c.realized *= k;
                c.expected *= k;
                c.halfWidth *= k;
                for (double& x : f.samples[e][m]) {
                    x *= k;
                }
            }
        }
        f.refining = false;
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(45, 45, 48));
        dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
        dark.setColor(QPalette::Base, QColor(30, 30, 32));
        dark.setColor(QPalette::AlternateBase, QColor(40, 40, 44));
        dark.setColor(QPalette::Text, QColor(230, 230, 230));
        dark.setColor(QPalette::Button, QColor(55, 55, 58));
        dark.setColor(QPalette::ButtonText, QColor(230, 230, 230));
        dark.setColor(QPalette::Mid, QColor(90, 90, 95));
        dark.setColor(QPalette::PlaceholderText, QColor(160, 160, 160));
        v.setPalette(dark);
        v.setData(f);
        QApplication::processEvents();
        QVERIFY(v.grab().save(QStringLiteral("/tmp/errors_view_dark_frequencies.png")));
        v.setPalette(QPalette());
        ErrorsData empty = d;
        empty.samples.clear();
        empty.trials = 0;
        for (auto& row : empty.cells) {
            for (auto& c : row) {
                if (!c.exact) {
                    c.expected = kNaN;
                }
            }
        }
        v.setData(empty);
        QApplication::processEvents();
        QVERIFY(v.grab().save(QStringLiteral("/tmp/errors_view_empty.png")));
    }
};

QTEST_MAIN(TestErrorsView)
#include "tst_errors_tab.moc"
