#include "core/mechanisms/functional_kde.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/base/simulation_rng.h"
#include "core/base/validation.h"
#include "core/mechanisms/gaussian_mechanism.h"

namespace dpx {

namespace {

Status validateBandwidth(double h) {
    return validatePositiveFinite(h, "the bandwidth h");
}

Status validateData(std::span<const double> data) {
    if (data.empty()) {
        return Error{"the data column is empty: a kernel density estimate needs n ≥ 1 values"};
    }
    for (std::size_t i = 0; i < data.size(); ++i) {
        if (!std::isfinite(data[i])) {
            return Error{"data value " + std::to_string(i + 1) + " is " + formatNumber(data[i]) +
                         ": every value must be finite"};
        }
    }
    return okStatus();
}

Status validateGrid(std::span<const double> grid) {
    if (grid.empty()) {
        return Error{"the grid is empty"};
    }
    for (double x : grid) {
        if (!std::isfinite(x)) {
            return Error{"a grid point is " + formatNumber(x) + ": grid points must be finite"};
        }
    }
    return okStatus();
}

std::vector<double> makeGrid(double lo, double hi, std::size_t m) {
    std::vector<double> g(m);
    const double step = (hi - lo) / static_cast<double>(m - 1);
    for (std::size_t i = 0; i < m; ++i) {
        g[i] = lo + step * static_cast<double>(i);
    }
    g.back() = hi;
    return g;
}

}  // namespace

Status FunctionalKdeParams::validate() const {
    if (auto s = validateBandwidth(bandwidth); !s) {
        return s;
    }
    if (!std::isfinite(gridLo) || !std::isfinite(gridHi)) {
        return Error{"the grid range must be finite (got " + formatNumber(gridLo) + " to " +
                     formatNumber(gridHi) + ")"};
    }
    if (!(gridHi > gridLo)) {
        return Error{"the grid range needs LO < HI (got " + formatNumber(gridLo) + " to " +
                     formatNumber(gridHi) + ")"};
    }
    if (gridPoints < kMinKdeGridPoints || gridPoints > kMaxKdeGridPoints) {
        return Error{"the number of grid points must be between " +
                     std::to_string(kMinKdeGridPoints) + " and " +
                     std::to_string(kMaxKdeGridPoints) + " (got " + std::to_string(gridPoints) +
                     ")"};
    }
    if (auto s = validateEpsilon(epsilon); !s) {
        return s;
    }
    if (auto s = validateDelta(delta); !s) {
        return s;
    }
    if (samples < 1 || samples > kMaxKdeSamples) {
        return Error{"the number of sampled releases must be between 1 and " +
                     std::to_string(kMaxKdeSamples) + " (got " + std::to_string(samples) + ")"};
    }
    return okStatus();
}

double kdeSensitivity(std::size_t n, double bandwidth) {
    return std::numbers::sqrt2 /
           (static_cast<double>(n) * std::sqrt(2 * std::numbers::pi) * bandwidth);
}

double kdeCDelta(double delta) {
    return std::sqrt(2 * std::log(2 / delta));
}

Expected<double> kdeNoiseScale(std::size_t n, double bandwidth, double epsilon, double delta) {
    if (n < 1) {
        return Error{"the number of data values n must be at least 1"};
    }
    if (auto s = validateBandwidth(bandwidth); !s) {
        return s.error();
    }
    if (auto s = validateEpsilon(epsilon); !s) {
        return s.error();
    }
    if (auto s = validateDelta(delta); !s) {
        return s.error();
    }
    return kdeCDelta(delta) * kdeSensitivity(n, bandwidth) / epsilon;
}

Expected<std::vector<double>> kernelDensity(std::span<const double> data, double bandwidth,
                                            std::span<const double> grid) {
    if (auto s = validateData(data); !s) {
        return s.error();
    }
    if (auto s = validateBandwidth(bandwidth); !s) {
        return s.error();
    }
    if (auto s = validateGrid(grid); !s) {
        return s.error();
    }
    const double norm =
        1 / (static_cast<double>(data.size()) * std::sqrt(2 * std::numbers::pi) * bandwidth);
    const double inv2h2 = 1 / (2 * bandwidth * bandwidth);
    std::vector<double> f(grid.size(), 0.0);
    for (std::size_t j = 0; j < grid.size(); ++j) {
        double sum = 0;
        for (double x : data) {
            const double u = grid[j] - x;
            sum += std::exp(-u * u * inv2h2);
        }
        f[j] = norm * sum;
    }
    return f;
}

Expected<std::vector<double>> kernelDensityOnGrid(std::span<const double> data, double bandwidth,
                                                  double lo, double hi, std::size_t m,
                                                  const std::stop_token& stop,
                                                  const std::function<void(double)>& progress) {
    if (auto s = validateData(data); !s) {
        return s.error();
    }
    if (auto s = validateBandwidth(bandwidth); !s) {
        return s.error();
    }
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo) || m < 2) {
        return Error{"the grid needs finite LO < HI and at least 2 points (got " +
                     formatNumber(lo) + " to " + formatNumber(hi) + ", " + std::to_string(m) +
                     " points)"};
    }
    constexpr double kCutoff = 9;  // kernel terms beyond 9h are below e^(−40.5)
    constexpr std::size_t kAnchor = 64;
    const std::vector<double> grid = makeGrid(lo, hi, m);
    const double step = (hi - lo) / static_cast<double>(m - 1);
    const double inv2h2 = 1 / (2 * bandwidth * bandwidth);
    const double q = std::exp(-2 * step * step * inv2h2);  // e^(−s²/h²)
    const double last = static_cast<double>(m - 1);
    std::vector<double> acc(m, 0.0);
    for (std::size_t i = 0; i < data.size(); ++i) {
        if (i % 4096 == 0) {
            if (stop.stop_requested()) {
                return Error{"cancelled"};
            }
            if (progress && i > 0) {
                progress(static_cast<double>(i) / static_cast<double>(data.size()));
            }
        }
        const double x = data[i];
        const double from = std::ceil((x - kCutoff * bandwidth - lo) / step);
        const double to = std::floor((x + kCutoff * bandwidth - lo) / step);
        if (to < 0 || from > last) {
            continue;
        }
        const auto j0 = static_cast<std::size_t>(std::max(from, 0.0));
        const auto j1 = static_cast<std::size_t>(std::min(to, last));
        double e = 0, r = 0;
        for (std::size_t j = j0; j <= j1; ++j) {
            if ((j - j0) % kAnchor == 0) {
                const double u = grid[j] - x;
                e = std::exp(-u * u * inv2h2);
                r = std::exp(-(2 * u * step + step * step) * inv2h2);
            }
            acc[j] += e;
            e *= r;
            r *= q;
        }
    }
    const double norm =
        1 / (static_cast<double>(data.size()) * std::sqrt(2 * std::numbers::pi) * bandwidth);
    for (double& v : acc) {
        v *= norm;
    }
    if (progress) {
        progress(1);
    }
    return acc;
}

Expected<double> silvermanBandwidth(std::span<const double> data) {
    if (data.size() < 2) {
        return Error{"Silverman's rule needs at least 2 values (got " +
                     std::to_string(data.size()) + ")"};
    }
    if (auto s = validateData(data); !s) {
        return s.error();
    }
    const auto n = static_cast<double>(data.size());
    double mean = 0;
    for (double x : data) {
        mean += x;
    }
    mean /= n;
    double ss = 0;
    for (double x : data) {
        ss += (x - mean) * (x - mean);
    }
    const double sd = std::sqrt(ss / (n - 1));
    if (!(sd > 0)) {
        return Error{"every value equals " + formatNumber(data[0]) +
                     ": a constant column has no spread, so Silverman's rule gives h = 0"};
    }
    std::vector<double> sorted(data.begin(), data.end());
    std::sort(sorted.begin(), sorted.end());
    const auto quantile = [&sorted](double q) {
        const double pos = q * static_cast<double>(sorted.size() - 1);
        const auto i = static_cast<std::size_t>(std::floor(pos));
        const double frac = pos - static_cast<double>(i);
        return i + 1 < sorted.size() ? sorted[i] + frac * (sorted[i + 1] - sorted[i]) : sorted[i];
    };
    const double iqr = quantile(0.75) - quantile(0.25);
    const double spread = iqr > 0 ? std::min(sd, iqr / 1.34) : sd;
    return 0.9 * spread * std::pow(n, -0.2);
}

Expected<GaussianKernelFactor> factorGaussianKernel(std::span<const double> grid, double bandwidth,
                                                    double tolerance, const std::stop_token& stop) {
    if (auto s = validateGrid(grid); !s) {
        return s.error();
    }
    if (auto s = validateBandwidth(bandwidth); !s) {
        return s.error();
    }
    if (!std::isfinite(tolerance) || tolerance < 0) {
        return Error{"the factorisation tolerance must be finite and ≥ 0 (got " +
                     formatNumber(tolerance) + ")"};
    }
    const auto m = static_cast<Eigen::Index>(grid.size());
    const double inv2h2 = 1 / (2 * bandwidth * bandwidth);
    const Eigen::Map<const Eigen::VectorXd> x(grid.data(), m);
    Eigen::VectorXd diag = Eigen::VectorXd::Ones(m);  // remaining diagonal of K − L·Lᵀ
    std::vector<bool> pivoted(grid.size(), false);
    Eigen::MatrixXd L(m, std::min<Eigen::Index>(m, 64));
    Eigen::Index rank = 0;
    double residual = 0;
    while (true) {
        // The largest remaining diagonal among unpivoted points (pivoted ones are exactly 0).
        Eigen::Index piv = -1;
        double best = -1;
        for (Eigen::Index i = 0; i < m; ++i) {
            if (!pivoted[static_cast<std::size_t>(i)] && diag[i] > best) {
                best = diag[i];
                piv = i;
            }
        }
        if (piv < 0 || best <= tolerance) {
            residual = std::max(best, 0.0);
            break;
        }
        if (stop.stop_requested()) {
            return Error{"cancelled"};
        }
        if (rank == L.cols()) {
            L.conservativeResize(Eigen::NoChange, std::min<Eigen::Index>(m, 2 * L.cols()));
        }
        const double pivot = std::sqrt(best);
        Eigen::VectorXd col = (-(x.array() - x[piv]).square() * inv2h2).exp().matrix();
        if (rank > 0) {
            col.noalias() -= L.leftCols(rank) * L.row(piv).head(rank).transpose();
        }
        col /= pivot;
        for (Eigen::Index i = 0; i < m; ++i) {
            if (pivoted[static_cast<std::size_t>(i)]) {
                col[i] = 0;  // exact zeros: the Schur complement vanishes on pivoted points
            }
        }
        col[piv] = pivot;
        L.col(rank) = col;
        diag -= col.cwiseAbs2();
        diag[piv] = 0;
        pivoted[static_cast<std::size_t>(piv)] = true;
        ++rank;
    }
    GaussianKernelFactor f;
    f.points = grid.size();
    f.rank = static_cast<std::size_t>(rank);
    f.maxResidual = residual;
    f.factor.resize(f.points * f.rank);
    Eigen::Map<Eigen::MatrixXd>(f.factor.data(), m, rank) = L.leftCols(rank);
    return f;
}

Expected<FunctionalKdeResult> releaseFunctionalKde(std::span<const double> data,
                                                   const FunctionalKdeParams& p,
                                                   const std::stop_token& stop,
                                                   const std::function<void(double)>& progress) {
    if (auto s = p.validate(); !s) {
        return s.error();
    }
    if (auto s = validateData(data); !s) {
        return s.error();
    }
    FunctionalKdeResult r;
    r.n = data.size();
    r.sensitivity = kdeSensitivity(r.n, p.bandwidth);
    r.cDelta = kdeCDelta(p.delta);
    if (p.calibration != GaussianCalibration::Hall) {
        // The release is the Gaussian mechanism with Mahalanobis sensitivity Δ (see the header),
        // so any calibration of the scalar Gaussian mechanism applies; gaussianSigma checks it.
        auto sigma = gaussianSigma({p.epsilon, p.delta, r.sensitivity, p.calibration});
        if (!sigma) {
            return sigma.error();
        }
        r.noiseScale = *sigma;
    } else {
        r.noiseScale = r.cDelta * r.sensitivity / p.epsilon;
        // Privacy first: σ = c(δ)Δ/ε against the exact profile of the Gaussian mechanism (Balle
        // & Wang 2018 Thm 8), since Prop 1.3.3 is proven only for ε ≤ 1.
        const double exactDelta = gaussianExactDelta(r.noiseScale, p.epsilon, r.sensitivity);
        if (exactDelta > p.delta * (1 + 1e-9)) {
            return Error{"at ε = " + formatNumber(p.epsilon) + " the noise c(δ)Δ/ε = " +
                         formatNumber(r.noiseScale) + " is NOT (ε, δ)-DP (its exact δ is " +
                         formatNumber(exactDelta) + " > δ = " + formatNumber(p.delta) +
                         "); Hall 2012, Prop. 1.3.3 assumes ε ≤ 1: use a smaller ε or the "
                         "analytic calibration"};
        }
        if (p.epsilon > 1) {
            r.warnings.push_back(
                "Hall 2012, Prop. 1.3.3 is proven for ε ≤ 1; at ε = " + formatNumber(p.epsilon) +
                " the noise was checked against the exact Gaussian privacy profile");
        }
    }
    r.grid = makeGrid(p.gridLo, p.gridHi, p.gridPoints);
    const auto report = [&progress](double f) {
        if (progress) {
            progress(f);
        }
    };
    auto f = kernelDensityOnGrid(data, p.bandwidth, p.gridLo, p.gridHi, p.gridPoints, stop,
                                 [&report](double x) { report(0.8 * x); });
    if (!f) {
        return f.error();
    }
    r.trueKde = std::move(*f);
    auto factor = factorGaussianKernel(r.grid, p.bandwidth, kDefaultKernelTolerance, stop);
    if (!factor) {
        return factor.error();
    }
    report(0.95);
    r.factorRank = factor->rank;
    r.covarianceError = r.noiseScale * r.noiseScale * factor->maxResidual;
    const auto m = static_cast<Eigen::Index>(factor->points);
    const auto k = static_cast<Eigen::Index>(factor->rank);
    const Eigen::Map<const Eigen::MatrixXd> L(factor->factor.data(), m, k);
    const Eigen::Map<const Eigen::VectorXd> truth(r.trueKde.data(), m);
    Eigen::VectorXd xi(k);
    for (std::size_t s = 0; s < p.samples; ++s) {
        if (stop.stop_requested()) {
            return Error{"cancelled"};
        }
        SimulationRng rng(p.seed, s);
        for (Eigen::Index i = 0; i < k; ++i) {
            xi[i] = rng.normal();
        }
        std::vector<double> out(factor->points);
        Eigen::Map<Eigen::VectorXd>(out.data(), m) = truth + r.noiseScale * (L * xi);
        r.releases.push_back(std::move(out));
    }
    const double step = (p.gridHi - p.gridLo) / static_cast<double>(p.gridPoints - 1);
    if (step > p.bandwidth) {
        r.warnings.push_back("the grid step " + formatNumber(step) +
                             " exceeds the bandwidth h = " + formatNumber(p.bandwidth) +
                             ": the curves are undersampled (use more grid points)");
    }
    return r;
}

Expected<std::vector<double>> twoClusterSample(std::size_t n, std::uint64_t seed, double spread) {
    if (n < 1 || n > 10'000'000) {
        return Error{"the example needs between 1 and 10,000,000 points (got " + std::to_string(n) +
                     ")"};
    }
    if (auto s = validatePositiveFinite(spread, "the mixture spread s"); !s) {
        return s.error();
    }
    SimulationRng rng(seed, kTwoClusterSampleStream);
    std::vector<double> x(n);
    for (double& v : x) {
        const double centre = rng.uniform() < 0.5 ? 0.3 : 0.7;
        v = centre + spread * rng.normal();
    }
    return x;
}

}  // namespace dpx
