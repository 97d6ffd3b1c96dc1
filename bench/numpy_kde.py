#!/usr/bin/env python3
"""Numpy baseline for bench_seed_mechanisms' functional KDE release: what a notebook would do.

Data: n points from an equal mixture of N(0.3, 0.1^2) and N(0.7, 0.1^2) (as the C++ bench; the
draws differ). Grid: m evenly spaced points on [-0.1, 1.1]. Steps, timed together:
  1. the true KDE f(x_j) = (1/n) sum_i phi_h(x_j - X_i), by broadcasting in chunks of --chunk data
     points (chunk x m matrix of exponentials), the obvious vectorisation;
  2. the covariance K_jk = exp(-|x_j - x_k|^2 / (2h^2)) and a square root of it by
     numpy.linalg.eigh (Cholesky fails on this numerically singular matrix without jitter; the
     eigendecomposition with negative eigenvalues clipped to 0 is the usual notebook fix);
  3. --samples releases f + sigma * (U sqrt(L)) z.
Prints the median wall-clock time of --reps runs and a line starting with RESULT.
"""
import argparse
import math
import time

import numpy as np


def release(data, grid, h, sigma, samples, chunk, rng):
    n = data.size
    f = np.zeros(grid.size)
    norm = 1.0 / (n * h * math.sqrt(2.0 * math.pi))
    for s in range(0, n, chunk):
        d = grid[None, :] - data[s:s + chunk, None]
        f += np.exp(-0.5 * (d / h) ** 2).sum(axis=0)
    f *= norm
    K = np.exp(-0.5 * ((grid[:, None] - grid[None, :]) / h) ** 2)
    w, U = np.linalg.eigh(K)
    root = U * np.sqrt(np.clip(w, 0.0, None))[None, :]
    z = rng.standard_normal((grid.size, samples))
    return f[:, None] + sigma * (root @ z)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--grid", type=int, default=2000)
    ap.add_argument("--bandwidth", type=float, default=0.02)
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--chunk", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    rng = np.random.default_rng(7)
    centres = np.where(np.arange(a.n) % 2 == 1, 0.7, 0.3)
    data = centres + 0.1 * rng.standard_normal(a.n)
    grid = np.linspace(-0.1, 1.1, a.grid)
    sigma = 1e-3  # the scale does not change the work
    times = []
    for _ in range(max(a.reps, 1)):
        t = time.perf_counter()
        out = release(data, grid, a.bandwidth, sigma, a.samples, a.chunk, rng)
        times.append(time.perf_counter() - t)
    assert out.shape == (a.grid, a.samples) and np.isfinite(out).all()
    med = float(np.median(times))
    print(f"numpy functional KDE: n = {a.n}, m = {a.grid}, h = {a.bandwidth}: median {med:.3f} s")
    print(f"RESULT numpy_kde n={a.n} grid={a.grid} h={a.bandwidth} samples={a.samples} "
          f"median_s={med:.3f}")


if __name__ == "__main__":
    main()
