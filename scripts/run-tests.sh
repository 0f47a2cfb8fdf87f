#!/usr/bin/env bash
# Sets up a fresh Debian machine, builds everything and runs every test.
#   scripts/run-tests.sh            # install packages, configure (preset dev), build, ctest
#   SKIP_INSTALL=1 scripts/run-tests.sh   # on a machine that has the packages already
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${SKIP_INSTALL:-0}" != "1" ]; then scripts/install-deps.sh; fi
# Every component is required here: a missing dependency must fail, not skip tests quietly.
cmake --preset dev -DNT_BUILD_TESTS=ON -DNT_REQUIRE_VIEWER=ON
cmake --build --preset dev -j "$(nproc)"
# network_test against SimGrid's SMPI, for the simulated-cluster tests (label smpi)
cmake --preset smpi
cmake --build --preset smpi -j "$(nproc)"
# The MPI tests (and the e2e ones, smpi.closed_loop) are RUN_SERIAL; the rest run two at a time, the
# simulated clusters (label smpi) among them, the longest first (their COST: bench/results/ci.md).
ctest --preset dev -j 2 --timeout 600 "$@"
