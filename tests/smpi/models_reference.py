#!/usr/bin/env python3
"""The reference network of the models: SMPI platforms whose latency L, bandwidth 1/G, send and
receive overheads (smpi/os, smpi/or) and eager/rendezvous threshold (smpi/async-small-thresh,
smpi/send-is-detached-thresh) are set by hand; network_test's one_to_one and loggp modes run on
them, and every parameter that `network_analyze model` and `export` give is checked against the
set values.

  models_reference.py ANALYZE SIMULATE NETWORK_TEST_SMPI WORKDIR [--only NAME,...] [--table FILE]

Prints one table per platform (parameter, set, measured, error, verdict) and exits 1 when a check
fails. KNOWN_BAD lists the checks that are known to fail (each with its reason); such a check that
passes fails the run too, so that the list only shrinks.

What SimGrid 3.32 does with these settings (src/smpi/mpi/smpi_request.cpp): every message carries
a 16-byte envelope (payload = size + 16 bytes); a send below send-is-detached-thresh returns at
once, and its receiver sleeps smpi/or when the receive completes; every MPI_Isend (network_test
sends with it) sleeps smpi/ois first, whatever the size (smpi/os is set alike, for MPI_Send); a message
below async-small-thresh moves as soon as it is sent (eager), else only once its receive is posted.
With smpi/lat-factor and smpi/bw-factor 1 a lone message of s bytes takes L + (s + 16) G on the
wire. So, below the threshold, one message costs o_s + L + (s + 16) G + o_r; a train of messages
leaves one every max(o_s, o_r, (s + 16) G) (no other gap exists in SimGrid); above it (rendezvous:
the send completes once the data has moved, no o_r is charged) one message costs
o_s + L + (s + 16) G and a train leaves one every o_s + L + (s + 16) G.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

import netCDF4
import numpy as np

ENVELOPE = 16  # bytes SMPI adds to every message

# name: hosts under leaves (a star when one leaf), link latency (one way, per link), bandwidth,
# overheads, threshold. Every route crosses its hosts' links and, across leaves, both uplinks.
PLATFORMS = {
    # Eager below 64 KiB, with per-message overheads: every LogGP parameter is visible.
    "eager": dict(leaves=1, hosts=4, host_lat=2.5e-6, up_lat=0.0, bw=1.25e9, os=1e-6, orr=2e-6,
                  async_small=65536, detached=65536),
    # SMPI's default protocol (the setting of scripts/simulate): the data moves only once the
    # receive is posted; no overheads.
    "rendezvous": dict(leaves=1, hosts=4, host_lat=2.5e-6, up_lat=0.0, bw=1.25e9, os=0.0, orr=0.0,
                       async_small=0, detached=65536),
    # Held out (no fix was tried on it): a 2-leaf tree, other values, eager below 16 KiB.
    "heldout": dict(leaves=2, hosts=2, host_lat=2e-6, up_lat=2e-6, bw=2.5e9, os=0.5e-6, orr=1.5e-6,
                    async_small=16384, detached=16384),
}
LENGTHS = [0, 16, 64, 256, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144]

# (platform, check) -> why it fails. Only ever shrinks.
KNOWN_BAD = {}


def platform_xml(p):
    hosts = [f"h{i}" for i in range(p["leaves"] * p["hosts"])]
    leaf = {h: i // p["hosts"] for i, h in enumerate(hosts)}
    cfg = {
        "smpi/coll-selector": "mpich", "smpi/bcast": "binomial_tree", "smpi/allreduce": "rdb",
        "smpi/reduce": "binomial", "smpi/simulate-computation": "no", "smpi/lat-factor": "0:1",
        "smpi/bw-factor": "0:1", "smpi/os": f"0:{p['os']:.9g}:0", "smpi/ois": f"0:{p['os']:.9g}:0",
        "smpi/or": f"0:{p['orr']:.9g}:0",
        "smpi/async-small-thresh": str(p["async_small"]), "smpi/send-is-detached-thresh": str(p["detached"]),
    }
    out = ["<?xml version='1.0'?>", '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
           '<platform version="4.1">', "  <config>"]
    out += [f'    <prop id="{k}" value="{v}"/>' for k, v in cfg.items()]
    out += ["  </config>", '  <zone id="reference" routing="Full">']
    for r, h in enumerate(hosts):
        out.append(f'    <host id="{h}" speed="1Gf" core="1"><prop id="ranks" value="{r}"/></host>')
    bw = f'{p["bw"]:.9g}Bps'

    def link(name, lat):
        out.append(f'    <link id="{name}" bandwidth="{bw}" latency="{lat * 1e6:.9g}us"/>')
    for h in hosts:
        link(f"{h}_up", p["host_lat"])
        link(f"{h}_down", p["host_lat"])
    for j in range(p["leaves"]):
        if p["leaves"] > 1:
            link(f"leaf{j}_up", p["up_lat"])
            link(f"leaf{j}_down", p["up_lat"])
    for a in hosts:
        for b in hosts:
            if a == b:
                continue
            via = [f"{a}_up"]
            if leaf[a] != leaf[b]:
                via += [f"leaf{leaf[a]}_up", f"leaf{leaf[b]}_down"]
            via.append(f"{b}_down")
            ctn = "".join(f'<link_ctn id="{x}"/>' for x in via)
            out.append(f'    <route src="{a}" dst="{b}" symmetrical="NO">{ctn}</route>')
    out += ["  </zone>", "</platform>", ""]
    return "\n".join(out)


def latency(p, same_leaf):
    return 2 * p["host_lat"] + (0 if same_leaf else 2 * p["up_lat"])


def run(cmd, log):
    with open(log, "w") as f:
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        print(open(log).read()[-3000:])
        raise SystemExit(f"FAIL: {' '.join(cmd)} exited {r.returncode} (log {log})")


def simulate(a, platform, out, mode, lengths):
    """network_test on the platform. The simulation is deterministic: after one warm-up (the first
    message of a pair also waits for its peer to start) one sample is enough for loggp (it keeps
    the fastest anyway); three for one_to_one's medians."""
    os.makedirs(out, exist_ok=True)
    samples = ["-n", "1" if mode == "loggp" else "3", "--warmup", "1"]
    run([sys.executable, a.simulate, "--platform", platform, "--out", out, "--network-test", a.network_test, "--",
         "-t", mode, "--lengths", ",".join(map(str, lengths)), *samples, "--sync-rounds", "1",
         "-f", os.path.join(out, "run"), "--force"], os.path.join(out, f"{mode}.log"))


def cube(path):
    with netCDF4.Dataset(path) as d:
        return [int(x) for x in d["message_length"][:]], np.asarray(d["data"][:], dtype=float)


class Checks:
    def __init__(self, name):
        self.name, self.rows, self.failed = name, [], []

    def add(self, check, want, got, ok, unit="us", note=""):
        known = KNOWN_BAD.get((self.name, check))
        if ok and known:
            verdict = "passes (remove from KNOWN_BAD)"
            self.failed.append(check)
        elif ok:
            verdict = "ok"
        elif known:
            verdict = f"known: {known}"
        else:
            verdict = "FAIL"
            self.failed.append(check)
        self.rows.append((check, fmt(want, unit), fmt(got, unit), note, verdict))

    def near(self, check, want, got, rel, unit="us", floor=0.0):
        """got within rel of want (within floor seconds when want is 0)."""
        if got is None or not isinstance(got, (int, float)) or not math.isfinite(got):
            self.add(check, want, got, False, unit, "no value")
            return
        err = abs(got - want)
        ok = err <= (rel * abs(want) if want else floor)
        note = f"{100 * err / abs(want):.2f} %" if want else f"{err * (1e6 if unit == 'us' else 1):.3g} {unit}"
        self.add(check, want, got, ok, unit, note)

    def table(self):
        w = [max(len(str(r[i])) for r in self.rows + [("check", "set", "measured", "error", "verdict")])
             for i in range(5)]
        lines = [f"| {' | '.join(h.ljust(w[i]) for i, h in enumerate(('check', 'set', 'measured', 'error', 'verdict')))} |",
                 f"|{'|'.join('-' * (x + 2) for x in w)}|"]
        lines += [f"| {' | '.join(str(c).ljust(w[i]) for i, c in enumerate(r))} |" for r in self.rows]
        return "\n".join(lines)


def fmt(v, unit):
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return str(v)
    if unit == "us":
        return f"{v * 1e6:.4g} us"
    if unit == "ns/B":
        return f"{v * 1e9:.4g} ns/B"
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def check_platform(a, name, p):
    work = os.path.join(a.work, name)
    os.makedirs(work, exist_ok=True)
    plat = os.path.join(work, "platform.xml")
    with open(plat, "w") as f:
        f.write(platform_xml(p))
    median = os.path.join(work, "o2o", "run_median.nc")
    loggp = os.path.join(work, "lg", "run_loggp.nc")
    if not (a.reuse and os.path.exists(median)):
        simulate(a, plat, os.path.join(work, "o2o"), "one_to_one", LENGTHS)
    if not (a.reuse and os.path.exists(loggp)):
        simulate(a, plat, os.path.join(work, "lg"), "loggp", LENGTHS)
    c = Checks(name)
    G = 1 / p["bw"]
    thresh = p["async_small"] if p["async_small"] > 0 else None  # the size where timings change

    # Hockney from one_to_one (export json: the report): per class the short-range ts and the
    # long-range tw.
    rep = json.loads(subprocess.run([a.analyze, "export", median, "--format", "json"], check=True,
                                    stdout=subprocess.PIPE, text=True).stdout)
    classes = {x["class"]: x for x in rep["hockney"]["classes"]}
    want_classes = ["inter-node"] + (["inter-switch"] if p["leaves"] > 1 else [])
    c.add("classes", ",".join(want_classes), ",".join(sorted(classes)), sorted(classes) == want_classes, "")
    for cls in want_classes:
        if cls not in classes:
            continue
        lat = latency(p, cls == "inter-node")
        rg = classes[cls]["ranges"]
        # ts of the smallest length's range: o_s + L + 16 G + o_r below an eager threshold
        small = (p["os"] + p["orr"]) if p["detached"] > 0 else 0.0
        c.near(f"{cls} Hockney ts", lat + small + ENVELOPE * G, rg[0]["ts"], 0.02)
        c.near(f"{cls} Hockney tw", G, rg[-1]["tw"], 0.02, "ns/B")

    # LogGP: model --loggp, JSON and text.
    mj = os.path.join(work, "model.json")
    text = subprocess.run([a.analyze, "model", median, "--loggp", loggp, "--json", mj, "--force"], check=True,
                          stdout=subprocess.PIPE, text=True).stdout
    with open(os.path.join(work, "model.txt"), "w") as f:
        f.write(text)
    model = {x["class"]: x for x in json.load(open(mj))["classes"]}
    for cls in want_classes:
        if cls not in model:
            continue
        m = model[cls]
        lat = latency(p, cls == "inter-node")
        one_way = lat + p["os"] + p["orr"] + ENVELOPE * G
        if m.get("separable", True) is False:
            c.add(f"{cls} LogGP L", lat, "not separable", True, "us", m.get("not_separable_reason", "")[:60])
        else:
            c.near(f"{cls} LogGP L", lat, m["L"], 0.02)
            c.near(f"{cls} LogGP o_s", p["os"], m["o_s"], 0.02, floor=0.02 * one_way)
            c.near(f"{cls} LogGP o_r", p["orr"], m["o_r"], 0.02, floor=0.02 * one_way)
        c.near(f"{cls} LogGP G", G, m["G"], 0.02, "ns/B")
        if thresh:
            # the gap of small messages: max(o_s, o_r) (SimGrid has no other gap)
            gap = max(m.get("o", 0) or 0, m.get("o_r", 0) or 0, m["g"] or 0)
            c.near(f"{cls} LogGP max(g, o)", max(p["os"], p["orr"]), gap, 0.02, floor=0.02 * one_way)
        fb = m.get("fit_break", -1)
        c.add(f"{cls} protocol switch", thresh if thresh else "none", fb if fb is not None and fb >= 0 else "none",
              (fb == thresh) if thresh else (fb is None or fb < 0), "")
        # L + 2o of the model's own L and o: the one-way delay of the smallest message
        l2o = m["L"] + 2 * m["o"] if m.get("L") is not None else m.get("L_plus_2o")
        c.near(f"{cls} model L + 2o", one_way, l2o, 0.02)
        # one G: the text shows the class's G
        row = next((l for l in text.splitlines() if l.strip().startswith(cls + " ") and " G " in l), "")
        mg = re.search(r"G\s+([0-9.eE+-]+) s/B", row)
        c.near(f"{cls} model text G", m["G"], float(mg.group(1)) if mg else None, 0.005, "ns/B")

    # Without a loggp file the model's G is the Hockney tw the exports use (one G), not 0.
    mj0 = os.path.join(work, "model_delays.json")
    subprocess.run([a.analyze, "model", median, "--json", mj0, "--force"], check=True, stdout=subprocess.DEVNULL)
    for x in json.load(open(mj0))["classes"]:
        c.near(f"{x['class']} model G (no loggp)", G, x["G"], 0.02, "ns/B")

    # LogGOPSim: the unit of the header, G to 3 significant digits, o + L + o = the measured one-way
    # delay of the smallest message, S at the threshold (never a switch that is not there).
    lg = subprocess.run([a.analyze, "export", median, "--format", "loggopsim", "--loggp", loggp], check=True,
                        stdout=subprocess.PIPE, text=True).stdout
    with open(os.path.join(work, "loggopsim.txt"), "w") as f:
        f.write(lg)
    line = [l for l in lg.splitlines() if l and not l.startswith("#")]
    vals = dict(re.findall(r"-([A-Za-z]) (\d+)", line[0])) if line else {}
    um = re.search(r"time unit:? (\d+(?:\.\d+)?(?:e-?\d+)?) ?(s|ms|us|ns|ps|fs|as)\b", lg)
    scale = {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12, "fs": 1e-15, "as": 1e-18}
    unit = float(um.group(1)) * scale[um.group(2)] if um else 1e-9
    pick = "inter-switch" if p["leaves"] > 1 and "inter-switch" in model else "inter-node"
    lengths, data = cube(median)
    P = data.shape[1]
    c.add("loggopsim unit stated", "yes", "yes" if um else "no", um is not None, "")
    if vals:
        Gi = int(vals.get("G", 0))
        c.add("loggopsim G digits", ">= 100", str(Gi), Gi >= 100, "")
        c.near("loggopsim G", G, Gi * unit, 0.02, "ns/B")
        # the measured one-way delay of the smallest message, median over the class's pairs
        cls_of = {}
        for x in rep["hockney"].get("pairs", []):
            cls_of[(x["sender"], x["receiver"])] = x["class"]
        cells = [data[0][i][j] for i in range(P) for j in range(P) if i != j and cls_of.get((i, j)) == pick]
        measured = float(np.median(cells)) if cells else float("nan")
        olo = (2 * int(vals.get("o", 0)) + int(vals.get("L", 0))) * unit
        c.near("loggopsim o+L+o", measured, olo, 0.01)
        S = int(vals.get("S", -1))
        if thresh:
            c.add("loggopsim S", thresh, S, S == thresh, "")
        else:
            c.add("loggopsim S", "no false switch", S, S >= 65535 or S == 0, "")

    # SimGrid: the export re-simulated gives back every measured cell within 1 %.
    xml = os.path.join(work, "exported.xml")
    subprocess.run([a.analyze, "export", median, "--format", "simgrid", "-o", xml, "--force"], check=True)
    simulate(a, xml, os.path.join(work, "loop"), "one_to_one", LENGTHS)
    _, again = cube(os.path.join(work, "loop", "run_median.nc"))
    off = ~np.eye(P, dtype=bool)
    for k, L in enumerate(lengths):
        err = float(np.max(np.abs(again[k][off] - data[k][off]) / data[k][off]))
        c.add(f"simgrid loop {L} B", "<= 1 %", f"{100 * err:.2f} %", err <= 0.01, "")
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("analyze")
    ap.add_argument("simulate")
    ap.add_argument("network_test")
    ap.add_argument("work")
    ap.add_argument("--only", default=",".join(PLATFORMS))
    ap.add_argument("--table", help="also write the tables (markdown) here")
    ap.add_argument("--reuse", action="store_true",
                    help="keep the one_to_one and loggp files of an earlier run in WORKDIR (analyse them again)")
    a = ap.parse_args()
    if not os.path.exists(a.network_test):
        print(f"FAIL: {a.network_test} is missing: build it first (cmake --preset smpi && cmake --build --preset smpi)")
        return 1
    os.makedirs(a.work, exist_ok=True)
    out, failed = [], []
    for name in a.only.split(","):
        p = PLATFORMS[name]
        c = check_platform(a, name, p)
        desc = (f"{name}: {p['leaves']} leaf x {p['hosts']} hosts, L {latency(p, True) * 1e6:g} us"
                + (f" ({latency(p, False) * 1e6:g} us across leaves)" if p["leaves"] > 1 else "")
                + f", {p['bw'] / 1e9:g} GB/s, o_s {p['os'] * 1e6:g} us, o_r {p['orr'] * 1e6:g} us, "
                f"async-small-thresh {p['async_small']}, send-is-detached-thresh {p['detached']}")
        out.append(f"{desc}\n\n{c.table()}\n")
        print(out[-1], flush=True)
        failed += [f"{name}: {x}" for x in c.failed]
    if a.table:
        with open(a.table, "w") as f:
            f.write("\n".join(out))
    if failed:
        print("FAIL: " + "; ".join(failed))
        return 1
    print("ok: every parameter within its tolerance (or a known failure)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
