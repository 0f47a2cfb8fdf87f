#!/bin/bash
set -u
# The memory targets on 8192 ranks x 8 lengths (synth <= 2 GB, info <= 1 GB), and merge; BEFORE:
# the binary to compare with (optional). Needs about 22 GB of disk for a moment (synth writes five
# 4.3 GB files; three are deleted at once). About 15 minutes on a 2-core VM.
#   stream_memory_8192.sh NETWORK_CONVERT [BEFORE] [WORK_DIR]   (absolute paths)
P=$1 OLD=${2:-} W=${3:-/tmp/nt_stream_8192}; rm -rf "$W"; mkdir -p "$W"; cd "$W" || exit 1
df -h "$W" | tail -1
/usr/bin/time -f "synth 8192 x 8: wall %e s, max RSS %M KiB" "$P" synth -o big --nodes 1024 --ranks-per-node 8 --lengths 0,1024,2048,3072,4096,5120,6144,7168 --repeats 2 --seed 7 >/dev/null
rm -f big_average.nc big_deviation.nc big_max.nc
/usr/bin/time -f "info 8192 x 8: wall %e s, max RSS %M KiB" "$P" info big_median.nc >/dev/null
[ -n "$OLD" ] && /usr/bin/time -f "info (before) 8192 x 8: wall %e s, max RSS %M KiB" "$OLD" info big_median.nc >/dev/null
/usr/bin/time -f "merge 8192 x 8 (2 runs): wall %e s, max RSS %M KiB" "$P" merge big_median.nc big_median.nc -o m >/dev/null
rm -f m_*
[ -n "$OLD" ] && /usr/bin/time -f "merge (before) 8192 x 8 (2 runs): wall %e s, max RSS %M KiB" "$OLD" merge big_median.nc big_median.nc -o m >/dev/null
cd / && rm -rf "$W"
