#!/usr/bin/env bash
# The real network_test (SMPI build) under plain smpirun on a platform
# that scripts/simulate did not write (bench/smpi/spine_platform.py: 64 nodes x 4 ranks under 8
# leaves and a spine, Floyd routing, SPLITDUPLEX links, the mpich collective selector; node 21's
# cable at 1/4 bandwidth and 4x latency, leaf 3's uplink at 1/8), the default schedule, default
# warm-up and clock rounds, 5 samples, lengths 0,1024,65536,1048576; then network_analyze report
# checked against the truth (tests/smpi/check_truth.py: exactly the nodes, the switches, the slow
# node and one finding on the slow leaf's ranks, nothing else).
#   bench/smpi/must_show.sh [WORKDIR] [extra network_test arguments]
# Needs build-smpi/bin/network_test (cmake --preset smpi && cmake --build --preset smpi) and
# build/bin/network_analyze. Prints host wall time and peak RSS of the whole simulation.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-/tmp/nt-must-show}
shift || true
py=/usr/bin/python3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$py" "$root/bench/smpi/spine_platform.py" p
start=$(date +%s.%N)
/usr/bin/time -v -o time.txt smpirun -np 256 -platform p/platform.xml -hostfile p/hostfile \
  "$root/build-smpi/bin/network_test" -t one_to_one --lengths 0,1024,65536,1048576 -n 5 -f run "$@" \
  > sim.log 2>&1 || { tail -20 sim.log; exit 1; }
end=$(date +%s.%N)
grep -E "done in" sim.log | grep -v INFO || true
printf 'host wall time %.0f s, peak RSS of the simulation %s\n' "$(echo "$end - $start" | bc)" \
  "$(awk -F': ' '/Maximum resident/ {printf "%.0f MB", $2/1024}' time.txt)"
/usr/bin/time -v -o report_time.txt "$root/build/bin/network_analyze" report run_median.nc --json r.json > r.txt
awk -F': ' '/Maximum resident/ {printf "report: peak RSS %.0f MB\n", $2/1024}' report_time.txt
"$py" "$root/tests/smpi/check_truth.py" p/truth.json r.json || { sed -n '1,60p' r.txt; exit 1; }
