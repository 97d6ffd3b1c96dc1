#!/usr/bin/python3
# HDMM's marginals template (McKenna et al. 2018; ../shared/peers/hdmm, templates.Marginals) on
# all 2-way marginals of a table, one L-BFGS-B start per seed, as bench_hdmm's "marginalsN" tasks
# measure ours. Prints one RESULT line per seed: RMSE at HDMM's default ε = √2 (error.rootmse)
# and the CPU seconds of optimize(). Run by bench/compare_hdmm.sh when the peer is present.
# Usage: hdmm_marginals_peer.py PEERS_DIR DOMAIN (e.g. 2x2x2x2x2x2x2x2) SEEDS (e.g. 0,1,2)
import os
import sys
import time

peers, domain_text, seeds = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(peers, "hdmm", "src"))
from hdmm import error, templates, workload  # noqa: E402

domain = tuple(int(x) for x in domain_text.split("x"))
W = workload.DimKMarginals(domain, 2)
for seed in (int(s) for s in seeds.split(",")):
    start = time.process_time()
    template = templates.Marginals(domain, seed=seed)
    template.optimize(W)
    cpu = time.process_time() - start
    rmse = error.rootmse(W, template.strategy())
    print(f"RESULT peer=hdmm task=marginals domain={domain_text} seed={seed} "
          f"rmse={rmse:.4f} cpu_seconds={cpu:.4f}", flush=True)
