#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The layers' clock against the reading program's (stream.sh, icount.sh, sockets.sh).

Usage: check-times.py EVENTS PCLOG PID

EVENTS is what a reader of stream/events got, PCLOG preadcheck's log
(PC_LOG: syscall offset resident ret t0 t1, t0 and t1 its CLOCK_MONOTONIC
just before and just after the call), PID preadcheck's. For each read of
the program that the stream has in its place (same syscall, offset and
return value), its start (start_ns) and end (start_ns + syscall_ns) lie
between t0 and t1 (SLACK ns either side: the module's end is its TSC
stamp converted from its CPU's anchor, whose TSC is the midpoint of two
TSC reads at most 8192 cycles apart around its clock read (2048 mostly),
so the start is sys_enter's to within 4096 cycles, 1.4 us at 3 GHz; a
guest has no NTP to slew its clock over the anchor's span), and the
VFS and FS parts (*_off
plus *_ns) inside the syscall's time, and so the SOCK and TCP parts of a
socket read (sockets.sh, whose sockcheck writes the same log). Prints: compared outside worst
nested (worst: the largest excess in ns, negative when every read was
inside by that much).
"""
import sys

SLACK = 2000

evf, logf, pid = sys.argv[1:]
lines = open(evf).read().split("\n")
col = {n: i for i, n in enumerate(lines[0].split())}
mine = [t for t in (l.split() for l in lines[1:] if l and not l.startswith("#"))
        if t[col["tid"]] == pid]
truth = [l.split() for l in open(logf)]
compared = outside = nested = 0
worst = None
for d, t in zip(mine, truth):
    if (d[col["syscall"]], d[col["pos"]], d[col["ret"]]) != (t[0], t[1], t[3]):
        continue
    compared += 1
    start, sys_ns = int(d[col["start_ns"]]), int(d[col["syscall_ns"]])
    excess = max(int(t[4]) - start, start + sys_ns - int(t[5]))
    outside += excess > SLACK
    worst = excess if worst is None else max(worst, excess)
    for part, off in (("vfs_ns", "vfs_off"), ("fs_ns", "fs_off"), ("sock_ns", "sock_off"),
                      ("tcp_ns", "tcp_off")):
        if part in col and d[col[part]] != "-" and not (0 <= int(d[col[off]]) and
                                        int(d[col[off]]) + int(d[col[part]]) <= sys_ns + SLACK):
            nested += 1
print(compared, outside, "-" if worst is None else worst, nested)
