#!/usr/bin/env bash
# Throughput of network_convert to-csv and to-netcdf4 on a 512-rank, 64-length raw file.
#   bench_convert.sh NETWORK_CONVERT [WORK_DIR] [RUNS]
# Makes the input once with synth (fixed seed), then runs each conversion RUNS times and prints
# the median wall time, the input data rate (MB/s of doubles read, 1 MB = 1e6 bytes), the output
# size and the peak resident memory of one run. Results go to bench/results/convert.md by hand.
set -euo pipefail
P=$1 WORK=${2:-/tmp/nt_bench_convert} RUNS=${3:-5}
mkdir -p "$WORK" && cd "$WORK"
if [ ! -f big_median.nc ]; then
  /usr/bin/time -f "synth: %e s, max RSS %M KiB" "$P" synth -o big --nodes 64 --ranks-per-node 8 \
    --nodes-per-switch 16 -b 0 -e 64512 -s 1024 --repeats 3 --seed 42 --protocol-step 16384 --force
fi
"$P" info big_median.nc | sed -n '3p;9,10p'
data_bytes=$((512 * 512 * 64 * 8))
echo "input: big_median.nc, $(stat -c %s big_median.nc) bytes on disk, $data_bytes bytes of doubles"

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

bench() {
  local name=$1 out=$2; shift 2
  local walls=() cpus=() rss=0
  for i in $(seq "$RUNS"); do
    rm -f "$out"
    sync
    /usr/bin/time -o t.txt -f "%e %U %S %M" "$P" "$@" --force >/dev/null
    read -r e u s m <t.txt
    walls+=("$e")
    cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')")
    rss=$m
  done
  local wall cpu size
  wall=$(printf '%s\n' "${walls[@]}" | median)
  cpu=$(printf '%s\n' "${cpus[@]}" | median)
  size=$(stat -c %s "$out")
  awk -v n="$name" -v w="$wall" -v c="$cpu" -v d="$data_bytes" -v s="$size" -v r="$rss" -v all="${walls[*]}" 'BEGIN {
    printf "| %s | %.2f | %.2f | %.0f | %.0f | %.1f | %.0f | %s |\n", n, w, c, d / w / 1e6, d / c / 1e6, s / 1e6, r / 1024, all }'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| conversion | median wall s | median CPU s | input MB/s (wall) | input MB/s (CPU) | output MB | peak RSS MiB | wall times s |"
echo "|---|---|---|---|---|---|---|---|"
bench to-csv big.csv to-csv big_median.nc -o big.csv
bench to-netcdf4 big4.nc to-netcdf4 big_median.nc -o big4.nc
bench to-netcdf4-d1 big4.nc to-netcdf4 big_median.nc -o big4.nc --deflate 1
bench to-text big.txt to-text big_median.nc -o big.txt
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "csv rows: $(wc -l <big.csv) (expected $((512 * 512 * 64 + 1)))"
