#!/usr/bin/env bash
# mpiGraph (LLNL's MPI bandwidth-matrix benchmark) beside network_analyze on the
# same simulated platforms. For each scenario of scripts/corpus: network_test, its report and the
# truth (scripts/corpus run), then mpiGraph under smpirun on the same platform and host file, the
# plain mean of each host's rows of mpiGraph's send and receive matrices against the median host,
# and a markdown table: truth / mpiGraph's low hosts / our findings (bench/smpi/mpigraph_peer.py).
# Results: bench/results/mpigraph.md.
#
#   MPIGRAPH_SRC=/path/to/mpiGraph bench/smpi/mpigraph_peer.sh [SCENARIO...]
#     default scenarios: tree-1rph-seq tree-1rph-conc ft2-1rph-uplink ft2-1rph-cable
#   env: MPIGRAPH_SRC  a checkout of https://github.com/LLNL/mpiGraph (its mpiGraph.c; not in this
#                      repository: built with smpicc into a temporary folder)
#        MPIGRAPH_ARGS mpiGraph's size iterations window (default "65536 3 10": the corpus' 64 KiB
#                      messages, 3 samples like its -n 3, a window of 10 messages per partner)
#        MPIGRAPH_TEST_SLEEP SMPI's sleep after a failed MPI_Test, seconds (default 1e-6; see the .py)
#        THRESHOLD     a host is low under this share of the median host (default 0.8)
#        OUT (default /tmp/nt-mpigraph), BUILD (dev build, default build), SMPI_BUILD (default
#        build-smpi), ANALYZE (network_analyze, default BUILD's)
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${MPIGRAPH_SRC:-}" ] || [ ! -f "${MPIGRAPH_SRC}/mpiGraph.c" ]; then
  echo "mpigraph_peer: error: set MPIGRAPH_SRC to a checkout of https://github.com/LLNL/mpiGraph (with its mpiGraph.c)" >&2
  exit 2
fi
command -v smpicc > /dev/null || { echo "mpigraph_peer: error: smpicc not found: install SimGrid (scripts/install-deps.sh)" >&2; exit 2; }
BUILD=${BUILD:-$here/build} SMPI_BUILD=${SMPI_BUILD:-$here/build-smpi} OUT=${OUT:-/tmp/nt-mpigraph}
ANALYZE=${ANALYZE:-$BUILD/bin/network_analyze}
ARGS=${MPIGRAPH_ARGS:-65536 3 10}
if [ $# -eq 0 ]; then set -- tree-1rph-seq tree-1rph-conc ft2-1rph-uplink ft2-1rph-cable; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
smpicc -O2 -o "$tmp/mpiGraph" "$MPIGRAPH_SRC/mpiGraph.c" > "$tmp/build.log" 2>&1 ||
  { echo "mpigraph_peer: error: smpicc failed on $MPIGRAPH_SRC/mpiGraph.c: $(tail -1 "$tmp/build.log")" >&2; exit 2; }
mkdir -p "$OUT"
only="^($(IFS='|'; echo "$*"))\$"
echo "# $(date -u '+%F %T') UTC, $(git -C "$here" rev-parse --short HEAD), mpiGraph $(git -C "$MPIGRAPH_SRC" rev-parse --short HEAD 2> /dev/null || echo "(no git)") '$ARGS', load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "scripts/corpus run --set all --only '$only' --out $OUT (host time of each simulation in brackets):"
echo
"$here/scripts/corpus" run --set all --only "$only" --out "$OUT" --build "$BUILD" \
    --network-test "$SMPI_BUILD/bin/network_test" --analyze "$ANALYZE" | sed 's/^/    /'
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || [ "$rc" = 3 ] || { echo "mpigraph_peer: error: scripts/corpus failed (exit $rc)" >&2; exit 1; }
python3 "$here/bench/smpi/mpigraph_peer.py" --mpigraph "$tmp/mpiGraph" --out "$OUT" --build "$BUILD" \
    --args "$ARGS" --test-sleep "${MPIGRAPH_TEST_SLEEP:-1e-6}" --threshold "${THRESHOLD:-0.8}" "$@"
