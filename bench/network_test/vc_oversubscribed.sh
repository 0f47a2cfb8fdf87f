#!/usr/bin/env bash
# Measurement quality on an emulated cluster whose hosts share one machine's cores (a
# regression hunt): two network_test binaries run alternately on the cluster of
# tests/e2e/e2e_slow_host.sh (3 hosts x 2 ranks = 6 ranks on this machine, host 3 at 20 Mbit/s,
# the others at 100 Mbit/s), then per run: the worst 0-byte cell, the spread of the healthy
# 64 KiB inter-host pairs, the worst 64 KiB intra-host pair, and whether network_analyze report
# finds the hosts and only the slow one (tests/e2e/check_run.py analyze).
# Needs root (network namespaces). Usage:
#   bench/network_test/vc_oversubscribed.sh BEFORE_NT AFTER_NT ANALYZE [ROUNDS=4] [DIR=/tmp/vc_oversub]
set -uo pipefail
cd "$(dirname "$0")/../.."
BEFORE=$1 AFTER=$2 AN=$3 ROUNDS=${4:-4} DIR=${5:-/tmp/vc_oversub}
PY=/usr/bin/python3
NAME=ntvcbench
# The launcher of the binaries' MPI (MPICH by default, as the dev preset builds them).
export VC_MPIEXEC=${VC_MPIEXEC:-mpiexec.mpich}
rm -rf "$DIR"
for i in $(seq 1 "$ROUNDS"); do
  for which in before after; do
    nt=$BEFORE
    [[ $which == after ]] && nt=$AFTER
    w=$DIR/$which/$i
    mkdir -p "$w"
    scripts/virtual-cluster --name $NAME run --hosts 3 --ppn 2 --slow 3 --rate 20mbit --link-rate 100mbit -- \
      "$nt" -t one_to_one --lengths 0,65536,262144 -n 15 --warmup 3 --idle-sleep-max 0.001 -f "$w/vc" -q \
      >"$w/run.log" 2>&1 || { echo "$which $i: network_test failed (see $w/run.log)"; continue; }
    "$AN" report "$w/vc_median.nc" --hosts "$w/vc_hosts.txt" --json "$w/report.json" >"$w/report.txt" 2>&1
    if $PY tests/e2e/check_run.py analyze "$w/report.json" "$w/vc_hosts.txt" --slow-hosts $NAME-n3 >"$w/check.txt" 2>&1
    then echo "$which $i: report exact"; else echo "$which $i: report WRONG: $(grep FAIL "$w/check.txt")"; fi
  done
done
$PY - "$DIR" <<'PYEOF'
import glob, sys
import numpy as np
from netCDF4 import Dataset
for which in ("before", "after"):
    rows = []
    for f in sorted(glob.glob(f"{sys.argv[1]}/{which}/*/vc_median.nc")):
        with Dataset(f) as ds:
            m = np.array(ds.variables["data"][:], dtype=float) * 1e6
            over = ds.getncattr("oversubscribed")
        P = m.shape[1]
        host = [r // 2 for r in range(P)]
        off = [(i, j) for i in range(P) for j in range(P) if i != j]
        healthy = np.array([m[1][i, j] for i, j in off if host[i] != host[j] and 2 not in (host[i], host[j])])
        intra = np.array([m[1][i, j] for i, j in off if host[i] == host[j]])
        rows.append((max(m[0][i, j] for i, j in off), healthy.max() / np.median(healthy), intra.max()))
    if not rows:
        continue
    r = np.array(rows)
    print(f"{which}: {len(r)} runs (oversubscribed attribute of the last: {over!r}); worst 0 B cell of a run: "
          f"median {np.median(r[:, 0]):.1f} us, worst {r[:, 0].max():.1f} us; healthy 64 KiB inter-host pairs, "
          f"max/median: median {np.median(r[:, 1]):.3f}, worst {r[:, 1].max():.3f}; worst 64 KiB intra-host "
          f"pair: median {np.median(r[:, 2]):.1f} us, worst {r[:, 2].max():.1f} us")
PYEOF
