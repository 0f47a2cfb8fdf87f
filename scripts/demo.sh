#!/usr/bin/env bash
# Sets up a fresh Debian machine, builds the suite and runs a small local measurement end to end:
# network_test on 4 local ranks, then analysis, clustering, conversion and a rendered picture.
#   scripts/demo.sh [OUTDIR]        (default: ./demo-output)
#   NT_BIN=/usr/bin SKIP_INSTALL=1 scripts/demo.sh   # the installed programs (the .deb), no build
# NT_MPIEXEC: the launcher of the MPI the programs are linked with (default: the build's
# build/nt-mpiexec; with NT_BIN, mpiexec.openmpi or mpiexec.mpich after network_test's library).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${1:-$ROOT/demo-output}
if [ "${SKIP_INSTALL:-0}" != "1" ]; then scripts/install-deps.sh; fi
if [ -n "${NT_BIN:-}" ]; then
  BIN=$NT_BIN
  if [ -z "${NT_MPIEXEC:-}" ]; then
    if ldd "$BIN/network_test" 2>/dev/null | grep -q 'libmpi\.so'; then NT_MPIEXEC=mpiexec.openmpi
    elif command -v mpiexec.mpich >/dev/null; then NT_MPIEXEC=mpiexec.mpich
    else NT_MPIEXEC=mpiexec; fi
  fi
  MPIEXEC=("$ROOT/scripts/mpiexec-local")
  export NT_MPIEXEC
else
  cmake --preset dev
  # Only the programs: the test suite is scripts/run-tests.sh's job (same build folder).
  targets=(network_test network_convert network_cluster network_analyze)
  if cmake --build --preset dev --target help | grep '^network_viewer:' >/dev/null; then targets+=(network_viewer); fi
  cmake --build --preset dev -j "$(nproc)" --target "${targets[@]}"
  BIN=$ROOT/build/bin
  MPIEXEC=("$ROOT/build/nt-mpiexec")
  if [ -n "${NT_MPIEXEC:-}" ]; then MPIEXEC=("$ROOT/scripts/mpiexec-local"); export NT_MPIEXEC; fi
fi
mkdir -p "$OUT"
run() { echo "+ $*"; "$@"; }
if [ -x "$BIN/network_test" ]; then
  run "${MPIEXEC[@]}" -n 4 "$BIN/network_test" -t one_to_one -b 0 -e 65536 -s 8192 -n 50 -f "$OUT/local" --force
  DATA=$OUT/local
else
  echo "network_test is not built; using synthetic data"
  run "$BIN/network_convert" synth -o "$OUT/local" --nodes 4 --ranks-per-node 2 --slow-node 2 --force
  DATA=$OUT/local
fi
[ -x "$BIN/network_convert" ] && run "$BIN/network_convert" info "${DATA}_median.nc"
[ -x "$BIN/network_analyze" ] && run "$BIN/network_analyze" report "${DATA}_median.nc" --json "$OUT/report.json"
[ -x "$BIN/network_cluster" ] && run "$BIN/network_cluster" compress "${DATA}_median.nc" -o "$OUT/clustered.nc" \
  --threshold 0.05 --relative --force
if [ -x "$BIN/network_viewer" ]; then
  # At the longest message (short ones are noise-dominated), ordered by the analysed groups.
  opts=(--length 65536)
  [ -f "$OUT/report.json" ] && opts+=(--groups "$OUT/report.json" --order groups)
  QT_QPA_PLATFORM=offscreen run "$BIN/network_viewer" "${DATA}_median.nc" --render "$OUT/matrix.png" --size 512 "${opts[@]}" --force \
    || QT_QPA_PLATFORM=offscreen run "$BIN/network_viewer" "${DATA}_median.nc" --render "$OUT/matrix.png" --size 512 --force
  # Every length as one animation, on one scale for the whole sweep.
  QT_QPA_PLATFORM=offscreen run "$BIN/network_viewer" "${DATA}_median.nc" --render-all "$OUT/lengths.gif" --size 512 --force
fi
echo
echo "Results in $OUT:"
ls -l "$OUT"
