#!/usr/bin/env bash
# DP Explorer developer entry point: installs missing Debian 12 packages (apt-get update once, then
# apt-get install -y), configures and builds, then either launches the GUI or runs the test suite.
#   packaging/dev.sh run    build and launch dpexplorer on the built-in example dataset
#   packaging/dev.sh test   build and run the whole test suite through ctest
# Environment: BUILD_DIR (default: build), BUILD_TYPE (default: RelWithDebInfo),
#              JOBS (default: nproc), DPX_CMAKE_ARGS (extra cmake arguments),
#              DPX_FUZZ_SECONDS (test: after ctest, fuzz the CSV reader for that many seconds with
#              tests/fuzz/run-fuzz.sh; default 60 when CI=true, else skipped; 0 skips it).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mode="${1:-}"
case "$mode" in
    run|test|build) ;;
    *) echo "usage: $0 run|test|build" >&2; exit 2 ;;
esac

# Debian packages the build and the tests need (one per line in packaging/debian-packages.txt).
mapfile -t packages < <(grep -v '^\s*#' packaging/debian-packages.txt | sed '/^\s*$/d')
if [ "$mode" = run ] && [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    packages+=(xvfb xauth)  # no display: run the GUI under a virtual X server
fi

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "== installing missing Debian packages: ${missing[*]}"
    sudo_cmd=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "need root or sudo to install: ${missing[*]}" >&2; exit 1; }
        sudo_cmd=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get update
    "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

build_dir="${BUILD_DIR:-build}"
jobs="${JOBS:-$(nproc)}"
# shellcheck disable=SC2086
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
      -DDPX_WERROR=ON ${DPX_CMAKE_ARGS:-}
cmake --build "$build_dir" -j "$jobs"

case "$mode" in
    build) ;;
    run)
        exe="$build_dir/app/dpexplorer"
        args=(--example two-bins)
        # DPX_SCREENSHOT=file.png: save the window once computed, then quit (for docs and checks).
        [ -n "${DPX_SCREENSHOT:-}" ] && args+=(--screenshot "$DPX_SCREENSHOT")
        if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
            exec "$exe" "${args[@]}"
        fi
        echo "== no display found: starting dpexplorer under Xvfb (DPX_SCREENSHOT=file.png saves the window)"
        exec xvfb-run -a -s "-screen 0 1600x1000x24" "$exe" "${args[@]}"
        ;;
    test)
        export QT_QPA_PLATFORM=offscreen
        fuzz_seconds="${DPX_FUZZ_SECONDS:-}"
        if [ -z "$fuzz_seconds" ]; then
            fuzz_seconds=0
            [ "${CI:-}" = true ] && fuzz_seconds=60
        fi
        if [ "$fuzz_seconds" = 0 ]; then
            echo "== fuzz: CSV reader fuzz run skipped (runs when CI=true; DPX_FUZZ_SECONDS=N runs it for N s)"
            cd "$build_dir"
            exec ctest --output-on-failure -j "$jobs" --timeout 900
        fi
        # ctest, then the short fuzz run (clang build in build-fuzz/, tests/fuzz/run-fuzz.sh);
        # the ctest summary is repeated at the end so the fuzz log does not bury it.
        ctest_log="$(mktemp)"
        trap 'rm -f "$ctest_log"' EXIT
        ctest_status=0
        (cd "$build_dir" && ctest --output-on-failure -j "$jobs" --timeout 900) 2>&1 |
            tee "$ctest_log" || ctest_status=$?
        fuzz_status=0
        JOBS="$jobs" bash tests/fuzz/run-fuzz.sh "$fuzz_seconds" || fuzz_status=$?
        echo "== ctest: $(grep -E 'tests passed|tests failed' "$ctest_log" | tail -n 1)"
        if [ "$fuzz_status" -eq 0 ]; then
            echo "== fuzz: passed (${fuzz_seconds} s)"
        else
            echo "== fuzz: FAILED (see the reproducers above)"
        fi
        if [ "$ctest_status" -ne 0 ] || [ "$fuzz_status" -ne 0 ]; then
            exit 1
        fi
        ;;
esac
