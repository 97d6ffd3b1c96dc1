#!/usr/bin/env python3
"""Reference values for tests/core/mechanisms/tst_gaussian_mechanism.cpp (not run by ctest; mpmath only).

1. Analytic Gaussian σ (Balle & Wang 2018, Thm 8): the root in σ of
       Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) = δ,
   solved with mpmath.findroot at 40 digits (the profile is strictly decreasing in σ).
2. Points where the classic σ = Δ√(2 ln(1.25/δ))/ε and the seed σ = Δ√(2 ln(2/δ))/ε are NOT
   (ε, δ)-DP: the exact δ of the profile at that σ exceeds δ (grid scan over ε and δ).
"""
from mpmath import mp, mpf, ncdf, exp, log, sqrt, findroot

mp.dps = 40


def exact_delta(sigma, eps, D=1):
    a = D / (2 * sigma)
    b = eps * sigma / D
    return ncdf(a - b) - exp(eps) * ncdf(-a - b)


def analytic_sigma(eps, delta, D=1):
    eps, delta, D = mpf(eps), mpf(delta), mpf(D)
    f = lambda ls: log(exact_delta(exp(ls), eps, D)) - log(delta)
    return exp(findroot(f, log(D * sqrt(2 * log(mpf(1.25) / delta)) / eps)))


if __name__ == "__main__":
    for eps, delta, D in [(0.1, 1e-5, 1), (0.5, 1e-6, 1), (1, 1e-6, 1), (2, 1e-8, 1), (5, 1e-10, 1),
                          (0.01, 1e-3, 1), (10, 1e-12, 1), (20, 1e-6, 1), (0.05, 0.5, 1),
                          (3, 0.1, 1), (1, 1e-5, 2.5)]:
        s = analytic_sigma(eps, mpf(delta), D)
        print(f"analytic eps={eps} delta={delta} D={D}: sigma = {mp.nstr(s, 20)}")
    for name, c in (("classic", mpf("1.25")), ("seed", mpf(2))):
        for eps in (1, 2, 5, 8, 10):
            for delta in (mpf("1e-5"), mpf("0.01"), mpf("0.5")):
                s = sqrt(2 * log(c / delta)) / eps
                d = exact_delta(s, mpf(eps))
                print(f"{name} eps={eps} delta={mp.nstr(delta, 3)}: sigma = {mp.nstr(s, 12)}, "
                      f"exact delta = {mp.nstr(d, 12)} -> {'NOT DP' if d > delta else 'DP'}")
