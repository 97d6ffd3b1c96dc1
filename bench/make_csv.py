#!/usr/bin/env python3
"""Writes the CSV of the CSV-histogram benchmark (issue #5): ROWS rows × 4 columns
(int age, float income, string state, int zip), seeded, about 200 MB for 10M rows.

    python3 bench/make_csv.py OUT.csv [--rows 10000000] [--seed 5]

The file is generated data for benchmarks only; never commit it.
"""
import argparse

import numpy as np

STATES = ["AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN",
          "IA", "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV",
          "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN",
          "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--seed", type=int, default=5)
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    states = np.array(STATES)
    chunk = 1_000_000
    with open(a.out, "w", newline="") as f:
        f.write("age,income,state,zip\n")
        done = 0
        while done < a.rows:
            n = min(chunk, a.rows - done)
            age = rng.integers(0, 100, n)
            income = np.round(rng.lognormal(10.5, 0.8, n), 2)
            state = states[rng.integers(0, len(STATES), n)]
            zipc = rng.integers(10000, 99999, n)
            lines = [f"{x},{y:.2f},{s},{z}\n" for x, y, s, z in
                     zip(age.tolist(), income.tolist(), state.tolist(), zipc.tolist())]
            f.write("".join(lines))
            done += n


if __name__ == "__main__":
    main()
