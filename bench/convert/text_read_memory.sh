#!/usr/bin/env bash
# Peak memory of reading a text result file: `network_convert from-text` and `info`, a binary
# before and one after, alternated (before, after, before, after, ...), ROUNDS runs each;
# prints every run (wall s, user+sys s, max RSS MiB) and the medians. Results: bench/results/convert.md.
#   text_read_memory.sh OLD_BINARY NEW_BINARY RANKS LENGTHS WORKDIR [ROUNDS=2]
set -eu
old=$1 new=$2 ranks=$3 n=$4 work=$5 rounds=${6:-2}
mkdir -p "$work" && cd "$work"
lengths=$(seq -s, 0 1024 $(((n - 1) * 1024)))
if [ ! -e big.txt ]; then
  "$new" synth -o big --nodes $((ranks / 4)) --ranks-per-node 4 --lengths "$lengths" --repeats 2 --seed 7 >/dev/null
  "$new" to-text big_median.nc -o big.txt
  rm -f big_average.nc big_deviation.nc big_max.nc big_min.nc
fi
echo "input: big.txt, $ranks ranks x $n lengths, $(stat -c %s big.txt) bytes"
run() {  # run LABEL BINARY ARGS...: one line "LABEL wall cpu maxrss_MiB"
  local label=$1; shift
  rm -f out_median.nc out_hosts.txt
  /usr/bin/time -f "%e %U %S %M" -o t.txt "$@" >/dev/null
  read -r wall user sys rss <t.txt
  echo "$label $wall $(echo "$user + $sys" | bc) $(echo "scale=1; $rss / 1024" | bc)"
}
: >runs.txt
for cmd in from-text info; do
  for _ in $(seq "$rounds"); do
    if [ $cmd = from-text ]; then args=(from-text big.txt -o out); else args=(info big.txt); fi
    run "$cmd before" "$old" "${args[@]}" | tee -a runs.txt
    run "$cmd after" "$new" "${args[@]}" | tee -a runs.txt
  done
done
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
echo "medians: command version wall_s cpu_s maxrss_MiB"
for cmd in from-text info; do
  for v in before after; do
    sel=$(grep "^$cmd $v " runs.txt)
    echo "$cmd $v $(echo "$sel" | awk '{print $3}' | median) $(echo "$sel" | awk '{print $4}' | median) $(echo "$sel" | awk '{print $5}' | median)"
  done
done
