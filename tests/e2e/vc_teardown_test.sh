#!/usr/bin/env bash
# e2e_vc_teardown: the virtual cluster always goes away: after a failing program (whose exit
# code is passed on), after SIGTERM in the middle of a run, after SIGINT, and when a stale
# cluster of the same name was left by a killed run; `down` is idempotent.
# Usage: vc_teardown_test.sh VIRTUAL_CLUSTER WORKDIR
set -uo pipefail
VC=$1
WORK=$2
NAME=ntvctd
fail() { echo "FAIL: $*"; "$VC" --name $NAME down >/dev/null 2>&1; exit 1; }
"$VC" check || exit 77
mkdir -p "$WORK"

leftovers() { # namespaces, private hosts files, processes of this test
  ip netns list | awk '{print $1}' | grep -E "^$NAME-" || true
  ls -d /etc/netns/$NAME-* 2>/dev/null || true
  pgrep -f "^sleep 4242.5" || true
}

# 1. A failing program: its exit code comes back, nothing is left.
"$VC" --name $NAME run --hosts 2 --ppn 1 -- sh -c 'exit 7'
rc=$?
[[ $rc == 7 ]] || fail "exit code of the program not passed on: got $rc, want 7"
[[ -z $(leftovers) ]] || fail "left behind after a failing program: $(leftovers)"
echo "ok: failing program -> exit 7, nothing left"

# 2. The hosts are really separate: own hostname and address, same program on each.
out=$("$VC" --name $NAME run --hosts 3 --ppn 1 -- sh -c 'echo "$(hostname) $(ip -4 -o addr show dev eth0 | awk "{print \$4}")"' 2>/dev/null)
echo "$out"
[[ $(echo "$out" | sort | tr '\n' ' ') == "$NAME-n1 10.213.0.1/24 $NAME-n2 10.213.0.2/24 $NAME-n3 10.213.0.3/24 " ]] ||
  fail "hosts do not have their own hostname/address: $out"
[[ -z $(leftovers) ]] || fail "left behind after a normal run: $(leftovers)"
echo "ok: 3 hosts with own hostnames and addresses"

# 3. SIGTERM while the program runs (as a batch system or ctest timeout would send).
"$VC" --name $NAME run --hosts 2 --ppn 2 -- sleep 4242.5 &
pid=$!
for _ in $(seq 1 100); do [[ -n $(pgrep -f "^sleep 4242.5") ]] && break; sleep 0.1; done
[[ -n $(pgrep -f "^sleep 4242.5") ]] || fail "program did not start"
[[ $(ip netns list | grep -c "^$NAME-") == 3 ]] || fail "cluster not up while running"
kill -TERM $pid
wait $pid
rc=$?
[[ $rc == 143 ]] || fail "after SIGTERM: exit code $rc, want 143"
[[ -z $(leftovers) ]] || fail "left behind after SIGTERM: $(leftovers)"
echo "ok: SIGTERM -> exit 143, nothing left"

# 4. SIGINT (Ctrl-C). Background jobs of a script ignore SIGINT, so start it from Python,
#    whose children get the default disposition back.
python3 - "$VC" "$NAME" <<'EOF'
import signal, subprocess, sys, time
vc, name = sys.argv[1], sys.argv[2]
p = subprocess.Popen([vc, "--name", name, "run", "--hosts", "2", "--", "sleep", "4242.5"])
for _ in range(100):
    if subprocess.run(["pgrep", "-f", "^sleep 4242.5"], capture_output=True).stdout:
        break
    time.sleep(0.1)
p.send_signal(signal.SIGINT)
rc = p.wait(timeout=30)
print("exit code after SIGINT:", rc)
sys.exit(0 if rc == 130 else 1)
EOF
[[ $? == 0 ]] || fail "SIGINT did not end the run with exit code 130"
[[ -z $(leftovers) ]] || fail "left behind after SIGINT: $(leftovers)"
echo "ok: SIGINT -> exit 130, nothing left"

# 5. A stale cluster (left by `up`, as after a kill -9) is replaced by the next run.
"$VC" --name $NAME up --hosts 2 || fail "up failed"
"$VC" --name $NAME up --hosts 2 2>/dev/null && fail "a second up of the same cluster must fail"
[[ $("$VC" --name $NAME status) == *": up"* ]] || fail "status does not show the cluster"
"$VC" --name $NAME run --hosts 3 -- true || fail "run over a stale cluster failed"
[[ -z $(leftovers) ]] || fail "left behind after run over stale cluster: $(leftovers)"
"$VC" --name $NAME down || fail "down of a cluster that is down failed"
"$VC" --name $NAME down || fail "second down failed"
echo "ok: stale cluster replaced; down idempotent"

# 6. Bad input: one message, exit 2, nothing created.
"$VC" --name $NAME run --hosts 0 -- true 2>/dev/null; rc=$?
[[ $rc == 2 ]] || fail "--hosts 0: exit $rc, want 2"
"$VC" --name $NAME run --hosts 2 --slow 5 -- true 2>/dev/null; rc=$?
[[ $rc == 2 ]] || fail "--slow 5 of 2 hosts: exit $rc, want 2"
"$VC" --name BAD run -- true 2>/dev/null; rc=$?
[[ $rc == 2 ]] || fail "bad --name: exit $rc, want 2"
[[ -z $(leftovers) ]] || fail "left behind after bad input: $(leftovers)"
echo "ok: bad input -> exit 2"
echo "PASS"
