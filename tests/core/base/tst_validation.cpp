// Rejection tests for every parameter of the core: 0, negative, NaN, ±inf and out-of-range values
// are refused with a non-empty message that names the parameter; valid values pass unchanged.
#include <QTest>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/accuracy/expected_error.h"
#include "core/accuracy/metrics.h"
#include "core/base/validation.h"
#include "core/estimators/estimator.h"
#include "core/estimators/noisefirst_estimator.h"
#include "core/histogram/histogram.h"
#include "core/mechanisms/gaussian_mechanism.h"
#include "core/mechanisms/geometric_mechanism.h"
#include "core/mechanisms/laplace_mechanism.h"
#include "core/mechanisms/mechanism.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

class TestValidation : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Thousands separators for messages (hand-written expectations).
    void groupThousandsFormatsIntegers() {
        QCOMPARE(dpx::groupThousands(0), std::string("0"));
        QCOMPARE(dpx::groupThousands(999), std::string("999"));
        QCOMPARE(dpx::groupThousands(1000), std::string("1,000"));
        QCOMPARE(dpx::groupThousands(1234567), std::string("1,234,567"));
        QCOMPARE(dpx::groupThousands(-5000), std::string("-5,000"));
        QCOMPARE(dpx::groupThousands(std::numeric_limits<long long>::min()),
                 std::string("-9,223,372,036,854,775,808"));
    }
    // Invalid values shared by every "finite and > 0" parameter.
    void badPositive_data();

    void epsilon_data();
    void epsilon();
    void epsilonAccepted();
    void delta_data();
    void delta();
    void deltaAccepted();
    void positiveFinite_data() { badPositive_data(); }
    void positiveFinite();
    void finite();

    void laplaceParams_data() { badPositive_data(); }
    void laplaceParams();
    void geometricParams_data() { badPositive_data(); }
    void geometricParams();
    void geometricIntegerSensitivity_data();
    void geometricIntegerSensitivity();
    void geometricAlphaRange();
    void gaussianParams_data() { badPositive_data(); }
    void gaussianParams();
    void gaussianDelta_data() { delta_data(); }
    void gaussianDelta();
    void calibrateDispatch_data() { badPositive_data(); }
    void calibrateDispatch();

    void contributionBound_data();
    void contributionBound();
    void sensitivityNoBins();

    void histogramEmpty();
    void histogramNegativeCount();
    void histogramLabels();
    void histogramEdges_data();
    void histogramEdges();
    void histogramValid();

    void noiseVariance_data() { badPositive_data(); }
    void noiseVariance();
    void estimateNonFinite_data();
    void estimateNonFinite();
    void estimateEmpty();
    void noiseFirstInputs();

    void truthModel_data();
    void truthModel();
    void metricInputs();
    void names();
};

void TestValidation::badPositive_data() {
    QTest::addColumn<double>("value");
    QTest::newRow("zero") << 0.0;
    QTest::newRow("negative zero") << -0.0;
    QTest::newRow("negative") << -1.0;
    QTest::newRow("tiny negative") << -std::numeric_limits<double>::denorm_min();
    QTest::newRow("NaN") << kNaN;
    QTest::newRow("+inf") << kInf;
    QTest::newRow("-inf") << -kInf;
}

void TestValidation::epsilon_data() {
    badPositive_data();
}

void TestValidation::epsilon() {
    QFETCH(double, value);
    DPX_VERIFY_ERROR(validateEpsilon(value), "ε|epsilon");
}

void TestValidation::epsilonAccepted() {
    for (double e : {1e-300, 0.1, 1.0, 10.0, 1e6}) {
        QVERIFY2(validateEpsilon(e).hasValue(), QByteArray::number(e).constData());
    }
}

void TestValidation::delta_data() {
    badPositive_data();
    QTest::newRow("one") << 1.0;
    QTest::newRow("above one") << 1.5;
    QTest::newRow("just above one") << std::nextafter(1.0, 2.0);
}

void TestValidation::delta() {
    QFETCH(double, value);
    DPX_VERIFY_ERROR(validateDelta(value), "δ|delta");
}

void TestValidation::deltaAccepted() {
    for (double d : {1e-300, 1e-12, 0.5, std::nextafter(1.0, 0.0)}) {
        QVERIFY2(validateDelta(d).hasValue(), QByteArray::number(d, 'g', 17).constData());
    }
}

void TestValidation::positiveFinite() {
    QFETCH(double, value);
    DPX_VERIFY_ERROR(validatePositiveFinite(value, "the frobnication scale"), "frobnication scale");
    QVERIFY(validatePositiveFinite(3.5, "x").hasValue());
}

void TestValidation::finite() {
    for (double v : {kNaN, kInf, -kInf}) {
        DPX_VERIFY_ERROR(validateFinite(v, "noisy count 7"), "noisy count 7");
    }
    for (double v : {0.0, -1e308, 1e308, -3.0}) {
        QVERIFY(validateFinite(v, "x").hasValue());
    }
}

void TestValidation::laplaceParams() {
    QFETCH(double, value);
    DPX_VERIFY_ERROR((LaplaceParams{value, 1}.validate()), "ε|epsilon");
    DPX_VERIFY_ERROR(calibrateLaplace({value, 1}), "ε|epsilon");
    DPX_VERIFY_ERROR((LaplaceParams{1, value}.validate()), "sensitivity|Δ1");
    DPX_VERIFY_ERROR(calibrateLaplace({1, value}), "sensitivity|Δ1");
}

void TestValidation::geometricParams() {
    QFETCH(double, value);
    DPX_VERIFY_ERROR((GeometricParams{value, 1}.validate()), "ε|epsilon");
    DPX_VERIFY_ERROR(calibrateGeometric({value, 1}), "ε|epsilon");
    DPX_VERIFY_ERROR((GeometricParams{1, value}.validate()), "sensitivity|Δ1");
    DPX_VERIFY_ERROR(calibrateGeometric({1, value}), "sensitivity|Δ1");
}

void TestValidation::geometricIntegerSensitivity_data() {
    QTest::addColumn<double>("l1");
    QTest::newRow("0.5") << 0.5;
    QTest::newRow("1.5") << 1.5;
    QTest::newRow("2 + 1e-12") << 2.0 + 1e-12;
}

void TestValidation::geometricIntegerSensitivity() {
    QFETCH(double, l1);
    DPX_VERIFY_ERROR((GeometricParams{1, l1}.validate()), "integer");
    DPX_VERIFY_ERROR(calibrateGeometric({1, l1}), "integer");
    // Through the dispatcher, a sensitivity flagged non-integral is refused too.
    DPX_VERIFY_ERROR(calibrate({MechanismKind::Geometric, 1, 0, GaussianCalibration::Analytic},
                               Sensitivity{2, std::sqrt(2.0), false}),
                     "integer");
}

void TestValidation::geometricAlphaRange() {
    // α = exp(−ε/Δ1) rounds to 1 for ε = 1e-20 and underflows to 0 for ε = 1e4: both are outside
    // (0, 1) and must be refused rather than produce a degenerate noise law.
    DPX_VERIFY_ERROR(calibrateGeometric({1e-20, 1}), "α|alpha|ε");
    DPX_VERIFY_ERROR(calibrateGeometric({1e4, 1}), "α|alpha|ε");
}

void TestValidation::gaussianParams() {
    QFETCH(double, value);
    const auto cal = GaussianCalibration::Analytic;
    DPX_VERIFY_ERROR((GaussianParams{value, 1e-5, 1, cal}.validate()), "ε|epsilon");
    DPX_VERIFY_ERROR(calibrateGaussian({value, 1e-5, 1, cal}), "ε|epsilon");
    DPX_VERIFY_ERROR(gaussianSigma({value, 1e-5, 1, cal}), "ε|epsilon");
    DPX_VERIFY_ERROR((GaussianParams{1, 1e-5, value, cal}.validate()), "sensitivity|Δ2");
    DPX_VERIFY_ERROR(calibrateGaussian({1, 1e-5, value, cal}), "sensitivity|Δ2");
    for (auto c : {GaussianCalibration::Classic, GaussianCalibration::Hall}) {
        DPX_VERIFY_ERROR(gaussianSigma({value, 1e-5, 1, c}), "ε|epsilon");
        DPX_VERIFY_ERROR(gaussianSigma({0.5, 1e-5, value, c}), "sensitivity|Δ2");
    }
}

void TestValidation::gaussianDelta() {
    QFETCH(double, value);
    for (auto c :
         {GaussianCalibration::Classic, GaussianCalibration::Hall, GaussianCalibration::Analytic}) {
        DPX_VERIFY_ERROR((GaussianParams{0.5, value, 1, c}.validate()), "δ|delta");
        DPX_VERIFY_ERROR(gaussianSigma({0.5, value, 1, c}), "δ|delta");
        DPX_VERIFY_ERROR(calibrateGaussian({0.5, value, 1, c}), "δ|delta");
    }
    DPX_VERIFY_ERROR(calibrate({MechanismKind::Gaussian, 0.5, value, GaussianCalibration::Analytic},
                               Sensitivity{1, 1, true}),
                     "δ|delta");
}

void TestValidation::calibrateDispatch() {
    QFETCH(double, value);
    for (auto kind : {MechanismKind::Laplace, MechanismKind::Geometric, MechanismKind::Gaussian}) {
        DPX_VERIFY_ERROR(
            calibrate({kind, value, 1e-6, GaussianCalibration::Analytic}, Sensitivity{1, 1, true}),
            "ε|epsilon");
    }
}

void TestValidation::contributionBound_data() {
    QTest::addColumn<qint64>("maxBins");
    QTest::addColumn<qint64>("maxPerBin");
    QTest::newRow("maxBins 0") << qint64(0) << qint64(1);
    QTest::newRow("maxBins -1") << qint64(-1) << qint64(1);
    QTest::newRow("maxBins min") << std::numeric_limits<qint64>::min() << qint64(1);
    QTest::newRow("maxPerBin 0") << qint64(1) << qint64(0);
    QTest::newRow("maxPerBin -3") << qint64(2) << qint64(-3);
}

void TestValidation::contributionBound() {
    QFETCH(qint64, maxBins);
    QFETCH(qint64, maxPerBin);
    const ContributionBound b{maxBins, maxPerBin};
    DPX_VERIFY_ERROR(b.validate(), "bin|contribution");
    for (auto rel : {Neighbouring::AddRemove, Neighbouring::Replace}) {
        DPX_VERIFY_ERROR(histogramSensitivity(4, rel, b), "bin|contribution");
    }
}

void TestValidation::sensitivityNoBins() {
    DPX_VERIFY_ERROR(histogramSensitivity(0, Neighbouring::AddRemove, {}), "bin|empty");
    DPX_VERIFY_ERROR(histogramSensitivity(0, Neighbouring::Replace, {}), "bin|empty");
}

void TestValidation::histogramEmpty() {
    DPX_VERIFY_ERROR(Histogram::create({}), "empty|bin");
}

void TestValidation::histogramNegativeCount() {
    DPX_VERIFY_ERROR(Histogram::create({3, -1, 4}), "negative");
    DPX_VERIFY_ERROR(Histogram::create({3, -1, 4}), "bin 2");
    DPX_VERIFY_ERROR(Histogram::create({std::numeric_limits<std::int64_t>::min()}), "negative");
    DPX_VERIFY_ERROR(Histogram::create({std::numeric_limits<std::int64_t>::max(), 1}),
                     "overflow|total");
}

void TestValidation::histogramLabels() {
    DPX_VERIFY_ERROR(Histogram::create({1, 2, 3}, {"a", "b"}), "label");
    DPX_VERIFY_ERROR(Histogram::create({1, 2}, {"a", "b", "c"}), "label");
    DPX_VERIFY_OK(Histogram::create({1, 2}, {"a", "b"}));
}

void TestValidation::histogramEdges_data() {
    QTest::addColumn<QList<double>>("edges");
    QTest::newRow("too few") << QList<double>{0, 1, 2};
    QTest::newRow("too many") << QList<double>{0, 1, 2, 3, 4};
    QTest::newRow("equal edges") << QList<double>{0, 1, 1, 2};
    QTest::newRow("decreasing") << QList<double>{0, 2, 1, 3};
    QTest::newRow("NaN") << QList<double>{0, kNaN, 2, 3};
    QTest::newRow("+inf") << QList<double>{0, 1, 2, kInf};
    QTest::newRow("-inf") << QList<double>{-kInf, 1, 2, 3};
}

void TestValidation::histogramEdges() {
    QFETCH(QList<double>, edges);
    DPX_VERIFY_ERROR(Histogram::create({1, 2, 3}, {}, dpxtest::toVector(edges)), "edge");
}

void TestValidation::histogramValid() {
    auto h = Histogram::create({0, 7, 2}, {"a", "b", "c"}, {-1.0, 0.5, 2.0, 10.0});
    DPX_VERIFY_OK(h);
    QCOMPARE(h->size(), std::size_t(3));
    QCOMPARE(h->total(), std::int64_t(9));
}

void TestValidation::noiseVariance() {
    QFETCH(double, value);
    const EstimatorSpec spec{EstimatorKind::NoiseFirst, value};
    DPX_VERIFY_ERROR(spec.validate(), "variance");
    const std::vector<double> noisy{1, 2, 3};
    DPX_VERIFY_ERROR(estimate(spec, noisy), "variance");
    DPX_VERIFY_ERROR(noiseFirst(noisy, value), "variance");
    DPX_VERIFY_ERROR(noiseFirstAllK(noisy, value), "variance");
    // The other estimators do not use V and accept any value there.
    for (auto k : {EstimatorKind::Identity, EstimatorKind::Clamp, EstimatorKind::Resize}) {
        QVERIFY((EstimatorSpec{k, value}.validate().hasValue()));
    }
}

void TestValidation::estimateNonFinite_data() {
    QTest::addColumn<double>("bad");
    QTest::newRow("NaN") << kNaN;
    QTest::newRow("+inf") << kInf;
    QTest::newRow("-inf") << -kInf;
}

void TestValidation::estimateNonFinite() {
    QFETCH(double, bad);
    const std::vector<double> noisy{1.0, 2.0, bad, 4.0};
    for (auto k : {EstimatorKind::Identity, EstimatorKind::Clamp, EstimatorKind::Resize,
                   EstimatorKind::NoiseFirst}) {
        // The message names the offending (1-based) bin.
        DPX_VERIFY_ERROR(estimate({k, 2.0}, noisy), "3");
        DPX_VERIFY_ERROR(estimate({k, 2.0}, noisy), "finite|nan|inf");
    }
    DPX_VERIFY_ERROR(noiseFirst(noisy, 2.0), "finite|nan|inf");
    DPX_VERIFY_ERROR(vOptimalErrorsAllK(noisy), "finite|nan|inf");
}

void TestValidation::estimateEmpty() {
    for (auto k : {EstimatorKind::Identity, EstimatorKind::Clamp, EstimatorKind::Resize,
                   EstimatorKind::NoiseFirst}) {
        DPX_VERIFY_ERROR(estimate({k, 2.0}, std::vector<double>{}), "empty");
    }
}

void TestValidation::noiseFirstInputs() {
    const std::vector<double> empty;
    DPX_VERIFY_ERROR(noiseFirst(empty, 1.0), "empty");
    DPX_VERIFY_ERROR(noiseFirstAllK(empty, 1.0), "empty");
    DPX_VERIFY_ERROR(vOptimalErrorsAllK(empty), "empty");
}

void TestValidation::truthModel_data() {
    QTest::addColumn<QList<double>>("counts");
    QTest::addColumn<QList<double>>("positions");
    QTest::addColumn<QString>("needle");
    QTest::newRow("empty") << QList<double>{} << QList<double>{} << QStringLiteral("empty|bin");
    QTest::newRow("negative count")
        << QList<double>{1, -2, 3} << QList<double>{} << QStringLiteral("negative|≥ 0|>= 0");
    QTest::newRow("NaN count") << QList<double>{1, kNaN} << QList<double>{}
                               << QStringLiteral("finite|nan");
    QTest::newRow("inf count") << QList<double>{kInf, 1} << QList<double>{}
                               << QStringLiteral("finite|inf");
    QTest::newRow("zero total") << QList<double>{0, 0, 0} << QList<double>{}
                                << QStringLiteral("total");
    QTest::newRow("position count")
        << QList<double>{1, 2, 3} << QList<double>{0, 1} << QStringLiteral("position");
    QTest::newRow("positions not increasing") << QList<double>{1, 2, 3} << QList<double>{0, 2, 2}
                                              << QStringLiteral("position|increasing");
    QTest::newRow("position NaN") << QList<double>{1, 2, 3} << QList<double>{0, kNaN, 2}
                                  << QStringLiteral("position|finite");
}

void TestValidation::truthModel() {
    QFETCH(QList<double>, counts);
    QFETCH(QList<double>, positions);
    QFETCH(QString, needle);
    const std::string n = needle.toStdString();
    const TruthModel truth{dpxtest::toVector(counts), dpxtest::toVector(positions)};
    DPX_VERIFY_ERROR(truth.validate(), n.c_str());
    // The error computations refuse the same truth.
    const auto noise = NoiseDistribution::laplace(1);
    DPX_VERIFY_ERROR(exactExpectedError(truth, noise, {EstimatorKind::Identity, 0},
                                        {Metric::SSE, Scale::Counts}),
                     n.c_str());
    const EstimatorSpec est{EstimatorKind::Identity, 0};
    const MetricSpec met{Metric::SSE, Scale::Counts};
    MonteCarloOptions opt;
    opt.trials = 100;
    opt.threads = 1;
    DPX_VERIFY_ERROR(monteCarloExpectedError(truth, noise, {&est, 1}, {&met, 1}, opt), n.c_str());
}

void TestValidation::metricInputs() {
    const std::vector<double> truth{1, 2, 3};
    const std::vector<double> zero{0, 0, 0};
    const std::vector<double> pos{0, 1, 2};
    DPX_VERIFY_ERROR(validateMetricInputs({Metric::SSE, Scale::Counts}, {}, {}), "empty");
    DPX_VERIFY_ERROR(
        validateMetricInputs({Metric::L1, Scale::Counts}, std::vector<double>{1, -1}, {}), "2");
    DPX_VERIFY_ERROR(validateMetricInputs({Metric::SSE, Scale::Frequencies}, zero, {}), "total");
    DPX_VERIFY_ERROR(validateMetricInputs({Metric::W1, Scale::Counts}, zero, pos), "total");
    DPX_VERIFY_ERROR(
        validateMetricInputs({Metric::W1, Scale::Counts}, truth, std::vector<double>{0, 1}),
        "position");
    DPX_VERIFY_ERROR(
        validateMetricInputs({Metric::W1, Scale::Counts}, truth, std::vector<double>{0, 1, 0.5}),
        "position|increasing");
    // Counts-scale SSE of an all-zero truth is well defined.
    QVERIFY(validateMetricInputs({Metric::SSE, Scale::Counts}, zero, {}).hasValue());
    QVERIFY(validateMetricInputs({Metric::W1, Scale::Frequencies}, truth, pos).hasValue());
}

void TestValidation::names() {
    DPX_VERIFY_ERROR(estimatorFromName("median"), "median");
    DPX_VERIFY_ERROR(mechanismFromName("exponential"), "exponential");
    DPX_VERIFY_ERROR(metricFromName("l7"), "l7");
    DPX_VERIFY_ERROR(scaleFromName("percent"), "percent");
    DPX_VERIFY_ERROR(gaussianCalibrationFromName("magic"), "magic");
    DPX_VERIFY_ERROR(neighbouringFromName("swap"), "swap");
    DPX_VERIFY_ERROR(estimatorFromName(""), "estimator");
    // Canonical names round-trip.
    for (auto k : {EstimatorKind::Identity, EstimatorKind::Clamp, EstimatorKind::Resize,
                   EstimatorKind::NoiseFirst}) {
        QCOMPARE(*estimatorFromName(estimatorName(k)), k);
    }
    for (auto k : {MechanismKind::Laplace, MechanismKind::Geometric, MechanismKind::Gaussian}) {
        QCOMPARE(*mechanismFromName(mechanismName(k)), k);
    }
    for (auto m : {Metric::SSE, Metric::L1, Metric::LInf, Metric::W1}) {
        QCOMPARE(*metricFromName(metricName(m)), m);
    }
    for (auto s : {Scale::Counts, Scale::Frequencies}) {
        QCOMPARE(*scaleFromName(scaleName(s)), s);
    }
    for (auto c :
         {GaussianCalibration::Classic, GaussianCalibration::Hall, GaussianCalibration::Analytic}) {
        QCOMPARE(*gaussianCalibrationFromName(gaussianCalibrationName(c)), c);
    }
    for (auto r : {Neighbouring::AddRemove, Neighbouring::Replace}) {
        QCOMPARE(*neighbouringFromName(neighbouringName(r)), r);
    }
    QCOMPARE(std::string(estimatorName(EstimatorKind::NoiseFirst)), std::string("noisefirst"));
    QCOMPARE(std::string(neighbouringName(Neighbouring::AddRemove)), std::string("add-remove"));
}

QTEST_APPLESS_MAIN(TestValidation)
#include "tst_validation.moc"
