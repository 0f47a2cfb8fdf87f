#!/bin/bash
# Does the warm-up that stops when the pair is warm still remove the cold
# iterations? Real ranks on this machine (mpiexec -n 4 through BUILD/nt-mpiexec), one_to_one -n 20,
# an older network_test (MAIN_NT: a fixed warm-up of 10) and this one (NEW_NT) alternately, N runs
# each; per length the off-diagonal cells' medians of all runs pooled: median, p90, max
# (bench/results/timed_share.md).
#   MAIN_NT=... bench/network_test/first_length_warmup.sh [LENGTHS=0,1024,65536] [N=5]
#   env: NEW_NT (default build/bin/network_test), BUILD (default build), OUT (default /tmp/nt-first-length)
L=${1:-0,1024,65536}; N=${2:-5}
OUT=${OUT:-/tmp/nt-first-length}; mkdir -p "$OUT"; export OUT
for i in $(seq 1 ${RUNS:-$N}); do
  for v in main new; do
    b=${MAIN_NT:?MAIN_NT: the network_test to compare with}; [ $v = new ] && b=${NEW_NT:-build/bin/network_test}
    ${BUILD:-build}/nt-mpiexec -n 4 $b -t one_to_one --lengths $L -n 20 -f $OUT/$v$i --force --progress none > $OUT/$v$i.log 2>&1
  done
done
python3 - $L $N <<'PY'
import sys, subprocess, csv, statistics, io, os
L=[int(x) for x in sys.argv[1].split(',')]; N=int(sys.argv[2])
for v in ['main','new']:
    per={l:[] for l in L}; times=[]
    for i in range(1,N+1):
        subprocess.run([os.environ.get('BUILD', 'build') + '/bin/network_convert','to-csv',f'{os.environ["OUT"]}/{v}{i}_median.nc','-o',f'{os.environ["OUT"]}/{v}{i}.csv','--force'],capture_output=True); out=open(f'{os.environ["OUT"]}/{v}{i}.csv').read()
        for row in csv.DictReader(io.StringIO(out)):
            if row['sender']!=row['receiver']: per[int(row['message_length'])].append(float(row['value'])*1e6)
        log=open(f'{os.environ["OUT"]}/{v}{i}.log').read()
        import re
        m=re.search(r'done in ([0-9.]+) s; timed communication ([0-9.]+) s \(([0-9.]+)%',log); times.append((float(m.group(1)),float(m.group(3))))
    print(v, 'run s / timed %:', ' '.join(f'{a:.3f}/{b:.1f}' for a,b in times))
    for l in L:
        c=sorted(per[l]); print(f'  {l:>7} B: median of cell medians {statistics.median(c):8.2f} us, p90 {c[int(0.9*len(c))]:8.2f}, max {c[-1]:8.2f} ({len(c)} cells)')
PY
