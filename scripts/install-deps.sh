#!/usr/bin/env bash
# Installs the Debian packages the suite builds, runs and tests with (Debian 12 "bookworm").
# Needs root (or sudo). Safe to run again.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
PACKAGES=(
  # toolchain
  g++ cmake ninja-build pkg-config git ccache
  # MPI (MPICH is the default; Open MPI for preset openmpi), hwloc, NetCDF, HDF5 (h5dump in tests)
  mpich libmpich-dev openmpi-bin libopenmpi-dev libhwloc-dev libnetcdf-dev netcdf-bin libhdf5-dev hdf5-tools
  # libraries
  libcli11-dev nlohmann-json3-dev libfmt-dev libgtest-dev libgmock-dev
  # viewer
  qt6-base-dev libqt6opengl6-dev libgl-dev libxkbcommon-dev xvfb xauth libgif-dev
  # man pages (help2man, from --help at build time), the .deb (cpack: dpkg-shlibdeps, file)
  help2man dpkg-dev file
  # fuzzing of the readers (scripts/fuzz.sh)
  clang libfuzzer-14-dev
  # interoperability checks and the emulated cluster
  python3 python3-xarray python3-netcdf4 iproute2 util-linux procps time
  # network_analyze's HTML pages: PNG pictures (zlib), rendered by headless Chromium in the tests
  zlib1g-dev chromium
  # simulated clusters: network_test under SimGrid's SMPI (preset smpi, scripts/simulate)
  libsimgrid-dev simgrid
)
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}"
