// Workloads (core/workload/workload.h): every kind's queries against an independent nested-loop
// enumeration in the documented order, answers against brute-force box sums, WᵀW against the
// dense W built from the queries, the text form's round trips and error messages, and the
// RandomRange distribution (DPBench's: width uniform, then the start uniform).
#include <QTest>

#include <cmath>
#include <map>

#include "core/base/simulation_rng.h"
#include "core/workload/workload.h"
#include "tests/testing/test_support.h"

using namespace dpx;

namespace {

std::vector<std::uint64_t> unflat(std::size_t c, const DomainShape& s) {
    std::vector<std::uint64_t> idx(s.size());
    for (std::size_t d = s.size(); d-- > 0;) {
        idx[d] = c % s[d];
        c /= s[d];
    }
    return idx;
}

bool inBox(const RangeQuery& q, const std::vector<std::uint64_t>& idx) {
    for (std::size_t d = 0; d < idx.size(); ++d) {
        if (idx[d] < q.box[d].lo || idx[d] > q.box[d].hi) {
            return false;
        }
    }
    return true;
}

// Cartesian product of per-dimension lists of ranges, C order.
std::vector<RangeQuery> product(const std::vector<std::vector<BinRange>>& perDim) {
    std::vector<RangeQuery> out{RangeQuery{}};
    for (const auto& list : perDim) {
        std::vector<RangeQuery> next;
        for (const RangeQuery& q : out) {
            for (const BinRange& r : list) {
                RangeQuery n = q;
                n.box.push_back(r);
                next.push_back(n);
            }
        }
        out = next;
    }
    return out;
}

// The reference list of queries, written independently of workload.cpp.
std::vector<RangeQuery> reference(const WorkloadSpec& spec, const DomainShape& s) {
    if (spec.kind == WorkloadKind::Union) {
        // The parts' queries in turn, each weight times the part's weight.
        std::vector<RangeQuery> out;
        for (std::size_t i = 0; i < spec.parts.size(); ++i) {
            for (RangeQuery q : reference(spec.parts[i], s)) {
                q.weight *= spec.partWeights[i];
                out.push_back(std::move(q));
            }
        }
        return out;
    }
    std::vector<std::vector<BinRange>> perDim(s.size());
    for (std::size_t d = 0; d < s.size(); ++d) {
        const std::uint64_t n = s[d];
        for (std::uint64_t a = 0; a < n; ++a) {
            switch (spec.kind) {
                case WorkloadKind::Identity:
                    perDim[d].push_back({a, a});
                    break;
                case WorkloadKind::Prefix:
                    perDim[d].push_back({0, a});
                    break;
                case WorkloadKind::AllRange:
                    for (std::uint64_t b = a; b < n; ++b) {
                        perDim[d].push_back({a, b});
                    }
                    break;
                case WorkloadKind::Rectangles:
                    if (a + spec.extent[d] <= n) {
                        perDim[d].push_back({a, a + spec.extent[d] - 1});
                    }
                    break;
                default:
                    break;
            }
        }
        if (spec.kind == WorkloadKind::Total) {
            perDim[d].push_back({0, n - 1});
        }
    }
    if (spec.kind == WorkloadKind::Marginals) {
        std::vector<RangeQuery> out;
        const std::size_t dims = s.size();
        for (std::size_t k : spec.ways) {
            // Subsets in lexicographic order = masks sorted by their member lists.
            std::vector<std::vector<std::size_t>> subsets;
            for (std::size_t mask = 0; mask < (std::size_t{1} << dims); ++mask) {
                std::vector<std::size_t> m;
                for (std::size_t d = 0; d < dims; ++d) {
                    if (mask & (std::size_t{1} << d)) {
                        m.push_back(d);
                    }
                }
                if (m.size() == k) {
                    subsets.push_back(m);
                }
            }
            std::sort(subsets.begin(), subsets.end());
            for (const auto& m : subsets) {
                std::vector<std::vector<BinRange>> pd(dims);
                for (std::size_t d = 0; d < dims; ++d) {
                    if (std::find(m.begin(), m.end(), d) == m.end()) {
                        pd[d].push_back({0, s[d] - 1});
                    } else {
                        for (std::uint64_t v = 0; v < s[d]; ++v) {
                            pd[d].push_back({v, v});
                        }
                    }
                }
                for (const auto& q : product(pd)) {
                    out.push_back(q);
                }
            }
        }
        return out;
    }
    if (spec.kind == WorkloadKind::Boxes) {
        return spec.boxes;
    }
    return product(perDim);
}

std::vector<WorkloadSpec> specsFor(const DomainShape& s) {
    std::vector<WorkloadSpec> specs;
    for (const char* t : {"identity", "total", "prefix", "allrange", "range:40:seed=3",
                          "marginals:1", "marginals:2,1"}) {
        auto p = WorkloadSpec::parse(t);
        if (p && !(p->kind == WorkloadKind::Marginals && p->ways[0] > s.size())) {
            specs.push_back(*p);
        }
    }
    WorkloadSpec rect;
    rect.kind = WorkloadKind::Rectangles;
    for (std::size_t n : s) {
        rect.extent.push_back(std::min<std::size_t>(2, n));
    }
    specs.push_back(rect);
    WorkloadSpec boxes;
    boxes.kind = WorkloadKind::Boxes;
    RangeQuery q1, q2;
    for (std::size_t n : s) {
        q1.box.push_back({0, n - 1});
        q2.box.push_back({n / 2, n - 1});
    }
    q2.weight = -2.5;
    boxes.boxes = {q1, q2};
    specs.push_back(boxes);
    // A weighted union (issue #23): prefixes, 0.5 × the 1-way marginals, 2 × the listed boxes.
    WorkloadSpec u;
    u.kind = WorkloadKind::Union;
    u.parts = {*WorkloadSpec::parse("prefix"), *WorkloadSpec::parse("marginals:1"), boxes};
    u.partWeights = {1, 0.5, 2};
    specs.push_back(u);
    return specs;
}

const std::vector<DomainShape> kShapes{{7}, {3, 4}, {2, 3, 2}};

}  // namespace

class TestWorkload : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void queriesMatchTheReferenceOrder();
    void answersMatchBruteForce();
    void gramMatchesDenseW();
    void marginalQueriesInFourDimensions();
    void randomRangeDistribution();
    void textRoundTrips();
    void badTextAndShapes();
    void largeWorkloadsAreImplicit();
};

void TestWorkload::queriesMatchTheReferenceOrder() {
    for (const DomainShape& s : kShapes) {
        for (const WorkloadSpec& spec : specsFor(s)) {
            auto w = Workload::make(spec, s);
            DPX_VERIFY_OK(w);
            if (spec.kind == WorkloadKind::RandomRange) {
                QCOMPARE(w->queryCount(), std::uint64_t{40});
                continue;
            }
            const auto ref = reference(spec, s);
            QCOMPARE(w->queryCount(), std::uint64_t(ref.size()));
            for (std::uint64_t i = 0; i < ref.size(); ++i) {
                QVERIFY2(w->query(i) == ref[i],
                         (spec.text() + " query " + std::to_string(i)).c_str());
            }
        }
    }
}

void TestWorkload::answersMatchBruteForce() {
    SimulationRng rng(5, 1);
    for (const DomainShape& s : kShapes) {
        const std::size_t cells = shapeCells(s);
        std::vector<double> x(cells);
        for (double& v : x) {
            v = std::floor(rng.uniform() * 20) - 3.5;
        }
        for (const WorkloadSpec& spec : specsFor(s)) {
            auto w = Workload::make(spec, s);
            DPX_VERIFY_OK(w);
            auto a = w->answers(x);
            DPX_VERIFY_OK(a);
            for (std::uint64_t i = 0; i < w->queryCount(); ++i) {
                const RangeQuery q = w->query(i);
                double sum = 0;
                for (std::size_t c = 0; c < cells; ++c) {
                    sum += inBox(q, unflat(c, s)) ? x[c] : 0.0;
                }
                DPX_VERIFY_NEAR((*a)[i], q.weight * sum, 1e-9);
            }
        }
    }
}

void TestWorkload::gramMatchesDenseW() {
    for (const DomainShape& s : kShapes) {
        const std::size_t cells = shapeCells(s);
        for (const WorkloadSpec& spec : specsFor(s)) {
            auto w = Workload::make(spec, s);
            DPX_VERIFY_OK(w);
            auto g = w->gram();
            DPX_VERIFY_OK(g);
            std::vector<double> dense(cells * cells, 0.0);
            for (std::uint64_t i = 0; i < w->queryCount(); ++i) {
                const RangeQuery q = w->query(i);
                for (std::size_t r = 0; r < cells; ++r) {
                    for (std::size_t c = 0; c < cells; ++c) {
                        if (inBox(q, unflat(r, s)) && inBox(q, unflat(c, s))) {
                            dense[r * cells + c] += q.weight * q.weight;
                        }
                    }
                }
            }
            for (std::size_t k = 0; k < dense.size(); ++k) {
                QVERIFY2(std::abs((*g)[k] - dense[k]) < 1e-9,
                         (spec.text() + " entry " + std::to_string(k)).c_str());
            }
        }
    }
}

void TestWorkload::marginalQueriesInFourDimensions() {
    const DomainShape s{2, 3, 1, 2};
    auto spec = WorkloadSpec::parse("marginals:3,1,2");
    DPX_VERIFY_OK(spec);
    auto w = Workload::make(*spec, s);
    DPX_VERIFY_OK(w);
    const auto ref = reference(*spec, s);
    QCOMPARE(w->queryCount(), std::uint64_t(ref.size()));
    for (std::uint64_t i = 0; i < ref.size(); ++i) {
        QVERIFY(w->query(i) == ref[i]);
    }
}

void TestWorkload::randomRangeDistribution() {
    // Per dimension the width is uniform on 1..n and, given the width w, the start uniform on
    // 0..n − w: Pr[start = a, width = w] = 1/(n(n − w + 1)). χ² over the n(n+1)/2 outcomes of a
    // 1-D domain of 6 with 200 000 queries; and the widths of two dimensions are independent.
    const std::size_t n = 6;
    WorkloadSpec spec;
    spec.kind = WorkloadKind::RandomRange;
    spec.count = 200000;
    auto w = Workload::make(spec, {n, 3});
    DPX_VERIFY_OK(w);
    std::map<std::pair<std::uint64_t, std::uint64_t>, double> seen;
    std::map<std::pair<std::uint64_t, std::uint64_t>, double> widths;
    for (std::uint64_t i = 0; i < w->queryCount(); ++i) {
        const RangeQuery q = w->query(i);
        seen[{q.box[0].lo, q.box[0].hi}] += 1;
        widths[{q.box[0].hi - q.box[0].lo, q.box[1].hi - q.box[1].lo}] += 1;
    }
    double chi2 = 0;
    std::size_t cellsSeen = 0;
    for (std::uint64_t a = 0; a < n; ++a) {
        for (std::uint64_t b = a; b < n; ++b) {
            const double wdt = static_cast<double>(b - a + 1);
            const double expected = 200000.0 / (static_cast<double>(n) * (n - wdt + 1));
            const double o = seen[{a, b}];
            chi2 += (o - expected) * (o - expected) / expected;
            ++cellsSeen;
        }
    }
    QCOMPARE(cellsSeen, std::size_t{21});
    QVERIFY2(chi2 < 50, std::to_string(chi2).c_str());  // 20 d.f.: P[χ² > 50] ≈ 2e-4
    double chi2w = 0;
    for (const auto& [k, o] : widths) {
        const double expected = 200000.0 / 18.0;
        chi2w += (o - expected) * (o - expected) / expected;
    }
    QCOMPARE(widths.size(), std::size_t{18});
    QVERIFY2(chi2w < 45, std::to_string(chi2w).c_str());  // 17 d.f.
    // Deterministic in the seed; another seed draws other ranges.
    auto again = Workload::make(spec, {n, 3});
    spec.seed = 1;
    auto other = Workload::make(spec, {n, 3});
    QVERIFY(again->query(17) == w->query(17));
    bool differs = false;
    for (std::uint64_t i = 0; i < 20; ++i) {
        differs = differs || !(other->query(i) == w->query(i));
    }
    QVERIFY(differs);
}

void TestWorkload::textRoundTrips() {
    for (const char* t :
         {"identity", "total", "prefix", "allrange", "range:2000", "range:7:seed=12",
          "marginals:1,2", "rectangles:4x4", "boxes:0..3;5..9", "boxes:0..3x2..2;1..1x0..4*0.1",
          "prefix + 0.5*marginals:1", "2*allrange", "boxes:0..3*2 + 3*boxes:1..1*0.5"}) {
        auto p = WorkloadSpec::parse(t);
        DPX_VERIFY_OK(p);
        QCOMPARE(p->text(), std::string(t));
        auto back = WorkloadSpec::parse(p->text());
        DPX_VERIFY_OK(back);
        QVERIFY(*back == *p);
    }
    auto p = WorkloadSpec::parse("  Range:10 : seed=4 ");
    DPX_VERIFY_OK(p);
    QCOMPARE(p->count, std::uint64_t{10});
    QCOMPARE(p->seed, std::uint64_t{4});
    auto single = WorkloadSpec::parse("boxes:3");
    DPX_VERIFY_OK(single);
    QCOMPARE(single->boxes[0].box[0].lo, std::uint64_t{3});
    QCOMPARE(single->boxes[0].box[0].hi, std::uint64_t{3});
}

void TestWorkload::badTextAndShapes() {
    DPX_VERIFY_ERROR(WorkloadSpec::parse("ranges"), "unknown workload");
    DPX_VERIFY_ERROR(WorkloadSpec::parse("range"), "needs an argument");
    DPX_VERIFY_ERROR(WorkloadSpec::parse("range:abc"), "abc");
    DPX_VERIFY_ERROR(WorkloadSpec::parse("range:0"), "1..10,000,000");
    DPX_VERIFY_ERROR(WorkloadSpec::parse("range:5:sed=3"), "seed=");
    DPX_VERIFY_ERROR(WorkloadSpec::parse("identity:3"), "no argument");
    DPX_VERIFY_ERROR(WorkloadSpec::parse("marginals:1,1"), "twice");
    DPX_VERIFY_ERROR(WorkloadSpec::parse("boxes:5..2"), "ends before");
    DPX_VERIFY_ERROR(WorkloadSpec::parse("boxes:1..2*x"), "weight");
    DPX_VERIFY_ERROR(WorkloadSpec::parse("prefix + 0*total"), "> 0");
    DPX_VERIFY_ERROR(WorkloadSpec::parse("prefix + -1*total"), "> 0");
    DPX_VERIFY_ERROR(WorkloadSpec::parse("prefix + rangez:3"), "unknown workload");
    DPX_VERIFY_ERROR(WorkloadSpec::parse("prefix + "), "unknown workload");
    DPX_VERIFY_ERROR(Workload::make(*WorkloadSpec::parse("prefix + marginals:2"), {8}), "2-way");
    DPX_VERIFY_ERROR(validateShape({}), "dimensions");
    DPX_VERIFY_ERROR(validateShape({4, 0}), "dimension 2");
    DPX_VERIFY_ERROR(validateShape({1 << 14, 1 << 14}), "dimension 2");
    DPX_VERIFY_ERROR(Workload::make(*WorkloadSpec::parse("boxes:0..9"), {8}), "outside 0..7");
    DPX_VERIFY_ERROR(Workload::make(*WorkloadSpec::parse("boxes:0..3"), {8, 2}), "dimensions");
    DPX_VERIFY_ERROR(Workload::make(*WorkloadSpec::parse("marginals:3"), {8, 2}), "3-way");
    DPX_VERIFY_ERROR(Workload::make(*WorkloadSpec::parse("rectangles:4"), {8, 2}),
                     "one extent per dimension");
    DPX_VERIFY_ERROR(Workload::make(*WorkloadSpec::parse("rectangles:4x3"), {8, 2}), "dimension 2");
    auto w = Workload::make(*WorkloadSpec::parse("prefix"), {4});
    DPX_VERIFY_ERROR(w->answers(std::vector<double>(5)), "5 cells");
}

void TestWorkload::largeWorkloadsAreImplicit() {
    auto w = Workload::make(*WorkloadSpec::parse("allrange"), {256, 256});
    DPX_VERIFY_OK(w);
    QCOMPARE(w->queryCount(), std::uint64_t{32896} * 32896);
    QVERIFY(!w->explicitQueries());
    DPX_VERIFY_ERROR(w->answers(std::vector<double>(65536)), "too many");
    DPX_VERIFY_ERROR(w->gram(), "8,192");
    // The last query is the last cell on both dimensions.
    const RangeQuery last = w->query(w->queryCount() - 1);
    QCOMPARE(last.box[0].lo, std::uint64_t{255});
    QCOMPARE(last.box[1].hi, std::uint64_t{255});
    QVERIFY(w->describe().find("1,082,146,816") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestWorkload)
#include "tst_workload.moc"
