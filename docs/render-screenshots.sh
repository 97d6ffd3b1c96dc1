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
shot window-errors --example seed000 --mechanism laplace --epsilon 0.1 --tab errors
shot window-matrix-lp --example edwards-like --mechanism count-optimal --epsilon 0.5 --tab matrix
shot window-matrix-dark --example seed000 --mechanism count-geometric --epsilon 0.2 --tab matrix --dark
# The walk-through of choosing-epsilon.md: one session file per picture (docs/sessions/).
for s in histogram tradeoff population risk budget; do
    shot "choosing-$s" --session "$here/sessions/choosing-$s.json"
done
# The local-DP page (local-dp.md): protocol in the window, report matrix, trade-off, seed 002.
for s in histogram matrix tradeoff experiment ranges marginals means; do
    shot "local-$s" --session "$here/sessions/local-$s.json"
done
