#!/usr/bin/env python3
"""The report of a bench_analyze_gen file against its truth: node and switch groups found right,
and the anomalies. usage: check_groups.py TRUTH.json REPORT.json"""
import collections
import json
import sys

truth, report = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))


def groups(of):
    g = collections.defaultdict(list)
    for rank, x in enumerate(of):
        g[x].append(rank)
    return set(tuple(v) for v in g.values())


levels = {h["level"]: [tuple(sorted(g)) for g in h["groups"]] for h in report["hierarchy"]}
nodes, switches = groups(truth["node"]), groups(truth["switch"])
got_n, got_s = levels.get("node", []), levels.get("switch", [])
print(f"levels {list(levels)}; node groups {len(got_n)} ({sum(g in nodes for g in got_n)} right of {len(nodes)}); "
      f"switch groups {len(got_s)} ({sum(g in switches for g in got_s)} right of {len(switches)})")
for a in report["anomalies"][:5]:
    print(f"anomaly {a['kind']} ranks {a['ranks'][:8]}{' ...' if len(a['ranks']) > 8 else ''}")
print(f"{len(report['anomalies'])} anomalies")
