// LDP frequency oracles (issue #7; LABELS statistical). Fixed seeds. References: the closed forms
// of seed 001 §2.4 (GRR (e^ε + D − 2)/(N(e^ε − 1)²), OUE/OLH 4e^ε/(N(e^ε − 1)²) at f = 0) and the
// variance formulas derived in core/ldp/protocols.cpp, checked here against repeated simulation:
// means within 4.5 standard errors (σ from estimatorVariance), sample variances within
// 5·σ²·sqrt(2/(R − 1)) (the standard error of a normal sample variance).
#include <QElapsedTimer>
#include <QTest>

#include <algorithm>
#include <limits>
#include <mutex>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <stop_token>
#include <vector>

#include "core/base/simulation_rng.h"
#include "core/ldp/protocols.h"
#include "tests/testing/test_support.h"

using namespace dpx;
using namespace dpx::ldp;

Q_DECLARE_METATYPE(dpx::ldp::Protocol)

namespace {

ProtocolSpec makeSpec(Protocol p, double eps, std::size_t domain, std::size_t bits = 1) {
    ProtocolSpec s;
    s.protocol = p;
    s.epsilon = eps;
    s.domain = domain;
    s.bits = bits;
    return s;
}

struct Moments {
    double n = 0, mean = 0, m2 = 0;
    void add(double x) {
        n += 1;
        const double d = x - mean;
        mean += d / n;
        m2 += d * (x - mean);
    }
    double variance() const { return m2 / (n - 1); }
};

std::vector<std::uint32_t> valuesOf(const std::vector<std::int64_t>& counts) {
    std::vector<std::uint32_t> v;
    for (std::size_t j = 0; j < counts.size(); ++j) {
        v.insert(v.end(), static_cast<std::size_t>(counts[j]), static_cast<std::uint32_t>(j));
    }
    return v;
}

// A skewed histogram of `users` over `domain` values (last value empty, first value ~40%).
std::vector<std::int64_t> skewedCounts(std::size_t domain, std::int64_t users) {
    std::vector<double> w(domain);
    for (std::size_t j = 0; j + 1 < domain; ++j) {
        w[j] = 1.0 / static_cast<double>((j + 1) * (j + 1));
    }
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    std::vector<std::int64_t> c(domain);
    std::int64_t assigned = 0;
    for (std::size_t j = 1; j < domain; ++j) {
        c[j] = static_cast<std::int64_t>(std::floor(static_cast<double>(users) * w[j] / total));
        assigned += c[j];
    }
    c[0] = users - assigned;
    return c;
}

// Sample mean/variance of every f̂_j over R runs against f_j and estimatorVariance.
void checkAgainstFormula(const ProtocolSpec& spec, const std::vector<std::int64_t>& counts,
                         const std::vector<Moments>& mom, const char* what) {
    const auto n =
        static_cast<std::uint64_t>(std::accumulate(counts.begin(), counts.end(), std::int64_t{0}));
    for (std::size_t j = 0; j < counts.size(); ++j) {
        const double f = static_cast<double>(counts[j]) / static_cast<double>(n);
        const auto v = estimatorVariance(spec, n, f);
        QVERIFY(v.hasValue());
        const double r = mom[j].n;
        QVERIFY2(std::abs(mom[j].mean - f) <= 4.5 * std::sqrt(*v / r),
                 (QByteArray(what) + " mean of f̂_" + QByteArray::number(qulonglong(j)) + ": " +
                  dpxtest::nearMessage("", mom[j].mean, f, 4.5 * std::sqrt(*v / r)))
                     .constData());
        QVERIFY2(std::abs(mom[j].variance() - *v) <= 5 * *v * std::sqrt(2 / (r - 1)),
                 (QByteArray(what) + " variance of f̂_" + QByteArray::number(qulonglong(j)) + ": " +
                  dpxtest::nearMessage("", mom[j].variance(), *v, 5 * *v * std::sqrt(2 / (r - 1))))
                     .constData());
    }
}

// Reference for olhHash: (a·x + b) mod P by double-and-add with 64-bit arithmetic only.
std::uint64_t mulAddModP(std::uint64_t a, std::uint64_t x, std::uint64_t b) {
    const std::uint64_t p = kOlhPrime;
    std::uint64_t r = 0;
    std::uint64_t base = a % p;
    for (std::uint64_t e = x; e != 0; e >>= 1) {
        if (e & 1U) {
            r = (r + base) % p;
        }
        base = (base * 2) % p;
    }
    return (r + b % p) % p;
}

const std::vector<Protocol> kAll{Protocol::RR,  Protocol::GRR, Protocol::OUE,     Protocol::SUE,
                                 Protocol::OLH, Protocol::HRR, Protocol::DBitFlip};

}  // namespace

class TestLdp : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void names();
    void validation_data();
    void validation();
    void constants();
    void varianceClosedForms();
    void varianceErrors();
    void reportMatrixIsStochasticWithLocalEpsilon_data();
    void reportMatrixIsStochasticWithLocalEpsilon();
    void reportMatrixTooLarge();
    void aggregateUnbiasedWithFormulaVariance_data();
    void aggregateUnbiasedWithFormulaVariance();
    void perUserMatchesAggregate_data();
    void perUserMatchesAggregate();
    void aggregateBillionUsers();
    void threadCountDoesNotMatter();
    void cancellation();
    void progress();
    void inputErrors();
    void hadamardTransform();
    void olhHashAndSupport();
    void olhSupportBatchEqualsSingle();
};

void TestLdp::names() {
    for (const Protocol p : kAll) {
        const auto back = protocolFromName(protocolName(p));
        QVERIFY(back.hasValue());
        QCOMPARE(*back, p);
    }
    QCOMPARE(*protocolFromName("OLH"), Protocol::OLH);
    DPX_VERIFY_ERROR(protocolFromName("rappor"), "unknown");
    DPX_VERIFY_ERROR(protocolFromName(""), "unknown");
}

void TestLdp::validation_data() {
    QTest::addColumn<Protocol>("protocol");
    QTest::addColumn<double>("epsilon");
    QTest::addColumn<qulonglong>("domain");
    QTest::addColumn<qulonglong>("bits");
    QTest::addColumn<QString>("needle");
    const double inf = std::numeric_limits<double>::infinity();
    QTest::newRow("eps 0") << Protocol::GRR << 0.0 << 4ULL << 1ULL << "epsilon";
    QTest::newRow("eps negative") << Protocol::OUE << -1.0 << 4ULL << 1ULL << "epsilon";
    QTest::newRow("eps NaN") << Protocol::SUE << std::nan("") << 4ULL << 1ULL << "epsilon";
    QTest::newRow("eps inf") << Protocol::HRR << inf << 4ULL << 1ULL << "epsilon";
    QTest::newRow("eps -inf") << Protocol::HRR << -inf << 4ULL << 1ULL << "epsilon";
    QTest::newRow("eps > 50") << Protocol::GRR << 50.5 << 4ULL << 1ULL << "epsilon";
    QTest::newRow("olh eps > 40") << Protocol::OLH << 41.0 << 4ULL << 1ULL << "olh";
    QTest::newRow("domain 0") << Protocol::GRR << 1.0 << 0ULL << 1ULL << "domain";
    QTest::newRow("domain 1") << Protocol::OLH << 1.0 << 1ULL << 1ULL << "domain";
    QTest::newRow("domain too large")
        << Protocol::OUE << 1.0 << qulonglong(kMaxDomain + 1) << 1ULL << "domain";
    QTest::newRow("rr domain 3") << Protocol::RR << 1.0 << 3ULL << 1ULL << "domain";
    QTest::newRow("dbitflip d 0") << Protocol::DBitFlip << 1.0 << 8ULL << 0ULL << "bits";
    QTest::newRow("dbitflip d > D") << Protocol::DBitFlip << 1.0 << 8ULL << 9ULL << "bits";
}

void TestLdp::validation() {
    QFETCH(Protocol, protocol);
    QFETCH(double, epsilon);
    QFETCH(qulonglong, domain);
    QFETCH(qulonglong, bits);
    QFETCH(QString, needle);
    const auto spec = makeSpec(protocol, epsilon, domain, bits);
    const QByteArray needleUtf8 = needle.toUtf8();
    const char* n = needleUtf8.constData();
    DPX_VERIFY_ERROR(spec.validate(), n);
    DPX_VERIFY_ERROR(oracleConstants(spec), n);
    DPX_VERIFY_ERROR(estimatorVariance(spec, 100, 0.1), n);
    DPX_VERIFY_ERROR(reportMatrix(spec), n);
    const std::vector<std::uint32_t> values{0, 1};
    DPX_VERIFY_ERROR(simulatePerUser(spec, values, 1, 1), n);
    const std::vector<std::int64_t> counts(std::max<std::size_t>(domain, 1), 1);
    DPX_VERIFY_ERROR(simulateAggregate(spec, counts, 1), n);
}

void TestLdp::constants() {
    const double eps = std::log(3.0);  // e^ε = 3
    const double s3 = std::sqrt(3.0);
    struct Row {
        Protocol p;
        std::size_t d;
        double p0, q0;
        std::size_t g;
    };
    const std::vector<Row> rows{{Protocol::RR, 2, 0.75, 0.25, 0},  // e^ε/(e^ε + 1)
                                {Protocol::GRR, 8, 0.3, 0.1, 0},   // 3/10, 1/10
                                {Protocol::OUE, 8, 0.5, 0.25, 0},  // ½, 1/(e^ε + 1)
                                {Protocol::SUE, 8, s3 / (s3 + 1), 1 / (s3 + 1), 0},
                                {Protocol::OLH, 8, 0.5, 0.25, 4},  // g = 4, 3/(3 + 3), 1/4
                                {Protocol::HRR, 8, 0.75, 0.5, 0},  // p, and ½ for any other value
                                {Protocol::DBitFlip, 8, s3 / (s3 + 1), 1 / (s3 + 1), 0}};
    for (const Row& r : rows) {
        const auto c = oracleConstants(makeSpec(r.p, eps, r.d, 2));
        QVERIFY(c.hasValue());
        DPX_VERIFY_NEAR(c->p, r.p0, 1e-15);
        DPX_VERIFY_NEAR(c->q, r.q0, 1e-15);
        QCOMPARE(c->hashRange, r.g);
    }
    // OLH at ε = 2: g = round(e² + 1) = round(8.389) = 8.
    QCOMPARE(oracleConstants(makeSpec(Protocol::OLH, 2, 100))->hashRange, std::size_t{8});
    // Largest accepted ε: finite constants.
    const auto big = oracleConstants(makeSpec(Protocol::GRR, 50, 1000));
    QVERIFY(big.hasValue() && std::isfinite(big->p) && big->q > 0);
}

void TestLdp::varianceClosedForms() {
    const std::uint64_t n = 100000;
    for (const double eps : {0.1, std::log(3.0), 2.0, 5.0}) {
        const double e = std::exp(eps);
        // Seed 001 §2.4: GRR (e^ε + D − 2)/(N(e^ε − 1)²), OUE 4e^ε/(N(e^ε − 1)²) at f = 0.
        const std::size_t d = 16;
        DPX_VERIFY_REL(*estimatorVariance(makeSpec(Protocol::GRR, eps, d), n, 0),
                       (e + d - 2) / (n * (e - 1) * (e - 1)), 1e-12);
        DPX_VERIFY_REL(*estimatorVariance(makeSpec(Protocol::OUE, eps, d), n, 0),
                       4 * e / (n * (e - 1) * (e - 1)), 1e-12);
        // RR: p q/(N(2p − 1)²) = e^ε/(N(e^ε − 1)²) for every f.
        DPX_VERIFY_REL(*estimatorVariance(makeSpec(Protocol::RR, eps, 2), n, 0.3),
                       e / (n * (e - 1) * (e - 1)), 1e-12);
        // SUE at f = 0: e^(ε/2)/(N(e^(ε/2) − 1)²); dBitFlip with d = D is SUE for every f.
        const double h = std::exp(eps / 2);
        DPX_VERIFY_REL(*estimatorVariance(makeSpec(Protocol::SUE, eps, d), n, 0),
                       h / (n * (h - 1) * (h - 1)), 1e-12);
        DPX_VERIFY_REL(*estimatorVariance(makeSpec(Protocol::DBitFlip, eps, d, d), n, 0.2),
                       *estimatorVariance(makeSpec(Protocol::SUE, eps, d), n, 0.2), 1e-12);
        // dBitFlip d = 1: D·[e^(ε/2)/(e^(ε/2) − 1)² + f(1 − 1/D)]/N.
        DPX_VERIFY_REL(*estimatorVariance(makeSpec(Protocol::DBitFlip, eps, d, 1), n, 0.25),
                       d * (h / ((h - 1) * (h - 1)) + 0.25 * (1 - 1.0 / d)) / n, 1e-12);
        // HRR: [1 − f(2p − 1)²]/(N(2p − 1)²), 2p − 1 = (e^ε − 1)/(e^ε + 1).
        const double t = (e - 1) / (e + 1);
        DPX_VERIFY_REL(*estimatorVariance(makeSpec(Protocol::HRR, eps, 10), n, 0.4),
                       (1 - 0.4 * t * t) / (n * t * t), 1e-12);
    }
    // OLH with g = e^ε + 1 exactly (ε = ln 3, g = 4) has OUE's variance at f = 0.
    DPX_VERIFY_REL(*estimatorVariance(makeSpec(Protocol::OLH, std::log(3.0), 64), n, 0),
                   *estimatorVariance(makeSpec(Protocol::OUE, std::log(3.0), 64), n, 0), 1e-12);
}

void TestLdp::varianceErrors() {
    const auto spec = makeSpec(Protocol::GRR, 1, 4);
    DPX_VERIFY_ERROR(estimatorVariance(spec, 0, 0.1), "users|N");
    DPX_VERIFY_ERROR(estimatorVariance(spec, 10, -0.1), "frequency");
    DPX_VERIFY_ERROR(estimatorVariance(spec, 10, 1.5), "frequency");
    DPX_VERIFY_ERROR(estimatorVariance(spec, 10, std::nan("")), "frequency");
    DPX_VERIFY_ERROR(estimatorVariance(spec, 10, std::numeric_limits<double>::infinity()),
                     "frequency");
}

void TestLdp::reportMatrixIsStochasticWithLocalEpsilon_data() {
    QTest::addColumn<Protocol>("protocol");
    QTest::addColumn<qulonglong>("domain");
    QTest::addColumn<qulonglong>("rows");
    QTest::addColumn<double>("epsilon");
    for (const double eps : {0.5, std::log(3.0), 4.0, 20.0}) {
        const QByteArray e = " eps=" + QByteArray::number(eps);
        QTest::newRow("rr" + e) << Protocol::RR << 2ULL << 2ULL << eps;
        QTest::newRow("grr D=5" + e) << Protocol::GRR << 5ULL << 5ULL << eps;
        QTest::newRow("oue D=4" + e) << Protocol::OUE << 4ULL << 16ULL << eps;
        QTest::newRow("oue D=10" + e) << Protocol::OUE << 10ULL << 1024ULL << eps;
        QTest::newRow("sue D=6" + e) << Protocol::SUE << 6ULL << 64ULL << eps;
        QTest::newRow("hrr D=5" + e) << Protocol::HRR << 5ULL << 16ULL << eps;
        QTest::newRow("hrr D=64" + e) << Protocol::HRR << 64ULL << 128ULL << eps;
    }
}

// Column-stochastic, and the achieved local ε — max over rows r and value pairs (v, v′) of
// |ln P[r][v] − ln P[r][v′]| — equals ε exactly (OUE: the ratio ½(1 − q)/(q·½) = e^ε is attained
// by reports with bit v set and bit v′ clear; SUE: (p/q)² = e^ε; HRR: p/(1 − p) = e^ε).
void TestLdp::reportMatrixIsStochasticWithLocalEpsilon() {
    QFETCH(Protocol, protocol);
    QFETCH(qulonglong, domain);
    QFETCH(qulonglong, rows);
    QFETCH(double, epsilon);
    const double eps = epsilon;
    const auto m = reportMatrix(makeSpec(protocol, eps, domain));
    QVERIFY(m.hasValue());
    QCOMPARE(qulonglong(m->p.size()), rows);
    QCOMPARE(qulonglong(m->reportLabels.size()), rows);
    double worst = 0;
    for (std::size_t v = 0; v < domain; ++v) {
        double sum = 0;
        for (const auto& row : m->p) {
            QCOMPARE(qulonglong(row.size()), domain);
            QVERIFY(row[v] > 0);
            sum += row[v];
        }
        DPX_VERIFY_NEAR(sum, 1.0, 1e-12);
    }
    for (const auto& row : m->p) {
        const auto [lo, hi] = std::minmax_element(row.begin(), row.end());
        worst = std::max(worst, std::log(*hi) - std::log(*lo));
    }
    DPX_VERIFY_NEAR(worst, eps, 1e-12 * std::max(1.0, eps));
    DPX_VERIFY_NEAR(localEpsilonOf(*m), worst, 1e-15 * std::max(1.0, eps));
    // One perturbed entry breaks the level; a zero next to a positive entry makes it infinite.
    // (The largest entry of the first row whose ratio is the worst is raised.)
    ReportMatrix broken = *m;
    for (auto& row : broken.p) {
        const auto [lo, hi] = std::minmax_element(row.begin(), row.end());
        if (std::log(*hi) - std::log(*lo) >= worst * (1 - 1e-12)) {
            *hi *= std::exp(0.01);
            break;
        }
    }
    QVERIFY(localEpsilonOf(broken) > eps + 0.005);
    broken.p[0][0] = 0;
    QVERIFY(std::isinf(localEpsilonOf(broken)));
}

void TestLdp::reportMatrixTooLarge() {
    DPX_VERIFY_ERROR(reportMatrix(makeSpec(Protocol::OUE, 1, 11)), "D ≤ 10");
    DPX_VERIFY_ERROR(reportMatrix(makeSpec(Protocol::SUE, 1, 100)), "D ≤ 10");
    DPX_VERIFY_ERROR(reportMatrix(makeSpec(Protocol::HRR, 1, 65)), "64");
    DPX_VERIFY_ERROR(reportMatrix(makeSpec(Protocol::OLH, 1, 4)), "too large");
    DPX_VERIFY_ERROR(reportMatrix(makeSpec(Protocol::DBitFlip, 1, 4, 2)), "too large");
    QCOMPARE(reportMatrix(makeSpec(Protocol::GRR, 1, 300))->p.size(), std::size_t{300});
}

namespace {
void addProtocolRows() {
    QTest::addColumn<Protocol>("protocol");
    QTest::addColumn<double>("epsilon");
    QTest::addColumn<qulonglong>("domain");
    QTest::addColumn<qulonglong>("bits");
    QTest::newRow("rr") << Protocol::RR << 1.0 << 2ULL << 1ULL;
    QTest::newRow("grr") << Protocol::GRR << 1.0 << 8ULL << 1ULL;
    QTest::newRow("oue") << Protocol::OUE << 1.0 << 8ULL << 1ULL;
    QTest::newRow("oue eps=4 D=40 (geometric skipping)") << Protocol::OUE << 4.0 << 40ULL << 1ULL;
    QTest::newRow("sue") << Protocol::SUE << 1.0 << 8ULL << 1ULL;
    QTest::newRow("olh eps=ln3 (g=4)") << Protocol::OLH << std::log(3.0) << 8ULL << 1ULL;
    QTest::newRow("olh eps=2 (g=8)") << Protocol::OLH << 2.0 << 12ULL << 1ULL;
    QTest::newRow("hrr D=6") << Protocol::HRR << 1.0 << 6ULL << 1ULL;
    QTest::newRow("hrr D=8") << Protocol::HRR << 2.0 << 8ULL << 1ULL;
    QTest::newRow("dbitflip d=1") << Protocol::DBitFlip << 1.0 << 8ULL << 1ULL;
    QTest::newRow("dbitflip d=3") << Protocol::DBitFlip << 2.0 << 8ULL << 3ULL;
    QTest::newRow("dbitflip d=D") << Protocol::DBitFlip << 1.0 << 8ULL << 8ULL;
}
}  // namespace

void TestLdp::aggregateUnbiasedWithFormulaVariance_data() {
    addProtocolRows();
}

// 2000 aggregate collections of N = 10^4 users.
void TestLdp::aggregateUnbiasedWithFormulaVariance() {
    QFETCH(Protocol, protocol);
    QFETCH(double, epsilon);
    QFETCH(qulonglong, domain);
    QFETCH(qulonglong, bits);
    const auto spec = makeSpec(protocol, epsilon, domain, bits);
    const auto counts = skewedCounts(domain, 10000);
    std::vector<Moments> mom(domain);
    for (std::uint64_t rep = 0; rep < 2000; ++rep) {
        const auto r = simulateAggregate(spec, counts, 1000 + rep);
        QVERIFY(r.hasValue());
        QVERIFY(!r->cancelled);
        QCOMPARE(r->users, std::uint64_t{10000});
        QCOMPARE(qulonglong(r->frequencies.size()), domain);
        for (std::size_t j = 0; j < domain; ++j) {
            mom[j].add(r->frequencies[j]);
        }
    }
    checkAgainstFormula(spec, counts, mom, "aggregate");
}

void TestLdp::perUserMatchesAggregate_data() {
    addProtocolRows();
}

// 1500 per-user collections of N = 2000 users against the formula, and against 1500 aggregate
// collections (two-sample z on the means, ratio of variances within 5·sqrt(4/R)): the aggregate
// simulator reproduces each f̂_j's law (for OLH and dBitFlip only the marginals, see ldp.cpp).
void TestLdp::perUserMatchesAggregate() {
    QFETCH(Protocol, protocol);
    QFETCH(double, epsilon);
    QFETCH(qulonglong, domain);
    QFETCH(qulonglong, bits);
    const auto spec = makeSpec(protocol, epsilon, domain, bits);
    const auto counts = skewedCounts(domain, 2000);
    const auto values = valuesOf(counts);
    const int reps = 1500;
    std::vector<Moments> user(domain), agg(domain);
    for (int rep = 0; rep < reps; ++rep) {
        const auto u = simulatePerUser(spec, values, 5000 + std::uint64_t(rep), 1);
        const auto a = simulateAggregate(spec, counts, 9000 + std::uint64_t(rep));
        QVERIFY(u.hasValue() && a.hasValue());
        QCOMPARE(u->users, std::uint64_t{2000});
        for (std::size_t j = 0; j < domain; ++j) {
            user[j].add(u->frequencies[j]);
            agg[j].add(a->frequencies[j]);
        }
    }
    checkAgainstFormula(spec, counts, user, "per-user");
    for (std::size_t j = 0; j < domain; ++j) {
        const double se = std::sqrt(user[j].variance() / reps + agg[j].variance() / reps);
        DPX_VERIFY_NEAR(user[j].mean - agg[j].mean, 0.0, 4.5 * se);
        DPX_VERIFY_NEAR(user[j].variance() / agg[j].variance(), 1.0, 5 * std::sqrt(4.0 / reps));
    }
}

// N = 10^9 users over D = 1024: cost independent of N; every estimate within 5.5σ of the truth.
void TestLdp::aggregateBillionUsers() {
    const std::size_t d = 1024;
    const auto counts = skewedCounts(d, 1000000000);
    for (const Protocol p : kAll) {
        if (p == Protocol::RR) {
            continue;
        }
        const auto spec = makeSpec(p, 1, d, 4);
        QElapsedTimer timer;
        timer.start();
        const auto r = simulateAggregate(spec, counts, 42);
        QVERIFY(r.hasValue());
        qInfo("%s aggregate, N = 1e9, D = 1024: %lld ms", protocolName(p),
              static_cast<long long>(timer.elapsed()));
        QCOMPARE(r->users, std::uint64_t{1000000000});
        for (std::size_t j = 0; j < d; ++j) {
            const double f = static_cast<double>(counts[j]) * 1e-9;
            const double sd = std::sqrt(*estimatorVariance(spec, 1000000000, f));
            DPX_VERIFY_NEAR(r->frequencies[j], f, 5.5 * sd);
        }
    }
}

void TestLdp::threadCountDoesNotMatter() {
    const std::size_t d = 64;
    const auto values = valuesOf(skewedCounts(d, 60000));
    for (const Protocol p : kAll) {
        const auto spec = makeSpec(p, 1.5, p == Protocol::RR ? 2 : d, 3);
        std::vector<std::uint32_t> vals = values;
        if (p == Protocol::RR) {
            for (auto& v : vals) {
                v &= 1U;
            }
        }
        const auto one = simulatePerUser(spec, vals, 77, 1);
        QVERIFY(one.hasValue());
        for (const unsigned threads : {2U, 3U, 0U}) {
            const auto many = simulatePerUser(spec, vals, 77, threads);
            QVERIFY(many.hasValue());
            QVERIFY2(many->frequencies == one->frequencies, protocolName(p));
        }
        const auto other = simulatePerUser(spec, vals, 78, 2);
        QVERIFY2(other->frequencies != one->frequencies, protocolName(p));
        const std::vector<std::int64_t> equal(spec.domain, 1000);
        QCOMPARE(simulateAggregate(spec, equal, 5)->frequencies,
                 simulateAggregate(spec, equal, 5)->frequencies);
    }
}

void TestLdp::cancellation() {
    const auto spec = makeSpec(Protocol::OLH, 1, 1024);
    const std::vector<std::uint32_t> values(400000, 7);
    std::stop_source stopped;
    stopped.request_stop();
    const auto r = simulatePerUser(spec, values, 1, 2, stopped.get_token());
    QVERIFY(r.hasValue());
    QVERIFY(r->cancelled);
    QVERIFY(r->frequencies.empty());
    const auto a =
        simulateAggregate(spec, std::vector<std::int64_t>(1024, 5), 1, stopped.get_token());
    QVERIFY(a.hasValue() && a->cancelled && a->frequencies.empty());
    // Requested from the progress callback after the first block (~0.4 s of work in total).
    std::stop_source source;
    std::atomic<int> calls{0};
    QElapsedTimer timer;
    timer.start();
    const auto mid = simulatePerUser(spec, values, 1, 2, source.get_token(), [&](double) {
        ++calls;
        source.request_stop();
    });
    QVERIFY(mid.hasValue());
    QVERIFY(mid->cancelled);
    QVERIFY(calls.load() >= 1 && calls.load() <= 4);
    qInfo("cancelled after %lld ms", static_cast<long long>(timer.elapsed()));
}

void TestLdp::progress() {
    const auto spec = makeSpec(Protocol::GRR, 1, 16);
    const std::vector<std::uint32_t> values(3000000, 3);
    std::vector<double> seen;
    std::mutex m;
    const auto r = simulatePerUser(spec, values, 1, 2, {}, [&](double f) {
        const std::lock_guard lock(m);
        seen.push_back(f);
    });
    QVERIFY(r.hasValue() && !r->cancelled);
    QVERIFY(!seen.empty() && seen.size() <= 1001);
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
    QCOMPARE(seen.back(), 1.0);
    QVERIFY(seen.front() > 0);
}

void TestLdp::inputErrors() {
    const auto spec = makeSpec(Protocol::GRR, 1, 4);
    DPX_VERIFY_ERROR(simulatePerUser(spec, std::vector<std::uint32_t>{}, 1), "at least one");
    DPX_VERIFY_ERROR(simulatePerUser(spec, std::vector<std::uint32_t>{0, 4, 1}, 1),
                     "outside the domain");
    DPX_VERIFY_ERROR(simulateAggregate(spec, std::vector<std::int64_t>{1, 2, 3}, 1),
                     "one entry per domain value");
    DPX_VERIFY_ERROR(simulateAggregate(spec, std::vector<std::int64_t>{1, -2, 3, 4}, 1),
                     "negative");
    DPX_VERIFY_ERROR(simulateAggregate(spec, std::vector<std::int64_t>{0, 0, 0, 0}, 1),
                     "at least 1");
    const std::int64_t big = std::int64_t{1} << 61;
    DPX_VERIFY_ERROR(simulateAggregate(spec, std::vector<std::int64_t>{big, big, big, 0}, 1),
                     "2^62");
}

void TestLdp::hadamardTransform() {
    QCOMPARE(hadamardSize(2), std::size_t{2});
    QCOMPARE(hadamardSize(5), std::size_t{8});
    QCOMPARE(hadamardSize(8), std::size_t{8});
    QCOMPARE(hadamardSize(kMaxDomain), kMaxDomain);
    std::vector<double> e{0, 0, 0, 1, 0, 0, 0, 0};  // column 3 of H: (−1)^popcount(i & 3)
    fastWalshHadamard(e);
    const std::vector<double> col3{1, -1, -1, 1, 1, -1, -1, 1};
    QCOMPARE(e, col3);
    SimulationRng rng(1, 1);
    std::vector<double> x(256), y;
    for (double& v : x) {
        v = rng.uniform() - 0.5;
    }
    y = x;
    fastWalshHadamard(y);
    fastWalshHadamard(y);  // H·H = 256·I
    for (std::size_t i = 0; i < x.size(); ++i) {
        DPX_VERIFY_NEAR(y[i], 256 * x[i], 1e-12);
    }
    std::vector<double> empty, single{3.0}, bad(6);
    fastWalshHadamard(empty);
    fastWalshHadamard(single);
    QCOMPARE(single[0], 3.0);
    bool threw = false;
    try {
        fastWalshHadamard(bad);
    } catch (const std::invalid_argument&) {
        threw = true;
    }
    QVERIFY(threw);
}

void TestLdp::olhHashAndSupport() {
    SimulationRng rng(3, 3);
    for (const std::uint64_t g : {std::uint64_t{2}, std::uint64_t{4}, std::uint64_t{7},
                                  std::uint64_t{1000003}, (std::uint64_t{1} << 40) + 15}) {
        for (int t = 0; t < 20; ++t) {
            const std::uint64_t a = 1 + rng.next() % (kOlhPrime - 1);
            const std::uint64_t b = rng.next() % kOlhPrime;
            const std::uint64_t x = rng.next() >> (t % 2 ? 0 : 40);
            QCOMPARE(olhHash(a, b, x, g), mulAddModP(a, x, b) % g);
            // Support over 300 values from additions only, against the hash of every j.
            const std::uint64_t y = olhHash(a, b, std::uint64_t(t), g);
            std::vector<std::uint64_t> counts(300, 5), expected(300, 5);
            olhAddSupport(a, b, g, y, counts);
            for (std::uint64_t j = 0; j < 300; ++j) {
                expected[j] += olhHash(a, b, j, g) == y ? 1 : 0;
            }
            QCOMPARE(counts, expected);
        }
    }
    // Near the wrap: a = P − 1 (r decreases by 1 mod P each step).
    std::vector<std::uint64_t> counts(50, 0);
    olhAddSupport(kOlhPrime - 1, 3, 5, olhHash(kOlhPrime - 1, 3, 10, 5), counts);
    for (std::uint64_t j = 0; j < 50; ++j) {
        QCOMPARE(counts[j], olhHash(kOlhPrime - 1, 3, j, 5) == olhHash(kOlhPrime - 1, 3, 10, 5)
                                ? std::uint64_t{1}
                                : std::uint64_t{0});
    }
}

void TestLdp::olhSupportBatchEqualsSingle() {
    // The vector kernel (AVX2, 32 reports at a time) and the 4-lane scalar kernel against the
    // 1-report kernel, including batches that are not multiples of 32 or 4 and the extreme
    // parameters a = 1, a = P − 1, b = 0, b = P − 1 (wraps on every step or almost never).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    qInfo("AVX2 kernel %s", __builtin_cpu_supports("avx2") ? "exercised" : "not available");
#endif
    SimulationRng rng(4, 4);
    for (const std::uint64_t g : {std::uint64_t{2}, std::uint64_t{4}, std::uint64_t{21},
                                  (std::uint64_t{1} << 40) + 15, std::uint64_t{1} << 61}) {
        for (const std::size_t reports : {std::size_t{1}, std::size_t{31}, std::size_t{32},
                                          std::size_t{33}, std::size_t{77}, std::size_t{200}}) {
            std::vector<std::uint64_t> a(reports), b(reports), y(reports);
            for (std::size_t i = 0; i < reports; ++i) {
                a[i] = 1 + rng.next() % (kOlhPrime - 1);
                b[i] = rng.next() % kOlhPrime;
                y[i] = rng.next() % std::min(g, std::uint64_t{16});
            }
            if (reports >= 32) {
                a[0] = 1;
                a[1] = kOlhPrime - 1;
                b[2] = 0;
                b[3] = kOlhPrime - 1;
                a[31] = kOlhPrime - 1;
                b[31] = kOlhPrime - 1;
            }
            for (std::size_t i = 0; i < reports; ++i) {
                y[i] = i % 3 == 0 ? olhHash(a[i], b[i], i % 300, g) : y[i];  // some hits for sure
            }
            std::vector<std::uint64_t> batch(300, 7), single(300, 7);
            olhAddSupportBatch(a, b, y, g, batch);
            for (std::size_t i = 0; i < reports; ++i) {
                olhAddSupport(a[i], b[i], g, y[i], single);
            }
            QCOMPARE(batch, single);
        }
    }
    bool threw = false;
    try {
        std::vector<std::uint64_t> a(3, 1), b(2, 1), y(3, 0), counts(4);
        olhAddSupportBatch(a, b, y, 4, counts);
    } catch (const std::invalid_argument&) {
        threw = true;
    }
    QVERIFY(threw);
}

QTEST_GUILESS_MAIN(TestLdp)
#include "tst_ldp_protocols.moc"
