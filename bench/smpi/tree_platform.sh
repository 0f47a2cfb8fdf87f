# Sourced by bench/smpi/schedules.sh and timed_share.sh: their one simulated platform and the run of
# one row on it. scripts/simulate's two-level tree, 2:1 oversubscribed, of P/4 nodes x 4 ranks
# under L leaves, shuffled placement (seed 11), node 5's cable at 1/4 bandwidth and 4x latency, the
# uplink of leaf L-2 at 1.25 Gbit/s (the uplink has nodes/L x 10 / 2 Gbit/s; the slow one 1.25
# Gbit/s whatever the leaf's size).
# Needs: here, P, L, BUILD, ARGS. Sets nodes and slow_uplink when sourced.
nodes=$((P / 4))
slow_uplink=$(awk -v l="$L" -v n="$nodes" 'BEGIN {print l / (4 * n)}')

# tree_row NETWORK_TEST DIR FLAGS: simulates ARGS FLAGS into DIR (log DIR.log, /usr/bin/time -v in
# DIR.time) and sets rc, done_line (network_test's "done in" line), job (its simulated time) and
# host (the simulation's wall time).
tree_row() {
  local nt=$1 d=$2 flags=$3
  rm -rf "$d"
  # shellcheck disable=SC2086
  /usr/bin/time -v -o "$d.time" /usr/bin/python3 "$here/scripts/simulate" --network-test "$nt" \
      --leaves "$L" --nodes-per-leaf $((nodes / L)) --ranks-per-node 4 --oversubscription 2 \
      --slow-node 5:0.25:4 --slow-uplink $((L - 2)):"$slow_uplink" --shuffle 11 --out "$d" -- $ARGS $flags > "$d.log" 2>&1
  rc=$?
  done_line=$(grep -E "done in" "$d.log" | grep -v INFO | head -1)
  job=$(echo "$done_line" | sed -n 's/.*done in \([0-9.]*\) s.*/\1 s/p')
  host=$(grep 'Elapsed (wall' "$d.time" | sed 's/.*: //')
}

# tree_verdict FILE JSON WIDTH: network_analyze report of FILE (JSON beside it, the text as
# JSON's name with .txt) against the run's truth (tests/smpi/check_truth.py), WIDTH characters.
tree_verdict() {
  local file=$1 json=$2 width=$3 d
  d=$(dirname "$file")
  "$BUILD/bin/network_analyze" report "$file" --json "$json" > "${json%.json}.txt" 2>&1
  /usr/bin/python3 "$here/tests/smpi/check_truth.py" "$d/truth.json" "$json" | tr '\n' ' ' | sed 's/check_truth: //g' | cut -c1-"$width"
}

# tree_switch_map NETWORK_TEST FILE: the platform's leaf of every host ("HOST leafN" lines, for
# --switch-map), as scripts/simulate writes it without running (--no-run).
tree_switch_map() {
  local nt=$1 file=$2 d
  d=$(mktemp -d)
  /usr/bin/python3 "$here/scripts/simulate" --network-test "$nt" --leaves "$L" --nodes-per-leaf $((nodes / L)) \
      --ranks-per-node 4 --oversubscription 2 --slow-node 5:0.25:4 --slow-uplink $((L - 2)):"$slow_uplink" \
      --shuffle 11 --out "$d" --no-run > /dev/null && cp "$d/switch_map" "$file"
  local rc=$?
  rm -rf "$d"
  return $rc
}

# tree_same_report A.txt B.txt: the two text reports of network_analyze are the same but for the
# file names and the intra-node fit's range over pairs (1 ns steps of the simulated clock).
tree_same_report() {
  local a=$1 b=$2
  cmp -s <(sed -e 's#^network_analyze report: .*##' -e 's#variance from .*##' -e '/^  intra-node / s#\[[0-9]* ns, [0-9]* ns\]##' "$a") \
         <(sed -e 's#^network_analyze report: .*##' -e 's#variance from .*##' -e '/^  intra-node / s#\[[0-9]* ns, [0-9]* ns\]##' "$b")
}
