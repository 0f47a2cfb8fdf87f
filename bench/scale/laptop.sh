#!/usr/bin/env bash
# Wall time and peak RSS of each post-processing command on a big file, for two
# builds (BEFORE and AFTER), each command under an address-space limit (ulimit -v), the builds
# alternating per command. The file comes from bench_analyze_gen (its own model, not the suite's
# synthesiser: shuffled nodes of 4 ranks, NODES_PER_SWITCH nodes per switch, 5 % lognormal noise
# per cell, 0.1 % gross outliers, one node 3x slow), and the report is checked against its truth.
#
#   bench/scale/laptop.sh BEFORE_BIN AFTER_BIN RANKS LENGTHS [NODES_PER_SWITCH=64] [LIMIT_GB=12]
#
# BEFORE_BIN/AFTER_BIN: directories holding network_analyze, network_cluster, network_convert and
# network_viewer (e.g. a worktree of an older commit's build/bin); AFTER_BIN also bench_analyze_gen.
# Files go to $NT_BENCH_DIR (default /tmp/nt-laptop), the big input is kept for reruns
# (delete it yourself: RANKS^2 * LENGTHS * 8 bytes). COMMANDS (env) picks commands:
# default "report compress info render".
set -uo pipefail
before=$1 after=$2 P=$3 K=$4 nps=${5:-64} limit_gb=${6:-12}
dir=${NT_BENCH_DIR:-/tmp/nt-laptop}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir" && cd "$dir" || exit 1
in=g${P}x${K}_median.nc truth=g${P}x${K}.json
if [ ! -s "$in" ]; then
  /usr/bin/time -f 'generate: %e s, %M KB' "$after/bench_analyze_gen" -o "$in" --truth "$truth" --ranks "$P" \
    --ranks-per-node 4 --nodes-per-switch "$nps" --lengths "$K" --slow-node $((P / 8 + 3)) --seed 23 || exit 1
fi
limit_kb=$((limit_gb * 1024 * 1024))
run() {  # run NAME BIN_DIR COMMAND...: one line "NAME exit wall peak"
  local name=$1 bin=$2
  shift 2
  ( ulimit -v "$limit_kb"; /usr/bin/time -f '%e %M' -o "$name.time" "$@" > "$name.out" 2> "$name.err" )
  local rc=$?
  read -r wall kb < <(tail -1 "$name.time")
  printf '%-22s exit %d  wall %7.1f s  peak %6.0f MB  %s\n' "$name" "$rc" "$wall" "$((kb / 1024))" \
    "$(grep -m1 -iE 'error|memory' "$name.err" | cut -c1-100)"
}
echo "# $(date -u '+%F %T') UTC, ${P} ranks x ${K} lengths ($(du -h "$in" | cut -f1)), ulimit -v ${limit_gb} GB, load $(cut -d' ' -f1-3 /proc/loadavg)"
for cmd in ${COMMANDS:-report compress info render}; do
  for side in before after; do
    bin=$before
    [ "$side" = after ] && bin=$after
    case $cmd in
      report) run "report-$side" "$bin" "$bin/network_analyze" report "$in" --json "report-$side.json" --force ;;
      compress) run "compress-$side" "$bin" "$bin/network_cluster" compress "$in" -o "c-$side.nc" --threshold 0.05 --relative --force ;;
      info) run "info-$side" "$bin" "$bin/network_convert" info "$in" ;;
      render) QT_QPA_PLATFORM=offscreen run "render-$side" "$bin" "$bin/network_viewer" "$in" --render "r-$side.png" \
                --size 2000 --force ;;
    esac
    if [ "$cmd" = report ] && [ -s "report-$side.json" ]; then
      /usr/bin/python3 "$here/check_groups.py" "$truth" "report-$side.json" | sed 's/^/    /'
    fi
  done
done
