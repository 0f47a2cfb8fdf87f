#!/usr/bin/env python3
"""Checks of smpi_test.sh's case `sampled` (network_test --sample-pairs against all pairs).

  check_sampled.py ALL_S SAMPLED_S ALL.nc SAMPLED.nc
      the sampled file's cells against the all-pairs file of the same simulated platform (2 ranks
      per host): every measured cell the all-pairs cell, the others missing (NaN), the same cells
      at every length, a host pair's cells all measured or all missing and both ways, every cell
      within a host measured, two landmark hosts measured with every host, every host with at least
      K + N partners, the schedule attribute, and less simulated time (ALL_S, SAMPLED_S: the runs'
      "done in" seconds)
  check_sampled.py --same-report ALL.json SAMPLED.json
      network_analyze report of both: the same levels (every level's groups of ranks) and the same
      findings (kind and hosts)
"""
import json
import sys

import netCDF4
import numpy as np


def cube(path):
    with netCDF4.Dataset(path) as d:
        return np.asarray(d["data"][:], dtype=float), d.schedule


def cells(all_s, smp_s, all_path, smp_path):
    full, _ = cube(all_path)
    smp, schedule = cube(smp_path)
    P = full.shape[1]
    H = P // 2
    host = np.arange(P) // 2
    off = ~np.eye(P, dtype=bool)
    miss = np.isnan(smp)
    measured = ~miss & off
    worst = max(float(np.max((np.abs(smp[k] - full[k]) / np.maximum(full[k], 250e-9))[measured[k]]))
                for k in range(len(full)))
    share = float(miss[0][off].mean())
    hm = np.array([[not miss[0][2 * a, 2 * b] for b in range(H)] for a in range(H)])  # host pairs measured
    partners = hm.sum(axis=1) - 1
    print(f"all pairs {all_s:.4f} s, sampled {smp_s:.4f} s ({smp_s / all_s:.3f}); {share:.1%} of the cells "
          f"missing; worst measured cell {worst:.3%}; partners per host {partners.min()}..{partners.max()}; "
          f"schedule {schedule}")
    checks = {
        "measured cells are the all-pairs cells (0.5 %)": worst <= 0.005,
        "some cells missing, none of the all-pairs file's": 0.3 < share < 0.9 and not np.isnan(full[:, off]).any(),
        "the same cells at every length": all((np.isnan(smp[k]) == miss[0]).all() for k in range(len(smp))),
        "a host pair's cells all measured or all missing, both ways":
            all(bool(miss[0][x, y]) == (not hm[host[x], host[y]]) for x in range(P) for y in range(P) if x != y)
            and (hm == hm.T).all(),
        "within a host every cell measured": all(not miss[0][x, x ^ 1] for x in range(P)),
        "two landmark hosts measured with every host": int((partners == H - 1).sum()) >= 2,
        "every host with at least K + N partners": partners.min() >= 4 + 2,
        "the schedule in the file": schedule == "sampled partners=4 landmarks=2 neighbours=2 seed=1",
        "less simulated time": smp_s < all_s,
    }
    for what, ok in checks.items():
        if not ok:
            print(f"FAIL: {what}")
    return all(checks.values())


def same_report(all_json, smp_json):
    def read(p):
        d = json.load(open(p))
        levels = [sorted(map(tuple, level["groups"])) for level in d["hierarchy"]]
        return levels, sorted((a["kind"], tuple(a["hosts"])) for a in d["anomalies"])
    (full_levels, full_found), (smp_levels, smp_found) = read(all_json), read(smp_json)
    print(f"levels: all pairs {[len(x) for x in full_levels]} groups, sampled {[len(x) for x in smp_levels]}; "
          f"findings: all pairs {full_found}, sampled {smp_found}")
    return full_levels == smp_levels and full_found == smp_found


if __name__ == "__main__":
    if sys.argv[1] == "--same-report":
        ok = same_report(*sys.argv[2:4])
    else:
        ok = cells(float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4])
    sys.exit(0 if ok else 1)
