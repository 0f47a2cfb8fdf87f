#!/usr/bin/env python3
"""A leaf/spine platform written independently of scripts/simulate (a "platform that is
not yours"): other host names, block placement, one SPLITDUPLEX link per cable (SimGrid's own
full-duplex model instead of two one-way links), other latencies, Floyd routing.

  spine_platform.py OUT_DIR [--leaves 8] [--nodes 8] [--ranks 4]
                    [--slow-node N] [--slow-leaf L]

Writes OUT_DIR/platform.xml, OUT_DIR/hostfile (one line per rank, block placement: ranks 4n..4n+3
on host n) and OUT_DIR/truth.json in the form tests/smpi/check_truth.py reads. Every cable and
uplink is 10 Gbit/s; the slow node's cable has 1/4 of the bandwidth and 4x the latency, the slow
leaf's uplink 1/8 of the bandwidth.
"""
import argparse
import json
import os


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--leaves", type=int, default=8)
    ap.add_argument("--nodes", type=int, default=8, help="nodes per leaf")
    ap.add_argument("--ranks", type=int, default=4, help="ranks per node")
    ap.add_argument("--slow-node", type=int, default=21)
    ap.add_argument("--slow-leaf", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    n_nodes = a.leaves * a.nodes
    host = [f"c{i + 1:03d}" for i in range(n_nodes)]
    leaf_of = [i // a.nodes for i in range(n_nodes)]
    x = ['<?xml version="1.0"?>', '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
         '<platform version="4.1">', "<config>",
         '  <prop id="smpi/coll-selector" value="mpich"/>', "</config>",
         '<zone id="machine" routing="Floyd">']
    for h in host:
        x.append(f'  <host id="{h}" speed="2Gf" core="{a.ranks}"/>')
    for l in range(a.leaves):
        x.append(f'  <router id="sw{l}"/>')
    x.append('  <router id="spine"/>')
    for i, h in enumerate(host):
        slow = i == a.slow_node
        bw, lat = ("2.5Gbps", "2us") if slow else ("10Gbps", "500ns")
        x.append(f'  <link id="{h}-cable" bandwidth="{bw}" latency="{lat}" sharing_policy="SPLITDUPLEX"/>')
    for l in range(a.leaves):
        bw = "1.25Gbps" if l == a.slow_leaf else "10Gbps"
        x.append(f'  <link id="sw{l}-up" bandwidth="{bw}" latency="1us" sharing_policy="SPLITDUPLEX"/>')
    # Floyd: one route per adjacent pair, symmetrical, with the direction of a SPLITDUPLEX link.
    for i, h in enumerate(host):
        x.append(f'  <route src="{h}" dst="sw{leaf_of[i]}" symmetrical="NO">'
                 f'<link_ctn id="{h}-cable" direction="UP"/></route>')
        x.append(f'  <route src="sw{leaf_of[i]}" dst="{h}" symmetrical="NO">'
                 f'<link_ctn id="{h}-cable" direction="DOWN"/></route>')
    for l in range(a.leaves):
        x.append(f'  <route src="sw{l}" dst="spine" symmetrical="NO"><link_ctn id="sw{l}-up" direction="UP"/></route>')
        x.append(f'  <route src="spine" dst="sw{l}" symmetrical="NO"><link_ctn id="sw{l}-up" direction="DOWN"/></route>')
    x += ["</zone>", "</platform>"]
    open(os.path.join(a.out, "platform.xml"), "w").write("\n".join(x) + "\n")
    ranks = n_nodes * a.ranks
    rank_host = [host[r // a.ranks] for r in range(ranks)]
    open(os.path.join(a.out, "hostfile"), "w").write("\n".join(rank_host) + "\n")
    nodes = {h: [r for r in range(ranks) if rank_host[r] == h] for h in host}
    switches = {f"sw{l}": {"ranks": [r for r in range(ranks) if leaf_of[r // a.ranks] == l]} for l in range(a.leaves)}
    truth = {"ranks": ranks, "rank_host": rank_host, "nodes": nodes, "switches": switches,
             "faults": [{"kind": "slow_node", "host": host[a.slow_node], "ranks": nodes[host[a.slow_node]]},
                        {"kind": "slow_uplink", "switch": f"sw{a.slow_leaf}",
                         "ranks": switches[f"sw{a.slow_leaf}"]["ranks"]}]}
    json.dump(truth, open(os.path.join(a.out, "truth.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
