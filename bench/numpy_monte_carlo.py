#!/usr/bin/env python3
"""Vectorised numpy baseline for bench_monte_carlo: Monte Carlo E[SSE] of identity, clamp and
resize on common random numbers for a true histogram H (default the seed 000 example [0, 16])
under Laplace(1/ε) noise.

Resize is the general Euclidean projection onto {x >= 0, sum x = s} with s the noisy total
(sort-based, Duchi et al. 2008), vectorised over rows with sort + cumsum along axis 1; it is not
specialised to 2 bins. Rows whose noisy total is <= 0 give the zero histogram.

Prints the three means with standard errors, the median wall-clock time of --reps runs and a
machine-readable line starting with RESULT.
"""
import argparse
import statistics
import time

import numpy as np


def project_rows(noisy):
    """Euclidean projection of every row onto the simplex scaled by the row's (positive) total."""
    n = noisy.shape[1]
    total = noisy.sum(axis=1)
    u = np.sort(noisy, axis=1)[:, ::-1]  # descending (a view)
    t = np.cumsum(u, axis=1)
    t -= total[:, None]
    t /= np.arange(1, n + 1, dtype=np.float64)  # candidate thresholds τ_j = (Σ_{r≤j} u_r − s)/j
    # rho = largest j with u_j > τ_j; the condition holds exactly for j = 1..rho (rho ≥ 1 when s > 0).
    rho = np.count_nonzero(u > t, axis=1)
    np.maximum(rho, 1, out=rho)
    tau = np.take_along_axis(t, (rho - 1)[:, None], axis=1)
    out = noisy - tau
    np.maximum(out, 0.0, out=out)
    out *= (total > 0)[:, None]  # noisy total ≤ 0: the zero histogram
    return out


def run(truth, b, trials, chunk, seed):
    rng = np.random.default_rng(seed)
    n = truth.size
    sums = np.zeros(3)
    sumsq = np.zeros(3)
    done = 0
    while done < trials:
        m = min(chunk, trials - done)
        noise = rng.laplace(0.0, b, size=(m, n))
        noisy = truth + noise
        sse = np.empty((3, m))
        sse[0] = np.einsum("ij,ij->i", noise, noise)
        d = np.maximum(noisy, 0.0) - truth
        sse[1] = np.einsum("ij,ij->i", d, d)
        d = project_rows(noisy) - truth
        sse[2] = np.einsum("ij,ij->i", d, d)
        sums += sse.sum(axis=1)
        sumsq += np.einsum("ij,ij->i", sse, sse)
        done += m
    mean = sums / trials
    var = (sumsq / trials - mean**2) * trials / (trials - 1)
    return mean, np.sqrt(var / trials)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=float, default=1e7)
    ap.add_argument("--chunk", type=float, default=1e6)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--counts", default="0,16")
    args = ap.parse_args()
    truth = np.array([float(c) for c in args.counts.split(",")])
    b = 1.0 / args.epsilon
    trials, chunk = int(args.trials), int(args.chunk)

    print(f"# numpy {np.__version__}, truth {args.counts}, Laplace(b = {b:g}), {trials} trials "
          f"in chunks of {chunk}, {args.reps} repetitions (median reported)")
    times = []
    for r in range(args.reps):
        start = time.perf_counter()
        mean, se = run(truth, b, trials, chunk, args.seed + r)
        times.append(time.perf_counter() - start)
    med = statistics.median(times)
    for name, m, s in zip(("identity", "clamp", "resize"), mean, se):
        print(f"  {name:8s} E[SSE] = {m:.4f} ± {s:.4f}")
    print(f"median {med:.4f} s over {len(times)} runs (min {min(times):.4f} s), "
          f"{1e9 * med / trials:.1f} ns/trial")
    print(f"RESULT case=mc-numpy trials={trials} median_s={med:.6f} identity={mean[0]:.6f} "
          f"clamp={mean[1]:.6f} resize={mean[2]:.6f}")


if __name__ == "__main__":
    main()
