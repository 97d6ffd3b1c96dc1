#include "core/report/decision_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "core/accounting/accountant.h"
#include "core/base/noise_distribution.h"
#include "core/base/validation.h"
#include "core/choosing/risk.h"
#include "core/choosing/tradeoff.h"
#include "core/histogram/dataset.h"
#include "core/intervals/intervals.h"

namespace dpx {

namespace {

// Up to `digits` significant digits, no trailing zeros ("0.3679", "12.5", "1.2e-07").
std::string sig(double v, int digits = 4) {
    if (!std::isfinite(v)) {
        return v > 0 ? "∞" : "not finite";
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

std::string percent(double p) {
    if (p >= 0.99995 && p < 1) {
        return "> 99.99 %";
    }
    return sig(100 * p, 4) + " %";
}

const char* mechanismTitle(ReleaseMechanism m) {
    switch (m) {
        case ReleaseMechanism::DiscreteLaplace:
            return "discrete Laplace (two-sided geometric) noise in every bin (Ghosh, Roughgarden "
                   "& Sundararajan 2009; exact sampler of Canonne, Kamath & Steinke 2020)";
        case ReleaseMechanism::DiscreteGaussian:
            return "discrete Gaussian noise in every bin (Canonne, Kamath & Steinke 2020)";
        case ReleaseMechanism::GeometricMatrix:
            return "truncated geometric mechanism GM on 0…n in every bin (Ghosh, Roughgarden & "
                   "Sundararajan 2009)";
    }
    return "";
}

// The ledger's composition as the accountant that charges it, by its title with authors.
std::string accountantText(const std::string& composition) {
    if (auto a = accounting::accountantFromName(composition)) {
        return std::string(accounting::accountantTitle(*a));
    }
    return composition;
}

std::string joinLabels(const std::vector<std::string>& labels, std::size_t most = 16) {
    std::string s;
    for (std::size_t i = 0; i < labels.size() && i < most; ++i) {
        s += (i ? ", " : "") + labels[i];
    }
    if (labels.size() > most) {
        s += ", … (" + groupThousands(static_cast<long long>(labels.size())) + " in all)";
    }
    return s;
}

ReportSection tableSection(const DecisionReportInput& in) {
    const ReleaseMetadata& md = in.metadata;
    ReportSection s;
    s.id = "table";
    s.heading = "The table released";
    s.paragraphs.push_back(
        "This report shows no count: neither the counts before noise (they appear nowhere) nor "
        "the released values (they are in the CSV file listed under \"Release files\").");
    s.rows.push_back({"Data", md.source});
    if (!in.budget.dataset.empty() && in.budget.dataset != md.source) {
        s.rows.push_back({"Dataset (ledger)", in.budget.dataset});
    }
    const std::string cells = groupThousands(static_cast<long long>(in.bins));
    if (md.attributes.empty()) {
        s.rows.push_back({"Bins", cells + " declared before the data were read"});
        s.rows.push_back({"Bin labels", joinLabels(md.binLabels)});
        if (!md.binEdges.empty()) {
            s.rows.push_back({"Bin edges", "from " + formatShortest(md.binEdges.front()) + " to " +
                                               formatShortest(md.binEdges.back())});
        }
    } else {
        s.rows.push_back({"Cells", cells + " (every combination of the attributes' bins)"});
        ReportTable t;
        t.header = {"Attribute", "Binning", "Bins"};
        for (const ReleaseAttribute& a : md.attributes) {
            t.rows.push_back({a.name, a.binning + (a.declared ? "" : " (not declared)"),
                              joinLabels(a.labels, 8)});
        }
        s.tables.push_back(std::move(t));
    }
    s.rows.push_back({"Post-processing", md.postProcessing == "identity"
                                             ? std::string("none (the noisy counts as drawn)")
                                             : md.postProcessing});
    return s;
}

ReportSection mechanismSection(const DecisionReportInput& in) {
    const ReleaseMetadata& md = in.metadata;
    ReportSection s;
    s.id = "mechanism";
    s.heading = "Mechanism and privacy guarantee";
    s.paragraphs.push_back(md.guarantee);
    s.rows.push_back({"Mechanism", md.mechanism + ": " + mechanismTitle(in.spec.mechanism)});
    s.rows.push_back({"ε", md.epsilon + (md.epsilonExact.empty() || md.epsilonExact == md.epsilon
                                             ? std::string()
                                             : " (exactly " + md.epsilonExact + ")")});
    const bool pure = md.delta.empty() || md.delta == "0";
    s.rows.push_back({"δ", pure ? std::string("0 (pure ε-differential privacy)") : md.delta});
    if (!md.deltaAchieved.empty() && md.deltaAchieved != "0") {
        s.rows.push_back({"δ achieved", md.deltaAchieved + " (at the calibrated σ², rounded up)"});
    }
    s.rows.push_back({"ρ (zCDP, Bun & Steinke 2016)", md.rho});
    s.rows.push_back({"Noise", md.noiseParameter});
    s.rows.push_back({"Neighbouring datasets",
                      md.neighbouring + ", at most " + std::to_string(md.contributionCap) +
                          (md.contributionCap == 1 ? " row" : " rows") + " per person"});
    s.rows.push_back({"Sensitivity", "Δ1 = " + std::to_string(md.l1Sensitivity) +
                                         ", Δ2² = " + std::to_string(md.l2SensitivitySquared)});
    s.rows.push_back({"Accountant (ledger)", in.rebuiltFromFiles && !in.ledgerGiven
                                                 ? std::string("not known (no ledger given)")
                                                 : accountantText(in.budget.composition)});
    s.notes = md.notes;
    return s;
}

// A release through a designed strategy (core/matrix_mechanism/strategy_release): what was
// measured, how the counts were inferred and the strategy's expected error on its workload.
ReportSection strategySection(const DecisionReportInput& in) {
    const StrategyReleaseStatement& st = *in.metadata.strategy;
    ReportSection s;
    s.id = "strategy";
    s.heading = "Strategy (matrix mechanism)";
    s.paragraphs.push_back(
        "The counts were not measured one by one: a strategy designed for the workload without "
        "the data (HDMM, McKenna, Miklau, Hay & Machanavajjhala 2018) was rounded to integer "
        "queries, their " +
        groupThousands(static_cast<long long>(st.measurements.size())) +
        " exact answers received the noise below, and the published counts are the least-squares "
        "fit to the noisy answers (the matrix mechanism, Li, Miklau, Hay, McGregor & Rastogi "
        "2015). The strategy and the noisy answers are in the release's JSON, so anyone can "
        "answer further queries from them without spending more budget.");
    s.rows.push_back(
        {"Workload",
         st.workload + " (" + groupThousands(static_cast<long long>(st.queries)) + " queries)"});
    s.rows.push_back({"Design", st.templateName});
    s.rows.push_back({"Measured as", st.integerStrategy});
    s.rows.push_back({"Δ1 of the integer strategy",
                      std::to_string(st.strategyL1) + " (one record changing one cell by one)"});
    s.rows.push_back({"Noise per measurement", in.metadata.noiseParameter});
    s.rows.push_back({"Expected RMSE on the workload",
                      sig(st.expectedRmse) + " per query (exact: depends on the strategy and ε, "
                                             "not on the data)"});
    s.rows.push_back({"Rounding to integers", "error " + sig(100 * st.roundingLoss, 3) +
                                                  " % above the designed strategy's"});
    s.rows.push_back({"Inference", st.inference});
    if (!st.publishedMarginals.empty()) {
        // Issue #23: an OPT_M strategy without the full table determines the workload's
        // marginals, not the cells.
        s.paragraphs.push_back(
            "The strategy does not measure the full table, so the cells are not determined by "
            "what was measured; the CSV publishes the workload's " +
            std::to_string(st.publishedMarginals.size()) +
            " marginals instead (listed in the JSON's strategy block), each count unbiased and "
            "with its own interval.");
    }
    return s;
}

Expected<ReportSection> errorsSection(const DecisionReportInput& in) {
    const ReleaseMetadata& md = in.metadata;
    ReportSection s;
    s.id = "errors";
    s.heading = "Expected errors and intervals";
    if (md.intervals) {
        const ReleaseIntervalStatement& iv = *md.intervals;
        s.paragraphs.push_back(iv.sentence);
        s.paragraphs.push_back(iv.simultaneousSentence);
        s.rows.push_back({"Level", levelPercentText(iv.level)});
        s.rows.push_back({"Each count", "± " + halfWidthText(iv.halfWidth) + " (exact coverage " +
                                            sig(iv.coverage, 6) + "; " + iv.method + ")"});
        s.rows.push_back({"All counts at once", "± " + halfWidthText(iv.simultaneousHalfWidth) +
                                                    " (" + iv.simultaneousMethod + ")"});
    } else {
        s.paragraphs.push_back(
            "No interval is stated: " + md.postProcessing +
            " changes each value by an amount that depends on every bin, which the noise law "
            "alone does not bound.");
    }
    // The noise's own spread per bin, from the noise law of the spec (never the data).
    auto law = releaseNoiseLaw(in.spec);
    if (!law) {
        return law.error();
    }
    if (md.strategy) {
        s.rows.push_back({"Noise per count",
                          "each count is a least-squares combination of noisy measurements "
                          "(see Strategy): its own ± is in the intervals above and in the "
                          "CSV's lower/upper columns"});
        return s;
    }
    switch (in.spec.mechanism) {
        case ReleaseMechanism::DiscreteLaplace: {
            const NoiseDistribution noise = NoiseDistribution::discreteLaplace(law->alpha);
            s.rows.push_back({"Noise per count", "mean absolute error " + sig(noise.meanAbs()) +
                                                     ", standard deviation " +
                                                     sig(std::sqrt(noise.variance())) +
                                                     " (α = e^(−ε/Δ1) = " + sig(law->alpha, 6) +
                                                     "; E|Z| = 2α/(1 − α²), Var Z = 2α/(1 − α)²)"});
            break;
        }
        case ReleaseMechanism::DiscreteGaussian:
            s.rows.push_back({"Noise per count",
                              "standard deviation at most σ = " + sig(std::sqrt(law->sigma2)) +
                                  " (the discrete Gaussian's variance is below σ² = " +
                                  sig(law->sigma2, 6) + ", Canonne, Kamath & Steinke 2020)"});
            break;
        case ReleaseMechanism::GeometricMatrix:
            s.rows.push_back({"Noise per count",
                              "depends on the count (GM's output law is one column of its matrix "
                              "per count 0…n): only the worst-case intervals above are stated"});
            break;
    }
    if (in.spec.postProcessing == EstimatorKind::Clamp) {
        s.notes.push_back(
            "Negative values were set to 0 (clamp): this never moves a value away from a count ≥ "
            "0, so the errors and intervals above still hold and can only be smaller.");
    } else if (in.spec.postProcessing != EstimatorKind::Identity) {
        s.notes.push_back("The noise above is before " + md.postProcessing +
                          "; its errors after post-processing depend on the counts and are not "
                          "stated.");
    }
    return s;
}

// The data were declared a sample of a population (issue #22; ReleaseSamplingStatement): the
// sampling error, the DP noise and both together, per published value, and the sentence that
// keeps the two apart (DP Wizard #267). Every number is the metadata's and the CSV's, computed
// from the published values and the declared N and D only.
ReportSection samplingSection(const DecisionReportInput& in) {
    const ReleaseSamplingStatement& sm = *in.metadata.sampling;
    ReportSection s;
    s.id = "sampling";
    s.heading = "Sampling error and DP noise";
    s.paragraphs.push_back(sm.sentence);
    s.paragraphs.push_back(
        "These are two different errors. The DP noise was added on purpose by this release to "
        "protect each person; a larger ε would make it smaller. The sampling error comes from "
        "counting a sample of " +
        formatShortest(sm.sampleSize) + " people instead of all " +
        formatShortest(sm.populationSize) +
        ": it would be there without any privacy protection, and only a larger sample reduces "
        "it. The combined interval covers both at once.");
    s.rows.push_back({"Population size N", formatShortest(sm.populationSize) + " (declared)"});
    s.rows.push_back(
        {"Design effect D",
         formatShortest(sm.designEffect) +
             (sm.designEffect == 1 ? std::string(" (a simple random sample)")
                                   : std::string(" (declared for a weighted survey: the "
                                                 "effective sample is n/D, Kish 1965)"))});
    s.rows.push_back({"Sample size n", formatShortest(sm.sampleSize) +
                                           " (the sum of the published values, never the "
                                           "true counts)"});
    s.rows.push_back({"Level", levelPercentText(sm.level)});
    s.rows.push_back({"Method", sm.method});
    const std::size_t n = std::min({sm.sampling.size(), sm.noise.size(), sm.combined.size()});
    double maxSampling = 0, maxNoise = 0, maxCombined = 0;
    for (std::size_t i = 0; i < n; ++i) {
        maxSampling = std::max(maxSampling, sm.sampling[i]);
        maxNoise = std::max(maxNoise, sm.noise[i]);
        maxCombined = std::max(maxCombined, sm.combined[i]);
    }
    ReportTable t;
    t.header = {"Population count of", "Sampling error ±", "DP noise ±", "Both ±"};
    constexpr std::size_t kMostRows = 24;
    const auto& labels = in.metadata.binLabels;
    for (std::size_t i = 0; i < n && i < kMostRows; ++i) {
        t.rows.push_back({i < labels.size() ? labels[i] : std::to_string(i + 1),
                          halfWidthText(sm.sampling[i]), halfWidthText(sm.noise[i]),
                          halfWidthText(sm.combined[i])});
    }
    if (n > 0) {
        t.rows.push_back({"largest of all " + groupThousands(static_cast<long long>(n)),
                          halfWidthText(maxSampling), halfWidthText(maxNoise),
                          halfWidthText(maxCombined)});
    }
    s.tables.push_back(std::move(t));
    if (n > kMostRows) {
        s.notes.push_back("The first " + std::to_string(kMostRows) + " of " +
                          groupThousands(static_cast<long long>(n)) +
                          " values; every one is in the CSV's sampling_half_width, "
                          "noise_half_width and combined_half_width columns.");
    }
    s.notes.push_back(
        "The population estimates themselves (population_estimate = value × N / n) are in the "
        "CSV; this report shows no count.");
    return s;
}

Expected<ReportSection> riskSection(const DecisionReportInput& in) {
    ReportSection s;
    s.id = "risk";
    s.heading = "What an attacker can learn";
    const double eps = parseDecimal(in.spec.epsilon).value().toDouble();
    const double delta =
        in.spec.delta.empty() ? 0.0 : parseDecimal(in.spec.delta).value().toDouble();
    const PrivacyLevel level{eps, delta};
    auto b = posteriorBound(in.prior, level);
    if (!b) {
        return b.error();
    }
    // The Risk tab's sentence (ui/tabs/risk_tab.cpp), from the same core bound.
    std::string who = "Someone " + sig(100 * in.prior, 4) +
                      " % sure that a given person is in the data becomes at most " +
                      percent(b->posterior) + " sure after seeing this release";
    who += delta > 0
               ? ", except on outputs of total probability ≤ " + sig(b->failureProbability) + "."
               : ", whatever the output.";
    s.paragraphs.push_back(who);
    auto auc = maxAuc(level);
    if (!auc) {
        return auc.error();
    }
    s.paragraphs.push_back("Best possible membership-attack AUC: " + sig(*auc, 6) +
                           " (0.5 = guessing; Kairouz, Oh & Viswanath 2015).");
    const double beta = tradeoffEpsDelta(eps, delta, 0.05);
    s.paragraphs.push_back(
        "An attacker who wrongly accuses at most 5 % of the people not in the data misses at "
        "least " +
        percent(beta) +
        " of the people in it (the hypothesis-testing region of (ε, δ)-DP; Dong, "
        "Roth & Su 2022).");
    ReportTable t;
    t.header = {"Belief before", "Largest belief after (this release)",
                "After every release on the ledger"};
    const PrivacyLevel total{in.budget.epsilonSpentAfter, std::min(1.0, in.budget.deltaSpentAfter)};
    const bool haveTotal = static_cast<bool>(total.validate());
    for (double p : {0.01, 0.1, 0.5}) {
        auto one = posteriorBound(p, level);
        if (!one) {
            return one.error();
        }
        std::string all = "—";
        if (haveTotal) {
            if (auto tb = posteriorBound(p, total)) {
                all = percent(tb->posterior);
            }
        }
        t.rows.push_back({percent(p), percent(one->posterior), all});
    }
    s.tables.push_back(std::move(t));
    s.notes.push_back(
        "Posterior odds ≤ e^ε × prior odds (Dwork & Roth 2014 §2.3; Kasiviswanathan & Smith 2014)" +
        std::string(delta > 0 ? "; with δ > 0 the bound uses ε + ln 2 and may fail on outputs of "
                                "total probability ≤ 2δ."
                              : "."));
    if (in.rebuiltFromFiles && !in.ledgerGiven) {
        s.notes.push_back(
            "The last column needs the ledger, which was not given when this report was rebuilt.");
    }
    if (haveTotal) {
        s.notes.push_back("The last column is the ledger's total after this release (ε = " +
                          sig(total.epsilon, 6) + ", δ = " + sig(total.delta, 6) + ", " +
                          accountantText(in.budget.composition) +
                          "): what an attacker who sees every release of this dataset can learn.");
    }
    return s;
}

constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

Expected<ReportSection> alternativesSection(const DecisionReportInput& in, ReportPlot& plot) {
    ReportSection s;
    s.id = "alternatives";
    s.heading = "Alternatives compared";
    const double eps = parseDecimal(in.spec.epsilon).value().toDouble();
    const double delta =
        in.spec.delta.empty() ? 0.0 : parseDecimal(in.spec.delta).value().toDouble();
    const double gaussDelta = delta > 0 ? delta : 1e-6;
    auto grid = logSpacedEpsilons(eps / 10, eps * 10, in.points);
    if (!grid) {
        return grid.error();
    }
    // A histogram of ones (a public placeholder, not the data): the identity estimator's expected
    // L1 error is Σ E|Z_i|, which does not depend on the counts (see the header), so no data enter
    // the curves. (Ones, not zeros: errorCurve wants at least one record.)
    auto zeros = Histogram::create(std::vector<std::int64_t>(in.bins, 1));
    if (!zeros) {
        return zeros.error();
    }
    // A strategy release's metadata states the strategy's sensitivity (Δ1(K) times the cap);
    // the alternatives measure the counts directly, at the histogram's own sensitivity.
    const bool strategy = in.metadata.strategy.has_value();
    const Sensitivity sens{
        static_cast<double>(strategy ? releaseL1Sensitivity(in.spec) : in.metadata.l1Sensitivity),
        std::sqrt(static_cast<double>(strategy ? releaseL2SensitivitySquared(in.spec)
                                               : in.metadata.l2SensitivitySquared)),
        true};
    struct Alt {
        TradeoffMechanism mechanism;
        std::string label;
    };
    const std::vector<Alt> alts = {
        {TradeoffMechanism::Geometric,
         "discrete Laplace / geometric (Ghosh, Roughgarden & Sundararajan 2009)"},
        {TradeoffMechanism::Laplace, "Laplace (Dwork, McSherry, Nissim & Smith 2006)"},
        {TradeoffMechanism::Gaussian,
         "Gaussian, δ = " + sig(gaussDelta) + " (analytic calibration, Balle & Wang 2018)"},
    };
    std::vector<ErrorCurve> curves;
    CurveOptions opt;
    opt.threads = 1;
    for (const Alt& alt : alts) {
        TradeoffConfig c;
        c.mechanism = alt.mechanism;
        c.delta = gaussDelta;
        c.sensitivity = sens;
        c.estimator = EstimatorKind::Identity;
        c.metric = MetricSpec{Metric::L1, Scale::Counts};
        c.label = alt.label;
        auto curve = errorCurve(*zeros, c, *grid, opt);
        if (!curve) {
            return Error{"alternatives: " + alt.label + ": " + curve.error().message};
        }
        // Per count: the expected L1 error of the table divided by its bins.
        for (CurvePoint& p : curve->points) {
            if (!p.exact) {
                return Error{"alternatives: " + alt.label + " has no exact expected error at ε = " +
                             sig(p.epsilon) + " (" + p.method + ")"};
            }
            p.value /= static_cast<double>(in.bins);
            p.ciLow = p.ciHigh = p.value;
        }
        curves.push_back(std::move(curve).value());
    }
    s.paragraphs.push_back(
        "The expected absolute error of one count over ε, for the same table (" +
        groupThousands(static_cast<long long>(in.bins)) +
        " bins, the same sensitivity), with no post-processing: exact closed forms, which do not "
        "depend on the counts. The frontier is the lowest curve at each ε (as on DPComp.org, Hay "
        "et al. 2016).");
    plot.title = "Expected absolute error of one count";
    plot.xLabel = "ε (log scale)";
    plot.yLabel = "E|error| per count (log scale)";
    for (std::size_t i = 0; i < curves.size(); ++i) {
        ReportSeries series;
        series.label = curves[i].label;
        series.colour = kColours[i % 4];
        series.dashed = i == 1;
        for (const CurvePoint& p : curves[i].points) {
            series.points.push_back({p.epsilon, p.value});
        }
        plot.series.push_back(std::move(series));
    }
    plot.marker = ReportPoint{eps, 0};
    plot.markerLabel = "this release: ε = " + in.spec.epsilon;
    s.hasPlot = true;

    ReportTable values;
    values.header = {"Noise", "ε/2 = " + sig(eps / 2), "ε = " + sig(eps), "2ε = " + sig(2 * eps)};
    for (const ErrorCurve& c : curves) {
        std::vector<std::string> row{c.label};
        for (double e : {eps / 2, eps, 2 * eps}) {
            row.push_back(sig(curveValueAt(c, e)));
        }
        values.rows.push_back(std::move(row));
    }
    s.tables.push_back(std::move(values));
    const Frontier f = lowerEnvelope(curves);
    ReportTable frontier;
    frontier.header = {"Frontier: from ε", "to ε", "lowest error"};
    for (const FrontierSegment& seg : f.segments) {
        frontier.rows.push_back({sig(seg.epsilonFrom), sig(seg.epsilonTo), seg.label});
    }
    s.tables.push_back(std::move(frontier));
    if (delta == 0) {
        s.notes.push_back("The Gaussian curve is (ε, " + sig(gaussDelta) +
                          ")-DP, a weaker guarantee than this release's pure ε-DP.");
    }
    if (strategy) {
        s.notes.push_back(
            "These curves measure every count directly. The release went through a strategy "
            "instead (see Strategy): its expected RMSE on its workload of " +
            groupThousands(static_cast<long long>(in.metadata.strategy->queries)) + " queries is " +
            sig(in.metadata.strategy->expectedRmse) + " at ε = " + in.spec.epsilon +
            "; per count it is better or worse than these depending on the "
            "workload, which is what the design optimised.");
    }
    if (in.spec.mechanism == ReleaseMechanism::GeometricMatrix) {
        s.notes.push_back(
            "GM itself is not drawn: its error depends on the counts, which this report does not "
            "use.");
    }
    if (in.spec.mechanism == ReleaseMechanism::DiscreteGaussian) {
        s.notes.push_back(
            "The release's discrete Gaussian is calibrated by Canonne, Kamath & Steinke 2020; the "
            "continuous Gaussian curve is the nearest alternative, not the release itself.");
    }
    return s;
}

ReportSection budgetSection(const DecisionReportInput& in) {
    const DecisionReportBudget& b = in.budget;
    ReportSection s;
    s.id = "budget";
    s.heading = "Privacy budget before and after";
    if (in.rebuiltFromFiles && !in.ledgerGiven) {
        s.paragraphs.push_back(
            "Not stated: this report was rebuilt from the release files without the ledger that "
            "charged the release, so neither the budget before and after it nor the other "
            "releases of the dataset are known here. Rebuild it with the ledger to state them.");
        s.rows.push_back({"This release", "ε = " + in.metadata.epsilon +
                                              (in.metadata.delta.empty() || in.metadata.delta == "0"
                                                   ? std::string()
                                                   : ", δ = " + in.metadata.delta) +
                                              ", ρ = " + in.metadata.rho});
        return s;
    }
    s.paragraphs.push_back(
        "The release was charged to the ledger before any released value was written (the "
        "budget stays spent even if the files had not appeared).");
    s.rows.push_back({"Ledger", b.ledgerPath + (b.ledgerCreated ? " (created by this release)"
                                                                : std::string())});
    s.rows.push_back({"Dataset", b.dataset});
    s.rows.push_back({"Accountant", accountantText(b.composition)});
    s.rows.push_back({"Total budget",
                      "ε = " + b.totalEpsilon +
                          (b.totalDelta.empty() || b.totalDelta == "0" ? std::string()
                                                                       : ", δ = " + b.totalDelta)});
    s.rows.push_back({"Before this release", b.before});
    s.rows.push_back({"This release", "ε = " + in.metadata.epsilon +
                                          (in.metadata.delta.empty() || in.metadata.delta == "0"
                                               ? std::string()
                                               : ", δ = " + in.metadata.delta) +
                                          ", ρ = " + in.metadata.rho});
    s.rows.push_back({"After this release", b.after});
    s.rows.push_back({"Releases in the ledger", std::to_string(b.releasesInLedger)});
    if (in.rebuiltFromFiles) {
        s.notes.push_back(
            "Rebuilt from the ledger: the budget before and after are those of the ledger's "
            "releases up to this one (release " +
            std::to_string(b.releasesInLedger) +
            " of the ledger); releases charged after it are not counted here.");
    }
    return s;
}

ReportSection samplersSection(const DecisionReportInput& in) {
    const ReleaseMetadata& md = in.metadata;
    ReportSection s;
    s.id = "samplers";
    s.heading = "Samplers and randomness";
    s.rows.push_back({"Sampler", md.samplerAlgorithm});
    s.rows.push_back({"Reference", md.samplerReference});
    s.rows.push_back({"Randomness", md.randomness});
    s.paragraphs.push_back(
        "Exact samplers draw the noise from uniformly random bits with exact rational arithmetic: "
        "no floating-point noise (Mironov 2012's attack on floating-point Laplace does not apply) "
        "and no seed that could reproduce it.");
    return s;
}

ReportSection filesSection(const DecisionReportInput& in) {
    ReportSection s;
    s.id = "files";
    s.heading = "Release files";
    if (!in.rebuiltFromFiles) {
        s.paragraphs.push_back(
            "The SHA-256 of every file as the ledger recorded it when the release was charged; "
            "compare with the output of sha256sum FILE.");
    } else if (in.ledgerGiven) {
        s.paragraphs.push_back(
            "The SHA-256 of every file, computed again from the files when this report was "
            "rebuilt; each equals the one the ledger recorded when the release was charged. "
            "Compare with the output of sha256sum FILE.");
    } else {
        s.paragraphs.push_back(
            "The SHA-256 of every file, computed from the files when this report was rebuilt. No "
            "ledger was given, so they were not compared with the hashes recorded when the "
            "release was charged; the CSV was checked against the metadata only. Compare with "
            "the output of sha256sum FILE and with the ledger.");
    }
    ReportTable t;
    t.header = {"File", "SHA-256"};
    for (const DecisionReportFile& f : in.files) {
        t.rows.push_back({f.role + ": " + f.path, f.sha256});
    }
    s.tables.push_back(std::move(t));
    return s;
}

ReportSection provenanceSection(const DecisionReportInput& in, const std::string& generatedAt) {
    ReportSection s;
    s.id = "provenance";
    s.heading = "Date and tool";
    s.rows.push_back({"Released", in.metadata.timestamp});
    s.rows.push_back({in.rebuiltFromFiles ? "Report rebuilt from the release files" : "Report made",
                      generatedAt});
    s.rows.push_back({"Tool", "DP Explorer " + in.metadata.appVersion});
    if (in.rebuiltFromFiles && !in.reportToolVersion.empty()) {
        s.rows.push_back({"Report rebuilt by", "DP Explorer " + in.reportToolVersion});
    }
    return s;
}

}  // namespace

const ReportSection* DecisionReport::section(const std::string& id) const {
    for (const ReportSection& s : sections) {
        if (s.id == id) {
            return &s;
        }
    }
    return nullptr;
}

Expected<DecisionReport> buildDecisionReport(const DecisionReportInput& in) {
    if (auto v = in.spec.validate(); !v) {
        return Error{"the release's spec: " + v.error().message};
    }
    if (in.bins == 0) {
        return Error{"the release has no bins"};
    }
    if (auto p = validatePrior(in.prior); !p) {
        return p.error();
    }
    if (in.points < 2 || in.points > 1000) {
        return Error{"the alternatives need 2 to 1000 values of ε (got " +
                     std::to_string(in.points) + ")"};
    }
    DecisionReport r;
    r.generatedAt = in.generatedAt.empty() ? utcTimestampNow() : in.generatedAt;
    r.appVersion = in.reportToolVersion.empty() ? in.metadata.appVersion : in.reportToolVersion;
    r.title = "Decision report: release of " + in.metadata.source;
    r.subtitle =
        in.metadata.mechanism + " at ε = " + in.metadata.epsilon +
        (in.metadata.delta.empty() || in.metadata.delta == "0" ? std::string()
                                                               : ", δ = " + in.metadata.delta) +
        ", released " + in.metadata.timestamp;
    if (in.rebuiltFromFiles) {
        r.rebuiltNote = "Rebuilt on " + r.generatedAt + " from the release files of " +
                        in.metadata.timestamp + ", not written at the time of the release" +
                        (in.ledgerGiven ? "; the files' SHA-256 match the ledger's record."
                                        : "; no ledger was given: the budget is not stated and "
                                          "the files were not compared with the ledger's record.");
    }
    r.sections.push_back(tableSection(in));
    r.sections.push_back(mechanismSection(in));
    if (in.metadata.strategy) {
        r.sections.push_back(strategySection(in));
    }
    auto errors = errorsSection(in);
    if (!errors) {
        return errors.error();
    }
    r.sections.push_back(std::move(errors).value());
    if (in.metadata.sampling) {
        r.sections.push_back(samplingSection(in));
    }
    auto risk = riskSection(in);
    if (!risk) {
        return risk.error();
    }
    r.sections.push_back(std::move(risk).value());
    auto alternatives = alternativesSection(in, r.plot);
    if (!alternatives) {
        return alternatives.error();
    }
    r.sections.push_back(std::move(alternatives).value());
    r.sections.push_back(budgetSection(in));
    r.sections.push_back(samplersSection(in));
    r.sections.push_back(filesSection(in));
    r.sections.push_back(provenanceSection(in, r.generatedAt));
    return r;
}

// ---- Text output --------------------------------------------------------------------------------

std::string htmlEscape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

namespace {

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

// Decade ticks covering [lo, hi] (lo > 0), with 2 and 5 between when fewer than three decades.
std::vector<double> logTicks(double lo, double hi) {
    std::vector<double> ticks;
    const int d0 = static_cast<int>(std::floor(std::log10(lo)));
    const int d1 = static_cast<int>(std::ceil(std::log10(hi)));
    const bool fine = d1 - d0 < 3;
    for (int d = d0; d <= d1; ++d) {
        for (double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
            const double t = m * std::pow(10.0, d);
            if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) {
                ticks.push_back(t);
            }
        }
    }
    return ticks;
}

}  // namespace

std::string decisionReportPlotSvg(const ReportPlot& plot, int width, int height) {
    double xlo = std::numeric_limits<double>::infinity(), xhi = 0;
    double ylo = std::numeric_limits<double>::infinity(), yhi = 0;
    for (const ReportSeries& s : plot.series) {
        for (const ReportPoint& p : s.points) {
            if (p.x > 0 && p.y > 0 && std::isfinite(p.x) && std::isfinite(p.y)) {
                xlo = std::min(xlo, p.x);
                xhi = std::max(xhi, p.x);
                ylo = std::min(ylo, p.y);
                yhi = std::max(yhi, p.y);
            }
        }
    }
    const bool empty = !(xhi > 0 && yhi > 0);
    if (empty) {
        xlo = ylo = 1;
        xhi = yhi = 10;
    }
    if (xhi <= xlo) {
        xlo /= 2, xhi *= 2;
    }
    if (yhi <= ylo) {
        ylo /= 2, yhi *= 2;
    }
    // A little room above and below the curves (in log units).
    const double ly0 = std::log10(ylo) - 0.05 * (std::log10(yhi) - std::log10(ylo));
    const double ly1 = std::log10(yhi) + 0.05 * (std::log10(yhi) - std::log10(ylo));
    const double lx0 = std::log10(xlo), lx1 = std::log10(xhi);
    const double left = 70, right = 20, top = 34, bottom = 52;
    const double pw = width - left - right, ph = height - top - bottom;
    auto X = [&](double x) { return left + (std::log10(x) - lx0) / (lx1 - lx0) * pw; };
    auto Y = [&](double y) { return top + (ly1 - std::log10(y)) / (ly1 - ly0) * ph; };

    std::ostringstream o;
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << ' ' << height
      << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
    o << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height
      << "\" fill=\"#ffffff\"/>\n";
    o << "<text x=\"" << num(left + pw / 2) << "\" y=\"20\" text-anchor=\"middle\" "
      << "font-size=\"14\" font-weight=\"bold\">" << htmlEscape(plot.title) << "</text>\n";
    // Grid and ticks.
    for (double t : logTicks(xlo, xhi)) {
        o << "<line x1=\"" << num(X(t)) << "\" y1=\"" << num(top) << "\" x2=\"" << num(X(t))
          << "\" y2=\"" << num(top + ph) << "\" stroke=\"#dddddd\" stroke-width=\"1\"/>\n";
        o << "<text x=\"" << num(X(t)) << "\" y=\"" << num(top + ph + 16)
          << "\" text-anchor=\"middle\">" << htmlEscape(sig(t, 3)) << "</text>\n";
    }
    for (double t : logTicks(std::pow(10.0, ly0), std::pow(10.0, ly1))) {
        o << "<line x1=\"" << num(left) << "\" y1=\"" << num(Y(t)) << "\" x2=\"" << num(left + pw)
          << "\" y2=\"" << num(Y(t)) << "\" stroke=\"#dddddd\" stroke-width=\"1\"/>\n";
        o << "<text x=\"" << num(left - 6) << "\" y=\"" << num(Y(t) + 4)
          << "\" text-anchor=\"end\">" << htmlEscape(sig(t, 3)) << "</text>\n";
    }
    o << "<rect x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\"" << num(pw)
      << "\" height=\"" << num(ph) << "\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1\"/>\n";
    o << "<text x=\"" << num(left + pw / 2) << "\" y=\"" << num(height - 10.0)
      << "\" text-anchor=\"middle\">" << htmlEscape(plot.xLabel) << "</text>\n";
    o << "<text x=\"16\" y=\"" << num(top + ph / 2) << "\" text-anchor=\"middle\" "
      << "transform=\"rotate(-90 16 " << num(top + ph / 2) << ")\">" << htmlEscape(plot.yLabel)
      << "</text>\n";
    if (empty) {
        o << "<text x=\"" << num(left + pw / 2) << "\" y=\"" << num(top + ph / 2)
          << "\" text-anchor=\"middle\">no curve to draw</text>\n";
    }
    // The release's ε.
    if (plot.marker && plot.marker->x >= xlo && plot.marker->x <= xhi) {
        const double mx = X(plot.marker->x);
        o << "<line x1=\"" << num(mx) << "\" y1=\"" << num(top) << "\" x2=\"" << num(mx)
          << "\" y2=\"" << num(top + ph)
          << "\" stroke=\"#555555\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>\n";
        o << "<text x=\"" << num(mx + 4) << "\" y=\"" << num(top + ph - 6) << "\" fill=\"#333333\">"
          << htmlEscape(plot.markerLabel) << "</text>\n";
    }
    // Curves, clipped to the plot box by construction (every point lies in the ranges).
    for (const ReportSeries& s : plot.series) {
        std::string d;
        bool pen = false;
        for (const ReportPoint& p : s.points) {
            if (!(p.x > 0 && p.y > 0 && std::isfinite(p.x) && std::isfinite(p.y))) {
                pen = false;
                continue;
            }
            d += (pen ? " L " : " M ") + num(X(p.x)) + ' ' + num(Y(p.y));
            pen = true;
        }
        if (!d.empty()) {
            o << "<path d=\"" << d << "\" fill=\"none\" stroke=\"" << htmlEscape(s.colour)
              << "\" stroke-width=\"2\"" << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
        }
    }
    // Legend, top right inside the box.
    double ly = top + 16;
    for (const ReportSeries& s : plot.series) {
        const double lx = left + pw - 10;
        o << "<line x1=\"" << num(lx - 28) << "\" y1=\"" << num(ly - 4) << "\" x2=\"" << num(lx)
          << "\" y2=\"" << num(ly - 4) << "\" stroke=\"" << htmlEscape(s.colour)
          << "\" stroke-width=\"2\"" << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
        o << "<text x=\"" << num(lx - 34) << "\" y=\"" << num(ly) << "\" text-anchor=\"end\" "
          << "font-size=\"11\">" << htmlEscape(s.label) << "</text>\n";
        ly += 16;
    }
    o << "</svg>\n";
    return o.str();
}

std::string decisionReportHtml(const DecisionReport& report, ReportHtmlFlavour flavour) {
    const bool qt = flavour == ReportHtmlFlavour::QtRichText;
    std::ostringstream o;
    if (qt) {
        o << "<html><head><meta charset=\"utf-8\"><title>" << htmlEscape(report.title)
          << "</title></head><body>\n";
    } else {
        o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          << "<title>" << htmlEscape(report.title) << "</title>\n<style>\n"
          << "body { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; max-width: 60em; "
             "margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.4; }\n"
          << "h1 { font-size: 1.6em; margin-bottom: 0.2em; }\n"
          << "h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 1.6em; }\n"
          << ".subtitle { color: #555; margin-top: 0; }\n"
          << "table { border-collapse: collapse; margin: 0.6em 0; }\n"
          << "th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; "
             "vertical-align: top; }\n"
          << "table.kv th { background: #f4f4f4; width: 14em; }\n"
          << "thead th { background: #eef2f7; }\n"
          << "td.hash { font-family: 'DejaVu Sans Mono', monospace; font-size: 0.85em; }\n"
          << ".notes { color: #555; font-size: 0.9em; }\n"
          << "@media print { body { margin: 0; } h2 { page-break-after: avoid; } }\n"
          << "</style>\n</head>\n<body>\n";
    }
    o << "<h1>" << htmlEscape(report.title) << "</h1>\n";
    o << "<p class=\"subtitle\">" << htmlEscape(report.subtitle) << "</p>\n";
    if (!report.rebuiltNote.empty()) {
        o << "<p class=\"rebuilt\"><b>" << htmlEscape(report.rebuiltNote) << "</b></p>\n";
    }
    const char* tableAttrs =
        qt ? " border=\"1\" cellspacing=\"0\" cellpadding=\"4\" width=\"100%\"" : "";
    for (const ReportSection& s : report.sections) {
        o << "<h2 id=\"" << htmlEscape(s.id) << "\">" << htmlEscape(s.heading) << "</h2>\n";
        for (const std::string& p : s.paragraphs) {
            o << "<p>" << htmlEscape(p) << "</p>\n";
        }
        if (!s.rows.empty()) {
            o << "<table class=\"kv\"" << tableAttrs << ">\n";
            for (const ReportRow& r : s.rows) {
                o << "<tr><th" << (qt ? " width=\"28%\" align=\"left\"" : "") << ">"
                  << htmlEscape(r.key) << "</th><td>" << htmlEscape(r.value) << "</td></tr>\n";
            }
            o << "</table>\n";
        }
        if (s.hasPlot) {
            if (qt) {
                o << "<p align=\"center\">" << kReportPlotPlaceholder << "</p>\n";
            } else {
                o << "<figure>\n"
                  << decisionReportPlotSvg(report.plot) << "<figcaption class=\"notes\">"
                  << htmlEscape(report.plot.title) << "; " << htmlEscape(report.plot.markerLabel)
                  << " (dotted line).</figcaption>\n</figure>\n";
            }
        }
        for (const ReportTable& t : s.tables) {
            const bool hashes = !t.header.empty() && t.header.back() == "SHA-256";
            o << "<table" << tableAttrs << ">\n<thead><tr>";
            for (const std::string& h : t.header) {
                o << "<th" << (qt ? " align=\"left\" bgcolor=\"#eef2f7\"" : "") << ">"
                  << htmlEscape(h) << "</th>";
            }
            o << "</tr></thead>\n<tbody>\n";
            for (const auto& row : t.rows) {
                o << "<tr>";
                for (std::size_t i = 0; i < row.size(); ++i) {
                    const bool hash = hashes && i + 1 == row.size();
                    o << "<td"
                      << (hash ? (qt ? " style=\"font-family: monospace; font-size: 7pt;\""
                                     : " class=\"hash\"")
                               : "")
                      << ">" << htmlEscape(row[i]) << "</td>";
                }
                o << "</tr>\n";
            }
            o << "</tbody>\n</table>\n";
        }
        if (!s.notes.empty()) {
            o << "<ul class=\"notes\">\n";
            for (const std::string& n : s.notes) {
                o << "<li>" << htmlEscape(n) << "</li>\n";
            }
            o << "</ul>\n";
        }
    }
    // The PDF says this at the foot of every page.
    if (!qt) {
        o << "<hr>\n<p class=\"notes\">"
          << htmlEscape("Made by DP Explorer " + report.appVersion + " on " + report.generatedAt +
                        ".")
          << "</p>\n";
    }
    o << "</body>\n</html>\n";
    return o.str();
}

}  // namespace dpx
