#!/usr/bin/env bash
# Networks and faults drawn at random (scripts/corpus --set random, scripts/corpus_random.py): SEEDS
# seeds across SimGrid's FAT_TREE of 2 and 3 levels, DRAGONFLY and TORUS (the family is the seed
# modulo 4), each simulated noise-free, analysed and scored against the simulator's routing. Prints
# one line per seed, then recall per fault kind and per family, precision, invented findings on the
# fault-free seeds and the failing seeds with the command that re-runs one; OUT/scoreboard.json
# keeps the numbers. Niced: it shares the machine.
#   bench/smpi/random_corpus.sh [SEEDS=1-200] [OUT=/tmp/nt-random]
#   env: SMPI_BUILD (default build-smpi), BUILD (default build), ANALYZE (default BUILD's network_analyze)
#   again after a change of the analysis, on the same simulations:
#   scripts/corpus score --set random --seeds 1-200 --out OUT --analyze NEW/network_analyze --tag .new
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
SEEDS=${1:-1-200} OUT=${2:-/tmp/nt-random}
SMPI_BUILD=${SMPI_BUILD:-$here/build-smpi} BUILD=${BUILD:-$here/build}
ANALYZE=${ANALYZE:-$BUILD/bin/network_analyze}
mkdir -p "$OUT"
echo "# $(date -u '+%F %T') UTC, $(git -C "$here" rev-parse --short HEAD), seeds $SEEDS; load $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
nice -n 10 python3 "$here/scripts/corpus" run --set random --seeds "$SEEDS" --out "$OUT" --build "$BUILD" \
  --network-test "$SMPI_BUILD/bin/network_test" --analyze "$ANALYZE"
rc=$?
echo "# $(( $(date +%s) - start )) s of wall time, exit $rc"
exit $rc
