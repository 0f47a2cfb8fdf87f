#!/usr/bin/env bash
# e2e_slow_host: the suite finds a slow host on real traffic.
# An emulated cluster of 3 hosts x 2 ranks, host 3's link limited to 20 Mbit/s:
#   1. network_test one_to_one over lengths up to 256 KiB      -> files, hosts, tbf-consistent delays
#   2. network_analyze report                                  -> groups = hosts, only host 3 flagged
#   3. network_cluster compress (5 % relative)                 -> lookup rule reproduces the data
#   4. network_viewer --render                                 -> a non-uniform PNG
#   5. no namespace, hosts file or shim of the cluster is left behind.
# A program whose target is not in this build is reported as a skipped step (viewer off);
# without network_test or analyze, or without root/netns, the whole test is skipped (77).
# Usage: e2e_slow_host.sh --vc VC --network-test NT --analyze AN --cluster CL --viewer VW
#                         --check CHECK_RUN_PY --work DIR
set -uo pipefail
# A name of its own per run: two test runs on one machine (two build trees) must not tear down each
# other's namespaces (virtual-cluster allows 'ntvc' + up to 8 of [a-z0-9]).
NAME=ntvce2e$(( $$ % 100000 ))
RATE_MBIT=20
# Every host link runs at LINK_RATE (an emulated NIC, slower than memory as on a real cluster;
# unshaped veth links are as fast as a host's own loopback, so the node level would not show),
# the slow host's at RATE_MBIT. Lengths that show the bandwidth beyond the tbf bucket (32 KiB):
# shorter messages pass a refilled bucket unthrottled, so their delays on shaped links are random.
LINK_RATE=100mbit
LENGTHS=0,65536,262144
while [[ $# -gt 0 ]]; do
  case $1 in
    --vc) VC=$2 ;;
    --network-test) NT=$2 ;;
    --analyze) AN=$2 ;;
    --cluster) CL=$2 ;;
    --viewer) VW=$2 ;;
    --check) CHECK=$2 ;;
    --work) WORK=$2 ;;
    *) echo "e2e_slow_host: unknown argument $1"; exit 2 ;;
  esac
  shift 2
done
PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3

"$VC" check || exit 77
for p in "$NT" "$AN"; do
  if [[ $p == MISSING ]]; then echo "SKIP: network_test or network_analyze is not part of this build"; exit 77; fi
done
fail() { echo "FAIL: $*"; "$VC" --name $NAME down >/dev/null 2>&1; exit 1; }
# A failed check that later steps do not depend on: recorded, the other steps still run.
failed=()
check_fail() { echo "CHECK FAILED: $*"; failed+=("$*"); }
skipped=()

rm -rf "$WORK"
mkdir -p "$WORK"
P=$WORK/vc

echo "== 1. network_test on 3 emulated hosts x 2 ranks, ${NAME}-n3 at ${RATE_MBIT} Mbit/s"
start=$(date +%s)
"$VC" --name $NAME run --hosts 3 --ppn 2 --slow 3 --rate ${RATE_MBIT}mbit --link-rate $LINK_RATE -- \
  "$NT" -t one_to_one --lengths $LENGTHS -n 15 --warmup 3 --idle-sleep-max 0.001 -f "$P" -q
rc=$?
echo "network_test: exit $rc after $(($(date +%s) - start)) s"
[[ $rc == 0 ]] || fail "network_test on the virtual cluster exited with $rc"
$PY "$CHECK" measure "$P" --slow-hosts $NAME-n3 --rate-mbit $RATE_MBIT --lengths $LENGTHS --ppn 2 ||
  fail "measurement check"

echo "== 2. network_analyze report"
"$AN" report "${P}_median.nc" --hosts "${P}_hosts.txt" --json "$WORK/report.json" >"$WORK/report.txt"
rc=$?
cat "$WORK/report.txt"
[[ $rc == 0 ]] || fail "network_analyze exited with $rc"
$PY "$CHECK" analyze "$WORK/report.json" "${P}_hosts.txt" --slow-hosts $NAME-n3 || check_fail "analysis check"

echo "== 3. network_cluster compress"
if [[ $CL == MISSING ]]; then
  skipped+=("network_cluster (not built)")
else
  "$CL" compress "${P}_median.nc" -o "$WORK/clustered.nc" --threshold 0.05 --relative ||
    fail "network_cluster exited with $?"
  $PY "$CHECK" cluster "$WORK/clustered.nc" "${P}_median.nc" --threshold 0.05 \
    --hosts "${P}_hosts.txt" --slow-hosts $NAME-n3 || check_fail "clustered file check"
fi

echo "== 4. network_viewer --render"
if [[ $VW == MISSING ]]; then
  skipped+=("network_viewer (not built: NT_BUILD_VIEWER=OFF or no Qt)")
else
  export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}
  "$VW" "${P}_median.nc" --render "$WORK/matrix.png" --view matrix --length 262144 --size 320 --decorate --groups "$WORK/report.json" ||
    fail "network_viewer --render exited with $?"
  $PY "$CHECK" png "$WORK/matrix.png" || check_fail "rendered image check"
  if [[ $CL != MISSING ]]; then
    "$VW" "$WORK/clustered.nc" --render "$WORK/clustered.png" --view matrix --length 262144 --size 320 ||
      fail "network_viewer --render of the clustered file exited with $?"
    $PY "$CHECK" png "$WORK/clustered.png" || check_fail "rendered clustered image check"
  fi
fi

echo "== 5. nothing left behind"
left=$(ip netns list | awk '{print $1}' | grep -E "^$NAME-" || true)
[[ -z $left ]] || fail "namespaces left behind: $left"
ls -d /etc/netns/$NAME-* >/dev/null 2>&1 && fail "private hosts files left in /etc/netns"
for s in "${skipped[@]}"; do echo "SKIPPED STEP: $s"; done
if [[ ${#failed[@]} -gt 0 ]]; then
  for f in "${failed[@]}"; do echo "FAILED: $f"; done
  exit 1
fi
echo "PASS"
