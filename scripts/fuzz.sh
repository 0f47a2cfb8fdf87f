#!/usr/bin/env bash
# Builds the libFuzzer targets of the readers (preset fuzz: clang, ASan+UBSan) and runs each for
# a bounded time on a copy of the checked-in seed corpus (fuzz/corpus/<target>).
#   scripts/fuzz.sh [SECONDS_PER_TARGET]        default 45; CI runs it
# A crash, leak, sanitizer report, an input over 20 s or over 1 GB fails the run; the input that
# did it is left in build-fuzz/artifacts/ (add it to the corpus once fixed). Prints per target:
# executions, coverage (cov: edges, ft: features) and seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-45}
TARGETS=(raw legacy text clustered)
cmake --preset fuzz >/dev/null
# Only the libFuzzer targets: the preset's replay drivers (fuzz_replay_*) are run by the tests of the
# other builds, not here.
cmake --build --preset fuzz -j "$(nproc)" --target "${TARGETS[@]/#/fuzz_}" >/dev/null
OUT=build-fuzz/fuzz-run
ART=build-fuzz/artifacts
rm -rf "$OUT"
mkdir -p "$OUT" "$ART"
# One target: its line (verdict, executions, coverage, seconds) into $OUT/<target>.line.
fuzz_one() {
  local t=$1 corpus=$OUT/corpus-$1 log=$OUT/$1.log start verdict execs cov
  mkdir -p "$corpus"
  cp fuzz/corpus/$t/* "$corpus/"
  start=$(date +%s)
  if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
     build-fuzz/bin/fuzz_$t "$corpus" -max_total_time="$SECONDS_PER_TARGET" -timeout=20 -rss_limit_mb=1024 \
       -max_len=65536 -print_final_stats=1 -artifact_prefix="$ART/$t-" >"$log" 2>&1; then
    verdict=ok
  else
    verdict=FAILED
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || echo '?')
  echo "fuzz $t: $verdict, $execs executions, $cov, $(($(date +%s) - start)) s" >"$OUT/$t.line"
}
# As many targets at once as there are cores (each libFuzzer process is one thread): every target
# still fuzzes SECONDS_PER_TARGET on a core of its own, and the step takes half as long on 2 cores.
for t in "${TARGETS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  fuzz_one "$t" &
done
wait
status=0
for t in "${TARGETS[@]}"; do
  cat "$OUT/$t.line"
  if grep -q FAILED "$OUT/$t.line"; then tail -40 "$OUT/$t.log"; status=1; fi
done
exit $status
