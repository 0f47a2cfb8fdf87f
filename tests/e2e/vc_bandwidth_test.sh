#!/usr/bin/env bash
# e2e_vc_bandwidth: MPI traffic between emulated hosts really crosses the shaped links.
# 3 hosts x 1 rank, host 3 limited to 20 Mbit/s (2.5 MB/s): a 1 MiB ping-pong between every
# pair. Pairs with host 3 must run at most at the tbf rate (+10%), the healthy pair at least 3x
# faster than the fastest slow pair; every rank reports its own host name.
# Usage: vc_bandwidth_test.sh VIRTUAL_CLUSTER VC_PINGPONG WORKDIR
set -uo pipefail
VC=$1
PINGPONG=$2
WORK=$3
NAME=ntvcbw
RATE_MBIT=20
"$VC" check || exit 77
mkdir -p "$WORK"
out=$WORK/pingpong.txt
"$VC" --name $NAME run --hosts 3 --ppn 1 --slow 3 --rate ${RATE_MBIT}mbit -- \
  "$PINGPONG" 1048576 3 >"$out"
rc=$?
cat "$out"
[[ $rc == 0 ]] || { echo "FAIL: run exited with $rc"; exit 1; }
if ip netns list | grep -q "^$NAME-"; then echo "FAIL: namespaces left behind"; exit 1; fi
python3 - "$out" "$NAME" "$RATE_MBIT" <<'EOF'
import sys
path, name, rate_mbit = sys.argv[1], sys.argv[2], float(sys.argv[3])
hosts, pairs = {}, []
for line in open(path):
    f = line.split()
    if f and f[0] == "HOST":
        hosts[int(f[1])] = f[2]
    elif f and f[0] == "PAIR":
        pairs.append((f[3], f[4], float(f[5])))
want = {0: f"{name}-n1", 1: f"{name}-n2", 2: f"{name}-n3"}
assert hosts == want, f"processor names {hosts}, want {want}"
assert len(pairs) == 3, f"{len(pairs)} pairs measured, want 3"
limit = rate_mbit / 8 * 1.10  # MB/s
slow = [bw for a, b, bw in pairs if f"{name}-n3" in (a, b)]
fast = [bw for a, b, bw in pairs if f"{name}-n3" not in (a, b)]
print(f"slow pairs {slow} MB/s (limit {limit:.2f}), healthy pair {fast} MB/s")
assert all(bw <= limit for bw in slow), "a pair with the slow host exceeds the tbf rate"
assert all(bw > 0.5 * rate_mbit / 8 for bw in slow), "slow pairs far below the tbf rate"
assert fast[0] >= 3 * max(slow), "the healthy pair is not clearly faster than the slow ones"
print("PASS")
EOF
