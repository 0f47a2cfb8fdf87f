#!/usr/bin/env bash
# The NetCDF-4 copy as seen by real clients: h5dump -H and Debian's python3-xarray.
#   netcdf4_interop.sh NETWORK_CONVERT WORK_DIR
set -euo pipefail
P=$1 WORK=$2
dir="$WORK/interop"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$P" synth -o run --nodes 3 --ranks-per-node 2 --lengths 0,512,4096,65536 --seed 11 --protocol-step 4096
"$P" to-netcdf4 run_median.nc -o run4.nc

h5dump -H -p run4.nc >h5.txt || fail "h5dump -H cannot read the copy"
cat h5.txt | grep -A12 'DATASET "data"'
grep -q 'DATASET "data"' h5.txt || fail "no data dataset"
grep -q 'DATASET "message_length"' h5.txt || fail "no message_length dataset"
grep -A12 'DATASET "data"' h5.txt | grep -q 'CHUNKED ( 1, 6, 6 )' || fail "data is not chunked one matrix per chunk"
grep -A20 'DATASET "data"' h5.txt | grep -q 'SHUFFLE' || fail "no shuffle filter"
grep -A20 'DATASET "data"' h5.txt | grep -q 'DEFLATE { LEVEL 4 }' || fail "no deflate filter"
for v in proc_num test_type data_type begin_mes_length end_mes_length step_length noise_mes_length \
         num_noise_mes num_noise_proc num_repeates; do
  grep -q "DATASET \"$v\"" h5.txt || fail "scalar $v missing"
done

ncdump -hs run4.nc >cdl.txt || fail "ncdump cannot read the copy"
grep -q 'double data(n, x, y)' cdl.txt || fail "ncdump: no data(n, x, y)"
grep -q 'data:_ChunkSizes = 1, 6, 6' cdl.txt || fail "ncdump: wrong chunk sizes"
grep -q 'data:_DeflateLevel = 4' cdl.txt || fail "ncdump: no deflate"
grep -q ':_Format = "netCDF-4"' cdl.txt || fail "ncdump: not netCDF-4"

/usr/bin/python3 - <<'PY'
import numpy as np
import xarray as xr

raw = xr.open_dataset("run_median.nc", engine="netcdf4")
nc4 = xr.open_dataset("run4.nc", engine="netcdf4")
assert nc4["data"].dims == ("n", "x", "y"), nc4["data"].dims
assert nc4["data"].shape == (4, 6, 6), nc4["data"].shape
assert list(nc4["message_length"].values) == [0, 512, 4096, 65536], nc4["message_length"].values
assert "message_length" in nc4["data"].coords, nc4["data"].coords
assert np.array_equal(raw["data"].values, nc4["data"].values), "data differ from the raw file"
assert nc4["data"].attrs["units"] == "s"
enc = nc4["data"].encoding
assert enc.get("zlib") and enc.get("shuffle") and tuple(enc.get("chunksizes")) == (1, 6, 6), enc
for v in ["proc_num", "test_type", "data_type", "num_repeates"]:
    assert int(raw[v]) == int(nc4[v]), v
skip = {"archive_copy_of"}
for k, v in raw.attrs.items():
    assert k in nc4.attrs, "attribute %s missing from the copy" % k
    assert str(nc4.attrs[k]) == str(v), (k, v, nc4.attrs[k])
assert set(nc4.attrs) - set(raw.attrs) <= skip, set(nc4.attrs) - set(raw.attrs)
assert set(raw.variables) == set(nc4.variables), (set(raw.variables), set(nc4.variables))
print("xarray: copy has the raw variables, attributes and bit-identical data; zlib+shuffle, chunks", enc["chunksizes"])
PY
echo "interop: ok"
