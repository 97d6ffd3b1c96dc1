#include "ui/lessons/glossary.h"

#include <QLineEdit>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>

#include "ui/lessons/lessons.h"

namespace dpx::ui {

namespace {

GlossaryPointer tab(const char* name) {
    return {GlossaryPointer::Kind::Tab, QString::fromUtf8(name)};
}
GlossaryPointer lesson(const char* name) {
    return {GlossaryPointer::Kind::Lesson, QString::fromUtf8(name)};
}

}  // namespace

const std::vector<GlossaryEntry>& glossaryEntries() {
    static const std::vector<GlossaryEntry> entries = {
        {QObject::tr("ε-differential privacy"),
         QObject::tr("A promise about a computation on data: whether or not any one person is in "
                     "the data, every possible result is almost equally likely, so the result "
                     "reveals little about that person; the smaller ε, the stronger the promise."),
         QObject::tr("A mechanism M is ε-DP if for all neighbouring datasets D, D′ and every set S "
                     "of outputs, Pr[M(D) ∈ S] ≤ e<sup>ε</sup> Pr[M(D′) ∈ S] (Dwork, McSherry, "
                     "Nissim & Smith 2006)."),
         {lesson("what-epsilon-means"), tab("Risk")}},
        {QObject::tr("(ε, δ)-differential privacy"),
         QObject::tr("The same promise, allowed to fail in rare cases whose total probability is "
                     "at most δ; δ should be far smaller than one over the number of people."),
         QObject::tr("Pr[M(D) ∈ S] ≤ e<sup>ε</sup> Pr[M(D′) ∈ S] + δ (Dwork, Kenthapadi, McSherry, "
                     "Mironov & Naor 2006)."),
         {tab("Risk")}},
        {QObject::tr("Neighbouring datasets"),
         QObject::tr("Two versions of the data that differ only in one person's record: the "
                     "promise compares exactly these."),
         QObject::tr("D′ is D with one record added or removed (add/remove), or with one record "
                     "changed (replace; Dwork & Roth 2014 §2.3)."),
         {lesson("differencing")}},
        {QObject::tr("Sensitivity"),
         QObject::tr("The most that one person's record can change the exact answer; the noise "
                     "must be large enough to hide a change of that size."),
         QObject::tr("Δ<sub>1</sub> = max ‖h(D) − h(D′)‖<sub>1</sub> over neighbours "
                     "(Δ<sub>2</sub> with the Euclidean norm; Dwork, McSherry, Nissim & Smith "
                     "2006)."),
         {tab("Histogram")}},
        {QObject::tr("Laplace mechanism"),
         QObject::tr("Add random noise to each count, typically a few times 1/ε, drawn so that a "
                     "change of one person barely moves the odds of any output."),
         QObject::tr("Adds Laplace noise of scale b = Δ<sub>1</sub>/ε to each bin; ε-DP (Dwork, "
                     "McSherry, Nissim & Smith 2006)."),
         {tab("Histogram"), lesson("what-epsilon-means")}},
        {QObject::tr("Geometric mechanism"),
         QObject::tr("The Laplace mechanism for whole numbers: the noisy counts stay integers."),
         QObject::tr("Adds two-sided geometric noise, Pr[z] ∝ α<sup>|z|</sup> with "
                     "α = e<sup>−ε/Δ<sub>1</sub></sup>; ε-DP (Ghosh, Roughgarden & Sundararajan "
                     "2009)."),
         {tab("Mechanism matrix")}},
        {QObject::tr("Gaussian mechanism"),
         QObject::tr("Add bell-curve noise instead; it gives the weaker (ε, δ) promise but adds "
                     "far less noise when many numbers are released together."),
         QObject::tr("Adds N(0, σ²) noise with σ calibrated to (ε, δ) and Δ<sub>2</sub> (the "
                     "analytic calibration of Balle & Wang 2018); (ε, δ)-DP."),
         {tab("Trade-off"), lesson("membership")}},
        {QObject::tr("Mechanism matrix"),
         QObject::tr("For a single count, a table of how likely each published value is for each "
                     "true value: every mechanism for a count is such a table."),
         QObject::tr("For a count over n people, P[i][j] = Pr[output i | true count j]; ε-DP iff "
                     "e<sup>−ε</sup> ≤ P[i][j]/P[i][j+1] ≤ e<sup>ε</sup> for all i, j (Ghosh, "
                     "Roughgarden & Sundararajan 2009; Kulkarni's thesis, ch. 6)."),
         {tab("Mechanism matrix")}},
        {QObject::tr("L0"),
         QObject::tr("How often a count mechanism publishes a wrong value, scaled so that "
                     "answering at random scores 1."),
         QObject::tr("(n+1)/n · (1 − Σ<sub>j</sub> P[j][j]/(n+1))."),
         {tab("Mechanism matrix")}},
        {QObject::tr("Properties of a mechanism matrix"),
         QObject::tr("Common-sense rules a count mechanism may follow, such as “the true count is "
                     "the most likely output”."),
         QObject::tr("RH row honesty (diagonal is the row maximum), RM row monotonicity, CH column "
                     "honesty (the true count is the most likely output), CM column monotonicity "
                     "(less likely the further from the truth), F fairness (same accuracy for "
                     "every count), WH weak honesty (P[i][i] ≥ 1/(n+1)), S symmetry "
                     "(P[i][j] = P[n−i][n−j])."),
         {tab("Mechanism matrix")}},
        {QObject::tr("Post-processing and estimators"),
         QObject::tr("Anything done to a private release afterwards, without looking at the data "
                     "again, keeps its privacy; it can make the answer more or less accurate."),
         QObject::tr("If M is (ε, δ)-DP, so is f(M) for every f (Dwork & Roth 2014 Prop 2.1). "
                     "Estimators: Identity (the noisy counts), Clamp (negatives to 0), Resize "
                     "(projection onto non-negative histograms with the noisy total), NoiseFirst "
                     "(merge adjacent bins when that lowers the expected error; Xu et al. 2012)."),
         {lesson("post-processing"), tab("Errors")}},
        {QObject::tr("Error measures"),
         QObject::tr("How far the published histogram is from the true one, summed or taken at "
                     "the worst bin."),
         QObject::tr("SSE Σ(ĥ − h)², L1 Σ|ĥ − h|, L∞ max|ĥ − h|, Wasserstein-1: the earth-mover "
                     "distance between the histograms over the bin positions."),
         {tab("Errors")}},
        {QObject::tr("Randomized response"),
         QObject::tr("Each person randomizes their own answer before giving it, so nobody ever "
                     "learns anyone's true answer, yet the total can still be estimated."),
         QObject::tr("With a fair coin: answer truthfully on heads, otherwise flip again and say "
                     "yes on heads; Pr[yes | yes]/Pr[yes | no] = 3, so ε = ln 3 (Warner 1965)."),
         {lesson("randomized-response"), tab("Local DP experiment")}},
        {QObject::tr("Composition and the privacy budget"),
         QObject::tr("Every answer spends some privacy and the amounts add up; a budget fixes the "
                     "total in advance and refuses answers that would exceed it."),
         QObject::tr("k releases at ε<sub>i</sub> are Σε<sub>i</sub>-DP (basic composition, Dwork "
                     "& Roth 2014 Thm 3.16); in zCDP ρ adds up, ε-DP gives ρ = ε²/2 and ρ-zCDP "
                     "gives (ρ + 2√(ρ ln(1/δ)), δ)-DP (Bun & Steinke 2016)."),
         {lesson("composition"), tab("Budget")}},
        {QObject::tr("Posterior bound"),
         QObject::tr("However clever, an attacker who sees the release can raise their belief "
                     "that a person is in the data only by a limited amount."),
         QObject::tr("Under ε-DP, posterior odds ≤ e<sup>ε</sup> × prior odds, so "
                     "P(in | output) ≤ e<sup>ε</sup>p/(e<sup>ε</sup>p + 1 − p) (Kasiviswanathan "
                     "& Smith 2014)."),
         {tab("Risk"), lesson("differencing")}},
        {QObject::tr("Hypothesis-testing region"),
         QObject::tr("Any test of “was this person in the data?” makes two kinds of mistakes; DP "
                     "forbids making both of them rare at once."),
         QObject::tr("Every test's false-positive rate α and false-negative rate β satisfy "
                     "β ≥ max{0, 1 − δ − e<sup>ε</sup>α, e<sup>−ε</sup>(1 − δ − α)} (Kairouz, Oh "
                     "& Viswanath 2015)."),
         {tab("Risk"), lesson("what-epsilon-means")}},
        {QObject::tr("Membership inference (tracing)"),
         QObject::tr("Telling from published statistics whether a given person's record was used "
                     "to compute them."),
         QObject::tr("The tracing attack scores a candidate Y by Z = ⟨M(X) − μ, Y − μ⟩ and accuses "
                     "when Z is large (Homer et al. 2008; Dwork, Smith, Steinke, Ullman & Vadhan "
                     "2015); its ROC lies inside the hypothesis-testing region."),
         {lesson("membership"), tab("Risk")}},
    };
    return entries;
}

QString pointerText(const GlossaryPointer& pointer) {
    if (pointer.kind == GlossaryPointer::Kind::Tab) {
        return QObject::tr("the %1 tab").arg(pointer.name);
    }
    const auto& lessons = lessonCatalogue();
    for (std::size_t i = 0; i < lessons.size(); ++i) {
        if (lessons[i].name == pointer.name) {
            return QObject::tr("lesson %1, “%2”").arg(i + 1).arg(lessons[i].title);
        }
    }
    return QObject::tr("the lesson “%1”").arg(pointer.name);
}

bool glossaryMatches(const GlossaryEntry& entry, const QString& text) {
    if (text.trimmed().isEmpty()) {
        return true;
    }
    QTextDocument formula;
    formula.setHtml(entry.formula);
    const QString needle = text.trimmed();
    return entry.term.contains(needle, Qt::CaseInsensitive) ||
           entry.plain.contains(needle, Qt::CaseInsensitive) ||
           formula.toPlainText().contains(needle, Qt::CaseInsensitive);
}

QString glossaryHtml(const QString& filter) {
    QString html;
    int shown = 0;
    for (const GlossaryEntry& e : glossaryEntries()) {
        if (!glossaryMatches(e, filter)) {
            continue;
        }
        ++shown;
        QStringList see;
        for (const GlossaryPointer& p : e.see) {
            see << pointerText(p).toHtmlEscaped();
        }
        html += QStringLiteral("<h3>%1</h3><p>%2</p><p>%3</p><p><i>%4</i></p>")
                    .arg(e.term.toHtmlEscaped(), e.plain.toHtmlEscaped(), e.formula,
                         QObject::tr("See %1.").arg(see.join(QStringLiteral("; "))));
    }
    if (shown == 0) {
        return QObject::tr("<p>No term matches “%1”.</p>").arg(filter.toHtmlEscaped());
    }
    return html;
}

GlossaryDialog::GlossaryDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("DP Explorer glossary"));
    search_ = new QLineEdit;
    search_->setObjectName(QStringLiteral("glossarySearch"));
    search_->setPlaceholderText(tr("Search the glossary…"));
    search_->setClearButtonEnabled(true);
    browser_ = new QTextBrowser;
    browser_->setObjectName(QStringLiteral("glossaryText"));
    browser_->setHtml(glossaryHtml());
    connect(search_, &QLineEdit::textChanged, this,
            [this](const QString& text) { browser_->setHtml(glossaryHtml(text)); });
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(search_);
    layout->addWidget(browser_, 1);
    resize(640, 560);
}

}  // namespace dpx::ui
