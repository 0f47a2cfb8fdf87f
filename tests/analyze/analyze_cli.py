"""Shared by the CLI tests of network_analyze (cli_tests.py, scale_tests.py): their command line
TEST NETWORK_ANALYZE MAKE_SYNTH WORKDIR, a fresh work directory, and helpers that run the real
programs on real NetCDF files. Importing it reads sys.argv and empties WORKDIR.
"""
import json
import os
import shutil
import subprocess
import sys

TEST, ANALYZE, SYNTH, WORK = sys.argv[1:5]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)


def run(args, rc=0):  # rc None: any exit code (the caller checks it)
    p = subprocess.run(args, capture_output=True, text=True, cwd=WORK, timeout=100)
    if rc is not None and p.returncode != rc:
        sys.exit(f"FAIL: {' '.join(args)} exited {p.returncode}, expected {rc}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def synth(prefix, *opts):
    """Writes <prefix>_*.nc with the synthetic-data helper; returns its ground truth."""
    run([SYNTH, os.path.join(WORK, prefix), *opts])
    return load(prefix + "_truth.json")


def partition(labels):
    groups = {}
    for r, l in enumerate(labels):
        groups.setdefault(l, []).append(r)
    return sorted(sorted(g) for g in groups.values())


def check(cond, msg):
    if not cond:
        sys.exit("FAIL: " + msg)


def load(name):
    with open(os.path.join(WORK, name)) as f:
        return json.load(f)


def analyze(*args, rc=0):
    return run([ANALYZE, *args], rc)
