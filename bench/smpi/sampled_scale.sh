#!/usr/bin/env bash
# The sampled schedule (--sample-pairs K) at thousands of simulated ranks: network_test under SMPI
# on scripts/simulate's two-level 2:1 tree (NODES_PER_LEAF nodes of RPN ranks per leaf) with a slow
# node (cable at 1/4) and a slow uplink (at 1/NODES_PER_LEAF of its NODES_PER_LEAF x 10 / 2 Gbit/s:
# 5 Gbit/s, half a cable, so that a single pair sees it), one length, then network_analyze report checked against the truth
# (tests/smpi/check_truth.py). Per size: host time and peak RSS of the whole simulation
# (/usr/bin/time around scripts/simulate), the simulated time, the report's verdict.
#
#   bench/smpi/sampled_scale.sh P...        (e.g. 1024 2048 4096; P a multiple of RPN x NODES_PER_LEAF)
#   env: RPN (ranks per node, default 4), NODES_PER_LEAF (default 32), K (default 4),
#        ONE_PROGRAM (default 1: scripts/simulate --one-program, one loaded network_test for every
#        rank; 0: SMPI's copy of the program per rank, ~1.1 MB resident each),
#        OUT (default /tmp/nt-sampled-scale), ARGS (network_test's, default below),
#        BUILD (dev build, default build), SMPI_BUILD (default build-smpi)
# One simulation at a time: every simulated rank lives in smpirun's one process (results:
# bench/results/scale.md, "Sampled pairs at thousands of simulated ranks").
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$here/build}
SMPI_BUILD=${SMPI_BUILD:-$here/build-smpi}
OUT=${OUT:-/tmp/nt-sampled-scale}
RPN=${RPN:-4}
NODES_PER_LEAF=${NODES_PER_LEAF:-32}
K=${K:-4}
ONE_PROGRAM=${ONE_PROGRAM:-1}
one=""
[ "$ONE_PROGRAM" = 1 ] && one=--one-program
ARGS=${ARGS:--t one_to_one --lengths 65536 -n 3 --seed 1 --progress none}
mkdir -p "$OUT"
echo "| simulated ranks | nodes x ranks, leaves | simulated time | host time, peak RSS | report |"
echo "|---:|---|---:|---|---|"
for P in "$@"; do
  nodes=$((P / RPN)); leaves=$((nodes / NODES_PER_LEAF))
  d=$OUT/p$P
  rm -rf "$d"
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e s %M KB" -o "$OUT/p$P.time" "$here/scripts/simulate" \
      --network-test "$SMPI_BUILD/bin/network_test" --leaves "$leaves" --nodes-per-leaf "$NODES_PER_LEAF" \
      --ranks-per-node "$RPN" --oversubscription 2 --slow-node 21:0.25 --slow-uplink 6:$(python3 -c "print(1 / $NODES_PER_LEAF)") --out "$d" $one -- \
      $ARGS --sample-pairs "$K" >"$OUT/p$P.log" 2>&1
  rc=$?
  sim=$(sed -n 's/.*Simulated time: \([0-9.]*\) seconds.*/\1/p' "$OUT/p$P.log" | tail -n1)
  verdict="simulation exit $rc"
  if [ "$rc" -eq 0 ]; then
    "$BUILD/bin/network_analyze" report "$d/run_median.nc" --json "$d/report.json" >"$d/report.txt" 2>&1 &&
      verdict=$(python3 "$here/tests/smpi/check_truth.py" "$d/truth.json" "$d/report.json" 2>&1 | tr '\n' ' ')
    [ -z "$verdict" ] && verdict="exact"
  fi
  echo "| $P | $nodes x $RPN, $leaves | ${sim:-?} s | $(cat "$OUT/p$P.time" | tail -n1) | $verdict |"
done
