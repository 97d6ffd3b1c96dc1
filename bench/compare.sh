#!/usr/bin/env bash
# Runs the C++ benchmarks next to their numpy baselines and prints a table of the performance
# targets (see docs/performance.md). Builds nothing: build the bench targets first, e.g.
#   cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
#   cmake --build build-bench --target bench_monte_carlo bench_noisefirst bench_exact_error bench_count_lp bench_ldp \
#       bench_seed_mechanisms
#   bench/compare.sh build-bench
#
# usage: bench/compare.sh [BUILD_DIR] [--quick] [--only STEP,...]
#   BUILD_DIR  the CMake build directory (default: build-bench next to this repository's bench/)
#   --quick    fewer repetitions, no n = 4096 flat case, no n = 200 / n = 400 LPs, no direct
#              numpy OLH (about 2 min instead of 8)
#   --only     run only these steps: mc, noisefirst, exact, lp, gui, csv, ldp, seed (default: all)
# Environment: PYTHON (interpreter with numpy, and scipy for the lp step; default: the first of
# python3, /usr/bin/python3 that imports them), DPX_BENCH_MC_TRIALS (default 1e7).
#
# Times are measured inside the programs (std::chrono::steady_clock in C++, time.perf_counter in
# Python) and are medians over repetitions; interpreter start-up and input generation are excluded.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=""
quick=0
all_steps=mc,noisefirst,exact,lp,gui,csv,ldp,seed
steps=$all_steps
expect_only=0
for arg in "$@"; do
    if ((expect_only)); then steps=$arg; expect_only=0; continue; fi
    case "$arg" in
        --quick) quick=1 ;;
        --only) expect_only=1 ;;
        --only=*) steps=${arg#--only=} ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
        -*) echo "compare.sh: unknown option $arg" >&2; exit 2 ;;
        *) build=$arg ;;
    esac
done
if ((expect_only)); then echo "compare.sh: --only needs a list of steps ($all_steps)" >&2; exit 2; fi
for step in ${steps//,/ }; do
    if [[ ,$all_steps, != *",$step,"* ]]; then
        echo "compare.sh: unknown step '$step' (steps: $all_steps)" >&2
        exit 2
    fi
done
want() { [[ ,$steps, == *",$1,"* ]]; }  # want STEP: is STEP selected?
build=${build:-$root/build-bench}
bin=$build/bench
needed=()
want mc && needed+=(bench_monte_carlo)
want noisefirst && needed+=(bench_noisefirst)
want exact && needed+=(bench_exact_error)
want lp && needed+=(bench_count_lp)
want ldp && needed+=(bench_ldp)
want seed && needed+=(bench_seed_mechanisms)
for exe in "${needed[@]}"; do
    if [[ ! -x $bin/$exe ]]; then
        echo "compare.sh: $bin/$exe not found; build it first:" >&2
        echo "  cmake --build $build --target ${needed[*]}" >&2
        exit 2
    fi
done

modules=numpy
want lp && modules="numpy, scipy"
python=${PYTHON:-}
if [[ -z $python ]]; then
    for candidate in python3 /usr/bin/python3; do
        if command -v "$candidate" >/dev/null && "$candidate" -c "import $modules" 2>/dev/null; then
            python=$candidate
            break
        fi
    done
fi
if [[ -z $python ]]; then
    echo "compare.sh: no python3 with $modules found (set PYTHON; Debian: python3-numpy, python3-scipy)" >&2
    exit 2
fi

trials=${DPX_BENCH_MC_TRIALS:-1e7}
if ((quick)); then reps=2; np_reps=1; else reps=5; np_reps=3; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=$tmp/log.txt

# field LINE KEY: the value of KEY=value in a RESULT line.
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }
# result TEXT: the first RESULT line of the log containing TEXT (fixed string).
result() { awk -v p="$1" '/^RESULT/ && index($0, p) { print; exit }' "$log"; }
run() {  # run CMD...: echo the command and its output to stderr and the log; failures are reported
    echo "\$ $*" >&2
    "$@" | tee -a "$log" >&2 || echo "compare.sh: exit status $? from: $*" >&2
}

rows=()
# row CASE CPP_SECONDS NUMPY_SECONDS KIND TARGET [NOTE]
#   KIND speedup: TARGET is the minimum speed-up; KIND seconds: TARGET is the maximum C++ time.
row() {
    local name=$1 cpp=$2 np=$3 kind=$4 target=$5 note=${6:-}
    local speed="-" verdict="-" target_text="-"
    if [[ -n $np && $np != "-" ]]; then
        speed=$(awk -v a="$cpp" -v b="$np" 'BEGIN { printf "%.1fx", b / a }')
    fi
    case $kind in
        speedup)
            target_text=">= ${target}x"
            verdict=$(awk -v a="$cpp" -v b="$np" -v t="$target" 'BEGIN { print (b / a >= t) ? "PASS" : "FAIL" }') ;;
        seconds)
            target_text="<= $(awk -v t="$target" 'BEGIN { if (t < 1e-2) printf "%g ms", t * 1e3; else printf "%g s", t }')"
            verdict=$(awk -v a="$cpp" -v t="$target" 'BEGIN { print (a <= t) ? "PASS" : "FAIL" }') ;;
    esac
    rows+=("$name|$(fmt "$cpp")|$(fmt "$np")|$speed|$target_text|$verdict|$note")
}
fmt() {  # seconds → human-readable
    [[ -z $1 || $1 == "-" ]] && { echo "-"; return; }
    awk -v t="$1" 'BEGIN { if (t < 1e-3) printf "%.3g us", t * 1e6; else if (t < 1) printf "%.3g ms", t * 1e3; else printf "%.3g s", t }'
}

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $("$python" -c 'import numpy; print("numpy", numpy.__version__)')" >&2

# 1. Monte Carlo, identity + clamp + resize, H = [0, 16], ε = 0.1.
if want mc; then
run "$bin/bench_monte_carlo" --trials "$trials" --threads 2,1 --reps "$reps"
run "$python" "$here/numpy_monte_carlo.py" --trials "$trials" --reps "$np_reps"
np_mc=$(field "$(result 'case=mc-numpy')" median_s)
mc2=$(field "$(result 'case=mc threads=2')" median_s)
mc1=$(field "$(result 'case=mc threads=1')" median_s)
row "MC $trials trials, 3 estimators, 2 threads" "$mc2" "$np_mc" speedup 8
row "MC $trials trials, 3 estimators, 1 thread" "$mc1" "$np_mc" info - "thread scaling $(awk -v a="$mc1" -v b="$mc2" 'BEGIN { printf "%.2fx", a / b }')"
mcref=$(field "$(result 'case=mc-reference')" median_s)
row "MC same, hand-written 2-bin loop, 1 thread" "$mcref" "$np_mc" info - "not the product: lower bound"
fi

# 2. NoiseFirst over all k.
nf_case() {  # nf_case SHAPE EPSILON N RUN_NUMPY
    local shape=$1 eps=$2 n=$3 with_numpy=$4 input=$tmp/nf-$1-$3.txt id
    run "$bin/bench_noisefirst" --shape "$shape" --epsilon "$eps" --n "$n" --reps "$reps" --budget 30 \
        --write-input "$input"
    id="$shape-n$n-eps$eps"
    local np="-" np_k="" agree
    agree=$(field "$(result "case=noisefirst-agree input=$id ")" agree)
    if ((with_numpy)); then
        run "$python" "$here/numpy_noisefirst.py" --input "$input" --reps "$np_reps"
        local npl
        npl=$(result "case=noisefirst-numpy input=$id ")
        np=$(field "$npl" median_s)
        np_k=$(field "$npl" k)
        local np_sse cpp_sse cpp_k
        np_sse=$(field "$npl" sse)
        cpp_k=$(field "$(result "input=$id algo=penalised")" k)
        cpp_sse=$(field "$(result "input=$id algo=penalised")" sse)
        if [[ $np_k != "$cpp_k" ]] || ! awk -v a="$np_sse" -v b="$cpp_sse" \
            'BEGIN { d = a - b; if (d < 0) d = -d; m = (a < 0 ? -a : a); exit !(d <= 1e-9 * (m > 1 ? m : 1)) }'; then
            agree="no"
        fi
    fi
    local note="k*=$(field "$(result "input=$id algo=penalised")" k), agree=$agree"
    for algo in penalised table allk; do
        local t
        t=$(field "$(result "input=$id algo=$algo ")" median_s)
        if ((n <= 1024)); then
            row "NoiseFirst $algo, $shape n=$n eps=$eps" "$t" "$np" speedup 10 "$note"
        else
            row "NoiseFirst $algo, $shape n=$n eps=$eps" "$t" "$np" seconds 1 "$note"
        fi
    done
}
if want noisefirst; then
nf_case normal 1 1024 1
nf_case flat 0.1 1024 1
nf_case normal 1 4096 0
((quick)) || nf_case flat 0.1 4096 0
fi

# 3. Exact E[SSE] on 2 bins.
if want exact; then
run "$bin/bench_exact_error" --estimators clamp,resize,noisefirst --metrics sse --reps 7
for est in clamp resize noisefirst; do
    line=$(result "case=exact estimator=$est metric=sse")
    us=$(field "$line" per_call_us)
    row "Exact E[SSE] $est, H=[0,16] eps=0.1" "$(awk -v u="$us" 'BEGIN { printf "%.9f", u * 1e-6 }')" "-" \
        seconds 0.001 "value $(field "$line" value)"
done
fi

# 4. Count-query mechanism LPs (WH + CM, uniform weights, ε = 0.5) against SciPy's HiGHS.
#    HiGHS solves the full LP at its default tolerances (what a notebook would do) and, for a
#    same-LP same-tolerance comparison, at CLP's tolerance of 1e-10 and with the same symmetry
#    reduction dpx uses.
if want lp; then
if ((quick)); then lp_n=100; large=0; else lp_n=100,200; large=400; fi
run "$bin/bench_count_lp" --n "$lp_n" --symmetry on,off --large-n "$large" --reps "$reps"
run "$python" "$here/scipy_count_lp.py" --n "$lp_n" --symmetry off
run "$python" "$here/scipy_count_lp.py" --n "$lp_n" --symmetry off,on --tolerance 1e-10 --sweep-points 0
for n in ${lp_n//,/ }; do
    for loss in l0 l1; do
        hd=$(field "$(result "case=highs-single n=$n eps=0.5 loss=$loss symmetry=off tolerance=default")" seconds)
        for sym in on off; do
            l=$(result "case=lp-single n=$n eps=0.5 loss=$loss symmetry=$sym")
            h=$(field "$(result "case=highs-single n=$n eps=0.5 loss=$loss symmetry=$sym tolerance=1e-10")" seconds)
            row "LP n=$n $loss, dpx (symmetry $sym) vs HiGHS" "$(field "$l" seconds)" "$hd" speedup 1.5 \
                "HiGHS same LP at 1e-10: $(fmt "$h"); objective $(field "$l" objective)"
        done
    done
done
hs=$(field "$(result "case=highs-sweep mode=cold")" seconds)
row "LP sweep 20 eps, n=100, warm" "$(field "$(result "case=lp-sweep mode=warm")" seconds)" "$hs" speedup 20 \
    "iterations $(field "$(result "case=lp-sweep mode=warm")" iterations)"
row "LP sweep 20 eps, n=100, dpx cold" "$(field "$(result "case=lp-sweep mode=cold")" seconds)" "$hs" info - \
    "warm vs cold objectives within $(field "$(result "case=lp-sweep mode=cold")" max_objective_difference)"
if ((large)); then
    l=$(result "case=lp-large")
    row "LP n=400 l0 (symmetry on)" "$(field "$l" seconds)" "-" info - "status $(field "$l" status)"
fi
for mech in geometric explicit-fair uniform; do
    row "Closed form $mech, n=1000" "$(field "$(result "case=closed mechanism=$mech")" median_s)" "-" seconds 0.01
done
fi

# 5. GUI redraw latency (issue #4): ε change → all visible plots redrawn, measured in the real
#    window driven offscreen (bench_gui_redraw; built only with the GUI: cmake --build BUILD
#    --target bench_gui_redraw). Skipped when the program is absent. Target: median ≤ 16 ms for
#    the 256-bin scenarios on the Histogram tab with the Monte Carlo passes running behind, as a
#    user sees them (MC background); the other tabs, mc=quiet (long Monte Carlo pass cut to 100
#    trials, every change on idle cores) and 4096 bins (Histogram tab, MC background; not with
#    --quick) are information.
if ! want gui; then
    :
elif [[ -x $bin/bench_gui_redraw ]]; then
    if ((quick)); then
        gui_tabs=histogram; gui_modes=background; gui_big=""
    else
        gui_tabs=histogram,matrix,errors; gui_modes=background,quiet; gui_big="count-4096 laplace-4096"
    fi
    QT_QPA_PLATFORM=offscreen run "$bin/bench_gui_redraw" --scenarios count-256,laplace-256 --changes 40 \
        --tabs "$gui_tabs" --modes "$gui_modes"
    if [[ -n $gui_big ]]; then
        QT_QPA_PLATFORM=offscreen run "$bin/bench_gui_redraw" --scenarios count-4096,laplace-4096 --changes 40 \
            --tabs histogram --modes background
    fi
    gui_cell() {  # gui_cell SCENARIO TAB MODE KIND TARGET
        local l name="GUI $1 $2, MC $3" secs note
        l=$(result "case=gui-redraw scenario=$1 tab=$2 mc=$3 ")
        if [[ -z $l || -z $(field "$l" median_ms) ]]; then
            row "$name" "-" "-" info - "NO RESULT (see the log)"
            return
        fi
        secs=$(awk -v m="$(field "$l" median_ms)" 'BEGIN { printf "%.6f", m / 1e3 }')
        note="p90 $(field "$l" p90_ms) ms; worker $(field "$l" worker_ms) (p90 $(field "$l" worker_p90_ms)), GUI $(field "$l" gui_ms), queued+paint $(field "$l" paint_ms) ms; hist replot $(field "$l" replot_ms_hist) ms"
        row "$name" "$secs" "-" "$4" "$5" "$note"
    }
    for sc in count-256 laplace-256 $gui_big; do
        refused=$(result "case=gui-redraw scenario=$sc refused=")
        if [[ -n $refused ]]; then
            row "GUI $sc" "-" "-" info - "refused: $(sed 's/.*refused="\([^"]*\)".*/\1/' <<<"$refused")"
            continue
        fi
        if [[ $sc == *-4096 ]]; then
            gui_cell "$sc" histogram background info -
            continue
        fi
        for mode in ${gui_modes//,/ }; do
            for tab in ${gui_tabs//,/ }; do
                if [[ $tab == histogram && $mode == background ]]; then
                    gui_cell "$sc" "$tab" "$mode" seconds 0.016
                else
                    gui_cell "$sc" "$tab" "$mode" info -
                fi
            done
        done
    done
else
    echo "compare.sh: $bin/bench_gui_redraw not found (GUI not built?): skipping the GUI redraw step" >&2
fi

# 6. CSV (issue #5): parse + 32-bin histogram of one column of a generated 10⁷-row × 4-column file
#    (~200 MB, in the temporary directory, deleted at exit), against pandas.read_csv +
#    numpy.histogram (the issue's baseline) and pandas reading only that column. Skipped without
#    pandas (Debian python3-pandas) or bench_csv_histogram. --quick: 10⁶ rows, information only.
if ! want csv; then
    :
elif [[ -x $bin/bench_csv_histogram ]] && "$python" -c 'import pandas' 2>/dev/null; then
    if ((quick)); then csv_rows=1000000; else csv_rows=10000000; fi
    csv=$tmp/bench.csv
    "$python" "$here/make_csv.py" "$csv" --rows "$csv_rows" >&2
    run "$bin/bench_csv_histogram" --file "$csv" --threads 1 --reps "$reps"
    run "$bin/bench_csv_histogram" --file "$csv" --threads 0 --reps "$reps"
    run "$python" "$here/pandas_csv.py" "$csv"
    run "$python" "$here/pandas_csv.py" "$csv" --usecols 1
    pd_all=$(result 'pandas_csv column=income usecols=0')
    pd_col=$(result 'pandas_csv column=income usecols=1')
    for t in 0 1; do
        l=$(result "bench_csv_histogram column=income threads=$t ")
        name="CSV $csv_rows rows, $([[ $t == 1 ]] && echo "1 thread" || echo "all threads")"
        note="peak $(field "$l" peak_rss_mb) MB vs pandas $(field "$pd_all" peak_rss_mb) MB; vs pandas usecols $(field "$pd_col" wall_s) s: $(awk -v a="$(field "$l" wall_s_median)" -v b="$(field "$pd_col" wall_s)" 'BEGIN { printf "%.1fx", b / a }')"
        if ((quick)) || [[ $t == 1 ]]; then
            row "$name" "$(field "$l" wall_s_median)" "$(field "$pd_all" wall_s)" info - "$note"
        else
            row "$name" "$(field "$l" wall_s_median)" "$(field "$pd_all" wall_s)" speedup 3 "$note"
        fi
    done
else
    echo "compare.sh: bench_csv_histogram or python pandas missing: skipping the CSV step" >&2
fi

# 7. Local DP (issue #7): the OUE aggregate simulator at N = 2^24 users, D = 2^10 (target ≤ 1 s),
#    and per-user OLH at N = 10^6, D = 1024, ε = ln 3 (g = 4) on 1 and 2 threads against the
#    vectorised numpy implementation of the same hash family and support counting
#    (bench/numpy_olh.py, target ≥ 5× on 2 threads). The numpy "split" formulation at its best
#    chunk size is the baseline; the "direct" one (the obvious vectorisation) is information.
if want ldp; then
    run "$bin/bench_ldp" --reps "$reps"
    run "$python" "$here/numpy_olh.py" --reps "$np_reps" --method split
    ((quick)) || run "$python" "$here/numpy_olh.py" --reps 1 --method direct
    np_olh=$(field "$(result 'case=numpy-olh-per-user method=split')" median_s)
    olh2=$(field "$(result 'case=olh-per-user users=1000000 domain=1024 threads=2')" median_s)
    olh1=$(field "$(result 'case=olh-per-user users=1000000 domain=1024 threads=1')" median_s)
    row "LDP OUE aggregate, N=2^24, D=2^10" \
        "$(field "$(result 'case=oue-aggregate')" median_s)" "-" seconds 1
    row "LDP OLH per-user, N=1e6, D=1024, 2 threads" "$olh2" "$np_olh" speedup 5
    row "LDP OLH per-user, same, 1 thread" "$olh1" "$np_olh" info - \
        "thread scaling $(awk -v a="$olh1" -v b="$olh2" 'BEGIN { printf "%.2fx", a / b }')"
    if ((!quick)); then
        row "LDP OLH numpy direct formulation (info)" "$olh2" \
            "$(field "$(result 'case=numpy-olh-per-user method=direct')" median_s)" info - \
            "the obvious vectorisation, not the baseline"
    fi
fi

# 8. The More mechanisms pages (issue #9, no target): the functional KDE release for n = 10^6 on
#    2000 grid points (true KDE, kernel factor, 5 releases) against the notebook way in numpy
#    (bench/numpy_kde.py: broadcast KDE, eigh of K), and the NLTCS-like sparse Monte Carlo.
if want seed; then
    run "$bin/bench_seed_mechanisms" --reps "$reps"
    run "$python" "$here/numpy_kde.py" --reps 1
    row "Functional KDE release, n=1e6, m=2000, h=0.02" \
        "$(field "$(result 'kde_release')" median_s)" "$(field "$(result 'numpy_kde')" median_s)" \
        info - "factor rank $(field "$(result 'kde_release')" rank)"
    row "Sparse MC, 65 536 cells, 1000 trials" "$(field "$(result 'sparse_mc')" median_s)" "-" info -
fi

echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $load_start (start) / $(cut -d' ' -f1-3 /proc/loadavg) (end)"
printf '%s\n' "${rows[@]}" | awk -F'|' '
    BEGIN { printf "%-44s %10s %10s %9s %10s %6s  %s\n", "case", "C++", "Python", "speed-up", "target", "result", "note"
            printf "%-44s %10s %10s %9s %10s %6s  %s\n", "----", "---", "-----", "--------", "------", "------", "----" }
    { printf "%-44s %10s %10s %9s %10s %6s  %s\n", $1, $2, $3, $4, $5, $6, $7 }'
