"""Corrupted clustered files: network_cluster info/decompress must exit 0 or 2 with at most one
line on stderr (never a crash, a hang, or an HDF5 error stack).
usage: fuzz_clustered.py NETWORK_CLUSTER CLUSTER_MAKE_INPUT WORKDIR [CASES]"""
import os, random, shutil, subprocess, sys

nc, mk, work = sys.argv[1:4]
cases = int(sys.argv[4]) if len(sys.argv) > 4 else 60
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
subprocess.run([mk, "synth", f"{work}/run"], check=True)
subprocess.run([nc, "compress", f"{work}/run_median.nc", "-o", f"{work}/c.nc", "--threshold", "5%",
                "--exceptions", "1"], check=True, capture_output=True)
good = open(f"{work}/c.nc", "rb").read()
bad = 0
outcomes = {}
for seed in range(cases):
    rnd = random.Random(seed)
    b = bytearray(good)
    if seed % 4 == 3:
        b = b[: rnd.randrange(len(b))]  # truncated
    else:
        for _ in range(rnd.randint(1, 4)):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
    path = f"{work}/fz.nc"
    open(path, "wb").write(b)
    for args in (["info", path], ["decompress", path, "-o", f"{work}/out.nc", "--force"]):
        p = subprocess.run([nc] + args, capture_output=True, text=True, timeout=60)
        outcomes[(args[0], p.returncode)] = outcomes.get((args[0], p.returncode), 0) + 1
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        if p.returncode not in (0, 2) or len(lines) > 1 or (p.returncode == 2 and "error:" not in p.stderr):
            bad += 1
            print(f"case {seed} {args[0]}: exit {p.returncode}\n{p.stderr[-600:]}")
print(f"{cases} corrupted files, {bad} bad outcomes; exit codes: {sorted(outcomes.items())}")
sys.exit(1 if bad else 0)
