#!/usr/bin/env python3
"""MPI tests of xsim's observation (docs/observability.md): traces (OTF2 read back with otf2-print, Chrome
JSON parsed), statistics files (checked against each other, against the run report and against exact
values), identical results for 1 and 2 native processes, trace spilling, the communication matrix per node
and per rank block, waiting time, pictures, the progress line and xsimrun. Each subcommand is one test; it
prints what it checked and exits non-zero on the first mismatch.

  observe.py trace-stats  EXAMPLES OUT
  observe.py spill        EXAMPLES OUT
  observe.py matrix       EXAMPLES OUT
  observe.py wait         PROGRAM OUT
  observe.py plots        EXAMPLES TOOLS OUT
  observe.py progress     EXAMPLES OUT
  observe.py xsimrun      EXAMPLES TOOLS OUT
Environment: MPIEXEC (default mpiexec.hydra), OTF2_PRINT (default otf2-print).
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

MPIEXEC = os.environ.get("MPIEXEC", "mpiexec.hydra")
OTF2_PRINT = os.environ.get("OTF2_PRINT", "otf2-print")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    print("ok: " + msg)


def run(cmd, env=None, expect_rc=0, timeout=600):
    print("$ " + " ".join(cmd))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=timeout)
    if expect_rc is not None and p.returncode != expect_rc:
        print(p.stdout[-3000:])
        print(p.stderr[-3000:])
        fail("exit code %d, expected %d: %s" % (p.returncode, expect_rc, " ".join(cmd)))
    return p


def fresh(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def report_messages(stderr):
    m = re.search(r"xsim: messages +(\d+) \((\d+) B of payload\)", stderr)
    if not m:
        fail("no message count in the run report:\n" + stderr[-2000:])
    return int(m.group(1)), int(m.group(2))


def otf2_counts(anchor):
    if not shutil.which(OTF2_PRINT):
        fail("%s not found (Debian package otf2-tools; scripts/install-deps.sh installs it)" % OTF2_PRINT)
    p = run([OTF2_PRINT, anchor])
    counts, lines = {}, []
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1].isdigit() and parts[2].isdigit():
            counts[parts[0]] = counts.get(parts[0], 0) + 1
            lines.append(line)
    check(p.stderr.strip() == "", "otf2-print reads %s without complaint" % anchor)
    return counts, sorted(lines)


def chrome_counts(path):
    with open(path) as f:
        data = json.load(f)  # must be valid JSON
    counts = {}
    for e in data["traceEvents"]:
        counts[e["ph"]] = counts.get(e["ph"], 0) + 1
    return data, counts


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def matrix_total(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return sum(int(v) for r in rows[1:] for v in r[1:]), rows


# ---- tests ----------------------------------------------------------------------------------------------

def trace_stats(examples, out):
    """ring, 8 ranks, 4 rounds: 32 ring messages of 4 bytes and a 7-message binomial MPI_Reduce of one
    double; every rank makes 9 MPI calls (Init, Comm_rank, Comm_size, 4 x Sendrecv, Reduce, Finalize)."""
    ranks, rounds = 8, 4
    calls = ranks * (rounds + 5)
    messages = ranks * rounds + (ranks - 1)
    payload = ranks * rounds * 4 + (ranks - 1) * 8
    results = {}
    for n in (1, 2):
        d = fresh(os.path.join(out, "n%d" % n))
        base = os.path.join(d, "ring")
        p = run([MPIEXEC, "-np", str(n), os.path.join(examples, "ring"), str(rounds), "-xsim-np", str(ranks),
                 "-xsim-cpu", "none", "-xsim-trace", base, "-xsim-stats", base])
        check("ring: virtual time 0.000200128" in p.stdout, "N=%d: ring's own timing is unchanged" % n)
        msgs, bytes_ = report_messages(p.stderr)
        check((msgs, bytes_) == (messages, payload), "N=%d: report says %d messages, %d B" % (n, msgs, bytes_))
        check("xsim: trace: %s.otf2 (%d events)" % (base, 2 * calls + 2 * messages + 2 * ranks) in p.stderr,
              "N=%d: the run names the trace and its event count" % n)
        # OTF2
        counts, lines = otf2_counts(base + ".otf2")
        expect = {"ENTER": calls, "LEAVE": calls, "MPI_SEND": messages, "MPI_RECV": messages,
                  "MPI_COLLECTIVE_BEGIN": ranks, "MPI_COLLECTIVE_END": ranks}
        check(counts == expect, "N=%d: OTF2 events %s" % (n, counts))
        g = run([OTF2_PRINT, "-G", base + ".otf2"]).stdout
        check(len(re.findall(r"^LOCATION ", g, re.M)) == ranks, "N=%d: one OTF2 location per rank" % n)
        check("Ticks per Seconds: 1000000000000" in g, "N=%d: OTF2 clock in picoseconds" % n)
        check('"MPI_COMM_WORLD"' in g and "COMM_LOCATIONS" in g, "N=%d: MPI communicator definitions" % n)
        # Chrome JSON
        data, ph = chrome_counts(base + ".json")
        check(ph.get("X") == calls and ph.get("s") == messages and ph.get("f") == messages,
              "N=%d: Chrome JSON has %s" % (n, ph))
        sr = [e for e in data["traceEvents"] if e.get("name") == "MPI_Sendrecv"]
        check(all(abs(e["dur"] - 50.032) < 1e-9 for e in sr), "N=%d: every MPI_Sendrecv lasts 50.032 us" % n)
        ids_s = sorted(e["id"] for e in data["traceEvents"] if e["ph"] == "s")
        ids_f = sorted(e["id"] for e in data["traceEvents"] if e["ph"] == "f")
        check(ids_s == ids_f and len(set(ids_s)) == messages, "N=%d: every message flow starts and ends once" % n)
        # statistics
        rk = read_csv(base + ".ranks.csv")
        fn = read_csv(base + ".functions.csv")
        total, _ = matrix_total(base + ".matrix.csv")
        check(len(rk) == ranks, "N=%d: one row per rank" % n)
        check(total == payload == sum(int(r["bytes_sent"]) for r in rk) == sum(int(r["bytes_received"]) for r in rk)
              == sum(int(f["bytes_sent"]) for f in fn),
              "N=%d: matrix total = bytes sent = bytes received = per-function bytes = report (%d B)" % (n, payload))
        check(sum(int(f["calls"]) for f in fn) == calls, "N=%d: %d calls in the functions table" % (n, calls))
        sendrecv = next(f for f in fn if f["function"] == "MPI_Sendrecv")
        check(sendrecv["time_s"] == "0.001601024000" and sendrecv["calls"] == "32" and sendrecv["ranks"] == "8",
              "N=%d: MPI_Sendrecv: 32 calls, 1.601024 ms (32 x 50.032 us)" % n)
        r0 = rk[0]
        check(r0["finish_s"] == "0.000350320000" and r0["mpi_s"] == "0.000350320000" and r0["calls"] == "9",
              "N=%d: rank 0 ends at 350.32 us after 9 calls" % n)
        for r in rk:
            c, m, w, t = (float(r[k]) for k in ("compute_s", "communication_s", "wait_s", "finish_s"))
            if abs(c + m + w - t) > 1e-12:
                fail("rank %s: compute + communication + wait != finish" % r["rank"])
        for name in ("ranks.json", "functions.json", "matrix.json"):
            with open(base + "." + name) as f:
                json.load(f)
        with open(base + ".ranks.json") as f:
            js = json.load(f)
        check(js["totals"]["bytes"] == payload and len(js["ranks"]) == ranks, "N=%d: ranks.json rows and totals" % n)
        results[n] = (lines, {name: open(base + "." + name).read() for name in
                              ("ranks.csv", "ranks.json", "functions.csv", "functions.json", "matrix.csv", "matrix.json")})
    check(results[1][1] == results[2][1], "statistics files are identical for N=1 and N=2")
    check(results[1][0] == results[2][0], "OTF2 events are identical for N=1 and N=2")


def spill(examples, out):
    """A buffer of 4 KiB per process: the events go to spill files many times and still come back whole."""
    ranks, rounds = 64, 64
    calls = ranks * (rounds + 5)
    messages = ranks * rounds + (ranks - 1)
    d = fresh(out)
    base = os.path.join(d, "spilled")
    p = run([MPIEXEC, "-np", "2", os.path.join(examples, "ring"), str(rounds), "-xsim-np", str(ranks), "-xsim-cpu",
             "none", "-xsim-trace", base, "-xsim-trace-buffer", "4K", "-xsim-report", "off"])
    m = re.search(r"; (\d+) spills to disk", p.stderr)
    check(m and int(m.group(1)) > 100, "events were spilled to disk (%s times)" % (m.group(1) if m else "no"))
    counts, _ = otf2_counts(base + ".otf2")
    check(counts.get("ENTER") == calls and counts.get("MPI_SEND") == messages and counts.get("MPI_RECV") == messages,
          "spilled OTF2 trace complete: %s" % counts)
    _, ph = chrome_counts(base + ".json")
    check(ph.get("X") == calls and ph.get("s") == messages, "spilled Chrome trace complete: %s" % ph)
    check(not [f for f in os.listdir(d) if "xsim-spill" in f], "no spill file left behind")


def matrix(examples, out):
    """1,024 ranks on 512 dual-core nodes: the matrix per node (limit 512) or per block of 4 ranks (256)."""
    ranks, rounds = 1024, 3
    payload = ranks * rounds * 4 + (ranks - 1) * 8
    d = fresh(out)
    net = "torus:8x8x8:lat=7us:bw=8.8Gbps/star:2:lat=0.32us:bw=9.6Gbps"
    for limit, unit, cells in ((512, "node", 512), (256, "ranks", 256)):
        base = os.path.join(d, "m%d" % limit)
        run([MPIEXEC, "-np", "2", os.path.join(examples, "ring"), str(rounds), "-xsim-np", str(ranks), "-xsim-cpu",
             "none", "-xsim-mn", net, "-xsim-stats", base, "-xsim-stats-matrix", str(limit), "-xsim-report", "off"])
        total, rows = matrix_total(base + ".matrix.csv")
        check(rows[0][0] == unit and len(rows) == cells + 1 and len(rows[1]) == cells + 1,
              "limit %d: %d x %d matrix per %s" % (limit, cells, cells, unit))
        check(total == payload, "limit %d: matrix total %d B = payload" % (limit, total))
        if unit == "node":  # ring: each node sends its second core's token to the next node
            v = [[int(x) for x in r[1:]] for r in rows[1:]]
            check(v[0][1] == rounds * 4 and v[511][0] == rounds * 4, "node 0 -> node 1 and node 511 -> node 0 carry the ring")
        else:
            check(rows[1][0] == "0-3" and rows[256][0] == "1020-1023", "rank blocks labelled 0-3 ... 1020-1023")


def wait(program, out):
    """Rank 0 computes 1 ms (xsim_compute) before sending 4 bytes to rank 1, which is already waiting:
    rank 1 waits 1 ms for its peer, then watches the message travel 50.032 us (2 x 25 us + 32 bit / 1 Gbps)."""
    d = fresh(out)
    base = os.path.join(d, "imbalance")
    for n in (1, 2):
        run([MPIEXEC, "-np", str(n), program, "-xsim-np", "2", "-xsim-cpu", "none", "-xsim-stats", base,
             "-xsim-report", "off"])
        rk = read_csv(base + ".ranks.csv")
        check(rk[0]["compute_s"] == "0.001000000000" and rk[0]["wait_s"] == "0.000000000000",
              "N=%d: rank 0 computed 1 ms and never waited" % n)
        check(rk[1]["wait_s"] == "0.001000000000" and rk[1]["communication_s"] == "0.000050032000"
              and rk[1]["finish_s"] == "0.001050032000",
              "N=%d: rank 1 waited 1 ms for its peer and communicated 50.032 us" % n)
        fn = {f["function"]: f for f in read_csv(base + ".functions.csv")}
        check(fn["MPI_Recv"]["wait_s"] == "0.001000000000" and fn["MPI_Recv"]["communication_s"] == "0.000050032000",
              "N=%d: the wait belongs to MPI_Recv" % n)


def is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n"


def is_svg(path):
    root = ET.parse(path).getroot()  # must be well-formed XML
    return root.tag.endswith("svg") and len(list(root.iter())) > 50


def plots(examples, tools, out):
    d = fresh(out)
    base = os.path.join(d, "ring")
    run([MPIEXEC, "-np", "2", os.path.join(examples, "ring"), "16", "-xsim-np", "32", "-xsim-cpu", "none",
         "-xsim-trace", base, "-xsim-stats", base, "-xsim-report", "off"])
    plot = os.path.join(tools, "xsim-plot")
    run([plot, "all", base, "-o", os.path.join(d, "svg")])
    run([plot, "all", base, "-o", os.path.join(d, "png"), "--format", "png"])
    for kind in ("timeline", "matrix", "ranks", "functions"):
        svg = os.path.join(d, "svg", "ring.%s.svg" % kind)
        png = os.path.join(d, "png", "ring.%s.png" % kind)
        check(os.path.exists(svg) and is_svg(svg), "%s: well-formed SVG" % svg)
        check(os.path.exists(png) and is_png(png) and os.path.getsize(png) > 5000, "%s: PNG" % png)
    w = os.path.join(d, "window.svg")
    run([plot, "timeline", base + ".json", "-o", w, "--start", "100", "--end", "300", "--ranks", "0-7"])
    check(is_svg(w), "a window of the timeline (100-300 us, ranks 0-7)")
    bad = run([plot, "matrix", base + ".nothing.csv", "-o", os.path.join(d, "x.svg")], expect_rc=None)
    check(bad.returncode != 0 and "cannot read" in bad.stderr, "a missing input is reported")


def progress(examples, out):
    ring = [os.path.join(examples, "ring"), "100", "-xsim-np", "16384", "-xsim-cpu", "none", "-xsim-report", "off"]
    p = run([MPIEXEC, "-np", "2"] + ring + ["-xsim-progress", "on"])
    lines = [l for l in p.stderr.splitlines() if l.startswith("xsim: progress: virtual time")]
    check(len(lines) >= 1, "-xsim-progress on prints progress lines (%d)" % len(lines))
    check(re.search(r"ranks finished \d+/16384 \| \d+ messages \| [0-9.e+]+ messages/s \| host time", lines[0]),
          "the line has virtual time, ranks finished, messages and messages/s: " + lines[0])
    # 100 rounds of 16,384 messages, then the result's reduction to rank 0 (16,383 messages)
    check(re.search(r"ranks finished 16384/16384 \| 1654783 messages \|", lines[-1]),
          "the last line has the final numbers of both processes: " + lines[-1])
    p = run([MPIEXEC, "-np", "1"] + ring)
    check("progress" not in p.stderr, "auto: no progress line when stderr is not a terminal")
    if shutil.which("script"):
        # a terminal gets no line before the first half second (and none left after the run): a run of
        # ~16 M messages lasts seconds here, long enough on a machine several times faster
        long_ring = [ring[0], "1000"] + ring[2:]
        cmd = " ".join([MPIEXEC, "-np", "1"] + long_ring)
        p = run(["script", "-qec", cmd, "/dev/null"])
        check("xsim: progress: virtual time" in p.stdout and "\x1b[K" in p.stdout,
              "auto: progress line (rewritten in place) on a terminal")


def xsimrun(examples, tools, out):
    x = os.path.join(tools, "xsimrun")
    p = run([x, "--help"])
    for opt in ("--vp M", "--net SPEC", "-xsim-np M", "-xsim-trace FILE", "-xsim-progress auto|on|off", "default: ethernet"):
        check(opt in p.stdout, "xsimrun --help lists %s" % opt)
    # the plain binary (not linked with xsim) under 2 native processes; exact time from the network model
    p = run([x, "-np", "2", "--vp", "64", "--net", "star:lat=1us:bw=10Gbps", "--cpu", "none", "--report=off",
             os.path.join(examples, "ring_plain"), "100"])
    check("ring: virtual time 0.000200320" in p.stdout, "xsimrun --vp 64 --net star:lat=1us:bw=10Gbps: 100 hops of 2.0032 us")
    p = run([x, "-np", "2", "--vp", "512", "--net", "torus:8x8x8:lat=1us:bw=10Gbps", "--cpu=none", "--report", "off",
             os.path.join(examples, "ring_plain"), "10"])
    check(re.search(r"ring: 512 ranks, 10 rounds, 5120 messages ok", p.stdout), "xsimrun on a torus: " + p.stdout.strip())
    d = fresh(out)
    p = run([x, "--vp", "8", "--cpu", "none", "--stats", os.path.join(d, "s"), "--report", "off",
             os.path.join(examples, "ring"), "4"])  # linked with xsim already: not preloaded twice
    check(os.path.exists(os.path.join(d, "s.ranks.csv")), "xsimrun passes --stats; an xsim-linked program runs too")
    p = run([x, "--dry-run", "-np", "3", "--vp", "9", "./prog", "a", "b"])
    check(re.search(r"-np 3 .*LD_PRELOAD[ =].*libxsim(-openmpi)?\.so.* \./prog a b -xsim-np=9", p.stdout), "dry run: " + p.stdout.strip())
    bad = run([x, "--vq", "8", "./prog"], expect_rc=2)
    check("unknown option --vq" in bad.stderr, "an unknown option is refused before anything runs")


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        sys.exit(2)
    cmd, args = sys.argv[1], sys.argv[2:]
    tests = {"trace-stats": trace_stats, "spill": spill, "matrix": matrix, "wait": wait, "plots": plots,
             "progress": progress, "xsimrun": xsimrun}
    if cmd not in tests:
        print(__doc__)
        sys.exit(2)
    tests[cmd](*args)
    print("PASS")


if __name__ == "__main__":
    main()
