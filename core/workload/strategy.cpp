// Data-independent strategies (issue #20): identity, trees of boxes (b-ary hierarchies, HB in
// k-D, the quadtree), the Haar wavelet and Kronecker products, each with least squares by its
// structure; the exact expected error of least squares on a workload; Laplace measurement; NNLS.
#include "core/workload/strategy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/base/noise_distribution.h"
#include "core/base/simulation_rng.h"
#include "core/base/validation.h"

namespace dpx {

namespace {

std::vector<std::size_t> stridesOf(const DomainShape& shape) {
    std::vector<std::size_t> stride(shape.size(), 1);
    for (std::size_t d = shape.size() - 1; d-- > 0;) {
        stride[d] = stride[d + 1] * shape[d + 1];
    }
    return stride;
}

double dot(std::span<const double> a, std::span<const double> b) {
    long double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        s += static_cast<long double>(a[i]) * b[i];
    }
    return static_cast<double>(s);
}

// (AᵀA)⁻¹·b by conjugate gradients on the implicit AᵀA (the fallback when a structure has no
// direct solve): relative residual 1e-13 or 20·cells iterations.
void conjugateGradientGram(const LinearStrategy& s, std::span<const double> b,
                           std::span<double> out) {
    const std::size_t n = b.size();
    std::vector<double> r(b.begin(), b.end()), p(r), ap(n), tmp(s.rows());
    std::fill(out.begin(), out.end(), 0.0);
    double rr = dot(r, r);
    const double stop = 1e-26 * std::max(rr, 1e-300);
    for (std::size_t it = 0; it < 20 * n + 20 && rr > stop; ++it) {
        s.measure(p, tmp);
        s.transposeMeasure(tmp, ap);
        const double alpha = rr / dot(p, ap);
        for (std::size_t i = 0; i < n; ++i) {
            out[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        const double rrNew = dot(r, r);
        const double beta = rrNew / rr;
        rr = rrNew;
        for (std::size_t i = 0; i < n; ++i) {
            p[i] = r[i] + beta * p[i];
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Identity

class IdentityStrategy final : public LinearStrategy {
public:
    explicit IdentityStrategy(DomainShape shape) : shape_(std::move(shape)) {}
    const DomainShape& shape() const override { return shape_; }
    std::size_t rows() const override { return shapeCells(shape_); }
    double sensitivityL1() const override { return 1; }
    double sensitivityL2() const override { return 1; }
    void measure(std::span<const double> x, std::span<double> y) const override {
        std::copy(x.begin(), x.end(), y.begin());
    }
    void transposeMeasure(std::span<const double> y, std::span<double> x) const override {
        std::copy(y.begin(), y.end(), x.begin());
    }
    void leastSquares(std::span<const double> y, std::span<double> xhat) const override {
        std::copy(y.begin(), y.end(), xhat.begin());
    }
    void solveGram(std::span<const double> b, std::span<double> out) const override {
        std::copy(b.begin(), b.end(), out.begin());
    }
    std::string describe() const override { return "identity (every cell once)"; }

private:
    DomainShape shape_;
};

// ---------------------------------------------------------------------------------------------
// Trees of boxes: every node is a box, its children partition it (split every dimension of
// length L into min(b_d, L) near-equal parts, the first ones ceil-rounded, as in Hay et al. 2010
// and ektelo's grid split), leaves are single cells. Node v at depth t is measured with weight
// w_t (a row w_t·Σ_{box} x; w_t = 0: not measured).

class TreeStrategy final : public LinearStrategy {
public:
    TreeStrategy(DomainShape shape, std::vector<std::size_t> branching,
                 std::vector<double> depthWeights, std::string description)
        : shape_(std::move(shape)),
          weights_(std::move(depthWeights)),
          description_(std::move(description)) {
        build(branching);
    }

    static std::size_t depthCount(const DomainShape& shape,
                                  const std::vector<std::size_t>& branching) {
        // Depth of the tree: per dimension the number of splits until every part is one cell;
        // the deepest path follows the largest part (the first, ceil-rounded).
        std::size_t depth = 0;
        for (std::size_t d = 0; d < shape.size(); ++d) {
            std::size_t len = shape[d], t = 0;
            while (len > 1) {
                const std::size_t parts = std::min(branching[d], len);
                len = (len + parts - 1) / parts;
                ++t;
            }
            depth = std::max(depth, t);
        }
        return depth + 1;  // levels, root included
    }

    const DomainShape& shape() const override { return shape_; }
    std::size_t rows() const override { return rowOfNode_.size() - unmeasured_; }
    double sensitivityL1() const override { return l1_; }
    double sensitivityL2() const override { return l2_; }

    void measure(std::span<const double> x, std::span<double> y) const override {
        std::vector<double>& s = scratch(0, nodes());
        sums(x, s);
        for (std::size_t v = 0; v < nodes(); ++v) {
            const double w = weight(v);
            if (w != 0) {
                y[rowOfNode_[v]] = w * s[v];
            }
        }
    }

    void transposeMeasure(std::span<const double> y, std::span<double> x) const override {
        std::vector<double>& acc = scratch(0, nodes());
        for (std::size_t v = 0; v < nodes(); ++v) {  // BFS order: parents first
            const double w = weight(v);
            acc[v] = (v == 0 ? 0.0 : acc[parent_[v]]) + (w != 0 ? w * y[rowOfNode_[v]] : 0.0);
        }
        for (std::size_t v = 0; v < nodes(); ++v) {
            if (childCount_[v] == 0) {
                x[cell_[v]] = acc[v];
            }
        }
    }

    // Least squares on a tree (generalising Hay, Rastogi, Miklau & Suciu, PVLDB 2010, §4 to
    // unequal fan-out and weights): bottom up, z_v is the best linear unbiased estimate of node
    // v's sum from its subtree's rows and V_v its variance (in units of the row noise):
    // combine the children's Σz (variance ΣV) with v's own row y_v/w_v (variance 1/w_v²) by
    // inverse-variance weighting. Top down, the final ŝ_v is split among the children as
    // ŝ_c = z_c + (V_c/ΣV)(ŝ_v − Σz), which is the conditional mean of the children given their
    // sum. Exact when every leaf is measured; otherwise conjugate gradients.
    void leastSquares(std::span<const double> y, std::span<double> xhat) const override {
        if (!leavesMeasured_) {
            std::vector<double> aty(xhat.size());
            transposeMeasure(y, aty);
            conjugateGradientGram(*this, aty, xhat);
            return;
        }
        // The variances V_v do not depend on y: precomputed at build (var_, childVar_ = ΣV of
        // the children). Per call: z bottom up (with the children's Σz kept), ŝ top down.
        const std::size_t n = nodes();
        std::vector<double>& z = scratch(0, n);
        std::vector<double>& zChildren = scratch(1, n);
        for (std::size_t v = n; v-- > 0;) {
            const double w = weight(v);
            double zc = 0;
            for (std::size_t c = firstChild_[v]; c < firstChild_[v] + childCount_[v]; ++c) {
                zc += z[c];
            }
            zChildren[v] = zc;
            if (w == 0) {
                z[v] = zc;
            } else if (childCount_[v] == 0) {
                z[v] = y[rowOfNode_[v]] / w;
            } else {
                // Inverse-variance combination: (zc/Vc + own·w²)/(1/Vc + w²) = V_v·(…).
                z[v] = var_[v] * (zc / childVar_[v] + y[rowOfNode_[v]] * w);
            }
        }
        std::vector<double>& s = scratch(2, n);
        s[0] = z[0];
        for (std::size_t v = 0; v < n; ++v) {
            if (childCount_[v] == 0) {
                xhat[cell_[v]] = s[v];
                continue;
            }
            const double share = (s[v] - zChildren[v]) / childVar_[v];
            for (std::size_t c = firstChild_[v]; c < firstChild_[v] + childCount_[v]; ++c) {
                s[c] = z[c] + var_[c] * share;
            }
        }
    }

    // (AᵀA)⁻¹b = least squares of the rows y with Aᵀy = b: b_cell / w_leaf on every leaf's row,
    // 0 elsewhere (every leaf measured); conjugate gradients otherwise.
    void solveGram(std::span<const double> b, std::span<double> out) const override {
        if (!leavesMeasured_) {
            conjugateGradientGram(*this, b, out);
            return;
        }
        std::vector<double>& y = scratch(3, rows());
        std::fill(y.begin(), y.end(), 0.0);
        for (std::size_t v = 0; v < nodes(); ++v) {
            if (childCount_[v] == 0) {
                y[rowOfNode_[v]] = b[cell_[v]] / weight(v);
            }
        }
        leastSquares(y, out);
    }

    std::string describe() const override { return description_; }

private:
    std::size_t nodes() const { return parent_.size(); }
    // Per-thread work arrays reused across calls (the solves of an exact expected error call
    // leastSquares thousands of times; fresh 0.5 MB arrays each time cost page faults). Slot 3
    // holds solveGram's right-hand side while leastSquares uses slots 0–2.
    static std::vector<double>& scratch(int slot, std::size_t size) {
        thread_local std::vector<double> buffers[4];
        buffers[slot].resize(size);
        return buffers[slot];
    }
    double weight(std::size_t v) const { return weights_[depth_[v]]; }

    void sums(std::span<const double> x, std::vector<double>& s) const {
        for (std::size_t v = nodes(); v-- > 0;) {
            if (childCount_[v] == 0) {
                s[v] = x[cell_[v]];
            } else {
                double t = 0;
                for (std::size_t c = firstChild_[v]; c < firstChild_[v] + childCount_[v]; ++c) {
                    t += s[c];
                }
                s[v] = t;
            }
        }
    }

    void build(const std::vector<std::size_t>& branching) {
        const std::size_t dims = shape_.size();
        const auto stride = stridesOf(shape_);
        // Every internal node has at least 2 children, so there are fewer than 2·cells nodes:
        // reserving that once avoids the reallocation copies (and page faults) of growth.
        const std::size_t maxNodes = 2 * shapeCells(shape_);
        for (auto* v : {&parent_, &depth_, &firstChild_, &childCount_, &cell_}) {
            v->reserve(maxNodes);
        }
        std::vector<std::size_t> lo, hi;  // per node, dims each
        lo.reserve(maxNodes * dims);
        hi.reserve(maxNodes * dims);
        lo.assign(dims, 0);
        for (std::size_t d = 0; d < dims; ++d) {
            hi.push_back(shape_[d] - 1);
        }
        parent_.push_back(0);
        depth_.push_back(0);
        std::vector<std::vector<std::pair<std::size_t, std::size_t>>> parts(dims);
        std::vector<std::size_t> pick(dims);
        for (std::size_t v = 0; v < parent_.size(); ++v) {  // BFS: the vector grows
            std::size_t count = 1;
            for (std::size_t d = 0; d < dims; ++d) {
                const std::size_t a = lo[v * dims + d], len = hi[v * dims + d] - a + 1;
                const std::size_t p = std::min(branching[d], len);
                parts[d].clear();
                std::size_t start = a;
                for (std::size_t i = 0; i < p; ++i) {
                    const std::size_t end = a + (len * (i + 1) + p - 1) / p;  // ceil boundaries
                    parts[d].push_back({start, end - 1});
                    start = end;
                }
                count *= p;
            }
            if (count == 1) {  // a single cell: a leaf
                firstChild_.push_back(0);
                childCount_.push_back(0);
                std::size_t c = 0;
                for (std::size_t d = 0; d < dims; ++d) {
                    c += lo[v * dims + d] * stride[d];
                }
                cell_.push_back(c);
                continue;
            }
            firstChild_.push_back(parent_.size());
            childCount_.push_back(count);
            cell_.push_back(0);
            for (std::size_t k = 0; k < count; ++k) {
                std::size_t rem = k;
                for (std::size_t d = dims; d-- > 0;) {
                    pick[d] = rem % parts[d].size();
                    rem /= parts[d].size();
                }
                for (std::size_t d = 0; d < dims; ++d) {
                    lo.push_back(parts[d][pick[d]].first);
                    hi.push_back(parts[d][pick[d]].second);
                }
                parent_.push_back(v);
                depth_.push_back(depth_[v] + 1);
            }
        }
        // Rows: measured nodes in BFS order.
        rowOfNode_.assign(nodes(), 0);
        std::size_t row = 0;
        leavesMeasured_ = true;
        for (std::size_t v = 0; v < nodes(); ++v) {
            if (weight(v) != 0) {
                rowOfNode_[v] = row++;
            } else {
                ++unmeasured_;
                leavesMeasured_ = leavesMeasured_ && childCount_[v] != 0;
            }
        }
        // Variances of the subtree estimates (see leastSquares), data-free.
        if (leavesMeasured_) {
            var_.assign(nodes(), 0.0);
            childVar_.assign(nodes(), 0.0);
            for (std::size_t v = nodes(); v-- > 0;) {
                double vc = 0;
                for (std::size_t c = firstChild_[v]; c < firstChild_[v] + childCount_[v]; ++c) {
                    vc += var_[c];
                }
                childVar_[v] = vc;
                const double w = weight(v);
                var_[v] = w == 0 ? vc : childCount_[v] == 0 ? 1 / (w * w) : 1 / (1 / vc + w * w);
            }
        }
        // Column norms: along each leaf's path to the root.
        std::vector<double> pathL1(nodes()), pathL2(nodes());
        for (std::size_t v = 0; v < nodes(); ++v) {
            const double w = std::abs(weight(v));
            pathL1[v] = (v == 0 ? 0.0 : pathL1[parent_[v]]) + w;
            pathL2[v] = (v == 0 ? 0.0 : pathL2[parent_[v]]) + w * w;
            if (childCount_[v] == 0) {
                l1_ = std::max(l1_, pathL1[v]);
                l2_ = std::max(l2_, std::sqrt(pathL2[v]));
            }
        }
    }

    DomainShape shape_;
    std::vector<double> weights_;
    std::string description_;
    std::vector<std::size_t> parent_, depth_, firstChild_, childCount_, cell_, rowOfNode_;
    std::vector<double> var_, childVar_;
    std::size_t unmeasured_ = 0;
    bool leavesMeasured_ = true;
    double l1_ = 0, l2_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Haar wavelet (unnormalised ±1 rows, as in DPBench's Privelet plan): row 0 is the total; the
// rows [2^j, 2^{j+1}) are, for the 2^j blocks of size n/2^j, (left half − right half).
// H is square and invertible with orthogonal rows: HHᵀ = D = diag(support sizes), so
// H⁻¹ = HᵀD⁻¹ and (HᵀH)⁻¹ = H⁻¹H⁻ᵀ = HᵀD⁻²H.

class HaarStrategy final : public LinearStrategy {
public:
    explicit HaarStrategy(std::size_t n) : shape_{n}, n_(n) {
        levels_ = 0;
        while ((std::size_t{1} << levels_) < n) {
            ++levels_;
        }
        support_.resize(n);
        support_[0] = static_cast<double>(n);
        for (std::size_t j = 0; (std::size_t{1} << j) < n; ++j) {
            for (std::size_t i = std::size_t{1} << j; i < (std::size_t{2} << j); ++i) {
                support_[i] = static_cast<double>(n >> j);
            }
        }
    }
    const DomainShape& shape() const override { return shape_; }
    std::size_t rows() const override { return n_; }
    double sensitivityL1() const override { return static_cast<double>(levels_ + 1); }
    double sensitivityL2() const override { return std::sqrt(static_cast<double>(levels_ + 1)); }

    void measure(std::span<const double> x, std::span<double> y) const override {
        std::vector<double>& cur = scratch(0, n_);
        std::vector<double>& tmp = scratch(1, n_);
        std::copy(x.begin(), x.end(), cur.begin());
        for (std::size_t m = n_; m > 1; m /= 2) {
            const std::size_t h = m / 2;
            for (std::size_t i = 0; i < h; ++i) {
                tmp[i] = cur[2 * i] + cur[2 * i + 1];
                tmp[h + i] = cur[2 * i] - cur[2 * i + 1];
            }
            std::copy(tmp.begin(), tmp.begin() + static_cast<std::ptrdiff_t>(m), cur.begin());
        }
        std::copy(cur.begin(), cur.end(), y.begin());
    }

    void transposeMeasure(std::span<const double> y, std::span<double> x) const override {
        std::vector<double>& cur = scratch(0, n_);
        std::vector<double>& tmp = scratch(1, n_);
        std::copy(y.begin(), y.end(), cur.begin());
        for (std::size_t m = 1; m < n_; m *= 2) {
            for (std::size_t i = 0; i < m; ++i) {
                tmp[2 * i] = cur[i] + cur[m + i];
                tmp[2 * i + 1] = cur[i] - cur[m + i];
            }
            std::copy(tmp.begin(), tmp.begin() + static_cast<std::ptrdiff_t>(2 * m), cur.begin());
        }
        std::copy(cur.begin(), cur.end(), x.begin());
    }

    void leastSquares(std::span<const double> y, std::span<double> xhat) const override {
        std::vector<double>& scaled = scratch(2, n_);
        for (std::size_t i = 0; i < n_; ++i) {
            scaled[i] = y[i] / support_[i];
        }
        transposeMeasure(scaled, xhat);
    }

    void solveGram(std::span<const double> b, std::span<double> out) const override {
        std::vector<double>& hb = scratch(2, n_);
        measure(b, hb);
        for (std::size_t i = 0; i < n_; ++i) {
            hb[i] /= support_[i] * support_[i];
        }
        transposeMeasure(hb, out);
    }

    std::string describe() const override {
        return "Haar wavelet (Privelet), " + std::to_string(levels_ + 1) + " levels";
    }

private:
    // Per-thread work arrays (slots 0–1: the transforms; 2: the scaled coefficients, which
    // leastSquares and solveGram hand to a transform).
    static std::vector<double>& scratch(int slot, std::size_t size) {
        thread_local std::vector<double> buffers[3];
        buffers[slot].resize(size);
        return buffers[slot];
    }

    DomainShape shape_;
    std::size_t n_;
    std::size_t levels_ = 0;
    std::vector<double> support_;
};

// ---------------------------------------------------------------------------------------------
// Kronecker product of 1-D factors: A = A_1 ⊗ … ⊗ A_k acting on C-order tensors, applied mode
// by mode; (⊗A_d)⁺ = ⊗A_d⁺ and (AᵀA)⁻¹ = ⊗(A_dᵀA_d)⁻¹.

class KroneckerStrategy final : public LinearStrategy {
public:
    explicit KroneckerStrategy(std::vector<std::unique_ptr<LinearStrategy>> factors)
        : factors_(std::move(factors)) {
        rows_ = 1;
        l1_ = 1;
        l2_ = 1;
        for (const auto& f : factors_) {
            shape_.push_back(f->shape()[0]);
            rows_ *= f->rows();
            l1_ *= f->sensitivityL1();
            l2_ *= f->sensitivityL2();
        }
    }
    const DomainShape& shape() const override { return shape_; }
    std::size_t rows() const override { return rows_; }
    double sensitivityL1() const override { return l1_; }
    double sensitivityL2() const override { return l2_; }
    const std::vector<std::unique_ptr<LinearStrategy>>& factors() const { return factors_; }

    void measure(std::span<const double> x, std::span<double> y) const override {
        apply(
            x, y, [](const LinearStrategy& f) { return f.rows(); },
            [](const LinearStrategy& f, std::span<const double> in, std::span<double> out) {
                f.measure(in, out);
            });
    }
    void transposeMeasure(std::span<const double> y, std::span<double> x) const override {
        apply(
            y, x, [](const LinearStrategy& f) { return f.shape()[0]; },
            [](const LinearStrategy& f, std::span<const double> in, std::span<double> out) {
                f.transposeMeasure(in, out);
            },
            true);
    }
    void leastSquares(std::span<const double> y, std::span<double> xhat) const override {
        apply(
            y, xhat, [](const LinearStrategy& f) { return f.shape()[0]; },
            [](const LinearStrategy& f, std::span<const double> in, std::span<double> out) {
                f.leastSquares(in, out);
            },
            true);
    }
    void solveGram(std::span<const double> b, std::span<double> out) const override {
        apply(
            b, out, [](const LinearStrategy& f) { return f.shape()[0]; },
            [](const LinearStrategy& f, std::span<const double> in, std::span<double> o) {
                f.solveGram(in, o);
            });
    }
    std::string describe() const override {
        std::string out = "Kronecker product of ";
        for (std::size_t i = 0; i < factors_.size(); ++i) {
            out += (i ? " ⊗ " : "") + factors_[i]->describe();
        }
        return out;
    }

private:
    // Applies f_d along mode d for every d. The input has, per mode, the factor's row count
    // when `fromRows`, else its column count; every mode is mapped to outSize(f_d).
    template <class OutSize, class Op>
    void apply(std::span<const double> in, std::span<double> out, OutSize outSize, Op op,
               bool fromRows = false) const {
        const std::size_t k = factors_.size();
        std::vector<std::size_t> dims(k);
        for (std::size_t d = 0; d < k; ++d) {
            dims[d] = fromRows ? factors_[d]->rows() : factors_[d]->shape()[0];
        }
        std::vector<double> cur(in.begin(), in.end()), next;
        std::vector<double> fin, fout;
        for (std::size_t d = 0; d < k; ++d) {
            const std::size_t m = outSize(*factors_[d]);
            std::size_t outer = 1, inner = 1;
            for (std::size_t e = 0; e < d; ++e) {
                outer *= dims[e];
            }
            for (std::size_t e = d + 1; e < k; ++e) {
                inner *= dims[e];
            }
            const std::size_t len = dims[d];
            next.assign(outer * m * inner, 0.0);
            fin.resize(len);
            fout.resize(m);
            if (inner == 1) {  // the last mode: the fibres are contiguous
                for (std::size_t o = 0; o < outer; ++o) {
                    op(*factors_[d], std::span<const double>(cur).subspan(o * len, len),
                       std::span<double>(next).subspan(o * m, m));
                }
                cur.swap(next);
                dims[d] = m;
                continue;
            }
            for (std::size_t o = 0; o < outer; ++o) {
                for (std::size_t i = 0; i < inner; ++i) {
                    for (std::size_t t = 0; t < len; ++t) {
                        fin[t] = cur[(o * len + t) * inner + i];
                    }
                    op(*factors_[d], fin, fout);
                    for (std::size_t t = 0; t < m; ++t) {
                        next[(o * m + t) * inner + i] = fout[t];
                    }
                }
            }
            cur.swap(next);
            dims[d] = m;
        }
        std::copy(cur.begin(), cur.end(), out.begin());
    }

    std::vector<std::unique_ptr<LinearStrategy>> factors_;
    DomainShape shape_;
    std::size_t rows_ = 0;
    double l1_ = 1, l2_ = 1;
};

// The variance bound of Qardaji, Yang & Li (PVLDB 2013, Eq. 3) for a hierarchy of branching b
// and height h = ⌈log_b N⌉ over N cells: (b − 1)h³ − 2(b + 1)h²/3 (the average variance of a
// range query up to a common factor). h is computed exactly in integers (ektelo's float
// log can round an exact power up by one level; the choices at N = 256, 4 096 and 65 536 agree).
double hbVariance(std::size_t n, std::size_t b) {
    std::size_t h = 0;
    for (std::size_t p = 1; p < n; p *= b) {
        ++h;
        if (p > n / b + 1) {
            break;
        }
    }
    const double hd = static_cast<double>(h), bd = static_cast<double>(b);
    return (bd - 1) * hd * hd * hd - 2 * (bd + 1) * hd * hd / 3;
}

}  // namespace

std::unique_ptr<LinearStrategy> identityStrategy(DomainShape shape) {
    return std::make_unique<IdentityStrategy>(std::move(shape));
}

Expected<std::unique_ptr<LinearStrategy>> hierarchicalStrategy(std::size_t n, std::size_t branching,
                                                               std::vector<double> levelWeights) {
    if (auto s = validateShape({n}); !s) {
        return s.error();
    }
    if (branching < 2) {
        return Error{"a hierarchy needs a branching factor of at least 2, not " +
                     std::to_string(branching)};
    }
    const std::size_t levels = TreeStrategy::depthCount({n}, {branching});
    if (levelWeights.empty()) {
        levelWeights.assign(levels, 1.0);
    }
    if (levelWeights.size() != levels) {
        return Error{"the hierarchy over " + std::to_string(n) + " cells with branching " +
                     std::to_string(branching) + " has " + std::to_string(levels) +
                     " levels, but " + std::to_string(levelWeights.size()) +
                     " level weights were given"};
    }
    bool any = false;
    for (double w : levelWeights) {
        if (!std::isfinite(w) || w < 0) {
            return Error{"hierarchy level weights must be finite and ≥ 0, not " + formatNumber(w)};
        }
        any = any || w > 0;
    }
    if (!any) {
        return Error{"hierarchy level weights are all 0: nothing would be measured"};
    }
    auto tree = std::make_unique<TreeStrategy>(
        DomainShape{n}, std::vector<std::size_t>{branching}, std::move(levelWeights),
        (branching == 2 ? std::string("binary hierarchy (H₂), ")
                        : std::to_string(branching) + "-ary hierarchy, ") +
            std::to_string(levels) + " levels");
    // Full column rank: every cell must be determined; with all leaves measured it is, and
    // otherwise conjugate gradients would not converge — check the rank by a solve.
    std::vector<double> one(n, 0.0), out(n);
    one[0] = 1;
    tree->solveGram(one, out);
    std::vector<double> back(tree->rows()), again(n);
    tree->measure(out, back);
    tree->transposeMeasure(back, again);
    double err = 0;
    for (std::size_t i = 0; i < n; ++i) {
        err = std::max(err, std::abs(again[i] - one[i]));
    }
    if (!(err < 1e-6)) {
        return Error{
            "the hierarchy with these level weights does not determine every cell "
            "(its matrix is not of full column rank): give the leaves a weight > 0"};
    }
    return std::unique_ptr<LinearStrategy>(std::move(tree));
}

std::size_t hbBranching(std::size_t n) {
    if (n <= 2) {
        return 2;
    }
    std::size_t best = 2;
    double bestV = std::numeric_limits<double>::infinity();
    for (std::size_t b = 2; b <= n; ++b) {
        const double v = hbVariance(n, b);
        if (v < bestV) {  // the smallest b on ties, as the reference scan
            bestV = v;
            best = b;
        }
    }
    return best;
}

Expected<std::unique_ptr<LinearStrategy>> hbStrategy(DomainShape shape) {
    if (auto s = validateShape(shape); !s) {
        return s.error();
    }
    // DPBench / ektelo HB: b from the total number of cells, used on every dimension (b^k
    // children per node), the root not measured.
    const std::size_t b = hbBranching(shapeCells(shape));
    const std::vector<std::size_t> branching(shape.size(), b);
    const std::size_t levels = TreeStrategy::depthCount(shape, branching);
    std::vector<double> weights(levels, 1.0);
    weights[0] = 0;
    if (levels == 1) {  // a single cell: measure it
        weights[0] = 1;
    }
    return std::unique_ptr<LinearStrategy>(std::make_unique<TreeStrategy>(
        shape, branching, std::move(weights),
        "hierarchy with branching " + std::to_string(b) +
            (shape.size() > 1 ? " per dimension" : "") + " (HB, Qardaji, Yang & Li 2013), " +
            std::to_string(levels - 1) + " measured levels"));
}

Expected<std::unique_ptr<LinearStrategy>> haarStrategy(DomainShape shape) {
    if (auto s = validateShape(shape); !s) {
        return s.error();
    }
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if ((shape[d] & (shape[d] - 1)) != 0) {
            return Error{
                "the Haar wavelet (Privelet) needs every dimension to be a power of 2; "
                "dimension " +
                std::to_string(d + 1) + " has " + std::to_string(shape[d]) +
                " cells (coarsen or pad the domain)"};
        }
    }
    if (shape.size() == 1) {
        return std::unique_ptr<LinearStrategy>(std::make_unique<HaarStrategy>(shape[0]));
    }
    std::vector<std::unique_ptr<LinearStrategy>> factors;
    for (std::size_t n : shape) {
        factors.push_back(std::make_unique<HaarStrategy>(n));
    }
    return kroneckerStrategy(std::move(factors));
}

Expected<std::unique_ptr<LinearStrategy>> quadtreeStrategy(DomainShape shape) {
    if (shape.size() != 2) {
        return Error{"the quadtree runs on 2-D domains, not on " + std::to_string(shape.size()) +
                     "-D ones"};
    }
    if (auto s = validateShape(shape); !s) {
        return s.error();
    }
    const std::vector<std::size_t> branching{2, 2};
    const std::size_t levels = TreeStrategy::depthCount(shape, branching);
    return std::unique_ptr<LinearStrategy>(std::make_unique<TreeStrategy>(
        shape, branching, std::vector<double>(levels, 1.0),
        "quadtree (Cormode et al. 2012), " + std::to_string(levels) + " levels"));
}

namespace {

class StackedStrategy final : public LinearStrategy {
public:
    StackedStrategy(std::vector<std::unique_ptr<LinearStrategy>> parts, std::vector<double> scales)
        : parts_(std::move(parts)), scales_(std::move(scales)) {
        shape_ = parts_[0]->shape();
        double l2 = 0;
        for (std::size_t i = 0; i < parts_.size(); ++i) {
            offsets_.push_back(rows_);
            rows_ += parts_[i]->rows();
            l1_ += scales_[i] * parts_[i]->sensitivityL1();
            l2 += scales_[i] * scales_[i] * parts_[i]->sensitivityL2() * parts_[i]->sensitivityL2();
        }
        l2_ = std::sqrt(l2);
    }
    const DomainShape& shape() const override { return shape_; }
    std::size_t rows() const override { return rows_; }
    double sensitivityL1() const override { return l1_; }
    double sensitivityL2() const override { return l2_; }
    void measure(std::span<const double> x, std::span<double> y) const override {
        for (std::size_t i = 0; i < parts_.size(); ++i) {
            auto out = y.subspan(offsets_[i], parts_[i]->rows());
            parts_[i]->measure(x, out);
            for (double& v : out) {
                v *= scales_[i];
            }
        }
    }
    void transposeMeasure(std::span<const double> y, std::span<double> x) const override {
        std::fill(x.begin(), x.end(), 0.0);
        std::vector<double> part(x.size());
        for (std::size_t i = 0; i < parts_.size(); ++i) {
            parts_[i]->transposeMeasure(y.subspan(offsets_[i], parts_[i]->rows()), part);
            for (std::size_t c = 0; c < x.size(); ++c) {
                x[c] += scales_[i] * part[c];
            }
        }
    }
    void leastSquares(std::span<const double> y, std::span<double> xhat) const override {
        std::vector<double> aty(xhat.size());
        transposeMeasure(y, aty);
        conjugateGradientGram(*this, aty, xhat);
    }
    void solveGram(std::span<const double> b, std::span<double> out) const override {
        conjugateGradientGram(*this, b, out);
    }
    std::string describe() const override {
        std::string out = "stack of " + std::to_string(parts_.size()) + " strategies (";
        for (std::size_t i = 0; i < parts_.size(); ++i) {
            out += (i ? "; " : "") + formatNumber(scales_[i]) + " × " + parts_[i]->describe();
        }
        return out + ")";
    }

private:
    std::vector<std::unique_ptr<LinearStrategy>> parts_;
    std::vector<double> scales_;
    std::vector<std::size_t> offsets_;
    DomainShape shape_;
    std::size_t rows_ = 0;
    double l1_ = 0, l2_ = 0;
};

}  // namespace

Expected<std::unique_ptr<LinearStrategy>> stackedStrategy(
    std::vector<std::unique_ptr<LinearStrategy>> parts, std::vector<double> scales) {
    if (parts.empty() || parts.size() != scales.size()) {
        return Error{"a stacked strategy needs its parts, one scale each"};
    }
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (!parts[i] || parts[i]->shape() != parts[0]->shape()) {
            return Error{"the parts of a stacked strategy must share the domain"};
        }
        if (!std::isfinite(scales[i]) || scales[i] <= 0) {
            return Error{"a stacked strategy's scales must be finite and > 0"};
        }
    }
    return std::unique_ptr<LinearStrategy>(
        std::make_unique<StackedStrategy>(std::move(parts), std::move(scales)));
}

Expected<std::unique_ptr<LinearStrategy>> kroneckerStrategy(
    std::vector<std::unique_ptr<LinearStrategy>> factors) {
    if (factors.empty()) {
        return Error{"a Kronecker strategy needs at least one factor"};
    }
    DomainShape shape;
    for (std::size_t i = 0; i < factors.size(); ++i) {
        if (!factors[i] || factors[i]->shape().size() != 1) {
            return Error{"Kronecker factor " + std::to_string(i + 1) +
                         " must be a strategy over a 1-D domain"};
        }
        shape.push_back(factors[i]->shape()[0]);
    }
    if (auto s = validateShape(shape); !s) {
        return s.error();
    }
    return std::unique_ptr<LinearStrategy>(std::make_unique<KroneckerStrategy>(std::move(factors)));
}

namespace {

// A·diag(c) (issue #23's integer strategies): measuring A on c∘x, least squares on A then
// dividing by c, (diag(c)AᵀA diag(c))⁻¹ = diag(1/c)(AᵀA)⁻¹diag(1/c).
class ColumnScaledStrategy final : public LinearStrategy {
public:
    ColumnScaledStrategy(std::unique_ptr<LinearStrategy> inner, std::vector<double> scales,
                         double l1, double l2)
        : inner_(std::move(inner)), c_(std::move(scales)), l1_(l1), l2_(l2) {}
    const DomainShape& shape() const override { return inner_->shape(); }
    std::size_t rows() const override { return inner_->rows(); }
    double sensitivityL1() const override { return l1_; }
    double sensitivityL2() const override { return l2_; }
    void measure(std::span<const double> x, std::span<double> y) const override {
        std::vector<double> cx(x.size());
        for (std::size_t j = 0; j < x.size(); ++j) {
            cx[j] = scale(j) * x[j];
        }
        inner_->measure(cx, y);
    }
    void transposeMeasure(std::span<const double> y, std::span<double> x) const override {
        inner_->transposeMeasure(y, x);
        for (std::size_t j = 0; j < x.size(); ++j) {
            x[j] *= scale(j);
        }
    }
    void leastSquares(std::span<const double> y, std::span<double> xhat) const override {
        inner_->leastSquares(y, xhat);
        for (std::size_t j = 0; j < xhat.size(); ++j) {
            xhat[j] /= scale(j);
        }
    }
    void solveGram(std::span<const double> b, std::span<double> out) const override {
        std::vector<double> bc(b.size());
        for (std::size_t j = 0; j < b.size(); ++j) {
            bc[j] = b[j] / scale(j);
        }
        inner_->solveGram(bc, out);
        for (std::size_t j = 0; j < out.size(); ++j) {
            out[j] /= scale(j);
        }
    }
    std::string describe() const override { return inner_->describe() + ", columns scaled"; }

private:
    double scale(std::size_t j) const { return c_.size() == 1 ? c_[0] : c_[j]; }
    std::unique_ptr<LinearStrategy> inner_;
    std::vector<double> c_;
    double l1_, l2_;
};

}  // namespace

Expected<std::unique_ptr<LinearStrategy>> columnScaledStrategy(
    std::unique_ptr<LinearStrategy> inner, std::vector<double> scales, double l1, double l2) {
    if (!inner) {
        return Error{"a column-scaled strategy needs a strategy"};
    }
    const std::size_t cells = shapeCells(inner->shape());
    if (scales.size() != 1 && scales.size() != cells) {
        return Error{"a column-scaled strategy needs one scale, or one per cell (" +
                     std::to_string(cells) + ")"};
    }
    for (double c : scales) {
        if (!std::isfinite(c) || c <= 0) {
            return Error{"a column-scaled strategy's scales must be finite and > 0"};
        }
    }
    if (!std::isfinite(l1) || l1 <= 0 || !std::isfinite(l2) || l2 <= 0) {
        return Error{"a column-scaled strategy's sensitivities must be finite and > 0"};
    }
    return std::unique_ptr<LinearStrategy>(
        std::make_unique<ColumnScaledStrategy>(std::move(inner), std::move(scales), l1, l2));
}

// ---------------------------------------------------------------------------------------------
// Exact expected error

namespace {

// w_qᵀ(AᵀA)⁻¹w_q for a box when A = ⊗A_d: ∏_d of the 1-D forms.
double kroneckerBoxForm(const KroneckerStrategy& k, const RangeQuery& q) {
    double v = q.weight * q.weight;
    std::vector<double> e, out;
    for (std::size_t d = 0; d < k.factors().size(); ++d) {
        const LinearStrategy& f = *k.factors()[d];
        const std::size_t n = f.shape()[0];
        e.assign(n, 0.0);
        out.resize(n);
        for (std::uint64_t c = q.box[d].lo; c <= q.box[d].hi; ++c) {
            e[c] = 1;
        }
        f.solveGram(e, out);
        v *= dot(e, out);
    }
    return v;
}

// trace((A_dᵀA_d)⁻¹ G_d) for one factor and the 1-D factor of a product workload.
Expected<double> factorTrace(const LinearStrategy* f, const Workload& w, std::size_t d) {
    auto w1 = productFactor(w, d);
    if (!w1) {
        return w1.error();
    }
    const std::size_t n = w.shape()[d];
    auto g = w1->gram();
    if (!g) {
        return g.error();
    }
    double t = 0;
    std::vector<double> col(n), out(n);
    for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t i = 0; i < n; ++i) {
            col[i] = (*g)[i * n + j];
        }
        if (f) {
            f->solveGram(col, out);
            t += out[j];
        } else {
            t += col[j];
        }
    }
    return t;
}

}  // namespace

MeasurementSpec MeasurementSpec::laplace(double epsilon) {
    MeasurementSpec s;
    s.noise = MeasurementNoise::Laplace;
    s.epsilon = epsilon;
    return s;
}

MeasurementSpec MeasurementSpec::gaussian(double epsilon, double delta, GaussianCalibration c) {
    MeasurementSpec s;
    s.noise = MeasurementNoise::Gaussian;
    s.epsilon = epsilon;
    s.delta = delta;
    s.calibration = c;
    return s;
}

Status MeasurementSpec::validate() const {
    if (auto s = validateEpsilon(epsilon); !s) {
        return s;
    }
    if (noise == MeasurementNoise::Gaussian) {
        return validateDelta(delta);
    }
    return okStatus();
}

std::string MeasurementSpec::describe() const {
    if (noise == MeasurementNoise::Laplace) {
        return "Laplace, ε = " + formatNumber(epsilon);
    }
    return std::string("Gaussian (") + gaussianCalibrationName(calibration) +
           "), ε = " + formatNumber(epsilon) + ", δ = " + formatNumber(delta);
}

Expected<double> measurementVariance(const LinearStrategy& strategy, const MeasurementSpec& spec) {
    if (auto s = spec.validate(); !s) {
        return s.error();
    }
    if (spec.noise == MeasurementNoise::Laplace) {
        const double b = strategy.sensitivityL1() / spec.epsilon;
        return 2 * b * b;  // Laplace(b) variance
    }
    GaussianParams g;
    g.epsilon = spec.epsilon;
    g.delta = spec.delta;
    g.l2Sensitivity = strategy.sensitivityL2();
    g.calibration = spec.calibration;
    auto sigma = gaussianSigma(g);
    if (!sigma) {
        return sigma.error();
    }
    return *sigma * *sigma;
}

Expected<ExpectedWorkloadError> expectedLeastSquaresError(const LinearStrategy& strategy,
                                                          const Workload& w, double epsilon,
                                                          bool perQuery) {
    return expectedLeastSquaresError(strategy, w, MeasurementSpec::laplace(epsilon), perQuery);
}

Expected<ExpectedWorkloadError> expectedLeastSquaresError(const LinearStrategy& strategy,
                                                          const Workload& w,
                                                          const MeasurementSpec& spec,
                                                          bool perQuery) {
    auto variance = measurementVariance(strategy, spec);
    if (!variance) {
        return variance.error();
    }
    if (strategy.shape() != w.shape()) {
        return Error{"expected error: the strategy's domain differs from the workload's"};
    }
    const double sigma2 = *variance;
    const std::size_t cells = shapeCells(w.shape());
    const std::uint64_t q = w.queryCount();
    const auto* kron = dynamic_cast<const KroneckerStrategy*>(&strategy);
    const bool identity = dynamic_cast<const IdentityStrategy*>(&strategy) != nullptr;
    ExpectedWorkloadError out;
    if (perQuery && !w.explicitQueries()) {
        return Error{"expected error: " + w.describe() +
                     " are too many for per-query variances; ask for the total only"};
    }
    const auto stride = stridesOf(w.shape());
    // Calls f(cell) for every cell of the box (an odometer over its ranges).
    const auto forEachCell = [&](const RangeQuery& rq, auto&& f) {
        const std::size_t dims = stride.size();
        std::vector<std::uint64_t> at(dims);
        std::size_t c = 0;
        for (std::size_t d = 0; d < dims; ++d) {
            at[d] = rq.box[d].lo;
            c += static_cast<std::size_t>(at[d]) * stride[d];
        }
        while (true) {
            f(c);
            std::size_t d = dims;
            while (d > 0) {
                --d;
                if (at[d] < rq.box[d].hi) {
                    ++at[d];
                    c += stride[d];
                    break;
                }
                c -= static_cast<std::size_t>(at[d] - rq.box[d].lo) * stride[d];
                at[d] = rq.box[d].lo;
                if (d == 0) {
                    return;
                }
            }
        }
    };
    const bool fastBoxes = kron != nullptr || identity;
    long double total = 0;
    if (w.explicitQueries() && (perQuery || fastBoxes || q <= cells || cells > 8192)) {
        if (!fastBoxes && static_cast<double>(q) * static_cast<double>(cells) > 4e9) {
            return Error{"expected error: " + w.describe() + " with " + strategy.describe() +
                         " needs " + groupThousands(static_cast<long long>(q)) + " solves over " +
                         groupThousands(static_cast<long long>(cells)) +
                         " cells, too many for an exact computation; use Monte Carlo trials"};
        }
        std::vector<double> v(fastBoxes ? 0 : cells), sol(fastBoxes ? 0 : cells);
        if (perQuery) {
            out.perQueryVariance.resize(q);
        }
        for (std::uint64_t i = 0; i < q; ++i) {
            const RangeQuery rq = w.query(i);
            double form = 0;
            if (identity) {
                form = rq.weight * rq.weight;
                for (const BinRange& r : rq.box) {
                    form *= static_cast<double>(r.hi - r.lo + 1);
                }
            } else if (kron) {
                form = kroneckerBoxForm(*kron, rq);
            } else {
                // v = w_q (zero outside the box), form = w_qᵀ(AᵀA)⁻¹w_q over the box only.
                forEachCell(rq, [&](std::size_t c) { v[c] = rq.weight; });
                strategy.solveGram(v, sol);
                long double f = 0;
                forEachCell(rq, [&](std::size_t c) {
                    f += rq.weight * sol[c];
                    v[c] = 0;
                });
                form = static_cast<double>(f);
            }
            total += form;
            if (perQuery) {
                out.perQueryVariance[i] = sigma2 * form;
            }
        }
    } else if (cells <= 8192) {
        // trace((AᵀA)⁻¹WᵀW): one solve per column of the Gram matrix.
        auto g = w.gram();
        if (!g) {
            return g.error();
        }
        std::vector<double> col(cells), sol(cells);
        for (std::size_t j = 0; j < cells; ++j) {
            for (std::size_t i = 0; i < cells; ++i) {
                col[i] = (*g)[i * cells + j];
            }
            strategy.solveGram(col, sol);
            total += sol[j];
        }
    } else if (fastBoxes &&
               (isProductKind(w.spec().kind) ||
                (w.spec().kind == WorkloadKind::Union &&
                 std::all_of(w.parts().begin(), w.parts().end(),
                             [](const Workload& p) { return isProductKind(p.spec().kind); })))) {
        // WᵀW = ⊗G_d and (AᵀA)⁻¹ = ⊗(A_dᵀA_d)⁻¹: the trace is the product of the 1-D traces
        // (for a union of products, Σ_i c_i² times each part's product).
        for (std::size_t d = 0; d < w.shape().size(); ++d) {
            if (w.shape()[d] > 8192) {
                return Error{"expected error: dimension " + std::to_string(d + 1) + " has " +
                             std::to_string(w.shape()[d]) +
                             " cells, too many for the exact trace (limit 8,192)"};
            }
        }
        const auto productTrace = [&](const Workload& part) -> Expected<long double> {
            long double t = 1;
            for (std::size_t d = 0; d < part.shape().size(); ++d) {
                auto f = factorTrace(kron ? kron->factors()[d].get() : nullptr, part, d);
                if (!f) {
                    return f.error();
                }
                t *= *f;
            }
            return t;
        };
        if (w.spec().kind == WorkloadKind::Union) {
            for (std::size_t i = 0; i < w.parts().size(); ++i) {
                auto t = productTrace(w.parts()[i]);
                if (!t) {
                    return t.error();
                }
                total += w.spec().partWeights[i] * w.spec().partWeights[i] * *t;
            }
        } else {
            auto t = productTrace(w);
            if (!t) {
                return t.error();
            }
            total = *t;
        }
    } else {
        return Error{"expected error: " + w.describe() + " with " + strategy.describe() +
                     " has no exact form here (too many queries and cells, and the strategy is "
                     "not a Kronecker product); use Monte Carlo trials"};
    }
    out.totalSquared = sigma2 * static_cast<double>(total);
    out.rmse = std::sqrt(out.totalSquared / static_cast<double>(q));
    return out;
}

Expected<std::vector<double>> measureLaplace(const LinearStrategy& strategy,
                                             std::span<const double> x, double epsilon,
                                             SimulationRng& rng) {
    return measureStrategy(strategy, x, MeasurementSpec::laplace(epsilon), rng);
}

Expected<std::vector<double>> measureStrategy(const LinearStrategy& strategy,
                                              std::span<const double> x,
                                              const MeasurementSpec& spec, SimulationRng& rng) {
    auto variance = measurementVariance(strategy, spec);
    if (!variance) {
        return variance.error();
    }
    const std::size_t cells = shapeCells(strategy.shape());
    if (x.size() != cells) {
        return Error{"measurement: the data has " + std::to_string(x.size()) +
                     " cells but the strategy's domain has " + std::to_string(cells)};
    }
    std::vector<double> y(strategy.rows()), noise(strategy.rows());
    strategy.measure(x, y);
    const NoiseDistribution law =
        spec.noise == MeasurementNoise::Laplace
            ? NoiseDistribution::laplace(strategy.sensitivityL1() / spec.epsilon)
            : NoiseDistribution::gaussian(std::sqrt(*variance));
    sampleNoise(law, rng, noise);
    for (std::size_t i = 0; i < y.size(); ++i) {
        y[i] += noise[i];
    }
    return y;
}

Expected<std::vector<double>> nonNegativeLeastSquares(const LinearStrategy& strategy,
                                                      std::span<const double> y,
                                                      std::stop_token stop, double tolerance,
                                                      std::size_t maxIterations) {
    if (y.size() != strategy.rows()) {
        return Error{"non-negative least squares: " + std::to_string(y.size()) +
                     " measurements for a strategy of " + std::to_string(strategy.rows()) +
                     " rows"};
    }
    if (!(tolerance > 0) || !std::isfinite(tolerance)) {
        return Error{"non-negative least squares: the tolerance must be > 0 and finite"};
    }
    for (double v : y) {
        if (!std::isfinite(v)) {
            return Error{"non-negative least squares: a measurement is not finite"};
        }
    }
    const std::size_t n = shapeCells(strategy.shape());
    std::vector<double> x(n), g(n), ax(y.size()), xNew(n), gNew(n), aty(n);
    // Start from the projection of the unconstrained solution.
    strategy.leastSquares(y, x);
    for (double& v : x) {
        v = std::max(v, 0.0);
    }
    strategy.transposeMeasure(y, aty);
    const double scale = std::max(std::sqrt(dot(aty, aty)), 1e-300);
    // f(x) = ½‖Ax − y‖², ∇f = Aᵀ(Ax − y); projected gradient with the Barzilai–Borwein step
    // (Barzilai & Borwein 1988) and a monotone backtracking safeguard (as in SPG, Birgin,
    // Martínez & Raydan 2000).
    const auto objective = [&](const std::vector<double>& v, std::vector<double>& grad) {
        strategy.measure(v, ax);
        long double f = 0;
        for (std::size_t i = 0; i < ax.size(); ++i) {
            ax[i] -= y[i];
            f += static_cast<long double>(ax[i]) * ax[i];
        }
        strategy.transposeMeasure(ax, grad);
        return static_cast<double>(f / 2);
    };
    const auto kktResidual = [&](const std::vector<double>& v, const std::vector<double>& grad) {
        long double r = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double p = v[i] > 0 ? grad[i] : std::min(grad[i], 0.0);
            r += static_cast<long double>(p) * p;
        }
        return std::sqrt(static_cast<double>(r));
    };
    double f = objective(x, g);
    double step = 1.0;
    {
        // Initial step: the inverse of a Rayleigh quotient of AᵀA along the gradient.
        std::vector<double> ag(y.size());
        strategy.measure(g, ag);
        const double gg = dot(g, g), agag = dot(ag, ag);
        step = agag > 0 ? gg / agag : 1.0;
    }
    for (std::size_t it = 0; it < maxIterations; ++it) {
        if (kktResidual(x, g) <= tolerance * scale) {
            return x;
        }
        if (stop.stop_requested()) {
            return Error{"non-negative least squares: cancelled"};
        }
        double fNew = 0;
        for (int tries = 0; tries < 60; ++tries) {
            for (std::size_t i = 0; i < n; ++i) {
                xNew[i] = std::max(0.0, x[i] - step * g[i]);
            }
            fNew = objective(xNew, gNew);
            double decrease = 0;
            for (std::size_t i = 0; i < n; ++i) {
                decrease += g[i] * (x[i] - xNew[i]);
            }
            if (fNew <= f - 1e-4 * decrease || decrease <= 0) {
                break;
            }
            step /= 2;
        }
        double ss = 0, sy = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double s = xNew[i] - x[i], t = gNew[i] - g[i];
            ss += s * s;
            sy += s * t;
        }
        x.swap(xNew);
        g.swap(gNew);
        f = fNew;
        if (ss == 0) {
            return x;
        }
        step = sy > 0 ? ss / sy : step * 2;
    }
    if (kktResidual(x, g) <= tolerance * scale) {
        return x;
    }
    return Error{"non-negative least squares did not reach the tolerance " +
                 formatNumber(tolerance) + " in " + std::to_string(maxIterations) +
                 " iterations (relative KKT residual " + formatNumber(kktResidual(x, g) / scale) +
                 ")"};
}

}  // namespace dpx
