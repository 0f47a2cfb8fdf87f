#!/bin/sh
# scripts/layers-check finds what it must: core including a program's header, a program another
# program's, an analysis stage a later stage's header (public or private); and passes includes
# down the layers.
# Usage: layers_check_selftest.sh LAYERS_CHECK
set -eu
check=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$dir/core/src" "$dir/convert/src" "$dir/analyze/src/report" "$dir/analyze/src/compare" \
         "$dir/analyze/include/nt/analysis"
printf '#include "nt/error.hpp"\n' > "$dir/core/src/a.cpp"
printf '#include "nt/convert/convert.hpp"\n#include "nt/error.hpp"\n' > "$dir/convert/src/a.cpp"
printf '#include "nt/analysis/report.hpp"\n#include "report/report_parts.hpp"\n' > "$dir/analyze/src/compare/a.cpp"
printf '#include "nt/analysis/cube.hpp"\n' > "$dir/analyze/include/nt/analysis/report.hpp"
python3 "$check" "$dir" > "$dir/out" || fail "includes down the layers failed: $(cat "$dir/out")"
printf '#include "nt/analysis/report.hpp"\n' > "$dir/core/src/b.cpp"
python3 "$check" "$dir" > "$dir/out" && fail "core including the analysis passed"
grep -q "core/src/b.cpp: includes nt/analysis/report.hpp, another program" "$dir/out" || fail "not named: $(cat "$dir/out")"
rm "$dir/core/src/b.cpp"
printf '#include "compare/compare_parts.hpp"\n' > "$dir/analyze/src/report/b.cpp"
python3 "$check" "$dir" > "$dir/out" && fail "a private header of a later stage passed"
grep -q "report/b.cpp: includes compare/compare_parts.hpp: stage report points up to stage compare" "$dir/out" \
  || fail "not named: $(cat "$dir/out")"
printf '#include "nt/analysis/compare.hpp"\n' > "$dir/analyze/src/report/b.cpp"
python3 "$check" "$dir" > "$dir/out" && fail "a public header of a later stage passed"
printf '#include "nt/analysis/report.hpp"\n' > "$dir/analyze/include/nt/analysis/surprise.hpp"
rm "$dir/analyze/src/report/b.cpp"
python3 "$check" "$dir" > "$dir/out" && fail "a public header of no stage passed"
grep -q "surprise.hpp: a public header of no stage" "$dir/out" || fail "not named: $(cat "$dir/out")"
echo "layers-check selftest: ok"
