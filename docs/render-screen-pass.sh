#!/usr/bin/env bash
# The systematic screenshot pass of issue #21: every tab and page of the window, and every step of
# every lesson, in the four configurations a classroom meets -- a 1024 x 768 projector in the light
# and the dark theme, and presentation mode on a 1920 x 1080 screen, light and dark -- rendered by
# the app itself on a virtual X screen of that size, for a person to look at one by one.
#
#   docs/render-screen-pass.sh [BUILD_DIR] [OUT_DIR] [CONFIG...]
#
# CONFIG is one of small-light, small-dark, present-light, present-dark (default: all four).
# Writes OUT_DIR/CONFIG/tab-NAME.png and OUT_DIR/CONFIG/lesson-NAME-stepK.png (default OUT_DIR:
# out/screens, gitignored) and prints every file written; a failed render is reported on stderr
# and makes the exit status 1, the pass goes on.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-$here/../build}
out=${2:-$here/../out/screens}
shift $(($# < 2 ? $# : 2))
configs=("$@")
((${#configs[@]})) || configs=(small-light small-dark present-light present-dark)
app=$(cd "$build" 2>/dev/null && pwd)/app/dpexplorer
[[ -x $app ]] || { echo "render-screen-pass.sh: $app not found; build dpexplorer first" >&2; exit 2; }
command -v xvfb-run > /dev/null || { echo "render-screen-pass.sh: needs xvfb-run" >&2; exit 2; }

tabs=(histogram matrix errors risk tradeoff budget ldp-experiment ldp-ranges ldp-marginals
      ldp-means mechanisms table workbench strategy sparse rdp select vector-mean kde)
# The lessons' names as the app lists them in --help ("..., --lesson NAME ...: a, b, c.").
mapfile -t lessons < <(QT_QPA_PLATFORM=offscreen "$app" --help 2>/dev/null | tr '\n' ' ' |
    sed -n 's/.*classroom lesson instead of the main window: \([^.]*\)\..*/\1/p' |
    tr -d ' ' | tr ',' '\n')
((${#lessons[@]})) || { echo "render-screen-pass.sh: no lessons found in --help" >&2; exit 2; }

# Inside the virtual screen: one configuration.
if [[ ${DPX_SCREEN_PASS_CONFIG:-} ]]; then
    config=$DPX_SCREEN_PASS_CONFIG
    dir=$out/$config
    mkdir -p "$dir"
    args=()
    case $config in
        small-light) size=1024x768 ;;
        small-dark) size=1024x768; args+=(--dark) ;;
        present-light) size=1920x1080; args+=(--present) ;;
        present-dark) size=1920x1080; args+=(--present --dark) ;;
    esac
    status=0
    for t in "${tabs[@]}"; do
        f=$dir/tab-$t.png
        if timeout 150 "$app" --tab "$t" --size "$size" "${args[@]}" --screenshot "$f" \
            > /dev/null 2> "$dir/tab-$t.log"; then
            echo "$f"
        else
            echo "render-screen-pass.sh: $config tab $t failed: $(tail -1 "$dir/tab-$t.log")" >&2
            status=1
        fi
    done
    for l in "${lessons[@]}"; do
        # The slide export draws every step at the size asked, as the lesson shows it.
        if timeout 150 "$app" --lesson "$l" --size "$size" "${args[@]}" \
            --slides "$dir/lesson-$l.pdf" > /dev/null 2> "$dir/lesson-$l.log"; then
            ls "$dir/lesson-$l"-step*.png
        else
            echo "render-screen-pass.sh: $config lesson $l failed: $(tail -1 "$dir/lesson-$l.log")" >&2
            status=1
        fi
    done
    exit $status
fi

status=0
for config in "${configs[@]}"; do
    case $config in
        small-light | small-dark) screen=1024x768x24 ;;
        present-light | present-dark) screen=1920x1080x24 ;;
        *) echo "render-screen-pass.sh: unknown configuration '$config'" >&2; exit 2 ;;
    esac
    DPX_SCREEN_PASS_CONFIG=$config xvfb-run -a -s "-screen 0 $screen" "$0" "$build" "$out" ||
        status=1
done
exit $status
