#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-perfetto.py TRACE [READS]: the rules of Chrome's JSON trace-event
format that Perfetto's importer relies on, checked on iolayers --perfetto's
output: it parses; every complete slice (X) has a name, a pid, a tid, a time
and a duration of at least 0; on each thread's track the slices nest (each
inside the one it starts in, or after its end); every async slice's begin
(b) has its end (e) with the same category, id and name, later, and the
slices of one id nest; every flow (s, f) id has one start and one end, the
start inside a slice of its thread at that time and the end inside a slice
of its own; every track with slices is named (M). With READS, the reads
(slices and async slices carrying an id in their args) are READS, each once.
Prints what it found; exits 1 on the first rule broken."""
import collections
import json
import sys

EPS = 1e-6  # microseconds: times are printed to the nanosecond


def fail(msg):
    print("check-perfetto: " + msg)
    sys.exit(1)


trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"]
by_track = collections.defaultdict(list)
asyncs = collections.defaultdict(list)
flows = collections.defaultdict(list)
named = set()
ids = collections.Counter()
for e in events:
    ph = e.get("ph")
    if ph == "M":
        named.add((e["pid"], e["tid"] if e["name"] == "thread_name" else None))
        continue
    if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int) or \
            not isinstance(e.get("ts"), (int, float)) or not isinstance(e.get("name"), str):
        fail("an event without its pid, tid, ts or name: %r" % e)
    if ph == "X":
        if e["dur"] < 0:
            fail("a slice of negative duration: %r" % e)
        by_track[(e["pid"], e["tid"])].append(e)
    elif ph in ("b", "e"):
        asyncs[(e["cat"], e["id"], e["pid"])].append(e)
    elif ph in ("s", "f"):
        flows[e["id"]].append(e)
    elif ph == "i":
        continue
    else:
        fail("an event of an unknown phase: %r" % e)
    if ph in ("X", "b") and "id" in e.get("args", {}) and e.get("pid") < 0x7ffffff0:
        ids[e["args"]["id"]] += 1

# Each track: the slices nest.
for track, sl in by_track.items():
    if (track[0], track[1]) not in named or (track[0], None) not in named:
        fail("track %r not named" % (track,))
    sl.sort(key=lambda e: (e["ts"], -e["dur"]))
    stack = []
    for e in sl:
        while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"] + EPS:
            stack.pop()
        if stack and e["ts"] + e["dur"] > stack[-1]["ts"] + stack[-1]["dur"] + EPS:
            fail("on %r, %r overlaps %r without nesting" % (track, e, stack[-1]))
        stack.append(e)

# Async slices: begins and ends by (category, id), nested per id.
for key, evs in asyncs.items():
    stack = []
    for e in sorted(evs, key=lambda e: (e["ts"], e["ph"] == "b")):
        if e["ph"] == "b":
            stack.append(e)
        else:
            if not stack or stack[-1]["name"] != e["name"]:
                fail("async end %r without its begin" % e)
            stack.pop()
    if stack:
        fail("async begin %r without its end" % stack[-1])


def inside(track, ts):
    return any(s["ts"] - EPS <= ts <= s["ts"] + s["dur"] + EPS for s in by_track.get(track, []))


for fid, evs in flows.items():
    kinds = sorted(e["ph"] for e in evs)
    if kinds != ["f", "s"]:
        fail("flow %s has %r" % (fid, kinds))
    for e in evs:
        if not inside((e["pid"], e["tid"]), e["ts"]):
            fail("flow %s's %s is in no slice of its track" % (fid, e["ph"]))

reads = len(ids)
if any(n != 1 for n in ids.values()):
    fail("a read shown twice: %r" % [i for i, n in ids.items() if n != 1][:5])
if len(sys.argv) > 2 and reads != int(sys.argv[2]):
    fail("%d reads, not %s" % (reads, sys.argv[2]))
print("check-perfetto: %d events, %d tracks of slices, %d async slices, %d flows, %d reads" %
      (len(events), len(by_track), sum(len(v) for v in asyncs.values()) // 2, len(flows), reads))
