#!/usr/bin/env bash
# Scale bench of network_test (issue 15): for each case, `--estimate` and then the real sweep,
# sequential and --concurrent, in one script; prints one table row per run and compares the
# medians of the two schedules per pair class (same host / other host).
#   bench/network_test/scale.sh [BUILD_DIR]        (root needed for the emulated cluster)
# Usage of run_case: LABEL LAUNCHER... ::: NETWORK_TEST_ARGS...
# Cases: 4 ranks on this machine (-b 0 -e 1000 -s 100 -n 100), and 8 emulated hosts x PPN ranks
# (scripts/virtual-cluster, UCX over TCP on veth links) for PPN in $NT_PPN (default "2").
# Wall times are network_test's own "done in" (measurement phase, after MPI start-up).
set -euo pipefail
HERE=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$HERE/build}
NT=$B/bin/network_test CONV=$B/bin/network_convert
OUT=$(mktemp -d /tmp/nt-scale.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
VC="$HERE/scripts/virtual-cluster --name ntvcnp"
field() { sed -n "s/^plan\.$1=//p" "$2"; }
done_in() { sed -n 's/.* done in \([0-9.]*\) s.*/\1/p' "$1"; }
row() { # case schedule predicted measured
  awk -v c="$1" -v s="$2" -v p="$3" -v m="$4" 'BEGIN{printf "| %s | %s | %.3f | %.3f | %+.1f %% |\n", c, s, p, m, 100*(p-m)/m}'
}
compare() { # prefix_seq prefix_conc hostsfile label
  "$CONV" to-csv "$1_median.nc" -o "$OUT/s.csv" --force >/dev/null
  "$CONV" to-csv "$2_median.nc" -o "$OUT/c.csv" --force >/dev/null
  python3 - "$OUT/s.csv" "$OUT/c.csv" "$3" "$4" <<'PY'
import csv, statistics, sys
def load(p):
    d = {}
    for r in csv.DictReader(open(p)):
        d[(int(r['message_length']), int(r['sender']), int(r['receiver']))] = float(r['value'])
    return d
s, c = load(sys.argv[1]), load(sys.argv[2])
hosts = [l.strip() for l in open(sys.argv[3]) if l.strip() and not l.startswith('#')]
out = {}
for k, v in s.items():
    L, x, y = k
    if x == y or v <= 0 or k not in c: continue
    cls = 'same host' if hosts[x] == hosts[y] else 'other host'
    out.setdefault((L, cls), []).append((v, c[k]))
for (L, cls), vals in sorted(out.items()):
    sm = statistics.median(v for v, _ in vals); cm = statistics.median(w for _, w in vals)
    ratios = sorted(w / v for v, w in vals)
    print(f"| {sys.argv[4]} | {L} | {cls} | {len(vals)} | {sm*1e6:.1f} | {cm*1e6:.1f} | {cm/sm:.2f} | {ratios[len(ratios)//10]:.2f}..{ratios[(9*len(ratios))//10]:.2f} |")
PY
}
run_case() { # label launcher... -- args
  local label=$1; shift
  local -a launch=()
  while [[ $1 != ::: ]]; do launch+=("$1"); shift; done; shift
  "${launch[@]}" "$NT" --estimate "$@" -q -f "$OUT/never" >"$OUT/plan.txt" 2>&1
  cat "$OUT/plan.txt" >&2
  local ps pc
  ps=$(field sequential_seconds "$OUT/plan.txt"); pc=$(field concurrent_seconds "$OUT/plan.txt")
  "${launch[@]}" "$NT" "$@" --progress none -f "$OUT/$label-seq" >"$OUT/seq.txt" 2>&1
  "${launch[@]}" "$NT" "$@" --concurrent --progress none -f "$OUT/$label-conc" >"$OUT/conc.txt" 2>&1
  ROWS+=("$(row "$label" sequential "$ps" "$(done_in "$OUT/seq.txt")")")
  ROWS+=("$(row "$label" concurrent "$pc" "$(done_in "$OUT/conc.txt")")")
  CMP+=("$(compare "$OUT/$label-seq" "$OUT/$label-conc" "$OUT/$label-seq_hosts.txt" "$label")")
  printf '%s\n' "${ROWS[@]: -2}" >&2
}
ROWS=() CMP=()
run_case "4 ranks, 1 host" timeout 600 mpiexec -n 4 ::: -b 0 -e 1000 -s 100 -n 100
if [[ $(id -u) == 0 ]] && $VC check >/dev/null 2>&1; then
  $VC down >/dev/null 2>&1 || true
  $VC up --hosts 8 >/dev/null
  trap '$VC down >/dev/null 2>&1; rm -rf "$OUT"' EXIT
  for ppn in ${NT_PPN:-2}; do
    run_case "$((8 * ppn)) ranks, 8 emulated hosts" timeout 1200 $VC mpirun --ppn "$ppn" -- \
      ::: --lengths "${NT_VC_LENGTHS:-0,65536}" -n "${NT_VC_REPEATS:-10}" --warmup 2
  done
fi
echo "| case | schedule | predicted (s) | measured (s) | error |"
echo "|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
echo
echo "| case | length (B) | class | pairs | sequential median (us) | concurrent median (us) | ratio | ratio p10..p90 |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${CMP[@]}"
