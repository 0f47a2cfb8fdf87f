#!/usr/bin/python3
"""Checks of an emulated-cluster run (used by e2e_slow_host.sh and for the hand runs).

  check_run.py measure PREFIX --slow-hosts H[,H] --rate-mbit R
      the files of network_test; the hosts file; the delays of pairs with a slow host obey the
      tbf rate and are clearly above the healthy inter-host pairs at the longest length
  check_run.py analyze REPORT.json PREFIX_hosts.txt --slow-hosts H[,H] (or --healthy)
      groups == hosts; every anomaly involves a slow host's rank (rank-level kinds: only slow
      ranks); every rank of a slow host is flagged; a healthy cluster has no anomaly
  check_run.py cluster CLUSTERED.nc RAW.nc --threshold T --slow-hosts H[,H]
      the clustered file read with the lookup rule of share/doc/design.md §5 reproduces the raw
      file within its recorded errors, and still shows the slow host
  check_run.py png FILE.png
      a PNG with a plausible size and more than one grey level
Exit 0 if every check holds, 1 with a message otherwise.
"""
import argparse
import json
import os
import struct
import sys
import zlib

import numpy as np
from netCDF4 import Dataset

RANK_KINDS = {"slow_rank", "slow_node", "high_variance"}
# Findings about the spread of a rank's samples, not its delays: on the emulated cluster of a
# shared 2-core machine (six ranks, links shaped by tc) the scheduler's noise is real, and a healthy
# rank's samples may spread 3-4x more than the others' (seen in two clean-clone CI runs, each
# once, a different rank). Such a finding on a healthy rank is printed, not counted as invented;
# every delay finding (slow rank, node, link, pair) must still be the slow host's. (One-way pairs
# within a host are the scheduler's on such a run: the report leaves them to a note, since the files
# say the ranks outnumbered the cores; share/doc/analyze.md.)
NOISE_KINDS = {"high_variance"}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def read_hosts(path):
    with open(path) as f:
        return [line.strip() for line in f if line.strip()]


def read_raw(path):
    with Dataset(path) as ds:
        data = np.array(ds.variables["data"][:], dtype=float)
        lengths = np.array(ds.variables["message_length"][:], dtype=np.int64)
        attrs = {k: ds.getncattr(k) for k in ds.ncattrs()}
    return data, lengths, attrs


def pair_classes(hosts, slow):
    """Masks over (x, y): pairs with exactly one slow end, healthy inter-host, intra-host."""
    p = len(hosts)
    is_slow = np.array([h in slow for h in hosts])
    same = np.array([[hosts[i] == hosts[j] for j in range(p)] for i in range(p)])
    off = ~np.eye(p, dtype=bool)
    slow_pair = off & ~same & (is_slow[:, None] | is_slow[None, :])
    healthy_inter = off & ~same & ~is_slow[:, None] & ~is_slow[None, :]
    intra = off & same
    return slow_pair, healthy_inter, intra


def cmd_measure(a):
    hosts = read_hosts(a.prefix + "_hosts.txt")
    slow = set(a.slow_hosts.split(",")) if a.slow_hosts else set()
    print("hosts:", hosts)
    if len(set(hosts)) < 2:
        fail("all ranks report the same host name")
    if slow - set(hosts):
        fail(f"slow host(s) {slow - set(hosts)} not among the ranks' hosts")
    if a.ppn and any(hosts.count(h) != a.ppn for h in set(hosts)):
        fail(f"not {a.ppn} ranks on every host: {hosts}")
    for stat in ("average", "median", "min", "max", "deviation"):
        data, lengths, attrs = read_raw(f"{a.prefix}_{stat}.nc")
        if data.shape != (len(lengths), len(hosts), len(hosts)):
            fail(f"{stat}: data shape {data.shape}, {len(lengths)} lengths, {len(hosts)} hosts")
        if not np.all(np.isfinite(data)):
            fail(f"{stat}: non-finite values")
    data, lengths, attrs = read_raw(a.prefix + "_median.nc")
    # The emulated hosts are network namespaces of this one machine: with more ranks than its cores
    # every rank must measure as oversubscribed (idle ranks sleep instead of spinning on the cores
    # the measured pair needs), whatever the namespaces' host names say.
    if len(hosts) > len(os.sched_getaffinity(0)):
        want = f"auto: {len(hosts)} of {len(hosts)} ranks"
        if str(attrs.get("oversubscribed")) != want:
            fail(f"oversubscribed is {attrs.get('oversubscribed')!r}, want {want!r} "
                 f"({len(hosts)} ranks on {len(os.sched_getaffinity(0))} cores)")
    if a.lengths and list(lengths) != [int(x) for x in a.lengths.split(",")]:
        fail(f"message lengths {list(lengths)}, want {a.lengths}")
    p = len(hosts)
    off = ~np.eye(p, dtype=bool)
    bad = np.argwhere(~(data[:, off] > 0))
    if len(bad):
        # Clock-offset errors of one-way delays under heavy load; reported, not fatal here.
        print(f"WARNING: {len(bad)} median delays between two ranks are not positive, e.g. "
              f"length {lengths[bad[0][0]]}: {data[:, off][tuple(bad[0])]:.3g} s")
    slow_pair, healthy_inter, intra = pair_classes(hosts, slow)
    k = int(np.argmax(lengths))
    m = data[k]
    us = 1e6
    print(f"longest length {lengths[k]} B: median of medians: intra-host "
          f"{np.median(m[intra]) * us:.1f} us, healthy inter-host "
          f"{np.median(m[healthy_inter]) * us if healthy_inter.any() else float('nan'):.1f} us"
          + (f", with a slow host {np.median(m[slow_pair]) * us:.1f} us" if slow else ""))
    if slow:
        # A message of L bytes through a tbf of R bit/s needs at least L*8/R seconds.
        floor = lengths[k] * 8 / (a.rate_mbit * 1e6)
        if np.min(m[slow_pair]) < 0.9 * floor:
            fail(f"a pair with a slow host took {np.min(m[slow_pair]):.4g} s for {lengths[k]} B, "
                 f"below the tbf bound {floor:.4g} s: traffic did not cross the shaped link")
        if healthy_inter.any() and np.min(m[slow_pair]) < 3 * np.median(m[healthy_inter]):
            fail("pairs with the slow host are not clearly slower than healthy inter-host pairs")
    if healthy_inter.any() and intra.any() and np.median(m[healthy_inter]) <= np.median(m[intra]):
        # Shared memory (intra-host) should beat TCP over the veth links; when it does not, the
        # machine was too busy for the node level of the topology to show in the delays.
        print("NOTE: intra-host pairs are not faster than healthy inter-host pairs at the longest length")
    print("measure: OK")


def cmd_analyze(a):
    hosts = read_hosts(a.hosts)
    with open(a.report) as f:
        rep = json.load(f)
    slow = set(a.slow_hosts.split(",")) if a.slow_hosts else set()
    want = sorted(sorted(i for i, h in enumerate(hosts) if h == name) for name in set(hosts))
    got = sorted(sorted(g) for g in rep["groups"])
    print("groups:", got)
    errors = []
    if got != want:
        errors.append(f"groups {got} differ from the hosts {want}")
    slow_ranks = {i for i, h in enumerate(hosts) if h in slow}
    anomalies = rep["anomalies"]
    for an in anomalies:
        print(f"anomaly: {an['kind']} ranks {an['ranks']} hosts {an.get('hosts')} "
              f"score {an.get('score')}")
    noise = [an for an in anomalies if an["kind"] in NOISE_KINDS and not set(an["ranks"]) & slow_ranks]
    for an in noise:
        print(f"note: {an['kind']} on healthy ranks {an['ranks']}: the machine's noise, not a network fault")
    anomalies = [an for an in anomalies if an not in noise]
    if not slow:
        if anomalies:
            errors.append(f"a healthy cluster reports {len(anomalies)} anomalies")
    else:
        flagged = set()
        for an in anomalies:
            ranks = set(an["ranks"])
            if not ranks & slow_ranks:
                errors.append(f"anomaly without a slow rank: {an['kind']} {an['ranks']}")
            elif an["kind"] in RANK_KINDS and not ranks <= slow_ranks:
                errors.append(f"{an['kind']} flags a healthy rank: {an['ranks']}")
            flagged |= ranks & slow_ranks
        if flagged != slow_ranks:
            errors.append(f"slow ranks {sorted(slow_ranks)} but flagged {sorted(flagged)}")
    if errors:
        fail("; ".join(errors))
    print("analyze: OK (groups = hosts, " +
          ("only the slow host's ranks flagged)" if slow else "nothing flagged)"))


def cmd_cluster(a):
    raw, lengths, _ = read_raw(a.raw)
    hosts = read_hosts(a.hosts) if a.hosts else None
    with Dataset(a.clustered) as ds:
        # NetCDF-4, or the compact classic CDF-1 form for tiny inputs where that is smaller
        # (share/doc/cluster.md, "compact form").
        if ds.data_model not in ("NETCDF4", "NETCDF3_CLASSIC"):
            fail(f"clustered file is {ds.data_model}, want NETCDF4 or NETCDF3_CLASSIC")
        info = np.array(ds.variables["info"][:], dtype=np.int64)
        first = np.array(ds.variables["length"][:], dtype=np.int64)
        data = np.array(ds.variables["data"][:], dtype=float)
        mlen = np.array(ds.variables["message_length"][:], dtype=np.int64)
        attrs = {k: ds.getncattr(k) for k in ds.ncattrs()}
        res = None
        if "residual" in ds.variables:  # layout 2: a quantised correction per value
            v = ds.variables["residual"]
            v.set_auto_maskandscale(False)
            res = (np.array(v[:], dtype=float), float(v.residual_step), v.residual_mode)
    if list(mlen) != list(lengths):
        fail("clustered file has other message lengths than the raw file")
    n, p, _ = raw.shape
    rec = np.empty_like(raw)
    for k in range(n):
        r = int(np.searchsorted(first, k, side="right") - 1)
        rec[k] = data[info[r] + (k - first[r])]
        if res is not None:
            q, step, mode = res
            rec[k] = rec[k] * np.exp(q[k] * step) if mode == "relative" else rec[k] + q[k] * step
    nz = raw != 0
    rel = np.abs(rec - raw)[nz] / np.abs(raw[nz])
    beyond = np.mean(rel > a.threshold * (1 + 1e-9))
    print(f"clustered: {len(first)} regions, {data.size} stored values for {raw.size}; "
          f"max rel error {rel.max():.4f}, beyond threshold {beyond:.4f}")
    if "cluster_max_relative_error" in attrs and abs(attrs["cluster_max_relative_error"] - rel.max()) > 1e-6:
        fail(f"recorded max relative error {attrs['cluster_max_relative_error']} != recomputed {rel.max()}")
    if beyond > 0.05:
        fail(f"{beyond:.1%} of the values are beyond the threshold")
    if hosts and a.slow_hosts:
        slow_pair, healthy_inter, _ = pair_classes(hosts, set(a.slow_hosts.split(",")))
        k = int(np.argmax(lengths))
        if np.min(rec[k][slow_pair]) < 3 * np.median(rec[k][healthy_inter]):
            fail("the clustered file no longer shows the slow host")
    print("cluster: OK")


def png_pixels(path):
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path} is not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(blob):
        ln, typ = struct.unpack(">I4s", blob[pos:pos + 8])
        chunk = blob[pos + 8:pos + 8 + ln]
        if typ == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", chunk)
        elif typ == b"IDAT":
            idat += chunk
        pos += 12 + ln
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or interlace or ctype not in (0, 2, 4, 6):
        return w, h, None
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(idat)
    stride = w * bpp
    out = np.zeros((h, stride), dtype=np.int32)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1).astype(np.int32)
        cur = np.zeros(stride, dtype=np.int32)
        for x in range(stride):
            left = cur[x - bpp] if x >= bpp else 0
            up = prev[x]
            ul = prev[x - bpp] if x >= bpp else 0
            if ft == 0:
                v = line[x]
            elif ft == 1:
                v = line[x] + left
            elif ft == 2:
                v = line[x] + up
            elif ft == 3:
                v = line[x] + (left + up) // 2
            else:
                pa, pb, pc = abs(up - ul), abs(left - ul), abs(left + up - 2 * ul)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else ul)
                v = line[x] + pred
            cur[x] = v & 0xFF
        out[y] = cur
        prev = cur
    return w, h, out.reshape(h, w, bpp)


def cmd_png(a):
    w, h, px = png_pixels(a.png)
    print(f"png: {w}x{h}")
    if w < 16 or h < 16:
        fail("image too small")
    if px is not None:
        levels = len(np.unique(px[:, :, 0]))
        print(f"png: {levels} distinct levels in the first channel")
        if levels < 3:
            fail("image is (nearly) uniform")
    print("png: OK")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("prefix")
    m.add_argument("--slow-hosts", default="")
    m.add_argument("--rate-mbit", type=float, default=100)
    m.add_argument("--lengths", default="")
    m.add_argument("--ppn", type=int, default=0)
    n = sub.add_parser("analyze")
    n.add_argument("report")
    n.add_argument("hosts")
    n.add_argument("--slow-hosts", default="")
    c = sub.add_parser("cluster")
    c.add_argument("clustered")
    c.add_argument("raw")
    c.add_argument("--threshold", type=float, required=True)
    c.add_argument("--hosts", default="")
    c.add_argument("--slow-hosts", default="")
    g = sub.add_parser("png")
    g.add_argument("png")
    a = ap.parse_args()
    {"measure": cmd_measure, "analyze": cmd_analyze, "cluster": cmd_cluster, "png": cmd_png}[a.cmd](a)


if __name__ == "__main__":
    main()
