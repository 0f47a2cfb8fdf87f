#!/bin/sh
# Simulated-rank scaling of network_test: for each binary (BEFORE, AFTER:
# build-smpi/bin/network_test of two commits), each P and each schedule, one run under
# scripts/simulate, alternately; prints network_test's summary line (wall = simulated seconds,
# timed share, writing time) and the host time and peak RSS of smpirun (GNU time).
# Usage: bench/network_test/sim_scale.sh BEFORE AFTER "64 256" [extra network_test args]
#   env: SCHEDULES (default "sequential concurrent"), ROUNDS (alternations, default 1), OUT,
#        LENGTHS (default 0,1024), SAMPLES (default 3)
set -eu
HERE=$(cd "$(dirname "$0")/../.." && pwd)
BEFORE=$1 AFTER=$2 SIZES=$3
shift 3
OUT=${OUT:-/tmp/nt_sim_scale}
for P in $SIZES; do
  NODES=$((P / 4)); LEAVES=$(( NODES >= 8 ? 8 : 2 )); PER=$((NODES / LEAVES))
  for SCHED in ${SCHEDULES:-sequential concurrent}; do
    FLAG=""; [ $SCHED = concurrent ] && FLAG=--concurrent
    for WHICH in $(for _ in $(seq "${ROUNDS:-1}"); do echo before after; done); do
      BIN=$BEFORE; [ $WHICH = after ] && BIN=$AFTER
      D=$OUT/$P-$SCHED-$WHICH; rm -rf "$D"
      /usr/bin/time -f "host %e s, peak RSS %M KB" "$HERE/scripts/simulate" --leaves $LEAVES --nodes-per-leaf $PER \
        --ranks-per-node 4 --out "$D" --network-test "$BIN" -- -t one_to_one --lengths "${LENGTHS:-0,1024}" -n "${SAMPLES:-3}" $FLAG \
        --progress none "$@" 2>&1 | grep -E "done in|host .* s, peak|error|simulation took" | sed "s|^|P=$P $SCHED $WHICH: |"
    done
  done
done
