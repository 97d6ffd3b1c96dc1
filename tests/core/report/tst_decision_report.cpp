// The decision report's content (core/report/decision_report.h) built from real releases
// (releaseHistogram with OS randomness): every section present, no count of the data and no
// released value anywhere in the HTML, everything escaped, and its numbers equal to independent
// references — the interval from core/intervals, the posterior bound e^ε p/(e^ε p + 1 − p) in
// closed form, the alternatives' E|Z| by brute-force sums of the discrete Laplace's mass and the
// Laplace's b = Δ1/ε — and the same report whatever the counts (nothing depends on them).
#include <QTest>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/intervals/release_intervals.h"
#include "core/matrix_mechanism/strategy_release.h"
#include "core/release/release.h"
#include "core/release/release_rng.h"
#include "core/report/decision_report.h"

using namespace dpx;

namespace {

// Counts no report may show: distinctive six-digit numbers.
const std::vector<std::int64_t> kCounts = {123457, 987651, 555553, 246813};

ReleaseSpec specFor(ReleaseMechanism m, const std::string& eps, const std::string& delta = "") {
    ReleaseSpec s;
    s.mechanism = m;
    s.epsilon = eps;
    s.delta = delta;
    s.binsDeclared = true;
    s.source = "column 'age' of adult.csv";
    s.appVersion = "9.9-test";
    s.timestamp = "2026-01-02T03:04:05Z";
    if (m == ReleaseMechanism::GeometricMatrix) {
        s.groupSize = 40;
    }
    return s;
}

struct Released {
    DecisionReportInput input;
    HistogramRelease release;
};

Released releaseFor(const ReleaseSpec& spec, const std::vector<std::int64_t>& counts) {
    auto truth = Histogram::create(counts, {"18-30", "31-45", "46-60", "61+"});
    ReleaseRandomness rng;
    auto r = releaseHistogram(spec, *truth, rng);
    if (!r) {
        qFatal("release: %s", r.error().message.c_str());
    }
    auto iv = releaseIntervals(spec, r->values.size());
    r->metadata.intervals = *iv;
    DecisionReportInput in;
    in.spec = spec;
    in.metadata = r->metadata;
    in.bins = r->values.size();
    in.budget.ledgerPath = "/data/ledger.json";
    in.budget.dataset = "adult.csv";
    in.budget.composition = "basic";
    in.budget.totalEpsilon = "3";
    in.budget.totalDelta = "0";
    in.budget.before = "ε 3 of 3 left";
    in.budget.after = "ε 2 of 3 left";
    in.budget.epsilonSpentAfter = 1;
    in.budget.releasesInLedger = 1;
    in.files = {{"released values (CSV)", "/data/r.csv", std::string(64, 'a')},
                {"metadata (JSON)", "/data/r.json", std::string(64, 'b')}};
    in.generatedAt = "2026-01-02T03:05:00Z";
    return {in, std::move(r).value()};
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// `number` as a whole number in the text: not part of a longer run of digits (a coordinate or a
// decimal such as 0.5555559 may contain any digits) nor a colour ("#555555").
bool containsNumber(const std::string& text, const std::string& number) {
    auto isNum = [](char c) { return (c >= '0' && c <= '9') || c == '.'; };
    for (auto at = text.find(number); at != std::string::npos; at = text.find(number, at + 1)) {
        // "#555555" is the plot's grey, not a number (a noisy 555 553 + 2 matched it).
        const bool before = at > 0 && (isNum(text[at - 1]) || text[at - 1] == '#');
        const bool after = at + number.size() < text.size() && isNum(text[at + number.size()]);
        if (!before && !after) {
            return true;
        }
    }
    return false;
}

std::size_t countOf(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
        ++n;
    }
    return n;
}

// Basic well-formedness: the document's frame and balanced elements.
void checkHtml(const std::string& html) {
    QVERIFY(html.rfind("<!DOCTYPE html>", 0) == 0);
    QVERIFY(contains(html, "<meta charset=\"utf-8\">"));
    QVERIFY(html.size() > 8 && html.compare(html.size() - 8, 8, "</html>\n") == 0);
    // "<tag>" or "<tag ": so that "<p" does not count "<path" nor "<li" "<line".
    for (const char* tag : {"table", "h2", "p", "tr", "td", "th", "svg", "ul", "li", "figure"}) {
        const std::string t(tag);
        QCOMPARE(countOf(html, "<" + t + ">") + countOf(html, "<" + t + " "),
                 countOf(html, "</" + t + ">"));
    }
}

// E|Z| of the discrete Laplace Pr[z] ∝ α^|z| by summing the mass (|z| ≤ 4000).
double bruteMeanAbs(double alpha) {
    long double total = 0, abs = 0;
    for (long z = -4000; z <= 4000; ++z) {
        const long double w = std::pow(static_cast<long double>(alpha), std::labs(z));
        total += w;
        abs += w * std::labs(z);
    }
    return static_cast<double>(abs / total);
}

}  // namespace

class TestDecisionReport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everySectionAndNoCounts();
    void numbersEqualReferences();
    void sameReportWhateverTheCounts();
    void gaussianAndMatrixReleases();
    void tableAttributes();
    void strategyRelease();
    void escapesEverything();
    void refusesBadInput();
    void plotSvg();
    void samplingSection();
    void rebuiltFromFiles();
};

void TestDecisionReport::everySectionAndNoCounts() {
    Released r = releaseFor(specFor(ReleaseMechanism::DiscreteLaplace, "1"), kCounts);
    auto report = buildDecisionReport(r.input);
    QVERIFY2(report, report ? "" : report.error().message.c_str());
    for (const char* id : {"table", "mechanism", "errors", "risk", "alternatives", "budget",
                           "samplers", "files", "provenance"}) {
        QVERIFY2(report->section(id) != nullptr, id);
    }
    const std::string html = decisionReportHtml(*report);
    checkHtml(html);
    for (std::int64_t c : kCounts) {
        QVERIFY2(!containsNumber(html, std::to_string(c)), std::to_string(c).c_str());
    }
    // The released (noisy) values are in the CSV, not in the report: each is within a few units
    // of a six-digit count, so none of them may appear either.
    for (double v : r.release.values) {
        const auto text = std::to_string(static_cast<long long>(std::llround(v)));
        QVERIFY2(!containsNumber(html, text), text.c_str());
    }
    for (const auto& f : r.input.files) {
        QVERIFY(contains(html, f.sha256));
        QVERIFY(contains(html, f.path));
    }
    QVERIFY(contains(html, "2026-01-02T03:04:05Z"));  // released
    QVERIFY(contains(html, "2026-01-02T03:05:00Z"));  // report made
    QVERIFY(contains(html, "DP Explorer 9.9-test"));
    QVERIFY(contains(html, r.release.metadata.samplerAlgorithm));
    QVERIFY(contains(html, "getrandom"));
    QVERIFY(contains(html, "ε 3 of 3 left"));
    QVERIFY(contains(html, "ε 2 of 3 left"));
    QVERIFY(contains(html, "basic composition (Dwork &amp; Roth 2014)"));
    QVERIFY(contains(html, "18-30"));  // the binning, by its labels
    // The Qt flavour: the plot is the placeholder, no inline SVG.
    const std::string qt = decisionReportHtml(*report, ReportHtmlFlavour::QtRichText);
    QVERIFY(contains(qt, kReportPlotPlaceholder));
    QVERIFY(!contains(qt, "<svg"));
    QVERIFY(contains(html, "<svg"));
}

void TestDecisionReport::numbersEqualReferences() {
    Released r = releaseFor(specFor(ReleaseMechanism::DiscreteLaplace, "1"), kCounts);
    auto report = buildDecisionReport(r.input);
    QVERIFY(report);
    const std::string html = decisionReportHtml(*report);
    // The interval sentences of the release, as core/intervals states them.
    const ReleaseIntervalStatement& iv = *r.input.metadata.intervals;
    QVERIFY(contains(html, iv.sentence));
    QVERIFY(contains(html, iv.simultaneousSentence));
    // The posterior at prior 1/2 and ε = 1: e/(e + 1) = 73.11 %.
    const double post = std::exp(1.0) / (std::exp(1.0) + 1);
    QCOMPARE(post * 100, 73.105857863000487);
    QVERIFY(contains(html, "becomes at most 73.11 % sure"));
    // At prior 1 %: e·0.01/(e·0.01 + 0.99) = 2.672 %.
    QVERIFY(contains(html, "2.672 %"));
    // The alternatives: discrete Laplace E|Z| at α = e^(−ε) by brute force, Laplace E|Z| = 1/ε.
    const ReportPlot& plot = report->plot;
    QCOMPARE(plot.series.size(), std::size_t(3));
    for (const ReportPoint& p : plot.series[0].points) {
        const double ref = bruteMeanAbs(std::exp(-p.x));
        QVERIFY2(std::abs(p.y - ref) <= 1e-9 * ref, std::to_string(p.x).c_str());
    }
    for (const ReportPoint& p : plot.series[1].points) {
        QVERIFY(std::abs(p.y - 1 / p.x) <= 1e-12 / p.x);
    }
    // The grid: ε/10 … 10ε, 25 points, and the release's ε marked.
    QCOMPARE(plot.series[0].points.size(), std::size_t(25));
    QCOMPARE(plot.series[0].points.front().x, 0.1);
    QCOMPARE(plot.series[0].points.back().x, 10.0);
    QVERIFY(plot.marker && plot.marker->x == 1.0);
    // The discrete Laplace is below the Laplace everywhere (E|Z| = 2α/(1 − α²) < 1/ε), so the
    // frontier is one segment won by it.
    const ReportSection* alt = report->section("alternatives");
    QVERIFY(alt && alt->tables.size() == 2);
    QCOMPARE(alt->tables[1].rows.size(), std::size_t(1));
    QVERIFY(contains(alt->tables[1].rows[0][2], "discrete Laplace"));
    // The release's own noise per count.
    const double alpha = std::exp(-1.0);
    const double meanAbs = 2 * alpha / (1 - alpha * alpha);
    QVERIFY(std::abs(meanAbs - bruteMeanAbs(alpha)) < 1e-12);
    QVERIFY(contains(html, "mean absolute error 0.8509"));
}

void TestDecisionReport::sameReportWhateverTheCounts() {
    const ReleaseSpec spec = specFor(ReleaseMechanism::DiscreteLaplace, "0.5");
    Released a = releaseFor(spec, kCounts);
    Released b = releaseFor(spec, {0, 1, 2, 3});
    auto ra = buildDecisionReport(a.input);
    auto rb = buildDecisionReport(b.input);
    QVERIFY(ra && rb);
    QCOMPARE(decisionReportHtml(*ra), decisionReportHtml(*rb));
}

void TestDecisionReport::gaussianAndMatrixReleases() {
    Released g =
        releaseFor(specFor(ReleaseMechanism::DiscreteGaussian, "0.5", "1e-6"), {1, 2, 3, 4});
    auto rg = buildDecisionReport(g.input);
    QVERIFY2(rg, rg ? "" : rg.error().message.c_str());
    const std::string hg = decisionReportHtml(*rg);
    checkHtml(hg);
    QVERIFY(contains(hg, "except on outputs of total probability"));
    QVERIFY(contains(hg, "δ achieved"));
    QVERIFY(contains(hg, "Gaussian, δ = 1e-06"));
    // GM: the noise depends on the count, so no expected error is stated, only the intervals.
    Released m = releaseFor(specFor(ReleaseMechanism::GeometricMatrix, "1"), {1, 2, 3, 4});
    auto rm = buildDecisionReport(m.input);
    QVERIFY2(rm, rm ? "" : rm.error().message.c_str());
    const std::string hm = decisionReportHtml(*rm);
    QVERIFY(contains(hm, "depends on the count"));
    QVERIFY(contains(hm, "GM itself is not drawn"));
    // Resize: no interval is stated, and the report says why.
    ReleaseSpec rs = specFor(ReleaseMechanism::DiscreteLaplace, "1");
    rs.postProcessing = EstimatorKind::Resize;
    Released z = releaseFor(rs, {1, 2, 3, 4});
    auto rz = buildDecisionReport(z.input);
    QVERIFY(rz);
    QVERIFY(contains(decisionReportHtml(*rz), "No interval is stated"));
}

void TestDecisionReport::tableAttributes() {
    Released r = releaseFor(specFor(ReleaseMechanism::DiscreteLaplace, "1"), kCounts);
    r.input.metadata.attributes = {
        {"sex", "categories F, M", {"F", "M"}, {}, true},
        {"income", "categories <=50K, >50K", {"<=50K", ">50K"}, {}, true}};
    auto report = buildDecisionReport(r.input);
    QVERIFY(report);
    const ReportSection* t = report->section("table");
    QVERIFY(t && t->tables.size() == 1);
    QCOMPARE(t->tables[0].rows.size(), std::size_t(2));
    QCOMPARE(t->tables[0].rows[1][0], std::string("income"));
    const std::string html = decisionReportHtml(*report);
    QVERIFY(contains(html, "&lt;=50K, &gt;50K"));
}

// A release through a designed strategy: a Strategy section with the workload, the design, the
// integer strategy and its expected RMSE; the alternatives at the histogram's own sensitivity
// (equal to a direct discrete Laplace release's, not Δ1(K) times larger); no count and no noisy
// measurement in the HTML.
void TestDecisionReport::strategyRelease() {
    const ReleaseSpec spec = specFor(ReleaseMechanism::DiscreteLaplace, "1");
    auto w = Workload::make(WorkloadSpec::parse("allrange").value(), DomainShape{4});
    QVERIFY(w);
    auto plan = planStrategyRelease(std::make_shared<const Workload>(std::move(w).value()),
                                    DesignTemplate::PIdentity);
    QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
    auto truth = Histogram::create(kCounts, {"18-30", "31-45", "46-60", "61+"});
    ReleaseRandomness rng;
    auto rel = releaseThroughStrategy(spec, *plan, *truth, rng);
    QVERIFY2(rel, rel ? "" : rel.error().message.c_str());
    Released direct = releaseFor(spec, kCounts);
    DecisionReportInput in = direct.input;
    in.metadata = rel->metadata;
    auto r = buildDecisionReport(in);
    QVERIFY2(r, r ? "" : r.error().message.c_str());
    const ReportSection* st = r->section("strategy");
    QVERIFY(st != nullptr);
    const std::string html = decisionReportHtml(*r);
    checkHtml(html);
    QVERIFY(contains(html, "Strategy (matrix mechanism)"));
    QVERIFY(contains(html, rel->metadata.strategy->templateName));
    QVERIFY(contains(html, "10 queries"));  // AllRange(4): 4·5/2
    QVERIFY(contains(html, "Expected RMSE on the workload"));
    for (std::int64_t c : kCounts) {
        QVERIFY(!containsNumber(html, std::to_string(c)));
    }
    for (std::int64_t m : rel->metadata.strategy->measurements) {
        if (std::llabs(m) >= 1000) {  // small numbers occur in any text
            QVERIFY(!containsNumber(html, std::to_string(m)));
        }
    }
    // The alternatives: the same curves as for a direct release of the same table.
    auto rd = buildDecisionReport(direct.input);
    QVERIFY(rd);
    QCOMPARE(r->plot.series.size(), rd->plot.series.size());
    for (std::size_t i = 0; i < r->plot.series.size(); ++i) {
        QCOMPARE(r->plot.series[i].points.size(), rd->plot.series[i].points.size());
        for (std::size_t j = 0; j < r->plot.series[i].points.size(); ++j) {
            QCOMPARE(r->plot.series[i].points[j].y, rd->plot.series[i].points[j].y);
        }
    }
    QVERIFY(contains(html, "went through a strategy"));
    QVERIFY(!contains(decisionReportHtml(*rd), "Strategy (matrix mechanism)"));
}

void TestDecisionReport::escapesEverything() {
    ReleaseSpec spec = specFor(ReleaseMechanism::DiscreteLaplace, "1");
    Released r = releaseFor(spec, kCounts);
    const std::string evil = "<script>alert('x')</script>\"&";
    r.input.metadata.source = evil;
    r.input.budget.dataset = evil;
    r.input.files[0].path = evil;
    auto report = buildDecisionReport(r.input);
    QVERIFY(report);
    for (auto flavour : {ReportHtmlFlavour::Standalone, ReportHtmlFlavour::QtRichText}) {
        const std::string html = decisionReportHtml(*report, flavour);
        QVERIFY(!contains(html, "<script"));
        QVERIFY(contains(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;"));
    }
    QCOMPARE(htmlEscape("a<b>&\"'"), std::string("a&lt;b&gt;&amp;&quot;&#39;"));
    ReportPlot plot = report->plot;
    plot.series[0].label = evil;
    QVERIFY(!contains(decisionReportPlotSvg(plot), "<script"));
}

void TestDecisionReport::refusesBadInput() {
    Released r = releaseFor(specFor(ReleaseMechanism::DiscreteLaplace, "1"), kCounts);
    DecisionReportInput in = r.input;
    in.prior = 0;
    auto e1 = buildDecisionReport(in);
    QVERIFY(!e1);
    QVERIFY(contains(e1.error().message, "prior"));
    in = r.input;
    in.bins = 0;
    auto e2 = buildDecisionReport(in);
    QVERIFY(!e2);
    QVERIFY(contains(e2.error().message, "no bins"));
    in = r.input;
    in.spec.epsilon = "-1";
    auto e3 = buildDecisionReport(in);
    QVERIFY(!e3);
    QVERIFY(contains(e3.error().message, "epsilon"));
    in = r.input;
    in.points = 1;
    QVERIFY(!buildDecisionReport(in));
}

void TestDecisionReport::plotSvg() {
    ReportPlot plot;
    plot.title = "t";
    plot.series.push_back({"a", {{0.1, 10}, {1, 1}, {10, 0.1}}, "#1f77b4", false});
    plot.marker = ReportPoint{1, 0};
    plot.markerLabel = "release";
    const std::string svg = decisionReportPlotSvg(plot, 640, 400);
    QVERIFY(svg.rfind("<svg", 0) == 0);
    QVERIFY(contains(svg, "</svg>\n"));
    QVERIFY(contains(svg, "<path d=\" M 70.00"));  // the first point at the left edge
    QVERIFY(contains(svg, ">release</text>"));
    // Nothing drawable: an empty frame that says so, no path.
    ReportPlot empty;
    const std::string none = decisionReportPlotSvg(empty);
    QVERIFY(contains(none, "no curve to draw"));
    QVERIFY(!contains(none, "<path"));
}

// Issue #22: a release declared a sample of N (discrete Laplace, ε = 1, no post-processing) has
// a "Sampling error and DP noise" section between the errors and the attacker, whose per-count
// half-widths equal independent closed forms: sampling z·N·√(p(1−p)/n·(N−n)/(N−1)) with
// p = v/n, n = Σv (Cochran 1977, §3.3, with z = Φ⁻¹(0.975) = 1.959963984540054), DP noise
// (N/n)·h with h the release's own per-count half-width; and the combined one between the larger
// of the two and their sum. No count and no released value appears in it.
void TestDecisionReport::samplingSection() {
    ReleaseSpec spec = specFor(ReleaseMechanism::DiscreteLaplace, "1");
    spec.samplePopulation = 1e7;
    Released r = releaseFor(spec, kCounts);
    auto sm = releaseSamplingIntervals(spec, r.release.values);
    QVERIFY2(sm, sm ? "" : sm.error().message.c_str());
    r.input.metadata.sampling = *sm;
    auto report = buildDecisionReport(r.input);
    QVERIFY2(report, report ? "" : report.error().message.c_str());
    std::vector<std::string> ids;
    for (const ReportSection& x : report->sections) {
        ids.push_back(x.id);
    }
    const auto at = std::find(ids.begin(), ids.end(), "sampling");
    QVERIFY(at != ids.end() && at != ids.begin());
    QCOMPARE(*(at - 1), std::string("errors"));
    QCOMPARE(*(at + 1), std::string("risk"));
    const ReportSection* s = report->section("sampling");
    QCOMPARE(s->paragraphs.at(0), sm->sentence);
    QVERIFY(s->paragraphs.at(1).find("only a larger sample reduces it") != std::string::npos);
    QCOMPARE(s->rows.at(0).value, std::string("10000000 (declared)"));
    const ReportTable& t = s->tables.at(0);
    QCOMPARE(t.rows.size(), kCounts.size() + 1);
    double n = 0;
    for (double v : r.release.values) {
        n += v;
    }
    const double N = 1e7, z = 1.959963984540054;
    const double h = r.release.metadata.intervals->halfWidth;
    for (std::size_t i = 0; i < kCounts.size(); ++i) {
        const double p = r.release.values[i] / n;
        const double sampling = z * N * std::sqrt(p * (1 - p) / n * (N - n) / (N - 1));
        const double noise = N / n * h;
        const double shownSampling = std::stod(t.rows[i][1]);
        const double shownNoise = std::stod(t.rows[i][2]);
        const double shownBoth = std::stod(t.rows[i][3]);
        QVERIFY2(std::abs(shownSampling - sampling) <= 5e-4 * sampling,
                 (t.rows[i][1] + " vs " + std::to_string(sampling)).c_str());
        QVERIFY2(std::abs(shownNoise - noise) <= 5e-4 * noise,
                 (t.rows[i][2] + " vs " + std::to_string(noise)).c_str());
        QVERIFY(shownBoth >= std::max(shownSampling, shownNoise) * (1 - 5e-4));
        QVERIFY(shownBoth <= (shownSampling + shownNoise) * (1 + 5e-4));
        QCOMPARE(t.rows[i][0], r.release.metadata.binLabels[i]);
    }
    const std::string html = decisionReportHtml(*report);
    checkHtml(html);
    for (std::int64_t c : kCounts) {
        QVERIFY2(!containsNumber(html, std::to_string(c)), std::to_string(c).c_str());
    }
    for (double v : r.release.values) {
        const auto text = std::to_string(static_cast<long long>(std::llround(v)));
        QVERIFY2(!containsNumber(html, text), text.c_str());
    }
    // Not declared a sample: no such section.
    Released plain = releaseFor(specFor(ReleaseMechanism::DiscreteLaplace, "1"), kCounts);
    auto none = buildDecisionReport(plain.input);
    QVERIFY(none && none->section("sampling") == nullptr);
}

// A report rebuilt from the files (dpx report --release) says so under its title, names the
// version that rebuilt it, and without a ledger states no budget and no ledger total.
void TestDecisionReport::rebuiltFromFiles() {
    Released r = releaseFor(specFor(ReleaseMechanism::DiscreteLaplace, "1"), kCounts);
    auto made = buildDecisionReport(r.input);
    QVERIFY(made && made->rebuiltNote.empty());
    QVERIFY(!contains(decisionReportHtml(*made), "Rebuilt on"));
    r.input.rebuiltFromFiles = true;
    r.input.reportToolVersion = "10.0-later";
    auto withLedger = buildDecisionReport(r.input);
    QVERIFY(withLedger);
    QCOMPARE(withLedger->rebuiltNote,
             std::string("Rebuilt on 2026-01-02T03:05:00Z from the release files of "
                         "2026-01-02T03:04:05Z, not written at the time of the release; the "
                         "files' SHA-256 match the ledger's record."));
    QCOMPARE(withLedger->appVersion, std::string("10.0-later"));
    const std::string html = decisionReportHtml(*withLedger);
    checkHtml(html);
    QVERIFY(contains(html, "Rebuilt on 2026-01-02T03:05:00Z"));
    QVERIFY(contains(html, "DP Explorer 9.9-test"));    // the release's tool
    QVERIFY(contains(html, "DP Explorer 10.0-later"));  // the report's
    QVERIFY(contains(html, "ε 2 of 3 left"));
    r.input.ledgerGiven = false;
    r.input.budget = DecisionReportBudget{};
    auto noLedger = buildDecisionReport(r.input);
    QVERIFY(noLedger);
    QVERIFY(noLedger->rebuiltNote.find("no ledger was given") != std::string::npos);
    const ReportSection* b = noLedger->section("budget");
    QVERIFY(b && b->paragraphs.at(0).rfind("Not stated", 0) == 0);
    QCOMPARE(b->rows.size(), std::size_t(1));
    const ReportSection* m = noLedger->section("mechanism");
    QVERIFY(m);
    bool accountant = false;
    for (const ReportRow& row : m->rows) {
        accountant = accountant || (row.key == "Accountant (ledger)" &&
                                    row.value == "not known (no ledger given)");
    }
    QVERIFY(accountant);
    checkHtml(decisionReportHtml(*noLedger));
}

QTEST_APPLESS_MAIN(TestDecisionReport)
#include "tst_decision_report.moc"
