// The glossary (ui/lessons/glossary, Help ▸ Glossary): every entry has its three parts — a plain
// sentence without formulas first, then the formula with its source, then at least one pointer —
// every pointer names a tab of the main window or a lesson that exists, and the search field
// filters the entries (with a message when nothing matches). Help ▸ Glossary opens it.
#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTest>
#include <QTextBrowser>
#include <memory>

#include "ui/lessons/glossary.h"
#include "ui/lessons/lessons.h"
#include "ui/main_window.h"

using namespace dpx::ui;

class TstGlossary : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyEntryHasThreeParts() {
        QVERIFY(glossaryEntries().size() >= 15);
        // Symbols that make a sentence a formula: a plain sentence has none of them.
        static const QRegularExpression formulaMarks(
            QStringLiteral("[=≤≥Σ∑‖Δ√∝]|<sup>|<sub>|Pr\\["));
        static const QRegularExpression year(QStringLiteral("(19|20)\\d\\d"));
        for (const GlossaryEntry& e : glossaryEntries()) {
            QVERIFY2(!e.term.isEmpty(), "an entry without a term");
            QVERIFY2(e.plain.size() > 30, qPrintable(e.term));
            QVERIFY2(e.plain.endsWith(QLatin1Char('.')), qPrintable(e.term));
            QVERIFY2(!e.plain.contains(formulaMarks),
                     qPrintable(e.term + QStringLiteral(": ") + e.plain));
            QVERIFY2(!e.formula.isEmpty(), qPrintable(e.term));
            QVERIFY2(e.formula != e.plain, qPrintable(e.term));
            QVERIFY2(!e.see.empty(), qPrintable(e.term + QStringLiteral(": no pointer")));
        }
        // Terms cited with a source: those that name a method or a theorem.
        for (const GlossaryEntry& e : glossaryEntries()) {
            if (e.formula.contains(QStringLiteral("mechanism")) ||
                e.formula.contains(QStringLiteral("DP"))) {
                QVERIFY2(e.formula.contains(year), qPrintable(e.term));
            }
        }
    }

    void everyPointerExists() {
        MainWindow w;
        QStringList tabs;
        for (int i = 0; i < w.tabs()->count(); ++i) {
            tabs << w.tabs()->tabText(i).remove(QLatin1Char('&'));
        }
        int lessonPointers = 0;
        for (const GlossaryEntry& e : glossaryEntries()) {
            for (const GlossaryPointer& p : e.see) {
                if (p.kind == GlossaryPointer::Kind::Tab) {
                    QVERIFY2(tabs.contains(p.name),
                             qPrintable(e.term + QStringLiteral(": no tab '") + p.name +
                                        QStringLiteral("' in ") + tabs.join(QStringLiteral(", "))));
                    QCOMPARE(pointerText(p), QStringLiteral("the %1 tab").arg(p.name));
                } else {
                    ++lessonPointers;
                    std::unique_ptr<LessonPage> page(createLesson(p.name));
                    QVERIFY2(page, qPrintable(e.term + QStringLiteral(": no lesson '") + p.name +
                                              QLatin1Char('\'')));
                    QVERIFY2(pointerText(p).contains(page->info().title), qPrintable(p.name));
                }
            }
        }
        QVERIFY(lessonPointers >= 6);
        // Lesson numbers follow the catalogue: lesson 4 is composition.
        QCOMPARE(pointerText({GlossaryPointer::Kind::Lesson, QStringLiteral("composition")}),
                 QStringLiteral("lesson 4, “%1”").arg(lessonCatalogue()[3].title));
    }

    void searchFilters() {
        GlossaryDialog d;
        const int all = static_cast<int>(glossaryEntries().size());
        auto headings = [&d] {
            return static_cast<int>(d.browser()->toHtml().count(QStringLiteral("<h3")));
        };
        QCOMPARE(headings(), all);
        // Plain sentence, formula and pointer appear in that order for the first entry.
        const QString text = d.browser()->toPlainText();
        const GlossaryEntry& first = glossaryEntries().front();
        const auto plainAt = text.indexOf(first.plain.left(40));
        const auto formulaAt = text.indexOf(QStringLiteral("A mechanism M is ε-DP"));
        const auto seeAt = text.indexOf(QStringLiteral("See lesson 3"));
        QVERIFY2(plainAt >= 0 && formulaAt > plainAt && seeAt > formulaAt, qPrintable(text));
        d.search()->setText(QStringLiteral("laplace"));
        QVERIFY(headings() >= 1 && headings() < all);
        QVERIFY(d.browser()->toPlainText().contains(QStringLiteral("Laplace mechanism")));
        d.search()->setText(QStringLiteral("zCDP"));  // found in a formula
        QVERIFY(d.browser()->toPlainText().contains(QStringLiteral("Composition")));
        d.search()->setText(QStringLiteral("qwertyuiop"));
        QCOMPARE(headings(), 0);
        QVERIFY(
            d.browser()->toPlainText().contains(QStringLiteral("No term matches “qwertyuiop”")));
        d.search()->clear();
        QCOMPARE(headings(), all);
    }

    void helpMenuOpensIt() {
        MainWindow w;
        QAction* glossary = nullptr;
        for (QAction* menu : w.menuBar()->actions()) {
            if (!menu->menu()) {
                continue;
            }
            for (QAction* a : menu->menu()->actions()) {
                if (a->text().remove(QLatin1Char('&')) == QStringLiteral("Glossary")) {
                    glossary = a;
                }
            }
        }
        QVERIFY(glossary);
        glossary->trigger();
        GlossaryDialog* d = w.findChild<GlossaryDialog*>();
        QVERIFY(d);
        QVERIFY(d->isVisible());
    }
};

QTEST_MAIN(TstGlossary)
#include "tst_glossary.moc"
