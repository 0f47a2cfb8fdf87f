#!/bin/bash
# Benchmark of network_cluster: compress RANKS x LENGTHS on one core (time and peak memory via
# /usr/bin/time -v, three runs), then random-access reads per second on the clustered file and,
# for comparison, on the raw CDF-2 file.
# usage: bench/cluster/run_bench.sh BUILD_DIR [RANKS=1024] [LENGTHS=64] [NOISE=0.01] [WORKDIR]
set -eu
B=${1:?build dir}; P=${2:-1024}; N=${3:-64}; NOISE=${4:-0.01}; W=${5:-/tmp/nt_cluster_bench}
mkdir -p "$W"
raw=$W/bench_${P}x${N}_n${NOISE}_median.nc
[ -f "$raw" ] || "$B/bin/bench_cluster" gen "$raw" "$P" "$N" "$NOISE"
echo "raw file: $(stat -c %s "$raw") bytes ($P ranks x $N lengths, noise $NOISE)"
for run in 1 2 3; do
  taskset -c 0 /usr/bin/time -v "$B/bin/network_cluster" compress "$raw" -o "$W/c.nc" --threshold 0.05 --relative \
      --exceptions 2 --min-region 2 --force 2> "$W/time.$run" | sed 's/^/  /'
  grep -E "Elapsed|Maximum resident|User time|System time" "$W/time.$run" | sed "s/^\t*/  run $run: /"
done
"$B/bin/network_cluster" info "$W/c.nc"
echo "random access, clustered file:"
"$B/bin/bench_cluster" reads "$W/c.nc" 200000
echo "random access, raw CDF-2 file (for comparison):"
"$B/bin/bench_cluster" reads "$raw" 200000
