#!/usr/bin/env bash
# network_convert reads clustered files (written by network_cluster) through core's open_dataset.
#   clustered_input.sh NETWORK_CONVERT NETWORK_CLUSTER DATA_DIR WORK_DIR
set -euo pipefail
P=$1 C=$2 DATA=$3 WORK=$4
dir="$WORK/clustered"
rm -rf "$dir" && mkdir -p "$dir" && cp "$DATA"/* "$dir"/ && cd "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$P" synth -o run --nodes 4 --ranks-per-node 4 --lengths 0,1024,2048,4096,8192,16384 --seed 3 --noise 0.001
"$C" compress run_median.nc -o run_clustered.nc --threshold 0.05 --relative
"$P" info run_clustered.nc | tee info.txt
grep -q '^format *clustered NetCDF-4 file' info.txt || fail "not read as a clustered file"
grep -q '^ranks *16' info.txt || fail "wrong rank count"
"$P" to-csv run_clustered.nc -o c.csv
[ "$(wc -l <c.csv)" -eq $((16 * 16 * 6 + 1)) ] || fail "csv rows"
"$P" to-text run_clustered.nc -o c.txt
"$P" to-netcdf4 run_clustered.nc -o c4.nc
"$P" to-text c4.nc -o c4.txt
cmp c.txt c4.txt || fail "NetCDF-4 copy of a clustered file differs from it"
"$P" to-json run_clustered.nc -o c.json
/usr/bin/python3 -c 'import json; d=json.load(open("c.json")); assert d["source_format"]=="clustered" and len(d["matrices"])==6'
"$P" pair 0 15 run_clustered.nc | tee pair.txt
[ "$(wc -l <pair.txt)" -eq 7 ] || fail "pair rows"
# the clustered values stay close to the raw ones (the clustering error bound is the cluster's job;
# here: the conversion neither reorders nor transposes them)
"$P" to-csv run_median.nc -o r.csv
/usr/bin/python3 - <<'PY'
import csv
r = list(csv.reader(open("r.csv")))[1:]
c = list(csv.reader(open("c.csv")))[1:]
assert [x[:3] for x in r] == [x[:3] for x in c]
worst = max(abs(float(a[3]) - float(b[3])) / max(abs(float(a[3])), 1e-12) for a, b in zip(r, c) if float(a[3]) != 0)
assert worst <= 0.05 * 1.000001, worst  # the threshold asked for
print("max relative difference clustered vs raw: %.3g" % worst)
PY
"$P" merge run_median.nc run_clustered.nc -o m
echo "clustered input: ok"
