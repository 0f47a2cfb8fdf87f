#!/usr/bin/env python3
"""CLI tests of `network_analyze compare`, `report --check` and the HTML pages, on real
NetCDF files of the synthetic-data helper (nt::synthesize: per-sample and per-cell noise of 1 %,
shuffled placement, plus gross outliers in 0.2 % of the cells).

usage: compare_tests.py TEST NETWORK_ANALYZE MAKE_SYNTH WORKDIR [CHROMIUM]
TEST: compare_pairs | compare_bad_input | report_check | compare_noise | html_key | html
"""
import json
import os
import re
import shutil
import subprocess
import sys
import zlib

CHROMIUM = sys.argv[5] if len(sys.argv) > 5 else ""
sys.argv = sys.argv[:5]
from analyze_cli import TEST, WORK, analyze, check, load, synth  # noqa: E402

FINDINGS = 3  # the findings exit code
# The cluster: 8 nodes x 4 ranks, 2 switches, 1 % noise, outliers, a protocol step.
SHAPE = ["--nodes", "8", "--rpn", "4", "--nps", "4", "--outliers", "0.002", "--protocol-step", "8192",
         "--max-pow", "16"]


def ranks_of(truth, node):
    return [r for r, n in enumerate(truth["node_of_rank"]) if n == node]


def png_pixels(path):
    """RGB(A) rows of a non-interlaced 8-bit PNG (what Chromium writes), standard library only."""
    data = open(path, "rb").read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        typ, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype, interlace = (int.from_bytes(body[0:4], "big"), int.from_bytes(body[4:8], "big"),
                                             body[8], body[9], body[12])
            check(depth == 8 and ctype in (2, 6) and interlace == 0, f"PNG kind {depth} {ctype} {interlace}")
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def chromium(url, *opts, size="1000,1600"):
    """Headless Chromium on a page: --dump-dom or --screenshot=... (opts); the finished process."""
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
              "--user-data-dir=" + os.path.join(WORK, "chromium-profile"), "--virtual-time-budget=5000",
              "--enable-logging=stderr", "--v=0", "--window-size=" + size]
    return subprocess.run(common + list(opts) + [url], capture_output=True, text=True, timeout=120)


def compare(base, cur, *opts, rc):
    out = f"{base}-{cur}.json"
    p = analyze("compare", f"{base}_median.nc", f"{cur}_median.nc", "--json", out, "--force", *opts, rc=rc)
    return p, load(out)


if TEST == "compare_pairs":
    # Five no-change pairs: new noise (and outliers) in the current run; the fifth also with
    # another rank placement, matched through the hosts files.
    for i in range(5):
        extra = ["--shuffle"] if i == 4 else []
        synth(f"b{i}", *SHAPE, "--seed", str(10 + i))
        synth(f"c{i}", *SHAPE, "--seed", str(20 + i), *extra)
        p, j = compare(f"b{i}", f"c{i}", rc=0)
        check(j["findings"] == [], f"no-change pair {i}: {j['findings']}")
        check("Findings: none" in p.stdout, "the text says none")
        check(j["placement_differs"] == (i == 4), f"pair {i}: placement_differs {j['placement_differs']}")
        check(len(j["hosts"]["common"]) == 8, "8 common hosts")
    # The fifth again with hosts files of other names (the same nodes), given on the command line.
    for run in ("b4", "c4"):
        names = open(os.path.join(WORK, f"{run}_hosts.txt")).read().split()
        with open(os.path.join(WORK, f"{run}_renamed_hosts.txt"), "w") as f:
            f.write("\n".join("rack1-" + n for n in names) + "\n")
    _, j = compare("b4", "c4", "--baseline-hosts", "b4_renamed_hosts.txt", "--current-hosts", "c4_renamed_hosts.txt",
                   rc=0)
    check(j["findings"] == [] and j["hosts"]["common"][0]["host"].startswith("rack1-"), "renamed hosts files")

    # A node 1.6x slower; a link 2x slower in one direction: only the ranks involved are named.
    for i, node in enumerate((3, 6)):
        t = synth(f"slow{i}", *SHAPE, "--seed", str(40 + i), "--shuffle", "--slow-node", str(node),
                  "--slow-factor", "1.6")
        p, j = compare(f"b{i}", f"slow{i}", rc=FINDINGS)
        check(len(j["findings"]) == 1, f"slow node {node}: {j['findings']}")
        f = j["findings"][0]
        check(f["kind"] == "node_slower" and f["hosts"] == [f"node{node}"], f"slow node finding {f}")
        check(sorted(f["ranks_current"]) == ranks_of(t, node), f"ranks {f['ranks_current']} != {ranks_of(t, node)}")
        check(sorted(f["ranks_baseline"]) == ranks_of(load(f"b{i}_truth.json"), node), "baseline ranks")
        check(abs(f["ratio"] - 1.6) < 0.05 and f["sigmas"] >= 5, f"ratio {f['ratio']} sigmas {f['sigmas']}")
        check("node_slower" in p.stdout and f"node{node}" in p.stdout, "the text names it")
    for i, (a, b) in enumerate(((1, 6), (5, 4))):
        t = synth(f"link{i}", *SHAPE, "--seed", str(50 + i), "--shuffle", "--scale-link", str(a), str(b), "2")
        _, j = compare(f"b{i + 2}", f"link{i}", rc=FINDINGS)
        check(len(j["findings"]) == 1, f"slow link {a}->{b}: {j['findings']}")
        f = j["findings"][0]
        check(f["kind"] == "link_slower" and f["direction"] == "one-way", f"link finding {f}")
        check(f["hosts"] == [f"node{a}", f"node{b}"], f"hosts {f['hosts']}")
        check(sorted(f["ranks_current"]) == sorted(ranks_of(t, a) + ranks_of(t, b)), "link ranks")
        check(abs(f["ratio"] - 2.0) < 0.08, f"ratio {f['ratio']}")
    # The other way round the slow node is a faster node; a directory stands for its one_to_one_median.nc.
    for run in ("b0", "slow0"):
        os.makedirs(os.path.join(WORK, run + "_dir"))
        for s in ("median", "hosts"):
            ext = "txt" if s == "hosts" else "nc"
            shutil.copy(os.path.join(WORK, f"{run}_{s}.{ext}"), os.path.join(WORK, run + "_dir", f"one_to_one_{s}.{ext}"))
    p = analyze("compare", "slow0_dir", "b0_dir", "--json", "dirs.json", rc=FINDINGS)
    j = load("dirs.json")
    check([f["kind"] for f in j["findings"]] == ["node_faster"] and j["findings"][0]["hosts"] == ["node3"],
          f"reversed: {j['findings']}")

elif TEST == "compare_bad_input":
    synth("b", *SHAPE, "--seed", "1")
    synth("c", *SHAPE, "--seed", "2", "--shuffle")
    synth("a", *SHAPE, "--seed", "3", "--mode", "async_one_to_one")
    synth("n", *SHAPE, "--seed", "4", "--shuffle", "--no-hosts")
    synth("nb", *SHAPE, "--seed", "5", "--no-hosts")
    check(not os.path.exists(os.path.join(WORK, "n_hosts.txt")), "--no-hosts leaves no hosts file")
    with open(os.path.join(WORK, "other_hosts.txt"), "w") as f:
        f.write("".join(f"elsewhere{r // 4}\n" for r in range(32)))
    with open(os.path.join(WORK, "c_median.nc"), "rb") as f:
        head = f.read(3000)
    with open(os.path.join(WORK, "cut_median.nc"), "wb") as f:
        f.write(head)

    def bad(*args, says):
        p = analyze("compare", *args, rc=2)
        lines = p.stderr.strip().splitlines()
        check(len(lines) == 1 and lines[0].startswith("network_analyze: error:"), f"one error line: {p.stderr!r}")
        check(re.search(says, lines[0]) is not None, f"{args}: {lines[0]!r} does not say {says!r}")
        check(p.stdout == "", "nothing on stdout")

    bad("b_median.nc", "a_median.nc", says="mode")
    bad("b_median.nc", "c_average.nc", says="statistic|average")
    bad("b_median.nc", "c_median.nc", "--current-hosts", "other_hosts.txt", says="no host in common")
    # The current run has no hosts file and another placement: its node groups differ.
    bad("b_median.nc", "n_median.nc", says="host names.*placement")
    bad("b_median.nc", "cut_median.nc", says="cut_median.nc")
    bad("b_median.nc", "missing_median.nc", says="missing_median.nc")
    bad("b_median.nc", WORK, says="one_to_one_median.nc")
    bad("b_median.nc", "c_median.nc", "--min-ratio", "0.5", says="min-ratio")
    with open(os.path.join(WORK, "short_hosts.txt"), "w") as f:
        f.write("a\nb\nc\n")
    bad("b_median.nc", "c_median.nc", "--current-hosts", "short_hosts.txt", says="3 hosts")
    bad("b_median.nc", "c_median.nc", "--html", "-", says="html")
    # An output that exists is not overwritten without --force (checked before the analysis).
    open(os.path.join(WORK, "exists.json"), "w").write("{}")
    bad("b_median.nc", "c_median.nc", "--json", "exists.json", says="exists")
    check(open(os.path.join(WORK, "exists.json")).read() == "{}", "the existing file is untouched")
    # No host names in either run, the same placement: matched by number, with a note; no finding.
    p = analyze("compare", "nb_median.nc", "b_median.nc", "--json", "bynumber.json", rc=0)
    j = load("bynumber.json")
    check(j["matched_by"] == "rank numbers" and j["findings"] == [], f"by number: {j['matched_by']} {j['findings']}")
    check(any("matched by number" in n for n in j["notes"]), "a note says how ranks were matched")

elif TEST == "report_check":
    synth("h", *SHAPE, "--seed", "7", "--shuffle")
    synth("s", *SHAPE, "--seed", "8", "--shuffle", "--slow-node", "2")
    p = analyze("report", "h_median.nc", "--check", rc=0)
    check("Anomalies: none" in p.stdout, "healthy")
    analyze("report", "s_median.nc", "--check", "--quiet", rc=FINDINGS)
    analyze("report", "s_median.nc", rc=0)  # without --check: 0 whatever the findings
    p = analyze("--help")
    check("3 findings" in p.stdout and "2 bad" in p.stdout, "--help documents the exit codes")

elif TEST == "compare_noise":
    # Noise-free files (as a simulator's) have a robust sigma of 0, which hid a node
    # 3.75x slower ("Findings: none", exit 0) that report --check found. With 1 and 2 switches, and
    # at 0.05 % and 1 % noise: compare names the node, its ratio near the planted one, exit 3, and
    # agrees with report --check on the slow file. Held out: another node and factor (2.5x).
    NOISE = {"exact": ["--noise", "0", "--cell-noise", "0"], "quiet": ["--noise", "0.0005", "--cell-noise", "0.0005"],
             "noisy": ["--noise", "0.01", "--cell-noise", "0.01"]}
    for name, noise in NOISE.items():
        for nps, node, factor in ((8, 5, 3.75), (4, 5, 3.75), (4, 2, 2.5)):
            shape = ["--nodes", "8", "--rpn", "2", "--nps", str(nps), "--max-pow", "18", *noise]
            b, c = f"nb_{name}_{nps}", f"nc_{name}_{nps}_{node}"
            synth(b, *shape, "--seed", "61")
            t = synth(c, *shape, "--seed", "62", "--slow-node", str(node), "--slow-factor", str(factor))
            p, j = compare(b, c, rc=FINDINGS)
            case = f"{name}, {8 // nps} switch(es), node{node} {factor}x"
            slow = [f for f in j["findings"] if f["kind"] == "node_slower"]
            check(len(slow) == 1 and slow[0]["hosts"] == [f"node{node}"], f"{case}: {j['findings']}")
            check(sorted(slow[0]["ranks_current"]) == ranks_of(t, node), f"{case}: ranks {slow[0]['ranks_current']}")
            check(abs(slow[0]["ratio"] / factor - 1) < 0.05, f"{case}: ratio {slow[0]['ratio']}")
            r = analyze("report", f"{c}_median.nc", "--check", rc=FINDINGS)
            check(f"node{node}" in r.stdout, f"{case}: report --check does not name node{node}")
            print(f"{case}: {[(f['kind'], f['hosts'], round(f['ratio'], 2)) for f in j['findings']]}")
        p, j = compare(b, b, rc=0)
        check(j["findings"] == [], f"{name}: a file against itself: {j['findings']}")

elif TEST == "html_key":
    # One colour convention (darker is slower, as in the viewer and the guide), a key on
    # every matrix (the colour bar, its values, which way is slow) and tick labels naming the hosts,
    # so that a 16-rank page shows which row is node5. Rendered by headless Chromium: in the
    # screenshot the rows of node5 are darker than every other node's.
    shape = ["--nodes", "8", "--rpn", "2", "--nps", "8", "--max-pow", "16", "--shuffle"]
    t = synth("k", *shape, "--seed", "3", "--slow-node", "5", "--slow-factor", "3")
    synth("kb", *shape, "--seed", "4")
    analyze("report", "k_median.nc", "--html", "k.html", "--quiet")
    analyze("compare", "kb_median.nc", "k_median.nc", "--html", "kc.html", "--quiet", rc=FINDINGS)
    tick = re.compile(r'<span class="tick" style="top:([0-9.]+)px" title="[^"]*">([^<]*)</span>')
    for page, matrices in (("k.html", 2), ("kc.html", 3)):
        text = open(os.path.join(WORK, page), encoding="utf-8").read()
        figures = re.findall(r"<figure>.*?</figure>", text, re.S)
        check(len(figures) == matrices, f"{page}: {len(figures)} figures, want {matrices}")
        for fig in figures:
            check('<svg class="legend"' in fig and ">&#8592; fast" in fig and "slow" in fig.split("legend")[1],
                  f"{page}: a matrix without its key (fast ... slow)")
            ticks = [(float(y), name) for y, name in tick.findall(fig)]
            hosts = sorted({name.split()[0] for _, name in ticks})
            check(hosts == [f"node{i}" for i in range(8)], f"{page}: tick labels {ticks}")
        check("darker is slower" in text, f"{page}: the caption does not say darker is slower")
    check(f"node5 {ranks_of(t, 5)[0]}" in open(os.path.join(WORK, "k.html")).read(), "a rank tick names host and rank")
    # Without host names the ticks are rank numbers; with 64 nodes x 4 ranks one tick per node,
    # every k-th, at least 12 px apart.
    synth("kn", *shape, "--seed", "5", "--no-hosts")
    analyze("report", "kn_median.nc", "--html", "kn.html", "--quiet")
    names = [n for _, n in tick.findall(open(os.path.join(WORK, "kn.html")).read())]
    check(len(names) == 32 and all(n.isdigit() for n in names), f"no-hosts ticks {names}")
    synth("kw", "--nodes", "64", "--rpn", "4", "--nps", "16", "--seed", "6", "--max-pow", "4")
    analyze("report", "kw_median.nc", "--html", "kw.html", "--quiet")
    first = re.search(r"<figure>.*?</figure>", open(os.path.join(WORK, "kw.html")).read(), re.S).group(0)
    ys = [(float(y), n) for y, n in tick.findall(first)]
    check(10 <= len(ys) <= 37 and all(n.startswith("node") and " " not in n for _, n in ys), f"256-rank ticks {ys}")
    check(all(b - a >= 12 - 0.1 for (a, _), (b, _) in zip(ys, ys[1:])), f"256-rank ticks closer than 12 px: {ys}")
    if not CHROMIUM or shutil.which(CHROMIUM) is None:
        print("SKIP: no chromium")
        sys.exit(77)
    for page in ("k.html", "kc.html"):
        url = "file://" + os.path.join(WORK, page)
        dom = chromium(url, "--dump-dom", size="1000,2200")
        check(dom.returncode == 0, f"{page}: chromium --dump-dom exited {dom.returncode}")
        shot = os.path.join(WORK, page + ".png")
        s = chromium(url, "--screenshot=" + shot, size="1000,2200")
        check(s.returncode == 0 and os.path.exists(shot), f"{page}: no screenshot: {s.stderr[-2000:]}")
        w, h, bpp, rows = png_pixels(shot)
        seen = 0
        for fig in re.findall(r"<figure>.*?</figure>", dom.stdout, re.S):
            box = re.search(r'data-box="(\d+),(\d+),(\d+),(\d+)"', fig)
            check(box is not None, f"{page}: a picture without its place on the page")
            x0, y0, bw, bh = map(int, box.groups())
            if y0 + bh > h:
                continue
            seen += 1

            def lum(y):  # mean luminance of one screen row across the picture (inside its border)
                row = rows[y]
                px = [row[x * bpp:x * bpp + 3] for x in range(x0 + 2, x0 + bw - 2)]
                return sum(0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2] for p in px) / len(px)

            # Tick tops are px in the .mx box: the picture starts 64 px down (its 1 px border).
            per_host = {}
            for y, name in ((float(y), n) for y, n in tick.findall(fig)):
                per_host.setdefault(name.split()[0], []).append(lum(round(y0 + 1 + (y - 64))))
            mean = {hname: sum(v) / len(v) for hname, v in per_host.items()}
            others = [v for hname, v in mean.items() if hname != "node5"]
            check(mean["node5"] + 20 < min(others), f"{page}: node5's rows are not the darkest: {mean}")
            print(f"{page}: row luminance node5 {mean['node5']:.0f}, the other nodes {min(others):.0f}-{max(others):.0f}")
        check(seen >= 1, f"{page}: no picture inside the screenshot")

elif TEST == "html":
    # Pages of a small run (with an anomaly), of a 1,024-rank file and of a comparison; each one
    # file without any http(s) reference, rendered by headless Chromium: no console error, every
    # picture decoded, and the screenshot shows the matrix (a large area of the colour map).
    synth("small", *SHAPE, "--seed", "9", "--shuffle", "--slow-node", "5")
    synth("small2", *SHAPE, "--seed", "10", "--shuffle", "--scale-link", "0", "7", "2")
    # 64 nodes x 16 ranks, 4 switches, 9 lengths: the helper writes it in a few seconds.
    synth("big", "--nodes", "64", "--rpn", "16", "--nps", "16", "--seed", "1", "--shuffle", "--max-pow", "7")
    pages = {
        "small.html": ["report", "small_median.nc", "--html", "small.html", "--quiet"],
        "big.html": ["report", "big_median.nc", "--html", "big.html", "--quiet"],
        "cmp.html": ["compare", "small_median.nc", "small2_median.nc", "--html", "cmp.html", "--quiet"],
    }
    for page, args in pages.items():
        analyze(*args, rc=FINDINGS if args[0] == "compare" else 0)
        path = os.path.join(WORK, page)
        text = open(path, encoding="utf-8").read()
        check(not re.search(r"https?:", text, re.I), f"{page}: an http(s) reference")
        check(not re.search(r"<(link|iframe|object|embed)\b|\bsrc=\"(?!data:)", text), f"{page}: an external resource")
        check(text.count("data:image/png;base64,") >= 1, f"{page}: no picture")
        check(text.rstrip().endswith("</html>"), f"{page}: not a whole page")
    check("slow_node" in open(os.path.join(WORK, "small.html")).read(), "the small page lists the anomaly")
    # Each finding drawn beside it: the slow node's picture (32 ranks, one cell each) has its four
    # ranks' rows and columns red, and no other cell.
    import base64
    where = re.findall(r'<tr><td>(\w+)</td>.*?<img class="where"[^>]*src="data:image/png;base64,([^"]+)"',
                       open(os.path.join(WORK, "small.html")).read())
    check([k for k, _ in where] == ["slow_node"], f"one picture per finding: {[k for k, _ in where]}")
    thumb = os.path.join(WORK, "where.png")
    open(thumb, "wb").write(base64.b64decode(where[0][1]))
    w, h, bpp, rows = png_pixels(thumb)
    red = [[row[x * bpp] - row[x * bpp + 1] > 80 for x in range(w)] for row in rows]
    full_rows = [y for y in range(h) if all(red[y])]
    full_cols = [x for x in range(w) if all(red[y][x] for y in range(h))]
    union = sum(1 for y in range(h) for x in range(w) if y in full_rows or x in full_cols)
    check((w, h) == (32, 32) and len(full_rows) == 4 and full_rows == full_cols and sum(map(sum, red)) == union,
          f"the slow node's picture: {w}x{h}, red rows {full_rows}, columns {full_cols}, {sum(map(sum, red))} red cells")
    check("link_slower" in open(os.path.join(WORK, "cmp.html")).read(), "the comparison lists the slow link")
    check("1024 ranks averaged into 256 cells" in open(os.path.join(WORK, "big.html")).read(), "big: downsampled")
    if not CHROMIUM or shutil.which(CHROMIUM) is None:
        print("SKIP: no chromium")
        sys.exit(77)

    for page in pages:
        url = "file://" + os.path.join(WORK, page)
        common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                  "--user-data-dir=" + os.path.join(WORK, "chromium-profile"), "--virtual-time-budget=5000",
                  "--enable-logging=stderr", "--v=0"]
        dom = subprocess.run(common + ["--dump-dom", url], capture_output=True, text=True, timeout=120)
        check(dom.returncode == 0, f"{page}: chromium --dump-dom exited {dom.returncode}: {dom.stderr[-2000:]}")
        console = [l for l in dom.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
        check(not console, f"{page}: console messages {console}")
        m = re.search(r'data-pictures-decoded="(\d+)"', dom.stdout)
        n_img = len(re.findall(r"<img\b", open(os.path.join(WORK, page)).read()))
        check(m is not None and int(m.group(1)) == n_img, f"{page}: pictures decoded {m and m.group(1)} of {n_img}")
        shot = os.path.join(WORK, page + ".png")
        s = subprocess.run(common + ["--screenshot=" + shot, "--window-size=1000,1600", url], capture_output=True,
                           text=True, timeout=120)
        check(s.returncode == 0 and os.path.exists(shot), f"{page}: no screenshot: {s.stderr[-2000:]}")
        w, h, bpp, rows = png_pixels(shot)
        # Colour-map pixels: saturated (text and page are grey/black/white).
        colour = sum(1 for row in rows for x in range(0, w * bpp, bpp)
                     if max(row[x:x + 3]) - min(row[x:x + 3]) > 60)
        check(colour > 40000, f"{page}: the screenshot shows {colour} coloured pixels, no matrix")
        print(f"{page}: {len(open(os.path.join(WORK, page)).read())} bytes, {m.group(1)} pictures, {colour} coloured "
              f"pixels in the screenshot")
    # Printable: Chromium prints the small page to a PDF that holds its pictures.
    pdf = os.path.join(WORK, "small.pdf")
    s = subprocess.run(common + ["--print-to-pdf=" + pdf, "--no-pdf-header-footer", "file://" + os.path.join(WORK, "small.html")],
                       capture_output=True, text=True, timeout=120)
    data = open(pdf, "rb").read() if os.path.exists(pdf) else b""
    check(s.returncode == 0 and data.startswith(b"%PDF") and b"/Image" in data, f"no printed PDF with pictures: {s.stderr[-1000:]}")
    print(f"small.pdf: {len(data)} bytes")
else:
    sys.exit(f"unknown test {TEST}")
print("ok")
