"""Reference δ of the discrete Gaussian for tst_exact_samplers (deltaLargeSigmaAgainstMpmath).

CKS 2020 Thm 7: δ = Σ_{y > a} Pr[Y = y]·(1 − e^(ε − L(y))), Y ~ N_Z(0, σ²), a = εσ²/Δ − Δ/2,
L(y) = (2yΔ + Δ²)/(2σ²). Summed directly at 45 digits from ⌊a⌋ + 1 with f(y) = e^(−y²/(2σ²)) and
e^(ε − L(y)) by their exact ratios (re-anchored with exp every 2·10^6 terms) until f falls below
1e-42 of the sum; the normaliser by Poisson summation, σ√(2π)·(1 + 2Σ_k e^(−2π²σ²k²)).
Independent of the library's Euler–Maclaurin evaluation. Usage: python3 discrete_gaussian_delta.py
SIGMA2,DELTA,EPS ... (up to 1.4·10^7 terms, a few minutes, at σ² = 10^12).
"""
import sys
from mpmath import mp, mpf, exp, sqrt, pi, floor
mp.dps = 45
def delta(s2, D, eps):
    s2 = mpf(s2); eps = mpf(eps); D = mpf(D)
    a = eps*s2/D - D/2
    y0 = int(floor(a)) + 1
    # f(y) = exp(-y^2/(2 s2)); ratio f(y+1)/f(y) = exp(-(2y+1)/(2 s2)); q = exp(-1/s2)
    y = mpf(y0)
    f = exp(-y*y/(2*s2))
    r = exp(-(2*y+1)/(2*s2))
    q = exp(-1/s2)
    g = exp(eps - (2*y*D + D*D)/(2*s2))   # e^{eps - L(y)}
    gq = exp(-D/s2)
    S = mpf(0)
    n = 0
    while True:
        S += f*(1-g)
        f *= r; r *= q; g *= gq
        n += 1
        if f < S*mpf(10)**-42 and y0 + n > 0:
            break
        if n % 2000000 == 0:
            # re-anchor to bound drift
            yy = mpf(y0+n)
            f = exp(-yy*yy/(2*s2)); r = exp(-(2*yy+1)/(2*s2)); g = exp(eps - (2*yy*D + D*D)/(2*s2))
    theta = 1 + 2*sum(exp(-2*pi**2*s2*k*k) for k in range(1, 4))
    Z = sqrt(2*pi*s2)*theta
    return S/Z, n
for line in sys.argv[1:]:
    s2, D, eps = line.split(',')
    d, n = delta(s2, int(D), eps)
    print(f'{s2} {D} {eps} {mp.nstr(d, 25)} terms={n}', flush=True)
