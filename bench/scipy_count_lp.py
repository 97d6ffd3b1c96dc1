#!/usr/bin/env python3
"""SciPy/HiGHS baseline for bench_count_lp: the count-mechanism LP of core/count/count_lp.cpp, solved
with scipy.optimize.linprog(method="highs").

Variables P[i][j] (row-major, k = i*m + j, m = n + 1), minimise sum_j w_j sum_i c(i,j) P[i][j]
with uniform w and c = [i != j] (l0) or |i - j| (l1), subject to: every column sums to 1; for each
row i and adjacent columns, P[i][j] >= alpha P[i][j+1] and P[i][j+1] >= alpha P[i][j]
(alpha = e^-eps); column monotonicity (CM): P[i][j] >= P[i-1][j] for 1 <= i <= j and
P[i][j] >= P[i+1][j] for j <= i < n; weak honesty (WH) as the bound P[i][i] >= 1/m; 0 <= P <= 1.
With --symmetry on, a cell and its mirror (n-i, n-j) share one variable and duplicate rows are
dropped, exactly as the C++ formulation does. The constraint matrix is built with numpy in one
go; only the linprog call is timed (time.perf_counter). Every figure is a RESULT line.
"""
import argparse
import time

import numpy as np
import scipy
import scipy.sparse as sp
from scipy.optimize import linprog


def build(n, eps, loss, symmetry):
    m = n + 1
    alpha = np.exp(-eps)
    cells = m * m
    k = np.arange(cells)
    var_of = np.minimum(k, cells - 1 - k) if symmetry else k
    nvars = (cells + 1) // 2 if symmetry else cells

    rows = []  # (first cell, second cell, coefficient of the second) for x_p - b x_q >= 0
    I, J = np.divmod(k, m)
    left = k[J < n]  # ratio rows in both directions
    rows.append((left, left + 1, np.full(left.size, alpha)))
    rows.append((left + 1, left, np.full(left.size, alpha)))
    up = k[(I >= 1) & (I <= J)]  # CM above the diagonal: P[i][j] >= P[i-1][j]
    rows.append((up, up - m, np.ones(up.size)))
    down = k[(I >= J) & (I < n)]  # CM below: P[i][j] >= P[i+1][j]
    rows.append((down, down + m, np.ones(down.size)))
    p = var_of[np.concatenate([r[0] for r in rows])]
    q = var_of[np.concatenate([r[1] for r in rows])]
    b = np.concatenate([r[2] for r in rows])
    if symmetry:  # a row and its mirror become the same row: keep one
        keyed = np.unique(np.stack([p, q, b]), axis=1)
        p, q, b = keyed[0].astype(np.int64), keyed[1].astype(np.int64), keyed[2]
    nrows = p.size
    r = np.arange(nrows)
    a_ub = sp.csr_matrix(
        (np.concatenate([-np.ones(nrows), b]), (np.concatenate([r, r]), np.concatenate([p, q]))),
        shape=(nrows, nvars))
    cols = np.arange(m) if not symmetry else np.arange((m + 1) // 2)  # column j and n-j coincide
    eq_r = np.repeat(np.arange(cols.size), m)
    eq_c = var_of[(np.arange(m)[None, :] * m + cols[:, None]).ravel()]
    a_eq = sp.csr_matrix((np.ones(eq_r.size), (eq_r, eq_c)), shape=(cols.size, nvars))
    a_eq.sum_duplicates()
    cost = ((np.abs(I - J) if loss == "l1" else (I != J)).astype(float)) / m
    c = np.bincount(var_of, weights=cost, minlength=nvars)
    lo = np.zeros(nvars)
    lo[var_of[k[I == J]]] = 1.0 / m
    bounds = np.stack([lo, np.ones(nvars)], axis=1)
    return c, a_ub, np.zeros(nrows), a_eq, np.ones(cols.size), bounds


def solve(n, eps, loss, symmetry, tolerance):
    c, a_ub, b_ub, a_eq, b_eq, bounds = build(n, eps, loss, symmetry)
    options = {} if tolerance is None else {"primal_feasibility_tolerance": tolerance}
    start = time.perf_counter()
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs",
                  options=options)
    seconds = time.perf_counter() - start
    return res, seconds, a_ub.shape[0] + a_eq.shape[0], a_ub.shape[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", default="100,200")
    ap.add_argument("--loss", default="l0,l1")
    ap.add_argument("--epsilon", type=float, default=0.5)
    ap.add_argument("--symmetry", default="off", help="comma list of on/off")
    ap.add_argument("--tolerance", type=float, default=None,
                    help="HiGHS primal_feasibility_tolerance (default: HiGHS's 1e-7)")
    ap.add_argument("--sweep-n", type=int, default=100)
    ap.add_argument("--sweep-from", type=float, default=0.1)
    ap.add_argument("--sweep-step", type=float, default=0.1)
    ap.add_argument("--sweep-points", type=int, default=20)
    args = ap.parse_args()
    tol = "default" if args.tolerance is None else f"{args.tolerance:g}"
    print(f"# scipy {scipy.__version__}, linprog(method='highs'), primal tolerance {tol}")
    for sym in args.symmetry.split(","):
        for n in (int(v) for v in args.n.split(",") if v):
            for loss in args.loss.split(","):
                res, t, rows, cols = solve(n, args.epsilon, loss, sym == "on", args.tolerance)
                print(f"RESULT case=highs-single n={n} eps={args.epsilon:g} loss={loss} "
                      f"symmetry={sym} tolerance={tol} status={res.status} seconds={t:.4f} "
                      f"rows={rows} columns={cols} objective={res.fun:.10f}", flush=True)
    if args.sweep_points > 0:
        total = 0.0
        for k in range(args.sweep_points):
            eps = args.sweep_from + k * args.sweep_step
            res, t, _, _ = solve(args.sweep_n, eps, "l0", False, args.tolerance)
            total += t
            print(f"# sweep eps={eps:.3f} status={res.status} objective={res.fun:.10f} "
                  f"seconds={t:.4f}", flush=True)
        print(f"RESULT case=highs-sweep mode=cold n={args.sweep_n} points={args.sweep_points} "
              f"tolerance={tol} seconds={total:.4f}")


if __name__ == "__main__":
    main()
