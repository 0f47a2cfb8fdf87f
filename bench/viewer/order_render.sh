#!/usr/bin/env bash
# Issue 14 figures: a 2048-rank shuffled file rendered with --order groups vs rank order
# (alternately, 3 rounds, whole process), and --render-all over 64 lengths.
#   bench/viewer/order_render.sh BUILD_BIN_DIR [WORKDIR]
set -euo pipefail
B=$1; W=${2:-$(mktemp -d)}; cd "$W"
"$B/network_convert" synth -o big --nodes 64 --ranks-per-node 32 --nodes-per-switch 16 --slow-node 5 --shuffle \
  --lengths 65536 --force >/dev/null
"$B/network_analyze" report big_median.nc --json big.json >/dev/null
for i in 1 2 3; do
  /usr/bin/time -f "order groups: %e s wall %U+%S s CPU %M KB" "$B/network_viewer" big_median.nc --render o.png --groups big.json --order groups --force
  /usr/bin/time -f "order rank:   %e s wall %U+%S s CPU %M KB" "$B/network_viewer" big_median.nc --render r.png --groups big.json --force
done
"$B/network_convert" synth -o seq --nodes 8 --ranks-per-node 4 --slow-node 2 --begin 0 --end 63000 --step 1000 --force >/dev/null
/usr/bin/time -f "render-all 64 lengths x 32 ranks: %e s wall %U+%S s CPU %M KB" "$B/network_viewer" seq_median.nc --render-all frames --force
ls frames | wc -l
