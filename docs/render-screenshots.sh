#!/usr/bin/env bash
# Renders the screenshots of the user guide and the README with the app itself (offscreen), so
# they always show the current version:  docs/render-screenshots.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
app=${1:-$here/../build}/app/dpexplorer
[[ -x $app ]] || { echo "render-screenshots.sh: $app not found; build first" >&2; exit 2; }
out=$here/images
export QT_QPA_PLATFORM=offscreen
shot() {  # shot NAME ARGS...
    local name=$1
    shift
    "$app" "$@" --screenshot "$out/$name.png"
    echo "$out/$name.png"
}
shot window-histogram --example telemetry --mechanism laplace --epsilon 1 --tab histogram
shot window-histogram-eps001 --example telemetry --mechanism laplace --epsilon 0.01 --tab histogram
shot window-errors --example two-bins --mechanism laplace --epsilon 0.1 --tab errors
shot window-matrix-lp --example edwards-like --mechanism count-optimal --epsilon 0.5 --tab matrix
shot window-matrix-dark --example two-bins --mechanism count-geometric --epsilon 0.2 --tab matrix --dark
# The walk-through of choosing-epsilon.md: one session file per picture (docs/sessions/).
for s in histogram tradeoff population risk budget proxy; do
    shot "choosing-$s" --session "$here/sessions/choosing-$s.json"
done
# The local-DP page (local-dp.md): protocol in the window, report matrix, trade-off, the telemetry
# experiment.
for s in histogram matrix tradeoff experiment ranges marginals means; do
    shot "local-$s" --session "$here/sessions/local-$s.json"
done
# Sparse histograms (mechanisms/sparse-histogram.md): the page on the NLTCS-like table at ε = 1
# (Hall 2012's 1,000 trials) and the sparse row in the trade-off tab.
shot sparse-page --example nltcs-like --epsilon 1 --tab sparse
shot sparse-tradeoff --session "$here/sessions/sparse-tradeoff.json"
# Random DP (mechanisms/random-dp.md): the telemetry hours on [0, 48] h (half the table empty) at
# ε = 1, and the default histogram at ε = 0.01 in the dark theme.
shot random-dp-page --session "$here/sessions/random-dp-sparse.json"
shot random-dp-page-eps001 --example telemetry --epsilon 0.01 --tab rdp --dark
# Selection (mechanisms/exponential-mechanism.md): the telemetry mode at ε = 0.01, and the
# Edwards-like table at ε = 1 in the dark theme.
shot select-page-eps001 --example telemetry --epsilon 0.01 --tab select
shot select-page-edwards --example edwards-like --epsilon 1 --tab select --dark
# Vector means (mechanisms/vector-mean.md): the page at ε = 1, and at ε = 0.01 in the dark theme.
for s in vector-mean vector-mean-eps001; do
    shot "$s" --session "$here/sessions/$s.json"
done
# Functional KDE (mechanisms/functional-kde.md): the page on the telemetry hours at ε = 1, and at
# ε = 0.01 in the dark theme.
shot kde-page --example telemetry --epsilon 1 --tab kde
shot kde-page-eps001 --example telemetry --epsilon 0.01 --tab kde --dark
# The Workbench tab (workbench.md): the DPBench algorithms on the sparse Edwards-like table.
shot workbench-tab --example edwards-like --tab workbench
# Lessons (user-guide.md § Teaching with DP Explorer): single steps at 1024 × 768 from the slide
# export (which draws at the size asked whatever the screen), the last in presentation mode.
lesson() {  # lesson NAME STEP FILE ARGS...
    local name=$1 step=$2 file=$3 tmp
    shift 3
    tmp=$(mktemp -d)
    "$app" --lesson "$name" --size 1024x768 --slides "$tmp/s.pdf" "$@" > /dev/null
    cp "$tmp/s-step$step.png" "$out/$file.png"
    rm -rf "$tmp"
    echo "$out/$file.png"
}
lesson randomized-response 4 lesson-randomized-response
lesson differencing 2 lesson-differencing --dark
lesson membership 4 lesson-membership-present --present
# The release dialog (user-guide.md § Releasing a histogram): a first release at ε = 1 creates a
# ledger with a total of 5 in a scratch home (so the dialog's default paths are short and the
# same on every run), then the dialog at ε = 10 (refused: 4 left) and a discrete Gaussian on a new
# ledger.
home=/tmp/dpexplorer-screenshots
rm -rf "$home" && mkdir -p "$home/Documents"
HOME=$home "$app" --example telemetry --release-dialog --release-go --release-epsilon 1 \
    --release-budget 5 > /dev/null
# The dialog grows to its contents up to the screen's height: the offscreen screen is shorter than
# the Gaussian dialog (it scrolled, the picture cut its budget lines), so these two are drawn on a
# tall virtual X screen when xvfb-run is there.
tall=()
command -v xvfb-run > /dev/null &&
    tall=(env -u QT_QPA_PLATFORM xvfb-run -a -s "-screen 0 1024x1400x24")
HOME=$home "${tall[@]}" "$app" --example telemetry --release-dialog --release-epsilon 10 \
    --screenshot "$out/release-dialog-refused.png"
echo "$out/release-dialog-refused.png"
HOME=$home "${tall[@]}" "$app" --example telemetry --release-dialog \
    --release-mechanism discrete-gaussian --release-epsilon 0.5 \
    --release-delta 1e-6 --release-ledger "$home/Documents/gaussian-ledger.json" \
    --release-budget 2,1e-5 --screenshot "$out/release-dialog-gaussian.png"
echo "$out/release-dialog-gaussian.png"
rm -rf "$home"
