// dpexplorer: the DP Explorer GUI.
//
//   dpexplorer [--example ID] [--mechanism NAME] [--epsilon E] [--session FILE.json]
//              [--tab NAME] [--dark] [--size WxH] [--present] [--screenshot OUT.png]
//   dpexplorer --lesson NAME [--step K] [--dark] [--size WxH] [--present]
//              [--screenshot OUT.png | --slides OUT.pdf]
//              [--release-dialog [--release-mechanism M] [--release-epsilon E] [--release-delta D]
//               [--release-out FILE.csv] [--release-ledger FILE.json] [--release-budget E[,D]]
//               [--release-go]]
//
// --screenshot renders the window (offscreen works: QT_QPA_PLATFORM=offscreen) once everything
// is computed, saves it and exits: for the docs and tests. --release-dialog opens File → Release
// histogram… once the data are shown, fills it from the --release-* options, and then either
// releases (--release-go, exit 0 on success) or, with --screenshot, saves the dialog instead of
// the window (docs/render-screenshots.sh). --lesson opens a classroom lesson (ui/lessons/) in a
// window of its own instead of the main window; --slides writes its steps as a PDF (one page per
// step) and PNGs without showing anything, then quits.
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QLineEdit>
#include <QPixmap>
#include <QScreen>
#include <QTimer>
#include <cstdio>
#include <memory>

#include "app/version.h"
#include "core/histogram/example_datasets.h"
#include "ui/lessons/lessons.h"
#include "ui/main_window.h"
#include "ui/model/document.h"
#include "ui/release/release_dialog.h"
#include "ui/widgets/presentation_view.h"

namespace {
int fail(const QString& message) {
    std::fprintf(stderr, "dpexplorer: %s\n", qPrintable(message));
    return 2;
}

// --lesson NAME [--step K] [--screenshot OUT.png | --slides OUT.pdf].
int runLesson(const QString& name, bool dark, const QString& stepText, const QString& screenshot,
              const QString& slides, QSize size, bool present) {
    dpx::ui::MainWindow::applyApplicationTheme(dark);
    std::unique_ptr<dpx::ui::LessonPage> page(dpx::ui::createLesson(name));
    if (!page) {
        return fail(dpx::ui::unknownLessonMessage(name));
    }
    int step = 1;
    if (!stepText.isEmpty()) {
        bool ok = false;
        step = stepText.toInt(&ok);
        if (!ok || step < 1 || step > page->stepCount()) {
            return fail(QStringLiteral("--step must be a whole number from 1 to %1 for lesson '%2' "
                                       "(got '%3')")
                            .arg(page->stepCount())
                            .arg(name, stepText));
        }
    }
    if (!slides.isEmpty()) {
        page->setAttribute(Qt::WA_DontShowOnScreen);
        page->resize(size.isValid() ? size : QSize(1600, 1000));
        if (present) {
            page->setProperty("presenting", true);  // the lesson's presentation look (type, lines)
            page->setPalette(dpx::ui::PresentationView::presentationPalette(page->palette()));
        }
        page->show();
        QApplication::processEvents();
        const dpx::ui::LessonPage::SlideExport r = page->exportSlides(slides);
        if (!r.error.isEmpty()) {
            return fail(r.error);
        }
        std::printf("wrote %d pages to %s and %lld PNG files\n", r.pages, qPrintable(slides),
                    static_cast<long long>(r.pngFiles.size()));
        return 0;
    }
    page->setAttribute(Qt::WA_DeleteOnClose);
    const QScreen* screen = QGuiApplication::primaryScreen();
    const QSize avail = screen ? screen->availableGeometry().size() : QSize(1280, 800);
    page->resize(size.isValid() ? size.boundedTo(avail) : avail);
    page->setStep(step - 1);
    dpx::ui::LessonPage* shown = page.release();
    if (present) {
        dpx::ui::presentWindow(shown, true, size);
    } else {
        shown->show();
    }
    if (!screenshot.isEmpty()) {
        QTimer::singleShot(300, shown, [shown, screenshot] {
            shown->waitUntilReady();  // a lesson's simulation (membership) finishes first
            const bool ok = shown->grab().save(screenshot);
            if (!ok) {
                std::fprintf(stderr, "dpexplorer: could not write %s\n", qPrintable(screenshot));
            }
            QApplication::exit(ok ? 0 : 1);
        });
    }
    return QApplication::exec();
}
}  // namespace

int main(int argc, char** argv) {
    // QGuiApplication takes "-session ID" / "--session ID" for X11 session management and removes
    // it from argv, so our --session FILE must be read before the application object exists.
    QString sessionFile;
    bool sessionGiven = false;
    for (int i = 1; i < argc; ++i) {
        const QString a = QString::fromLocal8Bit(argv[i]);
        if ((a == QLatin1String("--session") || a == QLatin1String("-session")) && i + 1 < argc) {
            sessionFile = QString::fromLocal8Bit(argv[i + 1]);
            sessionGiven = true;
        } else if (a.startsWith(QLatin1String("--session="))) {
            sessionFile = a.mid(10);
            sessionGiven = true;
        }
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("DP Explorer"));
    QApplication::setOrganizationName(QStringLiteral("DP Explorer"));
    QApplication::setApplicationVersion(QStringLiteral(DPX_VERSION_STRING));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Explore differential-privacy trade-offs"));
    parser.addHelpOption();
    parser.addVersionOption();
    QString examples;
    for (const auto& e : dpx::exampleDatasets()) {
        examples +=
            (examples.isEmpty() ? QString() : QStringLiteral(", ")) + QString::fromStdString(e.id);
    }
    QCommandLineOption example(
        QStringLiteral("example"),
        QStringLiteral("Open a built-in example dataset (%1).").arg(examples),
        QStringLiteral("id"));
    QCommandLineOption mechanism(
        QStringLiteral("mechanism"),
        QStringLiteral("Start with this mechanism (laplace, geometric, gaussian, count-geometric, "
                       "count-explicit-fair, count-uniform, count-laplace, count-optimal)."),
        QStringLiteral("name"));
    QCommandLineOption epsilon(QStringLiteral("epsilon"),
                               QStringLiteral("Start with this ε (0.01 to 20)."),
                               QStringLiteral("value"));
    QCommandLineOption session(QStringLiteral("session"),
                               QStringLiteral("Open a saved session (JSON)."),
                               QStringLiteral("file"));
    QCommandLineOption tab(
        QStringLiteral("tab"),
        QStringLiteral("Show this tab: histogram, matrix, errors, risk, "
                       "tradeoff, budget, ldp-experiment (the dBitFlip "
                       "telemetry study of Ding, Kulkarni & Yekhanin 2017), "
                       "ldp-ranges, ldp-marginals, "
                       "ldp-means, mechanisms, table, workbench (the DPBench "
                       "algorithms compared, Hay et al. 2016), strategy (the strategy "
                       "designer, HDMM: McKenna et al. 2018), or a page of it: sparse, rdp, "
                       "select, vector-mean, kde."),
        QStringLiteral("name"));
    QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Use the dark theme."));
    QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Save the window as PNG once computed, then quit."), QStringLiteral("file"));
    QCommandLineOption lesson(
        QStringLiteral("lesson"),
        QStringLiteral("Open a classroom lesson instead of the main window: %1.")
            .arg(dpx::ui::lessonNames()),
        QStringLiteral("name"));
    QCommandLineOption lessonStep(QStringLiteral("step"),
                                  QStringLiteral("With --lesson: start at step K (1 = the first)."),
                                  QStringLiteral("K"));
    QCommandLineOption slides(
        QStringLiteral("slides"),
        QStringLiteral("With --lesson: write the lesson's steps as slides (a PDF with one page per "
                       "step and FILE-stepN.png per step, 1600 × 1000) without showing a window, "
                       "then quit."),
        QStringLiteral("file.pdf"));
    QCommandLineOption size(
        QStringLiteral("size"),
        QStringLiteral("Open the window WIDTHxHEIGHT pixels large (say 1024x768 or 1920x1080), "
                       "for screenshots and tests; it still fits the screen."),
        QStringLiteral("WxH"));
    QCommandLineOption present(
        QStringLiteral("present"),
        QStringLiteral("Start in presentation mode: the --tab's plot (or the --lesson) full screen "
                       "(or --size) in large type and high contrast; Esc returns."));
    for (const auto& o : {example, mechanism, epsilon, session, tab, dark, screenshot, lesson,
                          lessonStep, slides, size, present}) {
        parser.addOption(o);
    }
    // The release dialog, for the docs' screenshots and scripted checks (not in --help).
    QCommandLineOption releaseDialog(QStringLiteral("release-dialog"),
                                     QStringLiteral("Open the release dialog once computed."));
    QCommandLineOption releaseGo(QStringLiteral("release-go"),
                                 QStringLiteral("Release with the dialog's settings, then quit."));
    QCommandLineOption releaseMechanism(QStringLiteral("release-mechanism"),
                                        QStringLiteral("Release mechanism."),
                                        QStringLiteral("name"));
    QCommandLineOption releaseEpsilon(QStringLiteral("release-epsilon"),
                                      QStringLiteral("Release ε."), QStringLiteral("value"));
    QCommandLineOption releaseDelta(QStringLiteral("release-delta"), QStringLiteral("Release δ."),
                                    QStringLiteral("value"));
    QCommandLineOption releaseOut(QStringLiteral("release-out"),
                                  QStringLiteral("Release CSV path."), QStringLiteral("file"));
    QCommandLineOption releaseLedger(QStringLiteral("release-ledger"),
                                     QStringLiteral("Ledger path."), QStringLiteral("file"));
    QCommandLineOption releaseBudget(QStringLiteral("release-budget"),
                                     QStringLiteral("Total of a new ledger: EPS or EPS,DELTA."),
                                     QStringLiteral("total"));
    // Issue #22: the dialog's "Sample of N people (design effect D)", ticked.
    QCommandLineOption releaseSampleOf(QStringLiteral("release-sample-of"),
                                       QStringLiteral("Release: the data are a sample of N."),
                                       QStringLiteral("N"));
    QCommandLineOption releaseDesignEffect(QStringLiteral("release-design-effect"),
                                           QStringLiteral("Release: the sample's design effect."),
                                           QStringLiteral("D"));
    for (QCommandLineOption* o :
         {&releaseDialog, &releaseGo, &releaseMechanism, &releaseEpsilon, &releaseDelta,
          &releaseOut, &releaseLedger, &releaseBudget, &releaseSampleOf, &releaseDesignEffect}) {
        o->setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(*o);
    }
    parser.process(app);

    if (parser.isSet(slides) && !parser.isSet(lesson)) {
        return fail(
            QStringLiteral("--slides needs --lesson NAME (one of %1)").arg(dpx::ui::lessonNames()));
    }
    if (parser.isSet(lessonStep) && !parser.isSet(lesson)) {
        return fail(QStringLiteral("--step needs --lesson NAME"));
    }
    QSize windowSize;
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        bool okW = false, okH = false;
        const int w = wh.size() == 2 ? wh[0].toInt(&okW) : 0;
        const int h = wh.size() == 2 ? wh[1].toInt(&okH) : 0;
        if (!okW || !okH || w < 320 || h < 240 || w > 16384 || h > 16384) {
            return fail(QStringLiteral("--size must be WIDTHxHEIGHT in pixels, each from 320x240 "
                                       "to 16384x16384, such as 1024x768 (got '%1')")
                            .arg(parser.value(size)));
        }
        windowSize = QSize(w, h);
    }
    if (parser.isSet(lesson)) {
        return runLesson(parser.value(lesson), parser.isSet(dark),
                         parser.isSet(lessonStep) ? parser.value(lessonStep) : QString(),
                         parser.value(screenshot), parser.value(slides), windowSize,
                         parser.isSet(present));
    }

    dpx::ui::MainWindow window;
    if (windowSize.isValid()) {
        window.resize(windowSize);
        window.fitToScreen();
    }
    dpx::ui::ExplorerDocument* doc = window.document();
    if (sessionGiven || parser.isSet(session)) {
        if (auto st = window.openSession(sessionGiven ? sessionFile : parser.value(session)); !st) {
            return fail(QString::fromStdString(st.error().message));
        }
    }
    dpx::ui::ExplorerState s = doc->state();
    if (parser.isSet(example)) {
        if (!dpx::findExample(parser.value(example).toStdString())) {
            return fail(QStringLiteral("unknown example '%1' (use %2)")
                            .arg(parser.value(example), examples));
        }
        s.data.exampleId = parser.value(example);
        s.data.source = dpx::ui::SourceKind::Example;
    }
    if (parser.isSet(mechanism)) {
        auto m = dpx::ui::mechanismChoiceFromId(parser.value(mechanism));
        if (!m) {
            return fail(QString::fromStdString(m.error().message));
        }
        s.mechanism.kind = *m;
    }
    if (parser.isSet(epsilon)) {
        bool ok = false;
        s.mechanism.epsilon = parser.value(epsilon).toDouble(&ok);
        if (!ok) {
            return fail(QStringLiteral("--epsilon must be a number from 0.01 to 20"));
        }
    }
    if (parser.isSet(tab)) {
        s.view.tab = parser.value(tab);
    }
    if (parser.isSet(dark)) {
        s.view.dark = true;
    }
    if (auto st = doc->apply(s, QStringLiteral("command line")); !st) {
        return fail(QString::fromStdString(st.error().message));
    }
    doc->undoStack()->clear();
    if (parser.isSet(releaseDialog)) {
        // Once the first histogram is shown: open the dialog, fill it, and after its preview
        // either release or save its picture.
        auto opened = std::make_shared<bool>(false);
        QObject::connect(&window, &dpx::ui::MainWindow::releaseShown, &app, [&, opened] {
            if (*opened) {
                return;
            }
            *opened = true;
            dpx::ui::ReleaseDialog* d = window.releaseController()->open();
            d->setReport([](bool ok, const QString& text) {
                std::fprintf(ok ? stdout : stderr, "%s\n", qPrintable(text));
            });
            d->setConfirmOverwrite([](const QStringList&) { return false; });
            // Scripts never start a second budget for data a known ledger has charged.
            d->setConfirmNewLedger([](const QStringList& others) {
                std::fprintf(stderr,
                             "dpexplorer: refused: a new ledger would start a fresh budget for "
                             "data already charged to:\n%s\n",
                             qPrintable(others.join(QLatin1Char('\n'))));
                QTimer::singleShot(0, [] { QApplication::exit(1); });
                return false;
            });
            auto setText = [d](const char* name, const QString& text) {
                if (auto* e = d->findChild<QLineEdit*>(QLatin1String(name))) {
                    e->setText(text);
                }
            };
            if (parser.isSet(releaseMechanism)) {
                auto* m = d->findChild<QComboBox*>(QStringLiteral("releaseMechanism"));
                const int i = m->findData(parser.value(releaseMechanism));
                if (i < 0) {
                    std::fprintf(stderr, "dpexplorer: unknown release mechanism\n");
                    QApplication::exit(2);
                    return;
                }
                m->setCurrentIndex(i);
            }
            if (parser.isSet(releaseEpsilon)) {
                setText("releaseEpsilon", parser.value(releaseEpsilon));
            }
            if (parser.isSet(releaseDelta)) {
                setText("releaseDelta", parser.value(releaseDelta));
            }
            if (parser.isSet(releaseOut)) {
                d->setOutputPath(parser.value(releaseOut));
            }
            if (parser.isSet(releaseLedger)) {
                d->setLedgerPath(parser.value(releaseLedger));
            }
            if (parser.isSet(releaseBudget)) {
                const QStringList b = parser.value(releaseBudget).split(QLatin1Char(','));
                setText("releaseBudgetEpsilon", b.value(0));
                setText("releaseBudgetDelta", b.value(1, QStringLiteral("0")));
            }
            if (parser.isSet(releaseSampleOf)) {
                d->setSample(true, parser.value(releaseSampleOf).toDouble(),
                             parser.isSet(releaseDesignEffect)
                                 ? parser.value(releaseDesignEffect).toDouble()
                                 : 1.0);
            }
            auto done = std::make_shared<bool>(false);
            QObject::connect(d, &dpx::ui::ReleaseDialog::previewUpdated, d, [&, d, done] {
                if (*done || d->previewPending()) {
                    return;
                }
                *done = true;
                if (parser.isSet(releaseGo)) {
                    QObject::connect(
                        d, &dpx::ui::ReleaseDialog::releaseFinished, &app,
                        [](bool ok, const QString&) { QApplication::exit(ok ? 0 : 1); });
                    if (!d->canRelease()) {
                        std::fprintf(stderr, "dpexplorer: %s\n", qPrintable(d->statusText()));
                        QApplication::exit(1);
                        return;
                    }
                    d->startRelease();
                } else if (parser.isSet(screenshot)) {
                    // Let the label in the status bar and the layout settle first.
                    QTimer::singleShot(300, d, [&, d] {
                        const bool ok = d->grab().save(parser.value(screenshot));
                        QApplication::exit(ok ? 0 : 1);
                    });
                }
            });
        });
        QTimer::singleShot(120000, &app, [] {
            std::fprintf(stderr, "dpexplorer: the release dialog did not finish in 2 minutes\n");
            QApplication::exit(1);
        });
    } else if (parser.isSet(screenshot)) {
        QObject::connect(
            &window, &dpx::ui::MainWindow::screenshotSaved, &app, [](const QString& path, bool ok) {
                if (!ok) {
                    std::fprintf(stderr, "dpexplorer: could not write %s\n", qPrintable(path));
                }
                QApplication::exit(ok ? 0 : 1);
            });
        window.saveScreenshotWhenReady(parser.value(screenshot));
        // Never hang in scripts: give up after two minutes.
        QTimer::singleShot(120000, &app, [] {
            std::fprintf(stderr, "dpexplorer: the computation did not finish in 2 minutes\n");
            QApplication::exit(1);
        });
    }
    window.show();
    if (parser.isSet(present)) {
        window.setPresenting(true, windowSize);
    }
    return app.exec();
}
