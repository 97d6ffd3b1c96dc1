#!/usr/bin/env python3
"""Reference values for the exact expected error of 2-bin estimators (tests/core/accuracy/tst_exact_error.cpp).

Not run by ctest; documents how the hard-coded numbers were obtained (mpmath only, 30 digits).

Method (independent of the core's nested Gauss-Kronrod engine): with noisy counts
x = h1 + z1, y = h2 + z2, the error g(z1, z2) = metric(estimator(x, y) - h) is, for fixed z1,
piecewise polynomial of degree <= 2 in z2 between "kink lines" z2 = a*z1 + c (a in {-1, 0, 1}).
The inner integral over z2 is therefore done in closed form on each piece (the polynomial is
recovered exactly by interpolation at three interior points; moments of the Laplace / Gaussian
density over an interval are closed forms). The outer integral over z1 is mpmath quadrature
(Gauss-Legendre and tanh-sinh, the better-converged one reported), split at every z1 where two
kink lines cross (where the inner integral has a kink). Identity and clamp are computed by the same
script as a self-check against their closed forms.

`--numeric CASE...` instead evaluates both integrals numerically (nested mpmath quadrature with the
kinks as breakpoints, no closed forms; slow, 15 digits) as a cross-check of the method itself.

Output of a full run: two_bin_reference.out beside this file.
"""
from mpmath import mp, mpf, inf, exp, sqrt, gammainc, ncdf, npdf, quad, fabs, log, pi

mp.dps = 30


# ---- noise laws: density and exact moments ∫_l^u z^k f(z) dz, k = 0, 1, 2 -------------------------
class Laplace:
    def __init__(self, b):
        self.b = mpf(b)

    def pdf(self, z):
        return exp(-fabs(z) / self.b) / (2 * self.b)

    def moments(self, l, u):  # requires the interval not to straddle 0
        b = self.b
        if l >= 0:
            return [b ** (k + 1) * (gammainc(k + 1, l / b) - (0 if u == inf else gammainc(k + 1, u / b))) / (2 * b)
                    for k in range(3)]
        # z = -w, w in [-u, -l]
        m = self.moments(-u, -l) if u != 0 else self.moments(mpf(0), -l)
        return [m[0], -m[1], m[2]]

    kinks = [mpf(0)]


class Gaussian:
    def __init__(self, s):
        self.s = mpf(s)

    def pdf(self, z):
        return npdf(z / self.s) / self.s

    def moments(self, l, u):
        s = self.s
        def F(t):  # antiderivatives at t (t may be ±inf)
            if t == inf:
                return (mpf(1), mpf(0), s * s)
            if t == -inf:
                return (mpf(0), mpf(0), mpf(0))
            r = t / s
            return (ncdf(r), -s * npdf(r), s * s * (ncdf(r) - r * npdf(r)))
        a, c = F(l), F(u)
        return [c[k] - a[k] for k in range(3)]

    kinks = []


# ---- estimators on 2 bins ----------------------------------------------------------------------------
def identity(x, y, V):
    return x, y

def clamp(x, y, V):
    return max(x, 0), max(y, 0)

def resize(x, y, V):
    s = x + y
    if s <= 0:
        return mpf(0), mpf(0)
    a = min(max(x, 0), s)
    return a, s - a

def noisefirst(x, y, V):  # seed 000 eq. 3.6 with V: merge iff (x - y)^2 / 2 <= 2V
    if (x - y) ** 2 / 2 <= 2 * V:
        m = (x + y) / 2
        return m, m
    return x, y

METRICS = {
    "sse": lambda d1, d2: d1 * d1 + d2 * d2,
    "l1": lambda d1, d2: fabs(d1) + fabs(d2),
    "linf": lambda d1, d2: max(fabs(d1), fabs(d2)),
}


def lines(h1, h2, V):
    """Superset of the kink lines z2 = a*z1 + c of every estimator/metric above."""
    c = 2 * sqrt(V) if V else mpf(0)
    L = [(0, mpf(0)), (0, -h2)]
    for cc in (-h1 - h2, -h1, -h2, -2 * h1, -2 * h2, mpf(0), h1 - h2, h2 - h1):
        L.append((-1, cc))
    for cc in (mpf(0), h1 - h2 - c, h1 - h2 + c):
        L.append((1, cc))
    return L


def expected(noise, est, metric, h1, h2, V=0):
    h1, h2, V = mpf(h1), mpf(h2), mpf(V)
    g = METRICS[metric]
    L = lines(h1, h2, V)
    # outer breakpoints: vertical kinks and pairwise crossings of lines
    bps = {mpf(0), -h1, -h1 - h2 + 0}
    for i, (a, c) in enumerate(L):
        for (a2, c2) in L[i + 1:]:
            if a != a2:
                bps.add((c2 - c) / (a - a2))
    bps = sorted(bps)

    def inner(z1):
        x = h1 + z1
        ks = sorted({a * z1 + c for (a, c) in L})
        pts = [-inf] + ks + [inf]
        total = mpf(0)
        for l, u in zip(pts[:-1], pts[1:]):
            if l == u:
                continue
            # three interior points to recover the quadratic exactly
            if l == -inf:
                ts = [u - 1, u - 2, u - 3]
            elif u == inf:
                ts = [l + 1, l + 2, l + 3]
            else:
                ts = [l + (u - l) * f for f in (mpf(1) / 4, mpf(1) / 2, mpf(3) / 4)]
            vs = []
            for t in ts:
                e1, e2 = est(x, h2 + t, V)
                vs.append(g(e1 - h1, e2 - h2))
            # quadratic through (ts, vs): coefficients c0 + c1 t + c2 t^2
            (t0, t1, t2), (v0, v1, v2) = ts, vs
            d01 = (v1 - v0) / (t1 - t0)
            d12 = (v2 - v1) / (t2 - t1)
            c2 = (d12 - d01) / (t2 - t0)
            c1 = d01 - c2 * (t0 + t1)
            c0 = v0 - c1 * t0 - c2 * t0 * t0
            m = noise.moments(l, u)
            total += c0 * m[0] + c1 * m[1] + c2 * m[2]
        return total * noise.pdf(z1)

    # Both mpmath rules are run; the value with the smaller error estimate is reported, and the two
    # must agree within the larger estimate. (Neither rule converges on every case: tanh-sinh
    # reported 1e-7 on "Laplace b=2 [1,4] noisefirst l1", Gauss-Legendre 1e-12 on the b=10 cases.)
    pts = [-inf] + bps + [inf]
    gl, gl_err = quad(inner, pts, method="gauss-legendre", error=True)
    ts, ts_err = quad(inner, pts, method="tanh-sinh", error=True)
    best, best_err, worst_err = (gl, gl_err, ts_err) if gl_err < ts_err else (ts, ts_err, gl_err)
    assert abs(gl - ts) <= 10 * worst_err, (gl, ts, gl_err, ts_err)
    return best, best_err, gl - ts, worst_err


def nested_numeric(noise, est, metric, h1, h2, V=0):
    """Both integrals numerically (no closed-form moments): a check of the method above."""
    h1, h2, V = mpf(h1), mpf(h2), mpf(V)
    g = METRICS[metric]
    L = lines(h1, h2, V)
    bps = {mpf(0), -h1, -h1 - h2}
    for i, (a, c) in enumerate(L):
        for (a2, c2) in L[i + 1:]:
            if a != a2:
                bps.add((c2 - c) / (a - a2))

    def inner(z1):
        x = h1 + z1
        ks = sorted({a * z1 + c for (a, c) in L})
        f = lambda z2: g(*(e - h for e, h in zip(est(x, h2 + z2, V), (h1, h2)))) * noise.pdf(z2)
        return quad(f, [-inf] + ks + [inf]) * noise.pdf(z1)

    return quad(inner, [-inf] + sorted(bps) + [inf])


if __name__ == "__main__":
    cases = [
        # (label, noise, estimator, metric, h1, h2, V)
        ("Laplace b=10 [0,16] identity sse (closed form 400)", Laplace(10), identity, "sse", 0, 16, 0),
        ("Laplace b=10 [0,16] clamp sse (closed form 247.5069053167384)", Laplace(10), clamp, "sse", 0, 16, 0),
        ("Laplace b=10 [0,16] resize sse", Laplace(10), resize, "sse", 0, 16, 0),
        ("Laplace b=10 [0,16] resize l1", Laplace(10), resize, "l1", 0, 16, 0),
        ("Laplace b=10 [0,16] resize linf", Laplace(10), resize, "linf", 0, 16, 0),
        ("Laplace b=10 [0,16] noisefirst V=200 sse", Laplace(10), noisefirst, "sse", 0, 16, 200),
        ("Laplace b=10 [0,16] noisefirst V=200 l1", Laplace(10), noisefirst, "l1", 0, 16, 200),
        ("Laplace b=10 [0,16] noisefirst V=200 linf", Laplace(10), noisefirst, "linf", 0, 16, 200),
        ("Laplace b=2 [1,4] resize sse", Laplace(2), resize, "sse", 1, 4, 0),
        ("Laplace b=2 [1,4] noisefirst V=8 l1", Laplace(2), noisefirst, "l1", 1, 4, 8),
        ("Gaussian s=3 [2,5] identity linf (self-check)", Gaussian(3), identity, "linf", 2, 5, 0),
        ("Gaussian s=3 [2,5] clamp l1 (self-check)", Gaussian(3), clamp, "l1", 2, 5, 0),
        ("Gaussian s=3 [2,5] resize sse", Gaussian(3), resize, "sse", 2, 5, 0),
        ("Gaussian s=3 [2,5] resize l1", Gaussian(3), resize, "l1", 2, 5, 0),
        ("Gaussian s=3 [2,5] resize linf", Gaussian(3), resize, "linf", 2, 5, 0),
        ("Gaussian s=3 [2,5] noisefirst V=9 sse", Gaussian(3), noisefirst, "sse", 2, 5, 9),
        ("Gaussian s=3 [2,5] noisefirst V=9 l1", Gaussian(3), noisefirst, "l1", 2, 5, 9),
        ("Gaussian s=3 [2,5] noisefirst V=9 linf", Gaussian(3), noisefirst, "linf", 2, 5, 9),
    ]
    import sys
    args = sys.argv[1:]
    numeric = "--numeric" in args
    sel = [a for a in args if a != "--numeric"]
    if numeric:
        mp.dps = 15
        for i, (label, noise, est, metric, h1, h2, V) in enumerate(cases):
            if sel and str(i) not in sel:
                continue
            print(f"{label} (nested numeric): {mp.nstr(nested_numeric(noise, est, metric, h1, h2, V), 15)}",
                  flush=True)
        sys.exit(0)
    for i, (label, noise, est, metric, h1, h2, V) in enumerate(cases):
        if sel and str(i) not in sel:
            continue
        v, err, diff, other_err = expected(noise, est, metric, h1, h2, V)
        print(f"{label}: {mp.nstr(v, 20)}  (error estimate {mp.nstr(err, 2)}; the other rule "
              f"differs by {mp.nstr(diff, 2)}, its estimate {mp.nstr(other_err, 2)})", flush=True)
