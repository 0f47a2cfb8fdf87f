#!/usr/bin/env bash
# How much of a run is spent measuring. Four rows
# (sequential and --host-pairs, each with the default warm-up and with --warmup 0) on the platform
# of bench/smpi/schedules.sh: P/4 hosts x 4 ranks under LEAVES leaves, 2:1 oversubscribed,
# shuffled placement, node 5's cable at 1/4 bandwidth and 4x latency, leaf LEAVES-2's uplink at
# 1.25 Gbit/s; one length (64 KiB), 3 samples. Per row: the simulated job time (network_test's
# "done in"), the timed share (the run's own summary), the fixed part's counts (clock offsets and
# warm-up iterations, the summary's second line when the binary prints it), the host time, and the
# report of network_analyze (levels and findings, compared between binaries by the caller).
#   bench/smpi/timed_share.sh NETWORK_TEST [P=256] [LEAVES=8]
#   env: BUILD (dev build for network_analyze, default build), OUT (default /tmp/nt-timed-share),
#        ROWS (which rows, by name, separated by "|", default all four), ARGS (default below)
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
NT=${1:?usage: timed_share.sh NETWORK_TEST [P] [LEAVES]}
P=${2:-256} L=${3:-8}
BUILD=${BUILD:-$here/build} OUT=${OUT:-/tmp/nt-timed-share}
ARGS=${ARGS:--t one_to_one --lengths 65536 -n 3 --seed 3 --progress none}
# shellcheck source=bench/smpi/tree_platform.sh
. "$here/bench/smpi/tree_platform.sh"
mkdir -p "$OUT"
echo "# $(date -u '+%F %T') UTC, $NT ($(md5sum < "$NT" | cut -c1-8)), $P simulated ranks ($nodes hosts x 4, $L leaves, 2:1), $ARGS; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| run | flags | simulated job | timed share | fixed part | host time | report |"
echo "|---|---|---:|---:|---|---:|---|"
for row in "sequential, default warm-up:" "sequential, --warmup 0:--warmup 0" \
    "host pairs, default warm-up:--host-pairs" "host pairs, --warmup 0:--host-pairs --warmup 0"; do
  name=${row%%:*} flags=${row#*:}
  case "|${ROWS:-$name}|" in *"|$name|"*) ;; *) continue ;; esac
  d=$OUT/$(echo "$name" | tr -c 'a-z0-9' '_')
  tree_row "$NT" "$d" "$flags"
  share=$(echo "$done_line" | sed -n "s/.*timed communication [0-9.]* s (\([0-9.]*%\).*/\1/p")
  fixed=$(grep -E "network_test: fixed part" "$d.log" | grep -v INFO | head -1 | sed 's/network_test: fixed part: //')
  verdict="simulation failed (exit $rc)"
  [ "$rc" = 0 ] && verdict=$(tree_verdict "$d/run_median.nc" "$d/r.json" 200)
  echo "| $name | \`$flags\` | $job | $share | ${fixed:--} | $host | $verdict |"
done
