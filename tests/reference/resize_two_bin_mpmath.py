#!/usr/bin/env python3
"""Independent reference for E[SSE] of the resize estimator on H = [0, 16], Laplace(b = 10)
(seed 000 §3.3, ε = 0.1): nested 25-digit mpmath quadrature with the estimator's kinks as
breakpoints. Not run by ctest (needs python3-mpmath); its output is quoted in the tests.
Result (2026-11-21): 251.00036971994430854 — the seed's SciPy figure 251.00037027604492 is
5.6e-7 too high, within the seed's stated 1e-5 error. Takes ~40 s."""
import mpmath as mp

mp.mp.dps = 25
b, h1, h2 = mp.mpf(10), mp.mpf(0), mp.mpf(16)


def density(z):
    return mp.exp(-abs(z) / b) / (2 * b)


def sse(z1, z2):
    x, y = h1 + z1, h2 + z2
    s = x + y
    if s <= 0:  # projection onto {x ≥ 0, Σx = s} is 0 when the noisy total is not positive
        e1, e2 = -h1, -h2
    else:
        a = min(max(x, 0), s)
        e1, e2 = a - h1, (s - a) - h2
    return e1 * e1 + e2 * e2


def inner(z1):
    pts = sorted({-mp.inf, mp.inf, mp.mpf(0), -h2, -h1 - h2 - z1})
    return mp.quad(lambda z2: sse(z1, z2) * density(z2), pts)


outer = sorted({-mp.inf, mp.inf, mp.mpf(0), -h1, -h1 - h2, h2 - h1, -h2})
print(mp.nstr(mp.quad(lambda z1: inner(z1) * density(z1), outer), 20))
