#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest instructions per read by function, for make profile.

Usage: _profile-report.py DIR [TOP]

DIR holds console.log (PROFILE_RUN tracer reads first last), profile (the
tools/icount plugin's per block address counts, a section per marker) and
kallsyms-TRACER (the guest's symbols while that tracer was attached).
Prints, per tracer, its instructions per read against the untraced run,
by kernel function (kernel symbols, [module] names, bpf programs; the
plugin counts user space in its totals only), the TOP functions whose count grew the most, and the shares of
iolayers' own code, the probe machinery and the rest.
"""
import bisect
import collections
import os
import sys

d = sys.argv[1]
top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
runs = []
for line in open(os.path.join(d, "console.log"), errors="replace"):
    f = line.split()
    if len(f) == 5 and f[0] == "PROFILE_RUN":
        runs.append((f[1], int(f[2]), int(f[3]), int(f[4])))
if not runs:
    sys.exit("profile: no PROFILE_RUN in the console log")

# Per marker: {pc: instructions executed since the previous marker}.
sections = {}
cur = None
for line in open(os.path.join(d, "profile")):
    f = line.split()
    if f[0] == "M":
        cur = sections.setdefault(int(f[1]), {})
    else:
        cur[int(f[0], 16)] = int(f[1])


def symbols(tracer):
    addrs, names = [], []
    for line in open(os.path.join(d, "kallsyms-" + tracer)):
        f = line.split()
        if len(f) < 3 or f[1] not in "tTwW":
            continue
        a = int(f[0], 16)
        if not a:
            continue
        addrs.append(a)
        names.append(f[2] + (" " + f[3] if len(f) > 3 else ""))
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def by_function(tracer, reads, first, last):
    addrs, names = symbols(tracer)
    out = collections.Counter()
    for seq in range(first + 1, last + 1):
        for pc, n in sections.get(seq, {}).items():
            i = bisect.bisect_right(addrs, pc) - 1
            out[names[i] if i >= 0 else "?"] += n
    return {k: v / reads for k, v in out.items()}


MECH = ("kprobe", "kretprobe", "rethook", "ftrace", "trampoline", "__traceiter", "tracepoint",
        "int3", "__bpf_prog_enter", "__bpf_prog_exit", "bpf_trampoline", "perf_trace",
        "trace_call_bpf", "bpf_trace_run", "__bpf_trace")
prof = {t: by_function(t, n, a, b) for t, n, a, b in runs}
base = prof.get("none", {})
for t, n, a, b in runs:
    if t == "none":
        print("none: %.0f instructions per read (%d reads)" % (sum(base.values()), n))
        continue
    p = prof[t]
    diff = {k: p.get(k, 0) - base.get(k, 0) for k in set(p) | set(base)}
    total = sum(diff.values())
    share = collections.Counter()
    for k, v in diff.items():
        if "[iolayers" in k:
            share["iolayers module"] += v
        elif "[bpf]" in k:
            share["bpf programs"] += v
        elif any(m in k for m in MECH):
            share["probe machinery"] += v
        else:
            share["rest of the kernel"] += v
    print("\n%s: adds %.0f instructions per read (%d reads); %s" % (
        t, total, n, ", ".join("%s %.0f" % kv for kv in sorted(share.items()))))
    print("  %10s  %s" % ("insn/read", "function (growth against none)"))
    for k, v in sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:top]:
        print("  %10.1f  %s" % (v, k))
