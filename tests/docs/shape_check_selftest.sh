#!/bin/sh
# scripts/shape-check finds what it must: a long function, a long constructor with member
# initializers, a long file; and passes a long class of short methods, braces in strings and a
# braced initializer. Usage: shape_check_selftest.sh SHAPE_CHECK
set -eu
check=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
body() { i=0; while [ $i -lt "$1" ]; do echo "  x += $i;"; i=$((i + 1)); done; }
fail() { echo "FAIL: $*"; exit 1; }

{ echo "int f(int x) {"; body 69; echo "  return x;"; echo "}"; } > "$dir/long.cpp"
python3 "$check" "$dir" "$dir/long.cpp" > "$dir/out" && fail "a 72-line function passed"
grep -q "long.cpp:1: f is 72 lines" "$dir/out" || fail "not named: $(cat "$dir/out")"

{ echo "struct A { A(); int a, b; };"; echo "A::A() : a{1}, b(2) {"; echo "  int x = 0;"; body 68; echo "}"; } > "$dir/ctor.cpp"
python3 "$check" "$dir" "$dir/ctor.cpp" > "$dir/out" && fail "a 71-line constructor passed"
grep -q "ctor.cpp:2: A::A is 71 lines" "$dir/out" || fail "not named: $(cat "$dir/out")"

{ echo "namespace n {"; echo "class C {"; i=0; while [ $i -lt 40 ]; do echo " int m$i() { return $i; }"; echo ""; i=$((i + 1)); done
  echo "};"; echo "const char* s = \"{{{\";"; echo "int v[] = {1, 2};"; echo "int g() { return '{'; }"; echo "}"; } > "$dir/ok.cpp"
python3 "$check" "$dir" "$dir/ok.cpp" > "$dir/out" || fail "short functions failed: $(cat "$dir/out")"

{ i=0; while [ $i -lt 601 ]; do echo "// $i"; i=$((i + 1)); done; } > "$dir/big.hpp"
python3 "$check" "$dir" "$dir/big.hpp" > "$dir/out" && fail "a 601-line file passed"
grep -q "big.hpp: 601 lines" "$dir/out" || fail "not named: $(cat "$dir/out")"
echo "shape-check selftest: ok"
