#!/usr/bin/env bash
# A plan for 100,000 ranks from --estimate on slices, and the slices' simulations that check it.
#
# Two shapes of scripts/simulate's 2:1 tree: B, one rank per host (100,000 hosts x 1 rank), and A,
# 64 ranks per host (1,563 hosts x 64 ranks under 40 leaves). A slice is a smaller platform of the
# same shape (the same cables, uplinks per node, ranks per host). Per slice: network_test
# --sample-pairs K --estimate (the plan's sampled_s, priced from a calibration on the slice's own
# ranks), then the same options run for real; the row gives both simulated times and their ratio.
# Then the plan: the sampled sweep at 100,000 ranks, the largest slice's priced sweep scaled by
# the sampled host pairs (the pairs across hosts run one after the other, each alone, on the same
# routes at any size; the pairs within hosts run every host at once, so their time does not grow
# with the hosts). What the slices cannot price: the writing of P^2 cells (run_*.nc) at rank 0.
#
#   bench/smpi/plan_100k.sh [B-hosts... -- A-hosts...]   (default: 64 256 -- 4 8)
#   env: LENGTHS (default 0,1024,65536,1048576), N (samples, default 5), K (default 4),
#        OUT (default /tmp/nt-plan-100k), SMPI_BUILD (default build-smpi),
#        LANES=1: --sample-pairs --switch-map (the sampled host pairs in lanes by leaf; the map from
#        the slice's truth); PAIRS=host (with LANES=1): --host-pairs --switch-map instead, every
#        host pair in the lanes, its price the plan's host_lanes_s (no 100,000-rank plan then)
# Results: bench/results/scale.md, "A plan for 100,000 ranks".
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
SMPI_BUILD=${SMPI_BUILD:-$here/build-smpi}
OUT=${OUT:-/tmp/nt-plan-100k}
LENGTHS=${LENGTHS:-0,1024,65536,1048576}
N=${N:-5}
K=${K:-4}
B=(); A=(); side=B
for x in "$@"; do
  if [ "$x" = "--" ]; then side=A; continue; fi
  if [ $side = B ]; then B+=("$x"); else A+=("$x"); fi
done
[ ${#B[@]} -eq 0 ] && [ ${#A[@]} -eq 0 ] && { B=(64 256); A=(4 8); }
mkdir -p "$OUT"
pairs=(--sample-pairs "$K"); price=sampled_s
[ "${PAIRS:-sampled}" = host ] && { pairs=(--host-pairs); price=host_lanes_s; }
args=(-t one_to_one --lengths "$LENGTHS" -n "$N" --seed 1 "${pairs[@]}" --progress none)

# slice SHAPE HOSTS RPN LEAVES: one row; remembers the last slice's figures per shape.
slice() {
  local shape=$1 hosts=$2 rpn=$3 leaves=$4 d
  d=$OUT/$shape$hosts
  rm -rf "$d" "$d.est"
  local plat=(--leaves "$leaves" --nodes-per-leaf $((hosts / leaves)) --ranks-per-node "$rpn"
              --oversubscription 2 --slow-node 1:0.25 --slow-uplink 1:0.0625)
  local lanes=()
  if [ "${LANES:-0}" = 1 ]; then
    "$here/scripts/simulate" "${plat[@]}" --out "$d.map" --no-run >/dev/null 2>&1
    lanes=(--switch-map "$d.map/switch_map")
  fi
  /usr/bin/time -f "%e s %M KB" -o "$d.est.time" "$here/scripts/simulate" --network-test "$SMPI_BUILD/bin/network_test" \
      "${plat[@]}" --out "$d.est" -- "${args[@]}" "${lanes[@]}" --estimate >"$d.est.log" 2>&1
  local predicted
  predicted=$(sed -n "s/^plan: .*$price=\\([0-9.e+-]*\\).*/\\1/p" "$d.est.log" | tail -n1)
  /usr/bin/time -f "%e s %M KB" -o "$d.time" "$here/scripts/simulate" --network-test "$SMPI_BUILD/bin/network_test" \
      "${plat[@]}" --out "$d" -- "${args[@]}" "${lanes[@]}" >"$d.log" 2>&1
  local simulated pairs
  simulated=$(sed -n 's/.*Simulated time: \([0-9.]*\) seconds.*/\1/p' "$d.log" | tail -n1)
  # the sampled host pairs: each a pair of clock offsets measured before the sweep
  pairs=$(sed -n 's/.*clock offsets of \([0-9]*\) host pairs.*/\1/p' "$d.log" | tail -n1)
  echo "| $shape | $hosts x $rpn ($((hosts * rpn)) ranks), $leaves leaves | ${pairs:-?} | ${predicted:-?} s | ${simulated:-?} s |" \
       "$(python3 -c "print(f'{float(\"${predicted:-nan}\") / float(\"${simulated:-nan}\"):.2f}')" 2>/dev/null) |" \
       "$(cat "$d.est.time") / $(cat "$d.time") |"
  echo "$shape $hosts $rpn ${pairs:-0} ${predicted:-0} ${simulated:-0}" >>"$OUT/slices.txt"
}

rm -f "$OUT/slices.txt"
echo "lengths $LENGTHS, -n $N, ${pairs[*]}${LANES:+ (LANES=$LANES)}; $(date -u '+%F %H:%M UTC'); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| shape | slice | host pairs measured | --estimate $price | simulated run | estimate / run | host time, peak RSS (estimate / run) |"
echo "|---|---|---:|---:|---:|---:|---|"
for h in "${B[@]}"; do slice B "$h" 1 $((h >= 32 ? h / 16 : 2)); done
for h in "${A[@]}"; do slice A "$h" 64 $((h >= 4 ? h / 2 : 1)); done
echo
[ "${PAIRS:-sampled}" = host ] && exit 0
# The plan: per shape, the priced sweep of the two largest slices as a + b x (sampled host pairs):
# b the pairs across hosts (one after the other, each alone, on the same routes at any size), a
# what does not grow with the hosts (the pairs within hosts, every host at once; the per-length
# collectives, which grow as log P).
python3 - "$OUT/slices.txt" "$K" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1])]
K = int(sys.argv[2])
target = {"B": (100000, 1), "A": (1563, 64)}
for shape in ("B", "A"):
    mine = sorted((r for r in rows if r[0] == shape and float(r[4]) > 0), key=lambda r: int(r[1]))
    if len(mine) < 2:
        continue
    (h1, p1, t1), (h2, p2, t2) = [(int(r[1]), int(r[3]), float(r[4])) for r in mine[-2:]]
    b = (t2 - t1) / (p2 - p1)
    a = t2 - b * p2
    H, R = target[shape]
    # each host with K random partners, 2 landmarks and 2 next hosts: (K + 4) H host pairs at
    # most, fewer where they coincide (at 100,000 hosts almost never)
    want = (K + 4) * H
    sweep = a + b * want
    print(f"plan {shape}: {H} hosts x {R} ranks, --sample-pairs {K}: <= {want} sampled host pairs; "
          f"sweep {sweep:.0f} s ({sweep / 3600:.2f} h) = {a:.3g} s + {b * 1e3:.4g} ms x pairs "
          f"(slices of {h1} and {h2} hosts); fits one hour: {'yes' if sweep < 3600 else 'no'}")
EOF
