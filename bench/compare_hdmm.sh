#!/bin/sh
# Our matrix-mechanism strategy design (bench_hdmm) beside HDMM's reference code (McKenna et al.
# 2018, through ../shared/peers/dpbench/run_hdmm.py), the same tasks and seeds in the same run
# (issue #23; docs/performance.md "Matrix mechanism (issue #23)"). One random start per seed on
# both sides (HDMM's optimize() runs one L-BFGS-B from its seed); RMSE at HDMM's default ε = √2.
# Without the peer (no /usr/bin/python3 with numpy/scipy, or no ../shared/peers/hdmm) it says so
# and prints our figures alone.
#
# Usage: bench/compare_hdmm.sh [BUILD_DIR (build)]
# Environment: TASKS [allrange256,allrange2d_256,prefix1024,allrange1024; also marginals8,
#   marginals16, range2d_256], SEEDS [0,1,2],
#   TIME_LIMIT [600 s per peer run].
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
bench="$build/bench/bench_hdmm"
runner="$root/../shared/peers/dpbench/run_hdmm.py"
tasks=${TASKS:-allrange256,allrange2d_256,prefix1024,allrange1024}
seeds=${SEEDS:-0,1,2}
py=/usr/bin/python3

[ -x "$bench" ] || { echo "compare_hdmm: no $bench (build the bench_hdmm target)" >&2; exit 2; }
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# DP Explorer (one start per seed)"
"$bench" --tasks "$tasks" --seeds "$seeds" --restarts 1
if [ -f "$runner" ] && "$py" -c 'import numpy, scipy' 2>/dev/null; then
    echo "# HDMM reference code (run_hdmm.py)"
    # run_hdmm.py knows the p-Identity tasks; HDMM's marginals template runs through our driver
    # (8 binary attributes: its O(4^d) evaluation makes 16 impractical).
    peer_tasks=$(echo "$tasks" | tr ',' '\n' | grep -v '^marginals' | grep -v '^range2d' | paste -sd, -)
    [ -z "$peer_tasks" ] || "$py" "$runner" --tasks "$peer_tasks" --seeds "$seeds" --time-limit "${TIME_LIMIT:-600}"
    if echo "$tasks" | grep -q marginals8; then
        timeout "${TIME_LIMIT:-600}" "$py" "$root/bench/hdmm_marginals_peer.py" "$root/../shared/peers" \
            2x2x2x2x2x2x2x2 "$seeds" 2>/dev/null
    fi
else
    echo "# HDMM peer not available (needs $runner and /usr/bin/python3 with numpy and scipy): skipped"
fi
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg)"
