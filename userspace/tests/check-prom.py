#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The reader's --prometheus and --openmetrics output of one saved debugfs
tree, parsed by the Prometheus client library's parsers (the text format's
and the strict OpenMetrics one) and checked against the tree's own files:
every latency series' count is the module's `hist` count for its layer and
cache state; no series for a pair that cannot happen (a socket read's device time)
unless it has reads; no latency family with a layer label (the layers nest:
summing them over a label would count time twice); label values in lower
case; the loss counters equal `stats`' cells; build_info names the module's
version and format.

Usage: check-prom.py PROM_FILE OPENMETRICS_FILE TREE
"""
import re
import sys

from prometheus_client.openmetrics.parser import \
    text_string_to_metric_families as om_families
from prometheus_client.parser import text_string_to_metric_families

prom_file, om_file, tree = sys.argv[1:4]
prom = open(prom_file).read()
om = open(om_file).read()

# The layers a read in each state can spend time in (prometheus.c's table,
# restated: a change there must be made here on purpose).
# A HIT's block layers: the async readahead requests it issued that
# completed before it returned. A file read's top layer is its syscall's,
# or a request's (no vfs): io_uring's (format 8: uring), AIO's (9: aio),
# or a page fault's (9: fault; no vfs, no fs).
DISK = {"syscall", "vfs", "fs", "queue", "service", "device", "uring", "aio", "fault"}
SOCK = {"syscall", "vfs", "sock", "tcp"}
POSSIBLE = {
    "hit": DISK, "miss": DISK, "partial": DISK, "direct": DISK,
    "other": {"syscall", "vfs"}, "unk": DISK | SOCK | {"wait"}, "error": DISK,
    "ready": SOCK, "waited": SOCK | {"wait"}, "empty": SOCK,
}

# The module's histograms: (layer, state) -> count.
hist = {}
for line in open(f"{tree}/hist"):
    w = line.split()
    if w and w[0] == "layer":
        hist[(w[1], w[3].lower())] = int(w[5])

fams = {f.name: f for f in text_string_to_metric_families(prom)}
errors = []


def fail(msg):
    errors.append(msg)


# Latency families: one per layer, a cache label only.
lat = {n: f for n, f in fams.items() if n.endswith("_latency_seconds")}
if not lat:
    fail("no latency family")
for name, f in lat.items():
    layer = re.fullmatch(r"iolayers_(\w+?)_latency_seconds", name).group(1)
    if f.type != "histogram":
        fail(f"{name}: type {f.type}")
    for s in f.samples:
        if set(s.labels) - {"cache", "le"}:
            fail(f"{name}: labels {sorted(s.labels)}: one family per layer, no layer label")
        st = s.labels["cache"]
        if st != st.lower() or st not in POSSIBLE:
            fail(f"{name}: cache label {st!r}")
            continue
        if s.name.endswith("_count"):
            want = hist.get((layer, st), 0)
            if s.value != want:
                fail(f"{name}{{cache={st}}}: count {s.value}, hist says {want}")
            if layer not in POSSIBLE[st] and s.value == 0:
                fail(f"{name}{{cache={st}}}: a series for a pair that cannot happen")
    shown = {s.labels["cache"] for s in f.samples if s.name.endswith("_count")}
    for st, layers in POSSIBLE.items():
        if layer in layers and st not in shown:
            fail(f"{name}: no series for cache={st}")
for (layer, st), n in hist.items():
    if n and f"iolayers_{layer}_latency_seconds" not in lat:
        fail(f"hist has {n} reads of {layer}/{st}, no family for them")
# The pairs that matter most, said outright: no block time of a socket
# read, no socket wait of a file read.
dev = {s.labels["cache"] for s in fams["iolayers_device_latency_seconds"].samples}
for st in ("ready", "waited", "empty", "other"):
    if st in dev and not hist.get(("device", st)):
        fail(f"a device-time series for {st} reads")
wait = {s.labels["cache"] for s in fams["iolayers_wait_latency_seconds"].samples}
for st in ("hit", "miss", "partial", "direct", "error", "ready"):
    if st in wait and not hist.get(("wait", st)):
        fail(f"a socket-wait series for {st} reads")

# Every label value in lower case (probe and table names are identifiers).
for f in fams.values():
    for s in f.samples:
        for k, v in s.labels.items():
            if k in ("cache", "cause") and v != v.lower():
                fail(f"{s.name}: {k}={v!r} not lower case")

# Loss counters against stats.
stats = open(f"{tree}/stats").read().splitlines()
missed = {}
head = None
tables = {}
single = {}
for line in stats:
    w = line.split()
    if not w:
        head = None
        continue
    if w[0] in ("probe", "table", "disk", "buffer"):
        head = w
        continue
    if head and head[0] == "probe" and "nmissed" in head:
        v = w[head.index("nmissed")]
        if v != "-":
            missed[w[0]] = int(v)
    elif head and head[0] == "table":
        for c in ("table_full", "nomem", "stale", "expired"):
            if c in head:
                tables[(w[0], c)] = int(w[head.index(c)])
    elif not head and len(w) == 2:
        single[w[0]] = int(w[1])


def samples(name):
    f = fams.get(name[:-6] if name.endswith("_total") else name)
    return [s for s in f.samples if s.name == name] if f else []


got = {s.labels["probe"]: s.value for s in samples("iolayers_probe_missed_total")}
if got != missed:
    fail(f"probe_missed {got} != stats nmissed {missed}")
got = {(s.labels["table"], s.labels["cause"]): s.value
       for s in samples("iolayers_table_drops_total")}
if got != tables:
    fail(f"table_drops {got} != stats {tables}")
for stat, metric in (("requests_late", "iolayers_requests_late_total"),
                     ("late_bytes", "iolayers_requests_late_bytes_total"),
                     ("reads_missed", "iolayers_reads_missed_events_total"),
                     ("fentry_unmatched", "iolayers_fentry_unmatched_events_total"),
                     ("stream_lost", "iolayers_stream_lost_records_total"),
                     ("flow_overflow", "iolayers_request_flow_overflow_total"),
                     ("disk_overflow", "iolayers_disk_overflow_total")):
    got = [s.value for s in samples(metric)]
    want = [single[stat]] if stat in single else []
    if got != want:
        fail(f"{metric} {got} != stats {stat} {want}")

# build_info: the module's version and format.
version = open(f"{tree}/version").read().split("\n")
bi = fams.get("iolayers_build_info")
if not bi or len(bi.samples) != 1 or bi.samples[0].value != 1:
    fail("iolayers_build_info: want one sample of 1")
else:
    lab = bi.samples[0].labels
    want_mod = version[0].split()[-1]
    want_fmt = version[1].split()[-1]
    if lab.get("module") != want_mod or lab.get("format") != want_fmt:
        fail(f"build_info {lab}: version file says {want_mod}, format {want_fmt}")

# OpenMetrics: the strict parser, # EOF last, units on the seconds and
# bytes families, counters' families named without _total; the same
# samples as the text format.
try:
    omf = {f.name: f for f in om_families(om)}
except ValueError as e:
    fail(f"OpenMetrics parser: {e}")
    omf = {}
if not om.endswith("# EOF\n"):
    fail("OpenMetrics: no # EOF at the end")
for name, f in omf.items():
    if name.endswith("_seconds") and f.unit != "seconds":
        fail(f"OpenMetrics {name}: unit {f.unit!r}")
    if f.type == "counter" and name.endswith("_total"):
        fail(f"OpenMetrics {name}: a counter family named with _total")


def flat(fs):
    return sorted((s.name, tuple(sorted(s.labels.items())), s.value)
                  for f in fs.values() for s in f.samples
                  if not s.name.endswith("_created"))


if omf and flat(omf) != flat(fams):
    fail("OpenMetrics and text format samples differ")

for e in errors:
    print(e)
sys.exit(1 if errors else 0)
