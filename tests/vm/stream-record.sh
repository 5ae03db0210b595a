#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: the stream (stream/events) taken by its two consumers
# on the whole read family, against ground truth the module did not
# produce: fio's own counts and logged offsets per job, one job for each
# read syscall, cached through iolayers record (a binary recording, read
# back by -J) and cold through events; then iolayers record against the
# reading program's own log
# (tests/vm/preadcheck.c), its --from, --files, -D and -- COMMAND, and a
# hang-up. What the stream's delivery does on each kernel (order, loss,
# batches, offline CPUs) is stream.sh's; this is the main kernels' test.
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
ev=$IOLAYERS_D/stream/events
reader=$IOLAYERS_REPO/userspace/iolayers
echo none >/sys/block/nvme0n1/queue/scheduler
if [ "${IOLAYERS_KERNEL:-}" = debug ]; then
	nfio=300 nslow=1500
else
	nfio=1200 nslow=3000
fi
# Its own file (a boot's later tests may have a vm-file named data).
PC_FILE=/mnt/st-data
dd if=/dev/zero of=$PC_FILE bs=1M count=32 status=none
sync

# 1. fio, one job per syscall of the read family: cached (the fastest
# reads of the test bed) through iolayers record, then cold through
# events, both with the default buffer: nothing lost, and per job the
# records of its file are fio's reads: its total_ios and io_bytes, and
# the offsets fio logged itself (write_iolog).
fio_jobs=
for e in sync psync vsync pvsync pvsync2; do
	dd if=/dev/zero of=/mnt/fio-$e bs=1M count=8 status=none
	fio_jobs="$fio_jobs --name=$e --ioengine=$e --filename=/mnt/fio-$e --write_iolog=/tmp/iolog-$e"
done
# fio_pass STATE: run fio under the module, STATE cached (iolayers record
# into /tmp/fio-cached.rec, -J of it into /tmp/fio-cached.out) or cold
# (cat events into /tmp/fio-cold.out), and check its reads.
fio_pass() {
	local state=$1 rpid reads e ino got want
	if [ "$state" = cached ]; then
		cat /mnt/fio-* >/dev/null
	else
		echo 3 >/proc/sys/vm/drop_caches
	fi
	rm -f /tmp/iolog-*	# fio appends to an existing log
	insmod "$ko" comm=fio
	if [ "$state" = cached ]; then
		# Default sizes: at most 1 MiB per CPU for both rings (their
		# bytes in stats).
		ncpu=$(nproc)
		rb=$(awk '$1 ~ /^(stream|slow)\// { n[substr($1, index($1, "/") + 1)] += $5 }
			END { for (c in n) if (n[c] > m) m = n[c]; print m + 0 }' "$IOLAYERS_D/stats")
		check "fio: default buffers take at most 1 MiB per CPU ($rb bytes on the largest CPU, stream_bytes $(stats_value stream_bytes) over $ncpu)" \
			test "$rb" -gt 0 -a "$rb" -le 1048576 -a "$(stats_value stream_bytes)" -le $((ncpu * 1048576))
	fi
	if [ "$state" = cold ]; then
		cat "$ev" >/tmp/fio-$state.out &
	else
		"$reader" record -o /tmp/fio-$state.rec 2>/dev/null &
	fi
	rpid=$!
	check "fio $state: the reader has the stream" wait_stream_reader
	# shellcheck disable=SC2086
	fio --eta=never --output-format=json --output=/tmp/fio.json --rw=randread --bs=4k \
		--size=8m --number_ios=$nfio $fio_jobs >/dev/null
	reads=$(summary_field syscall count)
	check "fio $state: every read accounted in the stream ($reads)" stream_accounted "$reads"
	sleep 1	# the reader's last read returns the rest of its last line
	# SIGTERM: a background job of a script ignores SIGINT (cat would
	# not stop); iolayers record stops and saves on either.
	kill $rpid
	wait $rpid 2>/dev/null
	# The binary recording as JSON lines (-J), for the count below.
	[ "$state" = cold ] ||
		check "fio $state: -J reads the binary recording" \
			bash -c '"$0" --from "$1" -J >"$2"' "$reader" /tmp/fio-$state.rec /tmp/fio-$state.out
	# Per job: count, bytes and the sorted offsets of its file's records,
	# and fio's total_ios, io_bytes and logged offsets; then what the
	# reader says it lost. One python3 for all (each start costs seconds
	# in an emulated guest).
	inos=
	for e in sync psync vsync pvsync pvsync2; do
		inos="$inos $e:$(stat -c %i /mnt/fio-$e)"
	done
	# shellcheck disable=SC2086
	python3 - /tmp/fio-$state.out $inos >/tmp/fio-$state.check <<'EOF2'
import json, sys
path = sys.argv[1]
lines = open(path).read().splitlines()
rows = {}
if lines and lines[0].startswith("{"):
    for r in (json.loads(l) for l in lines):
        if "seq" in r:
            rows.setdefault(str(r.get("ino")), []).append((r["pos"], r["ret"]))
    lost = json.loads(lines[-1])["lost"]
else:
    h = {n: i for i, n in enumerate(lines[0].split())}
    for t in (l.split() for l in lines[1:]):
        if not t[0].startswith("#"):
            rows.setdefault(t[h["ino"]], []).append((int(t[h["pos"]]), int(t[h["ret"]])))
    lost = sum(1 for l in lines if l.startswith("# lost"))
jobs = {x["jobname"]: x for x in json.load(open("/tmp/fio.json"))["jobs"]}
for arg in sys.argv[2:]:
    e, ino = arg.split(":")
    r = rows.get(ino, [])
    got = "%d %d %d" % (len(r), sum(x for _, x in r), hash(tuple(sorted(p for p, _ in r))) & 0xffffffff)
    j = jobs[e]
    # iolog v2 "FILE read OFFSET LENGTH"; v3 puts a time stamp first.
    offs = [int(t[t.index("read") + 1]) for t in (l.split() for l in open("/tmp/iolog-" + e))
            if "read" in t]
    if len(offs) != j["read"]["total_ios"]:
        want = "iolog-has-%d-of-%d" % (len(offs), j["read"]["total_ios"])
    else:
        want = "%d %d %d" % (j["read"]["total_ios"], j["read"]["io_bytes"],
                             hash(tuple(sorted(offs))) & 0xffffffff)
    print("%s|%s|%s" % (e, got, want))
print("lost|%d" % lost)
EOF2
	for e in sync psync vsync pvsync pvsync2; do
		got=$(awk -F'|' -v e=$e '$1 == e { print $2 }' /tmp/fio-$state.check)
		want=$(awk -F'|' -v e=$e '$1 == e { print $3 }' /tmp/fio-$state.check)
		check "fio $state $e: records of its file == fio's total_ios, io_bytes, logged offsets ($got, $want)" \
			test -n "$got" -a "$got" = "$want"
	done
	got=$(awk -F'|' '$1 == "lost" { print $2 }' /tmp/fio-$state.check)
	check "fio $state: nothing lost at the default buffer ($got, $(stats_value stream_lost))" \
		test "$got/$(stats_value stream_lost)" = 0/0
	rmmod iolayers
}
fio_pass cached
fio_pass cold

# 2. iolayers record: the whole read family again, recorded (a binary
# recording, read back as JSON lines by -J) until Ctrl-C, against the
# program's own log; then `-- COMMAND` (dd, its reads counted by itself,
# recorded as JSON lines by record --json) until the command exits.
echo 3 >/proc/sys/vm/drop_caches
stopped_pc rec $nslow rand mixed || exit 1
insmod "$ko" pid=$PC_PID
rm -f /tmp/rec.bin*
"$reader" record -o /tmp/rec.bin 2>/tmp/rec.err &
rec_pid=$!
check "record: it has the stream" wait_stream_reader
# The live intervals of the same run, beside the recorder: from its
# first interval's line on (its first snapshot taken before the reads).
"$reader" -j 1 >/tmp/live.jl 2>/tmp/live.err &
live_pid=$!
for _ in $(seq 100); do
	[ -s /tmp/live.jl ] && break
	sleep 0.1
done
kill -CONT $PC_PID
wait $PC_PID
reads=$(summary_field syscall count)
stream_accounted "$reads"
kill -INT $rec_pid
wait $rec_pid
rc=$?
echo "record: $(cat /tmp/rec.err)"
check "record: Ctrl-C saves and exits 0 ($rc)" test "$rc" = 0
check "record: -J turns the binary recording into JSON lines" \
	bash -c '"$0" --from /tmp/rec.bin -J >/tmp/rec.jsonl' "$reader"
# Intervals: the live reader's per-second deltas (a second after the
# last read, then Ctrl-C) and the recording's per-second views hold every
# read, and each of the recording's intervals holds the reads that ended
# in that second of the wall clock, counted here from -J's reads and the
# header's clock anchor.
sleep 1.5
kill -INT $live_pid
wait $live_pid
"$reader" --from /tmp/rec.bin -j 1 >/tmp/rec.jl
got=$(python3 - /tmp/live.jl /tmp/rec.jl /tmp/rec.jsonl <<'EOF2'
import collections, json, sys
count = lambda o: sum(o["cache"].values())
live = sum(count(json.loads(l)) for l in open(sys.argv[1]))
rec = [count(json.loads(l)) for l in open(sys.argv[2])]
objs = [json.loads(l) for l in open(sys.argv[3])]
clock = objs[0]["clock"]
off = clock["realtime_ns"] - clock["monotonic_ns"]
sec = collections.Counter((o["start_ns"] + o["syscall_ns"] + off) // 10**9 for o in objs if "seq" in o)
want = [sec[k] for k in sorted(sec)]
print(live, sum(rec), len(rec), int(rec == want))
EOF2
)
check "record: intervals: live $(echo "$got" | cut -d' ' -f1), recorded $(echo "$got" | cut -d' ' -f2) in $(echo "$got" | cut -d' ' -f3) seconds, each second's reads as their end times say ($got)" \
	test "$got" = "$reads $reads $(echo "$got" | cut -d' ' -f3) 1"
python3 - /tmp/rec.jsonl /tmp/rec.pclog "$PC_PID" <<'EOF2' >/tmp/rec.res
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
head, tail, body = objs[0], objs[-1], objs[1:-1]
reads = [o for o in body if "seq" in o]
lost = sum(o["lost"] for o in body if "lost" in o)
mine = [o for o in reads if o["tid"] == int(sys.argv[3])]
truth = [l.split() for l in open(sys.argv[2])]
same = sum(1 for o, t in zip(mine, truth)
           if (o["syscall"], str(o["pos"]), str(o["ret"])) == (t[0], t[1], t[3]))
wrong = sum(1 for o, t in zip(mine, truth) if (t[2] == "1") != (o["cache"] == "HIT"))
ok_head = head.get("iolayers_record") == 1 and head["settings"]["pid"] == sys.argv[3] and \
    head["format"] > 0 and head["kernel"] != ""
print(len(mine), len(truth), same, wrong, lost, tail.get("end"), tail.get("reads"),
      len(reads), int(ok_head))
EOF2
read -r n ntruth same wrong lost end treads nreads head_ok </tmp/rec.res
check "record: every line is JSON, header names the settings ($head_ok)" test "$head_ok" = 1
check "record: one object per read, in order, as the program logged ($n == $ntruth, $same same)" \
	test "$n/$same" = "$ntruth/$ntruth"
check "record: labels agree with mincore +-1% ($wrong off)" test $((wrong * 100 / n)) -eq 0
check "record: trailer counts the reads, nothing lost ($end $treads == $nreads, $lost)" \
	test "$end/$treads/$lost" = "True/$nreads/0"
# Offline views of the recording print what the live ones print: the
# module's histograms hold exactly the recorded reads. Past the first
# line: the program has exited, so the live module follows no pid now
# (pid= is cleared at its exit), while the recording names it.
# Its percentiles are the recording's own (within 0.4 %), the module's
# interpolated in log2 buckets: the columns up to BYTES and MAX compare.
# The JSON lines of it print the same as the binary recording, all of it.
# table_cols: the table on stdin, its rows' compared columns.
table_cols() {
	awk '/^  [a-z]/ && NF >= 8 { print $1, $(NF-6), $(NF-5), $(NF-1), $NF; next }
	     !/^recording: / { print }'
}
"$reader" >/tmp/live.out && "$reader" --from /tmp/rec.bin >/tmp/from.out
tail -n +2 /tmp/live.out | table_cols >/tmp/live.table
tail -n +2 /tmp/from.out | table_cols >/tmp/from.table
check "record: --from prints the live table" \
	bash -c 'grep -q "^syscall " /tmp/from.table && cmp /tmp/live.table /tmp/from.table'
"$reader" -H >/tmp/live.out && "$reader" --from /tmp/rec.bin -H >/tmp/from.out
tail -n +2 /tmp/live.out >/tmp/live.hist
tail -n +3 /tmp/from.out >/tmp/from.hist
check "record: --from -H prints the live histograms" \
	bash -c 'grep -q "^layer = syscall" /tmp/from.hist && cmp /tmp/live.hist /tmp/from.hist'
diff /tmp/live.table /tmp/from.table | head -20
"$reader" --from /tmp/rec.bin | head -14
# The table and -j here, of the module's recording; every other view on
# the host (userspace/tests/check-views.sh, the reader step), where it
# does not cost the guest 4 s a view.
for v in "" -j; do
	# shellcheck disable=SC2086
	"$reader" --from /tmp/rec.bin $v >/tmp/v.bin 2>&1
	rb=$?
	# shellcheck disable=SC2086
	"$reader" --from /tmp/rec.jsonl $v >/tmp/v.json 2>&1
	rj=$?
	check "record: --from ${v:-(table)} prints the same of the binary recording and its JSON lines ($rb, $rj)" \
		bash -c '[ "$0/$1" = 0/0 ] && [ -s /tmp/v.bin ] && cmp /tmp/v.bin /tmp/v.json' "$rb" "$rj"
done
# Perfetto: the recording as a trace whose structure follows the format's
# rules, every read once, the program's reads on its thread's track with
# arrows to their requests on the disk's (cold: the misses have some).
"$reader" --from /tmp/rec.bin --perfetto /tmp/rec.trace.json >/dev/null &&
	python3 "$IOLAYERS_REPO/userspace/tests/check-perfetto.py" /tmp/rec.trace.json "$ntruth" \
		>/tmp/pc.out 2>&1
rc=$?
flows=$(sed -n 's/.* \([0-9]*\) flows,.*/\1/p' /tmp/pc.out)
check "record: --perfetto: a valid trace of the $ntruth reads, with arrows to their requests ($rc, $(cat /tmp/pc.out))" \
	test "$rc" = 0 -a "${flows:-0}" -gt 0
"$reader" --from /tmp/rec.bin --files >/tmp/from.files
cat /tmp/from.files
n=$(awk '$NF == "/mnt/st-data" { print $1 }' /tmp/from.files)
check "record: --files from it: /mnt/st-data with every read ($n == $ntruth)" test "$n" = "$ntruth"
"$reader" --from /tmp/rec.bin -D >/tmp/from.disks
n=$(grep -c '^disk = nvme0n1, layer = ' /tmp/from.disks)
check "record: -D from it: nvme0n1's queue, service and device histograms ($n)" test "$n" = 3
rmmod iolayers
insmod "$ko" pid=1
LC_ALL=C "$reader" record --json -o /tmp/dd.jsonl -- dd if=/mnt/st-data of=/dev/null bs=4k count=1000 \
	2>/tmp/dd.err
rc=$?
cat /tmp/dd.err
ino=$(stat -c %i /mnt/st-data)
got=$(python3 -c 'import json, sys
o = [json.loads(l) for l in open(sys.argv[1])]
r = [x for x in o if x.get("ino") == int(sys.argv[2]) and x.get("syscall") == "read"]
pos = all(x["pos"] == i * 4096 for i, x in enumerate(r))
print(len(r), sum(x["ret"] for x in r), int(pos), o[-1]["lost"])' /tmp/dd.jsonl "$ino")
check "record -- dd: exit 0, dd's 1000 reads of 4 KiB at 0, 4096, ... ($rc, $got)" \
	test "$rc/$got" = "0/1000 4096000 1 0"
grep -q "^1000+0 records in" /tmp/dd.err
check "record -- dd: dd says so too" test $? = 0
# --csv: seed 000's event schema, rows per event; dd on a cold cache.
echo 3 >/proc/sys/vm/drop_caches
LC_ALL=C "$reader" record --csv -o /tmp/dd.csv -- dd if=/mnt/st-data of=/dev/null bs=4k count=500 \
	2>/tmp/dd.err
rc=$?
got=$(python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head, body = rows[0], rows[1:]
want = "Time,Hier,Stage,TGID,TID,Comm,CPU,Flow_SYSCALL,Flow_VFS,Flow_FS,Bytes,LBA/NR,SectorSz,ReqPtr,DevDisk,Flow_SYSCALL_Lat,Flow_VFS_Lat,Flow_FS_Lat,Queue_Lat,Service_Lat,Device_Lat,Cache_State,IsDirect".split(",")
c = {n: i for i, n in enumerate(head)}
ex = {r[c["Flow_SYSCALL"]]: r for r in body if r[c["Stage"]] == "exit" and r[c["Bytes"]] == "4096"}
en = {r[c["Flow_SYSCALL"]]: r for r in body if r[c["Hier"]] == "SYSCALL" and r[c["Stage"]] == "enter"}
lat_ok = all(int(ex[k][c["Time"]]) - int(en[k][c["Time"]]) == int(ex[k][c["Flow_SYSCALL_Lat"]]) for k in ex)
blk = [r for r in body if r[c["Hier"]] == "BLOCK" and r[c["Stage"]] == "complete" and r[c["Service_Lat"]]]
print(int(head == want), len(ex), int(lat_ok), int(len(blk) > 0), int(all(len(r) == len(head) for r in body)))' /tmp/dd.csv)
check "record --csv -- dd: the schema, 500 reads, enter + latency == exit, block rows ($rc, $got)" \
	test "$rc/$got" = "0/1 500 1 1 1"
# A hang-up (the terminal closed) saves the recording as Ctrl-C does: it
# was left in its temporary file beside FILE.
rm -f /tmp/hup.rec*
"$reader" record -o /tmp/hup.rec 2>/tmp/hup.err &
rec_pid=$!
check "record: it has the stream (hang-up)" wait_stream_reader
kill -HUP $rec_pid
wait $rec_pid
rc=$?
# --strict refuses a recording without its trailer.
"$reader" --from /tmp/hup.rec --strict >/dev/null 2>&1
end=$?
check "record: a hang-up saves FILE with its trailer, exit 0, no temporary file left ($rc, $end, $(ls /tmp/hup.rec* | wc -l))" \
	test "$rc/$end/$(ls /tmp/hup.rec* | wc -l)" = "0/0/1"
rmmod iolayers

finish
