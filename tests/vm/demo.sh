#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest part of `make demo`: fio's 4 KiB and 128 MiB random reads (randread,
# ioengine=sync, direct=0, bs=4k and bs=128m, on a 256 MiB file after
# drop_caches), each under iolayers.ko pid=<fio>: the summary, the flow
# of one MISS read through all five layers, the reader's table; then an
# incident recorded (iolayers record), its heatmap and Perfetto trace.
# vm-files: testfile:256
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"
echo IOLAYERS_DEMO_BEGIN
echo "guest kernel $(uname -r), $(nproc) CPUs, accelerator: TCG (times are emulated)"
echo none >/sys/block/nvme0n1/queue/scheduler
rc=0

# show_flow: the slowest MISS read of `flows`, one field per line.
show_flow() {
	awk 'NR == 1 { for (i = 1; i <= NF; i++) { h[i] = $i; c[$i] = i }; next }
		$c["cache"] == "MISS" && $c["syscall_ns"] + 0 > best { best = $c["syscall_ns"] + 0; line = $0 }
		END {
			if (line == "") { print "(no MISS read)"; exit }
			n = split(line, v)
			for (i = 1; i <= n; i++) printf "  %-11s %s\n", h[i], v[i]
		}' "$IOLAYERS_D/flows"
}

# scenario BS IO_SIZE
scenario() {
	echo
	echo "=== fio --rw=randread --ioengine=sync --direct=0 --bs=$1 --thinktime=10 (seed 000) ==="
	echo 3 >/proc/sys/vm/drop_caches
	bash -c 'kill -STOP $$; exec fio --name=seed000 --filename=/mnt/testfile --size=256m \
		--rw=randread --bs='"$1"' --io_size='"$2"' --ioengine=sync --direct=0 --iodepth=1 \
		--thinktime=10 --invalidate=0 --numjobs=1 >/dev/null' &
	local f=$!
	while [ "$(awk '{ print $3 }' /proc/$f/stat 2>/dev/null)" != T ]; do sleep 0.1; done
	# fio runs its job in a forked process: children=1 follows it.
	echo "\$ insmod iolayers.ko pid=$f children=1     # fio, stopped until loaded"
	insmod "$IOLAYERS_MODULE_DIR/iolayers.ko" pid="$f" children=1 || { rc=1; return; }
	kill -CONT $f
	wait $f
	echo
	echo "\$ cat /sys/kernel/debug/iolayers/summary"
	cat "$IOLAYERS_D/summary"
	echo
	echo "The slowest MISS read in /sys/kernel/debug/iolayers/flows (ns; *_off from sys_enter):"
	show_flow
	echo
	echo "\$ iolayers"
	"$IOLAYERS_REPO/userspace/iolayers" || rc=1
	echo
	echo "\$ iolayers -H -c MISS"
	"$IOLAYERS_REPO/userspace/iolayers" -H -c MISS || rc=1
	echo
	echo "\$ iolayers -t -c MISS"
	"$IOLAYERS_REPO/userspace/iolayers" -t -c MISS || rc=1
	echo
	echo "\$ iolayers --svg seed000-$1.svg"
	"$IOLAYERS_REPO/userspace/iolayers" --svg "/tmp/seed000-$1.svg" || rc=1
	# The host's / is read-only here: scripts/demo takes the SVG (and, for
	# scripts/capture-fixtures, the 4 KiB run's debugfs) from the console.
	echo "IOLAYERS_SVG seed000-$1.svg"
	cat "/tmp/seed000-$1.svg"
	echo "IOLAYERS_SVG_END"
	[ "$1" != 4k ] || dump_debugfs
	rmmod iolayers || rc=1
}

# An incident, recorded: fio's 4 KiB random reads of a file in the page
# cache, which is dropped halfway; the recording's per-second tables, its
# heatmap (taken out as the waterfalls are) and its Perfetto trace (the
# first MISS read's events).
incident() {
	local reader=$IOLAYERS_REPO/userspace/iolayers pid
	echo
	echo "=== an incident: fio --rw=randread --bs=4k on a cached file, the cache dropped after 2 s ==="
	cat /mnt/testfile >/dev/null
	# Some target to load with; record -- sets the command's pid.
	echo "\$ insmod iolayers.ko pid=1"
	insmod "$IOLAYERS_MODULE_DIR/iolayers.ko" pid=1 || { rc=1; return; }
	echo "\$ iolayers record -o /tmp/incident.rec -- fio --name=incident --filename=/mnt/testfile \\"
	echo "      --size=256m --rw=randread --bs=4k --ioengine=sync --direct=0 --invalidate=0 \\"
	echo "      --time_based --runtime=4 --thinktime=20"
	"$reader" record -o /tmp/incident.rec -- fio --name=incident --filename=/mnt/testfile \
		--size=256m --rw=randread --bs=4k --ioengine=sync --direct=0 --invalidate=0 \
		--time_based --runtime=4 --thinktime=20 >/tmp/incident.fio &
	pid=$!
	sleep 2
	echo 3 >/proc/sys/vm/drop_caches
	wait $pid || rc=1
	echo
	echo "\$ iolayers --from /tmp/incident.rec 1"
	"$reader" --from /tmp/incident.rec 1 || rc=1
	echo
	echo "\$ iolayers --from /tmp/incident.rec --heatmap incident-heatmap.svg"
	"$reader" --from /tmp/incident.rec --heatmap /tmp/incident-heatmap.svg || rc=1
	echo "IOLAYERS_SVG incident-heatmap.svg"
	cat /tmp/incident-heatmap.svg
	echo "IOLAYERS_SVG_END"
	echo
	echo "\$ iolayers --from /tmp/incident.rec --perfetto incident.trace.json"
	"$reader" --from /tmp/incident.rec --perfetto /tmp/incident.trace.json || rc=1
	python3 - /tmp/incident.trace.json <<'PY' || rc=1
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print("%d events: %s" % (len(ev), ", ".join("%d %s" % (sum(e["ph"] == p for e in ev), p)
	for p in sorted({e["ph"] for e in ev}))))
# The first MISS read: its slice, the layers nested in it (its thread's
# slices within it), the arrow to its disk and the disk's slice.
miss = next((e for e in ev if e["ph"] == "X" and e.get("args", {}).get("cache") == "MISS"), None)
if miss is None:
	sys.exit("no MISS read in the trace")
t0, t1 = miss["ts"], miss["ts"] + miss["dur"]
def within(e):
	return e["ph"] in ("X", "s", "f") and t0 <= e["ts"] <= t1 and (e["tid"] == miss["tid"] or
		e["pid"] != miss["pid"])
mine = [e for e in ev if within(e)]
print("the first MISS read's events:")
for e in mine[:12]:
	print(json.dumps(e, sort_keys=True))
PY
	rmmod iolayers || rc=1
}

scenario 4k 12m
scenario 128m 512m
incident
echo IOLAYERS_DEMO_END
exit $rc
