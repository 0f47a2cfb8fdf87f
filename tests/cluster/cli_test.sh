#!/bin/bash
# Command-line tests of network_cluster: round trip, info, and bad input (exit code 2, one clear
# message, nothing overwritten without --force).
# usage: cli_test.sh NETWORK_CLUSTER CLUSTER_MAKE_INPUT WORKDIR
set -u
NC=$1 MK=$2 W=$3
rm -rf "$W" && mkdir -p "$W" || exit 1
fail=0
check() {  # check NAME EXPECTED_RC CMD...
  local name=$1 want=$2; shift 2
  "$@" >"$W/$name.out" 2>"$W/$name.err"
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, expected $want"; cat "$W/$name.out" "$W/$name.err"; fail=1
  fi
}
expect_in() {  # expect_in NAME FILE PATTERN
  grep -q -- "$3" "$2" || { echo "FAIL $1: '$3' not in $2:"; cat "$2"; fail=1; }
}

"$MK" synth "$W/run" && "$MK" nan "$W/nan.nc" && "$MK" one "$W/one.nc" || exit 1

check compress 0 "$NC" compress "$W/run_median.nc" -o "$W/c.nc" --threshold 0.05 --relative --exceptions 1 --min-region 2
expect_in compress "$W/compress.out" "ratio"
check info 0 "$NC" info "$W/c.nc"
expect_in info "$W/info.out" "regions: "
expect_in info "$W/info.out" "region 0: matrices 0\.\."
expect_in info "$W/info.out" "compression ratio"
expect_in info "$W/info.out" "max relative"
check info_json 0 "$NC" info --json "$W/c.nc"
/usr/bin/python3 - "$W/info_json.out" "$W/c.nc" <<'PY' || fail=1
import json, os, sys
j = json.load(open(sys.argv[1]))
assert j["ranks"] == 24 and len(j["message_lengths"]) == 12, j
assert sum(r["end_matrix"] - r["first_matrix"] for r in j["regions"]) == 12
assert abs(j["compression_ratio"] - j["raw_bytes"] / os.path.getsize(sys.argv[2])) < 1e-6 * j["compression_ratio"]
assert j["max_relative_error"] <= 0.05 or j["values_beyond_threshold"] > 0
PY
# The file is ordinary NetCDF-4 with the layout of share/doc/design.md §5.
if command -v ncdump >/dev/null; then
  ncdump -h "$W/c.nc" >"$W/ncdump.out" 2>&1 || { echo "FAIL ncdump"; fail=1; }
  for pat in "x = 24" "i = 12" "n = UNLIMITED" "d = UNLIMITED" "int info(n, x, x)" "int length(n)" \
             "double data(d)" "int message_length(i)" "int proc_num" "cluster_max_relative_error" \
             "cluster_compression_ratio"; do
    expect_in ncdump "$W/ncdump.out" "$pat"
  done
fi

check decompress 0 "$NC" decompress "$W/c.nc" -o "$W/back"
[ -f "$W/back_median.nc" ] || { echo "FAIL decompress: no back_median.nc"; fail=1; }
[ -f "$W/back_hosts.txt" ] || { echo "FAIL decompress: no back_hosts.txt"; fail=1; }
cmp -s "$W/back_hosts.txt" "$W/run_hosts.txt" || { echo "FAIL decompress: hosts differ"; fail=1; }
check decompress_file 0 "$NC" decompress "$W/c.nc" -o "$W/exact.nc"
# An independent reader (Python netCDF4) applies the lookup rule of share/doc/design.md §5 and must
# get exactly the values of the decompressed raw file.
/usr/bin/python3 - "$W/c.nc" "$W/back_median.nc" <<'PY' || { echo "FAIL python lookup rule"; fail=1; }
import sys, bisect
import netCDF4, numpy as np
c = netCDF4.Dataset(sys.argv[1]); r = netCDF4.Dataset(sys.argv[2])
info = c["info"][:]; start = list(c["length"][:]); data = c["data"][:]
raw = r["data"][:]
assert list(c["message_length"][:]) == list(r["message_length"][:])
N, P, _ = raw.shape
for k in range(N):
    reg = bisect.bisect_right(start, k) - 1
    rec = data[info[reg] + (k - start[reg])]
    assert np.array_equal(rec, raw[k]), k
PY
# A decompressed file compresses again (any raw file is an input).
check recompress 0 "$NC" compress "$W/back_median.nc" -o "$W/c2.nc" --threshold 0.05 --relative

# Topology classes: the synthetic run has 3 nodes of 8 ranks (one slow) -> 3 classes.
check groups 0 "$NC" groups "$W/c.nc"
expect_in groups "$W/groups.out" "24 ranks in 3 topology classes"
check groups_raw 2 "$NC" groups "$W/run_median.nc"
check groups_raw_thr 0 "$NC" groups "$W/run_median.nc" --threshold 5%
expect_in groups_raw_thr "$W/groups_raw_thr.out" "24 ranks in 3 topology classes"

# Threshold spellings: a percentage implies --relative, time units scale to seconds.
check pct 0 "$NC" compress "$W/run_median.nc" -o "$W/pct.nc" --threshold 5%
check pct_info 0 "$NC" info "$W/pct.nc"
expect_in pct_info "$W/pct_info.out" "threshold 5% of the value (relative)"
check us 0 "$NC" compress "$W/run_median.nc" -o "$W/us.nc" --threshold 0.2us
check us_info 0 "$NC" info --json "$W/us.nc"
/usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['threshold_mode']=='absolute' and abs(j['threshold']-2e-7)<1e-15, j" \
    "$W/us_info.out" || { echo "FAIL us: threshold not 2e-7 s absolute"; fail=1; }
check pct_abs 2 "$NC" compress "$W/run_median.nc" -o "$W/x.nc" --threshold 5% --absolute
check us_rel 2 "$NC" compress "$W/run_median.nc" -o "$W/x.nc" --threshold 1us --relative
check badunit 2 "$NC" compress "$W/run_median.nc" -o "$W/x.nc" --threshold 3parsecs
expect_in badunit "$W/badunit.err" "unknown unit"

# Bad input: exit 2 with one clear message.
check exists 2 "$NC" compress "$W/run_median.nc" -o "$W/c.nc" --threshold 0.05 --relative
expect_in exists "$W/exists.err" "force"
check force 0 "$NC" compress "$W/run_median.nc" -o "$W/c.nc" --threshold 0.05 --relative --force
check dec_exists 2 "$NC" decompress "$W/c.nc" -o "$W/back"
check nan 2 "$NC" compress "$W/nan.nc" -o "$W/n.nc" --threshold 0.05 --relative
expect_in nan "$W/nan.err" "nan"
[ -e "$W/n.nc" ] && { echo "FAIL nan: output left behind"; fail=1; }
check one 2 "$NC" compress "$W/one.nc" -o "$W/o.nc" --threshold 0.05 --relative
expect_in one "$W/one.err" "min-region"
check one_ok 0 "$NC" compress "$W/one.nc" -o "$W/o.nc" --threshold 0.05 --relative --min-region 1
check missing 2 "$NC" compress "$W/none.nc" -o "$W/x.nc" --threshold 0.05
expect_in missing "$W/missing.err" "no such file"
printf 'garbage\n' > "$W/garbage.nc"
check garbage 2 "$NC" compress "$W/garbage.nc" -o "$W/x.nc" --threshold 0.05
check not_clustered 2 "$NC" info "$W/run_median.nc"
expect_in not_clustered "$W/not_clustered.err" "not a clustered file"
check dec_raw 2 "$NC" decompress "$W/run_median.nc" -o "$W/y"
check rel_big 2 "$NC" compress "$W/run_median.nc" -o "$W/x.nc" --threshold 2 --relative
check neg 2 "$NC" compress "$W/run_median.nc" -o "$W/x.nc" --threshold -1
check badopt 2 "$NC" compress "$W/run_median.nc" -o "$W/x.nc" --threshold 0.1 --bogus
check nothreshold 2 "$NC" compress "$W/run_median.nc" -o "$W/x.nc"
check nosub 2 "$NC"
check same 2 "$NC" compress "$W/run_median.nc" -o "$W/run_median.nc" --threshold 0.1 --force
cp "$W/c.nc" "$W/trunc.nc" && truncate -s 3000 "$W/trunc.nc"
check truncated 2 "$NC" info "$W/trunc.nc"
check trunc_dec 2 "$NC" decompress "$W/trunc.nc" -o "$W/t"
# --target-ratio: the smallest bound reaching the ratio, reported; the file reaches it.
check target 0 "$NC" compress "$W/run_median.nc" -o "$W/tr.nc" --target-ratio 1.5
expect_in target "$W/target.out" "the smallest found that reaches 1.5x"
/usr/bin/python3 - "$W/run_median.nc" "$W/tr.nc" <<'PY' || fail=1
import os, sys
assert os.path.getsize(sys.argv[1]) >= 1.5 * os.path.getsize(sys.argv[2]), "target ratio not reached"
PY
check target_both 2 "$NC" compress "$W/run_median.nc" -o "$W/tb.nc" --threshold 5% --target-ratio 2
check target_none 2 "$NC" compress "$W/run_median.nc" -o "$W/tn.nc"
check target_high 2 "$NC" compress "$W/run_median.nc" -o "$W/th.nc" --target-ratio 1e9
expect_in target_high "$W/target_high.err" "even a bound of 50 %"
[ -e "$W/th.nc" ] || [ -e "$W/th.nc.search.tmp" ] && { echo "FAIL target_high left a file"; fail=1; }
for f in "$W"/*.err; do  # never a crash or an internal error
  if grep -q -E "internal error|Assertion|terminate|Segmentation|HDF5-DIAG" "$f"; then echo "FAIL: $f"; cat "$f"; fail=1; fi
done
[ $fail = 0 ] && echo "all network_cluster CLI checks passed"
exit $fail
