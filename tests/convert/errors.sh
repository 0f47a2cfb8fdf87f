#!/usr/bin/env bash
# Bad inputs: every case must exit with code 2, print one clear error line on stderr that matches
# the expected text (plus CLI11's "--help" hint for command-line errors), and leave no output.
#   errors.sh NETWORK_CONVERT DATA_DIR WORK_DIR CASE
set -uo pipefail
P=$1 DATA=$2 WORK=$3 CASE=$4
dir="$WORK/err-$CASE"
rm -rf "$dir" && mkdir -p "$dir" && cp "$DATA"/* "$dir"/ && cd "$dir" || exit 1
fail() { echo "FAIL [$CASE]: $*" >&2; exit 1; }

# expect REGEX CMD...: exit 2, one error line matching REGEX.
expect() {
  local want=$1; shift
  "$P" "$@" >out.txt 2>err.txt
  local rc=$?
  echo "\$ network_convert $* -> exit $rc"; cat err.txt
  [ $rc -eq 2 ] || fail "exit code $rc, expected 2"
  head -n1 err.txt | grep -qE "^network_convert: error: .*$want" || fail "message does not match /$want/"
  local n; n=$(grep -vc '^Run with --help' err.txt)
  [ "$n" -eq 1 ] || fail "$n error lines, expected 1"
  grep -q 'internal error\|terminate\|Abort\|Segmentation' err.txt && fail "crash noise"
  return 0
}
absent() { for f in "$@"; do [ ! -e "$f" ] || fail "$f was written"; done; ls | grep -q partial && fail "a partial file was left behind"; return 0; }

head -c 300 sy_median.nc >truncated.nc
: >empty.nc
head -c 4096 /dev/urandom >random.nc
printf 'CDF\002garbage that is not a netcdf header at all' >badheader.nc
printf 'processors 3\ntest type "one_to_one"\nMessage length 0\n0\t1\n' >short.txt

case "$CASE" in
  missing)    expect 'nosuch.nc: no such file' info nosuch.nc ;;
  empty)      expect 'empty.nc: is empty' to-csv empty.nc -o out.csv; absent out.csv ;;
  random)     expect 'random.nc: not a result file' to-json random.nc -o out.json; absent out.json ;;
  truncated)  expect 'truncated.nc' to-netcdf4 truncated.nc -o out.nc; absent out.nc ;;
  badheader)  expect 'badheader.nc' pair 0 1 badheader.nc ;;
  corrupt-text) expect 'short.txt' from-text short.txt -o ft; absent ft_average.nc ft_hosts.txt ;;
  no-overwrite)
    echo keep >out.csv
    expect 'out.csv.*exists.*--force' to-csv sy_median.nc -o out.csv
    [ "$(cat out.csv)" = keep ] || fail "out.csv was overwritten"
    "$P" to-csv sy_median.nc -o out.csv --force || fail "--force did not overwrite"
    [ "$(wc -l <out.csv)" -eq 49 ] || fail "forced output incomplete" ;;
  no-overwrite-prefix)
    echo keep >ft_hosts.txt
    expect 'ft_hosts.txt.*exists' from-text small.txt -o ft
    absent ft_average.nc ;;
  merge-ranks)
    "$P" synth -o three --nodes 1 --ranks-per-node 3 --lengths 0,1024,2048 --seed 7 || fail "synth"
    expect 'cannot merge sy_median.nc and three_median.nc: number of ranks \(proc_num\) differs \(4 vs 3\)' \
      merge sy_median.nc three_median.nc -o m
    absent m_median.nc m_min.nc ;;
  merge-mode)
    "$P" synth -o a2a --nodes 2 --ranks-per-node 2 --lengths 0,1024,2048 --seed 7 --mode all_to_all || fail "synth"
    expect 'mode \(test_type\) differs \(one_to_one vs all_to_all\)' merge sy_median.nc a2a_median.nc -o m
    absent m_median.nc ;;
  merge-lengths)
    "$P" synth -o l2 --nodes 2 --ranks-per-node 2 --lengths 0,1024,4096 --seed 7 || fail "synth"
    expect 'message lengths differ|end message length differs' merge sy_median.nc l2_median.nc -o m ;;
  merge-statistic)
    "$P" synth -o st --nodes 2 --ranks-per-node 2 --lengths 0,1024,2048 --seed 7 || fail "synth"
    expect 'statistic \(data_type\) differs \(median vs min\)' merge sy_median.nc st_min.nc -o m ;;
  merge-one)  expect 'FILES' merge sy_median.nc -o m ;;
  from-text-nc) expect 'sy_median.nc: is a raw NetCDF file.*not a text result file' from-text sy_median.nc -o x; absent x_median.nc ;;
  upgrade-current) expect 'sy_median.nc: is a raw NetCDF file.*not a legacy' upgrade sy_median.nc -o up ;;
  pair-range) expect 'rank 4 out of range.*4 ranks' pair 0 4 sy_median.nc ;;
  pair-negative) expect 'rank -1 out of range' pair -1 0 sy_median.nc ;;
  bad-option) expect 'unknown|extra|not expected|The following argument' to-csv sy_median.nc -o x.csv --bogus; absent x.csv ;;
  no-subcommand) expect 'subcommand' ;;
  synth-bad)  expect 'nodes' synth -o s --nodes 0; absent s_average.nc ;;
  bad-mode)   # enum options: one line naming the option, the value and the names (nt::add_enum_option)
    expect "--mode: 'one-to-one' is not one of one_to_one, all_to_all, async_one_to_one, send_recv_and_recv_send, noise, noise_blocking, bcast, put, get, loggp \\(run with --help" \
      synth -o s --nodes 1 --ranks-per-node 2 --lengths 0 --mode one-to-one
    absent s_average.nc ;;
  synth-sweep) expect 'sweep' synth -o s -b 100 -e 10 -s 5; absent s_average.nc ;;
  synth-exists)
    "$P" synth -o s --nodes 1 --ranks-per-node 2 --lengths 0 || fail "synth"
    expect 's_.*exists' synth -o s --nodes 1 --ranks-per-node 2 --lengths 0 ;;
  no-dir)
    # A missing output directory is created (as mkdir -p would); a file in its way is an error.
    "$P" to-csv sy_median.nc -o nodir/sub/out.csv || fail "to-csv into a new directory"
    [ -s nodir/sub/out.csv ] || fail "nodir/sub/out.csv was not written"
    : > afile
    expect 'afile.*not a directory' to-csv sy_median.nc -o afile/out.csv ;;
  text-many-procs)
    # 40 bytes that declare 20000 processors: refused at the first short row, within 300 MB of
    # address space (the reader used to allocate the whole 3.2 GB matrix first).
    printf 'processors 20000\nMessage length 0\n1 2 3\n' > manyp.txt
    ( ulimit -v 300000; expect 'manyp.txt: line 3: 3 values in a row of a 20000-rank matrix' info manyp.txt ) || exit 1 ;;
  stdout-dash) expect "'-' \\(standard output\\) is not an output" to-csv sy_median.nc -o -; absent ./- ;;
  deflate-range) expect 'deflate' to-netcdf4 sy_median.nc -o x.nc --deflate 12; absent x.nc ;;
  *) fail "unknown case" ;;
esac
echo "errors $CASE: ok"
