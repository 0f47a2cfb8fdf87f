#!/usr/bin/env bash
# CPU time (user+sys) and peak RSS of `network_analyze report` on noisy files of 512-4096 ranks,
# the growth exponent of the CPU time between 1024 and 4096 ranks, and whether the nodes and
# switches found are the true ones; appends a section to bench/results/analyze.md (or $OUT).
#
#   bench/analyze/scale.sh BIN_DIR [BASELINE_ANALYZE] [SIZES] [RUNS]
#
# BIN_DIR holds network_analyze and bench_analyze_gen. BASELINE_ANALYZE (optional) is another
# network_analyze binary (e.g. main's), run right after the new one on each file.
# SIZES: RANKSxLENGTHS (default "512x32 1024x16 1024x32 2048x16 2048x32 4096x16").
# RUNS: rounds (default 3); each round runs every size once, so the sizes alternate and a burst
# of load on the shared machine hits all sizes alike; the table gives medians.
# Files: bench_analyze_gen (shuffled ranks, 8 per node, 16 nodes per switch, three link classes,
# 5 % lognormal noise per cell, 0.1 % outliers, one node 3x slow), median file only, written one
# length at a time into $NT_BENCH_DIR (default a fresh directory under /tmp), deleted at the end.
set -euo pipefail
bin=${1:?usage: scale.sh BIN_DIR [BASELINE_ANALYZE] [SIZES] [RUNS]}
base=${2:-}
sizes=${3:-"512x32 1024x16 1024x32 2048x16 2048x32 4096x16"}
runs=${4:-3}
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$here/bench/results/analyze.md}
work=${NT_BENCH_DIR:-$(mktemp -d /tmp/nt-bench-analyze.XXXXXX)}
mkdir -p "$work"
trap 'rm -f "$work"/g_* "$work"/r_* "$work"/t_*' EXIT
[ -x /usr/bin/time ] || { echo "scale.sh: /usr/bin/time is needed (apt-get install time)" >&2; exit 2; }
for s in $sizes; do
  P=${s%x*}; K=${s#*x}
  [ -f "$work/g_$s.nc" ] && continue
  echo "== $s: generating" >&2
  "$bin/bench_analyze_gen" -o "$work/g_$s.nc" --truth "$work/g_$s.json" --ranks "$P" --lengths "$K" --seed 7
done
declare -A cpu=() rss=() exact=()
for r in $(seq "$runs"); do
  for s in $sizes; do
    for which in new base; do
      exe="$bin/network_analyze"
      [ "$which" = base ] && { [ -n "$base" ] || continue; exe=$base; }
      log="$work/t_$which"
      if /usr/bin/time -f "%U %S %M" -o "$log" "$exe" report "$work/g_$s.nc" --quiet --json "$work/r_$which.json" --force; then
        read -r u sy m <"$log"
        cpu[$which.$s]+="$(echo "$u + $sy" | bc) "
        rss[$which.$s]+="$m "
      else
        cpu[$which.$s]+="fail "
      fi
      # nodes and switches against the truth, and the anomaly kinds
      exact[$which.$s]=$(python3 - "$work/r_$which.json" "$work/g_$s.json" <<'EOF' 2>/dev/null || echo '?'
import json, sys
j = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
def part(labels):
    g = {}
    for r, x in enumerate(labels): g.setdefault(x, []).append(r)
    return sorted(g.values())
h = j["hierarchy"]
ok = len(h) == 2 and sorted(h[0]["groups"]) == part(t["node"]) and sorted(h[1]["groups"]) == part(t["switch"])
kinds = ",".join(sorted(a["kind"] for a in j["anomalies"]))
print(("exact" if ok else "WRONG") + " " + "/".join(str(len(l["groups"])) for l in h) + ", " + (kinds or "none"))
EOF
)
      echo "   round $r $s $which: $(tail -1 "$log") ${exact[$which.$s]}" >&2
    done
  done
done

median() { tr ' ' '\n' | grep -v '^$' | grep -v fail | sort -g | awk '{a[NR]=$1} END {if (NR) print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
rows=()
declare -A med=()
for s in $sizes; do
  P=${s%x*}; K=${s#*x}
  mb=$(du -m "$work/g_$s.nc" | cut -f1)
  line="| $P x $K | $mb |"
  for which in base new; do
    [ "$which" = base ] && [ -z "$base" ] && continue
    c=$(echo "${cpu[$which.$s]:-}" | median)
    m=$(echo "${rss[$which.$s]:-}" | median)
    med[$which.$s]=$c
    line+=" ${c:-fail} | $(( ${m%.*} / 1024 )) | ${exact[$which.$s]} |"
  done
  rows+=("$line")
done
# growth exponent of the CPU time with the ranks at 16 lengths (least squares on log-log)
fit=$(python3 - "${med[new.1024x16]:-}" "${med[new.2048x16]:-}" "${med[new.4096x16]:-}" <<'EOF'
import math, sys
pts = [(p, float(c)) for p, c in zip((1024, 2048, 4096), sys.argv[1:]) if c]
if len(pts) < 2: print("not measured (needs at least two of 1024x16, 2048x16, 4096x16)"); sys.exit()
xs = [math.log(p) for p, _ in pts]; ys = [math.log(c) for _, c in pts]
mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
print("P^%.2f (least squares over %s ranks at 16 lengths)" % (b, ", ".join(str(p) for p, _ in pts)))
EOF
)
{
  echo
  echo "## Scale of report: $(date -u +'%F %H:%M') UTC ($(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'), load $(cut -d' ' -f1-3 /proc/loadavg))"
  echo
  echo '```'
  echo "bench/analyze/scale.sh $*"
  echo '```'
  echo "Files from bench_analyze_gen (shuffled, 8 ranks per node, 16 nodes per switch, 3 link classes,"
  echo "5 % noise per cell, 0.1 % outliers, one node 3x slow). CPU = user+sys s, RSS = peak MB, medians"
  echo "of $runs rounds (sizes alternate within a round). Topology: nodes/switches against the truth."
  echo
  if [ -n "$base" ]; then
    echo "| ranks x lengths | file MB | before CPU s | before RSS MB | before topology | after CPU s | after RSS MB | after topology |"
    echo "|---|---:|---:|---:|---|---:|---:|---|"
  else
    echo "| ranks x lengths | file MB | CPU s | peak RSS MB | topology, anomalies |"
    echo "|---|---:|---:|---:|---|"
  fi
  printf '%s\n' "${rows[@]}"
  echo
  echo "CPU growth 1024 -> 4096 ranks: $fit."
} >>"$out"
echo "appended to $out" >&2
