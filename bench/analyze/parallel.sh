#!/usr/bin/env bash
# Wall time and peak RSS per rank of `network_analyze report` serial and under `mpiexec -n N`
# (share/doc/analyze.md "Parallel analysis"), and whether the JSON is the same; prints a Markdown
# table (medians of RUNS runs) to append to bench/results/analyze.md.
#
#   bench/analyze/parallel.sh BIN_DIR MPIEXEC [RANKS] [LENGTHS] [NS] [RUNS]
#
# BIN_DIR holds network_analyze and network_convert; MPIEXEC is the build's MPIEXEC_EXECUTABLE
# (MPICH's mpiexec for the dev preset). Defaults: 4096 ranks, 8 lengths, NS "2", RUNS 3.
# The file: network_convert synth (512 ranks per 128 nodes..., shuffled, one slow node, with its
# deviation file, which report reads too), in $NT_BENCH_DIR (default a fresh /tmp directory),
# deleted at the end. Each run uses --threads 1 so that the ranks, not the threads, share the cores.
# Peak RSS per rank: /usr/bin/time -v of mpiexec reports the largest of its children's.
set -euo pipefail
bin=${1:?usage: parallel.sh BIN_DIR MPIEXEC [RANKS] [LENGTHS] [NS] [RUNS]}
mpiexec=${2:?usage: parallel.sh BIN_DIR MPIEXEC [RANKS] [LENGTHS] [NS] [RUNS]}
P=${3:-4096}; K=${4:-8}; ns=${5:-2}; runs=${6:-3}
work=${NT_BENCH_DIR:-$(mktemp -d /tmp/nt-bench-parallel.XXXXXX)}
mkdir -p "$work"
trap 'rm -f "$work"/p_*' EXIT
[ -x /usr/bin/time ] || { echo "parallel.sh: /usr/bin/time is needed (apt-get install time)" >&2; exit 2; }
lengths=$(awk -v k="$K" 'BEGIN { for (i = 0; i < k; ++i) printf "%d ", (i == 0 ? 0 : 2 ^ (2 * i + 2)) }')
# shellcheck disable=SC2086
"$bin/network_convert" synth -o "$work/p_" --nodes $((P / 4)) --ranks-per-node 4 --nodes-per-switch 16 \
  --shuffle --slow-node 5 --repeats 1 --lengths $lengths >/dev/null
rm -f "$work"/p__average.nc "$work"/p__max.nc "$work"/p__min.nc
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
one() {  # LABEL LAUNCHER...: RUNS runs, "wall_s rss_MiB" medians
  local tag=$1; shift
  local w=() r=()
  for ((i = 0; i < runs; ++i)); do
    /usr/bin/time -v "$@" "$bin/network_analyze" --threads 1 report "$work/p__median.nc" --json "$work/p_$tag.json" \
      --force --quiet 2> "$work/p_time"
    w+=("$(awk -F': ' '/Elapsed/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + t[i]; print s }' "$work/p_time")")
    r+=("$(awk '/Maximum resident/ { printf "%.0f", $NF / 1024 }' "$work/p_time")")
  done
  echo "$(printf '%s\n' "${w[@]}" | median) $(printf '%s\n' "${r[@]}" | median)"
}
read -r sw sr < <(one serial)
echo "| ${P} x ${K} | serial | $sw | $sr | - |"
for n in $ns; do
  read -r pw pr < <(one "mpi$n" "$mpiexec" -n "$n")
  same=no; cmp -s "$work/p_serial.json" "$work/p_mpi$n.json" && same=yes
  echo "| ${P} x ${K} | mpiexec -n $n | $pw | $pr | $same |"
done
