#!/usr/bin/env bash
# CPU time (user+sys) and peak RSS of `network_analyze report` on noisy synthetic files of
# 512-4096 ranks; appends a section to bench/results/analyze.md (or OUT).
#
#   bench/analyze/scale.sh BIN_DIR [BASELINE_ANALYZE] [SIZES] [RUNS]
#
# BIN_DIR holds network_convert and network_analyze. BASELINE_ANALYZE (optional) is another
# network_analyze binary (e.g. the one of main) run alternately with the new one on each file.
# SIZES: space separated RANKSxLENGTHS (default "512x32 1024x32 2048x32 1024x16 2048x16 4096x16").
# Files go to $NT_BENCH_DIR (default a fresh directory under /tmp, never the repository) and are
# deleted after each size: 2048x32 is 1.07 GB per statistic, 4096x16 is 2.1 GB.
# The deviation file that synth writes beside the median is deleted too: the report then reads
# only the median file (with it, the variance check reads a second file of the same size).
set -euo pipefail
bin=${1:?usage: scale.sh BIN_DIR [BASELINE_ANALYZE] [SIZES] [RUNS]}
base=${2:-}
sizes=${3:-"512x32 1024x32 2048x32 1024x16 2048x16 4096x16"}
runs=${4:-1}
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$here/bench/results/analyze.md}
work=${NT_BENCH_DIR:-$(mktemp -d /tmp/nt-bench-analyze.XXXXXX)}
mkdir -p "$work"
trap 'rm -rf "$work"/s_*' EXIT
[ -x /usr/bin/time ] || { echo "scale.sh: /usr/bin/time is needed (apt-get install time)" >&2; exit 2; }

lengths() {  # N lengths: 0, then powers of two with a step chosen so that the last is <= 2^30
  python3 -c "
import sys
n=int(sys.argv[1]); step=max(1, 30//(n-1))
print(','.join(['0']+[str(2**(i*step)) for i in range(n-1)]))" "$1"
}

# median of numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

rows=()
for s in $sizes; do
  P=${s%x*}; K=${s#*x}
  rpn=8; nodes=$((P / rpn))
  pre="$work/s_$s"
  echo "== $s: generating" >&2
  "$bin/network_convert" synth -o "$pre" --nodes "$nodes" --ranks-per-node $rpn --nodes-per-switch 16 \
    --shuffle --noise 0.05 --cell-noise 0.05 --repeats 3 --slow-node 3 --seed 7 --lengths "$(lengths "$K")" --force >/dev/null
  rm -f "$pre"_deviation.nc "$pre"_min.nc "$pre"_max.nc "$pre"_average.nc
  mb=$(du -m "$pre"_median.nc | cut -f1)
  declare -A cpu=() rss=()
  for r in $(seq "$runs"); do
    for which in new base; do
      exe="$bin/network_analyze"
      [ "$which" = base ] && { [ -n "$base" ] || continue; exe=$base; }
      log="$work/time.$which"
      if /usr/bin/time -f "%U %S %M" -o "$log" "$exe" report "$pre"_median.nc --quiet --json "$work/r.$which.json" --force; then
        read -r u sy m <"$log"
        cpu[$which]+="$(echo "$u + $sy" | bc) "
        rss[$which]+="$m "
      else
        cpu[$which]+="fail "
      fi
      echo "   $which run $r: $(cat "$log" | tail -1)" >&2
    done
  done
  # groups per level, and whether the baseline found the same hierarchy and anomaly kinds
  groups=$(python3 -c "
import json,sys,os
def key(f):
    j=json.load(open(f)); return ([l['groups'] for l in j['hierarchy']], sorted(a['kind'] for a in j['anomalies']))
j=json.load(open(sys.argv[1]))
s='/'.join(str(len(l['groups'])) for l in j['hierarchy'])
if os.path.exists(sys.argv[2]): s+=' (same as before)' if key(sys.argv[1])==key(sys.argv[2]) else ' (DIFFERS from before)'
print(s)" "$work/r.new.json" "$work/r.base.json" 2>/dev/null || echo '?')
  rm -f "$work"/r.*.json
  line="| $P x $K | $mb |"
  for which in base new; do
    [ "$which" = base ] && [ -z "$base" ] && continue
    c=$(echo "${cpu[$which]}" | tr ' ' '\n' | grep -v '^$' | grep -v fail | median || true)
    m=$(echo "${rss[$which]:-0}" | tr ' ' '\n' | grep -v '^$' | median)
    line+=" ${c:-fail} | $((m / 1024)) |"
  done
  line+=" $groups |"
  rows+=("$line")
  echo "$line" >&2
  rm -f "$pre"_*
  unset cpu rss
done

{
  echo
  echo "## Scale: report on $(date -u +%F) ($(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'), load $(cut -d' ' -f1-3 /proc/loadavg))"
  echo
  echo '```'
  echo "bench/analyze/scale.sh $* "
  echo '```'
  echo "synth: 8 ranks per node, 16 nodes per switch, shuffled, --noise 0.05 --cell-noise 0.05, one slow node;"
  echo "median file only (deviation removed). CPU = user+sys seconds (median of $runs), RSS = peak MB."
  echo
  if [ -n "$base" ]; then
    echo "| ranks x lengths | file MB | before CPU s | before RSS MB | after CPU s | after RSS MB | groups per level |"
    echo "|---|---:|---:|---:|---:|---:|---|"
  else
    echo "| ranks x lengths | file MB | CPU s | peak RSS MB | groups per level |"
    echo "|---|---:|---:|---:|---|"
  fi
  printf '%s\n' "${rows[@]}"
} >>"$out"
echo "appended to $out" >&2
