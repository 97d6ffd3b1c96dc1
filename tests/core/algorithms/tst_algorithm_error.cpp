// algorithmError (core/algorithms/algorithm_error.h; LABELS core statistical, fixed seeds), on
// two algorithms defined here so that the engine is tested apart from the registered family:
// a Laplace identity (data-independent, least squares = the noisy cells) and a "data-dependent"
// one (noise scaled by a noisy total). References, computed independently in this file: every
// trial re-run by hand on stream t of the seed and its errors by summing each box's cells one by
// one; the identity strategy's exact RMSE in closed form, √(2/ε² · mean_q |box_q|) (independent
// cells of variance 2/ε²).
#include <QTest>

#include <atomic>
#include <cmath>
#include <numeric>
#include <stop_token>
#include <vector>

#include "core/algorithms/algorithm_error.h"
#include "core/base/noise_distribution.h"
#include "core/base/simulation_rng.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

class LaplaceIdentity : public Algorithm {
public:
    const AlgorithmInfo& info() const override {
        static const AlgorithmInfo i{"TestIdentity",
                                     "Laplace on every cell (test)",
                                     "test",
                                     {1, 2},
                                     false,
                                     false,
                                     false,
                                     {},
                                     ""};
        return i;
    }
    Expected<AlgorithmRun> run(const AlgorithmContext& c) const override {
        if (auto p = checkAlgorithmContext(info(), c); !p) {
            return p.error();
        }
        AlgorithmRun r;
        r.estimate.assign(c.x.begin(), c.x.end());
        const NoiseDistribution noise = NoiseDistribution::laplace(1 / c.epsilon);
        for (double& v : r.estimate) {
            v += sampleNoise(noise, *c.rng);
        }
        r.spent.push_back({"measure every cell", c.epsilon});
        r.summary = "identity";
        return r;
    }
    Expected<std::unique_ptr<LinearStrategy>> strategy(const DomainShape& shape,
                                                       const Workload&) const override {
        return identityStrategy(shape);
    }
};

// Data-dependent (its noise depends on the data through a noisy total); fails when asked.
class NoisyTotalScaled : public Algorithm {
public:
    const AlgorithmInfo& info() const override {
        static const AlgorithmInfo i{
            "TestDependent",
            "test",
            "test",
            {1},
            true,
            false,
            false,
            {{"fail", 0, 0, 1, true, "1: fail on the third trial's data (test)"}},
            ""};
        return i;
    }
    Expected<AlgorithmRun> run(const AlgorithmContext& c) const override {
        auto p = checkAlgorithmContext(info(), c);
        if (!p) {
            return p.error();
        }
        const double total = std::accumulate(c.x.begin(), c.x.end(), 0.0);
        const double noisyTotal =
            total + sampleNoise(NoiseDistribution::laplace(2 / c.epsilon), *c.rng);
        if (p->at("fail") == 1 && noisyTotal < total) {
            return Error{"deliberate failure"};
        }
        AlgorithmRun r;
        r.estimate.assign(c.x.size(), std::max(noisyTotal, 0.0) / double(c.x.size()));
        r.spent.push_back({"total", c.epsilon});
        return r;
    }
};

const LaplaceIdentity kIdentity;
const NoisyTotalScaled kDependent;

std::vector<double> shapeData(std::size_t n) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = double((i * 37) % 11) * (i % 3 == 0 ? 5 : 1);
    }
    return x;
}

double boxSum(const RangeQuery& q, const DomainShape& shape, const std::vector<double>& v) {
    double s = 0;
    if (shape.size() == 1) {
        for (std::uint64_t i = q.box[0].lo; i <= q.box[0].hi; ++i) {
            s += v[i];
        }
    } else {
        for (std::uint64_t i = q.box[0].lo; i <= q.box[0].hi; ++i) {
            for (std::uint64_t j = q.box[1].lo; j <= q.box[1].hi; ++j) {
                s += v[i * shape[1] + j];
            }
        }
    }
    return s * q.weight;
}

double boxCells(const RangeQuery& q) {
    double c = 1;
    for (const BinRange& r : q.box) {
        c *= double(r.hi - r.lo + 1);
    }
    return c;
}

}  // namespace

class TestAlgorithmError : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void matchesTrialsRunByHand_data() {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::newRow("1-D ranges") << "range:300" << 256 << 0;
        QTest::newRow("1-D prefix") << "prefix" << 100 << 0;
        QTest::newRow("2-D rectangles") << "range:200" << 16 << 12;
    }
    void matchesTrialsRunByHand() {
        QFETCH(QString, workload);
        QFETCH(int, rows);
        QFETCH(int, cols);
        DomainShape shape{std::size_t(rows)};
        if (cols > 0) {
            shape.push_back(std::size_t(cols));
        }
        const std::vector<double> x = shapeData(shapeCells(shape));
        auto spec = WorkloadSpec::parse(workload.toStdString());
        DPX_VERIFY_OK(spec);
        auto w = Workload::make(*spec, shape);
        DPX_VERIFY_OK(w);
        AlgorithmErrorRequest r;
        r.algorithm = &kIdentity;
        r.shape = shape;
        r.x = x;
        r.workload = &*w;
        r.epsilon = 0.5;
        r.trials = 40;
        r.seed = 77;
        r.threads = 1;
        auto got = algorithmError(r);
        DPX_VERIFY_OK(got);
        QCOMPARE(got->trials, std::uint64_t{40});

        // By hand: trial t = the algorithm on stream t; errors from box sums.
        const double m = std::accumulate(x.begin(), x.end(), 0.0);
        const auto q = w->queryCount();
        std::vector<double> l2, l1, linf, rmse;
        for (std::uint64_t t = 0; t < r.trials; ++t) {
            SimulationRng rng(r.seed, t);
            AlgorithmContext c;
            c.shape = shape;
            c.x = x;
            c.workload = &*w;
            c.epsilon = r.epsilon;
            c.rng = &rng;
            auto run = kIdentity.run(c);
            DPX_VERIFY_OK(run);
            if (t == 0) {
                QVERIFY(run->estimate == got->firstEstimate);
            }
            double s1 = 0, s2 = 0, mx = 0;
            for (std::uint64_t i = 0; i < q; ++i) {
                const RangeQuery query = w->query(i);
                const double d = boxSum(query, shape, run->estimate) - boxSum(query, shape, x);
                s1 += std::abs(d);
                s2 += d * d;
                mx = std::max(mx, std::abs(d));
            }
            l2.push_back(std::sqrt(s2) / double(q) / m);
            l1.push_back(s1 / double(q) / m);
            linf.push_back(mx / m);
            rmse.push_back(std::sqrt(s2 / double(q)));
        }
        const auto check = [](const MeanWithError& g, const std::vector<double>& v) {
            const double n = double(v.size());
            const double mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
            double ss = 0;
            for (double e : v) {
                ss += (e - mean) * (e - mean);
            }
            DPX_VERIFY_REL(g.mean, mean, 1e-9);
            DPX_VERIFY_REL(g.standardError, std::sqrt(ss / (n - 1) / n), 1e-6);
        };
        check(got->scaledL2, l2);
        check(got->scaledL1, l1);
        check(got->scaledLinf, linf);
        check(got->rmse, rmse);
        QCOMPARE(got->summary, std::string("identity"));
        QVERIFY(got->secondsMedian > 0);

        // Exact expected RMSE of the identity strategy: √(2/ε² · mean |box|).
        QVERIFY(got->exactRmse.has_value());
        double cells = 0;
        for (std::uint64_t i = 0; i < q; ++i) {
            cells += boxCells(w->query(i));
        }
        const double exact = std::sqrt(2 / (r.epsilon * r.epsilon) * cells / double(q));
        DPX_VERIFY_REL(*got->exactRmse, exact, 1e-9);
        // The Monte Carlo RMSE agrees with it (mean of √ below √ of the mean by a little).
        DPX_VERIFY_NEAR(got->rmse.mean, exact, 5 * got->rmse.standardError + 0.05 * exact);
    }

    void sameBitsForAnyThreadCount() {
        const DomainShape shape{512};
        const std::vector<double> x = shapeData(512);
        auto w = Workload::make(*WorkloadSpec::parse("range:500"), shape);
        DPX_VERIFY_OK(w);
        for (const Algorithm* a : {static_cast<const Algorithm*>(&kIdentity),
                                   static_cast<const Algorithm*>(&kDependent)}) {
            AlgorithmErrorRequest r;
            r.algorithm = a;
            r.shape = shape;
            r.x = x;
            r.workload = &*w;
            r.epsilon = 0.1;
            r.trials = 37;
            r.seed = 5;
            r.threads = 1;
            auto one = algorithmError(r);
            r.threads = 2;
            auto two = algorithmError(r);
            r.threads = 3;
            auto three = algorithmError(r);
            DPX_VERIFY_OK(one);
            DPX_VERIFY_OK(two);
            DPX_VERIFY_OK(three);
            for (const auto* o : {&*two, &*three}) {
                QCOMPARE(o->scaledL2.mean, one->scaledL2.mean);
                QCOMPARE(o->scaledL2.standardError, one->scaledL2.standardError);
                QCOMPARE(o->scaledL1.mean, one->scaledL1.mean);
                QCOMPARE(o->scaledLinf.mean, one->scaledLinf.mean);
                QCOMPARE(o->rmse.mean, one->rmse.mean);
                QCOMPARE(o->rmse.standardError, one->rmse.standardError);
                QVERIFY(o->firstEstimate == one->firstEstimate);
            }
            // A different seed gives different errors.
            r.seed = 6;
            auto other = algorithmError(r);
            DPX_VERIFY_OK(other);
            QVERIFY(other->scaledL2.mean != one->scaledL2.mean);
        }
    }

    void dataDependentHasNoExactError() {
        const std::vector<double> x = shapeData(64);
        auto w = Workload::make(*WorkloadSpec::parse("identity"), {64});
        AlgorithmErrorRequest r{&kDependent, {64}, x, &*w, 1.0, {}, 1, 3, 0, 0};
        auto got = algorithmError(r);
        DPX_VERIFY_OK(got);
        QVERIFY(!got->exactRmse.has_value());
        QCOMPARE(got->trials, std::uint64_t{1});
        QCOMPARE(got->scaledL2.standardError, 0.0);  // T = 1
        // The scale m given replaces Σx in the scaled errors.
        r.scale = 2 * std::accumulate(x.begin(), x.end(), 0.0);
        auto halved = algorithmError(r);
        DPX_VERIFY_OK(halved);
        DPX_VERIFY_REL(halved->scaledL2.mean, got->scaledL2.mean / 2, 1e-12);
        QCOMPARE(halved->rmse.mean, got->rmse.mean);
    }

    void progressAndCancel() {
        const std::vector<double> x = shapeData(128);
        auto w = Workload::make(*WorkloadSpec::parse("prefix"), {128});
        AlgorithmErrorRequest r{&kIdentity, {128}, x, &*w, 1.0, {}, 20, 3, 0, 2};
        std::atomic<int> calls{0};
        std::atomic<double> last{0};
        auto got = algorithmError(r, [&](double f) {
            ++calls;
            last = f;
        });
        DPX_VERIFY_OK(got);
        QVERIFY(calls > 0);
        QCOMPARE(last.load(), 1.0);
        std::stop_source stop;
        stop.request_stop();
        DPX_VERIFY_ERROR(algorithmError(r, {}, stop.get_token()), "cancelled");
    }

    void badInputs() {
        const std::vector<double> x = shapeData(64);
        auto w = Workload::make(*WorkloadSpec::parse("identity"), {64});
        auto w2 = Workload::make(*WorkloadSpec::parse("identity"), {8, 8});
        AlgorithmErrorRequest r{&kIdentity, {64}, x, &*w, 1.0, {}, 5, 3, 0, 1};
        auto bad = r;
        bad.algorithm = nullptr;
        DPX_VERIFY_ERROR(algorithmError(bad), "no algorithm");
        bad = r;
        bad.workload = nullptr;
        DPX_VERIFY_ERROR(algorithmError(bad), "no workload");
        bad = r;
        bad.trials = 0;
        DPX_VERIFY_ERROR(algorithmError(bad), "trials");
        bad.trials = 1'000'001;
        DPX_VERIFY_ERROR(algorithmError(bad), "10^6");
        bad = r;
        bad.epsilon = 0;
        DPX_VERIFY_ERROR(algorithmError(bad), "epsilon|ε");
        bad = r;
        bad.scale = -1;
        DPX_VERIFY_ERROR(algorithmError(bad), "scale");
        bad = r;
        bad.algorithm = &kDependent;
        bad.shape = {8, 8};
        bad.workload = &*w2;
        DPX_VERIFY_ERROR(algorithmError(bad), "runs on 1-D");
        bad = r;
        bad.parameters = {{"rho", 0.5}};
        DPX_VERIFY_ERROR(algorithmError(bad), "no parameter 'rho'");
        bad = r;
        bad.algorithm = &kDependent;
        bad.parameters = {{"fail", 1}};
        bad.trials = 40;
        DPX_VERIFY_ERROR(algorithmError(bad), "deliberate failure");
        bad.parameters = {{"fail", 2}};
        DPX_VERIFY_ERROR(algorithmError(bad), "outside");
        const std::vector<double> zeros(64, 0.0);
        bad = r;
        bad.x = zeros;
        DPX_VERIFY_ERROR(algorithmError(bad), "total is 0");
    }
};

QTEST_APPLESS_MAIN(TestAlgorithmError)
#include "tst_algorithm_error.moc"
