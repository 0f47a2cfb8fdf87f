#!/usr/bin/env bash
# check-package.sh BUILD_DIR [--install]: builds the .deb of a configured and built tree (cpack),
# checks what it holds without installing it (dpkg -x into a temporary folder: every program, its
# man page, the docs and batch templates, library dependencies that resolve), and with --install
# also installs it for real (apt-get install ./PKG.deb), runs scripts/demo.sh against /usr/bin and
# removes it again, so the machine is left as it was (needs root, the package not installed).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:?usage: check-package.sh BUILD_DIR [--install]}" && pwd)
INSTALL=${2:-}
fail() { echo "FAIL: $*" >&2; exit 1; }
WORK=$(mktemp -d /tmp/nt-package.XXXXXX)
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT

echo "== cpack"
(cd "$BUILD" && cpack -G DEB -B "$WORK/out" >"$WORK/cpack.log" 2>&1) || { cat "$WORK/cpack.log"; fail "cpack"; }
deb=$(ls "$WORK"/out/*.deb)
[[ $(echo "$deb" | wc -l) == 1 ]] || fail "expected one .deb, got: $deb"
pkg=$(dpkg-deb -f "$deb" Package)
echo "$(basename "$deb"): $(du -k "$deb" | cut -f1) KiB"
dpkg-deb -f "$deb" Package Version Architecture Depends Conflicts

echo "== contents (dpkg -x)"
root=$WORK/root
dpkg -x "$deb" "$root"
progs=(network_test network_convert network_cluster network_analyze)
[[ -e $BUILD/bin/network_viewer ]] && progs+=(network_viewer)
for p in "${progs[@]}"; do
  [[ -x $root/usr/bin/$p ]] || fail "/usr/bin/$p missing"
  [[ -s $root/usr/share/man/man1/$p.1.gz || -s $root/usr/share/man/man1/$p.1 ]] || fail "man page of $p missing"
  # The page renders and documents the program's options.
  man -l "$root"/usr/share/man/man1/"$p".1* 2>/dev/null | grep -q -- '--help' || fail "man page of $p does not render"
  # Every library the program needs resolves on this system (the package's Depends bring them).
  if ldd "$root/usr/bin/$p" | grep -q 'not found'; then ldd "$root/usr/bin/$p"; fail "$p: unresolved library"; fi
done
for f in usr/share/doc/network-tests/README.md usr/share/doc/network-tests/formats.md \
         usr/share/doc/network-tests/images/vc-slow-node.png \
         usr/share/network-tests/slurm/network_test.sbatch usr/share/network-tests/pbs/network_test.pbs \
         usr/libexec/network-tests/plan-modes; do
  [[ -s $root/$f ]] || fail "/$f missing"
done
# Nothing from the build tree: no tests, benchmarks or static libraries.
if find "$root" -name 'test_*' -o -name 'bench_*' -o -name '*.a' | grep -q .; then fail "build artefacts packaged"; fi
# The installed converter runs from the package's tree (no path into the build folder).
"$root/usr/bin/network_convert" synth -o "$WORK/s/run" --nodes 2 --ranks-per-node 2 >/dev/null ||
  fail "packaged network_convert synth"
"$root/usr/bin/network_convert" info "$WORK/s/run_median.nc" | grep -q "ranks" || fail "packaged network_convert info"
(cd "$root" && find . -type f | sort) >"$WORK/files.txt"
echo "$(wc -l <"$WORK/files.txt") files:"; sed 's/^\./  /' "$WORK/files.txt"

if [[ $INSTALL == --install ]]; then
  echo "== apt-get install ./$(basename "$deb")"
  [[ $(id -u) == 0 ]] || fail "--install needs root"
  if dpkg -s "$pkg" >/dev/null 2>&1; then fail "$pkg is installed already: not touching it"; fi
  for p in "${progs[@]}"; do
    [[ -e /usr/bin/$p ]] && fail "/usr/bin/$p exists (from elsewhere): not installing over it"
  done
  remove() { DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "$pkg" >/dev/null 2>&1 || true; cleanup; }
  trap remove EXIT
  cp "$deb" "$WORK/$(basename "$deb")"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$WORK/$(basename "$deb")" \
    >"$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log"; fail "apt-get install"; }
  for p in "${progs[@]}"; do [[ $(command -v "$p") == /usr/bin/$p ]] || fail "$p not on PATH from /usr/bin"; done
  man -w network_test >/dev/null || fail "man network_test not found"
  echo "== demo against /usr/bin"
  NT_BIN=/usr/bin SKIP_INSTALL=1 "$HERE/demo.sh" "$WORK/demo" >"$WORK/demo.log" 2>&1 ||
    { cat "$WORK/demo.log"; fail "demo with the installed programs"; }
  grep -q '^+ .*/usr/bin/network_test ' "$WORK/demo.log" || { cat "$WORK/demo.log"; fail "demo did not run /usr/bin/network_test"; }
  for f in local_median.nc report.json clustered.nc; do [[ -s $WORK/demo/$f ]] || fail "demo output $f missing"; done
  echo "demo ok: $(ls "$WORK/demo" | wc -l) files"
  remove
  trap cleanup EXIT
  dpkg -s "$pkg" >/dev/null 2>&1 && fail "$pkg still installed"
  echo "removed $pkg"
fi
echo "PASS"
