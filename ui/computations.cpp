#include "ui/computations.h"

#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/count_analysis.h"
#include "core/example_datasets.h"
#include "core/expected_error.h"
#include "core/mechanism.h"
#include "core/simulation_rng.h"
#include "core/validation.h"

namespace dpx::ui {

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QString num(double v) {
    return q(formatNumber(v));
}

// The binning the state asks for, for this column.
Expected<Binning> binningFor(const ExplorerState& s, const DataColumn& column,
                             const ExampleDataset* example) {
    switch (s.binning) {
        case BinningChoice::Auto:
            if (example && s.csvPath.isEmpty() &&
                (s.column.isEmpty() || s.column.toStdString() == example->defaultColumn)) {
                return example->defaultBinning;
            }
            return suggestBinning(column);
        case BinningChoice::EqualWidth:
        case BinningChoice::Integer: {
            if (!column.isNumeric()) {
                return Error{"the column '" + column.name() +
                             "' holds text: use categories to bin it"};
            }
            double lo = s.rangeLo;
            double hi = s.rangeHi;
            if (lo == hi) {  // the data's range
                const ColumnProfile p = profileColumn(column);
                if (p.rows == p.missing) {
                    return Error{"the column '" + column.name() + "' has no values"};
                }
                lo = p.min;
                hi = p.max > p.min ? p.max : p.min + 1;
            }
            if (s.binning == BinningChoice::EqualWidth) {
                return Binning::equalWidth(s.bins, lo, hi, OutOfRange::Drop);
            }
            return Binning::integers(std::floor(lo), std::ceil(hi), 1, OutOfRange::Drop);
        }
        case BinningChoice::Categories:
            return Binning::distinctValues(CategoryOrder::Sorted);
    }
    return Error{"unknown binning"};
}

double quantileOfColumn(const CountMechanism& m, std::size_t j, double p, bool upper) {
    // Smallest i with Σ_{k ≤ i} P[k][j] ≥ p (lower) or largest i with Σ_{k ≥ i} ≥ p (upper).
    const std::size_t size = m.size();
    double c = 0;
    if (!upper) {
        for (std::size_t i = 0; i < size; ++i) {
            c += m.at(i, j);
            if (c >= p) {
                return static_cast<double>(i);
            }
        }
        return static_cast<double>(size - 1);
    }
    for (std::size_t i = size; i-- > 0;) {
        c += m.at(i, j);
        if (c >= p) {
            return static_cast<double>(i);
        }
    }
    return 0;
}

Expected<CountMechanism> countMatrix(const ExplorerState& s, int n, std::optional<CountLpResult>& lp,
                                     const std::stop_token& stop) {
    switch (s.mechanism) {
        case MechanismChoice::CountGeometric:
            return truncatedGeometric(n, s.epsilon);
        case MechanismChoice::CountExplicitFair:
            return explicitFair(n, s.epsilon);
        case MechanismChoice::CountUniform:
            return uniformMechanism(n);
        case MechanismChoice::CountLaplace:
            return discretizedLaplace(n, s.epsilon);
        case MechanismChoice::CountGaussian:
            return discretizedGaussian(n, s.epsilon, s.delta);
        case MechanismChoice::CountOptimal: {
            CountLpSpec spec;
            spec.n = n;
            spec.epsilon = s.epsilon;
            QString obj = s.lpObjective;
            if (obj.startsWith(QLatin1String("minimax-"))) {
                spec.aggregate = LpAggregate::Max;
                obj = obj.mid(8);
            }
            if (obj == QLatin1String("l1")) {
                spec.cost = LpCostKind::L1;
            } else if (obj == QLatin1String("l2")) {
                spec.cost = LpCostKind::L2;
            } else if (obj.startsWith(QLatin1String("l0d:"))) {
                spec.cost = LpCostKind::L0d;
                spec.d = std::min(obj.mid(4).toInt(), n);
            }
            for (const QString& c : s.lpConstraints) {
                for (CountProperty p : kAllCountProperties) {
                    if (c.compare(QLatin1String(countPropertyName(p)), Qt::CaseInsensitive) == 0) {
                        spec.constraints.push_back(p);
                    }
                }
            }
            if (s.lpBinomialP >= 0) {
                auto w = binomialWeights(n, s.lpBinomialP);
                if (!w) {
                    return w.error();
                }
                spec.weights = *w;
            }
            spec.minDiagonal = s.lpMinDiagonal;
            auto r = designCountMechanism(spec, stop);
            if (!r) {
                return r.error();
            }
            lp = *r;
            if (r->status != LpStatus::Optimal) {
                return Error{std::string("the linear program ended with status '") +
                             lpStatusName(r->status) + "'" +
                             (r->status == LpStatus::Infeasible
                                  ? ": no ε-DP mechanism has the requested properties and "
                                    "accuracy floor; relax them or raise ε"
                                  : "")};
            }
            return *r->mechanism;
        }
        default:
            return Error{"not a count mechanism"};
    }
}

}  // namespace

bool sameSource(const ExplorerState& a, const ExplorerState& b) {
    return a.csvPath == b.csvPath &&
           (!a.csvPath.isEmpty() || (a.exampleId == b.exampleId && a.exampleRows == b.exampleRows));
}

DatasetResult loadDataset(const ExplorerState& s, std::shared_ptr<const DataTable> cached,
                          const std::stop_token& stop) {
    DatasetResult r;
    const ExampleDataset* example = nullptr;
    if (s.csvPath.isEmpty()) {
        example = findExample(s.exampleId.toStdString());
        if (!example) {
            r.error = QObject::tr("There is no built-in example called '%1'.").arg(s.exampleId);
            return r;
        }
        r.sourceTitle = q(example->title);
        r.description = q(example->description);
    } else {
        r.sourceTitle = QFileInfo(s.csvPath).fileName();
        r.description = QObject::tr("CSV file %1").arg(s.csvPath);
    }
    if (!cached) {
        auto t = s.csvPath.isEmpty() ? makeExampleTable(s.exampleId.toStdString(), s.exampleRows)
                                     : readCsvFile(s.csvPath.toStdString());
        if (!t) {
            r.error = q(t.error().message);
            return r;
        }
        cached = std::make_shared<const DataTable>(std::move(*t));
    }
    if (stop.stop_requested()) {
        r.error = QStringLiteral("cancelled");
        return r;
    }
    r.table = cached;
    r.rows = static_cast<qint64>(cached->rowCount());
    for (const std::string& c : cached->columnNames()) {
        r.columns << q(c);
    }
    std::string column = s.column.toStdString();
    if (column.empty()) {
        column = example ? example->defaultColumn : cached->column(0).name();
    }
    const DataColumn* col = cached->find(column);
    if (!col) {
        r.error = QObject::tr("The dataset has no column '%1' (columns: %2).")
                      .arg(q(column), r.columns.join(QStringLiteral(", ")));
        return r;
    }
    r.column = q(column);
    if (example && column == example->defaultColumn) {
        r.unit = q(example->unit);
    }
    auto binning = binningFor(s, *col, example);
    if (!binning) {
        r.error = q(binning.error().message);
        return r;
    }
    auto binned = binColumn(*col, *binning);
    if (!binned) {
        r.error = q(binned.error().message);
        return r;
    }
    r.binningText = q(binning->describe());
    r.reportText = q(binned->report.describe());
    auto sens = histogramSensitivity(binned->histogram.size(), s.neighbouring, {});
    if (!sens) {
        r.error = q(sens.error().message);
        return r;
    }
    r.sensitivity = *sens;
    r.histogram = std::move(binned->histogram);
    return r;
}

const std::vector<EstimatorKind>& allEstimators() {
    static const std::vector<EstimatorKind> list = {EstimatorKind::Identity, EstimatorKind::Clamp,
                                                    EstimatorKind::Resize,
                                                    EstimatorKind::NoiseFirst};
    return list;
}

const std::vector<Metric>& allMetrics() {
    static const std::vector<Metric> list = {Metric::SSE, Metric::L1, Metric::LInf, Metric::W1};
    return list;
}

ReleaseResult computeRelease(const DatasetResult& data, const ExplorerState& s,
                             const std::stop_token& stop) {
    ReleaseResult r;
    if (!data.error.isEmpty() || !data.histogram) {
        r.error = data.error.isEmpty() ? QObject::tr("No data.") : data.error;
        return r;
    }
    if (auto st = s.validate(); !st) {
        r.error = q(st.error().message);
        return r;
    }
    const Histogram& h = *data.histogram;
    r.truth = h.countsAsDouble();
    r.positions = h.positions();
    for (std::size_t i = 0; i < h.size(); ++i) {
        r.labels.push_back(i < h.labels().size() ? q(h.labels()[i])
                                                  : QString::number(static_cast<qulonglong>(i)));
    }
    const std::size_t bins = h.size();
    const auto& ests = allEstimators();
    const auto& mets = allMetrics();
    r.estimatorApplies.assign(ests.size(), true);
    SimulationRng rng(s.seed, 0);  // simulation only: not a release

    if (!isCountMechanism(s.mechanism)) {
        MechanismSpec spec;
        spec.kind = s.mechanism == MechanismChoice::Laplace     ? MechanismKind::Laplace
                    : s.mechanism == MechanismChoice::Geometric ? MechanismKind::Geometric
                                                                : MechanismKind::Gaussian;
        spec.epsilon = s.epsilon;
        spec.delta = usesDelta(s.mechanism) ? s.delta : 0;
        spec.calibration = s.calibration;
        auto mech = calibrate(spec, data.sensitivity);
        if (!mech) {
            r.error = q(mech.error().message);
            return r;
        }
        r.calibrated = *mech;
        r.mechanismTitle = q(mech->noise.describe()) + QObject::tr(" noise per bin");
        r.guarantee = q(mech->guarantee.sentence);
        for (const auto& w : mech->warnings) {
            r.warnings << q(w);
        }
        const NoiseDistribution& noise = mech->noise;
        r.noiseVariance = noise.variance();
        r.noisy = r.truth;
        for (double& v : r.noisy) {
            v += sampleNoise(noise, rng);
        }
        const double band = noise.absQuantile(0.95);
        for (double t : r.truth) {
            r.bandLo.push_back(t - band);
            r.bandHi.push_back(t + band);
        }
    } else {
        std::int64_t largest = 0;
        for (std::int64_t c : h.counts()) {
            largest = std::max(largest, c);
        }
        const int n = s.countN > 0 ? s.countN : static_cast<int>(std::max<std::int64_t>(largest, 1));
        if (largest > kMaxCountPeople) {
            r.error = QObject::tr("Count mechanisms work on counts up to %1, but the largest bin "
                                  "holds %2. Use fewer rows (or more bins), or a noise-per-bin "
                                  "mechanism.")
                          .arg(kMaxCountPeople)
                          .arg(largest);
            return r;
        }
        if (largest > n) {
            r.error = QObject::tr("The group size n = %1 is smaller than the largest bin count "
                                  "(%2): every count must be in 0…n. Raise n or set it to auto.")
                          .arg(n)
                          .arg(largest);
            return r;
        }
        std::optional<CountLpResult> lp;
        auto m = countMatrix(s, n, lp, stop);
        r.lp = lp;
        if (!m) {
            r.error = q(m.error().message);
            return r;
        }
        r.count = true;
        r.matrix = *m;
        r.mechanismTitle = mechanismChoiceTitle(s.mechanism) + QObject::tr(", n = %1").arg(n);
        const double achieved = m->achievedEpsilon();
        r.guarantee =
            usesDelta(s.mechanism)
                ? QObject::tr("(ε, δ)-DP with ε = %1, δ = %2 (Gaussian noise; not pure ε-DP: "
                              "the matrix's own pure level is %3).")
                      .arg(num(s.epsilon), num(s.delta),
                           std::isinf(achieved) ? QStringLiteral("∞") : num(achieved))
            : achieved <= s.epsilon * (1 + 1e-12)
                          ? QObject::tr("ε-DP with ε = %1 for each count (verified: achieved ε "
                                        "= %2).")
                                .arg(num(s.epsilon), num(achieved))
                          : QObject::tr("NOT ε-DP at ε = %1: the matrix's achieved ε is %2.")
                                .arg(num(s.epsilon), std::isinf(achieved) ? QStringLiteral("∞")
                                                                          : num(achieved));
        auto outputs = sampleOutputs(*m, h.counts(), s.seed);
        if (!outputs) {
            r.error = q(outputs.error().message);
            return r;
        }
        r.noisy.assign(outputs->begin(), outputs->end());
        for (std::size_t i = 0; i < bins; ++i) {
            const auto j = static_cast<std::size_t>(h.counts()[i]);
            r.bandLo.push_back(quantileOfColumn(*m, j, 0.025, false));
            r.bandHi.push_back(quantileOfColumn(*m, j, 0.025, true));
        }
        r.estimatorApplies[3] = false;  // NoiseFirst needs a constant per-bin noise variance
    }

    // Estimates and realized errors of this draw.
    const TruthModel truth{r.truth, r.positions};
    r.estimates.assign(ests.size(), {});
    r.realized.assign(ests.size(), std::vector<double>(mets.size(), std::nan("")));
    r.expected.assign(ests.size(), std::vector<ExpectedCell>(mets.size()));
    for (std::size_t e = 0; e < ests.size(); ++e) {
        if (!r.estimatorApplies[e]) {
            for (auto& c : r.expected[e]) {
                c.why = QObject::tr("NoiseFirst assumes the same noise variance in every bin; "
                                    "count mechanisms do not have one");
            }
            continue;
        }
        auto est = estimate({ests[e], r.noiseVariance}, r.noisy);
        r.estimates[e] = est ? *est : r.noisy;
        for (std::size_t m = 0; m < mets.size(); ++m) {
            r.realized[e][m] = evaluateMetric({mets[m], s.scale}, r.truth, r.estimates[e],
                                              r.positions, truth.total() > 0 ? truth.total() : 1);
        }
    }
    // Exact expected errors where a method exists.
    for (std::size_t e = 0; e < ests.size(); ++e) {
        if (!r.estimatorApplies[e]) {
            continue;
        }
        for (std::size_t m = 0; m < mets.size(); ++m) {
            ExpectedCell& c = r.expected[e][m];
            if (stop.stop_requested()) {
                return r;
            }
            if (r.calibrated) {
                auto x = exactExpectedError(truth, r.calibrated->noise, {ests[e], r.noiseVariance},
                                            {mets[m], s.scale});
                if (x) {
                    c = {x->value, 0, QObject::tr("exact (%1)").arg(q(x->method)), true, true, {}};
                } else {
                    c.why = QObject::tr("no exact method (%1): Monte Carlo")
                                .arg(q(x.error().message));
                }
            } else if (ests[e] == EstimatorKind::Identity || ests[e] == EstimatorKind::Clamp) {
                // Outputs are already in 0…n, so clamping changes nothing: per-bin error laws.
                if (mets[m] == Metric::SSE || mets[m] == Metric::L1) {
                    double sum = 0;
                    for (std::int64_t j : h.counts()) {
                        auto d = inputErrorDistribution(*r.matrix, static_cast<std::size_t>(j));
                        sum += mets[m] == Metric::SSE ? d->meanSquare : d->meanAbs;
                    }
                    if (s.scale == Scale::Frequencies) {
                        const double t = truth.total() > 0 ? truth.total() : 1;
                        sum /= mets[m] == Metric::SSE ? t * t : t;
                    }
                    c = {sum, 0, QObject::tr("exact (per-bin error laws of the matrix)"), true,
                         true, {}};
                } else {
                    c.why = QObject::tr("Monte Carlo");
                }
            } else {
                c.why = QObject::tr("Monte Carlo");
            }
        }
    }
    return r;
}

MonteCarloErrors computeMonteCarlo(const ReleaseResult& release, Scale scale,
                                   std::uint64_t trials, std::uint64_t seed,
                                   const std::stop_token& stop,
                                   const std::function<void(double)>& progress) {
    MonteCarloErrors out;
    const auto& ests = allEstimators();
    const auto& mets = allMetrics();
    out.expected.assign(ests.size(), std::vector<ExpectedCell>(mets.size()));
    out.samples.assign(ests.size(), std::vector<std::vector<double>>(mets.size()));
    const TruthModel truth{release.truth, release.positions};
    constexpr std::uint64_t kKeep = 20000;
    std::vector<MetricSpec> metricSpecs;
    for (Metric m : mets) {
        metricSpecs.push_back({m, scale});
    }
    if (release.calibrated) {
        std::vector<EstimatorSpec> specs;
        for (EstimatorKind e : ests) {
            specs.push_back({e, release.noiseVariance});
        }
        MonteCarloOptions opt;
        opt.trials = trials;
        opt.seed = seed;
        opt.stop = stop;
        opt.keepSamples = kKeep;
        opt.progress = progress;
        auto mc = monteCarloExpectedError(truth, release.calibrated->noise, specs, metricSpecs, opt);
        if (!mc) {
            out.error = q(mc.error().message);
            return out;
        }
        out.trials = mc->trials;
        out.cancelled = mc->cancelled;
        for (std::size_t e = 0; e < ests.size(); ++e) {
            for (std::size_t m = 0; m < mets.size(); ++m) {
                const ErrorEstimate& x = mc->values[e][m];
                out.expected[e][m] = {x.value, 1.96 * x.stdError,
                                      QObject::tr("Monte Carlo, %L1 trials").arg(x.trials), false,
                                      x.trials > 1, {}};
                if (!mc->samples.empty()) {
                    out.samples[e][m] = std::move(mc->samples[e][m]);
                }
            }
        }
        return out;
    }
    if (!release.matrix) {
        out.error = QObject::tr("nothing to simulate");
        return out;
    }
    // Count mechanisms: draw every bin from its column, trial by trial (seeded per trial).
    std::vector<std::int64_t> counts;
    for (double t : release.truth) {
        counts.push_back(static_cast<std::int64_t>(t));
    }
    std::vector<double> sum(ests.size() * mets.size(), 0), sumSq(sum.size(), 0);
    std::uint64_t done = 0;
    EstimatorWorkspace ws;
    std::vector<double> noisy(counts.size()), work(counts.size());
    const double total = truth.total() > 0 ? truth.total() : 1;
    for (; done < trials; ++done) {
        if (stop.stop_requested()) {
            out.cancelled = true;
            break;
        }
        auto drawn = sampleOutputs(*release.matrix, counts, seed ^ (0x9e3779b97f4a7c15ULL * (done + 1)));
        if (!drawn) {
            out.error = q(drawn.error().message);
            return out;
        }
        std::copy(drawn->begin(), drawn->end(), noisy.begin());
        for (std::size_t e = 0; e < ests.size(); ++e) {
            if (!release.estimatorApplies[e]) {
                continue;
            }
            work = noisy;
            if (ests[e] != EstimatorKind::Identity) {
                estimateInPlace({ests[e], 0}, work, ws);
            }
            for (std::size_t m = 0; m < mets.size(); ++m) {
                const double v =
                    evaluateMetric(metricSpecs[m], release.truth, work, release.positions, total);
                sum[e * mets.size() + m] += v;
                sumSq[e * mets.size() + m] += v * v;
                if (done < kKeep) {
                    out.samples[e][m].push_back(v);
                }
            }
        }
        if (progress && (done % 256 == 0)) {
            progress(static_cast<double>(done) / static_cast<double>(trials));
        }
    }
    out.trials = done;
    for (std::size_t e = 0; e < ests.size(); ++e) {
        for (std::size_t m = 0; m < mets.size(); ++m) {
            ExpectedCell& c = out.expected[e][m];
            if (!release.estimatorApplies[e] || done < 2) {
                c.why = release.estimatorApplies[e] ? QObject::tr("too few trials")
                                                     : release.expected[e][m].why;
                continue;
            }
            const double n = static_cast<double>(done);
            const double mean = sum[e * mets.size() + m] / n;
            const double var = std::max(0.0, (sumSq[e * mets.size() + m] - n * mean * mean) / (n - 1));
            c = {mean, 1.96 * std::sqrt(var / n), QObject::tr("Monte Carlo, %L1 trials").arg(done),
                 false, true, {}};
        }
    }
    return out;
}

}  // namespace dpx::ui
