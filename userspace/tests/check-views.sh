#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every view of the reader on every saved debugfs tree, checked by a real
# parser (JSON: python3, SVG: an XML parser, Prometheus: promtool and the
# client library's parsers, OpenMetrics: its strict parser) and
# against the module's own `summary` of the same tree.
#
# Usage: tests/check-views.sh READER FIXTURES_DIR
set -u
reader=$1
fixtures=$2
failed=0
checked=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

not_ok() { echo "not ok - $*"; failed=$((failed + 1)); }
ok() { echo "ok - $*"; }

for d in "$fixtures"/*/; do
	d=${d%/}
	name=${d##*/}
	# Trees without hist are the deliberately broken ones (test_parse).
	[ -f "$d/hist" ] || continue
	if ! "$reader" --root "$d" >"$tmp/table" 2>"$tmp/err"; then
		not_ok "$name: the reader fails on it: $(cat "$tmp/err")"
		continue
	fi
	checked=$((checked + 1))
	grep -q '^cache: HIT' "$tmp/table" && ok "$name: table" || not_ok "$name: table"

	# JSON: strict, and its numbers are the module's summary numbers.
	if "$reader" --root "$d" -j >"$tmp/j.json" &&
	   python3 - "$tmp/j.json" "$d/summary" "$d/flows" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
rows = [l.split() for l in open(sys.argv[2]) if l.strip()]
head = rows[0]
n = 0
for r in rows[1:]:
    if r[0] not in j["layers"]:
        continue
    s = dict(zip(head, r))
    a = j["layers"][r[0]]["all"]
    for k in ("count", "bytes"):
        assert a[k] == int(s[k]), (r[0], k, a[k], s[k])
    if a["count"]:
        for k in ("min_ns", "max_ns", "p50_ns", "p90_ns", "p99_ns"):
            assert a[k] == int(s[k]), (r[0], k, a[k], s[k])
    n += 1
# Six layers, nine where the module has the socket layers (format 7),
# ten with the uring layer (format 8), twelve with the aio and fault
# layers (9; eleven in the first hand-made format 9 tree, before faults).
names = {r[0] for r in rows[1:]}
assert n == (12 if "fault" in names else 11 if "aio" in names else 10 if "uring" in names
             else 9 if "sock" in names else 6), n
flows = sum(1 for _ in open(sys.argv[3])) - 1
assert len(j["flows"]) == flows, (len(j["flows"]), flows)
# A state's reads: its syscalls, its requests, io_uring's (format 8) and
# AIO's (format 9), and its page faults (9); from format 9 as the
# summary's cache lines count.
assert sum(j["cache"].values()) == sum(j["layers"][l]["all"]["count"]
                                       for l in ("syscall", "uring", "aio", "fault"))
if "aio" in names:
    cache = {r[0]: int(r[1]) for r in rows if len(r) == 3 and r[0] in j["cache"]}
    assert cache == j["cache"], (cache, j["cache"])
PY
	then
		ok "$name: JSON parses and matches summary (count, bytes, min, max, p50/p90/p99)"
	else
		not_ok "$name: JSON"
	fi

	# Prometheus text format, by promtool.
	"$reader" --root "$d" --prometheus >"$tmp/p.prom"
	if ! command -v promtool >/dev/null; then
		not_ok "$name: promtool not installed (scripts/install-deps)"
	elif promtool check metrics <"$tmp/p.prom" >"$tmp/promtool" 2>&1; then
		ok "$name: promtool check metrics"
	else
		not_ok "$name: promtool: $(head -3 "$tmp/promtool")"
	fi
	# The series against the tree's hist and stats (check-prom.py), with
	# the Prometheus client library's parsers (Debian's python3, where it
	# is installed), and OpenMetrics by its strict parser.
	"$reader" --root "$d" --openmetrics >"$tmp/p.om"
	if /usr/bin/python3 "$(dirname "$0")/check-prom.py" "$tmp/p.prom" "$tmp/p.om" "$d" \
		>"$tmp/cp" 2>&1; then
		ok "$name: Prometheus and OpenMetrics series match hist and stats (check-prom.py)"
	else
		not_ok "$name: check-prom.py: $(head -5 "$tmp/cp")"
	fi
	# The syscall layer, a request's (io_uring's, format 8; AIO's, 9) and
	# the page faults' (9).
	for l in syscall uring aio fault; do
		c=$(awk -v l=$l '$1 == l { print $2 }' "$d/summary")
		[ -n "$c" ] || continue
		inf=$(awk -F'} ' -v l=$l 'index($0, "iolayers_" l "_latency_seconds_bucket{") == 1 &&
			index($0, "le=\"+Inf\"") { s += $2 } END { print s + 0 }' "$tmp/p.prom")
		[ "$inf" = "$c" ] && ok "$name: prometheus $l +Inf buckets == $l count ($c)" ||
			not_ok "$name: prometheus $l +Inf $inf != $c"
	done

	# SVG: well-formed XML, one row per read up to --rows.
	"$reader" --root "$d" --svg "$tmp/w.svg" --rows 30 >/dev/null
	flows=$(($(wc -l <"$d/flows") - 1))
	want=$((flows < 30 ? flows : 30))
	if python3 - "$tmp/w.svg" "$want" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
rows = [t for t in root.iter(ns + "text") if t.text and t.text.startswith("#")]
assert len(rows) == int(sys.argv[2]), (len(rows), sys.argv[2])
PY
	then ok "$name: SVG is XML with $want rows"; else not_ok "$name: SVG"; fi

	# Histograms: the syscall layer's counts add up to the summary's (and
	# the uring layer's, format 8, the aio and fault layers', format 9).
	"$reader" --root "$d" -H >"$tmp/h"
	for l in syscall uring aio fault; do
		c=$(awk -v l=$l '$1 == l { print $2 }' "$d/summary")
		[ -n "$c" ] || continue
		[ "$l" != syscall ] && [ "$c" = 0 ] && continue	# no layer printed
		sum=$(awk -v l="$l," '/^layer = / { on = ($3 == l) } on && / : [0-9]+ +\|/ { s += $5 } END { print s + 0 }' "$tmp/h")
		[ "$sum" = "$c" ] && ok "$name: -H $l counts add up ($sum)" || not_ok "$name: -H $l sum $sum != $c"
	done

	# Interval mode: -j prints one JSON object per line and interval, the
	# interval's deltas (none on a saved tree) after its wall-clock time;
	# --prometheus -o FILE rewrites FILE each interval with the totals, by
	# rename (no temporary file left).
	"$reader" --root "$d" -j 1 2 >"$tmp/jl"
	if python3 - "$tmp/jl" <<'PY'
import json, re, sys
def strict(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, len(lines)
for l in lines:
    j = json.loads(l, object_pairs_hook=strict)
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}$", j["time"]), j["time"]
    assert j["interval_s"] == 1
    assert all(v["all"]["count"] == 0 for v in j["layers"].values()), "deltas of one tree"
PY
	then ok "$name: -j 1 2: two JSON lines with their time, deltas 0"
	else not_ok "$name: -j 1 2: $(head -c 300 "$tmp/jl")"; fi
	mkdir -p "$tmp/prom-dir"
	"$reader" --root "$d" --prometheus -o "$tmp/prom-dir/iolayers.prom" 1 2 &&
		cmp -s "$tmp/prom-dir/iolayers.prom" "$tmp/p.prom" &&
		[ "$(ls "$tmp/prom-dir")" = iolayers.prom ] &&
		ok "$name: --prometheus -o FILE 1 2: FILE is the totals, nothing else left" ||
		not_ok "$name: --prometheus -o FILE 1 2: $(ls "$tmp/prom-dir")"
	rm -rf "$tmp/prom-dir"

	# Histograms' edges: in ns, bcc's "lo -> hi" rows are the module's own
	# buckets (hist, summed over cache states) exactly; in us and ms,
	# bpftrace's "[lo, hi)" rows carry the same counts, each edge the
	# bucket's in that unit to 4 digits.
	for unit in ns us ms; do
		opt=
		[ $unit = us ] && opt=-u
		[ $unit = ms ] && opt=-m
		"$reader" --root "$d" -H $opt >"$tmp/h-$unit"
		if python3 - "$tmp/h-$unit" "$d/hist" $unit <<'PY'
import math, re, sys
out, hist, unit = sys.argv[1], sys.argv[2], sys.argv[3]
want, layer = {}, None
for line in open(hist):
    f = line.split()
    if f and f[0] == "layer":
        layer = f[1]
    elif len(f) == 3 and layer:
        b = want.setdefault(layer, {})
        b[(int(f[0]), int(f[1]))] = b.get((int(f[0]), int(f[1])), 0) + int(f[2])
got, layer = {}, None
div = {"us": 1e3, "ms": 1e6}.get(unit)
for line in open(out):
    m = re.match(r"^layer = (\w+)", line.strip())
    if m:
        layer = m.group(1)
        got[layer] = {}
        continue
    if line.startswith("tcp_v4_do_rcv"):
        layer = None
    if layer is None or not line.strip():
        continue
    if unit == "ns":
        m = re.match(r"^ *(\d+) -> (\d+) : (\d+) +\|\**\s*\|$", line)
        if m:
            lo, hi, n = map(int, m.groups())
            assert hi == (1 if lo == 0 else 2 * lo - 1), line
            if n:
                got[layer][(lo, hi)] = n
        else:
            assert "nsecs : count" in line or not line.strip(), line
    else:
        m = re.match(r"^\[([0-9.e+-]+)(?:us|ms)?, ([0-9.e+-]+)(?:us|ms)\) +(\d+) \|@*\s*\|$", line)
        assert m, line
        lo, hi, n = float(m.group(1)), float(m.group(2)), int(m.group(3))
        b = 0 if lo == 0 else round(math.log2(lo * div))
        # 4 significant digits: within 0.05 % of the exact edges.
        assert lo == 0 or abs(lo * div - 2 ** b) <= 2 ** b * 5e-4, line
        assert abs(hi * div - 2 ** (b + 1)) <= 2 ** (b + 1) * 5e-4, line
        if n:
            got[layer][(0 if b == 0 else 2 ** b, 2 ** (b + 1) - 1)] = n
assert got, "no layer printed"
for l, b in got.items():
    assert b == want.get(l), (l, b, want.get(l))
PY
		then ok "$name: -H $opt: the module's buckets, $unit edges"
		else not_ok "$name: -H $opt: rows are not the module's buckets in $unit"; fi
	done

	# Timeline of the slowest read (a request's: from its submission to
	# its completion, an io_uring CQE or an AIO event; a page fault's:
	# from its entry to its return, no file descriptor); slow list.
	if [ "$flows" -gt 0 ]; then
		"$reader" --root "$d" -t >"$tmp/t" &&
			{ { grep -q 'sys_enter' "$tmp/t" && grep -q 'sys_exit' "$tmp/t"; } ||
			  { grep -q '^io_uring:' "$tmp/t" && grep -q 'submit' "$tmp/t" &&
			    grep -q 'CQE' "$tmp/t"; } ||
			  { grep -q '^aio:' "$tmp/t" && grep -q 'submit' "$tmp/t" &&
			    grep -q 'issue in io_submit' "$tmp/t" &&
			    grep -q 'completion event' "$tmp/t"; } ||
			  { grep -q '^fault #[0-9]*: tid [0-9]* [^,]*, [-0-9]* of ' "$tmp/t" &&
			    grep -q '^├─ fault entry ' "$tmp/t" &&
			    grep -q '^│   ├─ block_rq_issue (first) ' "$tmp/t" &&
			    grep -q '^└─ fault returns .* <- fault ' "$tmp/t"; }; } &&
			ok "$name: timeline" || not_ok "$name: timeline"
	fi
	# Self-accounting (when the module showed it): -P's runs per probe and
	# its estimated total, and JSON's numbers, against stats' own columns.
	if head -1 "$d/stats" | grep -qw calls; then
		"$reader" --root "$d" -P >"$tmp/P"
		"$reader" --root "$d" -j >"$tmp/j.json"
		if python3 - "$d/stats" "$tmp/P" "$tmp/j.json" <<'PY'
import json, re, sys
lines = open(sys.argv[1]).read().split("\n\n")[0].splitlines()
head = lines[0].split()
st = {r[0]: dict(zip(head, r)) for r in (l.split() for l in lines[1:])}
clock = 0
for l in open(sys.argv[1]).read().splitlines():
    if l.split()[:1] == ["clock_ns"]:
        clock = int(l.split()[1])
est = sum(max(0, int(v["timed_ns"]) / int(v["timed"]) - clock) * int(v["calls"])
          for v in st.values() if int(v["timed"]))
P = open(sys.argv[2]).read()
rows = {}
for l in P.splitlines():
    f = l.split()
    if len(f) == 9 and f[1] in st:
        rows[f[1]] = f
assert set(rows) == set(st), set(st) - set(rows)
for n, f in rows.items():
    assert f[6] == st[n]["calls"], (n, f[6], st[n]["calls"])
    assert f[7] == st[n]["avg_ns"] or abs(float(f[7]) - float(st[n]["avg_ns"])) <= 1, (n, f[7])
m = re.search(r"^handlers: (\d+) runs, about ([0-9.]+) ms", P, re.M)
assert m and int(m.group(1)) == sum(int(v["calls"]) for v in st.values()), m
assert abs(float(m.group(2)) - est / 1e6) <= 0.001 + est / 1e9, (m.group(2), est / 1e6)
j = json.load(open(sys.argv[3]))
for p in j["probes"]:
    for k in ("calls", "timed", "timed_ns"):
        assert p[k] == int(st[p["name"]][k]), (p["name"], k)
PY
		then ok "$name: -P and JSON self-accounting match stats"; else not_ok "$name: self-accounting views"; fi
		grep -q '^iolayers_probe_handler_calls_total{probe="sys_enter"' "$tmp/p.prom" &&
			ok "$name: prometheus has the self-accounting" ||
			not_ok "$name: prometheus self-accounting missing"
	fi
	slow=$(($(wc -l <"$d/slow") - 1))
	[ $(($("$reader" --root "$d" --slow | wc -l) - 1)) -eq "$slow" ] &&
		ok "$name: --slow lists $slow reads" || not_ok "$name: --slow"
done
[ "$checked" -gt 0 ] || not_ok "no fixture with a hist file under $fixtures"

# --check on made-up /proc and /sys trees: what each kernel's tracefs
# would list, and the verdicts and exit codes that follow from it.
# fake_root DIR FILEMAP_FN [no-throtl]: a machine with debugfs, tracefs,
# every tracepoint the module uses but NVMe's and SCSI's, and the
# functions it attaches to (FILEMAP_FN as the page cache's read).
fake_root() {
	local r=$1 e
	mkdir -p "$r/proc/sys/kernel" "$r/sys/kernel/debug/tracing" "$r/sys/kernel/tracing/events"
	echo 6.1.0-57-amd64 >"$r/proc/sys/kernel/osrelease"
	for e in raw_syscalls/sys_enter raw_syscalls/sys_exit filemap/mm_filemap_add_to_page_cache \
		sched/sched_switch sched/sched_process_fork sched/sched_process_exit \
		sched/sched_process_exec block/block_bio_queue block/block_bio_remap \
		block/block_split block/block_bio_backmerge block/block_bio_frontmerge block/block_rq_insert block/block_rq_merge block/block_rq_issue \
		block/block_rq_requeue block/block_rq_complete sock/inet_sock_set_state; do
		mkdir -p "$r/sys/kernel/tracing/events/$e"
	done
	printf '%s\n' vfs_read vfs_readv "$2" iomap_dio_rw dax_iomap_rw \
		shmem_file_read_iter sock_recvmsg inet_recvmsg inet6_recvmsg unix_stream_recvmsg \
		unix_dgram_recvmsg unix_seqpacket_recvmsg tcp_recvmsg sk_wait_data \
		__skb_wait_for_more_packets schedule_timeout skb_copy_datagram_iter tcp_v4_do_rcv \
		tcp_v6_do_rcv tcp_v4_destroy_sock \
		>"$r/sys/kernel/tracing/available_filter_functions"
	[ "${3:-}" = no-throtl ] ||
		echo __blk_throtl_bio >>"$r/sys/kernel/tracing/available_filter_functions"
	# The kretprobes' symbols; kprobe_ftrace_handler's even address: they are safe.
	printf '%s\n' 'ffffffff81060a10 T kprobe_ftrace_handler' 'ffffffff8a000000 T vfs_read' \
		'ffffffff8a300000 T tcp_v4_do_rcv' 'ffffffff8a310000 T tcp_v6_do_rcv	[ipv6]' \
		>"$r/proc/kallsyms"
}
# expect_check NAME ROOT EXIT PATTERN...: --check exits EXIT, prints each PATTERN.
expect_check() {
	local name=$1 root=$2 want=$3 rc pat
	shift 3
	"$reader" --check --check-root "$root" >"$tmp/check" 2>&1
	rc=$?
	[ "$rc" = "$want" ] && ok "--check $name: exit $rc" ||
		not_ok "--check $name: exit $rc, want $want: $(cat "$tmp/check")"
	for pat in "$@"; do
		grep -qE "$pat" "$tmp/check" && ok "--check $name: $pat" ||
			not_ok "--check $name: no '$pat' in: $(cat "$tmp/check")"
	done
}
fake_root "$tmp/r61" filemap_read
expect_check "6.1-like" "$tmp/r61" 0 '^ok +SYSCALL +sys_enter, sys_exit$' \
	'^ok +FS +filemap_read, shmem_file_read_iter, iomap_dio_rw, dax_iomap_rw$' '^ok +BLOCK ' \
	'^partly +DEVICE +\(nothing\)' 'nvme_setup_cmd not there: no NVMe device times' \
	'^ok +tracefs at /sys/kernel/tracing \(21 functions' \
	'^partly +SOCK +sock_recvmsg, inet_recvmsg, inet6_recvmsg, unix_stream_recvmsg, unix_dgram_recvmsg, unix_seqpacket_recvmsg, tcp_recvmsg, sk_wait_data, __skb_wait_for_more_packets, schedule_timeout, skb_copy_datagram_iter, tcp_v4_do_rcv, tcp_v6_do_rcv, inet_sock_set_state, tcp_v4_destroy_sock$' \
	'unix_stream_data_wait not there: Unix stream reads'"'"' state and wait are not told'
# The AIO layer: aio_read's kretprobe by kallsyms, aio_complete_rw's
# function entry by ftrace's list; none without them. The FAULT layer:
# handle_mm_fault's kretprobe by kallsyms.
expect_check "6.1-like, no AIO" "$tmp/r61" 0 '^partly +AIO +\(nothing\)' \
	'^ +- aio_read not there: AIO reads make no record' \
	'^ +- aio_complete_rw not there: AIO reads make no record' \
	'^partly +FAULT +\(nothing\)' \
	'^ +- handle_mm_fault not there: faults=1: page faults on mapped files make no record'
echo aio_complete_rw >>"$tmp/r61/sys/kernel/tracing/available_filter_functions"
printf '%s\n' 'ffffffff8a100000 t aio_read' 'ffffffff8a200000 T handle_mm_fault' \
	>>"$tmp/r61/proc/kallsyms"
expect_check "6.1-like, AIO" "$tmp/r61" 0 '^ok +AIO +aio_read, aio_complete_rw$' \
	'^ok +FAULT +handle_mm_fault$'
# Where kretprobes are unsafe (kprobe_ftrace_handler at an odd address,
# as tests/vm/aio.sh tells it): every kretprobe unverified, the URING
# layer unfollowed, the function entries as before.
sed -i 's/^ffffffff81060a10 T kprobe_ftrace_handler$/ffffffff81060a11 T kprobe_ftrace_handler/' \
	"$tmp/r61/proc/kallsyms"
unsafe='kretprobes are unsafe on this kernel \(kprobe_ftrace_handler at an odd address'
expect_check "6.1-like, kretprobes unsafe" "$tmp/r61" 0 '^partly +AIO +aio_complete_rw$' \
	"^ +- aio_read unverified: $unsafe, see design.rst\): the module attaches no kretprobe, AIO reads make no record" \
	'^partly +FAULT +\(nothing\)' \
	"^ +- handle_mm_fault unverified: $unsafe, see design.rst\): the module attaches no kretprobe, faults=1: page faults on mapped files make no record" \
	"^ +- tcp_v4_do_rcv unverified: $unsafe" \
	"^ +- io_uring_submit_req not there: $unsafe, see design.rst\): the module leaves io_uring unfollowed" \
	'^partly +SOCK +sock_recvmsg, .*, skb_copy_datagram_iter, inet_sock_set_state'
fake_root "$tmp/r510" generic_file_buffered_read no-throtl
expect_check "5.10-like" "$tmp/r510" 0 '^ok +FS +generic_file_buffered_read' \
	'^partly +BLOCK ' '__blk_throtl_bio not there: bios held back'
mkdir -p "$tmp/r510/sys/kernel/tracing/events/nvme/nvme_setup_cmd" \
	"$tmp/r510/sys/kernel/tracing/events/nvme/nvme_complete_rq"
expect_check "5.10-like with nvme_core" "$tmp/r510" 0 '^partly +DEVICE +nvme_setup_cmd, nvme_complete_rq'
fake_root "$tmp/rnofs" nothing_like_filemap_read
expect_check "no page cache read" "$tmp/rnofs" 1 '^no +FS ' \
	'! filemap_read not there: the layer cannot work'
fake_root "$tmp/rrt" filemap_read
echo 1 >"$tmp/rrt/sys/kernel/realtime"
expect_check "PREEMPT_RT" "$tmp/rrt" 0 '^ok +PREEMPT_RT kernel: the probes take entries from per-CPU lists'
fake_root "$tmp/rlock" filemap_read
mkdir -p "$tmp/rlock/sys/kernel/security"
echo "none [integrity] confidentiality" >"$tmp/rlock/sys/kernel/security/lockdown"
expect_check "integrity lockdown" "$tmp/rlock" 0 'lockdown \[integrity\]: the module must be signed' \
	'integrity lockdown: debugfs is read-only; settings go through /sys/module/iolayers/parameters'
mkdir -p "$tmp/rnodbg/proc/sys/kernel" "$tmp/rnodbg/sys/kernel"
expect_check "no debugfs" "$tmp/rnodbg" 2 '^no +debugfs is not mounted'

# -p PID, a view filter that changes nothing in the module: per-read views
# keep that process's reads only; the module's totals are refused unless
# the module follows exactly that process; a recording's histograms are
# built from that process's reads.
fx="$fixtures/6.12.117"
fpid=$(cat "$fx/pid")
"$reader" --root "$fx" -p "$fpid" >"$tmp/vp" && grep -q "showing pid $fpid only (-p)" "$tmp/vp" &&
	ok "-p $fpid: the table, as the module follows exactly $fpid" || not_ok "-p $fpid: $(head -2 "$tmp/vp")"
"$reader" --root "$fx" -p $((fpid + 1)) >/dev/null 2>"$tmp/e"
rc=$?
[ $rc -eq 2 ] && grep -q "not of $((fpid + 1)) alone; -p filters the per-read views" "$tmp/e" &&
	ok "-p of another process: the module's totals refused, exit 2, one line saying why" ||
	not_ok "-p of another process: exit $rc, $(cat "$tmp/e")"
n=$(($("$reader" --root "$fx" -p $((fpid + 1)) --slow | wc -l) - 1))
all=$(($("$reader" --root "$fx" --slow | wc -l) - 1))
mine=$(($("$reader" --root "$fx" -p "$fpid" --slow | wc -l) - 1))
[ "$n" -eq 0 ] && [ "$mine" -eq "$all" ] && [ "$all" -gt 0 ] &&
	ok "-p --slow: none of another process, all $all of $fpid" || not_ok "-p --slow: $n, $mine of $all"
# A recording of two processes: the small one's reads again as tgid 43.
python3 - tests/recordings/small.jsonl "$tmp/two.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
reads = [l for l in lines if "seq" in l]
out = []
for l in lines:
    if "end" in l:
        for r in reads:
            out.append(dict(r, tgid=43, tid=43, seq=r["seq"] + 1000))
        l = dict(l, reads=2 * len(reads))
    out.append(l)
open(sys.argv[2], "w").write("".join(json.dumps(l) + "\n" for l in out))
PY
for p in 42 43; do
	"$reader" --from "$tmp/two.jsonl" -p $p -j >"$tmp/vj.$p" || not_ok "--from -p $p failed"
done
"$reader" --from "$tmp/two.jsonl" -j >"$tmp/vj.all"
if python3 - "$tmp"/vj.42 "$tmp"/vj.43 "$tmp"/vj.all <<'PY'
import json, sys
a, b, t = (json.load(open(f)) for f in sys.argv[1:4])
for k in ("count", "bytes", "sum_ns"):
    assert a["layers"]["syscall"]["all"][k] + b["layers"]["syscall"]["all"][k] == \
        t["layers"]["syscall"]["all"][k], k
assert a["layers"]["syscall"]["all"]["count"] == len(a["flows"]) > 0
assert {f["tgid"] for f in a["flows"]} == {42} and {f["tgid"] for f in b["flows"]} == {43}
PY
then ok "--from -p: each process's histograms and reads, adding up to the recording's"
else not_ok "--from -p: $(head -c 200 "$tmp/vj.42")"; fi
# Recordings of requests besides syscalls, io_uring's (format 8) and
# AIO's (format 9), and of page faults (format 9): each request or fault
# in its layer and none in the syscall layer, each request with its
# attempts (a fault has none); the slowest read's timeline a request's,
# from its submission to its completion (a CQE, an AIO event), or a
# fault's, from its entry to its return.
for r in 'uring|^io_uring:READ #|CQE|CQE' 'aio|^aio:PREADV #|completion event|completion event' \
	'fault|^fault #28673: tid 42 mmapcheck, 4096 of 4096 bytes at 1048576, MISS$|^└─ fault returns .*<- fault 3.10ms$|return'; do
	IFS='|' read -r rname rhead rend rwhat <<<"$r"
	urec=$(dirname "$0")/recordings/$rname.jsonl
	"$reader" --from "$urec" -j >"$tmp/uj" && "$reader" --from "$urec" -t >"$tmp/ut"
	if python3 - "$tmp/uj" "$urec" <<'PY'
import json, sys
TOPS = ("syscall", "uring", "aio", "fault")
j = json.load(open(sys.argv[1]))
reads = [o for o in map(json.loads, open(sys.argv[2])) if "seq" in o]
def top(r):
    s = r["syscall"]
    return ("uring" if s.startswith("io_uring:") else "aio" if s.startswith("aio:") else
            "fault" if s == "fault" else "syscall")
req = [r for r in reads if top(r) != "syscall"]
assert req and len(req) < len(reads), len(req)
for l in TOPS:
    mine = [r for r in reads if top(r) == l]
    assert j["layers"][l]["all"]["count"] == len(mine), l
    assert j["layers"][l]["all"]["sum_ns"] == sum(r[l + "_ns"] for r in mine), l
assert sum(j["cache"].values()) == len(reads), j["cache"]
for f in j["flows"]:
    for l in TOPS:
        assert (f["latency_ns"][l] is None) != (l == top(f)), f
    assert (f["uring"] is None) == (top(f) in ("syscall", "fault")), f
PY
	then
		grep -q "$rhead" "$tmp/ut" && grep -q "$rend" "$tmp/ut" &&
			ok "--from $rname.jsonl: requests or faults in their layer, their timeline to the $rwhat" ||
			not_ok "--from $rname.jsonl: -t: $(head -3 "$tmp/ut")"
	else
		not_ok "--from $rname.jsonl: -j: $(head -c 300 "$tmp/uj")"
	fi
done
# --heatmap of a recording: well-formed SVG, a panel per layer and cache
# state with reads, each holding the reads -j counts in that histogram;
# the columns of a recording longer than 720 ms (300,000 genrec reads,
# about 1 s) folded to 2 ms, their reads kept.
"$(dirname "$0")/genrec" 20000 50 >"$tmp/g.rec" || not_ok "genrec 20000"
"$(dirname "$0")/genrec" 300000 50 >"$tmp/g300.rec" || not_ok "genrec 300000"
for rec in "$(dirname "$0")/recordings/kinds.rec" "$tmp/g300.rec"; do
	rm -f "$tmp/h.svg" "$tmp/hj"
	if "$reader" --from "$rec" --heatmap "$tmp/h.svg" >"$tmp/ho" &&
		"$reader" --from "$rec" -j >"$tmp/hj" &&
		python3 - "$tmp/h.svg" "$tmp/hj" "$rec" <<'PY'
import json, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
panels = {(g.get("data-layer"), g.get("data-cache")): int(g.get("data-reads"))
          for g in root.iter(ns + "g") if g.get("class") == "panel"}
j = json.load(open(sys.argv[2]))
want = {(l, c): h["count"] for l, per in j["layers"].items() for c, h in per.items()
        if c != "all" and h["count"]}
assert panels == want, (panels, want)
assert len(list(root.iter(ns + "rect"))) > len(panels)
if sys.argv[3].endswith("g300.rec"):
    assert any("columns of 2.000 ms" in (t.text or "") for t in root.iter(ns + "text"))
PY
	then ok "--heatmap $(basename "$rec"): $(cat "$tmp/ho" | cut -c 1-80)"
	else not_ok "--heatmap $(basename "$rec")"; fi
done
# A binary recording and its JSON lines (-J) print the same in every
# view: kinds.rec (every kind of read record the format has, written by
# test_record.c) and genrec's 20,000 reads. The guest's stream-record
# test checks the table and -j of a recording of the module it makes;
# the other views read the same model, checked here (natively, where
# the guest took 4 s a view).
for rec in "$(dirname "$0")/recordings/kinds.rec" "$tmp/g.rec"; do
	rname=$(basename "$rec")
	if ! "$reader" --from "$rec" -J >"$tmp/rj.jsonl" 2>"$tmp/rje"; then
		not_ok "--from $rname -J: $(head -3 "$tmp/rje")"
		continue
	fi
	for v in "" -H --files -D -j --prometheus --slow -t --svg --heatmap "-H 1"; do
		case $v in
		--svg | --heatmap) vb="$v $tmp/v-bin.svg" vj="$v $tmp/v-json.svg" ;;
		*) vb=$v vj=$v ;;
		esac
		rm -f "$tmp/v-bin.svg" "$tmp/v-json.svg"
		# shellcheck disable=SC2086
		"$reader" --from "$rec" $vb >"$tmp/v.bin" 2>&1
		rb=$?
		# shellcheck disable=SC2086
		"$reader" --from "$tmp/rj.jsonl" $vj >"$tmp/v.json" 2>&1
		rj=$?
		case $v in
		--svg | --heatmap)
			sed -i "s|$tmp/v-json|$tmp/v-bin|" "$tmp/v.json"
			cmp -s "$tmp/v-bin.svg" "$tmp/v-json.svg" || echo differ >>"$tmp/v.json" ;;
		esac
		if [ "$rb/$rj" = 0/0 ] && [ -s "$tmp/v.bin" ] && cmp -s "$tmp/v.bin" "$tmp/v.json"; then
			ok "--from $rname ${v:-(table)}: the same of the binary recording and its JSON lines"
		else
			not_ok "--from $rname ${v:-(table)}: binary and JSON lines differ ($rb, $rj): $(diff "$tmp/v.bin" "$tmp/v.json" | head -5)"
		fi
	done
done
# --perfetto of a recording: the trace-event format's rules
# (check-perfetto.py: slices nest per track, async begins and ends match,
# flows have both ends inside slices, tracks named), every read once; the
# checker refuses a trace with two overlapping slices on a track.
for rec in "$(dirname "$0")/recordings/kinds.rec:7" "$tmp/g.rec:20000"; do
	"$reader" --from "${rec%:*}" --perfetto "$tmp/t.json" >/dev/null &&
		"$(dirname "$0")/check-perfetto.py" "$tmp/t.json" "${rec##*:}" >"$tmp/pc" &&
		ok "--perfetto $(basename "${rec%:*}"): $(cat "$tmp/pc")" ||
		not_ok "--perfetto $(basename "${rec%:*}"): $(cat "$tmp/pc")"
done
printf '%s\n' '{"traceEvents": [' \
	'{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "p"}},' \
	'{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "t"}},' \
	'{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 5},' \
	'{"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 3, "dur": 5}]}' >"$tmp/bad.json"
"$(dirname "$0")/check-perfetto.py" "$tmp/bad.json" >/dev/null &&
	not_ok "check-perfetto.py took overlapping slices" ||
	ok "check-perfetto.py refuses overlapping slices on a track"

# --set-pid and the other settings: written to the module's parameters,
# the change said on stderr (the module keeps it after the reader).
mkdir -p "$tmp/params"
echo 1 >"$tmp/params/pid"
echo 0 >"$tmp/params/children"
IOLAYERS_PARAMS_DIR="$tmp/params" "$reader" --set-pid 55 --set-children 2>"$tmp/e" &&
	[ "$(cat "$tmp/params/pid")" = 55 ] && [ "$(cat "$tmp/params/children")" = 1 ] &&
	grep -q "module setting pid: '1' -> '55' (it stays after this reader exits)" "$tmp/e" &&
	grep -q "module setting children: '0' -> '1'" "$tmp/e" &&
	ok "--set-pid, --set-children: written to the parameters, the change said" ||
	not_ok "--set-pid: $(cat "$tmp/e")"

# Errors: one clear line, non-zero exit.
"$reader" --root /nonexistent 2>"$tmp/e" && not_ok "missing root accepted" ||
	{ grep -q "No such file" "$tmp/e" && ok "missing root: clear error" || not_ok "missing root message"; }
"$reader" -c BAD 2>"$tmp/e" && not_ok "bad cache state accepted" ||
	{ grep -q "invalid cache state 'BAD'" "$tmp/e" && ok "bad cache state: clear error" || not_ok "bad -c message"; }
echo "check-views: $failed failed"
[ "$failed" -eq 0 ]
