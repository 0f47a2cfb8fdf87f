#!/usr/bin/env python3
"""The closed loop: a measured file -> `network_analyze export --format simgrid` -> network_test
simulated on that platform -> per length, the median over rank pairs of the simulated delays must
be within TOLERANCE of the measured file's median over the same pairs (off-diagonal cells), and,
with CELL_TOLERANCE, every off-diagonal cell within CELL_TOLERANCE of the measured cell plus 1 ns
(SimGrid's precision/timing: simulated times come in whole nanoseconds, and the cells of
one route within a node at 0 B, 11.6 ns without rounding, read 11 or 12 ns, 9 % apart).

  closed_loop.py ANALYZE SIMULATE NETWORK_TEST_SMPI MEASURED.nc WORKDIR [TOLERANCE=0.10] [CELL_TOLERANCE]

The measured file's lengths are given to network_test. Prints one line per length (the medians and
the worst cell: sender -> receiver, both delays, its error) whether or not CELL_TOLERANCE is given;
exit 1 when a length's median, or with CELL_TOLERANCE a cell, is off by more than its tolerance.
A cell check is for noise-free (simulated) measurements: on real hardware a cell's own noise is
larger than 1 %.
"""
import os
import subprocess
import sys

import netCDF4
import numpy as np

QUANTUM = 1e-9  # SimGrid's precision/timing: a simulated delay is whole nanoseconds


def matrices(path):
    with netCDF4.Dataset(path) as d:
        lengths = [int(x) for x in d.variables["message_length"][:]]
        data = np.array(d.variables["data"][:], dtype=float)
    return lengths, data


def main(analyze, simulate, network_test, measured, work, tolerance=0.10, cell_tolerance=None):
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
    worst = worst_cell = 0.0
    for k, L in enumerate(lengths):
        w = np.nanmedian(want[k][off])
        g = np.nanmedian(got[k][off])
        err = abs(g - w) / w
        worst = max(worst, err)
        valid = off & np.isfinite(want[k]) & np.isfinite(got[k]) & (want[k] > 0)
        diff = np.abs(got[k] - want[k])
        cells = np.where(valid, diff / np.where(valid, want[k], 1), -1.0)
        # the check: the error beyond SimGrid's last nanosecond
        beyond = np.where(valid, np.maximum(0.0, diff - QUANTUM * 1.001) / np.where(valid, want[k], 1), -1.0)
        worst_cell = max(worst_cell, float(np.max(beyond)))
        i, j = np.unravel_index(int(np.argmax(cells)), cells.shape)
        print(f"closed_loop: length {L:>8}: measured median {w * 1e6:10.2f} us, simulated {g * 1e6:10.2f} us, "
              f"{100 * err:5.2f} % off; worst cell {i}->{j}: {want[k][i, j] * 1e6:.4f} us, simulated "
              f"{got[k][i, j] * 1e6:.4f} us, {100 * cells[i, j]:.2f} % off")
    ok = worst <= tolerance
    print(f"closed_loop: worst median {100 * worst:.2f} % (tolerance {100 * tolerance:g} %): {'ok' if ok else 'FAILED'}")
    if cell_tolerance is not None:
        cells_ok = worst_cell <= cell_tolerance
        print(f"closed_loop: worst cell beyond 1 ns {100 * worst_cell:.2f} % (tolerance {100 * cell_tolerance:g} %): "
              f"{'ok' if cells_ok else 'FAILED'}")
        ok = ok and cells_ok
    else:
        print(f"closed_loop: worst cell beyond 1 ns {100 * worst_cell:.2f} % (not checked)")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) not in (6, 7, 8):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:6], *(float(x) for x in sys.argv[6:])))
