#include "core/matrix_mechanism/kronecker_union.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "core/base/validation.h"

namespace dpx {

namespace {

constexpr std::size_t kMaxTerms = std::size_t{1} << 22;

Expected<GramOperator> oneDimensional(WorkloadKind kind, std::size_t n) {
    WorkloadSpec spec;
    spec.kind = kind;
    auto w = Workload::make(spec, {n});
    if (!w) {
        return w.error();
    }
    return GramOperator::of(*w);
}

// (A_dᵀA_d)⁻¹ of a p-Identity factor, dense n × n, one solve per column.
Expected<std::vector<double>> inverseGram(std::size_t n, std::size_t p,
                                          const std::vector<double>& theta, MeasurementNoise law) {
    auto s = PIdentityStrategy::make(n, p, theta, law);
    if (!s) {
        return s.error();
    }
    std::vector<double> inv(n * n), e(n, 0.0), col(n);
    for (std::size_t j = 0; j < n; ++j) {
        e[j] = 1;
        (*s)->solveGram(e, col);
        e[j] = 0;
        for (std::size_t i = 0; i < n; ++i) {
            inv[i * n + j] = col[i];
        }
    }
    return inv;
}

// C_k = trace(S·G_k) for every factor k of one dimension: structured factors through the Gram
// operator, ranges as box sums rᵀSr from a summed-area table of S.
std::vector<double> factorTraces(const KroneckerFactorSet& set, std::size_t n,
                                 const std::vector<double>& s) {
    std::vector<double> c;
    c.reserve(set.size());
    for (const GramOperator& g : set.structured) {
        c.push_back(g.traceWith(s));
    }
    if (!set.ranges.empty()) {
        const std::size_t m = n + 1;
        std::vector<double> sat(m * m, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                sat[(i + 1) * m + j + 1] =
                    s[i * n + j] + sat[i * m + j + 1] + sat[(i + 1) * m + j] - sat[i * m + j];
            }
        }
        for (const BinRange& r : set.ranges) {
            const auto lo = static_cast<std::size_t>(r.lo), hi = static_cast<std::size_t>(r.hi) + 1;
            c.push_back(sat[hi * m + hi] - sat[lo * m + hi] - sat[hi * m + lo] + sat[lo * m + lo]);
        }
    }
    return c;
}

double totalObjective(const KroneckerTerms& t, const std::vector<std::vector<double>>& c) {
    long double f = 0;
    for (std::size_t j = 0; j < t.weight2.size(); ++j) {
        long double term = t.weight2[j];
        for (std::size_t d = 0; d < t.dims.size(); ++d) {
            term *= c[d][t.factor[j][d]];
        }
        f += term;
    }
    return static_cast<double>(f);
}

// The surrogate Ĝ_d = Σ_k a_k G_k over the factors of dimension d.
Expected<GramOperator> surrogate(const KroneckerFactorSet& set, std::size_t n,
                                 const std::vector<double>& a) {
    std::vector<GramOperator> parts;
    for (std::size_t k = 0; k < set.structured.size(); ++k) {
        if (a[k] > 0) {
            auto g = set.structured[k].scaled(a[k]);
            if (!g) {
                return g.error();
            }
            parts.push_back(std::move(*g));
        }
    }
    if (!set.ranges.empty()) {
        std::vector<double> coef(a.begin() + static_cast<std::ptrdiff_t>(set.structured.size()),
                                 a.end());
        auto g = GramOperator::ranges(n, set.ranges, coef);
        if (!g) {
            return g.error();
        }
        parts.push_back(std::move(*g));
    }
    if (parts.empty()) {
        return Error{"strategy design: the workload puts no weight on a dimension"};
    }
    return GramOperator::unionOf(parts);
}

}  // namespace

Expected<KroneckerTerms> kroneckerTerms(const Workload& w) {
    if (w.spec().kind == WorkloadKind::Union) {
        // The parts' terms, weights times c_i², factor indices renumbered: every part's
        // structured factors first (in part order), then every part's ranges.
        std::vector<KroneckerTerms> parts;
        for (const Workload& p : w.parts()) {
            auto t = kroneckerTerms(p);
            if (!t) {
                return t.error();
            }
            parts.push_back(std::move(*t));
        }
        KroneckerTerms t;
        t.shape = w.shape();
        const std::size_t dims = t.shape.size();
        t.dims.resize(dims);
        std::vector<std::vector<std::size_t>> sOffset(parts.size(), std::vector<std::size_t>(dims)),
            rOffset = sOffset;
        for (std::size_t p = 0; p < parts.size(); ++p) {
            for (std::size_t d = 0; d < dims; ++d) {
                sOffset[p][d] = t.dims[d].structured.size();
                rOffset[p][d] = t.dims[d].ranges.size();
                auto& src = parts[p].dims[d];
                t.dims[d].structured.insert(t.dims[d].structured.end(), src.structured.begin(),
                                            src.structured.end());
                t.dims[d].ranges.insert(t.dims[d].ranges.end(), src.ranges.begin(),
                                        src.ranges.end());
            }
        }
        for (std::size_t p = 0; p < parts.size(); ++p) {
            const double c2 = w.spec().partWeights[p] * w.spec().partWeights[p];
            for (std::size_t j = 0; j < parts[p].weight2.size(); ++j) {
                std::vector<std::uint32_t> f(dims);
                for (std::size_t d = 0; d < dims; ++d) {
                    const std::size_t k = parts[p].factor[j][d];
                    const std::size_t structured = parts[p].dims[d].structured.size();
                    f[d] = static_cast<std::uint32_t>(k < structured
                                                          ? sOffset[p][d] + k
                                                          : t.dims[d].structured.size() +
                                                                rOffset[p][d] + (k - structured));
                }
                t.weight2.push_back(c2 * parts[p].weight2[j]);
                t.factor.push_back(std::move(f));
            }
        }
        if (t.weight2.size() > kMaxTerms) {
            return Error{"strategy design: " + w.describe() + " has more than " +
                         groupThousands(static_cast<long long>(kMaxTerms)) + " blocks"};
        }
        return t;
    }
    KroneckerTerms t;
    t.shape = w.shape();
    const std::size_t dims = t.shape.size();
    t.dims.resize(dims);
    const WorkloadSpec& spec = w.spec();
    if (isProductKind(spec.kind)) {
        for (std::size_t d = 0; d < dims; ++d) {
            auto f = dims == 1 ? Expected<Workload>(w) : productFactor(w, d);
            if (!f) {
                return f.error();
            }
            auto g = GramOperator::of(*f);
            if (!g) {
                return g.error();
            }
            t.dims[d].structured.push_back(std::move(*g));
        }
        t.weight2.push_back(1);
        t.factor.push_back(std::vector<std::uint32_t>(dims, 0));
        return t;
    }
    if (spec.kind == WorkloadKind::Marginals) {
        // Factor 0: identity (the attribute is kept), 1: total (summed over).
        for (std::size_t d = 0; d < dims; ++d) {
            auto id = oneDimensional(WorkloadKind::Identity, t.shape[d]);
            auto total = oneDimensional(WorkloadKind::Total, t.shape[d]);
            if (!id || !total) {
                return !id ? id.error() : total.error();
            }
            t.dims[d].structured.push_back(std::move(*id));
            t.dims[d].structured.push_back(std::move(*total));
        }
        for (std::size_t k : spec.ways) {
            // Every k-subset of the dimensions, lexicographic (as Workload numbers them).
            std::vector<std::size_t> pick(k);
            for (std::size_t i = 0; i < k; ++i) {
                pick[i] = i;
            }
            while (true) {
                if (t.weight2.size() >= kMaxTerms) {
                    return Error{"strategy design: " + w.describe() + " has more than " +
                                 groupThousands(static_cast<long long>(kMaxTerms)) + " marginals"};
                }
                std::vector<std::uint32_t> f(dims, 1);
                for (std::size_t i : pick) {
                    f[i] = 0;
                }
                t.weight2.push_back(1);
                t.factor.push_back(std::move(f));
                std::size_t i = k;
                while (i > 0 && pick[i - 1] == dims - k + i - 1) {
                    --i;
                }
                if (i == 0) {
                    break;
                }
                ++pick[i - 1];
                for (std::size_t j = i; j < k; ++j) {
                    pick[j] = pick[j - 1] + 1;
                }
            }
        }
        return t;
    }
    if ((spec.kind == WorkloadKind::RandomRange || spec.kind == WorkloadKind::Boxes) &&
        w.explicitQueries() && w.queryCount() <= kMaxTerms) {
        std::vector<std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint32_t>> index(dims);
        for (std::uint64_t i = 0; i < w.queryCount(); ++i) {
            const RangeQuery q = w.query(i);
            std::vector<std::uint32_t> f(dims);
            for (std::size_t d = 0; d < dims; ++d) {
                const auto key = std::make_pair(q.box[d].lo, q.box[d].hi);
                auto [it, fresh] =
                    index[d].emplace(key, static_cast<std::uint32_t>(t.dims[d].ranges.size()));
                if (fresh) {
                    t.dims[d].ranges.push_back(q.box[d]);
                }
                f[d] = it->second;
            }
            t.weight2.push_back(q.weight * q.weight);
            t.factor.push_back(std::move(f));
        }
        return t;
    }
    return Error{"strategy design: " + w.describe() +
                 " is not a union of Kronecker products that DP Explorer can form (it takes "
                 "prefixes, all ranges, rectangles, marginals, random ranges and boxes)"};
}

Expected<double> kroneckerUnionObjective(const KroneckerTerms& terms,
                                         const std::vector<std::size_t>& p,
                                         const std::vector<std::vector<double>>& theta,
                                         MeasurementNoise law) {
    const std::size_t dims = terms.dims.size();
    if (p.size() != dims || theta.size() != dims) {
        return Error{"strategy design: one p and one Θ per dimension are needed"};
    }
    std::vector<std::vector<double>> c(dims);
    for (std::size_t d = 0; d < dims; ++d) {
        auto inv = inverseGram(terms.shape[d], p[d], theta[d], law);
        if (!inv) {
            return inv.error();
        }
        c[d] = factorTraces(terms.dims[d], terms.shape[d], *inv);
    }
    return totalObjective(terms, c);
}

Expected<KroneckerUnionResult> optimizeKroneckerUnion(const KroneckerTerms& terms,
                                                      const std::vector<std::size_t>& p,
                                                      const StrategyOptimizeOptions& options,
                                                      std::size_t maxRounds, std::stop_token stop,
                                                      const ProgressCallback& progress) {
    const std::size_t dims = terms.dims.size();
    if (dims == 0 || p.size() != dims) {
        return Error{"strategy design: one p per dimension is needed"};
    }
    if (maxRounds < 1 || maxRounds > 1000) {
        return Error{"strategy design: the number of rounds must be in [1, 1000]"};
    }
    for (std::size_t d = 0; d < dims; ++d) {
        if (terms.shape[d] > kMaxUnionDimension) {
            return Error{"strategy design: dimension " + std::to_string(d + 1) + " has " +
                         groupThousands(static_cast<long long>(terms.shape[d])) +
                         " cells; the union-of-Kronecker design takes at most " +
                         groupThousands(static_cast<long long>(kMaxUnionDimension))};
        }
    }
    // Start as HDMM does: C_jd = trace(G_jd), the traces at A_d = I.
    std::vector<std::vector<double>> c(dims);
    for (std::size_t d = 0; d < dims; ++d) {
        for (const GramOperator& g : terms.dims[d].structured) {
            c[d].push_back(g.trace());
        }
        for (const BinRange& r : terms.dims[d].ranges) {
            c[d].push_back(static_cast<double>(r.hi - r.lo + 1));
        }
    }
    KroneckerUnionResult out;
    out.theta.resize(dims);
    double previous = std::numeric_limits<double>::infinity();
    for (std::size_t round = 0; round < maxRounds; ++round) {
        for (std::size_t d = 0; d < dims; ++d) {
            if (stop.stop_requested()) {
                return Error{"cancelled"};
            }
            // a_k = Σ_{j: factor k on d} weight2_j ∏_{d' ≠ d} C_jd'.
            std::vector<double> a(terms.dims[d].size(), 0.0);
            for (std::size_t j = 0; j < terms.weight2.size(); ++j) {
                double coef = terms.weight2[j];
                for (std::size_t e = 0; e < dims; ++e) {
                    if (e != d) {
                        coef *= c[e][terms.factor[j][e]];
                    }
                }
                a[terms.factor[j][d]] += coef;
            }
            // Normalised (the optimum does not depend on the scale; L-BFGS-B's projected-
            // gradient test does).
            double scale = 0;
            for (double v : a) {
                scale = std::max(scale, v);
            }
            if (!(scale > 0) || !std::isfinite(scale)) {
                return Error{"strategy design: the workload's weights vanish or overflow"};
            }
            for (double& v : a) {
                v /= scale;
            }
            auto g = surrogate(terms.dims[d], terms.shape[d], a);
            if (!g) {
                return g.error();
            }
            StrategyOptimizeOptions o = options;
            if (round > 0) {
                o.restarts = 1;
                o.start = out.theta[d];
            }
            const ProgressCallback sub = [&](double f) {
                if (progress) {
                    const double done = (static_cast<double>(round * dims + d) + f) /
                                        static_cast<double>(maxRounds * dims);
                    progress(std::min(done, 1.0));
                }
            };
            auto r = optimizePIdentity(*g, p[d], o, stop, sub);
            if (!r) {
                return r.error();
            }
            out.iterations += r->iterations;
            out.theta[d] = r->strategy->theta();
            auto inv = inverseGram(terms.shape[d], p[d], out.theta[d], options.measurement);
            if (!inv) {
                return inv.error();
            }
            c[d] = factorTraces(terms.dims[d], terms.shape[d], *inv);
        }
        out.rounds = round + 1;
        const double f = totalObjective(terms, c);
        out.objective = f;
        if (!std::isfinite(f)) {
            return Error{"strategy design: the objective is not finite"};
        }
        if (previous - f <= options.minimizer.ftol * std::max(f, 1.0)) {
            break;
        }
        previous = f;
    }
    if (progress) {
        progress(1.0);
    }
    return out;
}

}  // namespace dpx
