// Audits of the DPBench algorithms of helper "dd1" (GreedyH, DAWA, DAWA2D, AHP, MWEM; issue #20):
// one algorithm run as an AuditMechanism on a small domain, releasing one scalar post-processing
// of x̂ (the estimate of one cell, or a range sum), which is ε-DP whenever the algorithm is.
// `runEpsilon` is the ε the algorithm is run at: equal to the audit's claim for the real check,
// a multiple of it for the negative control (the noise scaled down by that factor).
#pragma once

#include <QTest>

#include <map>
#include <memory>
#include <string>

#include "core/algorithms/algorithm.h"
#include "core/audit/dp_audit.h"
#include "core/workload/workload.h"
#include "tests/core/algorithms/dd1_test_support.h"

namespace dd1test {

// The released value: Σ of x̂ over cells [first, last] (C order).
inline dpx::AuditMechanism algorithmMechanism(const dpx::Algorithm& algorithm,
                                              dpx::DomainShape shape,
                                              const std::string& workloadText, double runEpsilon,
                                              std::size_t first, std::size_t last,
                                              std::map<std::string, double> parameters = {}) {
    auto w = std::make_shared<const dpx::Workload>(workload(workloadText, shape));
    return [&algorithm, shape, w, runEpsilon, first, last, parameters](
               const std::vector<std::int64_t>& in,
               dpx::AuditRandomness& rng) -> dpx::Expected<double> {
        const std::vector<double> x(in.begin(), in.end());
        dpx::AlgorithmContext c;
        c.shape = shape;
        c.x = x;
        c.workload = w.get();
        c.epsilon = runEpsilon;
        c.parameters = parameters;
        c.rng = &rng.simulation();
        auto r = algorithm.run(c);
        if (!r) {
            return r.error();
        }
        double sum = 0;
        for (std::size_t i = first; i <= last; ++i) {
            sum += r->estimate[i];
        }
        return sum;
    };
}

inline dpx::AuditParams auditParams(double epsilon, std::uint64_t samples, std::uint64_t seed) {
    dpx::AuditParams p;
    p.epsilon = epsilon;
    p.delta = 0;
    p.samplesPerInput = samples;
    p.alpha = 1e-7;
    p.seed = seed;
    return p;
}

// The two checks of every dd1 audit: the mechanism run at the claimed ε passes; run at
// `controlEpsilon` (less noise) while claiming ε it is flagged.
inline void verifyAuditPasses(const dpx::AuditMechanism& m, const std::vector<std::int64_t>& d,
                              const std::vector<std::int64_t>& dp, double epsilon,
                              std::uint64_t samples) {
    auto r = dpx::runDpAudit(m, d, dp, auditParams(epsilon, samples, 71));
    QVERIFY2(r.hasValue(), r.hasValue() ? "" : r.error().message.c_str());
    QVERIFY2(!r->violationFound, r->tightest().event.describe().c_str());
}

inline void verifyAuditFlags(const dpx::AuditMechanism& m, const std::vector<std::int64_t>& d,
                             const std::vector<std::int64_t>& dp, double epsilon,
                             std::uint64_t samples) {
    auto r = dpx::runDpAudit(m, d, dp, auditParams(epsilon, samples, 72));
    QVERIFY2(r.hasValue(), r.hasValue() ? "" : r.error().message.c_str());
    QVERIFY2(r->violationFound,
             qPrintable(QStringLiteral("tightest bound %1").arg(r->tightest().epsilonLowerBound)));
}

}  // namespace dd1test
