#!/bin/sh
# scripts/tuning-literals finds what it must: a new number in code, an allowlist entry the code no
# longer uses, a table line (*_tuning.hpp) that is no entry with its meaning; and passes numbers in
# comments, strings, characters and digit separators, 0, 1, 2, and a table's entries.
# Usage: tuning_literals_selftest.sh TUNING_LITERALS
set -eu
check=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$dir/analyze/src/x"
cat > "$dir/analyze/src/x/a.cpp" <<'CPP'
#include <cmath>
// a ratio of 1.25 in a comment, /* 0.75 */ and a string "3.5"
double f(double x) { return x > 2.0 ? x * 1.5 : x + 0 + 1 + 2 + '7'; }  // 0.9
long g() { return 4'000; }
CPP
printf 'analyze/src/x/a.cpp 1.5  # a test\nanalyze/src/x/a.cpp 4000  # a test\n' > "$dir/allow"
python3 "$check" "$dir" "$dir/allow" > "$dir/out" || fail "listed numbers failed: $(cat "$dir/out")"
printf 'analyze/src/x/a.cpp 4000  # a test\n' > "$dir/allow"
python3 "$check" "$dir" "$dir/allow" > "$dir/out" && fail "an unlisted 1.5 passed"
grep -q "a.cpp:3: 1.5 is no entry" "$dir/out" || fail "not named: $(cat "$dir/out")"
printf 'analyze/src/x/a.cpp 1.5  # a test\nanalyze/src/x/a.cpp 4000  # a test\nanalyze/src/x/a.cpp 0.25  # gone\n' > "$dir/allow"
python3 "$check" "$dir" "$dir/allow" > "$dir/out" && fail "an unused entry passed"
grep -q "0.25 is no longer in the sources" "$dir/out" || fail "not named: $(cat "$dir/out")"
printf 'analyze/src/x/a.cpp 1.5\n' > "$dir/allow"
python3 "$check" "$dir" "$dir/allow" > "$dir/out" && fail "an entry without a reason passed"
printf 'analyze/src/x/a.cpp 1.5  # a test\nanalyze/src/x/a.cpp 4000  # a test\n' > "$dir/allow"
printf 'struct T {\n  double step = 0.1;   // a table entry\n  int rounds = 10;\n};\n' > "$dir/analyze/src/x/x_tuning.hpp"
python3 "$check" "$dir" "$dir/allow" > "$dir/out" && fail "a table entry without its meaning passed"
grep -q "x_tuning.hpp:3: a table holds one entry a line" "$dir/out" || fail "not named: $(cat "$dir/out")"
grep -q "x_tuning.hpp:2" "$dir/out" && fail "a table entry was named: $(cat "$dir/out")"
echo "tuning-literals selftest: ok"
