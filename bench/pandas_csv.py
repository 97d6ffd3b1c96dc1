#!/usr/bin/env python3
"""Baseline of bench_csv_histogram: pandas.read_csv + numpy.histogram of one column, 32 bins over
a declared range; prints wall time and peak RSS like the C++ benchmark.

    python3 bench/pandas_csv.py FILE.csv [--column income] [--lo 0] [--hi 200000] [--bins 32]
                                         [--usecols 1]
"""
import argparse
import resource
import time

import numpy as np
import pandas as pd


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--column", default="income")
    p.add_argument("--lo", type=float, default=0)
    p.add_argument("--hi", type=float, default=200000)
    p.add_argument("--bins", type=int, default=32)
    p.add_argument("--usecols", type=int, default=0,
                   help="1: read only the binned column (pandas' fastest case)")
    a = p.parse_args()
    t0 = time.perf_counter()
    df = pd.read_csv(a.file, usecols=[a.column] if a.usecols else None)
    counts, _ = np.histogram(df[a.column].to_numpy(), bins=a.bins, range=(a.lo, a.hi))
    wall = time.perf_counter() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"RESULT pandas_csv column={a.column} usecols={a.usecols} rows={len(df)} "
          f"wall_s={wall:.3f} peak_rss_mb={rss_mb:.1f} counted={int(counts.sum())}")


if __name__ == "__main__":
    main()
