#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Socket reads' flows against sockcheck's own log (sockets.sh).

Usage: check-socks.py FLOWS PCLOG PID OTHER KIND

FLOWS is a copy of `flows`, PCLOG sockcheck's log (syscall pos queued ret
t0 t1, queued the FIONREAD answer before a socket read, the page's
residency before a file read), PID the followed sockcheck, OTHER one that
was not followed, KIND the socket kind `flows` should name. Prints one
line of counts:

  flows log matched sock_wrong state_off ready waited unk layers_bad
  file_rows file_bad other_rows

matched: flows in the log's order with its syscall and return value;
state_off: socket reads whose state disagrees with FIONREAD (READY when
data was queued, WAITED when none was: a segment may land between the
ioctl and the read); layers_bad: socket reads without a SOCK time, with
a TCP time on another kind than TCP (or without one on TCP), or with a
wait time and not WAITED (or the reverse); file_bad: file reads of the
same process with a socket column, or another state than HIT, MISS,
PARTIAL.
"""
import sys

flows_f, log_f, pid, other, kind = sys.argv[1:]
lines = open(flows_f).read().split("\n")
col = {n: i for i, n in enumerate(lines[0].split())}
rows = [t for t in (l.split() for l in lines[1:] if l) if t]
mine = [t for t in rows if t[col["tgid"]] == pid]
others = sum(1 for t in rows if t[col["tgid"]] == other)
truth = [l.split() for l in open(log_f)]
matched = sock_wrong = state_off = layers_bad = file_rows = file_bad = 0
states = {"READY": 0, "WAITED": 0, "UNK": 0}
tcp = kind.startswith("tcp")
for d, t in zip(mine, truth):
    if (d[col["syscall"]], d[col["ret"]]) != (t[0], t[3]):
        continue
    matched += 1
    state = d[col["cache"]]
    if t[0] == "pread64":
        file_rows += 1
        file_bad += d[col["sock"]] != "-" or state not in ("HIT", "MISS", "PARTIAL")
        continue
    sock_wrong += d[col["sock"]] != kind
    if state in states:
        states[state] += 1
    want = "READY" if int(t[2]) > 0 else "WAITED"
    state_off += state != want
    waited = d[col["wait_ns"]] != "-"
    layers_bad += (d[col["sock_ns"]] == "-" or (d[col["tcp_ns"]] != "-") != tcp or
                   waited != (state == "WAITED"))
print(len(mine), len(truth), matched, sock_wrong, state_off, states["READY"], states["WAITED"],
      states["UNK"], layers_bad, file_rows, file_bad, others)
