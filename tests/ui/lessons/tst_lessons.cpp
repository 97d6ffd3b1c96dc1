// The classroom lessons (ui/lessons/, issue #21), offscreen: each lesson's numbers equal core's
// (the interval of lesson 1, the attack success and bound of lesson 2, the region and the Laplace
// curve of lesson 3, the repeated-question attack and budgets of lesson 4, the tracing attack's
// AUCs and bound of lesson 5, the exact errors of lesson 6 with the values of docs/user-guide.md),
// stepping with the buttons and the arrow keys, the slide export (one PDF page and one PNG per
// step, pages counted in the PDF), and `dpexplorer --lesson` with good and unknown names.
#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

#include "core/accuracy/expected_error.h"
#include "core/choosing/risk.h"
#include "core/teaching/teaching.h"
#include "ui/lessons/composition_lesson.h"
#include "ui/lessons/differencing_lesson.h"
#include "ui/lessons/lessons.h"
#include "ui/lessons/membership_lesson.h"
#include "ui/lessons/post_processing_lesson.h"
#include "ui/lessons/randomized_response_lesson.h"
#include "ui/lessons/what_epsilon_lesson.h"
#include "ui/widgets/number_format.h"

using namespace dpx;
using namespace dpx::ui;

namespace {

template <class T>
std::unique_ptr<T> make(const char* name) {
    auto* page = qobject_cast<T*>(createLesson(QString::fromLatin1(name)));
    return std::unique_ptr<T>(page);
}

QString pct(double share) {
    return LessonPage::percentText(share);
}

// "/Type /Page" objects (not "/Pages") in a PDF file.
int pdfPageCount(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return -1;
    }
    const QString text = QString::fromLatin1(f.readAll());
    static const QRegularExpression page(QStringLiteral("/Type\\s*/Page(?![a-zA-Z])"));
    return static_cast<int>(text.count(page));
}

}  // namespace

class TstLessons : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void catalogue() {
        QCOMPARE(lessonNames(),
                 QStringLiteral("randomized-response, differencing, what-epsilon-means, "
                                "composition, membership, post-processing"));
        for (const LessonInfo& l : lessonCatalogue()) {
            std::unique_ptr<LessonPage> page(createLesson(l.name));
            QVERIFY(page);
            QVERIFY(!l.goal.isEmpty());
            QVERIFY(page->stepCount() >= 3);
            QCOMPARE(page->step(), 0);
            QVERIFY(!page->narrativeText().isEmpty());
        }
        QVERIFY(createLesson(QStringLiteral("tracing")) == nullptr);
        const QString m = unknownLessonMessage(QStringLiteral("nope"));
        QVERIFY(m.contains(QStringLiteral("'nope'")));
        QVERIFY(m.contains(lessonNames()));
    }

    void helpLessonsList() {
        // Help ▸ Lessons: every lesson with its goal; activating one opens it in its own window.
        LessonsDialog d;
        QCOMPARE(d.list()->count(), static_cast<int>(lessonCatalogue().size()));
        for (int i = 0; i < d.list()->count(); ++i) {
            QVERIFY(d.list()->item(i)->text().contains(
                lessonCatalogue()[static_cast<std::size_t>(i)].goal));
        }
        d.list()->setCurrentRow(2);
        Q_EMIT d.list()->itemActivated(d.list()->item(2));
        WhatEpsilonLesson* opened = nullptr;
        for (QWidget* w : QApplication::topLevelWidgets()) {
            if (auto* l = qobject_cast<WhatEpsilonLesson*>(w)) {
                opened = l;
            }
        }
        QVERIFY(opened);
        QVERIFY(opened->isVisible());
        QCOMPARE(opened->step(), 0);
        delete opened;
    }

    void stepping() {
        auto page = make<DifferencingLesson>("differencing");
        page->resize(1024, 768);
        page->show();
        QVERIFY(QTest::qWaitForWindowExposed(page.get()));
        auto* next = page->findChild<QPushButton*>(QStringLiteral("lessonNext"));
        auto* prev = page->findChild<QPushButton*>(QStringLiteral("lessonPrevious"));
        QVERIFY(next && prev);
        QVERIFY(!prev->isEnabled());
        next->click();
        QCOMPARE(page->step(), 1);
        QTest::keyClick(page.get(), Qt::Key_Right);
        QCOMPARE(page->step(), 2);
        QVERIFY(!next->isEnabled());
        QTest::keyClick(page.get(), Qt::Key_Right);  // stays on the last step
        QCOMPARE(page->step(), 2);
        QTest::keyClick(page.get(), Qt::Key_Left);
        QCOMPARE(page->step(), 1);
        page->setStep(-5);
        QCOMPARE(page->step(), 0);
    }

    void randomizedResponseNumbersAreCores() {
        auto page = make<RandomizedResponseLesson>("randomized-response");
        page->setStep(3);
        page->setClassTally(100, 40);
        auto shown = page->classEstimate();
        auto core = teaching::estimateTally(100, 40);
        QVERIFY(shown.hasValue() && core.hasValue());
        QCOMPARE(shown->low, core->low);
        QCOMPARE(shown->high, core->high);
        QCOMPARE(shown->estimate, core->estimate);
        const QString text = page->narrativeText();
        QVERIFY2(text.contains(pct(core->low)) && text.contains(pct(core->high)), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("ln 3")));
        // A tally that cannot be: a message, no crash.
        page->setClassTally(10, 11);
        QVERIFY(page->narrativeText().contains(QStringLiteral("cannot exceed")));

        // The simulation: one person more per click; the estimate is core's on their reports.
        page->setStep(1);
        const int before = page->peopleShown();
        page->addPerson();
        QCOMPARE(page->peopleShown(), before + 1);
        std::uint64_t yes = 0;
        for (int i = 0; i < page->peopleShown(); ++i) {
            yes += page->people()[static_cast<std::size_t>(i)].report ? 1 : 0;
        }
        auto sim = page->simulatedEstimate();
        QVERIFY(sim.hasValue());
        QCOMPARE(sim->estimate,
                 teaching::estimateTally(static_cast<std::uint64_t>(page->peopleShown()), yes)
                     ->estimate);
        page->setRunning(true);
        QVERIFY(page->running());
        QTRY_VERIFY_WITH_TIMEOUT(page->peopleShown() > before + 2, 5000);
        page->setRunning(false);
        // Step 3 shows the whole class.
        page->setStep(2);
        QCOMPARE(page->peopleShown(), RandomizedResponseLesson::kClassSize);
    }

    void differencingNumbersAreCores() {
        auto page = make<DifferencingLesson>("differencing");
        page->setStep(1);
        for (int i = 0; i < 3; ++i) {
            page->chooseEpsilon(i);
            const double eps = DifferencingLesson::kLevels[i];
            QCOMPARE(page->chosenEpsilon(), eps);
            auto a = page->attack();
            auto core = teaching::differencingAttack(eps);
            auto bound = posteriorBound(0.5, PrivacyLevel{eps, 0});
            QVERIFY(a.hasValue() && core.hasValue() && bound.hasValue());
            QCOMPARE(a->successProbability, core->successProbability);
            QCOMPARE(a->posteriorBound, bound->posterior);
            const QString text = page->narrativeText();
            QVERIFY2(text.contains(pct(core->successProbability)), qPrintable(text));
            QVERIFY2(text.contains(pct(bound->posterior)), qPrintable(text));
            QVERIFY2(!text.contains(QStringLiteral("100.0%")), qPrintable(text));  // 99.995%
        }
    }

    void whatEpsilonCurvesAreCores() {
        auto page = make<WhatEpsilonLesson>("what-epsilon-means");
        page->setStep(3);
        for (const double eps : {1.0, 0.3}) {
            page->setEpsilon(eps);
            QCOMPARE(page->epsilon(), eps);
            auto region = testRegionBoundary(PrivacyLevel{eps, 0}, 401);
            auto curve = teaching::laplaceTradeoffCurve(eps, 401);
            QVERIFY(region.hasValue() && curve.hasValue());
            QCOMPARE(page->regionDrawn().size(), region->size());
            QCOMPARE(page->laplaceDrawn().size(), curve->size());
            for (std::size_t i = 0; i < curve->size(); ++i) {
                QCOMPARE(page->laplaceDrawn()[i].y, (*curve)[i].y);
            }
            for (std::size_t i = 0; i < region->size(); ++i) {
                QCOMPARE(page->regionDrawn()[i].y, (*region)[i].y);
            }
        }
        // Outside the control's range: refused, the last ε stays.
        page->setEpsilon(50);
        QCOMPARE(page->epsilon(), 0.3);
        // The likelihood-ratio step says the sentence with e^ε.
        page->setStep(2);
        QVERIFY(page->narrativeText().contains(QStringLiteral("at most e")));
    }

    void postProcessingErrorsAreCores() {
        auto page = make<PostProcessingLesson>("post-processing");
        QCOMPARE(page->truth(), (std::vector<double>{0, 16}));
        QCOMPARE(page->epsilon(), 0.1);
        // Kerrigan 2019 §3.3 as in docs/user-guide.md: identity 400, clamp 247.5069053213896,
        // resize 251.0003697199 (resize worse than clamp).
        const double documented[3] = {400, 247.5069053213896, 251.0003697199};
        TruthModel truth{{0, 16}, {0, 1}};
        const auto noise = NoiseDistribution::laplace(10);
        for (std::size_t k = 0; k < 3; ++k) {
            const EstimatorKind kind = PostProcessingLesson::kEstimators[k];
            auto shown = page->expectedSse(kind);
            auto core = exactExpectedError(truth, noise, {kind, noise.variance()},
                                           {Metric::SSE, Scale::Counts});
            QVERIFY(shown.hasValue() && core.hasValue());
            QCOMPARE(*shown, core->value);
            QVERIFY2(std::abs(*shown - documented[k]) < 1e-9 * documented[k],
                     qPrintable(QString::number(*shown, 'g', 17)));
        }
        page->setStep(1);
        QVERIFY(page->narrativeText().contains(QStringLiteral("worse")));
        // The release shown is core's estimators applied to one noisy draw with a negative bin.
        page->setStep(0);
        QVERIFY(page->noisyRelease()[0] < 0);
        auto clamp = page->answer(EstimatorKind::Clamp);
        QVERIFY(clamp.hasValue());
        QCOMPARE((*clamp)[0], 0.0);
        auto resize = page->answer(EstimatorKind::Resize);
        QVERIFY(resize.hasValue());
        const auto noisy = page->noisyRelease();
        QVERIFY(std::abs((*resize)[0] + (*resize)[1] - std::max(0.0, noisy[0] + noisy[1])) < 1e-9);
    }

    void compositionNumbersAreCores() {
        auto page = make<CompositionLesson>("composition");
        QCOMPARE(page->stepCount(), 7);
        for (const double eps : {0.5, 2.0}) {
            page->setEpsilon(eps);
            for (int step = 0; step < 5; ++step) {
                page->setStep(step);
                const std::size_t k = CompositionLesson::questionsAtStep(step);
                QCOMPARE(k, CompositionLesson::kSteps[step]);
                auto fresh = page->attack(k, teaching::QueryBudget::FreshEachAnswer);
                auto total = page->attack(k, teaching::QueryBudget::OneTotal);
                auto coreFresh =
                    teaching::repeatedQueryAttack(eps, k, teaching::QueryBudget::FreshEachAnswer);
                auto coreTotal =
                    teaching::repeatedQueryAttack(eps, k, teaching::QueryBudget::OneTotal);
                QVERIFY(fresh.hasValue() && total.hasValue() && coreFresh.hasValue() &&
                        coreTotal.hasValue());
                QCOMPARE(fresh->successProbability, coreFresh->successProbability);
                QCOMPARE(total->successProbability, coreTotal->successProbability);
                QCOMPARE(fresh->basicEpsilon, static_cast<double>(k) * eps);
                const QString text = page->narrativeText();
                QVERIFY2(text.contains(pct(coreFresh->successProbability)), qPrintable(text));
                QVERIFY2(text.contains(formatSignificant(coreFresh->basicEpsilon, 3)),
                         qPrintable(text));
                QVERIFY2(text.contains(formatSignificant(coreFresh->zcdpEpsilon, 3)),
                         qPrintable(text));
                if (k > 1) {
                    QVERIFY2(text.contains(pct(coreTotal->successProbability)), qPrintable(text));
                }
                QVERIFY2(text.contains(pct(coreTotal->posteriorBound)), qPrintable(text));
            }
            // The summary: the table lists k = 1024 with core's success for both budgets.
            page->setStep(5);
            auto last =
                teaching::repeatedQueryAttack(eps, 1024, teaching::QueryBudget::FreshEachAnswer);
            auto lastTotal =
                teaching::repeatedQueryAttack(eps, 1024, teaching::QueryBudget::OneTotal);
            QVERIFY(last.hasValue() && lastTotal.hasValue());
            QVERIFY(page->narrativeText().contains(pct(last->successProbability)));
            QVERIFY(page->narrativeText().contains(pct(lastTotal->successProbability)));
            QVERIFY(!page->narrativeText().contains(QStringLiteral("100.0%")));
            page->setStep(6);
            QVERIFY(page->narrativeText().contains(formatSignificant(last->zcdpEpsilon, 3)));
        }
        // The table of docs/lessons.md at ε = 0.5.
        const char* documented[6][3] = {{"56.2%", "0.5", "2.75"}, {"60.3%", "2", "5.76"},
                                        {"69.3%", "8", "12.5"},   {"84.2%", "32", "29"},
                                        {"97.7%", "128", "74.1"}, {"99.997%", "512", "212"}};
        const std::size_t ks[6] = {1, 4, 16, 64, 256, 1024};
        for (std::size_t i = 0; i < 6; ++i) {
            auto a =
                teaching::repeatedQueryAttack(0.5, ks[i], teaching::QueryBudget::FreshEachAnswer);
            QVERIFY(a.hasValue());
            QCOMPARE(pct(a->successProbability), QString::fromUtf8(documented[i][0]));
            QCOMPARE(formatSignificant(a->basicEpsilon, 3), QString::fromUtf8(documented[i][1]));
            QCOMPARE(formatSignificant(a->zcdpEpsilon, 3), QString::fromUtf8(documented[i][2]));
        }
        // Stepping through all seven with the keys.
        page->resize(1024, 768);
        page->show();
        QVERIFY(QTest::qWaitForWindowExposed(page.get()));
        page->setStep(0);
        for (int i = 1; i < 7; ++i) {
            QTest::keyClick(page.get(), Qt::Key_Right);
            QCOMPARE(page->step(), i);
        }
    }

    void membershipNumbersAreCores() {
        auto page = make<MembershipLesson>("membership");
        QCOMPARE(page->stepCount(), 4);
        QVERIFY(page->waitUntilReady());
        QVERIFY(page->demo());
        for (const double eps : {1.0, 0.3}) {
            page->setEpsilon(eps);
            QVERIFY(page->waitUntilReady());
            const teaching::MembershipDemo* shown = page->demo();
            QVERIFY(shown);
            QCOMPARE(shown->params.epsilon, eps);
            auto core = teaching::membershipDemo(MembershipLesson::paramsAt(eps));
            QVERIFY(core.hasValue());
            // Same seed, same simulation: the lesson shows core's numbers exactly.
            QCOMPARE(shown->noNoise.auc, core->noNoise.auc);
            QCOMPARE(shown->noisy.auc, core->noisy.auc);
            QCOMPARE(shown->maxAuc, core->maxAuc);
            QCOMPARE(shown->noisy.roc.size(), core->noisy.roc.size());
            // The baseline: near-perfect detection; the noisy attack below the DP bound.
            QVERIFY(shown->noNoise.auc > 0.95);
            QVERIFY(shown->noisy.auc < shown->maxAuc);
            page->setStep(1);
            QVERIFY2(page->narrativeText().contains(formatSignificant(core->noNoise.auc, 3)),
                     qPrintable(page->narrativeText()));
            page->setStep(3);
            const QString text = page->narrativeText();
            QVERIFY2(text.contains(formatSignificant(core->noisy.auc, 3)) &&
                         text.contains(formatSignificant(core->maxAuc, 3)),
                     qPrintable(text));
            page->setStep(2);
            QVERIFY(page->narrativeText().contains(formatSignificant(core->noisy.sigma, 3)));
            if (eps == 1.0) {
                // The values quoted in docs/lessons.md and docs/user-guide.md.
                QCOMPARE(formatSignificant(shown->noNoise.auc, 3), QStringLiteral("0.982"));
                QCOMPARE(formatSignificant(shown->noisy.auc, 3), QStringLiteral("0.535"));
                QCOMPARE(formatSignificant(shown->maxAuc, 3), QStringLiteral("0.731"));
                QCOMPARE(formatSignificant(shown->noisy.sigma, 3), QStringLiteral("2.67"));
            }
        }
    }

    void slidesOnePagePerStep() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const LessonInfo& l : lessonCatalogue()) {
            std::unique_ptr<LessonPage> page(createLesson(l.name));
            page->resize(1024, 768);
            page->setStep(1);
            const QString pdf = dir.filePath(l.name + QStringLiteral(".pdf"));
            const LessonPage::SlideExport r = page->exportSlides(pdf);
            QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
            QCOMPARE(r.pages, page->stepCount());
            QCOMPARE(pdfPageCount(pdf), page->stepCount());
            QCOMPARE(r.pngFiles.size(), page->stepCount());
            for (const QString& png : r.pngFiles) {
                QVERIFY(QFileInfo(png).size() > 1000);
            }
            QCOMPARE(page->step(), 1);  // restored
        }
        // A path that cannot be written: a message.
        std::unique_ptr<LessonPage> page(createLesson(QStringLiteral("differencing")));
        const LessonPage::SlideExport bad =
            page->exportSlides(dir.filePath(QStringLiteral("no/such/dir/x.pdf")));
        QVERIFY(!bad.error.isEmpty());
    }

    void commandLine() {
        QTemporaryDir dir;
        QProcess p;
        p.start(QStringLiteral(DPEXPLORER_EXECUTABLE),
                {QStringLiteral("--lesson"), QStringLiteral("tracing")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(
            err.contains(QStringLiteral("unknown lesson 'tracing'")) && err.contains(lessonNames()),
            qPrintable(err));

        const QString pdf = dir.filePath(QStringLiteral("rr.pdf"));
        p.start(QStringLiteral(DPEXPLORER_EXECUTABLE),
                {QStringLiteral("--lesson"), QStringLiteral("randomized-response"),
                 QStringLiteral("--slides"), pdf});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QCOMPARE(pdfPageCount(pdf), 4);
        for (int i = 1; i <= 4; ++i) {
            QVERIFY(QFileInfo::exists(dir.filePath(QStringLiteral("rr-step%1.png").arg(i))));
        }

        // Lessons 4 and 5 by name: composition is known (its steps are 1 to 7), membership
        // writes one page per step after its simulation (the wait of the slide export).
        p.start(QStringLiteral(DPEXPLORER_EXECUTABLE),
                {QStringLiteral("--lesson"), QStringLiteral("composition"),
                 QStringLiteral("--step"), QStringLiteral("8"), QStringLiteral("--slides"), pdf});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains(QStringLiteral("1 to 7")));
        const QString membership = dir.filePath(QStringLiteral("membership.pdf"));
        p.start(QStringLiteral(DPEXPLORER_EXECUTABLE),
                {QStringLiteral("--lesson"), QStringLiteral("membership"),
                 QStringLiteral("--slides"), membership});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QCOMPARE(pdfPageCount(membership), 4);
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("membership-step4.png"))).size() > 1000);

        p.start(QStringLiteral(DPEXPLORER_EXECUTABLE),
                {QStringLiteral("--lesson"), QStringLiteral("differencing"),
                 QStringLiteral("--step"), QStringLiteral("9"), QStringLiteral("--slides"), pdf});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains(QStringLiteral("1 to 3")));

        p.start(QStringLiteral(DPEXPLORER_EXECUTABLE), {QStringLiteral("--slides"), pdf});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains(QStringLiteral("--lesson")));
    }
};

QTEST_MAIN(TstLessons)
#include "tst_lessons.moc"
