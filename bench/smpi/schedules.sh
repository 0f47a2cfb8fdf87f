#!/usr/bin/env bash
# Schedules compared on one simulated platform. A 2:1 oversubscribed two-level
# tree (scripts/simulate --oversubscription 2: each uplink has half the bandwidth of its leaf's
# cables together) of P/4 nodes x 4 ranks, shuffled placement, a slow node (cable 1/4 bandwidth,
# 4x latency) and a slow leaf uplink at 1.25 Gbit/s, an eighth of a cable (1/8 of the uplink with 2
# nodes per leaf; at 16 nodes per leaf 1/8 of the uplink was one cable's bandwidth, which no single
# message sees, only contention). Per schedule: the simulated job time (network_test's
# "done in"), its timed share, the host time and peak RSS of the simulation, and whether the report
# is exact against the truth (tests/smpi/check_truth.py).
#   bench/smpi/schedules.sh [P=64] [LEAVES=8]  (slow node 5, slow uplink of leaf LEAVES-2)
#   env: SMPI_BUILD (default build-smpi), BUILD (default build), OUT (default /tmp/nt-schedules),
#        ARGS (common network_test arguments, default below), SCHEDULES (which of the four rows, by
#        name, separated by "|", default all: e.g. "sequential|host pairs" at 1,024 ranks)
# The switch-lane rows give --switch-map the platform's leaves (OUT/switch_map, tree_switch_map);
# after the rows, whether the report of "host pairs, switch lanes" is the one of "host pairs".
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
P=${1:-64} L=${2:-8}
SMPI_BUILD=${SMPI_BUILD:-$here/build-smpi} BUILD=${BUILD:-$here/build} OUT=${OUT:-/tmp/nt-schedules}
ARGS=${ARGS:--t one_to_one --lengths 0,1024,65536,1048576 -n 5 --warmup 2 --progress none}
# shellcheck source=bench/smpi/tree_platform.sh
. "$here/bench/smpi/tree_platform.sh"
mkdir -p "$OUT"
tree_switch_map "$SMPI_BUILD/bin/network_test" "$OUT/switch_map" || { echo "no switch map"; exit 1; }
echo "# $(date -u '+%F %T') UTC, $P simulated ranks ($nodes nodes x 4, $L leaves, 2:1 oversubscribed), $ARGS; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| schedule | flags | simulated job | timed share | host time | peak RSS | report |"
echo "|---|---|---|---|---|---|---|"
# "concurrent, fixed rounds" is the concurrent schedule of earlier versions (the same
# circle-method rounds for every sample); "concurrent" now draws a random 1-factorisation per
# sample; "+ re-test" re-measures alone the RETEST cells (default P) that stand out of their line
# (variable isolated; the report of run_isolated_median.nc, network_convert isolated, uses them);
# "host pairs" is --host-pairs (one rank pair of each pair of hosts alone, the pairs within hosts).
RETEST=${RETEST:-$P}
for sched in "sequential:" "sequential, shuffled:--shuffle --seed 3" "concurrent, fixed rounds:--concurrent --rounds fixed" \
    "concurrent, fixed rounds, shuffled:--concurrent --rounds fixed --shuffle --seed 3" "concurrent:--concurrent --seed 3" \
    "concurrent + re-test:--concurrent --seed 3 --retest $RETEST" "concurrent=K + re-test:--concurrent=$((P / 8)) --seed 3 --retest $RETEST" \
    "host pairs:--host-pairs --seed 3" "host pairs, switch lanes:--host-pairs --seed 3 --switch-map $OUT/switch_map" \
    "concurrent, switch lanes:--concurrent --seed 3 --switch-map $OUT/switch_map"; do
  name=${sched%%:*} flags=${sched#*:}
  case "|${SCHEDULES:-$name}|" in *"|$name|"*) ;; *) continue ;; esac
  d=$OUT/$(echo "$name" | tr -c 'a-z' '_')
  tree_row "$SMPI_BUILD/bin/network_test" "$d" "$flags"
  share=$(echo "$done_line" | sed -n "s/.*timed communication [0-9.]* s (\([^)]*\)).*/\1/p")
  rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f MB", $2/1024}' "$d.time")
  verdict="simulation failed (exit $rc)"
  if [ "$rc" = 0 ]; then
    verdict=$(tree_verdict "$d/run_median.nc" "$d/r.json" 300)
    if grep -q "re-tested alone" "$d.log" && "$BUILD/bin/network_convert" isolated "$d/run_median.nc" -o "$d/run_isolated_median.nc" > /dev/null 2>&1; then
      retested=$(grep "re-tested alone" "$d.log" | grep -v INFO | sed -n 's/.*rounds: \([0-9]*\) pairs.*/\1/p')
      verdict="$verdict; with the $retested isolated values: $(tree_verdict "$d/run_isolated_median.nc" "$d/ri.json" 300)"
    fi
  fi
  echo "| $name | \`$flags\` | $job | $share | $host | $rss | $verdict |"
done
hp=$OUT/host_pairs_ hl=$OUT/host_pairs__switch_lanes_
if [ -s "$hp/r.txt" ] && [ -s "$hl/r.txt" ]; then
  if tree_same_report "$hp/r.txt" "$hl/r.txt"; then same="the same"; else same="NOT the same"; fi
  echo "report of host pairs in switch lanes: $same as host pairs' (but file names and the intra-node fit's range)"
fi
