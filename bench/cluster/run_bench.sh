#!/bin/bash
# network_cluster against simple error-bounded and lossless baselines, side by side, on inputs
# from bench_cluster gen (shuffled ranks, three classes, independent lognormal noise per cell;
# not the generator of network_convert synth and not shaped by the clustering code).
# usage: bench/cluster/run_bench.sh BUILD_DIR [BOUND=0.05] [WORKDIR=/tmp/nt_cluster_bench] [CASES...]
#   CASES are RANKSxNOISE, default: 64x0.01 512x0.01 1024x0.01 512x0.05 1024x0.05
#   (2048x0.01 works too: 1 GiB raw). Lengths: 32. LOSSLESS_MAX_RANKS (default 512) limits the
#   slow lossless xz -9 column to inputs up to that many ranks.
# Per tool: bytes, ratio vs the raw CDF-2 file, max/mean relative error (v != 0), compress and
# decompress CPU seconds (user+sys), and for network_cluster the peak RSS and the median time of
# one random value read through the core reader (open_dataset), 20000 reads.
set -eu
B=${1:?build dir}; BOUND=${2:-0.05}; W=${3:-/tmp/nt_cluster_bench}; shift $(( $# < 3 ? $# : 3 ))
CASES=${*:-64x0.01 512x0.01 1024x0.01 512x0.05 1024x0.05}
LMAX=${LOSSLESS_MAX_RANKS:-512}
N=32
mkdir -p "$W"
cpu() {  # cpu OUTFILE CMD... : runs CMD, prints user+sys seconds; peak RSS (KiB) in OUTFILE.rss
  local f=$1; shift
  /usr/bin/time -f "%U %S %M" -o "$f.time" "$@" >"$f.log" 2>&1 || { cat "$f.log"; return 1; }
  awk '{printf "%.2f", $1 + $2}' "$f.time"; awk '{print $3}' "$f.time" >"$f.rss"
}
size() { stat -c %s "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", a / b}'; }
echo "bound $BOUND relative, $N lengths; $(nproc) cores; $(date -u +%F)"
echo
echo "| input | tool | bytes | ratio | max rel err | mean rel err | compress CPU s | decompress CPU s | notes |"
echo "|---|---|---|---|---|---|---|---|---|"
for c in $CASES; do
  P=${c%x*}; NOISE=${c#*x}
  raw=$W/g${P}_n${NOISE}.nc
  [ -f "$raw" ] || "$B/bin/bench_cluster" gen "$raw" "$P" "$N" "$NOISE" 4242 >/dev/null
  R=$(size "$raw"); in="$P ranks, noise $NOISE, $((R / 1000000)) MB"
  # network_cluster
  t=$(cpu "$W/nc" "$B/bin/network_cluster" compress "$raw" -o "$W/c.nc" --threshold "$BOUND" --relative --force)
  rss=$(cat "$W/nc.rss")
  d=$(cpu "$W/nd" "$B/bin/network_cluster" decompress "$W/c.nc" -o "$W/back.nc" --force)
  e=$("$B/bin/bench_cluster" errors "$raw" "$W/c.nc")
  rd=$("$B/bin/bench_cluster" reads "$W/c.nc" 20000 | grep -o 'median [0-9.]* us')
  S=$(size "$W/c.nc")
  echo "| $in | network_cluster | $S | $(ratio "$R" "$S") | $(echo "$e" | awk '{print $2}') | $(echo "$e" | awk '{print $4}') | $t | $d | peak RSS $((rss / 1024)) MiB; one value read: $rd |"
  # log-quantise baseline (uint16 of round(log v / (2 log(1+bound)))), then xz -9 / zstd -19
  q=$W/q.u16
  tq=$(cpu "$W/qq" "$B/bin/bench_cluster" quantise "$raw" "$q" "$BOUND")
  e=$("$B/bin/bench_cluster" qerrors "$raw" "$q" "$BOUND")
  tx=$(cpu "$W/qx" xz -9 -T1 -k -f "$q"); dx=$(cpu "$W/qdx" xz -d -c "$q.xz")
  S=$(size "$q.xz")
  echo "| $in | log-quantise + xz -9 | $S | $(ratio "$R" "$S") | $(echo "$e" | awk '{print $2}') | $(echo "$e" | awk '{print $4}') | $(awk -v a="$tq" -v b="$tx" 'BEGIN{printf "%.2f", a + b}') | $dx | quantise $tq s; decompress = xz -d only; no random access |"
  tz=$(cpu "$W/qz" zstd -19 -T1 -q -k -f "$q"); dz=$(cpu "$W/qdz" zstd -d -c "$q.zst")
  S=$(size "$q.zst")
  echo "| $in | log-quantise + zstd -19 | $S | $(ratio "$R" "$S") | $(echo "$e" | awk '{print $2}') | $(echo "$e" | awk '{print $4}') | $(awk -v a="$tq" -v b="$tz" 'BEGIN{printf "%.2f", a + b}') | $dz | no random access |"
  rm -f "$q" "$q.xz" "$q.zst"
  if [ "$P" -le "$LMAX" ]; then
    tl=$(cpu "$W/lx" sh -c "xz -9 -T1 -c '$raw' > '$W/raw.xz'"); S=$(size "$W/raw.xz")
    dl=$(cpu "$W/ldx" xz -d -c "$W/raw.xz")
    echo "| $in | lossless xz -9 | $S | $(ratio "$R" "$S") | 0 | 0 | $tl | $dl | |"
    rm -f "$W/raw.xz"
  fi
  rm -f "$W/n4.nc"; t4=$(cpu "$W/n4" "$B/bin/network_convert" to-netcdf4 "$raw" -o "$W/n4.nc")
  S=$(size "$W/n4.nc")
  rd=$("$B/bin/bench_cluster" reads "$W/n4.nc" 2000 | grep -o 'median [0-9.]* us')
  echo "| $in | network_convert to-netcdf4 | $S | $(ratio "$R" "$S") | 0 | 0 | $t4 | | one value read: $rd |"
  rm -f "$W/n4.nc" "$W/back.nc"
done
