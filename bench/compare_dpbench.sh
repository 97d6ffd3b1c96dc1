#!/bin/sh
# Our DPBench algorithms beside the peer implementation (ektelo, through the runners in
# ../shared/peers/dpbench), measured in the same run on the same datasets (issue #20;
# docs/performance.md "Workload algorithms (issue #20)"). Runs `dpx bench` on the DPBench
# histograms of ../shared/data/dpbench (built-in shapes when absent), then — when the peers are
# set up (/usr/bin/python3 with numpy and scipy, ektelo built by ../shared/peers/dpbench/setup.sh)
# — run_1d.py / run_2d.py on the same datasets, scales, ε and algorithms, and prints the
# side-by-side summary of the peers' summarize.py --with. Without the peers it says so and prints
# our summary alone.
#
# Usage: bench/compare_dpbench.sh [BUILD_DIR (build)]
# Environment (defaults in brackets): OUT [a new temporary folder], TRIALS [3], EPS [1.0],
#   M [1000,10000000], DATASETS_1D [PATENT,SEARCHLOGS], N_1D [4096], ALGS_1D [every algorithm both
#   sides have], DATASETS_2D [BEIJING-CABS-E], N_2D [256], ALGS_2D [idem], TIME_LIMIT [300 s per
#   peer run], DIMS ["1 2"]. The peers need about 2 CPU-minutes per 4 096-bin trial (GreedyH,
#   DAWA): keep the grid small.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
dpx="$build/app/dpx"
shared="$root/../shared"
runners="$shared/peers/dpbench"
data="${DPBENCH_DATA:-$shared/data/dpbench}"
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/dpbench-compare.XXXXXX")}
trials=${TRIALS:-3}
eps=${EPS:-1.0}
scales=${M:-1000,10000000}
dims=${DIMS:-1 2}
py=/usr/bin/python3

[ -x "$dpx" ] || { echo "compare_dpbench: no dpx at $dpx (build the dpx target first)" >&2; exit 2; }
mkdir -p "$out"

# DPBench nicknames → files (as the runners' common.py names them).
file_of() {
    case "$1" in
    MEDCOST) echo MEDCOST.n4096.npy ;; NETTRACE) echo NETTRACE.n4096.npy ;;
    PATENT) echo PATENT.n4096.npy ;; SEARCHLOGS) echo SEARCHLOGS.n4096.npy ;;
    BIDS-ALL) echo bids.npy ;; MD-SAL) echo GrossCompenMDSalary1.npy ;;
    LC-REQ-ALL) echo RejectStats_0_4096_no_outliers.npy ;;
    BEIJING-CABS-E) echo BeijingTaxiE_256_256.npy ;; GOWALLA) echo checkin_256_256.npy ;;
    STROKE) echo Stroke_2D_256_256.npy ;; LC-2D) echo Loan_2D_256_256.npy ;;
    *) echo "" ;;
    esac
}

# The peers' algorithm names (run_1d.py / run_2d.py).
peer_algs_1d="Identity,Uniform,H2,HB,Privelet,GreedyH,DAWA,AHP,MWEM"
peer_algs_2d="Identity,Uniform,HB2D,QuadTree,UGrid,AGrid,Privelet2D,DAWA2D,MWEM"

# Our algorithms for a dimension, as a comma list (dpx algorithms --dim D).
our_algs() {
    "$dpx" algorithms --dim "$1" | sed -n 's/^ *"id": "\(.*\)",$/\1/p' | paste -sd, -
}

# The names in both lists, in the order of the first.
common_algs() {
    for a in $(echo "$1" | tr , ' '); do
        case ",$2," in *",$a,"*) printf '%s\n' "$a" ;; esac
    done | paste -sd, -
}

peers_ok=yes
why=""
if ! "$py" -c "import numpy, scipy" 2>/dev/null; then
    peers_ok=no
    why="/usr/bin/python3 lacks numpy/scipy (apt-get line in ../shared/peers/README.md)"
elif ! EKTELO_HOME="${EKTELO_HOME:-${DPX_PEERS:-${TMPDIR:-/tmp}/dpx-peers}/ektelo}" \
    sh -c '[ -d "$EKTELO_HOME/ektelo" ]'; then
    peers_ok=no
    why="ektelo is not built (sh ../shared/peers/dpbench/setup.sh)"
fi
[ -f "$runners/run_1d.py" ] || { peers_ok=no; why="no peer runners at $runners"; }
if [ "$peers_ok" = no ]; then
    echo "compare_dpbench: peers not set up — $why; showing our figures only" >&2
fi

: > "$out/cpp.jsonl"
mkdir -p "$out/peers"
for dim in $dims; do
    if [ "$dim" = 1 ]; then
        sets=${DATASETS_1D:-PATENT,SEARCHLOGS}; n=${N_1D:-4096}; peer_algs=$peer_algs_1d
        ours=$(our_algs 1); wanted=${ALGS_1D:-}
    else
        sets=${DATASETS_2D:-BEIJING-CABS-E}; n=${N_2D:-256}; peer_algs=$peer_algs_2d
        ours=$(our_algs 2); wanted=${ALGS_2D:-}
    fi
    # Every algorithm both sides have (AGrid is ektelo's AGrid_fast plan at 256², same output).
    algs=${wanted:-$(common_algs "$ours" "$peer_algs")}
    [ "$peers_ok" = yes ] || algs=${wanted:-$ours}
    if [ -z "$algs" ]; then
        echo "compare_dpbench: no $dim-D algorithm registered; skipping $dim-D" >&2
        continue
    fi
    files=""
    found=""
    for s in $(echo "$sets" | tr , ' '); do
        f=$(file_of "$s")
        if [ -n "$f" ] && [ -f "$data/$f" ]; then
            files="$files --counts-file $s=$data/$f"
            found="$found,$s"
        fi
    done
    found=${found#,}
    if [ -z "$found" ]; then
        echo "compare_dpbench: no DPBench $dim-D histogram in $data; built-in shapes instead" \
             "(the peers need the real files: skipped)" >&2
        # shellcheck disable=SC2086
        "$dpx" bench --dim "$dim" --datasets step,sparse --n "$n" --m "$scales" --eps "$eps" \
            --algorithms "$algs" --trials "$trials" >> "$out/cpp.jsonl" || true
        continue
    fi
    echo "== $dim-D: datasets $found, n $n, m $scales, eps $eps, algorithms $algs, $trials trials" >&2
    # shellcheck disable=SC2086
    "$dpx" bench $files --datasets "$found" --n "$n" --m "$scales" --eps "$eps" \
        --algorithms "$algs" --workloads range --trials "$trials" >> "$out/cpp.jsonl" || true
    if [ "$peers_ok" = yes ]; then
        peer_list=$(echo "$algs" | sed 's/\bAGrid\b/AGrid_fast/')
        "$py" "$runners/run_${dim}d.py" --datasets "$found" --n "$n" --m "$scales" --eps "$eps" \
            --algs "$peer_list" --workloads range --trials "$trials" \
            --time-limit "${TIME_LIMIT:-300}" --out "$out/peers/dpbench_${dim}d.jsonl" > /dev/null \
            || echo "compare_dpbench: the $dim-D peer run failed (see above)" >&2
        # ektelo's AGrid_fast does AGrid's measurements (peers/README.md): one name on both sides.
        [ -f "$out/peers/dpbench_${dim}d.jsonl" ] &&
            sed -i 's/"algorithm": "AGrid_fast"/"algorithm": "AGrid"/' "$out/peers/dpbench_${dim}d.jsonl"
    fi
done

echo "# results in $out (cpp.jsonl; peers/dpbench_1d.jsonl, peers/dpbench_2d.jsonl)" >&2
if [ "$peers_ok" = yes ] && "$py" -c "import numpy" 2>/dev/null; then
    "$py" "$runners/summarize.py" "$out/peers" --with "$out/cpp.jsonl"
else
    # Our lines alone, as a table (no numpy needed).
    python3 - "$out/cpp.jsonl" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
print("| dim | dataset | n | m | eps | workload | algorithm | L2 ± se | sec_median |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    cell = ("%.2e ± %.0e" % (r["L2"], r["L2_se"])) if r["status"] == "ok" else r["status"]
    sec = ("%.3g" % r["sec_median"]) if r["status"] == "ok" else ""
    print("| %d | %s | %s | %g | %g | %s | %s | %s | %s |" % (
        r["dim"], r["dataset"], r["domain"], r["m"], r["eps"], r["workload"], r["algorithm"],
        cell, sec))
EOF
fi
