"""A real client opens a raw file: xarray sees data(n, x, y) and message_length as a coordinate."""
import sys

import xarray as xr

path = sys.argv[1]
ds = xr.open_dataset(path)
assert "data" in ds.variables, ds
assert ds["data"].dims == ("n", "x", "y"), ds["data"].dims
assert "message_length" in ds["data"].coords, list(ds["data"].coords)
lengths = [int(v) for v in ds["message_length"].values]
assert lengths == [0, 100, 200, 300], lengths
assert ds["data"].attrs["units"] == "s"
assert int(ds["proc_num"]) == 8 and ds["data"].shape == (4, 8, 8), ds["data"].shape
assert ds.attrs["format_version"] == 1
# Off-diagonal delays are positive; one_to_one's diagonal is zero.
d = ds["data"].values
for k in range(4):
    for i in range(8):
        assert d[k, i, i] == 0.0
        assert all(d[k, i, j] > 0 for j in range(8) if j != i)
print("xarray OK:", dict(ds["data"].sizes))
