"""Networks and faults drawn at random from a seed, for scripts/corpus --set random (property tests).

A seed gives one scenario: a topology family (SimGrid's FAT_TREE of 2 or 3 levels with random
fan-outs, uplinks and oversubscription, DRAGONFLY or TORUS with small random parameters), 1-8 ranks
per host, block or shuffled placement, the sequential schedule or --host-pairs, message lengths, and
0-5 faults of random kinds, places and sizes. The faults are drawn by link name from the platform
itself (nt_platform_truth with "emit_routes": the links as built and every route), so the same seed
gives the same scenario on any machine.

The truth of a fault (truth_meta): its kind, its direction (send, receive, both; one-way for a link
slowed in one direction), its level (host, leaf, pod, global, torus, switch), the ordered host pairs
whose route crosses it (from SimGrid's routing), and whether this measurement can see it at all: the
slowdown it causes on those pairs at each measured length, predicted from the links (one message
alone on its route: the sum of the latencies plus the length over the narrowest bandwidth; the fault
against the same network without it), compared with the report's sensitivity line (its JSON's
"sensitivity": slow_rank_or_node for a host, slow_link for a link, slow_switch for a switch group;
1.5x and 1.1x where the report gives none). A fault is invisible when that slowdown is under the
line, or when every pair of the same distance class crosses it (nothing to compare with). Invisible
faults are counted apart, never as an excuse for the visible ones.
"""
import json
import math
import os
import random
import subprocess
from collections import Counter

G = 1.25e9  # 10 Gbit/s in bytes per second
FAMILIES = ["ft2", "ft3", "df", "torus"]
# Host-time budget of one seed: measured cells (pairs x lengths x samples) of the schedule.
CELL_BUDGET = 16000
MAX_RANKS = 256
DEFAULT_LINE = {"host": 1.5, "link": 1.5, "group": 1.1}
# A level above the hosts is required only where its groups stand this far apart at some measured
# length (the analysis' floor_ratio, share/doc/analyze.md): the pairs between its groups at least
# this many times slower than the slowest pair within one.
LEVEL_FLOOR = 1.02


# ---------------------------------------------------------------------------------------------
# Drawing a scenario (without its links: those come from the platform, resolve_faults).

def _topology(rng, family):
    if family == "ft2":
        while True:
            d1, d2 = rng.randint(2, 8), rng.randint(2, 8)
            u2, c2 = rng.choice([1, 1, 2]), rng.choice([1, 1, 2])
            if u2 * c2 <= d1 and d2 + u2 <= d1 * d2 and d1 * d2 >= 8:
                break
        fast = rng.choice([1, 1, 2, 4])  # uplinks that many times a host cable's bandwidth
        return ({"topology": "FAT_TREE", "params": {"levels": 2, "down": [d1, d2], "up": [1, u2],
                                                     "count": [1, c2]}}, d1 * d2, fast,
                f"FAT_TREE 2;{d1},{d2};1,{u2};1,{c2}" + (f" uplinks x{fast}" if fast > 1 else ""))
    if family == "ft3":
        while True:
            d1, d2, d3 = rng.randint(2, 6), rng.randint(2, 4), rng.randint(2, 4)
            u2, u3 = rng.choice([1, 2]), rng.choice([1, 2])
            H = d1 * d2 * d3
            switches = d2 * d3 + u2 * d3 + u2 * u3
            if u2 <= d1 and u3 <= d2 and switches <= H and H <= 96:
                break
        fast = rng.choice([1, 1, 2])
        return ({"topology": "FAT_TREE", "params": {"levels": 3, "down": [d1, d2, d3], "up": [1, u2, u3],
                                                     "count": [1, 1, 1]}}, H, fast,
                f"FAT_TREE 3;{d1},{d2},{d3};1,{u2},{u3};1,1,1" + (f" uplinks x{fast}" if fast > 1 else ""))
    if family == "df":
        while True:
            g, c, n = rng.randint(2, 4), rng.randint(1, 2), rng.randint(1, 3)
            # SimGrid 3.32 crashes in its dragonfly routing with too few routers per chassis for
            # the groups: at least as many routers as groups
            r = rng.randint(max(g, 2), 4)
            if 8 <= g * c * r * n <= 72:
                break
        return ({"topology": "DRAGONFLY", "params": {"groups": [g, 1], "chassis": [c, 1], "routers": [r, 1],
                                                      "nodes": n}}, g * c * r * n, 1,
                f"DRAGONFLY {g},1;{c},1;{r},1;{n}")
    while True:
        dims = [rng.randint(2, 6) for _ in range(2)] if rng.random() < 0.6 else [rng.randint(2, 4) for _ in range(3)]
        H = math.prod(dims)
        if 8 <= H <= 64:
            break
    return {"topology": "TORUS", "params": {"dimensions": dims}}, H, 1, "TORUS " + "x".join(map(str, dims))


def cells(H, rph, lengths, n, host_pairs):
    """The cells a schedule measures (the host time of a noise-free simulation grows with them)."""
    P = H * rph
    pairs = H * (H - 1) + H * rph * (rph - 1) if host_pairs else P * (P - 1)
    return pairs * len(lengths.split(",")) * n


KINDS = {  # family: (kind, weight)
    "ft2": [("cable", 3), ("cable_send", 2), ("cable_receive", 2), ("leaf_uplink", 3), ("slow_switch", 1)],
    "ft3": [("cable", 3), ("cable_send", 2), ("cable_receive", 2), ("leaf_uplink", 2), ("pod_link", 2),
            ("slow_switch", 1)],
    "df": [("cable", 3), ("cable_send", 2), ("cable_receive", 2), ("global_link", 2), ("global_link_oneway", 2),
           ("slow_switch", 1)],
    "torus": [("torus_link", 3), ("torus_link_oneway", 2), ("slow_switch", 2)],
}


def _size(rng, kind):
    """Bandwidth and latency factors: slowdowns on both sides of the report's line."""
    if kind == "slow_switch":
        bw = math.exp(rng.uniform(math.log(0.35), math.log(0.97)))
    else:
        bw = math.exp(rng.uniform(math.log(0.12), math.log(0.95)))
    lat = 1.0 if rng.random() < 0.5 else math.exp(rng.uniform(0, math.log(6.0)))
    return round(bw, 3), round(lat, 2)


def draw(seed):
    """The scenario of a seed, as scripts/corpus's sg() makes them, plus "random": what to resolve."""
    rng = random.Random(f"nt-random-{seed}")
    family = FAMILIES[seed % len(FAMILIES)]
    topo, H, fast, desc = _topology(rng, family)
    lengths = rng.choice(["1024,65536,1048576", "1024,65536,1048576", "65536,1048576", "1024,65536",
                          "1024,1048576"])
    n = 2
    rph = rng.randint(1, 8)
    host_pairs = rph > 1 and rng.random() < 0.5
    while rph > 1 and (H * rph > MAX_RANKS or cells(H, rph, lengths, n, host_pairs) > CELL_BUDGET):
        rph -= 1
    if rph == 1:
        host_pairs = False
    shuffle = rng.randrange(1, 1000) if rng.random() < 0.5 else None
    nfaults = rng.choices(range(6), weights=[2, 2, 2, 2, 1, 1])[0]
    kinds, weights = zip(*KINDS[family])
    faults = []
    for _ in range(nfaults):
        kind = rng.choices(kinds, weights=weights)[0]
        bw, lat = _size(rng, kind)
        faults.append({"kind": kind, "bw": bw, "lat": lat, "pick": rng.random()})
    spec = {**topo, "bandwidth": G, "latency": 1e-6, "faults": []}
    name = f"rnd{seed}-{family}"
    sched = "host-pairs" if host_pairs else "sequential"
    return {"name": name, "backend": "sg", "spec": spec, "rph": rph, "shuffle": shuffle, "concurrent": False,
            "lengths": lengths, "n": n, "sets": ("random",), "known": None,
            "nt": ["--host-pairs"] if host_pairs else [], "warn": False, "noise": None, "switch_map": False,
            "seed": seed, "family": family,
            "random": {"seed": seed, "family": family, "fast_uplinks": fast, "faults": faults,
                       "describe": f"{desc}, {H} hosts x {rph} ranks, {'shuffled' if shuffle else 'block'}, "
                                   f"{sched}, lengths {lengths}, {nfaults} faults"}}


# ---------------------------------------------------------------------------------------------
# The platform's links and routes, and the faults drawn on them.

class Platform:
    def __init__(self, raw, family):
        self.family = family
        self.links = [l["name"] for l in raw["links"]]
        self.index = {n: i for i, n in enumerate(self.links)}
        self.bw0 = [l["bw"] for l in raw["links"]]
        self.lat0 = [l["lat"] for l in raw["links"]]
        self.routes = raw["routes"]
        self.H = len(raw["hosts"])
        self.coords = [tuple(h["coord"]) for h in raw["hosts"]]

    def twin(self, name):
        for a, b in (("_UP", "_DOWN"), ("_DOWN", "_UP")):
            if name.endswith(a):
                return name[:-len(a)] + b
        return None

    def both(self, name):
        t = self.twin(name)
        return [name] + ([t] if t in self.index else [])

    def route(self, a, b):
        return [self.links[i] for i in self.routes[a][b]]

    def ft_ends(self, name):
        """FAT_TREE link link_from_CHILD_PARENT_UID_{UP,DOWN}: (child, parent) ids."""
        parts = name.split("_")
        return int(parts[2]), int(parts[3])

    def ft_switches(self):
        """FAT_TREE: switch id -> level (1 leaf, 2 pod, ...), from the links' ends (hosts are 0..H-1)."""
        level = {h: 0 for h in range(self.H)}
        ends = [self.ft_ends(n) for n in self.links if n.startswith("link_from_")]
        changed = True
        while changed:
            changed = False
            for c, p in ends:
                if c in level and p not in level:
                    level[p] = level[c] + 1
                    changed = True
        return {s: l for s, l in level.items() if l > 0}


def resolve_faults(sc, plat):
    """Concrete faults for the spec ({"names": [...]}) and their truth (kind, direction, level)."""
    rng = random.Random(f"nt-random-faults-{sc['random']['seed']}")
    family, H = sc["random"]["family"], plat.H
    used, spec_faults, meta = set(), [], []
    switches = plat.ft_switches() if family.startswith("ft") else {}
    for f in sc["random"]["faults"]:
        for _ in range(50):
            kind, direction, level = f["kind"], "both", None
            if kind.startswith("cable"):
                h = rng.randrange(H)
                far = max((x for x in range(H) if x != h), key=lambda x: (len(plat.routes[h][x]), rng.random()))
                send, recv = plat.route(h, far)[0], plat.route(far, h)[-1]
                names = {"cable": [send, recv], "cable_send": [send], "cable_receive": [recv]}[kind]
                direction = {"cable": "both", "cable_send": "send", "cable_receive": "receive"}[kind]
                level, where = "host", f"host{h}"
            elif kind in ("leaf_uplink", "pod_link"):  # an uplink of a switch of level 1 (leaf) or 2 (pod)
                level, depth = ("leaf", 1) if kind == "leaf_uplink" else ("pod", 2)
                s = rng.choice(sorted(s for s, l in switches.items() if l == depth))
                ups = sorted({n for n in plat.links if n.startswith("link_from_") and n.endswith("_UP")
                              and plat.ft_ends(n)[0] == s})
                names, where = plat.both(rng.choice(ups)), f"switch{s}"
            elif kind.startswith("global_link"):
                blue = sorted({n[:-3] for n in plat.links if n.startswith("blue_link") and n.endswith("_UP")})
                base = rng.choice(blue)
                if kind == "global_link":
                    names = [base + "_UP", base + "_DOWN"]
                else:
                    names, direction = [base + rng.choice(["_UP", "_DOWN"])], "one-way"
                level, where = "global", base
            elif kind.startswith("torus_link"):
                a = rng.randrange(H)
                nbrs = [x for x in range(H) if x != a and len(plat.routes[a][x]) == 1]
                b = rng.choice(nbrs)
                link = plat.route(a, b)[0]
                names = plat.both(link) if kind == "torus_link" else [link]
                direction = "both" if kind == "torus_link" else "one-way"
                level, where = "torus", f"host{a}-host{b}"
            else:  # slow_switch: every link of one switch, both ways
                if family.startswith("ft"):
                    cand = sorted(s for s, l in switches.items() if l == 1 or (l == 2 and family == "ft3"))
                    s = rng.choice(cand)
                    names = sorted(n for n in plat.links if n.startswith("link_from_") and s in plat.ft_ends(n))
                    level, where = ("leaf" if switches[s] == 1 else "pod"), f"switch{s}"
                elif family == "df":
                    routers = sorted({c[:3] for c in plat.coords})
                    r = rng.choice(routers)
                    mine = [h for h in range(H) if plat.coords[h][:3] == r]
                    names = set()
                    for h in mine:
                        for x in range(H):
                            if x == h:
                                continue
                            out, back = plat.route(h, x), plat.route(x, h)
                            names.update([out[0], back[-1]])
                            if len(out) == 3:
                                names.update([out[1], back[1]])
                    names, level, where = sorted(names), "switch", "router" + "-".join(map(str, r))
                else:  # torus: a node, every link to and from it
                    h = rng.randrange(H)
                    names = set()
                    for x in range(H):
                        if x != h and len(plat.routes[h][x]) == 1:
                            names.update(plat.both(plat.route(h, x)[0]))
                    names, level, where = sorted(names), "host", f"host{h}"
            if not used & set(names):
                break
        else:
            continue  # no free place for this fault: drop it
        used |= set(names)
        spec_faults.append({"names": list(names), "bw": f["bw"], "lat": f["lat"]})
        meta.append({"kind": kind, "direction": direction, "level": level, "where": where, "bw": f["bw"],
                     "lat": f["lat"], "names": list(names)})
    base = []
    fast = sc["random"].get("fast_uplinks", 1)
    if fast > 1:  # the links above the leaves: that many times a host cable's bandwidth
        above = [n for n in plat.links if n.startswith("link_from_") and plat.ft_ends(n)[0] >= H]
        base.append({"names": above, "bw": float(fast)})
    return spec_faults, meta, base


def prepare(sc, out, truth_bin, log):
    """Writes out/topology.json (links and routes as built) and fills sc's spec with base and faults."""
    topo_spec = os.path.join(out, "topology_spec.json")
    with open(topo_spec, "w") as f:
        json.dump({**sc["spec"], "faults": [], "emit_routes": True, "cores": sc["rph"]}, f)
    subprocess.run([truth_bin, topo_spec, os.path.join(out, "topology.json")], check=True, stdout=log, stderr=log)
    plat = Platform(json.load(open(os.path.join(out, "topology.json"))), sc["random"]["family"])
    faults, meta, base = resolve_faults(sc, plat)
    sc["spec"] = {**sc["spec"], "faults": faults, "base": base}
    with open(os.path.join(out, "random.json"), "w") as f:
        json.dump({"describe": sc["random"]["describe"], "faults": meta, "base": base, "spec": sc["spec"]}, f,
                  indent=1)


def load_spec(sc, out):
    """After a run (scripts/corpus score): the spec with its faults, as prepare() wrote it."""
    r = json.load(open(os.path.join(out, "random.json")))
    sc["spec"] = r["spec"]
    return r


# ---------------------------------------------------------------------------------------------
# Truth: what each fault does to the delays, and whether this measurement can see it.

def predicted(plat, mods, lengths):
    """Per ordered host pair (a, b), a != b: the delay of one message alone at each length."""
    bw, lat = list(plat.bw0), list(plat.lat0)
    for m in mods:
        for n in m["names"]:
            i = plat.index[n]
            bw[i] *= m.get("bw", 1.0)
            lat[i] *= m.get("lat", 1.0)
    t = {}
    for a in range(plat.H):
        for b in range(plat.H):
            if a != b:
                r = plat.routes[a][b]
                s, w = sum(lat[i] for i in r), min(bw[i] for i in r)
                t[(a, b)] = tuple(s + L / w for L in lengths)
    return t


def line_of(meta, report):
    """The report's sensitivity line for this fault's kind of finding (its JSON), else the defaults."""
    sens = report.get("sensitivity") or {}
    if meta["level"] in ("leaf", "pod", "switch"):
        groups = [v for v in (sens.get("slow_switch") or {}).values() if isinstance(v, (int, float))]
        if groups:
            return groups[min(1 if meta["level"] == "pod" else 0, len(groups) - 1)]
        return DEFAULT_LINE["group"]
    key = "slow_rank_or_node" if meta["level"] == "host" else "slow_link"
    v = sens.get(key)
    return v if isinstance(v, (int, float)) else DEFAULT_LINE["host" if meta["level"] == "host" else "link"]


def router_ends(plat, names):
    """A dragonfly global link's two ends as hosts: those on the routers it joins (the link right
    after a host's own cable on a route from it, or right before it on a route to it)."""
    names = set(names)
    return sorted({a for a in range(plat.H) for b in range(plat.H) if a != b and len(plat.routes[a][b]) > 2
                   and plat.route(a, b)[1] in names} |
                  {b for a in range(plat.H) for b in range(plat.H) if a != b and len(plat.routes[a][b]) > 2
                   and plat.route(a, b)[-2] in names})


def truth_meta(out, sc, report):
    """Per fault of raw_truth (same order as random.json): kind, direction, level, slowdown per length,
    the line, visible or not (and why)."""
    r = json.load(open(os.path.join(out, "random.json")))
    raw = json.load(open(os.path.join(out, "raw_truth.json")))
    plat = Platform(json.load(open(os.path.join(out, "topology.json"))), sc["random"]["family"])
    lengths = [int(x) for x in sc["lengths"].split(",")]
    base = r["base"]
    t_all = predicted(plat, base + r["faults"], lengths)
    healthy = predicted(plat, base, lengths)
    classes = Counter(tuple(round(x * 1e9) for x in v) for v in healthy.values())
    out_meta = []
    for k, (m, f) in enumerate(zip(r["faults"], raw["faults"])):
        pairs = {tuple(p) for p in f["pairs"]}
        others = base + [x for j, x in enumerate(r["faults"]) if j != k]
        t_without = predicted(plat, others, lengths)
        slow = []
        for li in range(len(lengths)):
            ratios = sorted(t_all[p][li] / t_without[p][li] for p in pairs)
            slow.append(ratios[len(ratios) // 2] if ratios else 1.0)
        # the pairs it slows beside the other faults (a host's narrower cable on the same route
        # leaves that route's time to the cable)
        slowed = sorted(p for p in pairs if any(t_all[p][li] > 1.001 * t_without[p][li] for li in range(len(lengths))))
        # pairs with a reference: the same distance class holds pairs the fault does not cross
        affected = Counter(tuple(round(x * 1e9) for x in healthy[p]) for p in pairs)
        with_ref = sum(c for key, c in affected.items() if classes[key] > c)
        line = line_of(m, report)
        top = max(slow) if slow else 1.0
        if not pairs:
            why = "crosses no route"
        elif with_ref < len(pairs) / 2:
            why = "every pair of its distance class crosses it"
        elif top < line:
            why = f"{top:.2f}x under the line {line:.2f}x"
        else:
            why = ""
        out_meta.append({**{k2: m[k2] for k2 in ("kind", "direction", "level", "where", "bw", "lat")},
                         "slowdown": {str(L): round(s, 3) for L, s in zip(lengths, slow)}, "line": line,
                         "visible": not why, "invisible_why": why, "npairs": len(pairs), "slowed": slowed,
                         "router_ends": router_ends(plat, m["names"]) if m["kind"].startswith("global_link") else []})
    return out_meta


def level_gaps(out, sc, levels):
    """Per true level above the hosts: the largest ratio over the measured lengths of the fastest pair
    between its groups to the slowest pair within one (healthy network; under LEVEL_FLOOR the level
    is not required)."""
    plat = Platform(json.load(open(os.path.join(out, "topology.json"))), sc["random"]["family"])
    base = json.load(open(os.path.join(out, "random.json")))["base"]
    lengths = [int(x) for x in sc["lengths"].split(",")]
    t = predicted(plat, base, lengths)
    gaps = {}
    for lv in levels:
        lab = lv["label"]
        inside = [v for (a, b), v in t.items() if lab[a] == lab[b]]
        outside = [v for (a, b), v in t.items() if lab[a] != lab[b]]
        if not inside or not outside:
            continue
        gaps[lv["name"]] = max(min(o[i] for o in outside) / max(x[i] for x in inside) for i in range(len(lengths)))
    return gaps


def finding_direction(x, core):
    """A finding's direction: its "direction" field; an asymmetric_pair's from its pairs (one-way by
    nature); None when it says none."""
    if x.get("direction"):
        return x["direction"]
    if x["kind"] == "asymmetric_pair":
        send = sum(1 for a, b in x["pairs"] if a in core)
        recv = sum(1 for a, b in x["pairs"] if b in core)
        if send > 2 * recv:
            return "send"
        if recv > 2 * send:
            return "receive"
        return "one-way"
    return None


def direction_right(fault_dir, found):
    if found is None or fault_dir is None:
        return None
    if fault_dir == "one-way":
        return found in ("send", "receive", "one-way")
    return found == fault_dir


# ---------------------------------------------------------------------------------------------
# The verdict of one seed, and the scoreboard over many.

# The seeds ctest runs (smpi.corpus_random, scripts/corpus run --set random --seeds ctest): every
# family, a fault-free network in each, host cables both ways and one way, leaf uplinks, a pod link,
# a one-way global link, torus links both ways and one way, slow switches, a parallel leaf uplink
# whose block of slow cells hid the leaves (4), two one-way torus links of one ring slowed by
# different amounts (131: 30 single-pair findings before their added times were compared), two
# pods' partial uplinks whose far ends read as slow nodes (149), torus links slow in latency only
# (27 one way at 4.7x latency, 179 one way at 4.2x), a slow leaf of four whose nodes are slow alike
# beside four other faults (77), a host slow receiving and another's cable slow both ways, no link
# between them (112); about two and a half minutes of host time on an idle machine.
CTEST_SEEDS = [4, 6, 9, 19, 22, 27, 32, 33, 40, 42, 43, 77, 112, 131, 149, 179]
# Seeds of CTEST_SEEDS the analysis of today gets wrong, with the reason: they pass the test until
# the analysis is fixed, then leave this list (a seed that passes while listed is reported).
KNOWN_FAILURES = {
    19: "torus: two links both ways and a one-way link each split into findings on one end or the other "
        "(slow_link on host19 alone and on host14 with host24), none on the link's two ends",
    32: "2-level tree, 7 ranks per host, --host-pairs: a leaf uplink at 3.05x (64 KiB) is missed while a "
        "host of another leaf that sends slowly is found",
    33: "3-level tree: a pod switch's link to the core at 6.7x is reported as slow nodes and an asymmetric "
        "pair, not as the pod's group",
}

STATES = ("at its level", "at another level", "found as unexplained", "missed")


def verdict(s):
    """Why a seed fails: a level wrong or invented, a finding invented, a visible fault not named at
    its level, or named with the wrong direction. Faults under the line or unseeable, and levels whose
    groups are not LEVEL_FLOOR apart, are not required."""
    why = []
    gaps = s.get("level_gaps", {})
    for name, v in s["levels"]:
        if v < 0.999 and gaps.get(name, 2.0) >= LEVEL_FLOOR:
            why.append(f"level {name} ARI {v:.2f}")
    if s["invented_levels"]:
        why.append(f"invented levels {','.join(s['invented_levels'])}")
    if s["invented"]:
        why.append(f"{len(s['invented'])} invented findings")
    for f in s["faults"]:
        t = f["truth"]
        if t["visible"] and f["state"] != "at its level":
            why.append(f"{t['kind']} {t['where']} {max(t['slowdown'].values()):.2f}x {f['state']}")
        elif t["visible"] and f.get("direction") is False:
            why.append(f"{t['kind']} {t['where']} direction wrong")
    return why


def judge(sc, s, meta, secs, verbose, gaps=None):
    """Attaches the truth to the score, prints the seed's line; True when it passes (or is known)."""
    seed = sc["random"]["seed"]
    s["level_gaps"] = {k: round(v, 4) for k, v in (gaps or {}).items()}
    for f, m in zip(s["faults"], meta):
        f["truth"] = m
    s["random"] = {"seed": seed, "family": sc["random"]["family"], "describe": sc["random"]["describe"]}
    why = verdict(s)
    s["ok"], s["why"] = not why, why
    known = KNOWN_FAILURES.get(seed)
    mark = "ok" if not why else ("known" if known else "FAIL")
    vis = [f for f in s["faults"] if f["truth"]["visible"]]
    cnt = [sum(1 for f in vis if f["state"] == k) for k in STATES]
    inv = [f for f in s["faults"] if not f["truth"]["visible"]]
    share = s.get("explained_share")
    lv = " ".join(f"{n}={v:.2f}" + ("(indistinct)" if s["level_gaps"].get(n, 2.0) < LEVEL_FLOOR else "")
                  for n, v in s["levels"]) or "-"
    print(f"{sc['name']:<14} {mark:<5} levels {lv:<28} visible faults (level/other/unexpl/missed) "
          f"{'/'.join(map(str, cnt)) if vis else '-':<8} invisible {len(inv)} "
          f"invented {len(s['invented'])} extra {len(s['extra'])}"
          + (f" explained {share:.3f}" if isinstance(share, (int, float)) else "")
          + (f"  [{secs:.0f} s]" if secs else ""), flush=True)
    if why or verbose:
        print(f"    {sc['random']['describe']}")
        for f in s["faults"]:
            t = f["truth"]
            d = {True: ", direction right", False: ", direction WRONG"}.get(f.get("direction"), "")
            sl = " ".join(f"{L}:{x:.2f}x" for L, x in t["slowdown"].items())
            print(f"    fault {t['kind']} ({t['direction']}) {t['where']} bw x{t['bw']} lat x{t['lat']}: {sl}, "
                  f"line {t['line']:.2f}x, {'visible' if t['visible'] else 'invisible: ' + t['invisible_why']}"
                  f" -> {f['state']}{d} {f['findings'][:4]}")
        for x in s["invented"][:6]:
            print(f"    invented: {x}")
        for x in s["extra"][:6]:
            print(f"    extra: {x}")
    if why and known:
        print(f"    known: {known}")
    if not why and known:
        print(f"    passes, but is listed as known to fail: take seed {seed} out of KNOWN_FAILURES")
    return not why or bool(known)


def _rate(a, b):
    return f"{a / b:.2f}" if b else "-"


def summary(scs, board, a):
    """Recall per fault kind and per family, precision, invented findings, failing seeds; printed and
    returned (DIR/scoreboard.json keeps it)."""
    runs = [(sc, board[sc["name"]]) for sc in scs if "error" not in board.get(sc["name"], {"error": 1})]
    errors = [sc["name"] for sc in scs if "error" in board.get(sc["name"], {"error": 1})]

    def fault_rows(key):
        rows = {}
        for sc, s in runs:
            for f in s["faults"]:
                k = key(sc, f)
                r = rows.setdefault(k, Counter())
                t = f["truth"]
                if t["visible"]:
                    r["visible"] += 1
                    r[f["state"]] += 1
                    if f["state"] != "at its level" and max(t["slowdown"].values()) < 1.2 * t["line"]:
                        r["near"] += 1  # not named, and within 20 % above the line
                    if f.get("direction") is not None:
                        r["dir scored"] += 1
                        r["dir right"] += f["direction"] is True
                else:
                    r["invisible"] += 1
                    r["invisible at level"] += f["state"] == "at its level"
        return rows

    out = {"seeds": len(scs), "errors": errors}
    print(f"\nRandom networks: {len(runs)} seeds scored" + (f", {len(errors)} errors ({', '.join(errors)})"
                                                           if errors else ""))
    for title, key in (("fault kind", lambda sc, f: f["truth"]["kind"]),
                       ("family", lambda sc, f: sc["random"]["family"])):
        rows = fault_rows(key)
        print(f"\n| {title} | visible | at its level | another level | unexplained | missed | recall "
              "| not at level, < 1.2x line | direction right | invisible (named anyway) |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        tot = Counter()
        for k in sorted(rows):
            r = rows[k]
            tot.update(r)
            print(f"| {k} | {r['visible']} | {r['at its level']} | {r['at another level']} "
                  f"| {r['found as unexplained']} | {r['missed']} | {_rate(r['at its level'], r['visible'])} "
                  f"| {r['near']} | {r['dir right']}/{r['dir scored']} | {r['invisible']} ({r['invisible at level']}) |")
        print(f"| all | {tot['visible']} | {tot['at its level']} | {tot['at another level']} "
              f"| {tot['found as unexplained']} | {tot['missed']} | {_rate(tot['at its level'], tot['visible'])} "
              f"| {tot['near']} | {tot['dir right']}/{tot['dir scored']} | {tot['invisible']} "
              f"({tot['invisible at level']}) |")
        out[title] = {k: dict(v) for k, v in rows.items()}
    fam = {}
    for sc, s in runs:
        r = fam.setdefault(sc["random"]["family"], Counter())
        r["seeds"] += 1
        r["ok"] += s["ok"]
        r["findings"] += s["findings"]
        r["about"] += s["about"]
        r["invented"] += len(s["invented"])
        r["extra"] += len(s["extra"])
        r["levels wrong"] += (any(v < 0.999 and s["level_gaps"].get(n, 2.0) >= LEVEL_FLOOR for n, v in s["levels"])
                              or bool(s["invented_levels"]))
        r["indistinct levels"] += sum(1 for n, _ in s["levels"] if s["level_gaps"].get(n, 2.0) < LEVEL_FLOOR)
        if not s["faults"]:
            r["fault-free"] += 1
            r["invented fault-free"] += len(s["invented"])
            r["fault-free with invented"] += bool(s["invented"])
    print("\n| family | seeds | pass | levels wrong | levels not required (groups < 2 % apart) | findings "
          "| about a fault | precision | invented | extra | fault-free seeds | with invented findings (findings) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    tot = Counter()
    for k in sorted(fam):
        r = fam[k]
        tot.update(r)
    for k, r in sorted(fam.items()) + [("all", tot)]:
        print(f"| {k} | {r['seeds']} | {r['ok']} | {r['levels wrong']} | {r['indistinct levels']} "
              f"| {r['findings']} | {r['about']} "
              f"| {_rate(r['about'], r['findings'])} | {r['invented']} | {r['extra']} | {r['fault-free']} "
              f"| {r['fault-free with invented']} ({r['invented fault-free']}) |")
    out["family scenarios"] = {k: dict(v) for k, v in fam.items()}
    failing = [(sc, s) for sc, s in runs if not s["ok"]]
    out["failing"] = {str(sc["random"]["seed"]): s["why"] for sc, s in failing}
    if failing:
        rerun = f"scripts/corpus run --set random --out {a.out} --seeds"
        print(f"\nFailing seeds ({len(failing)}): re-run one with `{rerun} S-S --verbose`")
        for sc, s in failing:
            known = " (known)" if sc["random"]["seed"] in KNOWN_FAILURES else ""
            print(f"  {sc['random']['seed']}{known} {sc['random']['describe']}: {'; '.join(s['why'][:4])}")
    return out
