#!/usr/bin/env bash
# Builds the libFuzzer target of the CSV reader with clang (ASan + UBSan) and fuzzes it.
#   tests/fuzz/run-fuzz.sh [SECONDS]      (default 60)
# Environment: FUZZ_BUILD_DIR (default: build-fuzz), JOBS (default: nproc),
#              FUZZ_SEED (libFuzzer -seed, default: random), FUZZ_WORKERS (parallel jobs, default 1),
#              FUZZ_ARGS (more libFuzzer options, e.g. -len_control=0).
# The seed corpus (tests/fuzz/corpus/csv) and the regression inputs (tests/fuzz/regressions) are
# copied into FUZZ_BUILD_DIR/fuzz-corpus, which the fuzzer grows (and later runs resume from);
# new corpus entries are never written into the repository.
# Exits non-zero when the fuzzer finds a crash or a failed invariant, and prints the reproducer.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"
seconds="${1:-60}"
build_dir="${FUZZ_BUILD_DIR:-build-fuzz}"
jobs="${JOBS:-$(nproc)}"

for tool in clang clang++; do
    command -v "$tool" >/dev/null || { echo "run-fuzz: $tool not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
done

echo "== fuzz: configuring $build_dir (clang, libFuzzer, ASan + UBSan)"
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDPX_FUZZ=ON -DDPX_BUILD_GUI=OFF -DDPX_BUILD_TESTS=OFF -DDPX_BUILD_BENCH=OFF >/dev/null
cmake --build "$build_dir" -j "$jobs" --target fuzz_csv_reader

corpus="$build_dir/fuzz-corpus"
work="$(mktemp -d "${TMPDIR:-/tmp}/dpx-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$corpus" "$work/artifacts"
cp tests/fuzz/corpus/csv/* "$corpus/"
if compgen -G "tests/fuzz/regressions/*" >/dev/null; then
    cp tests/fuzz/regressions/* "$corpus/"
fi

args=(-max_len=4096 -timeout=10 -rss_limit_mb=2048 -max_total_time="$seconds"
      -dict=tests/fuzz/csv.dict -artifact_prefix="$work/artifacts/" -print_final_stats=1)
[ -n "${FUZZ_SEED:-}" ] && args+=(-seed="$FUZZ_SEED")
if [ "${FUZZ_WORKERS:-1}" -gt 1 ]; then
    args+=(-fork="$FUZZ_WORKERS" -ignore_crashes=0)
fi
# shellcheck disable=SC2206
[ -n "${FUZZ_ARGS:-}" ] && args+=(${FUZZ_ARGS})
echo "== fuzz: fuzz_csv_reader for ${seconds} s on $(find "$corpus" -type f | wc -l) inputs ($corpus)"
status=0
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}" \
UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
    "$build_dir/tests/fuzz/fuzz_csv_reader" "${args[@]}" "$corpus" >"$work/log" 2>&1 || status=$?
if [ "$status" -ne 0 ] || compgen -G "$work/artifacts/*" >/dev/null; then
    tail -n 80 "$work/log"
    keep="$(cd "$build_dir" && pwd)/fuzz-artifacts"
    mkdir -p "$keep"
    echo "== fuzz: FAILED (exit $status). Reproducers:"
    for f in "$work"/artifacts/*; do
        [ -e "$f" ] || continue
        cp "$f" "$keep/"
        echo "   $keep/$(basename "$f")"
        echo "   replay: $build_dir/tests/fuzz/fuzz_csv_reader $keep/$(basename "$f")"
    done
    echo "   (add each one to tests/fuzz/regressions/: tst_csv_reader replays them)"
    exit 1
fi
grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$work/log" || true
echo "== fuzz: no crash and no failed invariant in ${seconds} s"
