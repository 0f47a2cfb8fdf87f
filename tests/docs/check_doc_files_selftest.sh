#!/bin/sh
# The file-map check finds what it should: on a copy of the checked folders' file names and of
# architecture.md it passes; one new source file without a line fails with that file named; its
# line (by path, or by name beside its folder) makes it pass again.
set -u
checker="$1"; src="$2"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/share/doc"
cp "$src/share/doc/architecture.md" "$dir/share/doc/"
for d in core/include/nt core/src network_test/src network_test/modes convert/src cluster/src analyze/src viewer/src; do
  # with the folders under it (analyze/src/topology/ ...)
  (cd "$src/$d" && find . -type f \( -name '*.cpp' -o -name '*.hpp' \)) | while read -r f; do
    mkdir -p "$dir/$d/$(dirname "$f")" && : > "$dir/$d/$f"
  done
done
python3 "$checker" "$dir" || { echo "FAIL: the copy of the tree refused"; exit 1; }
: > "$dir/analyze/src/anomalies/anomalies_new_detector.cpp"
out=$(python3 "$checker" "$dir"); rc=$?
echo "$out"
[ "$rc" = 1 ] || { echo "FAIL: exit $rc with a file missing from the map, expected 1"; exit 1; }
echo "$out" | grep -q 'analyze/src/anomalies/anomalies_new_detector.cpp' || { echo "FAIL: the file is not named"; exit 1; }
# A name shared with another folder needs its folder beside it.
: > "$dir/viewer/src/cube.cpp"
printf -- '- `anomalies_new_detector.cpp`: a new detector.\n- `cube.cpp` of the viewer.\n' >> "$dir/share/doc/architecture.md"
out=$(python3 "$checker" "$dir"); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q 'viewer/src/cube.cpp' && ! echo "$out" | grep -q anomalies_new \
  || { echo "FAIL: $rc: $out"; exit 1; }
printf -- '- `viewer/src/`: `cube.cpp`, a cube.\n' >> "$dir/share/doc/architecture.md"
python3 "$checker" "$dir" || { echo "FAIL: the fixed map refused"; exit 1; }
echo PASS
