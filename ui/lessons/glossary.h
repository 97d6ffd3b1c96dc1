// The glossary (Help ▸ Glossary, issue #21 "Plain language"): every term in three parts — one plain
// sentence first, then the formula, then where in the window it can be seen (a tab, a lesson). The
// entries live here, not in the main window, so that a test can check that every entry has its
// three parts and that every pointer names a tab or lesson that exists.
#pragma once

#include <QDialog>
#include <QString>
#include <vector>

class QLineEdit;
class QTextBrowser;

namespace dpx::ui {

// Where a term can be seen: a tab of the main window (its title without the mnemonic "&") or a
// lesson (its --lesson name).
struct GlossaryPointer {
    enum class Kind { Tab, Lesson };
    Kind kind = Kind::Tab;
    QString name;
};

struct GlossaryEntry {
    QString term;
    QString plain;    // one sentence without formulas, for someone who has never met the term
    QString formula;  // rich text: the definition, with its source (authors and year)
    std::vector<GlossaryPointer> see;
};

// Every entry, in reading order.
const std::vector<GlossaryEntry>& glossaryEntries();
// "the Risk tab", "lesson 3, “What ε means”" (the lesson's number is its place in the catalogue).
QString pointerText(const GlossaryPointer& pointer);
// True when `entry` contains `text` (case-insensitive) in its term, plain sentence or formula.
bool glossaryMatches(const GlossaryEntry& entry, const QString& text);
// The entries matching `filter` (all when empty) as HTML; a sentence naming the filter when none
// matches.
QString glossaryHtml(const QString& filter = {});

// Help ▸ Glossary: a search field over the entries.
class GlossaryDialog : public QDialog {
    Q_OBJECT
public:
    explicit GlossaryDialog(QWidget* parent = nullptr);
    QLineEdit* search() const { return search_; }
    QTextBrowser* browser() const { return browser_; }

private:
    QLineEdit* search_ = nullptr;
    QTextBrowser* browser_ = nullptr;
};

}  // namespace dpx::ui
