#!/usr/bin/env python3
"""Checks `network_analyze compare` of a simulated run with a slow node against its baseline.

  check_compare.py TRUTH.json COMPARE.json RC REPORT.json

Noise-free data (the simulator's) has a robust sigma of 0: the slow node must still be found.
Required: exit 3 (findings); one node_slower finding naming exactly the truth's slow node and its
ranks; its ratio within 10 % of the slowdown that `report` finds for that node in the slow run
(compare and report agree); no node_moved or topology_changed (nothing moved: where the two
reports group the network apart, the delays show that no host moved).
Prints what it found; exit 0 when all holds.
"""
import json
import sys


def main(truth_path, compare_path, rc, report_path):
    truth = json.load(open(truth_path))
    cmp = json.load(open(compare_path))
    rep = json.load(open(report_path))
    slow = [f for f in truth["faults"] if f["kind"] == "slow_node"]
    assert len(slow) == 1, "the truth must have one slow node"
    host, ranks = slow[0]["host"], sorted(slow[0]["ranks"])
    errors = []
    if rc != 3:
        errors.append(f"exit {rc}, want 3 (findings)")
    found = [f for f in cmp["findings"] if f["kind"] == "node_slower"]
    kinds = [(f["kind"], f["hosts"]) for f in cmp["findings"]]
    score = [a["score"] for a in rep["anomalies"] if a["kind"] == "slow_node" and sorted(a["ranks"]) == ranks]
    if len(found) != 1 or found[0]["hosts"] != [host]:
        errors.append(f"node_slower findings {[(f['hosts'], f['ratio']) for f in found]}, want one on {host}")
    elif sorted(found[0]["ranks_current"]) != ranks:
        errors.append(f"ranks {found[0]['ranks_current']}, want {ranks}")
    elif not score:
        errors.append(f"report of the slow run has no slow_node on ranks {ranks}: {rep['anomalies']}")
    elif abs(found[0]["ratio"] / score[0] - 1) > 0.10:
        errors.append(f"compare's ratio {found[0]['ratio']:.2f} is not within 10 % of report's {score[0]:.2f}x")
    moves = [f["hosts"] for f in cmp["findings"] if f["kind"] in ("node_moved", "topology_changed")]
    if moves:
        errors.append(f"moves reported where nothing moved: {moves}")
    print(f"compare: exit {rc}, findings {kinds}; node_slower ratio "
          f"{found[0]['ratio'] if found else None}; report's score {score[0] if score else None}")
    for e in errors:
        print(f"FAIL: {e}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]))
