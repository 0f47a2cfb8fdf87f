#!/usr/bin/env bash
# Text files are read length by length. 600 ranks x 8 lengths: one matrix is 2.9 MB, the
# whole cube 23 MB. from-text and info of that file run under an address-space limit (ulimit -v)
# of what the same commands need for a 4-rank file plus 12 MB (a few matrices, not the cube; the
# reader that held every matrix needs 23 MB more than the 4-rank file) and write the same file as
# without the limit.
set -u
convert=$1 work=$2/text_memory
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
lengths=0,64,512,1024,4096,16384,65536,262144
"$convert" synth -o tiny --nodes 2 --ranks-per-node 2 --lengths $lengths >/dev/null &&
  "$convert" to-text tiny_median.nc -o tiny.txt &&
  "$convert" synth -o big --nodes 150 --ranks-per-node 4 --lengths $lengths --repeats 2 >/dev/null &&
  "$convert" to-text big_median.nc -o big.txt || exit 1

# The smallest limit (KB, to 1 MB) under which both commands convert the 4-rank file.
fits() {  # fits KB FILE: from-text and info of FILE succeed under ulimit -v KB
  rm -f lim_median.nc lim_hosts.txt
  (ulimit -v "$1"; "$convert" from-text "$2" -o lim >/dev/null 2>&1 && "$convert" info "$2" >/dev/null 2>&1) 2>/dev/null
}
lo=1024 hi=4194304
fits $hi tiny.txt || { echo "FAIL: the 4-rank file does not convert under ulimit -v $hi"; exit 1; }
while [ $((hi - lo)) -gt 1024 ]; do
  mid=$(((lo + hi) / 2))
  if fits $mid tiny.txt; then hi=$mid; else lo=$mid; fi
done
limit=$((hi + 12 * 1024))
echo "4 ranks need ulimit -v $hi KB; 600 ranks get $limit KB"

fail=0
rm -f lim_median.nc lim_hosts.txt
(ulimit -v $limit; "$convert" from-text big.txt -o lim >/dev/null) ||
  { echo "FAIL: from-text of 600 ranks x 8 lengths under ulimit -v $limit"; fail=1; }
(ulimit -v $limit; "$convert" info big.txt >info_lim.txt) ||
  { echo "FAIL: info of 600 ranks x 8 lengths under ulimit -v $limit"; fail=1; }
"$convert" from-text big.txt -o free >/dev/null && "$convert" info big.txt >info_free.txt || exit 1
cmp -s lim_median.nc free_median.nc || { echo "FAIL: from-text under the limit wrote other bytes"; fail=1; }
cmp -s lim_hosts.txt free_hosts.txt || { echo "FAIL: from-text under the limit wrote other hosts"; fail=1; }
cmp -s info_lim.txt info_free.txt || { echo "FAIL: info under the limit printed something else"; fail=1; }
# And the values are those of the raw file the text was written from.
"$convert" to-csv free_median.nc -o free.csv && "$convert" to-csv big_median.nc -o big.csv || exit 1
cmp -s free.csv big.csv || { echo "FAIL: from-text changed values"; fail=1; }
[ $fail -eq 0 ] && rm -rf "$work"
exit $fail
