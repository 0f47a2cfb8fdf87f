#!/usr/bin/env bash
# A memory limit the job does not fit is one line on stderr and exit 2 (never
# exit 1, never a kill), for network_convert's commands and network_cluster compress, under
# NT_MEMORY_LIMIT and under an address-space limit (ulimit -v). Runs in about 10 s.
set -u
convert=$1 cluster=$2 work=$3/memory_limit
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
expect2() {  # expect2 LABEL PATTERN -- command...
  local label=$1 pattern=$2; shift 3
  "$@" >out.txt 2>err.txt
  local rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l <err.txt)" -ne 1 ] || ! grep -q "$pattern" err.txt; then
    echo "FAIL $label: exit $rc, stderr:"; cat err.txt; fail=1
  else
    echo "ok   $label: $(cat err.txt)"
  fi
}
"$convert" synth -o s --nodes 16 --ranks-per-node 4 --shuffle --slow-node 3 >/dev/null || exit 1
for c in "info s_median.nc" "to-csv s_median.nc -o x.csv" "to-text s_median.nc -o x.txt" \
         "to-json s_median.nc -o x.json" "merge s_median.nc s_median.nc -o m.nc"; do
  # shellcheck disable=SC2086
  expect2 "convert $c" "NT_MEMORY_LIMIT" -- env NT_MEMORY_LIMIT=10K "$convert" $c
done
expect2 "cluster compress" "NT_MEMORY_LIMIT" -- env NT_MEMORY_LIMIT=10K "$cluster" compress s_median.nc --threshold 0.05 -o c.nc
# synth writes as it generates: its need is a few rows (here 64 ranks: about 9 KB), checked up
# front, so a limit below that is one line and no file; 10K is enough (it no longer holds the data).
expect2 "convert synth" "out of memory: synthesizing 64 ranks.*NT_MEMORY_LIMIT=1K" -- \
  env NT_MEMORY_LIMIT=1K "$convert" synth -o lim --nodes 16 --ranks-per-node 4
ls lim_* >/dev/null 2>&1 && { echo "FAIL: a refused synth left files"; fail=1; }
env NT_MEMORY_LIMIT=10K "$convert" synth -o lim --nodes 16 --ranks-per-node 4 >/dev/null ||
  { echo "FAIL: synth of 64 ranks under NT_MEMORY_LIMIT=10K"; fail=1; }
"$convert" synth -o free --nodes 16 --ranks-per-node 4 >/dev/null || exit 1
cmp -s lim_median.nc free_median.nc || { echo "FAIL: synth under the limit wrote other bytes"; fail=1; }
# A limit the reader's one-matrix check passes but the command's own need (require_memory) does not.
expect2 "convert merge (3 matrices)" "out of memory: merging 2 runs of 64 ranks.*NT_MEMORY_LIMIT=50K" -- \
  env NT_MEMORY_LIMIT=50K "$convert" merge s_median.nc s_median.nc -o m.nc
expect2 "cluster compress (20 P^2)" "out of memory: compressing 64 ranks.*NT_MEMORY_LIMIT=50K" -- \
  env NT_MEMORY_LIMIT=50K "$cluster" compress s_median.nc --threshold 0.05 -o c.nc

# 2,048 ranks: one matrix is 33.5 MB. Under ~170 MB of address space the programs load, and info
# (one matrix at a time) and compress (20 P^2 = 84 MB) fit, compress writing what it writes without
# a limit; under 120 MB compress does not fit, and says so naming `ulimit -v`.
"$convert" synth -o big --nodes 512 --ranks-per-node 4 --lengths 0 1024 --repeats 2 >/dev/null || exit 1
(ulimit -v 170000; "$convert" info big_median.nc >/dev/null) || { echo "FAIL info under ulimit -v 170000"; fail=1; }
(ulimit -v 170000; "$cluster" compress big_median.nc --threshold 0.05 -o c170.nc >/dev/null) ||
  { echo "FAIL compress under ulimit -v 170000"; fail=1; }
"$cluster" compress big_median.nc --threshold 0.05 -o cfree.nc >/dev/null || exit 1
"$convert" to-csv c170.nc -o c170.csv >/dev/null && "$convert" to-csv cfree.nc -o cfree.csv >/dev/null &&
  cmp -s c170.csv cfree.csv || { echo "FAIL: compress under the limit gave other values"; fail=1; }
expect2 "cluster compress under ulimit -v" "ulimit -v" -- bash -c 'ulimit -v 120000; exec "$0" compress big_median.nc --threshold 0.05 -o c.nc' "$cluster"
expect2 "convert info under ulimit -v" "ulimit -v" -- bash -c 'ulimit -v 90000; exec "$0" info big_median.nc' "$convert"
for f in c.nc m.nc; do [ -e $f ] && { echo "FAIL: a refused job left $f"; fail=1; }; done
rm -rf "$work"
exit $fail
