#!/usr/bin/env bash
# Peak memory (max RSS) and wall of network_convert's post-processing commands on a big run, to
# check that they stream (a few P x P slices at most, never n x P x P).
#   stream_memory.sh NETWORK_CONVERT [RANKS] [LENGTHS] [WORK_DIR] [SMALL_RANKS]
# Makes RANKS x LENGTHS with synth (seed 7), then info, the format conversion to-netcdf4
# (deflate 1) and merge of the run with itself; to-csv and to-text (huge outputs) run on a
# SMALL_RANKS x LENGTHS file. One run of each (the figures vary by a few per cent).
# Deletes its files at the end. Results go to bench/results/convert.md by hand.
set -euo pipefail
P=$1 R=${2:-2048} N=${3:-8} WORK=${4:-/tmp/nt_stream_memory} SMALL=${5:-1024}
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
trap 'cd / && rm -rf "$WORK"' EXIT
lengths=$(seq -s, 0 1024 $(((N - 1) * 1024)))
run() {  # run LABEL command...
  local label=$1; shift
  /usr/bin/time -o t.txt -f "%e %M" "$@" >/dev/null
  read -r e m <t.txt
  printf '%-28s wall %8.2f s   max RSS %8.1f MB\n' "$label" "$e" "$(awk -v m="$m" 'BEGIN {print m * 1024 / 1e6}')"
}
echo "$R ranks x $N lengths: one matrix $(awk -v r="$R" 'BEGIN {printf "%.1f", 8 * r * r / 1e6}') MB," \
  "one statistic file $(awk -v r="$R" -v n="$N" 'BEGIN {printf "%.1f", 8 * r * r * n / 1e6}') MB"
run "synth $R x $N" "$P" synth -o big --nodes $((R / 8)) --ranks-per-node 8 --lengths "$lengths" --repeats 2 --seed 7
run "info" "$P" info big_median.nc
run "to-netcdf4 --deflate 1" "$P" to-netcdf4 big_median.nc -o big4.nc --deflate 1
rm -f big4.nc
run "merge (2 runs)" "$P" merge big_median.nc big_median.nc -o m
rm -f m_*
rm -f big_*
run "synth $SMALL x $N" "$P" synth -o small --nodes $((SMALL / 8)) --ranks-per-node 8 --lengths "$lengths" --repeats 2 --seed 7
run "to-csv ($SMALL ranks)" "$P" to-csv small_median.nc -o s.csv
rm -f s.csv
run "to-text ($SMALL ranks)" "$P" to-text small_median.nc -o s.txt
rm -f s.txt
run "info ($SMALL ranks)" "$P" info small_median.nc
