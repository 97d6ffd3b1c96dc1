// Presentation mode and what a projector needs (issue #21): the presentation look is drawn and
// undone exactly (legends in a row of their own and light marker lines too); six distinct series
// colours and marker shapes; every tab and page presents its plot and saves PNG and a one-page
// PDF slide, its axis labels whole; ε follows the document; check boxes and radio buttons read
// on the dark theme and on the presentation's white. Split from tst_window_screens to keep each
// under a minute on two cores.
#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QLocale>
#include <QRadioButton>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSet>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleOption>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include "tests/ui/window_screens_support.h"
#include "tests/ui/window_test_support.h"
#include "ui/lessons/lesson_page.h"
#include "ui/lessons/lessons.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/tabs/histogram_tab.h"
#include "ui/widgets/axis_label.h"
#include "ui/widgets/log_slider_field.h"
#include "ui/widgets/presentation_view.h"
#include "ui/widgets/qcustomplot_include.h"

using namespace dpx;
using namespace dpx::ui;
using dpx::ui::test::kPages;
using dpx::ui::test::kTabs;
using dpx::ui::test::settle;

class TestWindowPresent : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QLocale::setDefault(QLocale::c());
        QStandardPaths::setTestModeEnabled(true);  // QSettings away from the user's own
    }

    // On the dark theme an unchecked check box or radio button shows its indicator: some pixel
    // of it is at least 3:1 against the window (WCAG 2.1, 1.4.11 non-text contrast). Fusion's
    // own, outlined in the window colour made darker and filled with the base colour, reaches
    // about 1.1:1 (the dark differencing lesson's ε radio buttons could not be seen).
    // The same on the presentation's white ground (Fusion's outline: about 2:1), where the
    // indicators also grow with the lesson's large type (they stayed at 14 px beside 36 px text).
    void indicatorsAreVisible_data() {
        QTest::addColumn<bool>("dark");
        QTest::addColumn<bool>("presentation");
        QTest::newRow("dark theme") << true << false;
        QTest::newRow("presentation") << false << true;
    }

    void indicatorsAreVisible() {
        QFETCH(bool, dark);
        QFETCH(bool, presentation);
        MainWindow::applyApplicationTheme(dark);
        const auto light = qScopeGuard([] { MainWindow::applyApplicationTheme(false); });
        // Relative luminance and contrast ratio as WCAG 2.1 defines them.
        const auto luminance = [](const QColor& c) {
            const auto lin = [](double v) {
                return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
            };
            return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
        };
        for (const bool radio : {false, true}) {
            QWidget host;
            if (presentation) {
                host.setPalette(PresentationView::presentationPalette(host.palette()));
                QFont big = host.font();
                big.setPixelSize(36);
                host.setFont(big);
            }
            QAbstractButton* b =
                radio
                    ? static_cast<QAbstractButton*>(new QRadioButton(QStringLiteral("0.1"), &host))
                    : new QCheckBox(QStringLiteral("Log y axis"), &host);
            b->adjustSize();
            host.resize(b->size());
            const QImage image = host.grab().toImage();
            QStyleOptionButton opt;
            opt.initFrom(b);
            const QRect indicator = b->style()->subElementRect(
                radio ? QStyle::SE_RadioButtonIndicator : QStyle::SE_CheckBoxIndicator, &opt, b);
            QVERIFY(!indicator.isEmpty());
            QVERIFY2(indicator.height() * 2 >= b->fontMetrics().height(),
                     qPrintable(QStringLiteral("a %1 px indicator beside %2 px text")
                                    .arg(indicator.height())
                                    .arg(b->fontMetrics().height())));
            const double window = luminance(host.palette().color(QPalette::Window));
            double best = 1;
            for (int y = indicator.top(); y <= indicator.bottom(); ++y) {
                for (int x = indicator.left(); x <= indicator.right(); ++x) {
                    const double l = luminance(image.pixelColor(x, y));
                    best =
                        std::max(best, (std::max(l, window) + 0.05) / (std::min(l, window) + 0.05));
                }
            }
            QVERIFY2(best >= 3, qPrintable(QStringLiteral("the %1's indicator reaches %2:1")
                                               .arg(radio ? QStringLiteral("radio button")
                                                          : QStringLiteral("check box"))
                                               .arg(best, 0, 'f', 2)));
        }
    }

    // In a presented lesson a spin box's up and down buttons are as wide as a line of its text
    // and their arrows grow with it: Fusion drew 14 px buttons with 8 px arrows whatever the font
    // (specks beside the randomized-response lesson's large type). Its number keeps its room.
    void spinBoxArrowsScaleInPresentation() {
        MainWindow::applyApplicationTheme(false);
        std::unique_ptr<LessonPage> page(createLesson(QStringLiteral("randomized-response")));
        QVERIFY(page);
        presentWindow(page.get(), true, QSize(1920, 1080));
        QVERIFY(QTest::qWaitForWindowExposed(page.get()));
        int checked = 0;
        for (int step = 0; step < page->stepCount(); ++step) {
            page->setStep(step);
            QApplication::processEvents();
            for (QSpinBox* box : page->findChildren<QSpinBox*>()) {
                if (!box->isVisible()) {
                    continue;
                }
                const int text = box->fontMetrics().height();
                QVERIFY2(text >= 30, qPrintable(QString::number(text)));  // presentation type
                QStyleOptionSpinBox opt;
                opt.initFrom(box);
                opt.buttonSymbols = box->buttonSymbols();
                opt.frame = box->hasFrame();
                opt.subControls = QStyle::SC_SpinBoxFrame | QStyle::SC_SpinBoxEditField |
                                  QStyle::SC_SpinBoxUp | QStyle::SC_SpinBoxDown;
                opt.stepEnabled =
                    QAbstractSpinBox::StepUpEnabled | QAbstractSpinBox::StepDownEnabled;
                const QRect up = box->style()->subControlRect(QStyle::CC_SpinBox, &opt,
                                                              QStyle::SC_SpinBoxUp, box);
                QVERIFY2(up.width() >= text && up.height() * 2 >= text * 4 / 5,
                         qPrintable(QStringLiteral("%1: a %2×%3 up button beside %4 px text")
                                        .arg(box->objectName())
                                        .arg(up.width())
                                        .arg(up.height())
                                        .arg(text)));
                // The arrow as drawn: the dark pixels in the up button (black on the white
                // presentation ground), at least 2/5 of a line of text wide.
                const QImage image = box->grab().toImage();
                int left = up.right(), right = up.left() - 1;
                for (int y = up.top(); y <= up.bottom(); ++y) {
                    for (int x = up.left(); x <= up.right(); ++x) {
                        if (qGray(image.pixel(x, y)) < 96) {
                            left = std::min(left, x);
                            right = std::max(right, x);
                        }
                    }
                }
                QVERIFY2(right - left + 1 >= text * 2 / 5,
                         qPrintable(QStringLiteral("%1: the up arrow is %2 px wide beside %3 px "
                                                   "text")
                                        .arg(box->objectName())
                                        .arg(std::max(0, right - left + 1))
                                        .arg(text)));
                // The buttons took their width from the box, not from its number.
                const auto* edit = box->findChild<QLineEdit*>();
                QVERIFY(edit);
                QVERIFY(edit->width() >= edit->fontMetrics().horizontalAdvance(box->text()));
                ++checked;
            }
        }
        QVERIFY(checked > 0);
    }

    // The presentation look changes the plot only while it draws: thick lines, large type, white
    // ground; undone exactly.
    void presentationLookIsUndone() {
        QCustomPlot plot;
        plot.resize(400, 300);
        QCPGraph* g = plot.addGraph();
        g->setPen(QPen(QColor(200, 200, 50), 1));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
        g->setData({0, 1, 2}, {1, 3, 2});
        plot.xAxis->setLabel(QStringLiteral("x"));
        const QFont labelFont = plot.xAxis->labelFont();
        // A legend in a row of its own under the axis rect (the Trade-off tab's) is restyled too.
        plot.legend->setVisible(true);
        plot.axisRect()->insetLayout()->take(plot.legend);
        plot.plotLayout()->addElement(1, 0, plot.legend);
        const QFont legendFont = plot.legend->item(0)->font();
        // A marker line drawn light for the dark theme (the Trade-off tab's current ε) is black
        // on the white slide (it vanished).
        auto* marker = new QCPItemStraightLine(&plot);
        marker->setPen(QPen(QColor(200, 200, 200), 1, Qt::DashLine));
        const auto undo = PresentationView::applyPresentationLook(&plot, 1080);
        QCOMPARE(marker->pen().color(), QColor(Qt::black));
        QVERIFY(plot.legend->item(0)->font().pixelSize() >= 20);
        QVERIFY(g->pen().widthF() >= 3);
        QCOMPARE(g->pen().color(), QColor(Qt::black));  // the first series: black
        QVERIFY(g->scatterStyle().size() >= 10);
        QVERIFY(plot.xAxis->labelFont().pixelSize() >= 30);  // 1080 / 30 = 36 px
        undo();
        QCOMPARE(g->pen(), QPen(QColor(200, 200, 50), 1));
        QCOMPARE(g->scatterStyle().size(), 5.0);
        QCOMPARE(plot.xAxis->labelFont(), labelFont);
        QCOMPARE(plot.legend->item(0)->font(), legendFont);
        QCOMPARE(marker->pen(), QPen(QColor(200, 200, 200), 1, Qt::DashLine));
    }

    // Six series on a slide: six distinct colours (none repeats before the seventh, the old
    // palette repeated after three), each at least 4:1 against the white (WCAG 2.1) and at least
    // 50 apart in CIELAB (ΔE*ab 1976, D65, sRGB: the textbook conversion written out here), and
    // each series with markers gets a marker shape of its own.
    void presentationPaletteHasSixSeries() {
        const std::vector<QColor> colours = PresentationView::presentationSeriesColors();
        QVERIFY(colours.size() >= 6);
        const auto lin = [](double v) {
            return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
        };
        const auto lab = [&](const QColor& c) {
            const double r = lin(c.redF()), g = lin(c.greenF()), b = lin(c.blueF());
            const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
            const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
            const double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
            const auto f = [](double t) {
                return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116.0;
            };
            return std::array<double, 3>{116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
        };
        for (std::size_t i = 0; i < colours.size(); ++i) {
            const QColor& c = colours[i];
            const double l =
                0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
            QVERIFY2((1.05) / (l + 0.05) >= 4.0, qPrintable(c.name()));
            for (std::size_t j = 0; j < i; ++j) {
                const auto a = lab(c);
                const auto b = lab(colours[j]);
                const double d = std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
                QVERIFY2(d >= 50, qPrintable(QStringLiteral("%1 and %2: ΔE %3")
                                                 .arg(c.name(), colours[j].name())
                                                 .arg(d)));
            }
        }
        // Seven series of seven colours with markers (the Trade-off tab's curves): the first six
        // get the six colours, solid, and six different marker shapes; the seventh is dashed.
        QCustomPlot plot;
        plot.resize(400, 300);
        for (int k = 0; k < 7; ++k) {
            QCPGraph* g = plot.addGraph();
            g->setPen(QPen(QColor::fromHsv(k * 50, 200, 200), 1));
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
            g->setData({0, 1}, {double(k), double(k + 1)});
        }
        const auto undo = PresentationView::applyPresentationLook(&plot, 1080);
        QSet<QRgb> seen;
        QSet<int> shapes;
        for (int k = 0; k < 6; ++k) {
            seen.insert(plot.graph(k)->pen().color().rgb());
            shapes.insert(static_cast<int>(plot.graph(k)->scatterStyle().shape()));
            QCOMPARE(plot.graph(k)->pen().style(), Qt::SolidLine);
        }
        QCOMPARE(seen.size(), 6);
        QCOMPARE(shapes.size(), 6);
        QCOMPARE(plot.graph(6)->pen().color(), plot.graph(0)->pen().color());
        QCOMPARE(plot.graph(6)->pen().style(), Qt::DashLine);
        undo();
        QCOMPARE(plot.graph(3)->scatterStyle().shape(), QCPScatterStyle::ssCircle);
    }

    // Every tab and page presents its plot: the presentation shows the tab's current plot, and
    // its PNG and PDF slide are drawn (not one colour). Also when the presentation opened before
    // the tab had its plot (the Mechanism matrix tab shows a message until the mechanism is
    // computed; --present --tab matrix showed "This tab has no plot to present").
    void everyTabPresents() {
        const QSize kSlide(1920, 1080);
        MainWindow w;
        w.resize(1024, 768);
        QVERIFY(w.showTab(QStringLiteral("matrix")));
        w.show();
        w.setPresenting(true, QSize(800, 450));
        QVERIFY(test::waitForData(w));
        QTRY_VERIFY(w.presentation()->source() != nullptr);
        QCOMPARE(w.presentation()->source(), w.currentPlot());
        w.setPresenting(false);
        QTemporaryDir dir;
        for (const QString& tab : kTabs + kPages) {
            QVERIFY(w.showTab(tab));
            settle(w);
            QVERIFY2(w.currentPlot(), qPrintable(tab + QStringLiteral(" has no plot")));
            // The size of the classroom's projector (issue #21): the labels are checked as the
            // slide draws them there.
            w.setPresenting(true, kSlide);
            PresentationView* p = w.presentation();
            QVERIFY(p);
            QCOMPARE(p->source(), w.currentPlot());
            // Every axis label fits its axis as drawn on the slide (the local-DP pages' y-labels
            // ran past the plot in the presentation's type): checked after each layout, when the
            // labels have been fitted.
            QStringList cutLabels;
            QCustomPlot* plot = w.currentPlot();
            const auto checkLabels = connect(plot, &QCustomPlot::afterLayout, this, [&] {
                for (QCPAxisRect* rect : plot->axisRects()) {
                    for (QCPAxis* axis : rect->axes()) {
                        if (!axisLabelFits(axis)) {
                            cutLabels << axis->label();
                        }
                    }
                }
            });
            const QString png = dir.filePath(tab + QStringLiteral(".png"));
            const QString pdf = dir.filePath(tab + QStringLiteral(".pdf"));
            QCOMPARE(p->savePng(png), QString());
            QCOMPARE(p->savePdf(pdf), QString());
            const QImage image(png);
            QCOMPARE(image.size(), kSlide);
            QSet<QRgb> colours;
            for (int y = 0; y < image.height(); y += 3) {
                for (int x = 0; x < image.width(); x += 3) {
                    colours.insert(image.pixel(x, y));
                }
            }
            QVERIFY2(colours.size() > 20, qPrintable(tab + QStringLiteral(": a blank slide")));
            QFile f(pdf);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray bytes = f.readAll();
            QVERIFY(bytes.startsWith("%PDF-"));
            // One slide: one "/Type /Page" object (not "/Pages"), as pdfinfo counts them.
            static const QRegularExpression page(QStringLiteral("/Type\\s*/Page(?![a-zA-Z])"));
            QCOMPARE(QString::fromLatin1(bytes).count(page), 1);
            disconnect(checkLabels);
            QVERIFY2(cutLabels.isEmpty(),
                     qPrintable(tab + QStringLiteral(": axis labels cut on the slide: ") +
                                cutLabels.join(QStringLiteral("; "))));
            w.setPresenting(false);
            QTRY_VERIFY(!w.presentation());
        }
    }

    // F5 on the window: the tab's plot on a screen of its own; ε there is the document's; PNG and
    // PDF are written; leaving restores the window.
    void presentationMode() {
        MainWindow w;
        w.show();
        QVERIFY(test::waitForData(w));
        QVERIFY(w.showTab(QStringLiteral("histogram")));
        QCustomPlot* plot = w.histogramView()->plot();
        QVERIFY(plot->graphCount() + plot->plottableCount() > 0);
        const QPen pen = plot->plottable(0)->pen();
        w.setPresenting(true, QSize(1280, 720));
        PresentationView* p = w.presentation();
        QVERIFY(p);
        QVERIFY(QTest::qWaitForWindowExposed(p));
        QTRY_VERIFY(!p->picture().isNull());
        QCOMPARE(p->source(), plot);
        QCOMPARE(plot->plottable(0)->pen(), pen);  // the tab's own look is untouched
        QCOMPARE(p->epsilonField()->value(), w.document()->state().mechanism.epsilon);
        // ε typed in the presentation is the document's; the document's shows there.
        Q_EMIT p->epsilonField()->valueEdited(0.5, false);
        QCOMPARE(w.document()->state().mechanism.epsilon, 0.5);
        QVERIFY(w.document()->setEpsilon(2));
        QCOMPARE(p->epsilonField()->value(), 2.0);
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("slide.png"));
        const QString pdf = dir.filePath(QStringLiteral("slide.pdf"));
        QCOMPARE(p->savePng(png), QString());
        QCOMPARE(p->savePdf(pdf), QString());
        QImage image(png);
        QCOMPARE(image.size(), QSize(1280, 720));
        QFile f(pdf);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.read(5) == "%PDF-");
        QTest::keyClick(p, Qt::Key_Escape);
        QTRY_VERIFY(!w.presentation());
    }
};

QTEST_MAIN(TestWindowPresent)
#include "tst_window_present.moc"
