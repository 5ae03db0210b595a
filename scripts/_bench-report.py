#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one benchmark boot's console log (tests/vm/bench.sh) into a report.

Usage: _bench-report.py CONSOLE_LOG OUT_BASE

Writes OUT_BASE-runs.csv (every run) and OUT_BASE.json (the summary),
prints the table. With instruction counts (a boot under run-vm -I) the
table is in guest instructions per read, kernel and user together and the
kernel's alone, each tracer's added count against "none" paired by round,
and the spread over rounds; otherwise in emulated time. Exits 1 when there
were no runs, a run failed, or a tracer saw fewer reads than fio made.
"""
import csv
import json
import statistics
import sys

log, base = sys.argv[1], sys.argv[2]
runs, info, fails, misses, notes = [], "", [], {}, []
for line in open(log, errors="replace"):
    f = line.split()
    if f[:1] == ["BENCH_MISSES"] and len(f) == 5 and f[4].isdigit():
        misses[(f[1], f[2], f[3])] = int(f[4])
for line in open(log, errors="replace"):
    f = line.split()
    if not f:
        continue
    if f[0] == "BENCH_INFO":
        info = " ".join(f[1:])
    elif f[0] == "BENCH_FAIL":
        fails.append(" ".join(f[1:]))
    elif f[0] == "BENCH" and len(f) == 11:
        w, t, r, reads, secs, att, mem, seen, kins, uins = f[1:]
        runs.append(dict(workload=w, tracer=t, round=int(r), reads=int(reads),
                         seconds=float(secs), attach_s=float(att), mem_kb=int(mem),
                         seen=None if seen == "-" else int(seen),
                         kernel_insns=None if kins == "-" else int(kins),
                         user_insns=None if uins == "-" else int(uins)))
        # A tracer that saw fewer reads than fio did measured nothing useful,
        # unless it counted what it lost: the libbpf twin's runs that BPF's
        # recursion guard skipped (two threads on one CPU, 7.x), shown.
        lost = misses.get((w, t, r), 0)
        if seen != "-" and int(seen) < int(reads):
            if int(seen) + lost >= int(reads):
                notes.append("%s %s round %s: saw %s of %s reads; BPF skipped %d of its "
                             "sys_enter/sys_exit runs (recursion guard)" % (w, t, r, seen, reads, lost))
            else:
                fails.append("%s %s round %s: the tracer saw %s of %s reads" % (w, t, r, seen, reads))
# A counting boot whose runs lack counts, or count nothing, measured nothing.
if "counting 1" in info:
    for r in runs:
        if not r["kernel_insns"] or not r["user_insns"] or r["kernel_insns"] < 0:
            fails.append("%s %s round %s: no instruction counts" % (
                r["workload"], r["tracer"], r["round"]))
if not runs or fails:
    sys.exit("bench: no runs, or failed runs: %s" % fails)
with open(base + "-runs.csv", "w", newline="") as fh:
    wr = csv.DictWriter(fh, fieldnames=list(runs[0]))
    wr.writeheader()
    wr.writerows(runs)

counting = all(r["kernel_insns"] is not None for r in runs)
by = {}
for r in runs:
    n = max(r["reads"], 1)
    r["ns_per_read"] = r["seconds"] * 1e9 / n
    if counting:
        r["insns_per_read"] = (r["kernel_insns"] + r["user_insns"]) / n
        r["kernel_per_read"] = r["kernel_insns"] / n
    by.setdefault(r["workload"], {}).setdefault(r["tracer"], {})[r["round"]] = r


def spread(v):
    """(max - min) / median, in percent."""
    m = statistics.median(v)
    return (max(v) - min(v)) / m * 100 if m else float("inf")


def added(rounds, none, key):
    """Per round: this tracer's value minus none's of the same round."""
    return [r[key] - none[k][key] for k, r in sorted(rounds.items()) if k in none]


report = {"info": info, "counting": counting, "workloads": {}}
print("\n%s" % info)
if counting:
    print("guest instructions per read (kernel + user; kernel alone), medians over rounds;"
          " added: against none in the same round")
    print("%-12s %-16s %10s %7s %10s %10s %15s %10s %8s %8s" % (
        "workload", "tracer", "insn/read", "spread", "kern/read", "added", "added min-max",
        "added kern", "attach s", "mem KiB"))
else:
    print("emulated time: only ratios within this boot mean something")
    print("%-12s %-16s %9s %13s %12s %11s %9s %8s" % (
        "workload", "tracer", "IOPS", "spread", "ns/read", "added ns", "attach s", "mem KiB"))
for w, tracers in by.items():
    none = tracers.get("none", {})
    rw = report["workloads"][w] = {}
    for t, rounds in tracers.items():
        v = list(rounds.values())
        e = rw[t] = dict(rounds=len(v), attach_s=statistics.median(x["attach_s"] for x in v),
                         mem_kb=statistics.median(x["mem_kb"] for x in v),
                         ns_per_read=statistics.median(x["ns_per_read"] for x in v))
        a_ns = added(rounds, none, "ns_per_read") if none else []
        e["added_ns_per_read"] = statistics.median(a_ns) if a_ns else None
        if counting:
            ipr = [x["insns_per_read"] for x in v]
            e.update(insns_per_read=statistics.median(ipr), spread_pct=spread(ipr),
                     kernel_per_read=statistics.median(x["kernel_per_read"] for x in v))
            a = added(rounds, none, "insns_per_read") if none else []
            ak = added(rounds, none, "kernel_per_read") if none else []
            e["added_per_read"] = statistics.median(a) if a else None
            e["added_min"], e["added_max"] = (min(a), max(a)) if a else (None, None)
            e["added_kernel_per_read"] = statistics.median(ak) if ak else None
            print("%-12s %-16s %10.0f %6.2f%% %10.0f %10s %15s %10s %8.2f %8.0f" % (
                w, t, e["insns_per_read"], e["spread_pct"], e["kernel_per_read"],
                "-" if t == "none" or not a else "%.0f" % e["added_per_read"],
                "-" if t == "none" or not a else "%.0f-%.0f" % (min(a), max(a)),
                "-" if t == "none" or not ak else "%.0f" % e["added_kernel_per_read"],
                e["attach_s"], e["mem_kb"]))
        else:
            iops = [x["reads"] / x["seconds"] if x["seconds"] else 0 for x in v]
            e.update(iops_median=statistics.median(iops), iops_min=min(iops), iops_max=max(iops))
            print("%-12s %-16s %9.0f %6.0f-%-6.0f %12.0f %11s %9.2f %8.0f" % (
                w, t, e["iops_median"], min(iops), max(iops), e["ns_per_read"],
                "-" if e["added_ns_per_read"] is None or t == "none"
                else "%.0f" % e["added_ns_per_read"], e["attach_s"], e["mem_kb"]))
    key = "added_per_read" if counting else "added_ns_per_read"
    # a/b: how many times what a adds is what b adds. "handlers" is the
    # module's own work: iolayers minus its floor, against the floor.
    pairs = [("libbpf", "iolayers"), ("libbpf-rcv", "iolayers-rcv"),
             ("libbpf-floor", "floor"), ("libbpf", "libbpf-floor"),
             ("libbpf-stream", "iolayers-stream"),
             ("bpftrace", "iolayers"), ("bpftrace-fast", "iolayers"), ("bpftrace", "bpftrace-fast"),
             ("iolayers", "floor"), ("bpftrace", "bpftrace-floor"),
             ("bpftrace-fast", "bpftrace-floor"), ("badcase", "iolayers"),
             ("bpftrace-stream", "iolayers-stream"), ("iolayers", "iolayers-noflows"),
             ("floor", "fprobe-floor")]
    for a, b in pairs:
        # The bpftrace twins time the TCP receive path always: on socket
        # reads they are the module's rcv=1 twins.
        if w == "tcp" and a.startswith("bpftrace") and b == "iolayers":
            b = "iolayers-rcv"
        if a not in rw or b not in rw or rw[a].get(key) is None or rw[b].get(key) is None:
            continue
        x, y = rw[a][key], rw[b][key]
        if x <= 0 or y <= 0:
            print("%-12s %s/%s: not measurable (added %.0f, %.0f)" % (w, a, b, x, y))
            continue
        rw["%s/%s" % (a, b)] = x / y
        print("%-12s added %s / added %s = %.2f" % (w, a, b, x / y))
    if counting and "iolayers" in rw and "floor" in rw and rw["floor"].get(key):
        h = rw["iolayers"][key] - rw["floor"][key]
        rw["handlers_per_read"] = h
        print("%-12s iolayers' handlers (iolayers - floor) = %.0f insn/read = %.2f x floor" % (
            w, h, h / rw["floor"][key]))
    # What each read's record costs (the ring buffer), and a reader of it.
    for a, b, what in (("iolayers-rcv", "iolayers", "the receive path (rcv=1)"),
                       ("libbpf-rcv", "libbpf", "the twin's receive path (-r)"),
                       ("iolayers", "iolayers-noflows", "the records (nobody reading)"),
                       ("iolayers-stream", "iolayers", "a stream reader (iolayers record)"),
                       ("libbpf-stream", "libbpf", "the libbpf twin's consumer"),
                       ("bpftrace-stream", "bpftrace", "the twin's printf per read")):
        if a in rw and b in rw and rw[a].get(key) is not None and rw[b].get(key) is not None:
            rw["%s-%s" % (a, b)] = rw[a][key] - rw[b][key]
            print("%-12s %s: %s - %s = %.0f per read" % (w, what, a, b,
                                                       rw[a][key] - rw[b][key]))
json.dump(report, open(base + ".json", "w"), indent=1)
for n in notes:
    print("note: " + n)
print("runs: %s-runs.csv, summary: %s.json" % (base, base))
