#!/usr/bin/env bash
# Golden-file test of one network_convert subcommand.
#   golden.sh NETWORK_CONVERT MAKE_LEGACY DATA_DIR GOLDEN_DIR WORK_DIR CASE
# Copies the fixtures of DATA_DIR into WORK_DIR/CASE, runs the case there (relative paths, so the
# output does not depend on where the build lives), and compares everything it printed with
# GOLDEN_DIR/CASE.out. UPDATE_GOLDEN=1 rewrites the golden file instead (review the diff!).
# The fixtures in data/ are checked in (sy*_median.nc were made once with `synth --seed 7/8/9`), so
# only the `synth` case depends on core's generator; regenerate that one if nt::synthesize changes.
set -euo pipefail
P=$1 MAKE_LEGACY=$2 DATA=$3 GOLDEN=$4 WORK=$5 CASE=$6
dir="$WORK/$CASE"
rm -rf "$dir" && mkdir -p "$dir" && cp "$DATA"/* "$dir"/
cd "$dir"
"$MAKE_LEGACY" legacy.nc 1 1       # one_to_one: the file's rows are receivers
"$MAKE_LEGACY" legacy_pp.nc 4 0    # send_recv_and_recv_send: rows are the initiators (senders)

run() { echo "\$ network_convert $*"; "$P" "$@"; }
show() { echo "--- $1"; cat "$1"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
rows() { local n; n=$(wc -l <"$1"); [ "$n" -eq "$2" ] || fail "$1 has $n lines, expected $2"; }

{
case "$CASE" in
  synth)
    run synth -o s --nodes 2 --ranks-per-node 2 --lengths 0,4096 --seed 5 --protocol-step 4096 --cell-noise 0
    ls s_*
    run info s_median.nc
    run synth -o lin --nodes 1 --ranks-per-node 2 -b 0 -e 300 -s 100 --seed 1 --mode all_to_all --cell-noise 0
    run info lin_average.nc | grep -E '^(mode|sweep|lengths)'
    # same seed -> same data; another seed -> other data
    "$P" synth -o again --nodes 2 --ranks-per-node 2 --lengths 0,4096 --seed 5 --protocol-step 4096 --cell-noise 0
    "$P" synth -o other --nodes 2 --ranks-per-node 2 --lengths 0,4096 --seed 6 --protocol-step 4096 --cell-noise 0
    for f in s again other; do "$P" to-text ${f}_median.nc -o $f.txt; done
    cmp s.txt again.txt || fail "synth with the same seed differs"
    cmp -s s.txt other.txt && fail "synth with another seed gives the same data"
    echo "synth: deterministic per seed"
    ;;
  to-text)
    run to-text sy_median.nc -o sy.txt; show sy.txt
    # original-format text (no orientation line, rows = receivers) comes out in our orientation
    run to-text legacy_text.txt -o lt.txt; show lt.txt
    run to-text legacy.nc -o legacy.txt; show legacy.txt
    ;;
  from-text)
    run from-text small.txt -o ft; ls ft_*; show ft_hosts.txt
    run info ft_average.nc
    run to-text ft_average.nc -o back.txt
    cmp back.txt small.txt || fail "text -> NetCDF -> text is not byte-identical"
    echo "text round trip: identical"
    # an original network_test2 text file (rows = receivers) lands in our orientation
    run from-text legacy_text.txt -o lt; ls lt_*
    run pair 1 0 lt_median.nc
    ;;
  to-csv)
    run to-csv sy_median.nc -o sy.csv; rows sy.csv $((4 * 4 * 3 + 1)); show sy.csv
    run to-csv legacy_text.txt -o lt.csv; rows lt.csv $((3 * 3 * 2 + 1)); show lt.csv
    run to-csv legacy.nc -o legacy.csv; rows legacy.csv $((3 * 3 * 3 + 1)); show legacy.csv
    ;;
  to-json)
    run to-json sy_median.nc -o sy.json; show sy.json
    /usr/bin/python3 -c 'import json,sys; d=json.load(open("sy.json")); assert len(d["matrices"])==len(d["message_lengths"])==3; assert d["matrices"][1][0][3]==d["matrices"][1][0][3]' \
      || fail "sy.json does not parse or lacks matrices"
    run to-json small.txt
    ;;
  to-netcdf4)
    run to-netcdf4 sy_median.nc -o sy4.nc
    run info sy4.nc
    run to-text sy4.nc -o a.txt; run to-text sy_median.nc -o b.txt
    cmp a.txt b.txt || fail "NetCDF-4 copy differs from its source"
    echo "NetCDF-4 copy: same text as the source"
    run to-netcdf4 small.txt -o small4.nc --deflate 9 --no-shuffle
    run to-text small4.nc -o small4.txt; cmp small4.txt small.txt || fail "text -> NetCDF-4 -> text differs"
    echo "text -> NetCDF-4 -> text: identical"
    ;;
  upgrade)
    run upgrade legacy.nc -o up; ls up_*
    run info up_average.nc
    run to-csv up_average.nc -o up.csv; show up.csv
    run upgrade legacy_pp.nc -o pp
    run pair 0 2 pp_average.nc
    run pair 2 0 pp_average.nc
    ;;
  merge)
    run merge sy_median.nc sy2_median.nc sy3_median.nc -o m; ls m_*
    run to-text m_median.nc -o med.txt; show med.txt
    run to-text m_min.nc -o min.txt; show min.txt
    run info m_min.nc | grep -E '^(statistic|  merged)'
    ;;
  pair)
    run pair 0 3 sy_median.nc
    run pair 3 0 sy_median.nc
    run pair 1 0 legacy_text.txt
    run pair 2 1 legacy.nc -o p21.txt; show p21.txt
    ;;
  info)
    run info sy_median.nc
    run info small.txt
    run info legacy_text.txt
    run info legacy.nc
    ;;
  *) fail "unknown case $CASE" ;;
esac
} >actual.out 2>&1 || { cat actual.out; fail "case $CASE failed"; }

# The program version changes with releases; everything else must match.
sed -i -E 's/^(  program +).*/\1<version>/; s/"program_version": "[^"]*"/"program_version": "<version>"/' actual.out
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
  cp actual.out "$GOLDEN/$CASE.out"
  echo "updated $GOLDEN/$CASE.out"
  exit 0
fi
diff -u "$GOLDEN/$CASE.out" actual.out || fail "output differs from $GOLDEN/$CASE.out"
echo "golden $CASE: ok"
