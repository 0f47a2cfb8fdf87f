#!/bin/sh
# Takes a screenshot of the main window with a matrix loaded, under a real X server (Xvfb),
# and keeps it as a test artefact. Usage: screenshot.sh VIEWER FIXTURE_PREFIX OUT.png
set -eu
viewer=$1 prefix=$2 out=$3
mkdir -p "$(dirname "$out")"
rm -f "$out"
unset QT_QPA_PLATFORM
xvfb-run -a -s "-screen 0 1400x900x24" \
  "$viewer" "${prefix}_median.nc" --groups "${prefix}_groups.json" --screenshot "$out"
test -s "$out"
# A real PNG, of a window-sized picture.
python3 - "$out" <<'PY'
import struct, sys
with open(sys.argv[1], 'rb') as f:
    head = f.read(24)
assert head[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
w, h = struct.unpack('>II', head[16:24])
assert w >= 800 and h >= 500, f'screenshot too small: {w}x{h}'
print(f'screenshot {w}x{h} -> {sys.argv[1]}')
PY
