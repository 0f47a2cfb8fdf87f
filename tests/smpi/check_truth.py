#!/usr/bin/env python3
"""Compares network_analyze's report (--json) of a simulated run with the truth scripts/simulate wrote.

  check_truth.py TRUTH.json REPORT.json

Exact: the node level must be the truth's nodes, the switch level its leaf switches, and no other
level; every fault must be one anomaly on exactly its ranks (a slow node: kind slow_node; a slow
uplink: any kind, on the leaf's ranks); no other anomaly. Prints what differs; exit 0 when nothing.
"""
import json
import sys


def groups(lists):
    return sorted(tuple(sorted(g)) for g in lists)


def main(truth_path, report_path):
    truth = json.load(open(truth_path))
    report = json.load(open(report_path))
    errors = []
    want_nodes = groups(truth["nodes"].values())
    want_switches = groups(s["ranks"] for s in truth["switches"].values())
    levels = {h["level"]: groups(h["groups"]) for h in report.get("hierarchy", [])}
    names = [h["level"] for h in report.get("hierarchy", [])]
    if levels.get("node") != want_nodes:
        got = levels.get("node") or []
        errors.append(f"node level: {len(got)} groups, want {len(want_nodes)}; "
                      f"wrong: {[g for g in got if g not in want_nodes][:5]}")
    if len(want_switches) > 1:
        if levels.get("switch") != want_switches:
            got = levels.get("switch") or []
            errors.append(f"switch level: {len(got)} groups, want {len(want_switches)}; "
                          f"wrong: {[g for g in got if g not in want_switches][:5]}")
        if names != ["node", "switch"]:
            errors.append(f"levels {names}, want ['node', 'switch']")
    elif names != ["node"]:
        errors.append(f"levels {names}, want ['node']")

    anomalies = list(report.get("anomalies", []))
    used = set()
    for f in truth["faults"]:
        ranks = sorted(f["ranks"])
        hit = [i for i, a in enumerate(anomalies) if i not in used and sorted(a["ranks"]) == ranks
               and (f["kind"] != "slow_node" or a["kind"] == "slow_node")]
        if not hit:
            errors.append(f"fault {f['kind']} on ranks {ranks} not found")
        else:
            used.add(hit[0])
    for i, a in enumerate(anomalies):
        if i not in used:
            errors.append(f"anomaly not in the truth: {a['kind']} ranks {a['ranks']}: {a.get('detail', '')}")
    for e in errors:
        print("check_truth:", e)
    if not errors:
        print(f"check_truth: exact: {len(want_nodes)} nodes, {len(want_switches)} switches, "
              f"{len(truth['faults'])} fault(s), nothing else")
    return 1 if errors else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
