#!/usr/bin/env python3
"""Vectorised numpy baseline for bench_ldp's OLH per-user case: N users with values
v_i = floor(D * x_i^2), x_i = (i + 0.5)/N (the same data as bench_ldp), optimal local hashing with
g = round(e^eps + 1) and the universal family h_{a,b}(x) = ((a*x + b) mod P) mod g, P = 2^61 - 1,
a in [1, P), b in [0, P) drawn per user; y = h(v) w.p. p = e^eps/(e^eps + g - 1), else a uniform
other value of [g]. The aggregator counts, for every j in [0, D), the users with h(j) == y
(N*D hash evaluations, the same hash family and support counting as dpx::ldp::simulatePerUser)
and returns f_j = (C_j/N - 1/g)/(p - 1/g).

Users are processed in chunks of --chunk users (a chunk x D matrix of hashes). Small chunks keep
the temporaries in cache: at D = 1024 the split method took 13.4, 9.1, 7.2, 6.4, 6.3, 6.6, 6.8 ns
per hash with chunks of 8, 16, 32, 64, 96, 128, 256 users (docs/performance.md); 64 is the
default.
(a*x) mod P is computed exactly in uint64 by splitting a = ah*2^32 + al and using 2^61 = 1
(mod P): a*x = al*x + (ah*x)*2^32, (ah*x)*2^32 = hi*2^61 + lo*2^32 = hi + lo*2^32 (mod P), where
ah*x = hi*2^29 + lo; every partial sum stays below 2^63 for x < 2^29.

Two ways to get the chunk x D matrix of (a*j + b) mod P:
  split  (default, the faster) j = jh*2^s + jl: (a*jh*2^s + b) mod P for the D/2^s high parts and
         a*jl mod P for the 2^s low parts, each from the multiplication above on a small matrix,
         then one broadcast add and one conditional subtraction per hash (min(r, r - P) in
         unsigned arithmetic): 6 array passes per hash;
  direct the multiplication above on the whole matrix: about 14 array passes per hash.
Both give identical hashes, draws and estimates (same generator calls in the same order).

Prints the median wall-clock time of --reps runs, the largest |f^ - f| in units of the standard
deviation, and a machine-readable line starting with RESULT.
"""
import argparse
import math
import statistics
import time

import numpy as np

P = (1 << 61) - 1
U64 = np.uint64
PU = U64(P)


def fold(s):
    """s mod P for uint64 s < 2^63: Mersenne folding to < P + 4, then one conditional subtraction
    (min(s, s - P): s - P wraps above 2^63 when s < P)."""
    s = (s & PU) + (s >> U64(61))
    return np.minimum(s, s - PU)


def mul_mod_p(a, x):
    """(a * x) mod P for uint64 arrays (broadcasting), a < P, x < 2^29."""
    ah = a >> U64(32)
    al = a & U64(0xFFFFFFFF)
    t = ah * x  # < 2^58
    return fold(al * x + (t >> U64(29)) + ((t & U64((1 << 29) - 1)) << U64(32)))


def add_mod_p(r, b):
    """(r + b) mod P for r, b < P."""
    s = r + b
    return np.minimum(s, s - PU)


def olh_per_user(values, domain, eps, seed, chunk, method, low_bits=5):
    if domain >= 1 << 29:
        raise ValueError("domain must be below 2^29 for the uint64 multiplication")
    rng = np.random.default_rng(seed)
    n = values.size
    g = int(round(math.exp(eps) + 1))
    p = math.exp(eps) / (math.exp(eps) + g - 1)
    gu = U64(g)
    counts = np.zeros(domain, dtype=np.int64)
    j = np.arange(domain, dtype=np.uint64)[None, :]
    low = 1 << low_bits
    highs = (domain + low - 1) // low
    j_low = np.arange(low, dtype=np.uint64)[None, :]
    j_high = (np.arange(highs, dtype=np.uint64) * U64(low))[None, :]
    cells = highs * low  # >= domain; the columns beyond domain are dropped
    r_buf = np.empty((chunk, highs, low), dtype=np.uint64)
    s_buf = np.empty_like(r_buf)
    eq_buf = np.empty(r_buf.shape, dtype=bool)
    for start in range(0, n, chunk):
        v = values[start:start + chunk].astype(np.uint64)
        m = v.size
        a = rng.integers(1, P, size=m, dtype=np.uint64)
        b = rng.integers(0, P, size=m, dtype=np.uint64)
        hv = add_mod_p(mul_mod_p(a, v), b) % gu
        keep = rng.random(m) < p
        other = rng.integers(0, g - 1, size=m, dtype=np.uint64)
        other = other + (other >= hv)
        y = np.where(keep, hv, other)
        if method == "direct":
            h = add_mod_p(mul_mod_p(a[:, None], j), b[:, None]) % gu  # m x D hashes h(j)
            counts += np.count_nonzero(h == y[:, None], axis=0)
            continue
        lo = mul_mod_p(a[:, None], j_low)                          # a*jl mod P, m x 2^s
        hi = add_mod_p(mul_mod_p(a[:, None], j_high), b[:, None])  # (a*jh*2^s + b) mod P
        r, s, eq = r_buf[:m], s_buf[:m], eq_buf[:m]
        np.add(hi[:, :, None], lo[:, None, :], out=r)  # < 2P
        np.subtract(r, PU, out=s)
        np.minimum(r, s, out=r)                         # (a*j + b) mod P
        np.remainder(r, gu, out=r)                      # h(j)
        np.equal(r, y[:, None, None], out=eq)
        counts += np.count_nonzero(eq.reshape(m, cells)[:, :domain], axis=0)
    q = 1.0 / g
    return (counts / n - q) / (p - q), p, q


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--users", type=float, default=1e6)
    ap.add_argument("--domain", type=int, default=1024)
    ap.add_argument("--epsilon", type=float, default=math.log(3.0))
    ap.add_argument("--chunk", type=int, default=64)
    ap.add_argument("--method", choices=("split", "direct"), default="split")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    n = int(args.users)
    d = args.domain
    x = (np.arange(n, dtype=np.float64) + 0.5) / n
    values = np.floor(d * x * x).astype(np.int64)
    truth = np.bincount(values, minlength=d) / n
    times = []
    for r in range(args.reps):
        t0 = time.perf_counter()
        est, p, q = olh_per_user(values, d, args.epsilon, args.seed + r, args.chunk, args.method)
        times.append(time.perf_counter() - t0)
    var = (q * (1 - q) + truth * (p * (1 - p) - q * (1 - q))) / (n * (p - q) ** 2)
    z = np.max(np.abs(est - truth) / np.sqrt(var))
    med = statistics.median(times)
    print(f"# numpy {np.__version__}: OLH per-user, N = {n}, D = {d}, eps = {args.epsilon:.4f}, "
          f"method {args.method}, chunk {args.chunk}")
    print(f"median {med:.4f} s over {len(times)} runs (min {min(times):.4f} s), "
          f"{1e9 * med / (n * d):.3f} ns per hash; max |f^-f|/sd = {z:.2f}")
    print(f"RESULT case=numpy-olh-per-user method={args.method} chunk={args.chunk} users={n} "
          f"domain={d} threads=1 median_s={med:.6f}")


if __name__ == "__main__":
    main()
