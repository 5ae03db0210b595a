#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest diagnosis, not part of make check: stream.sh's first case (the
# whole read family on a half-cached file, every read through
# stream/events) IOLAYERS_ROUNDS times in one boot. After each round it
# compares the stream with the program's own log of its reads and, when a
# read is missing, says which (its index, syscall, offset, cache state in
# mincore) and prints the module's per-CPU buffer accounting.
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
ev=$IOLAYERS_D/stream/events
rounds=${IOLAYERS_ROUNDS:-10}
n=${IOLAYERS_STRESS_READS:-5000}
echo none >/sys/block/nvme0n1/queue/scheduler
PC_FILE=/mnt/ss-data
dd if=/dev/zero of=$PC_FILE bs=1M count=32 status=none
sync

# A round takes seconds: a step that has not ended after a minute is stuck.
# Say which, and what every task and CPU is doing, once per stuck step.
phase() { echo "$r $*" >/tmp/ss.phase; }
(
	last= same=0
	while sleep 5; do
		cur=$(cat /tmp/ss.phase 2>/dev/null)
		if [ "$cur" != "$last" ]; then
			last=$cur same=0
			continue
		fi
		same=$((same + 5))
		[ $same = 60 ] || continue
		echo "# stuck for 60 s in round/step: $cur"
		ps -eo pid,stat,wchan:32,comm | grep -v ' \[' || true
		for p in $(pgrep -x 'cat|preadcheck|rmmod|insmod|dd'); do
			echo "# stack of $p ($(cat /proc/$p/comm 2>/dev/null)):"
			cat /proc/$p/task/*/stack 2>/dev/null
		done
		sed -n '/^buffer/,/^stream_lost/p' "$IOLAYERS_D/stats" 2>/dev/null
		echo l >/proc/sysrq-trigger
		echo w >/proc/sysrq-trigger
	done
) &
watcher=$!
trap 'kill $watcher 2>/dev/null' EXIT
for r in $(seq "$rounds"); do
	phase drop_caches
	echo 3 >/proc/sys/vm/drop_caches
	dd if=/mnt/ss-data of=/dev/null bs=1M count=16 status=none
	phase stopped_pc
	stopped_pc s "$n" rand mixed || exit 1
	pid=$PC_PID
	phase insmod
	insmod "$ko" pid=$pid
	cat "$ev" >/tmp/s.ev &
	cat_pid=$!
	phase wait_stream_reader
	wait_stream_reader
	phase reads
	kill -CONT $pid
	wait $pid
	reads=$(summary_field syscall count)
	phase stream_accounted
	stream_accounted "$reads"
	phase compare
	sleep 0.5
	kill $cat_pid
	wait $cat_pid 2>/dev/null
	res=$(python3 - /tmp/s.ev /tmp/s.pclog "$pid" <<'EOF'
import sys
evf, logf, pid = sys.argv[1:]
lines = open(evf).read().split("\n")
hdr = lines[0].split()
col = {n: i for i, n in enumerate(hdr)}
data = [l.split() for l in lines[1:-1] if not l.startswith("#")]
lost = [l for l in lines[1:-1] if l.startswith("#")]
mine = [d for d in data if d[col["tid"]] == pid]
truth = [l.split() for l in open(logf)]
i = 0
while i < min(len(mine), len(truth)) and \
        (mine[i][col["syscall"]], mine[i][col["pos"]], mine[i][col["ret"]]) == \
        (truth[i][0], truth[i][1], truth[i][3]):
    i += 1
out = "records %d truth %d lost-lines %d" % (len(mine), len(truth), len(lost))
if len(mine) != len(truth) or i < len(truth):
    out += " first-difference %d" % i
    if i < len(truth):
        out += " truth %s" % " ".join(truth[i])
    seqs = [int(d[col["seq"]]) for d in mine]
    gaps = [(a, b) for a, b in zip(seqs, seqs[1:]) if b != a + 1]
    out += " seq-gaps %s" % gaps[:5]
    for j in range(max(0, i - 2), min(len(mine), i + 2)):
        out += "\n  stream[%d]: %s" % (j, " ".join(mine[j][:14]))
print(out)
EOF
)
	echo "round $r: reads $reads delivered $(stats_value stream_delivered) lost $(stats_value stream_lost): $res"
	case $res in
	*first-difference*)
		not_ok "round $r: a read is missing"
		sed -n '/^buffer/,/^stream_lost/p' "$IOLAYERS_D/stats"
		grep -E '^(drops|dropped|missed)' "$IOLAYERS_D/stats"
		;;
	*) ok "round $r: every read in the stream" ;;
	esac
	phase rmmod
	rmmod iolayers
done
finish
