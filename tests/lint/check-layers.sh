#!/usr/bin/env bash
# The layering rules of docs/architecture.md, checked on the includes (issue #18). Run by ctest
# (test "layering", label lint). Each rule: files under a folder must not include a pattern.
# usage: check-layers.sh <source dir>
set -uo pipefail
src="${1:?usage: check-layers.sh <source dir>}"
cd "$src" || exit 2
status=0
# forbid <folder> <extended regex on the include line> <why>
forbid() {
    local folder="$1" pattern="$2" why="$3" hits
    hits="$(grep -rnE --include='*.h' --include='*.cpp' "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($pattern)" "$folder" 2>/dev/null)"
    if [ -n "$hits" ]; then
        echo "== $folder must not include $pattern: $why"
        echo "$hits"
        status=1
    fi
}
forbid core   'Q[A-Za-z]|qt|io/|ui/|app/'         'core links no Qt and nothing above it'
forbid io     'ui/|app/|Q(Widget|Application|Dialog)' 'io is Qt Core + Sql only, below ui and app'
# Qt Gui (fonts, painting, PDF) only in io/report (target dpx_report, the decision report): dpx_io
# stays Qt Core + Sql, so the data sources and the release path never need a GUI module.
for d in io/sources io/release; do
    forbid "$d" 'QtGui|QtSvg|Q(Painter|PdfWriter|TextDocument|Font|GuiApplication|Image|Pixmap|Svg)' \
        'dpx_io is Qt Core + Sql; only io/report (dpx_report) links Qt Gui'
done
forbid ui     'app/'                               'ui is below app'
forbid app/cli 'ui/|QWidget|QApplication'          'dpx runs without a display'
# The release path never sees the simulation RNG or anything that samples with it.
forbid core/release 'core/(base/(simulation_rng|random_variates|trial_blocks)|mechanisms/|ldp/|accuracy/|choosing/|audit/)' \
       'release code uses exact samplers on OS randomness only (dpx_release links dpx_deterministic only)'
# A release through a designed strategy is in dpx_core (the strategies live there) but draws
# randomness only through ReleaseRandomness.
for p in core/matrix_mechanism/strategy_release.h core/matrix_mechanism/strategy_release.cpp \
         core/matrix_mechanism/integer_strategy.h core/matrix_mechanism/integer_strategy.cpp; do
    [ -e "$p" ] && forbid "$p" 'core/base/(simulation_rng|random_variates|trial_blocks)' \
        'a release draws randomness from the OS CSPRNG only (ReleaseRandomness)'
done
# What draws no random numbers stays free of the simulation RNG (dpx_deterministic).
for f in core/base/validation core/histogram/histogram core/histogram/dataset \
         core/estimators core/count/count_mechanism core/count/count_lp \
         core/count/lp_objective core/count/count_mechanism_io; do
    for p in "$f" "$f".h "$f".cpp; do
        [ -e "$p" ] && forbid "$p" 'core/base/(simulation_rng|random_variates|trial_blocks)|core/(mechanisms|ldp|accuracy|choosing|audit)/' \
            'part of dpx_deterministic, which draws no random numbers'
    done
done
[ "$status" -eq 0 ] && echo "layering: every include respects docs/architecture.md"
exit "$status"
