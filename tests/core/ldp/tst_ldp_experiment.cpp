// Seed 002's telemetry experiment runner (core/ldp/experiment.h; issue #7; LABELS statistical).
// Fixed seeds. References: an independent recomputation of points from the building blocks
// (telemetryCounts, simulateAggregate, postProcessFrequencies, maxAbsError,
// wasserstein1Normalized, estimatorVariance, expectedMaxAbsNormal) with Student t quantiles from
// tables; the statistical check compares the measured mean histogram error with the normal
// approximation within 4 standard errors.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <stop_token>
#include <string>
#include <tuple>
#include <vector>

#include "core/accuracy/wasserstein.h"
#include "core/ldp/experiment.h"
#include "core/ldp/metrics.h"
#include "core/ldp/protocols.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using namespace dpx::ldp;

namespace {

ProtocolSpec protocol(Protocol p, std::size_t bits = 1) {
    ProtocolSpec s;
    s.protocol = p;
    s.bits = bits;
    return s;
}

// A small experiment with every kind of axis: 2 protocols × 2 shapes × 2 n × 2 ε, 5 repetitions.
ExperimentSpec smallSpec() {
    ExperimentSpec s;
    s.protocols = {protocol(Protocol::OUE), protocol(Protocol::DBitFlip, 2)};
    s.shapes = {TelemetryShape::TruncatedNormal, TelemetryShape::Constant};
    s.buckets = 16;
    s.populations = {500, 5000};
    s.epsilons = {0.5, 2};
    s.repetitions = 5;
    s.seed = 7;
    return s;
}

bool samePoint(const ExperimentPoint& a, const ExperimentPoint& b) {
    return a.protocol == b.protocol && a.shape == b.shape && a.users == b.users &&
           a.epsilon == b.epsilon && a.maxError == b.maxError && a.maxErrorCi95 == b.maxErrorCi95 &&
           a.wasserstein == b.wasserstein && a.wassersteinCi95 == b.wassersteinCi95 &&
           a.expectedMaxError == b.expectedMaxError && a.expectedMse == b.expectedMse;
}

QByteArray describe(const ExperimentPoint& p) {
    return "protocol " + QByteArray::number(qulonglong(p.protocol)) + " shape " +
           telemetryShapeName(p.shape) + " n " + QByteArray::number(qulonglong(p.users)) + " eps " +
           QByteArray::number(p.epsilon) + ": max error " +
           QByteArray::number(p.maxError, 'g', 17) + " ± " + QByteArray::number(p.maxErrorCi95) +
           ", W1 " + QByteArray::number(p.wasserstein, 'g', 17);
}

// Student t quantiles t_{0.975, ν}: mpmath 1.3 at 30 digits, the root of
// 1 − I_{ν/(ν+t²)}(ν/2, ½)/2 = 0.975 (regularised incomplete beta), rounded to double.
double t975(unsigned dof) {
    switch (dof) {
        case 4:
            return 2.7764451051977944;
        case 1999:
            return 1.961151420170562;
        default:
            return std::numeric_limits<double>::quiet_NaN();
    }
}

// Mean and 95% half-width, written out independently of the runner.
std::pair<double, double> meanCi(const std::vector<double>& x) {
    double m = 0;
    for (double v : x) {
        m += v;
    }
    m /= static_cast<double>(x.size());
    double ss = 0;
    for (double v : x) {
        ss += (v - m) * (v - m);
    }
    const auto n = static_cast<double>(x.size());
    return {m, t975(static_cast<unsigned>(x.size() - 1)) * std::sqrt(ss / (n - 1) / n)};
}

// The point of `spec` recomputed from the building blocks with the runner's seeds.
ExperimentPoint recompute(const ExperimentSpec& spec, std::size_t pi, TelemetryShape shape,
                          std::uint64_t users, double eps) {
    ProtocolSpec p = spec.protocols[pi];
    p.epsilon = eps;
    p.domain = spec.buckets;
    const Histogram truth = telemetryCounts(shape, spec.buckets, users).value();
    std::vector<double> f(spec.buckets), var(spec.buckets);
    double varSum = 0;
    for (std::size_t j = 0; j < spec.buckets; ++j) {
        f[j] = static_cast<double>(truth.counts()[j]) / static_cast<double>(users);
        var[j] = estimatorVariance(p, users, f[j]).value();
        varSum += var[j];
    }
    const std::vector<double> centres = telemetryBucketCentres(spec.buckets);
    std::vector<double> maxErr, w1;
    for (unsigned r = 0; r < spec.repetitions; ++r) {
        const auto est =
            simulateAggregate(p, truth.counts(), repetitionSeed(spec.seed, p, shape, users, r))
                .value();
        const auto post = postProcessFrequencies(est.frequencies, spec.postProcess).value();
        maxErr.push_back(maxAbsError(post, f));
        w1.push_back(wasserstein1Normalized(f, post, centres));
    }
    ExperimentPoint out;
    out.protocol = pi;
    out.shape = shape;
    out.users = users;
    out.epsilon = eps;
    std::tie(out.maxError, out.maxErrorCi95) = meanCi(maxErr);
    std::tie(out.wasserstein, out.wassersteinCi95) = meanCi(w1);
    out.expectedMaxError = expectedMaxAbsNormal(var);
    out.expectedMse = varSum / static_cast<double>(spec.buckets);
    return out;
}

// Rejection cases: a change to a valid spec and the words its message must contain.
struct Rejection {
    const char* name;
    std::function<void(ExperimentSpec&)> change;
    const char* needles;
};

const std::vector<Rejection>& rejections() {
    static const std::vector<Rejection> cases = {
        {"no protocols", [](ExperimentSpec& s) { s.protocols.clear(); }, "protocols"},
        {"no shapes", [](ExperimentSpec& s) { s.shapes.clear(); }, "shapes"},
        {"no populations", [](ExperimentSpec& s) { s.populations.clear(); }, "populations"},
        {"no epsilons", [](ExperimentSpec& s) { s.epsilons.clear(); }, "epsilons"},
        {"eps 0", [](ExperimentSpec& s) { s.epsilons[1] = 0; }, "epsilons[1]"},
        {"eps negative", [](ExperimentSpec& s) { s.epsilons[0] = -1; }, "epsilons[0]"},
        {"eps NaN",
         [](ExperimentSpec& s) { s.epsilons[0] = std::numeric_limits<double>::quiet_NaN(); },
         "epsilons[0]"},
        {"eps inf",
         [](ExperimentSpec& s) { s.epsilons[1] = std::numeric_limits<double>::infinity(); },
         "epsilons[1]"},
        {"eps -inf",
         [](ExperimentSpec& s) { s.epsilons[1] = -std::numeric_limits<double>::infinity(); },
         "epsilons[1]"},
        {"eps 51 (beyond every protocol)", [](ExperimentSpec& s) { s.epsilons[1] = 51; },
         "epsilons[1]"},
        {"eps repeated",
         [](ExperimentSpec& s) {
             s.epsilons = {1, 2, 1};
         },
         "epsilons[2]"},
        {"n 0", [](ExperimentSpec& s) { s.populations[1] = 0; }, "populations[1]"},
        {"n above 1e15", [](ExperimentSpec& s) { s.populations[0] = 1'000'000'000'000'001; },
         "populations[0]"},
        {"n repeated",
         [](ExperimentSpec& s) {
             s.populations = {5, 6, 6};
         },
         "populations[2]"},
        {"0 repetitions", [](ExperimentSpec& s) { s.repetitions = 0; }, "repetitions"},
        {"too many repetitions",
         [](ExperimentSpec& s) { s.repetitions = kMaxExperimentRepetitions + 1; }, "repetitions"},
        {"1 bucket", [](ExperimentSpec& s) { s.buckets = 1; }, "buckets"},
        {"0 buckets", [](ExperimentSpec& s) { s.buckets = 0; }, "buckets"},
        {"too many buckets", [](ExperimentSpec& s) { s.buckets = kMaxDomain + 1; }, "buckets"},
        {"RR with 16 buckets",
         [](ExperimentSpec& s) { s.protocols.push_back(protocol(Protocol::RR)); },
         "protocols[2]|rr"},
        {"dBitFlip d > k",
         [](ExperimentSpec& s) { s.protocols[1] = protocol(Protocol::DBitFlip, 17); },
         "protocols[1]|dBitFlip d=17"},
        {"dBitFlip d = 0",
         [](ExperimentSpec& s) { s.protocols[1] = protocol(Protocol::DBitFlip, 0); },
         "protocols[1]"},
        {"OLH at eps 45",
         [](ExperimentSpec& s) {
             s.protocols.push_back(protocol(Protocol::OLH));
             s.epsilons = {1, 45};
         },
         "protocols[2]|olh"},
        {"protocol repeated",
         [](ExperimentSpec& s) { s.protocols.push_back(protocol(Protocol::DBitFlip, 2)); },
         "protocols[2]"},
        {"shape repeated", [](ExperimentSpec& s) { s.shapes.push_back(TelemetryShape::Constant); },
         "shapes[2]"},
        {"too much work: 2^22 buckets, 1000 repetitions",
         [](ExperimentSpec& s) {
             s.buckets = kMaxDomain;
             s.repetitions = 1000;
         },
         "too large"},
        {"too much work: 20 000 populations × 100 ε",
         [](ExperimentSpec& s) {
             s.populations.clear();
             for (std::uint64_t n = 1; n <= 20'000; ++n) {
                 s.populations.push_back(n);
             }
             s.epsilons.clear();
             for (int e = 1; e <= 100; ++e) {
                 s.epsilons.push_back(0.05 * e);
             }
         },
         "too large"},
    };
    return cases;
}

}  // namespace

class TestLdpExperiment : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void preset();
    void labels();
    void validation_data();
    void validation();
    void acceptedEdges();
    void workEstimate();
    void seedsDependOnContent();
    void pointsEqualIndependentRecomputation_data();
    void pointsEqualIndependentRecomputation();
    void pointReproducibleAlone();
    void reproducibleAndThreadIndependent();
    void warnings();
    void expectedMaxErrorWithinCi_data();
    void expectedMaxErrorWithinCi();
    void cancellationReturnsFinishedPoints();
    void cancelledBeforeStart();
    void progressIsMonotoneAndComplete();
};

void TestLdpExperiment::preset() {
    // Seed 002 §"Low population experiments": k = 32 buckets on [0, 24], d ∈ {1, 2, 4},
    // constant/uniform/normal data, n ∈ [1e3, 3e5], ε ∈ [0.1, 10], 10 runs.
    const ExperimentSpec s = telemetryExperimentPreset();
    DPX_VERIFY_OK(s.validate());
    QCOMPARE(s.protocols.size(), std::size_t{3});
    const std::size_t bits[] = {1, 2, 4};
    for (std::size_t i = 0; i < 3; ++i) {
        QCOMPARE(s.protocols[i].protocol, Protocol::DBitFlip);
        QCOMPARE(s.protocols[i].bits, bits[i]);
    }
    QCOMPARE(protocolLabel(s.protocols[1]), std::string("dBitFlip d=2"));
    QVERIFY(s.shapes ==
            (std::vector<TelemetryShape>{TelemetryShape::TruncatedNormal, TelemetryShape::Uniform,
                                         TelemetryShape::Constant}));
    QCOMPARE(s.buckets, std::size_t{32});
    QCOMPARE(s.repetitions, 10U);
    QCOMPARE(s.postProcess, FrequencyPostProcess::None);
    // The 1-2-3-5 series documented in the header: 11 populations, 9 ε, the seed's reported
    // points included, ratios 1.5–2 (≈ log-spaced).
    QVERIFY(s.populations ==
            (std::vector<std::uint64_t>{1'000, 2'000, 3'000, 5'000, 10'000, 20'000, 30'000, 50'000,
                                        100'000, 200'000, 300'000}));
    QVERIFY(s.epsilons == (std::vector<double>{0.1, 0.2, 0.3, 0.5, 1, 2, 3, 5, 10}));
    for (std::size_t i = 1; i < s.populations.size(); ++i) {
        const double r =
            static_cast<double>(s.populations[i]) / static_cast<double>(s.populations[i - 1]);
        QVERIFY2(r >= 1.5 && r <= 2, QByteArray::number(r).constData());
    }
    for (std::size_t i = 1; i < s.epsilons.size(); ++i) {
        const double r = s.epsilons[i] / s.epsilons[i - 1];
        QVERIFY2(r >= 1.49 && r <= 2.01, QByteArray::number(r).constData());
    }
    QCOMPARE(experimentPointCount(s), std::size_t{891});
}

void TestLdpExperiment::labels() {
    QCOMPARE(protocolLabel(protocol(Protocol::RR)), std::string("RR"));
    QCOMPARE(protocolLabel(protocol(Protocol::GRR)), std::string("GRR"));
    QCOMPARE(protocolLabel(protocol(Protocol::OUE)), std::string("OUE"));
    QCOMPARE(protocolLabel(protocol(Protocol::SUE)), std::string("SUE"));
    QCOMPARE(protocolLabel(protocol(Protocol::OLH)), std::string("OLH"));
    QCOMPARE(protocolLabel(protocol(Protocol::HRR)), std::string("HRR"));
    QCOMPARE(protocolLabel(protocol(Protocol::DBitFlip, 4)), std::string("dBitFlip d=4"));
}

void TestLdpExperiment::validation_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < rejections().size(); ++i) {
        QTest::newRow(rejections()[i].name) << static_cast<int>(i);
    }
}

void TestLdpExperiment::validation() {
    QFETCH(int, index);
    const Rejection& c = rejections()[static_cast<std::size_t>(index)];
    DPX_VERIFY_OK(smallSpec().validate());
    ExperimentSpec s = smallSpec();
    c.change(s);
    DPX_VERIFY_ERROR(s.validate(), c.needles);
    DPX_VERIFY_ERROR(runExperiment(s), c.needles);
}

void TestLdpExperiment::acceptedEdges() {
    // RR exactly at k = 2, dBitFlip at d = k, one repetition, n = 1, the largest ε of OLH.
    ExperimentSpec s;
    s.protocols = {protocol(Protocol::RR), protocol(Protocol::DBitFlip, 2),
                   protocol(Protocol::OLH)};
    s.shapes = {TelemetryShape::Uniform};
    s.buckets = 2;
    s.populations = {1, 10};
    s.epsilons = {0.1, 40};
    s.repetitions = 1;
    DPX_VERIFY_OK(s.validate());
    const auto r = runExperiment(s);
    DPX_VERIFY_OK(r);
    QCOMPARE(r->points.size(), std::size_t{12});
    for (const auto& p : r->points) {
        QVERIFY2(std::isfinite(p.maxError) && p.maxError >= 0, describe(p).constData());
        QVERIFY2(std::isfinite(p.wasserstein) && p.wasserstein >= 0, describe(p).constData());
        QCOMPARE(p.maxErrorCi95, 0.0);
    }
}

void TestLdpExperiment::workEstimate() {
    // Linear in the repetitions' part; the preset is far below the cap.
    ExperimentSpec s = smallSpec();
    const double w5 = experimentWork(s);
    s.repetitions = 10;
    const double w10 = experimentWork(s);
    // Per point: R·(draws + 3k) + 4001k; OUE draws 2k, dBitFlip 4k; 8 points per protocol.
    const double k = 16;
    DPX_VERIFY_REL(w5, 8 * (5 * (2 * k + 3 * k) + 4001 * k) + 8 * (5 * (4 * k + 3 * k) + 4001 * k),
                   1e-12);
    DPX_VERIFY_REL(w10 - w5, 8 * 5 * (5 * k) + 8 * 5 * (7 * k), 1e-12);
    QVERIFY(experimentWork(telemetryExperimentPreset()) < kMaxExperimentWork / 10);
}

void TestLdpExperiment::seedsDependOnContent() {
    ProtocolSpec p = protocol(Protocol::DBitFlip, 2);
    p.epsilon = 1;
    p.domain = 32;
    const auto base = repetitionSeed(1, p, TelemetryShape::Uniform, 1000, 0);
    QCOMPARE(repetitionSeed(1, p, TelemetryShape::Uniform, 1000, 0), base);
    std::vector<std::uint64_t> seeds{base};
    seeds.push_back(repetitionSeed(2, p, TelemetryShape::Uniform, 1000, 0));
    seeds.push_back(repetitionSeed(1, p, TelemetryShape::TruncatedNormal, 1000, 0));
    seeds.push_back(repetitionSeed(1, p, TelemetryShape::Uniform, 1001, 0));
    seeds.push_back(repetitionSeed(1, p, TelemetryShape::Uniform, 1000, 1));
    ProtocolSpec q = p;
    q.bits = 1;
    seeds.push_back(repetitionSeed(1, q, TelemetryShape::Uniform, 1000, 0));
    q = p;
    q.epsilon = std::nextafter(1.0, 2.0);
    seeds.push_back(repetitionSeed(1, q, TelemetryShape::Uniform, 1000, 0));
    q = p;
    q.domain = 16;
    seeds.push_back(repetitionSeed(1, q, TelemetryShape::Uniform, 1000, 0));
    q = p;
    q.protocol = Protocol::OUE;
    seeds.push_back(repetitionSeed(1, q, TelemetryShape::Uniform, 1000, 0));
    std::sort(seeds.begin(), seeds.end());
    QVERIFY(std::adjacent_find(seeds.begin(), seeds.end()) == seeds.end());
    // bits does not matter for the other protocols (it is not one of their parameters).
    ProtocolSpec oue = protocol(Protocol::OUE, 1);
    oue.epsilon = 1;
    oue.domain = 32;
    ProtocolSpec oue3 = oue;
    oue3.bits = 3;
    QCOMPARE(repetitionSeed(1, oue3, TelemetryShape::Uniform, 10, 0),
             repetitionSeed(1, oue, TelemetryShape::Uniform, 10, 0));
}

void TestLdpExperiment::pointsEqualIndependentRecomputation_data() {
    QTest::addColumn<int>("postProcess");
    QTest::newRow("none") << static_cast<int>(FrequencyPostProcess::None);
    QTest::newRow("clamp") << static_cast<int>(FrequencyPostProcess::Clamp);
    QTest::newRow("simplex") << static_cast<int>(FrequencyPostProcess::Simplex);
}

void TestLdpExperiment::pointsEqualIndependentRecomputation() {
    QFETCH(int, postProcess);
    ExperimentSpec s = smallSpec();
    s.postProcess = static_cast<FrequencyPostProcess>(postProcess);
    const auto r = runExperiment(s, {}, {}, 2);
    DPX_VERIFY_OK(r);
    QVERIFY(!r->cancelled);
    QCOMPARE(r->points.size(), std::size_t{16});
    // Order: protocol-major, then shape, users, ε; every point recomputed.
    std::size_t i = 0;
    for (std::size_t pi = 0; pi < 2; ++pi) {
        for (const TelemetryShape shape : s.shapes) {
            for (const std::uint64_t n : s.populations) {
                for (const double eps : s.epsilons) {
                    const ExperimentPoint& got = r->points[i++];
                    const ExperimentPoint want = recompute(s, pi, shape, n, eps);
                    QVERIFY2(got.protocol == pi && got.shape == shape && got.users == n &&
                                 got.epsilon == eps,
                             describe(got).constData());
                    // Same arithmetic in the same order except the t quantile (boost vs table).
                    DPX_VERIFY_NEAR(got.maxError, want.maxError, 1e-15);
                    DPX_VERIFY_NEAR(got.wasserstein, want.wasserstein, 1e-13);
                    DPX_VERIFY_REL(got.maxErrorCi95, want.maxErrorCi95, 1e-12);
                    DPX_VERIFY_REL(got.wassersteinCi95, want.wassersteinCi95, 1e-12);
                    DPX_VERIFY_REL(got.expectedMaxError, want.expectedMaxError, 1e-15);
                    DPX_VERIFY_REL(got.expectedMse, want.expectedMse, 1e-15);
                    QVERIFY(got.maxErrorCi95 > 0 && got.wassersteinCi95 > 0);
                }
            }
        }
    }
}

void TestLdpExperiment::pointReproducibleAlone() {
    // Seeds come from a point's content: a one-point spec gives the same numbers as the full run.
    const ExperimentSpec s = smallSpec();
    const auto full = runExperiment(s, {}, {}, 1);
    DPX_VERIFY_OK(full);
    for (const std::size_t i : {std::size_t{0}, std::size_t{6}, std::size_t{13}}) {
        const ExperimentPoint& p = full->points[i];
        ExperimentSpec one = s;
        one.protocols = {s.protocols[p.protocol]};
        one.shapes = {p.shape};
        one.populations = {p.users};
        one.epsilons = {p.epsilon};
        const auto alone = runExperiment(one);
        DPX_VERIFY_OK(alone);
        QCOMPARE(alone->points.size(), std::size_t{1});
        ExperimentPoint a = alone->points[0];
        a.protocol = p.protocol;
        QVERIFY2(samePoint(a, p), (describe(a) + " vs " + describe(p)).constData());
    }
}

void TestLdpExperiment::reproducibleAndThreadIndependent() {
    const ExperimentSpec s = smallSpec();
    const auto one = runExperiment(s, {}, {}, 1);
    const auto two = runExperiment(s, {}, {}, 2);
    const auto five = runExperiment(s, {}, {}, 5);
    const auto all = runExperiment(s);
    const auto again = runExperiment(s, {}, {}, 1);
    for (const auto* r : {&one, &two, &five, &all, &again}) {
        DPX_VERIFY_OK(*r);
        QCOMPARE((*r)->points.size(), one->points.size());
        for (std::size_t i = 0; i < one->points.size(); ++i) {
            QVERIFY2(samePoint((*r)->points[i], one->points[i]),
                     (describe((*r)->points[i]) + " vs " + describe(one->points[i])).constData());
        }
    }
    // Another experiment seed gives other draws (and the same expectations).
    ExperimentSpec other = s;
    other.seed = 8;
    const auto o = runExperiment(other);
    DPX_VERIFY_OK(o);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < o->points.size(); ++i) {
        differ += o->points[i].maxError != one->points[i].maxError ? 1 : 0;
        QCOMPARE(o->points[i].expectedMaxError, one->points[i].expectedMaxError);
    }
    QCOMPARE(differ, o->points.size());
}

void TestLdpExperiment::warnings() {
    ExperimentSpec s = smallSpec();
    s.protocols = {protocol(Protocol::OUE)};
    const auto plain = runExperiment(s);
    DPX_VERIFY_OK(plain);
    QVERIFY(plain->warnings.empty());
    s.repetitions = 1;
    s.postProcess = FrequencyPostProcess::Clamp;
    s.protocols.push_back(protocol(Protocol::DBitFlip, 1));
    const auto w = runExperiment(s);
    DPX_VERIFY_OK(w);
    QCOMPARE(w->warnings.size(), std::size_t{3});
    std::string all;
    for (const auto& m : w->warnings) {
        all += m + "\n";
    }
    QVERIFY2(dpxtest::mentions(all, "one repetition"), all.c_str());
    QVERIFY2(dpxtest::mentions(all, "before post-processing"), all.c_str());
    QVERIFY2(dpxtest::mentions(all, "correlations"), all.c_str());
}

void TestLdpExperiment::expectedMaxErrorWithinCi_data() {
    // Moderate n, where the normal approximation behind expectedMaxError holds: each f̂_j is an
    // affine function of a sum of many independent Bernoulli reports (OUE: n = 10^5 per bucket;
    // dBitFlip d = 1, k = 32: n·d/k ≈ 3 100 sampled users per bucket at n = 10^5, ≈ 9 400 at
    // 3·10^5), so by Berry–Esseen (0.56·ρ/σ³/√(n·d/k)) each estimate is within ~0.01 of normal
    // in Kolmogorov distance, and the skew's effect on E max|f̂ − f| is far below the 4-SE band
    // (≈ 2 % of the value with 2 000 repetitions). The buckets are independent in the simulated
    // law (exactly for OUE; by construction of the aggregate simulator for dBitFlip), as
    // expectedMaxAbsNormal assumes. At n = 10^3 and d = 1 only ~30 users sample each bucket and
    // the approximation is not claimed.
    QTest::addColumn<int>("protocolKind");
    QTest::addColumn<int>("bits");
    QTest::addColumn<int>("shape");
    QTest::addColumn<qulonglong>("users");
    QTest::addColumn<double>("epsilon");
    QTest::newRow("dBitFlip d=1 normal n=1e5 eps=1")
        << static_cast<int>(Protocol::DBitFlip) << 1
        << static_cast<int>(TelemetryShape::TruncatedNormal) << 100'000ULL << 1.0;
    QTest::newRow("dBitFlip d=1 normal n=3e5 eps=1 (seed 002: 0.045)")
        << static_cast<int>(Protocol::DBitFlip) << 1
        << static_cast<int>(TelemetryShape::TruncatedNormal) << 300'000ULL << 1.0;
    QTest::newRow("dBitFlip d=4 constant n=1e5 eps=3")
        << static_cast<int>(Protocol::DBitFlip) << 4 << static_cast<int>(TelemetryShape::Constant)
        << 100'000ULL << 3.0;
    QTest::newRow("OUE uniform n=1e5 eps=0.5")
        << static_cast<int>(Protocol::OUE) << 1 << static_cast<int>(TelemetryShape::Uniform)
        << 100'000ULL << 0.5;
}

void TestLdpExperiment::expectedMaxErrorWithinCi() {
    QFETCH(int, protocolKind);
    QFETCH(int, bits);
    QFETCH(int, shape);
    QFETCH(qulonglong, users);
    QFETCH(double, epsilon);
    ExperimentSpec s;
    s.protocols = {protocol(static_cast<Protocol>(protocolKind), static_cast<std::size_t>(bits))};
    s.shapes = {static_cast<TelemetryShape>(shape)};
    s.buckets = 32;
    s.populations = {users};
    s.epsilons = {epsilon};
    s.repetitions = 2000;
    s.seed = 20'240'601;
    const auto r = runExperiment(s);
    DPX_VERIFY_OK(r);
    const ExperimentPoint& p = r->points.at(0);
    const double se = p.maxErrorCi95 / t975(1999);
    // Not vacuous: the band is a few percent of the value, so a variance off by 10 % (max error
    // off by 5 %) fails.
    QVERIFY2(4 * se < 0.04 * p.expectedMaxError, describe(p).constData());
    DPX_VERIFY_NEAR(p.maxError, p.expectedMaxError, 4 * se);
    // The same measurement against the expectation for half the users (√2 larger) must fail.
    ProtocolSpec half = s.protocols[0];
    half.epsilon = epsilon;
    half.domain = 32;
    const Histogram truth =
        telemetryCounts(static_cast<TelemetryShape>(shape), 32, users / 2).value();
    std::vector<double> var;
    for (const auto c : truth.counts()) {
        var.push_back(estimatorVariance(half, users / 2,
                                        static_cast<double>(c) / static_cast<double>(users / 2))
                          .value());
    }
    QVERIFY(std::abs(p.maxError - expectedMaxAbsNormal(var)) > 10 * se);
}

void TestLdpExperiment::cancellationReturnsFinishedPoints() {
    ExperimentSpec s = smallSpec();
    s.populations = {200, 400, 800, 1600, 3200, 6400};
    s.epsilons = {0.25, 0.5, 1, 2, 4};
    const auto full = runExperiment(s, {}, {}, 1);
    DPX_VERIFY_OK(full);
    const std::size_t total = full->points.size();
    QCOMPARE(total, std::size_t{120});
    QVERIFY(!full->cancelled);

    for (const unsigned threads : {1U, 2U}) {
        std::stop_source source;
        std::mutex m;
        double last = 0;
        const auto r = runExperiment(
            s, source.get_token(),
            [&](double fraction) {
                const std::lock_guard lock(m);
                last = fraction;
                if (fraction >= 0.25) {
                    source.request_stop();
                }
            },
            threads);
        DPX_VERIFY_OK(r);
        QVERIFY(r->cancelled);
        QVERIFY2(r->points.size() >= 30 && r->points.size() < total,
                 QByteArray::number(qulonglong(r->points.size())).constData());
        QVERIFY(last >= 0.25 && last < 1);
        // Finished points only, in the canonical order, each equal to the full run's.
        std::size_t j = 0;
        for (const auto& p : r->points) {
            while (j < total &&
                   !(full->points[j].protocol == p.protocol && full->points[j].shape == p.shape &&
                     full->points[j].users == p.users && full->points[j].epsilon == p.epsilon)) {
                ++j;
            }
            QVERIFY2(j < total, describe(p).constData());
            QVERIFY2(samePoint(p, full->points[j]), describe(p).constData());
            ++j;
        }
    }
}

void TestLdpExperiment::cancelledBeforeStart() {
    std::stop_source source;
    source.request_stop();
    int calls = 0;
    const auto r = runExperiment(smallSpec(), source.get_token(), [&](double) { ++calls; });
    DPX_VERIFY_OK(r);
    QVERIFY(r->cancelled);
    QVERIFY(r->points.empty());
    QCOMPARE(calls, 0);
    // A bad spec is an error even when stopped.
    ExperimentSpec bad = smallSpec();
    bad.repetitions = 0;
    DPX_VERIFY_ERROR(runExperiment(bad, source.get_token()), "repetitions");
}

void TestLdpExperiment::progressIsMonotoneAndComplete() {
    ExperimentSpec s = smallSpec();
    s.populations = {100, 200, 300, 400, 500, 600, 700, 800, 900, 1000};
    const std::size_t total = experimentPointCount(s);
    for (const unsigned threads : {1U, 2U, 3U}) {
        std::mutex m;
        std::vector<double> seen;
        const auto r = runExperiment(
            s, {},
            [&](double f) {
                const std::lock_guard lock(m);
                seen.push_back(f);
            },
            threads);
        DPX_VERIFY_OK(r);
        QVERIFY(!r->cancelled);
        QCOMPARE(r->points.size(), total);
        QVERIFY(!seen.empty() && seen.size() <= total);
        for (std::size_t i = 0; i < seen.size(); ++i) {
            QVERIFY(seen[i] > 0 && seen[i] <= 1);
            QVERIFY(i == 0 || seen[i] > seen[i - 1]);
            // Fractions of whole points.
            const double points = seen[i] * static_cast<double>(total);
            DPX_VERIFY_NEAR(points, std::round(points), 1e-9);
        }
        QCOMPARE(seen.back(), 1.0);
    }
}

QTEST_GUILESS_MAIN(TestLdpExperiment)
#include "tst_ldp_experiment.moc"
