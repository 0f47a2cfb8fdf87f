#!/usr/bin/env bash
# The whole chain at scale on simulated clusters: network_test under SMPI on a two-level
# tree of P/4 nodes x 4 ranks (8 nodes per leaf; 4 leaves below 256 ranks), every link 10 Gbit/s as in
# ctest smpi.truth, with a slow node (cable at 1/4 bandwidth, 4x latency) and a slow leaf uplink
# (1/8 bandwidth: 1.25 Gbit/s, slower than one cable, so that a single message sees it; at the
# script's former default of 8 cables' bandwidth, 1/8 was one cable's and only contention showed
# it, which a sequential run cannot), then network_analyze report --json checked
# exactly against the truth. Per P: host wall time and peak RSS of the simulation (all simulated
# ranks live in smpirun's one process) and of the analysis (/usr/bin/time -v), and the verdict.
#
#   bench/smpi/scale.sh [P...]            (default: 256 1024; e.g. 1024 4096)
#   env: BUILD (dev build with network_analyze, default build), SMPI_BUILD (default build-smpi),
#        OUT (default /tmp/nt-bench-smpi), ARGS (network_test's, default below),
#        MEM_KB (most resident memory of the simulation, ulimit -v of the analysis; default
#        6000000: the machine's rule)
# Prints one Markdown table row per P (results: bench/results/network_test.md, "Simulated clusters").
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$here/build}
SMPI_BUILD=${SMPI_BUILD:-$here/build-smpi}
OUT=${OUT:-/tmp/nt-bench-smpi}
ARGS=${ARGS:---lengths 0,1024,65536,1048576 -n 5 --progress none}
MEM_KB=${MEM_KB:-6000000}
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(256 1024)
mkdir -p "$OUT"

field() {  # field FILE "Maximum resident" -> the value after ": "
  grep -F "$2" "$1" | head -n1 | sed 's/.*: //'
}

echo "| simulated ranks | nodes x ranks, leaves x nodes | network_test args | simulation wall | simulation peak RSS | exit | analysis wall | analysis peak RSS | exact? |"
echo "|---|---|---|---|---|---|---|---|---|"
for P in "${sizes[@]}"; do
  nodes=$((P / 4)); per_leaf=8; [ "$nodes" -lt 64 ] && per_leaf=$((nodes / 4)); leaves=$((nodes / per_leaf)); SECONDS=0
  d=$OUT/p$P
  rm -rf "$d"; mkdir -p "$d"
  python3 "$here/scripts/simulate" --leaves "$leaves" --nodes-per-leaf "$per_leaf" --ranks-per-node 4 \
      --uplink-bandwidth 10 --slow-node 5:0.25:4 --slow-uplink 3:0.125 --shuffle 1 --out "$d" --no-run >/dev/null || exit 1
  # Not ulimit -v for the simulation: SMPI maps an 8 MiB stack per simulated rank (virtual, mostly
  # untouched), so the address space is no measure of it. A watchdog ends the job (its process
  # group) once its resident memory passes MEM_KB, and the row says so.
  # The writers (one simulated rank per node) open the result files, all in smpirun's one process
  # (scripts/simulate raises the limit the same way, as far as the hard limit allows).
  want=$((8 * P + 1024)); [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$want" ] && \
      { ulimit -Hn "$want" 2>/dev/null; ulimit -n "$want" 2>/dev/null || ulimit -n "$(ulimit -Hn)"; }
  # shellcheck disable=SC2086
  setsid /usr/bin/time -v -o "$d/sim.time" smpirun -np "$P" -platform "$d/platform.xml" \
      -hostfile "$d/hosts" "$SMPI_BUILD/bin/network_test" -t one_to_one $ARGS -f "$d/run" >"$d/sim.log" 2>&1 &
  job=$!
  killed=""
  while kill -0 "$job" 2>/dev/null; do
    rss=$(ps -o rss= -g "$job" 2>/dev/null | awk '{s += $1} END {print s + 0}')
    if [ "$rss" -gt "$MEM_KB" ]; then
      killed=" (ended by the watchdog at $((rss / 1024)) MB resident after $SECONDS s)"
      kill -- -"$job" 2>/dev/null
      break
    fi
    sleep 2
  done
  wait "$job"
  rc=$?
  sim_wall=$(field "$d/sim.time" "Elapsed (wall clock)")
  v=$(field "$d/sim.time" "Maximum resident"); sim_rss="$(( ${v:-0} / 1024 )) MB"
  [ -n "$killed" ] && sim_rss="> $((MEM_KB / 1024)) MB$killed"
  a_wall=-; a_rss=-; verdict="no file"
  if [ $rc -eq 0 ] && [ -f "$d/run_median.nc" ]; then
    (ulimit -v "$MEM_KB"; /usr/bin/time -v -o "$d/analyze.time" "$BUILD/bin/network_analyze" report \
        "$d/run_median.nc" --json "$d/report.json" >"$d/report.txt" 2>&1)
    a_wall=$(field "$d/analyze.time" "Elapsed (wall clock)")
    v=$(field "$d/analyze.time" "Maximum resident"); a_rss="$(( ${v:-0} / 1024 )) MB"
    if python3 "$here/tests/smpi/check_truth.py" "$d/truth.json" "$d/report.json" >"$d/check.txt"; then
      verdict=exact
    else
      verdict="NOT exact ($(wc -l <"$d/check.txt") differences)"
    fi
  fi
  echo "| $P | $nodes x 4, $leaves x $per_leaf | \`$ARGS\` | $sim_wall | $sim_rss | $rc | $a_wall | $a_rss | $verdict |"
done
