#!/usr/bin/env bash
# A clustered file of RANKS ranks (default 20,000; 5 MB on disk) used as it is,
# never expanded: `network_convert info`, `network_viewer --render` and `network_analyze report`,
# each under an address-space limit (default 4 GB). The file is written directly by
# bench_gen_clustered (noise-free two-level cluster, nodes of 4 ranks, 50 nodes per switch, one slow
# node): what compress writes for such a run.
#   bench/scale/clustered.sh BIN_DIR [RANKS=20000] [LIMIT_GB=4]
set -uo pipefail
bin=$1 P=${2:-20000} limit_gb=${3:-4}
dir=${NT_BENCH_DIR:-/tmp/nt-clustered}
mkdir -p "$dir" && cd "$dir" || exit 1
f=c$P.nc
[ -s "$f" ] || /usr/bin/time -f "generate: %e s, %M KB" "$bin/bench_gen_clustered" -o "$f" --ranks "$P" || exit 1
echo "# $(date -u '+%F %T') UTC, $P ranks, clustered file $(du -h "$f" | cut -f1), ulimit -v $limit_gb GB, load $(cut -d' ' -f1-3 /proc/loadavg)"
run() {
  local name=$1
  shift
  ( ulimit -v $((limit_gb * 1024 * 1024)); /usr/bin/time -f '%e %M' -o "$name.time" "$@" > "$name.out" 2> "$name.err" )
  local rc=$?
  read -r wall kb < <(tail -1 "$name.time")
  printf '%-8s exit %d  wall %7.1f s  peak %6.0f MB  %s\n' "$name" "$rc" "$wall" "$((kb / 1024))" "$(head -c 300 "$name.err" | tr '\n' ' ')"
}
run info "$bin/network_convert" info "$f"
QT_QPA_PLATFORM=offscreen run render "$bin/network_viewer" "$f" --render render.png --size 2000 --force
run report "$bin/network_analyze" report "$f" --json report.json --force
