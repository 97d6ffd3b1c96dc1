#!/usr/bin/env python3
"""Vectorised numpy baseline for bench_noisefirst: NoiseFirst over all k by the O(n^3) V-optimal DP.

Reads the noisy histogram written by `bench_noisefirst --write-input FILE` (header line
"# case=... n=... variance=V", then one value per line). With prefix sums S1, S2 of the data
centred on its mean, the cost of bucket [j, i) is W[j, i] = (S2[i] - S2[j]) - (S1[i] - S1[j])^2 /
(i - j), precomputed as an (n+1) x (n+1) matrix masked with +inf where j >= i. Layer k of the DP,
E_k[i] = min_j E_{k-1}[j] + W[j, i], is one broadcast add and one min along axis 0 (restricted
to the rows j >= k-1 and columns i >= k that can be finite). SSE_k = E_k[n], and
k* = argmin_k SSE_k - (n - 2k) V (the first minimum, i.e. ties go to the smallest k).
"""
import argparse
import re
import statistics
import time

import numpy as np


def read_input(path):
    with open(path) as f:
        header = f.readline()
    m = re.search(r"case=(\S+) n=(\d+) variance=(\S+)", header)
    if not m:
        raise SystemExit(f"{path}: missing '# case=... n=... variance=...' header")
    x = np.loadtxt(path, comments="#", dtype=np.float64, ndmin=1)
    if x.size != int(m.group(2)):
        raise SystemExit(f"{path}: header says n={m.group(2)} but {x.size} values follow")
    return m.group(1), x, float(m.group(3))


def v_optimal_all_k(x):
    n = x.size
    c = x - x.mean()
    s1 = np.concatenate(([0.0], np.cumsum(c)))
    s2 = np.concatenate(([0.0], np.cumsum(c * c)))
    idx = np.arange(n + 1)
    length = (idx[None, :] - idx[:, None]).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        d1 = s1[None, :] - s1[:, None]
        w = (s2[None, :] - s2[:, None]) - d1 * d1 / length
    w = np.maximum(w, 0.0)
    w[length <= 0] = np.inf  # only j < i is a bucket
    sse = np.empty(n)
    prev = w[0].copy()  # E_1[i] = W[0, i]
    sse[0] = prev[n]
    buf = np.empty((n, n))
    nxt = np.empty(n + 1)
    for k in range(2, n + 1):
        rows = n - k + 1  # j = k-1 .. n-1
        view = buf[:rows, :rows]
        np.add(prev[k - 1 : n, None], w[k - 1 : n, k : n + 1], out=view)
        nxt[:k] = np.inf
        np.min(view, axis=0, out=nxt[k:])
        sse[k - 1] = nxt[n]
        prev, nxt = nxt, prev
    return sse


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--input", required=True, help="file written by bench_noisefirst --write-input")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    case, x, variance = read_input(args.input)
    n = x.size
    times = []
    for _ in range(args.reps):
        start = time.perf_counter()
        sse = v_optimal_all_k(x)
        k = np.arange(1, n + 1, dtype=np.float64)
        crit = sse - (n - 2 * k) * variance
        kstar = int(np.argmin(crit)) + 1
        times.append(time.perf_counter() - start)
    med = statistics.median(times)
    print(f"# numpy {np.__version__}, case {case}, n = {n}, V = {variance:g}")
    print(f"numpy     k* = {kstar}, SSE_k* = {sse[kstar - 1]:.10g}, median {med:.6f} s over "
          f"{len(times)} runs")
    print(f"RESULT case=noisefirst-numpy input={case} n={n} k={kstar} sse={sse[kstar - 1]:.17g} "
          f"median_s={med:.6f} runs={len(times)}")


if __name__ == "__main__":
    main()
