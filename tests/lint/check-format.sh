#!/usr/bin/env bash
# Fails when a C++ file of the project is not formatted as .clang-format says (issue #18): prints the
# files and the first lines of each diff. Run by ctest (test "clang_format", label lint).
# usage: check-format.sh <source dir>
set -uo pipefail
src="${1:?usage: check-format.sh <source dir>}"
cd "$src" || exit 2
formatter="$(command -v clang-format || command -v clang-format-14 || true)"
if [ -z "$formatter" ]; then
    echo "clang-format not found (Debian package clang-format, in packaging/debian-packages.txt)" >&2
    exit 1
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files -- '*.h' '*.cpp')
else  # a source tarball: every C++ file outside build trees
    mapfile -t files < <(find . -path './build*' -prune -o \( -name '*.h' -o -name '*.cpp' \) -print)
fi
bad=0
for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    if ! diff -q <("$formatter" --style=file "$f") "$f" >/dev/null; then
        echo "not clang-format clean: $f"
        diff -u "$f" <("$formatter" --style=file "$f") | sed -n '3,14p'
        bad=$((bad + 1))
    fi
done
if [ "$bad" -gt 0 ]; then
    echo "$bad of ${#files[@]} files need clang-format -i (see above)"
    exit 1
fi
echo "all ${#files[@]} C++ files are clang-format clean"
