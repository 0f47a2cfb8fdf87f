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
# Fake batch-system commands: they log their arguments.
for c in scontrol qsub; do
  printf '#!/bin/sh\necho "%s $*" >> %s/fake/calls.log\n' "$c" "$WORK" >"$WORK/fake/$c"
done
chmod +x "$WORK"/fake/*
export PATH=$WORK/fake:$PATH

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
/usr/bin/python3 -c "
from netCDF4 import Dataset; import sys
n = len(Dataset('$S2/one_to_one_median.nc').dimensions['n'])
print('lengths stored when stopped:', n); sys.exit(0 if 0 < n < 21 else 1)" || fail "partial file not as expected"
env "${long[@]}" NT_OUT="$S2" NT_LAUNCH="$MPIEXEC" SLURM_NTASKS=2 SLURM_NTASKS_PER_NODE=2 SLURM_JOB_ID=102 \
  SLURM_RESTART_COUNT=1 bash "$SRC/scripts/slurm/network_test.sbatch" >"$WORK/slurm4.log" 2>&1 ||
  { cat "$WORK/slurm4.log"; fail "restarted job failed"; }
grep -q "one_to_one: --resume" "$WORK/slurm4.log" || { cat "$WORK/slurm4.log"; fail "restart did not resume"; }
[[ -e $S2/one_to_one.done ]] || { cat "$WORK/slurm4.log"; fail "resumed mode not complete"; }
/usr/bin/python3 -c "
from netCDF4 import Dataset; import sys
n = len(Dataset('$S2/one_to_one_median.nc').dimensions['n'])
print('lengths after resume:', n); sys.exit(0 if n == 21 else 1)" || fail "resumed file incomplete"
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
# qstat reports a walltime that leaves 2 s after the 300 s margin.
printf '#!/bin/sh\necho "    Resource_List.walltime = 00:05:02"\n' >"$WORK/fake/qstat"
chmod +x "$WORK/fake/qstat"
env "${long[@]}" "${stall[@]}" NT_MIN_RUN=1 NT_OUT="$P2" NT_MPIEXEC="$MPIEXEC" PBS_NODEFILE="$WORK/nodefile" PBS_JOBID=202 \
  PBS_O_WORKDIR="$WORK" NT_SCRIPT="$SRC/scripts/pbs/network_test.pbs" \
  bash "$SRC/scripts/pbs/network_test.pbs" >"$WORK/pbs2.log" 2>&1
grep -q "stopped before the walltime" "$WORK/pbs2.log" || { cat "$WORK/pbs2.log"; fail "walltime stop not seen"; }
grep -q "qsub -v NT_OUT=$P2,NT_RESUBMIT_COUNT=1 $SRC/scripts/pbs/network_test.pbs" "$WORK/fake/calls.log" ||
  { cat "$WORK/fake/calls.log"; fail "not resubmitted"; }
rm "$WORK/fake/qstat"
# The resubmitted job gets only NT_OUT and the count; the rest comes from settings.env.
env -u NT_MODES NT_OUT="$P2" NT_RESUBMIT_COUNT=1 PBS_NODEFILE="$WORK/nodefile" PBS_JOBID=203 \
  PBS_O_WORKDIR="$WORK" bash "$SRC/scripts/pbs/network_test.pbs" >"$WORK/pbs3.log" 2>&1 ||
  { cat "$WORK/pbs3.log"; fail "resubmitted job failed"; }
grep -q "one_to_one: --resume" "$WORK/pbs3.log" || { cat "$WORK/pbs3.log"; fail "resubmitted job did not resume"; }
[[ -e $P2/one_to_one.done ]] || { cat "$WORK/pbs3.log"; fail "resumed mode not complete"; }
echo "ok"
echo "PASS"
