#!/usr/bin/env python3
"""mpiGraph (LLNL) beside network_analyze on a scenario of scripts/corpus.

  bench/smpi/mpigraph_peer.py --mpigraph BIN --out DIR [--build DIR] [--args "65536 3 10"] NAME...

DIR/NAME must hold a run of `scripts/corpus run --out DIR` (bench/smpi/mpigraph_peer.sh does both).
mpiGraph runs under smpirun on the scenario's platform and host file, launched as scripts/corpus
launches network_test there (scripts/simulate's command for the project's trees, corpus.sg_smpirun
for SimGrid's clusters). Its output goes to DIR/NAME/mpigraph.out. Then what an admin reads off
mpiGraph's picture: per host the plain mean of its row of the send matrix (what it sends to every
other host) and of its row of the receive matrix (what it receives), each relative to the median
host; hosts under --threshold of the median in either are "low". Printed per scenario as a
markdown table beside the truth and the report's findings (DIR/NAME/report.json).

SMPI's MPI_Test sleeps 100 us after a failed test and grows that sleep on every further failed
test (smpi/test, smpi/grow-injected-times): mpiGraph polls its requests with MPI_Testall, and with
those defaults its times are the injected sleeps, not the network's (rows of one platform
differed by 2x). The peer sets a fixed sleep of --test-sleep seconds (1 us by default).
"""
import argparse
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def fail(msg):
    print(f"mpigraph_peer: error: {msg}", file=sys.stderr)
    sys.exit(2)


def load_corpus():
    """scripts/corpus as a module: its scenarios, truth and smpirun command."""
    path = os.path.join(ROOT, "scripts", "corpus")
    loader = importlib.machinery.SourceFileLoader("corpus", path)
    spec = importlib.util.spec_from_loader("corpus", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def smpirun_cmd(corpus, sc, out, platform_so, program):
    """smpirun of program on the scenario's platform, as scripts/corpus runs network_test there."""
    P = len([l for l in open(os.path.join(out, "hosts")) if l.strip()])
    if sc["backend"] == "sg":
        return corpus.sg_smpirun(out, platform_so, P, program)
    # scripts/simulate's run(): the SMPI configuration is in platform.xml
    cmd = ["smpirun", "-np", str(P), "-platform", os.path.join(out, "platform.xml"), "-hostfile",
           os.path.join(out, "hosts"), *program]
    return cmd, dict(os.environ)


def cache_key(out, cfg, args):
    """Two scenarios on the same platform and hosts (tree-1rph-seq and -conc) give the same mpiGraph run."""
    h = hashlib.sha256(" ".join(cfg + args).encode())
    for f in ("platform.xml", "spec.json", "hosts"):
        p = os.path.join(out, f)
        if os.path.exists(p):
            h.update(f.encode() + open(p, "rb").read())
    return h.hexdigest()[:16]


def run_mpigraph(corpus, sc, out, a):
    """Runs mpiGraph (or reuses an identical earlier run); (path of its output, host seconds, reused)."""
    cfg = [f"--cfg=smpi/test:{a.test_sleep}", "--cfg=smpi/grow-injected-times:no", "--cfg=smpi/display-timing:yes"]
    program = [*cfg, os.path.abspath(a.mpigraph), *a.args.split()]
    cache = os.path.join(a.out, ".mpigraph-cache")
    os.makedirs(cache, exist_ok=True)
    key = os.path.join(cache, cache_key(out, cfg, a.args.split()))
    dest, log = os.path.join(out, "mpigraph.out"), os.path.join(out, "mpigraph.log")
    if os.path.exists(key + ".out"):
        shutil.copy(key + ".out", dest)
        shutil.copy(key + ".log", log)
        return dest, float(open(key + ".secs").read()), True
    cmd, env = smpirun_cmd(corpus, sc, out, a.platform, program)
    t0 = time.time()
    with open(dest, "w") as so, open(log, "w") as se:
        se.write(" ".join(cmd) + "\n")
        se.flush()
        rc = subprocess.run(cmd, stdout=so, stderr=se, env=env).returncode
    secs = time.time() - t0
    text = open(dest).read()
    if rc != 0 or "END mpiGraph" not in text or "Deadlock" in open(log).read():
        fail(f"{sc['name']}: mpiGraph did not finish (exit {rc}): see {log}")
    for src, ext in ((dest, ".out"), (log, ".log")):
        shutil.copy(src, key + ext)
    open(key + ".secs", "w").write(f"{secs:.1f}")
    return dest, secs, False


def parse_matrix(lines, title):
    """mpiGraph's table after the line starting with title ('Send' or 'Recv'): rows of MB/s."""
    start = next(i for i, l in enumerate(lines) if l.split("\t")[0] == title)
    P = len([c for c in lines[start].rstrip("\n").split("\t")[1:] if c])
    rows = []
    for l in lines[start + 1:start + 1 + P]:
        rows.append([float(c) for c in l.rstrip("\n").split("\t")[1:] if c])
    if len(rows) != P or any(len(r) != P for r in rows):
        raise ValueError(f"mpiGraph's {title} table is not {P} x {P}")
    return rows


def host_ratios(path, rank_host):
    """Per host: the plain mean of its send row and of its receive row, each over the median host's."""
    lines = open(path).readlines()
    send, recv = parse_matrix(lines, "Send"), parse_matrix(lines, "Recv")
    P = len(send)
    if P != len(rank_host):
        raise ValueError(f"mpiGraph ran {P} ranks, the host file has {len(rank_host)}")
    by_host = {}
    for r in range(P):
        s = statistics.mean(send[r][k] for k in range(P) if k != r)
        v = statistics.mean(recv[r][k] for k in range(P) if k != r)
        by_host.setdefault(rank_host[r], []).append((s, v))
    means = {h: (statistics.mean(x[0] for x in xs), statistics.mean(x[1] for x in xs)) for h, xs in by_host.items()}
    med_s = statistics.median(m[0] for m in means.values())
    med_v = statistics.median(m[1] for m in means.values())
    return {h: (s / med_s, v / med_v) for h, (s, v) in means.items()}, (med_s, med_v)


def short(hosts):
    """node24..node31 for a run of consecutive host numbers."""
    def num(h):
        digits = "".join(c for c in h if c.isdigit())
        return int(digits) if digits else -1
    hs = sorted(hosts, key=num)
    out, i = [], 0
    while i < len(hs):
        j = i
        while j + 1 < len(hs) and num(hs[j + 1]) == num(hs[j]) + 1:
            j += 1
        out.append(hs[i] if i == j else f"{hs[i]}..{hs[j]}")
        i = j + 1
    return ", ".join(out) or "-"


def ratio_text(ratios, hosts, thr):
    """'8/8 flagged, send 0.32-0.33x, recv 0.32-0.33x' for a fault's hosts."""
    flagged = [h for h in hosts if min(ratios[h]) < thr]
    s = [ratios[h][0] for h in hosts]
    v = [ratios[h][1] for h in hosts]
    rng = lambda xs: f"{min(xs):.2f}" if max(xs) - min(xs) < 0.005 else f"{min(xs):.2f}-{max(xs):.2f}"
    return f"{len(flagged)}/{len(hosts)} below {thr}x (send {rng(s)}x, recv {rng(v)}x)"


def findings(report, rank_host):
    return [(a["kind"], sorted({rank_host[r] for r in a.get("ranks", [])}), a.get("detail", ""))
            for a in report.get("anomalies", [])]


def compare(corpus, sc, out, a):
    """The markdown table of one scenario; the hosts mpiGraph flags."""
    path, secs, reused = run_mpigraph(corpus, sc, out, a)
    names, levels, faults, rank_host = corpus.load_truth(sc, out)
    ratios, med = host_ratios(path, rank_host)
    report = json.load(open(os.path.join(out, "report.json")))
    s = corpus.score(sc, names, levels, faults, rank_host, report)
    low = sorted((h for h in ratios if min(ratios[h]) < a.threshold), key=lambda h: names.index(h))
    sim = [l for l in open(os.path.join(out, "mpigraph.log")) if "Simulated time" in l]
    sim_t = sim[-1].split("Simulated time:")[-1].strip().split()[0] if sim else "?"
    mode = "concurrent" if sc["concurrent"] else "sequential"
    print(f"\n### {sc['name']} ({len(rank_host)} ranks, {sc.get('spec', {}).get('topology', 'tree')}, "
          f"network_test {mode}; report {'exact' if s['exact'] else 'WRONG'})\n")
    print(f"mpiGraph `{a.args}`: host time {secs:.0f} s{' (cached: an earlier run on the same platform, hosts and arguments)' if reused else ''}"
          f", simulated {sim_t} s; median host {med[0]:.0f} MB/s sent, {med[1]:.0f} MB/s received; hosts from "
          f"{min(min(r) for r in ratios.values()):.2f}x to {max(max(r) for r in ratios.values()):.2f}x; "
          f"below {a.threshold}x: {short(low)}.\n")
    print("| | hosts | mpiGraph plain mean | our report |")
    print("|---|---|---|---|")
    cores = set()
    for f, r in zip(faults, s["faults"]):
        hosts = [names[h] for h in corpus.fault_core(f["pairs"], len(names))]
        cores |= set(hosts)
        ours = f"{r['state']}: {', '.join(sorted(set(r['findings']))) or '-'}"
        print(f"| truth: {f['links'][0]} | {short(hosts)} | {ratio_text(ratios, hosts, a.threshold)} | {ours} |")
    extra = [h for h in low if h not in cores]
    if extra:
        print(f"| mpiGraph, no fault | {short(extra)} | {ratio_text(ratios, extra, a.threshold)} | |")
    for kind, hosts, detail in findings(report, rank_host):
        touched = set(hosts) & cores
        tag = f"not scored (load): {detail}" if kind == "contention" else "on a fault" if touched else "INVENTED"
        print(f"| report: {kind} | {short(hosts)} | {ratio_text(ratios, hosts, a.threshold) if hosts else ''} | {tag} |")
    return low


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("names", nargs="+", help="scenarios of scripts/corpus already run into --out")
    p.add_argument("--mpigraph", required=True, help="mpiGraph built with smpicc")
    p.add_argument("--out", required=True, help="the folder of scripts/corpus run --out")
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="the dev build (lib/libnt_platform.so)")
    p.add_argument("--args", default="65536 3 10", help="mpiGraph's size, iterations and window")
    p.add_argument("--test-sleep", default="1e-6", help="SMPI's sleep after a failed MPI_Test (seconds)")
    p.add_argument("--threshold", type=float, default=0.8, help="a host is low under this share of the median")
    a = p.parse_args()
    a.platform = os.path.join(a.build, "lib", "libnt_platform.so")
    if not os.path.exists(a.mpigraph):
        fail(f"{a.mpigraph} not found")
    if len(a.args.split()) != 3 or not all(x.isdigit() for x in a.args.split()):
        fail(f"--args '{a.args}': mpiGraph takes three numbers, size iterations window")
    corpus = load_corpus()
    scs = {sc["name"]: sc for sc in corpus.SCENARIOS}
    for name in a.names:
        if name not in scs:
            fail(f"{name}: no such scenario in scripts/corpus")
        out = os.path.join(a.out, name)
        if not os.path.exists(os.path.join(out, "report.json")):
            fail(f"{out}/report.json not found: run scripts/corpus run --out {a.out} --only {name} first")
        try:
            compare(corpus, scs[name], out, a)
        except (OSError, ValueError, StopIteration) as e:
            fail(f"{name}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
