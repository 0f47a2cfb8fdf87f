#!/usr/bin/env bash
# Rank-order and render figures, one command:  bench/viewer/order_render.sh BUILD_BIN_DIR [WORKDIR]
#  1. in process (bench_viewer --order-render): a shuffled 2048-rank, 64-length file (2 GiB, written
#     once) with its node and switch hierarchy; reading one matrix, then rank order and --order
#     groups alternately, render and decorated picture timed apart from reading; the animated GIF
#     over all 64 lengths;
#  2. whole processes, alternating, 3 rounds: --render of one length with --order groups vs rank
#     order, and --render-all NAME.gif over the 64 lengths (wall, CPU, peak RSS).
set -euo pipefail
B=$(cd "$1" && pwd); W=${2:-$(mktemp -d)}; mkdir -p "$W"; cd "$W"
F=$W/shuffled_2048x64.nc
"$B/bench_viewer" --file "$F" --ranks 2048 --lengths 64 --reps 9 --order-render
G=$F.groups.json  # written by bench_viewer
L=$(( 1024 * 63 ))
for i in 1 2 3; do
  /usr/bin/time -f "render, order groups: %e s wall %U+%S s CPU %M KB" \
    "$B/network_viewer" "$F" --length $L --render o.png --groups "$G" --order groups --force
  /usr/bin/time -f "render, rank order:   %e s wall %U+%S s CPU %M KB" \
    "$B/network_viewer" "$F" --length $L --render r.png --groups "$G" --force
  /usr/bin/time -f "render-all 64 lengths -> GIF, order groups: %e s wall %U+%S s CPU %M KB" \
    "$B/network_viewer" "$F" --render-all anim.gif --groups "$G" --order groups --force
done
ls -l anim.gif
