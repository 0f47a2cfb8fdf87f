#!/usr/bin/env bash
# e2e_batch_templates: the Slurm and PBS templates run here, on 2 local ranks, with fake
# scontrol/qstat/qsub that record what they are asked:
#  - a sweep of three modes completes: .done markers, the five statistics per mode, clustered
#    copies, the analysis report; a second start skips every finished mode;
#  - Slurm: USR1 (time limit near) stops the running measurement and requeues the job; the
#    next start resumes the interrupted mode with --resume and completes it;
#  - NT_BASELINE: the job's exit state is compare's (0 nothing changed, 2 cannot compare, 3 findings);
#  - PBS: a walltime too short for the sweep stops the measurement with `timeout`, resubmits
#    itself with qsub; the resubmitted job (settings from settings.env) resumes and completes.
# Usage: batch_templates_test.sh SOURCE_DIR BIN_DIR WORKDIR [MPIEXEC]
# MPIEXEC: the launcher of the MPI the programs were built with (default: mpiexec on PATH).
set -uo pipefail
SRC=$1
BIN=$2
WORK=$3
MPIEXEC=${4:-mpiexec}
for p in network_test network_analyze network_cluster; do
  [[ -x $BIN/$p ]] || { echo "SKIP: $BIN/$p not built"; exit 77; }
done
command -v "$MPIEXEC" >/dev/null || { echo "SKIP: no $MPIEXEC"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$WORK"
mkdir -p "$WORK/fake"
# Fake batch-system commands: they log their arguments. scontrol refuses to requeue when
# FAKE_NO_REQUEUE=1, and `scontrol show job` names FAKE_SCRIPT with 1 node and 2 tasks.
for c in qsub sbatch; do
  printf '#!/bin/sh\necho "%s $*" >> %s/fake/calls.log\n' "$c" "$WORK" >"$WORK/fake/$c"
done
cat >"$WORK/fake/scontrol" <<EOF
#!/bin/sh
echo "scontrol \$*" >> $WORK/fake/calls.log
case "\$1 \$2" in
  "requeue "*) [ "\${FAKE_NO_REQUEUE:-0}" = 1 ] && { echo "Requested operation is presently disabled" >&2; exit 1; } ;;
  "show job") printf 'JobId=%s JobName=network_test\n   NumNodes=1 NumCPUs=2 NumTasks=2 CPUs/Task=1\n   Command=%s\n' "\$3" "\$FAKE_SCRIPT" ;;
esac
exit 0
EOF
# srun: the real network_test under the real local launcher (srun's own options logged and
# dropped); FAKE_SRUN_SINGLETONS=1 starts SLURM_NTASKS single-rank copies instead, as srun does
# when its MPI plugin does not match the MPI library.
cat >"$WORK/fake/srun" <<EOF
#!/bin/bash
echo "srun \$*" >> $WORK/fake/calls.log
while [[ \$# -gt 0 && \$1 == --* ]]; do shift; done
if [[ \${FAKE_SRUN_SINGLETONS:-0} == 1 ]]; then
  rc=0; pids=()
  for _ in \$(seq 1 "\${SLURM_NTASKS:-2}"); do "\$@" & pids+=(\$!); done
  for p in "\${pids[@]}"; do wait "\$p" || rc=\$?; done
  exit \$rc
fi
exec $MPIEXEC -n "\${SLURM_NTASKS:-2}" "\$@"
EOF
# A launcher for the PBS template that starts two single-rank copies (a wrong mpiexec for this MPI).
cat >"$WORK/fake/mpiexec-singletons" <<'EOF'
#!/bin/bash
while [[ $# -gt 0 && $1 == -* ]]; do case $1 in -n|-f|-ppn|--hostfile|--map-by) shift 2 ;; *) shift ;; esac; done
"$@" & a=$!; "$@" & b=$!
rc=0; wait $a || rc=$?; wait $b || rc=$?; exit $rc
EOF
chmod +x "$WORK"/fake/*
export PATH=$WORK/fake:$PATH

# Records (message lengths) of a raw file.
records() { ncdump -h "$1" | sed -nE 's/.*UNLIMITED ; \/\/ \(([0-9]+) currently\).*/\1/p'; }

check_complete() { # OUT MODES...
  local out=$1; shift
  for m in "$@"; do
    [[ -e $out/$m.done ]] || fail "$m not marked done in $out"
    for s in average median min max deviation; do
      [[ -s $out/${m}_$s.nc ]] || fail "$out/${m}_$s.nc missing"
    done
    [[ $(wc -l <"$out/${m}_hosts.txt") == 2 ]] || fail "$out/${m}_hosts.txt does not list 2 ranks"
    [[ -s $out/analysis/${m}_median_clustered.nc ]] || fail "clustered copy of $m missing"
  done
  [[ -s $out/analysis/report.json ]] || fail "analysis report missing in $out"
  grep -q '"groups"' "$out/analysis/report.json" || fail "report.json without groups"
}

MODES="one_to_one async_one_to_one bcast"
common=(NT_BIN="$BIN" NT_SCRIPTS="$SRC/scripts" NT_MODES="$MODES" NT_LENGTHS=0,1024,65536 NT_REPEATS=3 NT_EXTRA="--warmup 1")

echo "== Slurm template: full sweep"
S=$WORK/slurm
env "${common[@]}" NT_OUT="$S" NT_LAUNCH="$MPIEXEC" SLURM_NTASKS=2 SLURM_NTASKS_PER_NODE=2 \
  SLURM_JOB_ID=101 bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm1.log" 2>&1 ||
  { cat "$WORK/slurm1.log"; fail "sbatch template exited with $?"; }
check_complete "$S" $MODES
# The first start logs the plan of every mode (network_test --estimate) and writes no results for it.
grep -q "^total_s=[0-9.]* time_limit=[0-9]*:[0-9][0-9]:[0-9][0-9]$" "$WORK/slurm1.log" || { cat "$WORK/slurm1.log"; fail "no plan"; }
[[ $(grep -cE '^(one_to_one|async_one_to_one|bcast) +[0-9.]+ s' "$WORK/slurm1.log") == 3 ]] || { cat "$WORK/slurm1.log"; fail "plan lacks a mode"; }
compgen -G "$S/plan*" >/dev/null && fail "the plan left files: $(ls "$S"/plan*)"
env "${common[@]}" NT_OUT="$S" NT_LAUNCH="$MPIEXEC" SLURM_NTASKS=2 SLURM_NTASKS_PER_NODE=2 \
  SLURM_JOB_ID=101 bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm2.log" 2>&1
[[ $(grep -c 'done before, skipped' "$WORK/slurm2.log") == 3 ]] || { cat "$WORK/slurm2.log"; fail "finished modes not skipped"; }
echo "ok"

echo "== Slurm template: the job's time limit becomes each fresh mode's network_test --time-limit"
S6=$WORK/slurm-timelimit
# 65 minutes left, 5 of them the margin, two modes: about 1800 s for the first, the rest for the second.
env "${common[@]}" NT_MODES="one_to_one bcast" NT_PLAN=0 NT_OUT="$S6" NT_LAUNCH="$MPIEXEC" SLURM_NTASKS=2 \
  SLURM_NTASKS_PER_NODE=2 SLURM_JOB_ID=106 SLURM_JOB_END_TIME=$(($(date +%s) + 3900)) \
  bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm-tl.log" 2>&1 ||
  { cat "$WORK/slurm-tl.log"; fail "time-limited job failed"; }
check_complete "$S6" one_to_one bcast
grep -qE "one_to_one: start --time-limit 1[78][0-9][0-9]$" "$WORK/slurm-tl.log" || { cat "$WORK/slurm-tl.log"; fail "no --time-limit share"; }
grep -qE "bcast: start --time-limit 3[0-9]{3}$" "$WORK/slurm-tl.log" || { cat "$WORK/slurm-tl.log"; fail "no share for the last mode"; }
grep -q "^  options: " "$S6/one_to_one.out" || { cat "$S6/one_to_one.out"; fail "no plan in one_to_one.out"; }
ncdump -h "$S6/one_to_one_median.nc" | grep ":time_plan = " >/dev/null || fail "the plan is not in the file's attributes"
# Without a known limit (no SLURM_JOB_END_TIME, no squeue) no mode gets --time-limit.
grep -q -- "--time-limit" "$WORK/slurm1.log" && fail "--time-limit passed without a known limit"
echo "ok"

echo "== Slurm template: NT_BASELINE health check sets the job's exit state"
[[ -s $S/analysis/report.html ]] || fail "no report.html"
# The run against itself: nothing changed, exit 0, compare.html written.
env "${common[@]}" NT_OUT="$S" NT_BASELINE="$S" NT_LAUNCH="$MPIEXEC" SLURM_NTASKS=2 SLURM_NTASKS_PER_NODE=2 \
  SLURM_JOB_ID=101 bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm-base0.log" 2>&1
rc=$?
[[ $rc == 0 ]] || { cat "$WORK/slurm-base0.log"; fail "compare with itself: job exit $rc, expected 0"; }
grep -q "compare: no change against" "$WORK/slurm-base0.log" || { cat "$WORK/slurm-base0.log"; fail "no compare line"; }
[[ -s $S/analysis/compare.html && -s $S/analysis/compare.json ]] || fail "compare.html/json missing"
grep -qiE 'https?:' "$S/analysis/compare.html" "$S/analysis/report.html" && fail "an http(s) reference in the pages"
# A baseline that cannot be compared (another mode under the one_to_one name): exit 2.
B2=$WORK/baseline-other
mkdir -p "$B2"
cp "$S/async_one_to_one_median.nc" "$B2/one_to_one_median.nc"
env "${common[@]}" NT_OUT="$S" NT_BASELINE="$B2" NT_LAUNCH="$MPIEXEC" SLURM_NTASKS=2 SLURM_NTASKS_PER_NODE=2 \
  SLURM_JOB_ID=101 bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm-base2.log" 2>&1
rc=$?
[[ $rc == 2 ]] || { cat "$WORK/slurm-base2.log"; fail "baseline of another mode: job exit $rc, expected 2"; }
# A baseline 1000x faster (synthetic, 2 ranks, no host names: matched by number): findings, exit 3.
if [[ -x $BIN/analyze_make_synth ]]; then
  B3=$WORK/baseline-fast
  mkdir -p "$B3"
  "$BIN/analyze_make_synth" "$B3/one_to_one" --nodes 1 --rpn 2 --no-hosts --slow-node 0 --slow-factor 0.001 \
    --max-pow 16 >/dev/null || fail "analyze_make_synth failed"
  env "${common[@]}" NT_OUT="$S" NT_BASELINE="$B3" NT_LAUNCH="$MPIEXEC" SLURM_NTASKS=2 SLURM_NTASKS_PER_NODE=2 \
    SLURM_JOB_ID=101 bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm-base3.log" 2>&1
  rc=$?
  [[ $rc == 3 ]] || { cat "$WORK/slurm-base3.log"; fail "slower than the baseline: job exit $rc, expected 3"; }
  grep -q "FINDINGS against" "$WORK/slurm-base3.log" || fail "no findings line"
  grep -q "class_slower" "$S/analysis/compare.json" || fail "compare.json without the finding"
fi
echo "ok"

echo "== Slurm template: NT_PLAN_ONLY=1 plans and measures nothing"
S0=$WORK/slurm-plan
env "${common[@]}" NT_OUT="$S0" NT_PLAN_ONLY=1 NT_LAUNCH="$MPIEXEC" SLURM_NTASKS=2 SLURM_NTASKS_PER_NODE=2 \
  SLURM_JOB_ID=100 bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm0.log" 2>&1 ||
  { cat "$WORK/slurm0.log"; fail "plan-only job failed"; }
grep -q "stopping after the plan" "$WORK/slurm0.log" || { cat "$WORK/slurm0.log"; fail "plan-only did not stop"; }
compgen -G "$S0/*.nc" >/dev/null && fail "plan-only measured: $(ls "$S0")"
echo "ok"

echo "== Slurm template: USR1 before the time limit, requeue, resume"
S2=$WORK/slurm-limit
# 21 lengths up to 8 MB: a few seconds, long enough to be stopped after the first lengths.
# (No plan here: the time limits below are about the measurement.)
long=(NT_BIN="$BIN" NT_MODES="one_to_one" NT_BEGIN=0 NT_END=8000000 NT_GEOMETRIC= NT_STEP=400000 NT_REPEATS=20 NT_PLAN=0)
# Rank 1 hangs at the third length (network_test's test hook, as a stuck node would), so the
# signal always arrives mid-sweep however fast this machine is.
stall=(NT_DEBUG_STALL=1:800000)
env "${long[@]}" "${stall[@]}" NT_OUT="$S2" NT_LAUNCH="$MPIEXEC" SLURM_NTASKS=2 SLURM_NTASKS_PER_NODE=2 SLURM_JOB_ID=102 \
  bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm3.log" 2>&1 &
job=$!
# Wait until the first length is stored, then signal.
for _ in $(seq 1 600); do
  ncdump -h "$S2/one_to_one_median.nc" 2>/dev/null | grep -qE 'UNLIMITED ; // \([1-9][0-9]* currently\)' && break
  sleep 0.05
done
kill -USR1 $job
wait $job
grep -q "time limit near" "$WORK/slurm3.log" || { cat "$WORK/slurm3.log"; fail "USR1 not handled"; }
grep -q "scontrol requeue 102" "$WORK/fake/calls.log" || fail "job not requeued"
# The stopped measurement must really be gone before the job is requeued.
pgrep -f "network_test -t one_to_one .*$S2/one_to_one" >/dev/null && fail "network_test still runs after USR1"
[[ -e $S2/one_to_one.done ]] && fail "interrupted mode marked done (make the sweep longer?)"
n=$(records "$S2/one_to_one_median.nc")
echo "lengths stored when stopped: $n"
[[ $n -gt 0 && $n -lt 21 ]] || fail "partial file not as expected"
env "${long[@]}" NT_OUT="$S2" NT_LAUNCH="$MPIEXEC" SLURM_NTASKS=2 SLURM_NTASKS_PER_NODE=2 SLURM_JOB_ID=102 \
  SLURM_RESTART_COUNT=1 bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm4.log" 2>&1 ||
  { cat "$WORK/slurm4.log"; fail "restarted job failed"; }
grep -q "one_to_one: --resume" "$WORK/slurm4.log" || { cat "$WORK/slurm4.log"; fail "restart did not resume"; }
[[ -e $S2/one_to_one.done ]] || { cat "$WORK/slurm4.log"; fail "resumed mode not complete"; }
[[ $(records "$S2/one_to_one_median.nc") == 21 ]] || fail "resumed file incomplete"
echo "ok"

echo "== Slurm template through srun: --mpi plugin, every network_test failing, reuse, requeue refused"
one=(NT_BIN="$BIN" NT_MODES="one_to_one" NT_LENGTHS=0,1024,65536 NT_REPEATS=3 NT_PLAN=0 SLURM_NTASKS=2 SLURM_NTASKS_PER_NODE=2)
S3=$WORK/slurm-srun
env "${one[@]}" NT_OUT="$S3" NT_SRUN_MPI=pmix NT_PROMETHEUS="$WORK/nt.prom" SLURM_JOB_ID=301 \
  bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm-srun.log" 2>&1 ||
  { cat "$WORK/slurm-srun.log"; fail "srun job failed"; }
grep -q "^srun --mpi=pmix --ntasks-per-node=2 .*network_test -t one_to_one" "$WORK/fake/calls.log" ||
  { cat "$WORK/fake/calls.log"; fail "srun without --mpi=pmix"; }
[[ -e $S3/one_to_one.done ]] || fail "srun job did not complete one_to_one"
grep -q "report: network_analyze check: status=" "$WORK/slurm-srun.log" || { cat "$WORK/slurm-srun.log"; fail "no summary line"; }
grep -q "^network_tests_status " "$WORK/nt.prom" || fail "no Prometheus textfile"
# Every network_test fails (P single-rank jobs): the job fails with 4, even without a baseline...
S4=$WORK/slurm-singletons
env "${one[@]}" NT_OUT="$S4" FAKE_SRUN_SINGLETONS=1 SLURM_JOB_ID=302 \
  bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm-single.log" 2>&1
rc=$?
[[ $rc == 4 ]] || { cat "$WORK/slurm-single.log"; fail "every network_test failed: job exit $rc, expected 4"; }
grep -q "FAILED: no mode was measured" "$WORK/slurm-single.log" || fail "no FAILED line"
# ...and with a baseline: still 4, not compare's verdict on nothing.
env "${one[@]}" NT_OUT="$S4" NT_BASELINE="$S3" FAKE_SRUN_SINGLETONS=1 SLURM_JOB_ID=302 \
  bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm-single2.log" 2>&1
rc=$?
[[ $rc == 4 ]] || { cat "$WORK/slurm-single2.log"; fail "every network_test failed, with a baseline: job exit $rc"; }
# A later job given a finished run's folder (a nightly NT_OUT used twice) is refused: nothing skipped.
env "${one[@]}" NT_OUT="$S3" SLURM_JOB_ID=303 bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm-reuse.log" 2>&1
rc=$?
[[ $rc == 2 ]] || { cat "$WORK/slurm-reuse.log"; fail "another job's finished NT_OUT: job exit $rc, expected 2"; }
grep -q "holds the run of job 301" "$WORK/slurm-reuse.log" || { cat "$WORK/slurm-reuse.log"; fail "no reuse message"; }
grep -q "done before, skipped" "$WORK/slurm-reuse.log" && fail "a new job skipped another job's modes"
# Requeue refused: the very script scontrol names is submitted again with the job's counts.
S5=$WORK/slurm-noreq
env "${long[@]}" "${stall[@]}" NT_OUT="$S5" FAKE_NO_REQUEUE=1 FAKE_SCRIPT="$SRC/scripts/slurm/network_test.sbatch" \
  NT_LAUNCH="$MPIEXEC" SLURM_NTASKS=2 SLURM_NTASKS_PER_NODE=2 SLURM_JOB_NUM_NODES=1 SLURM_JOB_ID=304 \
  bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm-noreq.log" 2>&1 &
job=$!
for _ in $(seq 1 600); do
  [[ -e $S5/one_to_one_median.nc && $(records "$S5/one_to_one_median.nc") -ge 1 ]] && break
  sleep 0.05
done
kill -USR1 $job
wait $job
grep -q "sbatch --nodes=1 --ntasks=2 --ntasks-per-node=2 --export=ALL,NT_OUT=$S5,NT_RESUBMIT_COUNT=1 $SRC/scripts/slurm/network_test.sbatch" \
  "$WORK/fake/calls.log" || { cat "$WORK/fake/calls.log" "$WORK/slurm-noreq.log"; fail "not resubmitted with sbatch"; }
echo "ok"

echo "== PBS template: full sweep"
P=$WORK/pbs
printf 'localhost\nlocalhost\n' >"$WORK/nodefile"
env "${common[@]}" NT_OUT="$P" NT_MPIEXEC="$MPIEXEC" PBS_NODEFILE="$WORK/nodefile" PBS_JOBID=201 PBS_O_WORKDIR="$WORK" \
  bash "$SRC/scripts/pbs/network_test.pbs" >"$WORK/pbs1.log" 2>&1 ||
  { cat "$WORK/pbs1.log"; fail "pbs template exited with $?"; }
grep -q "1 nodes x 2 ranks (2 ranks)" "$WORK/pbs1.log" || { cat "$WORK/pbs1.log"; fail "node file not read"; }
check_complete "$P" $MODES
echo "ok"

echo "== PBS template: NT_BASELINE"
env "${common[@]}" NT_OUT="$P" NT_BASELINE="$S" NT_MPIEXEC="$MPIEXEC" PBS_NODEFILE="$WORK/nodefile" PBS_JOBID=201 \
  PBS_O_WORKDIR="$WORK" bash "$SRC/scripts/pbs/network_test.pbs" >"$WORK/pbs-base.log" 2>&1
rc=$?
# Two runs of this machine: the same host; whatever the load did to the delays, compare ran and its
# exit state is the job's (0 or 3), with the page written.
[[ $rc == 0 || $rc == 3 ]] || { cat "$WORK/pbs-base.log"; fail "pbs compare: job exit $rc"; }
grep -qE "compare: (no change|FINDINGS) against $S" "$WORK/pbs-base.log" || { cat "$WORK/pbs-base.log"; fail "pbs: no compare line"; }
[[ -s $P/analysis/compare.html ]] || fail "pbs: compare.html missing"
echo "ok"

echo "== PBS template: walltime too short, resubmit, resume"
P2=$WORK/pbs-limit
# qstat -f (PBS Pro) lists the job's resources; its walltime leaves 2 s after the 300 s margin.
cat >"$WORK/fake/qstat" <<'EOF'
#!/bin/sh
printf 'Job Id: %s\n    queue = workq\n    Account_Name = proj42\n' "$2"
printf '    Resource_List.place = scatter:excl\n    Resource_List.select = 1:ncpus=2:mpiprocs=2\n'
printf '    Resource_List.walltime = 00:05:02\n'
EOF
chmod +x "$WORK/fake/qstat"
# PBS runs a spooled copy of the script; the user submitted it from elsewhere (the repository
# root), so PBS_O_WORKDIR holds no network_test.pbs.
mkdir -p "$WORK/spool"
cp "$SRC/scripts/pbs/network_test.pbs" "$WORK/spool/202.server.SC"
env "${long[@]}" "${stall[@]}" NT_MIN_RUN=1 NT_OUT="$P2" NT_MPIEXEC="$MPIEXEC" PBS_NODEFILE="$WORK/nodefile" PBS_JOBID=202 \
  PBS_O_WORKDIR="$WORK" bash "$WORK/spool/202.server.SC" >"$WORK/pbs2.log" 2>&1
grep -q "stopped before the walltime" "$WORK/pbs2.log" || { cat "$WORK/pbs2.log"; fail "walltime stop not seen"; }
grep -q "qsub -l select=1:ncpus=2:mpiprocs=2 -l place=scatter:excl -l walltime=00:05:02 -q workq -A proj42 -v NT_OUT=$P2,NT_RESUBMIT_COUNT=1 $P2/network_test.pbs" \
  "$WORK/fake/calls.log" || { cat "$WORK/fake/calls.log"; fail "not resubmitted with the same script and resources"; }
cmp -s "$P2/network_test.pbs" "$SRC/scripts/pbs/network_test.pbs" || fail "the resubmitted script is not this very script"
rm "$WORK/fake/qstat"
# The resubmitted job gets only NT_OUT and the count; the rest comes from settings.env.
env -u NT_MODES NT_OUT="$P2" NT_RESUBMIT_COUNT=1 PBS_NODEFILE="$WORK/nodefile" PBS_JOBID=203 \
  PBS_O_WORKDIR="$WORK" bash "$SRC/scripts/pbs/network_test.pbs" >"$WORK/pbs3.log" 2>&1 ||
  { cat "$WORK/pbs3.log"; fail "resubmitted job failed"; }
grep -q "one_to_one: --resume" "$WORK/pbs3.log" || { cat "$WORK/pbs3.log"; fail "resubmitted job did not resume"; }
[[ -e $P2/one_to_one.done ]] || { cat "$WORK/pbs3.log"; fail "resumed mode not complete"; }
echo "ok"

echo "== PBS template: the walltime becomes network_test --time-limit"
P5=$WORK/pbs-timelimit
cat >"$WORK/fake/qstat" <<'EOF2'
#!/bin/sh
printf 'Job Id: %s\n    Resource_List.walltime = 01:05:00\n' "$2"
EOF2
chmod +x "$WORK/fake/qstat"
env "${one[@]}" NT_OUT="$P5" NT_MPIEXEC="$MPIEXEC" PBS_NODEFILE="$WORK/nodefile" PBS_JOBID=205 PBS_O_WORKDIR="$WORK" \
  bash "$SRC/scripts/pbs/network_test.pbs" >"$WORK/pbs-tl.log" 2>&1 || { cat "$WORK/pbs-tl.log"; fail "pbs time-limited job failed"; }
rm "$WORK/fake/qstat"
grep -qE "one_to_one: start --time-limit 3[0-9]{3}$" "$WORK/pbs-tl.log" || { cat "$WORK/pbs-tl.log"; fail "pbs: no --time-limit"; }
grep -q "^time plan for --time-limit" "$WORK/pbs-tl.log" || { cat "$WORK/pbs-tl.log"; fail "pbs: the plan is not in the log"; }
[[ -e $P5/one_to_one.done ]] || fail "pbs: time-limited mode not complete"
echo "ok"

echo "== PBS template: every network_test failing"
P4=$WORK/pbs-fail
env "${one[@]}" NT_OUT="$P4" NT_MPIEXEC="$WORK/fake/mpiexec-singletons" PBS_NODEFILE="$WORK/nodefile" PBS_JOBID=204 \
  PBS_O_WORKDIR="$WORK" bash "$SRC/scripts/pbs/network_test.pbs" >"$WORK/pbs-fail.log" 2>&1
rc=$?
[[ $rc == 4 ]] || { cat "$WORK/pbs-fail.log"; fail "pbs, every network_test failed: job exit $rc, expected 4"; }
grep -q "FAILED: no mode was measured" "$WORK/pbs-fail.log" || fail "pbs: no FAILED line"
echo "ok"
echo "PASS"
