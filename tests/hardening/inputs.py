#!/usr/bin/env python3
"""Hostile inputs through every reader command of the real programs.

  inputs.py BIN_DIR WORK_DIR crafted        the reproducers of the hardening issue, each with the
                                            verdict it must get
  inputs.py BIN_DIR WORK_DIR declared       a small clustered file declaring 20,000 ranks, under
                                            ulimit -v 600 MB
  inputs.py BIN_DIR WORK_DIR sweep N SEED   N mutated files (bit flips, byte runs, truncations,
                                            text edits) from valid files of every format

Every run must end by itself within 20 s, with exit code 0 or 2 (never a signal, never 1), one
line on stderr when it fails, and under 1 GB of peak memory. The sweep prints a summary.
"""
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import time

BIN, WORK, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
NC = os.path.join(BIN, "network_convert")
CL = os.path.join(BIN, "network_cluster")
AN = os.path.join(BIN, "network_analyze")
VW = os.path.join(BIN, "network_viewer")
LIMIT_S = 20
LIMIT_RSS_KB = 1_000_000
ENV = dict(os.environ, QT_QPA_PLATFORM="offscreen")

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def run(cmd, cwd):
    """Runs cmd; returns (exit code or -signal, seconds, peak RSS in KB of the child, stderr)."""
    t0 = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    try:
        p = subprocess.run(cmd, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=LIMIT_S * 3)
        code, err = p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        code, err = "timeout", ""
    dt = time.monotonic() - t0
    # ru_maxrss of the children is a maximum over all of them: measure each run with time -f instead
    return code, dt, err


def run_measured(cmd, cwd):
    code, dt, err = run(["/usr/bin/time", "-f", "%M", "-o", os.path.join(cwd, ".rss")] + cmd, cwd)
    try:
        with open(os.path.join(cwd, ".rss")) as f:
            lines = [l for l in f.read().split("\n") if l.strip().isdigit()]
            rss = int(lines[-1]) if lines else 0
    except OSError:
        rss = 0
    return code, dt, rss, err


def readers(path, out):
    """Every reader command on one input; outputs go to fresh names under `out`."""
    return [
        ("info", [NC, "info", path]),
        ("to-csv", [NC, "to-csv", path, "-o", out + ".csv"]),
        ("to-json", [NC, "to-json", path, "-o", out + ".json"]),
        ("report", [AN, "report", path, "--json", out + "_r.json", "--quiet"]),
        ("compress", [CL, "compress", path, "-o", out + "_c.nc", "--threshold", "5%"]),
        ("render", [VW, path, "--render", out + ".png"]),
    ]


stats = {"runs": 0, "codes": {}, "max_s": 0.0, "max_rss_kb": 0}


def check_all(path, cwd, want=None, tag=""):
    """Runs every reader on path; want: required exit code of every reader (None: 0 or 2)."""
    outcome = {}
    for name, cmd in readers(path, os.path.join(cwd, "o_" + os.path.basename(path))):
        code, dt, rss, err = run_measured(cmd, cwd)
        stats["runs"] += 1
        stats["codes"][str(code)] = stats["codes"].get(str(code), 0) + 1
        stats["max_s"] = max(stats["max_s"], dt)
        stats["max_rss_kb"] = max(stats["max_rss_kb"], rss)
        outcome[name] = code
        where = f"{tag} {name} on {os.path.basename(path)}"
        if code not in (0, 2):
            fail(f"{where}: exit {code}: {err.strip()[:300]}")
        elif want is not None and code != want:
            fail(f"{where}: exit {code}, want {want}: {err.strip()[:300]}")
        if dt > LIMIT_S:
            fail(f"{where}: {dt:.1f} s")
        if rss > LIMIT_RSS_KB:
            fail(f"{where}: {rss / 1e3:.0f} MB")
        if code == 2 and len(err.strip().splitlines()) != 1:
            fail(f"{where}: not one line: {err.strip()[:300]}")
    return outcome


def sh(cmd, cwd):
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)


def make_valid(cwd):
    """Valid inputs of every format: raw CDF-2, NetCDF-4 copy, clustered, text, legacy-like."""
    sh([NC, "synth", "-o", "v", "--nodes", "3", "--ranks-per-node", "2", "--lengths", "0,1024,65536", "--seed", "2"], cwd)
    sh([NC, "to-netcdf4", "v_median.nc", "-o", "v4.nc"], cwd)
    sh([NC, "to-text", "v_median.nc", "-o", "v.txt"], cwd)
    sh([CL, "compress", "v_median.nc", "-o", "vc.nc", "--threshold", "5%"], cwd)
    return ["v_median.nc", "v4.nc", "v.txt", "vc.nc"]


def cdl_of(path, cwd):
    return subprocess.run(["ncdump", path], cwd=cwd, check=True, capture_output=True, text=True).stdout


def ncgen(cdl, out, kind, cwd):
    src = os.path.join(cwd, out + ".cdl")
    with open(src, "w") as f:
        f.write(cdl)
    sh(["ncgen", "-k", kind, "-o", out, src], cwd)


def crafted(cwd):
    make_valid(cwd)
    cdl = cdl_of("v_median.nc", cwd)
    P = 6
    cases = []  # (file, required exit code, what it reproduces)

    # Variables with more or fewer dimensions than the reader expects (a heap over-read once).
    c = cdl.replace("int message_length(n) ;", "int message_length(n, x) ;")
    c = c.replace(" message_length = 0, 1024, 65536 ;", " message_length = " + ", ".join(["0"] * (3 * P)) + " ;")
    ncgen(c, "ml2d.nc", "nc6", cwd)
    cases.append(("ml2d.nc", 2, "2-D message_length"))
    c = cdl.replace("int message_length(n) ;", "int message_length ;").replace(
        " message_length = 0, 1024, 65536 ;", " message_length = 0 ;")
    ncgen(c, "mlscalar.nc", "nc6", cwd)
    cases.append(("mlscalar.nc", 2, "scalar message_length"))
    # format_version as text: must not read as a legacy file (transposed)
    c = cdl.replace(":format_version = 1 ;", ':format_version = "1" ;')
    ncgen(c, "fvtext.nc", "nc6", cwd)
    cases.append(("fvtext.nc", 2, "format_version stored as text"))
    # lengths decreasing, duplicated, negative
    for name, ml in (("decr", "0, 65536, 1024"), ("dup", "0, 1024, 1024"), ("neg", "-8, 1024, 65536")):
        c = cdl.replace(" message_length = 0, 1024, 65536 ;", f" message_length = {ml} ;")
        ncgen(c, f"ml_{name}.nc", "nc6", cwd)
        cases.append((f"ml_{name}.nc", 2, f"{name} message lengths"))

    # NetCDF-4 files that declare huge sizes with no data (unwritten chunks).
    head, body = cdl.split("data:")
    scalars = [l for l in body.split("\n") if l.startswith(" ") and " = " in l and l.rstrip().endswith(" ;")
               and not l.startswith(" message_length") and not l.startswith(" data")]
    c = head.replace("n = UNLIMITED ; // (3 currently)", "n = 10000000 ;") + "data:\n" + "\n".join(scalars) + "\n}\n"
    ncgen(c, "nc4_huge_n.nc", "nc4", cwd)
    cases.append(("nc4_huge_n.nc", 2, "NetCDF-4 declaring 10^7 lengths"))
    c = head.replace("x = 6 ;", "x = 20000 ;").replace("y = 6 ;", "y = 20000 ;")
    c = c.replace("n = UNLIMITED ; // (3 currently)", "n = 2 ;")
    c += "data:\n" + "\n".join(l.replace("proc_num = 6", "proc_num = 20000") for l in scalars) + "\n}\n"
    ncgen(c, "nc4_huge_p.nc", "nc4", cwd)
    cases.append(("nc4_huge_p.nc", 2, "NetCDF-4 declaring 20,000 ranks"))

    # A classic header with 7 bytes changed, at seeded random places of the header.
    raw = open(os.path.join(cwd, "v_median.nc"), "rb").read()
    rng = random.Random(7)
    header_len = raw.find(b"\x00\x00\x00\x00", 64)  # somewhere inside the header
    header_len = max(64, min(len(raw), 1200))
    for i in range(12):
        b = bytearray(raw)
        for _ in range(7):
            b[rng.randrange(8, header_len)] = rng.randrange(256)
        name = f"hdr7_{i}.nc"
        open(os.path.join(cwd, name), "wb").write(bytes(b))
        cases.append((name, None, "7 header bytes changed"))
    # Cut to the header only: data offsets past the end of the file.
    open(os.path.join(cwd, "cut_header.nc"), "wb").write(raw[:600])
    cases.append(("cut_header.nc", 2, "data offset past the end"))

    # Text files.
    txt = open(os.path.join(cwd, "v.txt"), "rb").read()
    lines = txt.split(b"\n")
    first_value_line = next(i for i, l in enumerate(lines) if l.startswith(b"Message length")) + 1
    def text_case(name, data, want, what):
        open(os.path.join(cwd, name), "wb").write(data)
        cases.append((name, want, what))
    l2 = list(lines)
    vals = l2[first_value_line].split(b"\t")
    vals[1] = b"5.0\x00" + vals[1]
    l2[first_value_line] = b"\t".join(vals)
    text_case("t_nul.txt", b"\n".join(l2), 2, "NUL inside a value")
    for procs, what in ((b"4294967302", "processors beyond 32 bits"), (b"100000", "processors 100000"),
                        (b"2147483647", "processors 2^31-1")):
        text_case(f"t_p{procs.decode()}.txt", txt.replace(b"processors 6", b"processors " + procs, 1), 2, what)
    l2 = list(lines)
    vals = l2[first_value_line].split(b"\t")
    vals[1] = b"1e400"
    l2[first_value_line] = b"\t".join(vals)
    text_case("t_1e400.txt", b"\n".join(l2), 2, "1e400")
    text_case("t_noline.txt", b"processors 6\n" + b"1" * (70 << 20), 2, "a 70 MB line")

    for name, want, what in cases:
        check_all(os.path.join(cwd, name), cwd, want, tag=what + ":")

    # Bad delays are data, not structure: read (exit 0), counted by info, excluded elsewhere.
    l2 = list(lines)
    vals = l2[first_value_line].split(b"\t")
    vals[1], vals[2], vals[3] = b"nan", b"-1e-06", b"1.7e308"
    l2[first_value_line] = b"\t".join(vals)
    open(os.path.join(cwd, "t_bad.txt"), "wb").write(b"\n".join(l2))
    out = subprocess.run([NC, "info", "t_bad.txt"], cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0 or "3 bad values (1 NaN, 1 negative, 1 above 1000 s)" not in out.stdout:
        fail("info does not report the 3 bad values: " + out.stdout[-400:] + out.stderr)
    check_all(os.path.join(cwd, "t_bad.txt"), cwd, None, tag="bad values:")
    out = subprocess.run([AN, "report", "t_bad.txt"], cwd=cwd, capture_output=True, text=True)
    if "3 bad values (1 NaN, 1 negative, 1 above 1000 s) excluded from the analysis" not in out.stdout:
        fail("report does not say that it excluded the bad values: " + out.stdout[:400])

    # Host names that are not UTF-8 go into every JSON output as valid JSON.
    hosts_at = lines.index(b"hosts:")
    l2 = list(lines)
    for r in range(P):
        l2[hosts_at + 1 + r] = b"node\xff\xfe%d" % (r // 2)
    open(os.path.join(cwd, "h.txt"), "wb").write(b"\n".join(l2))
    for cmd, out_json in (([NC, "to-json", "h.txt", "-o", "h.json"], "h.json"),
                          ([AN, "report", "h.txt", "--json", "hr.json", "--quiet"], "hr.json")):
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=ENV)
        if p.returncode != 0:
            fail(f"{cmd[1]} with non-UTF-8 hosts: exit {p.returncode}: {p.stderr.strip()}")
            continue
        try:
            json.load(open(os.path.join(cwd, out_json), encoding="utf-8"))
        except ValueError as e:
            fail(f"{out_json} is not valid JSON: {e}")


def mutate(data, rng, is_text):
    b = bytearray(data)
    kind = rng.randrange(6)
    if kind == 0:  # bit flips anywhere
        for _ in range(rng.randrange(1, 16)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
    elif kind == 1:  # bytes changed in the first 1 KB (headers)
        for _ in range(rng.randrange(1, 10)):
            b[rng.randrange(min(len(b), 1024))] = rng.randrange(256)
    elif kind == 2:  # truncation
        b = b[: rng.randrange(1, len(b))]
    elif kind == 3:  # a run of 0xff / 0x00 / 0x7f (huge or zero counts)
        i = rng.randrange(min(len(b), 1024))
        v = rng.choice([0x00, 0xFF, 0x7F, 0x80])
        for j in range(i, min(len(b), i + rng.randrange(1, 9))):
            b[j] = v
    elif kind == 4 and is_text:  # text: change a number or a keyword
        s = bytes(b).split(b"\n")
        i = rng.randrange(len(s))
        s[i] = rng.choice([b"processors 99999999", b"Message length -5", b"1e999\t2", b"nan\tinf\t-1",
                           b"\x00", b"processors", b"Message length 18446744073709551617", s[i] * 3])
        b = bytearray(b"\n".join(s))
    else:  # bytes inserted
        i = rng.randrange(len(b))
        b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    return bytes(b)


def declared(cwd):
    """A 5 MB clustered file declaring 20,000 ranks (its info never written, 600,000 data
    values) made info, to-csv, to-text, decompress use 3.1 GB before refusing it, and network_cluster
    info 1.6 GB and exit 0. Each reader must refuse it (exit 2, one line) under `ulimit -v` 600 MB
    and stay far below it without."""
    make_valid(cwd)
    cdl = cdl_of("vc.nc", cwd).replace('\t\t:_Format = "classic" ;\n', "")
    head, body = cdl.split("data:")
    head = head.replace("x = 6 ;", "x = 20000 ;").replace("d = 9 ;", "d = 600000 ;")
    head = head.replace("\tint info(n, x, x) ;\n", "").replace(
        "\tdouble data(d) ;\n", "\tdouble data(d) ;\n\tint info(n, x, x) ;\n\t\tinfo:_DeflateLevel = 1 ;\n"
        "\t\tinfo:_ChunkSizes = 1, 1000, 1000 ;\n")
    body = body.replace(" proc_num = 6 ;", " proc_num = 20000 ;")
    body = body[:body.index(" info =")] + body[body.index(" length ="):]
    values = ", ".join(f"{1e-6 * (1 + (i % 997) / 997):.6g}" for i in range(600000))
    body = body[:body.index(" data =")] + " data = " + values + " ;\n}\n"
    ncgen(head + "data:" + body, "declares20k.nc", "nc4", cwd)
    size = os.path.getsize(os.path.join(cwd, "declares20k.nc"))
    if not 3e6 < size < 8e6:
        fail(f"the crafted file has {size} bytes, not about 5 MB")
    out = os.path.join(cwd, "o_20k")
    cmds = [("convert info", [NC, "info", "declares20k.nc"]),
            ("convert to-csv", [NC, "to-csv", "declares20k.nc", "-o", out + ".csv"]),
            ("convert to-text", [NC, "to-text", "declares20k.nc", "-o", out + ".txt"]),
            ("cluster decompress", [CL, "decompress", "declares20k.nc", "-o", out]),
            ("cluster info", [CL, "info", "declares20k.nc"]),
            ("cluster groups", [CL, "groups", "declares20k.nc"]),
            ("analyze report", [AN, "report", "declares20k.nc", "--quiet"])]
    for name, cmd in cmds:
        limited = ["bash", "-c", 'ulimit -v 600000 && exec "$@"', "ulimit"] + cmd
        code, dt, err = run(limited, cwd)
        stats["runs"] += 1
        if code != 2 or len(err.strip().splitlines()) != 1 or "out of memory under" in err:  # not the bad_alloc net
            fail(f"{name} under ulimit -v 600 MB: exit {code}, want 2 and one line about the file: {err.strip()[:300]}")
        code, dt, rss, err = run_measured(cmd, cwd)
        stats["max_rss_kb"] = max(stats["max_rss_kb"], rss)
        stats["max_s"] = max(stats["max_s"], dt)
        if code != 2 or rss > 300_000 or dt > LIMIT_S:
            fail(f"{name}: exit {code}, {rss / 1e3:.0f} MB peak, {dt:.1f} s (want 2, < 300 MB): {err.strip()[:300]}")


def sweep(cwd, n, seed):
    valid = make_valid(cwd)
    rng = random.Random(seed)
    originals = {v: open(os.path.join(cwd, v), "rb").read() for v in valid}
    for i in range(n):
        src = valid[i % len(valid)]
        data = mutate(originals[src], rng, src.endswith(".txt"))
        name = f"m{i:05d}_" + src
        path = os.path.join(cwd, name)
        open(path, "wb").write(data)
        check_all(path, cwd, None, tag="mutant")
        for f in os.listdir(cwd):
            if f.startswith("o_" + name) or f.startswith(name):
                os.remove(os.path.join(cwd, f))
    print(f"sweep: {n} inputs (seed {seed}), {stats['runs']} runs; exit codes "
          f"{json.dumps(stats['codes'], sort_keys=True)}; slowest {stats['max_s']:.2f} s; "
          f"largest peak RSS {stats['max_rss_kb'] / 1e3:.0f} MB; failures {len(failures)}")


if __name__ == "__main__":
    cwd = os.path.join(WORK, MODE)
    shutil.rmtree(cwd, ignore_errors=True)
    os.makedirs(cwd)
    if MODE == "crafted":
        crafted(cwd)
        print(f"crafted: {stats['runs']} runs; exit codes {json.dumps(stats['codes'], sort_keys=True)}; "
              f"slowest {stats['max_s']:.2f} s; largest peak RSS {stats['max_rss_kb'] / 1e3:.0f} MB")
    elif MODE == "declared":
        declared(cwd)
        print(f"declared: {stats['runs']} runs; slowest {stats['max_s']:.2f} s; "
              f"largest peak RSS {stats['max_rss_kb'] / 1e3:.0f} MB")
    elif MODE == "sweep":
        sweep(cwd, int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit("unknown mode " + MODE)
    if failures:
        print(f"{len(failures)} failures", file=sys.stderr)
        sys.exit(1)
    print("inputs " + MODE + ": ok")
