#!/usr/bin/env python3
"""The closed loop: a measured file -> `network_analyze export --format simgrid` -> network_test
simulated on that platform -> per length, the median over rank pairs of the simulated delays must
be within TOLERANCE of the measured file's median over the same pairs (off-diagonal cells).

  closed_loop.py ANALYZE SIMULATE NETWORK_TEST_SMPI MEASURED.nc WORKDIR [TOLERANCE=0.10]

The measured file's lengths and sample count are given to network_test. Prints one line per
length; exit 1 when a length is off by more than the tolerance.
"""
import os
import subprocess
import sys

import netCDF4
import numpy as np


def matrices(path):
    with netCDF4.Dataset(path) as d:
        lengths = [int(x) for x in d.variables["message_length"][:]]
        data = np.array(d.variables["data"][:], dtype=float)
    return lengths, data


def main(analyze, simulate, network_test, measured, work, tolerance=0.10):
    os.makedirs(work, exist_ok=True)
    platform = os.path.join(work, "exported.xml")
    subprocess.run([analyze, "export", measured, "--format", "simgrid", "-o", platform, "--force"], check=True)
    lengths, want = matrices(measured)
    out = os.path.join(work, "sim")
    cmd = [sys.executable, simulate, "--platform", platform, "--out", work, "--network-test", network_test, "--",
           "-t", "one_to_one", "--lengths", ",".join(map(str, lengths)), "-n", "3", "-f", out, "--force"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        print(r.stdout[-3000:])
        print(f"closed_loop: the simulation failed (exit {r.returncode})")
        return 1
    got_lengths, got = matrices(out + "_median.nc")
    if got_lengths != lengths:
        print(f"closed_loop: simulated lengths {got_lengths} != measured {lengths}")
        return 1
    P = want.shape[1]
    off = ~np.eye(P, dtype=bool)
    worst = 0.0
    for k, L in enumerate(lengths):
        w = np.nanmedian(want[k][off])
        g = np.nanmedian(got[k][off])
        err = abs(g - w) / w
        worst = max(worst, err)
        print(f"closed_loop: length {L:>8}: measured median {w * 1e6:10.2f} us, simulated {g * 1e6:10.2f} us, "
              f"{100 * err:5.1f} % off")
    ok = worst <= tolerance
    print(f"closed_loop: worst {100 * worst:.1f} % (tolerance {100 * tolerance:.0f} %): {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) not in (6, 7):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:6], *(float(x) for x in sys.argv[6:])))
