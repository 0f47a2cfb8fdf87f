#!/usr/bin/env bash
# The output discipline, tried as a hostile user would, through the real programs:
#   outputs.sh BIN_DIR WORK_DIR CASE
# Cases:
#   two-writers   two concurrent writers of one output, no --force: exactly one wins, one exits 2
#   special       -o /dev/null, a symlink, a directory (with --force): exit 2, nothing replaced
#   same-file     an output that is the input (with --force): exit 2, input unchanged
#   kill          kill -9 at random moments in every writer: nothing partial under a final name,
#                 the previous output intact, a result set whole once the next writer has run;
#                 the next run removes the dead run's temporaries
#   signal        SIGTERM/SIGINT in a writer: exit by the signal, its temporary removed
#   full-disk     every writer into a nearly full tmpfs: exit 2 naming "No space left on
#                 device", no signal, nothing under a final name (needs root: else exit 77)
set -uo pipefail
BIN=$1
WORK=$2
CASE=$3
MPIEXEC=${4:-mpiexec}
NC=$BIN/network_convert
CL=$BIN/network_cluster
AN=$BIN/network_analyze
VW=$BIN/network_viewer
NT=$BIN/network_test

fail() { echo "FAIL [$CASE]: $*" >&2; exit 1; }
W=$WORK/$CASE
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1

# A 64-rank file of 48 lengths (1.6 MB raw, 200k CSV rows): writes that take long enough to be
# interrupted. The noise is per cell so that compressors cannot cheat.
"$NC" synth -o big --nodes 16 --ranks-per-node 4 --nodes-per-switch 4 -b 0 -e 47000 -s 1000 --seed 3 \
  >/dev/null || fail "synth"
"$NC" synth -o small --nodes 2 --ranks-per-node 2 --lengths 0,1024,65536 --seed 4 >/dev/null || fail "synth small"
"$CL" compress big_median.nc -o big_c.nc --threshold 5% >/dev/null || fail "compress"

# Every writer, as "NAME|command with OUT as the output" (OUT: a file or a prefix).
writers() {
  cat <<EOF
to-csv|$NC to-csv big_median.nc -o OUT
to-json|$NC to-json big_median.nc -o OUT
to-text|$NC to-text big_median.nc -o OUT
to-netcdf4|$NC to-netcdf4 big_median.nc -o OUT
pair|$NC pair 0 5 big_median.nc -o OUT
from-text|$NC from-text big.txt -o OUT
merge|$NC merge big_median.nc big2_median.nc -o OUT
synth|$NC synth -o OUT --nodes 16 --ranks-per-node 4 -b 0 -e 47000 -s 1000 --seed 3
compress|$CL compress big_median.nc -o OUT --threshold 5%
decompress|$CL decompress big_c.nc -o OUT
report|$AN report big_median.nc --json OUT --quiet
export|$AN export big_median.nc --format csv -o OUT
render|$VW big_median.nc --render OUT --length 47000
EOF
}
# The files a writer's OUT stands for (a prefix names several).
finals() {
  case $1 in
    from-text) echo "$2_median.nc $2_hosts.txt" ;;
    merge) echo "$2_median.nc $2_min.nc $2_hosts.txt" ;;
    synth) echo "$2_average.nc $2_median.nc $2_min.nc $2_max.nc $2_deviation.nc $2_hosts.txt" ;;
    decompress) echo "$2_median.nc $2_hosts.txt" ;;
    *) echo "$2" ;;
  esac
}
prepare_inputs() {
  [ -f big.txt ] || "$NC" to-text big_median.nc -o big.txt >/dev/null || fail "to-text"
  [ -f big2_median.nc ] || "$NC" synth -o big2 --nodes 16 --ranks-per-node 4 --nodes-per-switch 4 -b 0 -e 47000 \
    -s 1000 --seed 9 >/dev/null || fail "synth 2"
}
no_temps() {
  local left
  left=$(find "$1" -name '*.nt-tmp-*' -o -name '*.nt-commit-*' 2>/dev/null)
  [ -z "$left" ] || fail "temporaries left behind: $left"
}

case $CASE in
two-writers)
  # Both start before either has finished; exactly one commits, the other says why, exit 2.
  for round in 1 2 3; do
    rm -f race.csv
    "$NC" to-csv big_median.nc -o race.csv >out1 2>&1 & p1=$!
    "$NC" to-csv big_median.nc -o race.csv >out2 2>&1 & p2=$!
    wait $p1; r1=$?
    wait $p2; r2=$?
    codes=$(printf '%s\n' $r1 $r2 | sort | tr '\n' ' ')
    [ "$codes" = "0 2 " ] || fail "round $round: exit codes $r1 $r2 (want one 0 and one 2): $(cat out1 out2)"
    grep -hq 'exists already\|appeared while' out1 out2 || fail "the loser does not say why: $(cat out1 out2)"
    "$NC" to-csv big_median.nc -o ref.csv --force >/dev/null || fail "reference"
    cmp -s race.csv ref.csv || fail "round $round: the committed file is not a complete output"
  done
  no_temps .
  ;;
special)
  ln -s small_median.nc link.nc
  mkdir adir
  before=$(stat -c '%F %t:%T' /dev/null)
  for target in /dev/null link.nc adir; do
    "$NC" to-csv small_median.nc -o "$target" --force >err 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "to-csv -o $target --force: exit $rc, want 2"
    [ "$(wc -l <err)" -eq 1 ] || fail "more than one line: $(cat err)"
  done
  [ "$(stat -c '%F %t:%T' /dev/null)" = "$before" ] || fail "/dev/null was replaced"
  long=$(printf 'n%.0s' $(seq 300)).csv
  "$NC" to-csv small_median.nc -o "$long" >err 2>&1
  [ $? -eq 2 ] && grep -q 'longer than 255' err || fail "a 304-byte name: $(cat err)"
  [ -L link.nc ] || fail "the symlink was replaced"
  [ -d adir ] || fail "the directory was replaced"
  "$VW" small_median.nc --render link.nc --force >err 2>&1
  [ $? -eq 2 ] && [ -L link.nc ] || fail "render replaced a symlink: $(cat err)"
  "$AN" report small_median.nc --json /dev/null --force --quiet >err 2>&1
  [ $? -eq 2 ] || fail "report --json /dev/null --force was accepted"
  no_temps .
  ;;
same-file)
  cp small_median.nc keep.nc
  "$NC" to-text small_median.nc -o small.txt >/dev/null || fail "to-text"
  cp small.txt keep.txt
  check() {  # command... : must exit 2 and leave the inputs as they were
    "$@" >err 2>&1
    local rc=$?
    [ $rc -eq 2 ] || fail "'$*' exited $rc, want 2: $(cat err)"
    grep -q 'input' err || fail "'$*' does not name the input: $(cat err)"
    cmp -s small_median.nc keep.nc || fail "'$*' changed the input file"
    cmp -s small.txt keep.txt || fail "'$*' changed the text input"
  }
  check "$NC" to-csv small_median.nc -o small_median.nc --force
  check "$NC" to-json small_median.nc -o small_median.nc --force
  check "$NC" to-text small.txt -o small.txt --force
  check "$NC" pair 0 1 small_median.nc -o small_median.nc --force
  check "$NC" to-netcdf4 small_median.nc -o small_median.nc --force
  check "$AN" report small_median.nc --json small_median.nc --force --quiet
  check "$AN" export small_median.nc --format csv -o small_median.nc --force
  check "$VW" small_median.nc --render small_median.nc --force
  check "$CL" compress small_median.nc -o small_median.nc --threshold 5% --force
  ln small_median.nc hardlink.nc
  check "$NC" to-csv hardlink.nc -o small_median.nc --force
  no_temps .
  ;;
kill)
  prepare_inputs
  total=0
  while IFS='|' read -r name cmd; do
    # A previous good output that a killed --force run must not destroy.
    out="old_$name"
    c=${cmd//OUT/$out}
    $c --force >/dev/null 2>&1 || fail "$name: first run"
    declare -A sums=()
    for f in $(finals "$name" "$out"); do sums[$f]=$(md5sum <"$f"); done
    for i in 1 2 3 4 5 6; do
      # kill at 0..~0.6 s: before, during and after the write
      delay=$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.3f", rand() * 0.6 }')
      $c --force >/dev/null 2>&1 &
      pid=$!
      sleep "$delay"
      kill -9 $pid 2>/dev/null
      wait $pid 2>/dev/null
      for f in $(finals "$name" "$out"); do
        [ -f "$f" ] || fail "$name: $f vanished after kill -9 at ${delay}s"
        # Either the old file or a complete new one (all these writers are deterministic).
        [ "$(md5sum <"$f")" = "${sums[$f]}" ] || fail "$name: $f changed after kill -9 at ${delay}s"
      done
      total=$((total + 1))
      # Fresh outputs: absent or complete, never partial.
      new="new_${name}_$i"
      c2=${cmd//OUT/$new}
      $c2 >/dev/null 2>&1 &
      pid=$!
      sleep "$delay"
      kill -9 $pid 2>/dev/null
      wait $pid 2>/dev/null
      # A set whose commit the kill interrupted is completed by the next writer in the directory.
      "$NC" to-csv small_median.nc -o probe.csv --force >/dev/null || fail "probe writer after kill -9"
      n_present=0
      for f in $(finals "$name" "$new"); do [ -f "$f" ] && n_present=$((n_present + 1)); done
      n_all=$(finals "$name" "$new" | wc -w)
      [ $n_present -eq 0 ] || [ $n_present -eq "$n_all" ] || fail "$name: $n_present of $n_all outputs after kill -9"
      if [ $n_present -eq "$n_all" ]; then
        for f in $(finals "$name" "$new"); do
          g=${f/$new/$out}
          [ "$(md5sum <"$f")" = "${sums[$g]}" ] || fail "$name: $f is partial after kill -9 at ${delay}s"
        done
      fi
      total=$((total + 1))
    done
    unset sums
  done < <(writers)
  # The next writer into the directory removes what the killed runs left.
  "$NC" to-csv small_median.nc -o after.csv >/dev/null || fail "writer after the kills"
  no_temps .
  echo "kill: $total kill -9 runs, nothing partial under a final name"
  ;;
signal)
  for sig in TERM INT; do
    "$NC" to-csv big_median.nc -o sig.csv >/dev/null 2>&1 &
    pid=$!
    sleep 0.15
    kill -s $sig $pid
    wait $pid
    rc=$?
    if [ -f sig.csv ]; then
      rm -f sig.csv  # finished before the signal arrived: nothing to check this round
    else
      [ $rc -gt 128 ] || fail "SIG$sig: exit $rc"
    fi
    no_temps .
  done
  ;;
full-disk)
  [ "$(id -u)" -eq 0 ] || { echo "full-disk: needs root (mount tmpfs), skipped"; exit 77; }
  prepare_inputs
  mnt=$W/disk
  mkdir -p "$mnt"
  mount -t tmpfs -o size=2m tmpfs "$mnt" 2>/dev/null || { echo "full-disk: cannot mount tmpfs, skipped"; exit 77; }
  trap 'umount -l "$mnt" 2>/dev/null' EXIT
  while IFS='|' read -r name cmd; do
    for free_kb in 1 8 32; do
      rm -rf "${mnt:?}"/*
      # Fill the disk, then free what this round leaves.
      dd if=/dev/zero of="$mnt/fill" bs=1k count=4096 >/dev/null 2>&1
      avail=$(df -k --output=avail "$mnt" | tail -1)
      [ "$avail" -le 1 ] || fail "could not fill the disk ($avail KB left)"
      truncate -s -"$((free_kb * 1024))" "$mnt/fill"
      c=${cmd//OUT/$mnt/out_$name}
      $c >err 2>&1
      rc=$?
      if [ $rc -eq 0 ]; then
        # It fitted (small outputs): then it must be complete.
        continue
      fi
      [ $rc -eq 2 ] || fail "$name with $free_kb KB free: exit $rc, want 2: $(cat err)"
      [ "$(wc -l <err)" -eq 1 ] || fail "$name: more than one line: $(cat err)"
      grep -q 'No space left on device' err || fail "$name: the message does not name the cause: $(cat err)"
      for f in $(finals "$name" "$mnt/out_$name"); do [ ! -e "$f" ] || fail "$name: $f exists after a full disk"; done
      no_temps "$mnt"
    done
  done < <(writers)
  # network_test creates its result set all or nothing: a full disk leaves no file (every rank
  # exits 2), and the same command succeeds once there is room (a requeued batch job).
  rm -rf "${mnt:?}"/*
  dd if=/dev/zero of="$mnt/fill" bs=1k count=4096 >/dev/null 2>&1
  truncate -s -2048 "$mnt/fill"
  nt_run() { timeout -s KILL 120 "$MPIEXEC" -n 2 "$NT" -f "$mnt/nt" -b 0 -e 200 -s 100 -n 3 -q; }
  nt_run >err 2>&1
  rc=$?
  [ $rc -eq 2 ] || fail "network_test on a full disk: exit $rc, want 2: $(cat err)"
  grep -q 'No space left on device' err || fail "network_test: the message does not name the cause: $(cat err)"
  [ -z "$(ls "$mnt" | grep -v '^fill$')" ] || fail "network_test left files on a full disk: $(ls -a "$mnt")"
  rm -f "$mnt/fill"
  nt_run >err 2>&1 || fail "network_test after freeing the disk: $(cat err)"
  [ -s "$mnt/nt_median.nc" ] && [ -s "$mnt/nt_hosts.txt" ] || fail "network_test wrote no result set"
  echo "full-disk: every writer exits 2 with the cause and leaves nothing"
  ;;
*) fail "unknown case" ;;
esac
echo "outputs $CASE: ok"
