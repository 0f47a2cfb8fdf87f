#!/usr/bin/env bash
# The host cost of a simulation, before/after a change of network_test. Runs the
# corpus's issue tree (scripts/corpus tree-1rph-*: 8 leaves x 8 hosts, 2:1, a slow host, a leaf
# uplink at 1/8, one rank per host, --lengths 65536 -n 3 --warmup 0 --seed 1) under two
# network_test binaries of the SMPI build, alternating before/after RUNS times, and prints per
# binary and schedule the medians of the simulation's host CPU time (user + system), wall time and
# peak RSS, and the simulated job time ("done in"; the same on every run).
#   bench/smpi/simcost.sh BEFORE AFTER [RUNS=3]
#   env: LEAVES (default 8: 64 hosts), SCHEDULES (default "k8 seq"; k16 is --concurrent=16),
#        OUT (default /tmp/nt-simcost)
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
before=$1 after=$2 runs=${3:-3}
L=${LEAVES:-8} OUT=${OUT:-/tmp/nt-simcost}
mkdir -p "$OUT"
rm -f "$OUT/raw.txt"
common="-t one_to_one --lengths 65536 -n 3 --warmup 0 --seed 1 --force --progress none"
flags_of() {
  case $1 in
    seq) echo "" ;;
    k8) echo "--concurrent=8 --retest 4096" ;;
    k16) echo "--concurrent=16 --retest 65536" ;;
  esac
}
echo "# $(date -u '+%F %T') UTC, $((L * 8)) hosts, $runs runs per binary alternated; load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$runs"); do
  for s in ${SCHEDULES:-k8 seq}; do
    for which in before after; do
      bin=$before
      [ "$which" = after ] && bin=$after
      d=$OUT/$s-$which-$i
      rm -rf "$d"
      # shellcheck disable=SC2046
      /usr/bin/time -f "%U %S %e %M" -o "$d.time" /usr/bin/python3 "$here/scripts/simulate" --network-test "$bin" \
          --leaves "$L" --nodes-per-leaf 8 --oversubscription 2 --slow-node 5:0.25:4 --slow-uplink 3:0.125 \
          --ranks-per-node 1 --out "$d" -- $common $(flags_of "$s") > "$d.log" 2>&1
      sim=$(grep -E "done in" "$d.log" | grep -v INFO | head -1 | sed -n 's/.*done in \([0-9.]*\) s.*/\1/p')
      echo "$s $which $(cat "$d.time" | tail -1) ${sim:-failed}" >> "$OUT/raw.txt"
      echo "$s $which run $i: user sys wall rssKB = $(tail -1 "$d.time"), simulated ${sim:-failed} s"
    done
  done
done
echo "| schedule | binary | host CPU (user+sys), median | wall, median | peak RSS | simulated job |"
echo "|---|---|---:|---:|---:|---:|"
for s in ${SCHEDULES:-k8 seq}; do
  for which in before after; do
    grep "^$s $which " "$OUT/raw.txt" | tail -"$runs" | awk -v s="$s" -v w="$which" '
      { cpu[NR] = $3 + $4; wall[NR] = $5; rss[NR] = $6; sim = $7 }
      function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                     return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      END { printf "| %s | %s | %.1f s | %.1f s | %.0f MB | %s s |\n", s, w, med(cpu, NR), med(wall, NR), med(rss, NR) / 1024, sim }'
  done
done
