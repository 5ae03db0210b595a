#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: stream/events, the stream of completed reads, against
# ground truth the module did not produce: each read's syscall, offset,
# return value and mincore() residency as the reading program logged them
# (tests/vm/preadcheck.c, PC_LOG), fio's own counts per job (total_ios,
# io_bytes) for every syscall of the read family, stat(1)'s inode and
# device, the disk's major:minor in sysfs. Then a consumer too slow for
# the reads: what it got plus what it was told was lost is every read;
# one reader at a time; rmmod with a reader blocked; cat of the directory;
# records left on a CPU that went offline; batches (batch_us).
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
ev=$IOLAYERS_D/stream/events
echo none >/sys/block/nvme0n1/queue/scheduler
if [ "${IOLAYERS_KERNEL:-}" = debug ]; then
	nmixed=1500 nfio=300 nslow=1500
else
	nmixed=5000 nfio=1200 nslow=3000
fi
# Its own file (a boot's later tests may have a vm-file named data).
PC_FILE=/mnt/st-data
dd if=/dev/zero of=$PC_FILE bs=1M count=32 status=none
sync

# 1. The whole read family on a half-cached file, every read in the stream.
echo 3 >/proc/sys/vm/drop_caches
dd if=/mnt/st-data of=/dev/null bs=1M count=16 status=none
stopped_pc mixed $nmixed rand mixed || exit 1
insmod "$ko" pid=$PC_PID
cat "$ev" >/tmp/mixed.ev &
cat_pid=$!
check "mixed: the reader has the stream" wait_stream_reader
err=$(cat "$ev" 2>&1 >/dev/null)
check "a second reader is refused ($err)" grep -q "Device or resource busy" <<<"$err"
kill -CONT $PC_PID
wait $PC_PID
echo "mixed: preadcheck: $(cat /tmp/mixed.pcout)"
reads=$(summary_field syscall count)
check "mixed: every read accounted in the stream ($reads)" stream_accounted "$reads"
sleep 1
# The reader sleeps in events now: the module is in use, unloading is refused.
out=$(rmmod iolayers 2>&1)
check "rmmod with a reader blocked in events is refused ($out)" \
	test -d /sys/module/iolayers -a -n "$out"
kill $cat_pid
wait $cat_pid 2>/dev/null
read -r ino fsdev <<<"$(stat -c '%i %Hd:%Ld' /mnt/st-data)"
disk=$(cat /sys/block/nvme0n1/dev)
python3 - /tmp/mixed.ev /tmp/mixed.pclog "$PC_PID" "$ino" "$fsdev" "$disk" <<'EOF' >/tmp/mixed.res
import sys
evf, logf, pid, ino, fsdev, disk = sys.argv[1:]
lines = open(evf).read().split("\n")
assert lines[-1] == ""
hdr = lines[0].split()
col = {n: i for i, n in enumerate(hdr)}
data = [l.split() for l in lines[1:-1] if not l.startswith("#")]
lost = sum(int(l.split()[2]) for l in lines[1:-1] if l.startswith("# lost"))
mine = [d for d in data if d[col["tid"]] == pid]
truth = [l.split() for l in open(logf)]
same = sum(1 for d, t in zip(mine, truth)
           if (d[col["syscall"]], d[col["pos"]], d[col["ret"]]) == (t[0], t[1], t[3]))
wrong = 0
for d, t in zip(mine, truth):
    c = d[col["cache"]]
    if (t[2] == "1") != (c == "HIT") or c not in ("HIT", "MISS", "PARTIAL"):
        wrong += 1
ends = [int(d[col["start_ns"]]) + int(d[col["syscall_ns"]]) for d in data]
unordered = sum(1 for a, b in zip(ends, ends[1:]) if b < a)
badfile = sum(1 for d in mine if (d[col["ino"]], d[col["fs_dev"]]) != (ino, fsdev))
withrq = [d for d in mine if d[col["rqs"]] != "0"]
baddev = sum(1 for d in withrq if (d[col["dev"]], d[col["ndisks"]]) != (disk, "1"))
calls = len(set(d[col["syscall"]] for d in mine))
# The first read of the program's log the stream does not have in its place.
first = next((i for i, (d, t) in enumerate(zip(mine, truth))
              if (d[col["syscall"]], d[col["pos"]], d[col["ret"]]) != (t[0], t[1], t[3])),
             min(len(mine), len(truth)))
print(len(mine), len(truth), same, wrong, unordered, badfile, len(withrq), baddev, calls, lost,
      len(data), int(hdr == open("/sys/kernel/debug/iolayers/flows").readline().split()),
      first, ",".join(truth[first]) if first < len(truth) else "-")
EOF
read -r n ntruth same wrong unordered badfile nrq baddev calls lost ndata hdr_ok first firstread \
	</tmp/mixed.res
read -r compared outside worst nested <<<"$(python3 "$IOLAYERS_REPO/tests/vm/check-times.py" \
	/tmp/mixed.ev /tmp/mixed.pclog "$PC_PID")"
echo "mixed: the stream's first lines:"
head -4 /tmp/mixed.ev
echo "mixed: records $n of $ntruth reads, $same matched, $wrong labels off mincore, $nrq with requests"
check "mixed: the stream's header is flows' ($hdr_ok)" test "$hdr_ok" = 1
check "mixed: one record per read ($n == $ntruth == $reads, $ndata in all)" \
	test "$n/$ntruth/$ndata" = "$reads/$reads/$reads"
check "mixed: each in the program's order with its syscall, offset and return ($same == $n)" \
	test "$same" = "$n"
if [ "$n/$same" != "$ntruth/$ntruth" ]; then
	# What finding a missing record needs: which read, and each CPU's
	# buffer accounting.
	echo "mixed: the program's read $first ($firstread) is the first the stream lacks"
	sed -n '/^buffer/,/^stream_lost/p' "$IOLAYERS_D/stats"
fi
check "mixed: all five read syscalls ($calls)" test "$calls" = 5
check "mixed: every read's time lies within the program's clock reads around it ($outside of $compared outside by more than 2 us; at most $worst ns; clock_tsc $(stats_value clock_tsc), clock_gaps $(stats_value clock_gaps))" \
	test "$outside" = 0 -a "$compared" = "$n"
check "mixed: VFS and FS times lie within the syscall's ($nested do not)" test "$nested" = 0
check "mixed: labels agree with mincore +-1% ($wrong off)" test $((wrong * 100 / n)) -eq 0
check "mixed: records in completion order ($unordered out of order)" test "$unordered" = 0
check "mixed: every record names the file ($badfile wrong)" test "$badfile" = 0
check "mixed: reads with requests name the disk $disk ($baddev wrong of $nrq)" \
	test "$baddev" = 0 -a "$nrq" -gt 0
check "mixed: nothing lost ($lost, $(stats_value stream_lost))" \
	test "$lost/$(stats_value stream_lost)" = 0/0
check "mixed: the module says it delivered them ($(stats_value stream_delivered))" \
	test "$(stats_value stream_delivered)" = "$reads"
check "mixed: files names the file's path ($(grep -c /mnt/st-data "$IOLAYERS_D/files"))" \
	grep -qx "$fsdev $ino /mnt/st-data" "$IOLAYERS_D/files"
check "mixed: rmmod once the reader is gone" rmmod iolayers

# 2. fio, one job per syscall of the read family: cached (the fastest
# reads of the test bed) through events, then cold through iolayers
# record, both with the default buffer: nothing lost, and per job the
# records of its file are fio's reads: its total_ios and io_bytes, and
# the offsets fio logged itself (write_iolog).
reader=$IOLAYERS_REPO/userspace/iolayers
fio_jobs=
for e in sync psync vsync pvsync pvsync2; do
	dd if=/dev/zero of=/mnt/fio-$e bs=1M count=8 status=none
	fio_jobs="$fio_jobs --name=$e --ioengine=$e --filename=/mnt/fio-$e --write_iolog=/tmp/iolog-$e"
done
# fio_pass STATE: run fio under the module, STATE cached (read by cat
# events into /tmp/fio-cached.out) or cold (iolayers record into
# /tmp/fio-cold.out), and check its reads.
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
		"$reader" record -o /tmp/fio-$state.out 2>/dev/null &
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

# 3. A consumer far too slow (256 bytes every 20 ms) behind the smallest
# buffer: exact accounting, records delivered + lost == reads made.
cat /mnt/st-data >/dev/null
stopped_pc slow $nslow seq || exit 1
insmod "$ko" pid=$PC_PID buffer_kb=16
PYTHONPATH=$IOLAYERS_REPO/tests/vm python3 - "$ev" /tmp/slow.ev "$nslow" <<'EOF' &
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
out = open(sys.argv[2], "wb")
want = int(sys.argv[3])
from streamstats import accounted
while accounted() < want:
    out.write(os.read(fd, 256))
    time.sleep(0.02)
# The rest of the last record's line (it was counted when it was taken).
os.set_blocking(fd, False)
try:
    while True:
        b = os.read(fd, 65536)
        if not b:
            break
        out.write(b)
except BlockingIOError:
    pass
out.close()
EOF
py_pid=$!
check "slow: the reader has the stream" wait_stream_reader
kill -CONT $PC_PID
wait $PC_PID
echo "slow: preadcheck: $(cat /tmp/slow.pcout)"
reads=$(summary_field syscall count)
timeout 120 tail --pid=$py_pid -f /dev/null
wait $py_pid
got=$(grep -vc '^#' /tmp/slow.ev)
got=$((got - 1))	# the header
lost=$(awk '/^# lost/ { s += $3 } END { print s + 0 }' /tmp/slow.ev)
over=$(awk '$1 ~ /^stream\// { s += $3 } END { print s + 0 }' "$IOLAYERS_D/stats")
echo "slow: $reads reads, $got delivered, $lost lost, buffers overwrote $over"
grep -m3 '^# lost' /tmp/slow.ev
sed -n '/^buffer /,$p' "$IOLAYERS_D/stats"
check "slow: the program's reads are the module's ($reads == $nslow)" test "$reads" = "$nslow"
check "slow: delivered + lost == reads exactly ($got + $lost == $reads)" \
	test $((got + lost)) = "$reads"
check "slow: the consumer did fall behind ($lost lost > 0)" test "$lost" -gt 0
check "slow: stats agree (delivered $(stats_value stream_delivered), lost $(stats_value stream_lost))" \
	test "$(stats_value stream_delivered)/$(stats_value stream_lost)" = "$got/$lost"
check "slow: what was lost is what the rings overwrote ($lost == $over)" test "$lost" = "$over"
# Every directory entry at once returns: the stream is in a subdirectory.
timeout 60 cat "$IOLAYERS_D"/* >/dev/null 2>&1
check "cat of every file returns (exit $?, not 124)" test $? -ne 124
rmmod iolayers

# 4. iolayers record: the whole read family again, recorded as JSON lines
# until Ctrl-C, against the program's own log; then `-- COMMAND` (dd, its
# reads counted by itself) until the command exits.
echo 3 >/proc/sys/vm/drop_caches
stopped_pc rec $nslow rand mixed || exit 1
insmod "$ko" pid=$PC_PID
"$reader" record -o /tmp/rec.jsonl 2>/tmp/rec.err &
rec_pid=$!
check "record: it has the stream" wait_stream_reader
kill -CONT $PC_PID
wait $PC_PID
reads=$(summary_field syscall count)
stream_accounted "$reads"
kill -INT $rec_pid
wait $rec_pid
rc=$?
echo "record: $(cat /tmp/rec.err)"
check "record: Ctrl-C saves and exits 0 ($rc)" test "$rc" = 0
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
"$reader" | tail -n +2 >/tmp/live.table &&
	"$reader" --from /tmp/rec.jsonl | tail -n +2 >/tmp/from.table
check "record: --from prints the live table" cmp /tmp/live.table /tmp/from.table
"$reader" -H | tail -n +2 >/tmp/live.hist &&
	"$reader" --from /tmp/rec.jsonl -H | tail -n +2 >/tmp/from.hist
check "record: --from -H prints the live histograms" cmp /tmp/live.hist /tmp/from.hist
diff /tmp/live.table /tmp/from.table | head -20
head -12 /tmp/from.table
"$reader" --from /tmp/rec.jsonl --files >/tmp/from.files
cat /tmp/from.files
n=$(awk '$NF == "/mnt/st-data" { print $1 }' /tmp/from.files)
check "record: --files from it: /mnt/st-data with every read ($n == $ntruth)" test "$n" = "$ntruth"
"$reader" --from /tmp/rec.jsonl -D >/tmp/from.disks
n=$(grep -c '^disk = nvme0n1, layer = ' /tmp/from.disks)
check "record: -D from it: nvme0n1's queue, service and device histograms ($n)" test "$n" = 3
rmmod iolayers
insmod "$ko" pid=1
LC_ALL=C "$reader" record -o /tmp/dd.jsonl -- dd if=/mnt/st-data of=/dev/null bs=4k count=1000 \
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
rm -f /tmp/hup.jsonl*
"$reader" record -o /tmp/hup.jsonl 2>/tmp/hup.err &
rec_pid=$!
check "record: it has the stream (hang-up)" wait_stream_reader
kill -HUP $rec_pid
wait $rec_pid
rc=$?
end=$(tail -n 1 /tmp/hup.jsonl 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin).get("end"))' 2>&1)
check "record: a hang-up saves FILE with its trailer, exit 0, no temporary file left ($rc, $end, $(ls /tmp/hup.jsonl* | wc -l))" \
	test "$rc/$end/$(ls /tmp/hup.jsonl* | wc -l)" = "0/True/1"
rmmod iolayers

# 5. flows=0 keeps no record: no stream either, and it says so.
insmod "$ko" pid=1 flows=0
err=$(cat "$ev" 2>&1)
check "flows=0: events refuses to open ($err)" grep -q "No data available" <<<"$err"
rmmod iolayers

# 6. Batches (batch_us): a program reading 40 times, 50 ms apart, under
# a reader blocked in read(). Ground truth: the program's own 40 preads.
# With batch_us=0 each read wakes the reader and is taken on its own;
# with 300 ms they come in a few batches, none much later than the
# bound, and some at least 250 ms after they ended (the reader did wait:
# no timer ends a wait early). Then the half-full ring: batch_us=1 s
# behind the smallest buffer and a burst of cached reads, shorter than
# that second: the reader is woken at half a ring, not at the second's
# end (how much it then takes depends on how fast it is: python is not).
# spaced_pass BATCH_US: prints "calls records latest_us reads batches
# ms", ms how long the program took from its first read to its last.
spaced_pass() {
	local prog rd reads
	python3 - /mnt/st-data <<'PY' >/tmp/spaced.t &
import os, signal, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
os.kill(os.getpid(), signal.SIGSTOP)
t0 = time.monotonic()
for i in range(40):
    os.pread(fd, 4096, i * 4096)
    if i < 39:
        time.sleep(0.05)
print(int((time.monotonic() - t0) * 1000))
PY
	prog=$!
	while [ "$(task_state $prog)" != T ]; do
		kill -0 $prog 2>/dev/null || return 1
		sleep 0.1
	done
	insmod "$ko" pid=$prog batch_us="$1" || { kill -9 $prog; return 1; }
	PYTHONPATH=$IOLAYERS_REPO/tests/vm python3 - "$ev" 40 <<'PY' >/tmp/spaced.out &
import os, sys, time
from streamstats import Lines
fd = os.open(sys.argv[1], os.O_RDONLY)
want, calls, recs, latest, rs = int(sys.argv[2]), 0, 0, 0, Lines()
end = time.monotonic() + 60
while recs < want and time.monotonic() < end:
    b = os.read(fd, 1 << 20)
    now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    calls += 1
    for t in rs.feed(b):
        if t[0] != "#":
            recs += 1
            latest = max(latest, rs.waited(t, now))
print(calls, recs, latest // 1000)
PY
	rd=$!
	if ! wait_stream_reader; then
		kill -9 $prog $rd
		rmmod iolayers
		return 1
	fi
	kill -CONT $prog
	wait $prog
	timeout 90 tail --pid=$rd -f /dev/null
	kill -9 $rd 2>/dev/null
	wait $rd
	reads=$(summary_field syscall count)
	echo "$(cat /tmp/spaced.out) $reads $(stats_value stream_batches) $(cat /tmp/spaced.t)"
	rmmod iolayers
}
read -r calls recs latest reads batches ms <<<"$(spaced_pass 0)"
echo "batch_us=0: $calls read() calls, $recs records, latest $latest us, $reads reads, $batches batches, the program's reads over $ms ms"
check "batch_us=0: the program's 40 reads, each in the stream ($recs == $reads == 40)" \
	test "$recs/$reads" = 40/40
check "batch_us=0: the reader woke for each read, 50 ms apart ($calls calls >= 27)" \
	test "$calls" -ge 27
read -r calls recs latest reads batches ms <<<"$(spaced_pass 300000)"
echo "batch_us=300000: $calls read() calls, $recs records, latest $latest us, $reads reads, $batches batches, the program's reads over $ms ms"
check "batch_us=300000: the program's 40 reads, each in the stream ($recs == $reads == 40)" \
	test "$recs/$reads" = 40/40
# A batch at most every 300 ms of the program's reads, and the header's
# read, the first batch's, the last's and one to spare (one read() a
# record would be 41).
check "batch_us=300000: taken in batches ($calls calls <= ${ms:-0} ms / 300 + 4, $batches waits)" \
	test "$calls" -le $((${ms:-0} / 300 + 4)) -a "$batches" -ge 1
check "batch_us=300000: some waited for their batch, none long past it (latest $latest us: 250000..1300000)" \
	test "$latest" -ge 250000 -a "$latest" -le 1300000

cat /mnt/st-data >/dev/null
stopped_pc burst $nslow seq || exit 1
insmod "$ko" pid=$PC_PID buffer_kb=16 batch_us=1000000
PYTHONPATH=$IOLAYERS_REPO/tests/vm python3 - "$ev" "$nslow" <<'PY' >/tmp/burst.out &
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
from streamstats import Lines, accounted
want, got, lost, first, rs = int(sys.argv[2]), 0, 0, None, Lines()
while accounted() < want or rs.buf:
    b = os.read(fd, 1 << 20)
    now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    for t in rs.feed(b):
        if t[0] == "#":
            lost += int(t[2]) if t[1] == "lost" else 0
        else:
            got += 1
            # How long the first record taken had waited.
            if first is None:
                first = rs.waited(t, now) // 1000
print(got, lost, first)
PY
rd=$!
check "burst: the reader has the stream" wait_stream_reader
kill -CONT $PC_PID
wait $PC_PID
reads=$(summary_field syscall count)
timeout 120 tail --pid=$rd -f /dev/null
wait $rd
read -r got lost first <<<"$(cat /tmp/burst.out)"
ring=$(awk '$1 == "stream/0" { print $5 }' "$IOLAYERS_D/stats")
echo "# burst: $reads reads, $got delivered, $lost lost, ring of $ring bytes, $(stats_value stream_batches) batches, $(stats_value stream_batch_full) ended by a half-full ring"
check "burst: delivered + lost == the program's reads ($got + $lost == $reads == $nslow)" \
	test $((got + lost)) = "$reads" -a "$reads" = "$nslow"
# The producer's wake-up on a half-full ring: the first record taken had
# waited far less than the batch's second (853 ms with that wake-up
# removed, 13 ms alone and 139-206 ms beside other guests with it). How
# many waits it ended (stream_batch_full) is shown, not asserted: on a
# loaded host the reader may find the ring half full before it ever
# waits (make check of 8cf3a17: 0, the first record 206 ms late, 1123
# of 3000 lost).
check "burst: the first record taken had waited far less than batch_us's second ($first us < 600000)" \
	test "${first:-1000000}" -lt 600000
rmmod iolayers

# 7. Records left on a CPU that went offline: the ring buffer keeps them
# there. The reader is stopped while a program pinned to cpu1 reads, cpu1
# goes offline, the reader goes on: it is given every read (they are
# taken from the offline CPU's buffer too), and it still ends on a
# signal. Before, the reader looked at online CPUs only while the ring
# buffer said records were left: it spun in read(), SIGKILL could not
# end it, and the module could not be unloaded.
cpu1=/sys/devices/system/cpu/cpu1/online
if [ "$(nproc)" -ge 2 ] && [ -w $cpu1 ]; then
	# Whatever happens below, cpu1 comes back for the boot's later tests.
	trap 'echo 1 >$cpu1 2>/dev/null' EXIT
	stopped_pc offline 2000 seq || exit 1
	check "offline: the program pinned to cpu1" taskset -pc 1 $PC_PID
	check "offline: insmod" insmod "$ko" pid=$PC_PID
	cat "$ev" >/tmp/offline.ev &
	cat_pid=$!
	check "offline: the reader has the stream" wait_stream_reader
	kill -STOP $cat_pid
	for i in $(seq 100); do
		[ "$(task_state $cat_pid)" = T ] && break
		sleep 0.1
	done
	kill -CONT $PC_PID
	wait $PC_PID
	reads=$(summary_field syscall count)
	on1=$(awk '$1 == "stream/1" { print $2 }' "$IOLAYERS_D/stats")
	check "offline: cpu1's buffer holds the reads, none taken yet ($on1 written there, $reads reads, $(stats_value stream_delivered) delivered)" \
		test "${on1:-0}" -ge "$reads" -a "$(stats_value stream_delivered)" = 0
	echo 0 >$cpu1
	check "offline: cpu1 is offline" test "$(cat $cpu1)" = 0
	# `flows` copies cpu1's ring while the reader takes from it: both
	# read an offline CPU's ring from elsewhere, one at a time.
	(for i in $(seq 50); do cat "$IOLAYERS_D/flows" >/dev/null; done) &
	flows_pid=$!
	kill -CONT $cat_pid
	stream_accounted "$reads"
	check "offline: 50 reads of flows beside the reader end" end_within 60 $flows_pid 0
	check "offline: the reader is given all $reads reads, cpu1's too ($(stats_value stream_delivered) delivered, $(stats_value stream_lost) lost)" \
		test "$(stats_value stream_delivered)" = "$reads"
	check "offline: stats still shows cpu1's buffer ($(awk '$1 == "stream/1" { print $2 }' "$IOLAYERS_D/stats") written)" \
		test "$(awk '$1 == "stream/1" { print $2 }' "$IOLAYERS_D/stats")" = "$on1"
	check "offline: none of them lost ($(stats_value stream_lost))" test "$(stats_value stream_lost)" = 0
	check "offline: the reader ends on SIGTERM" end_within 10 $cat_pid TERM
	got=$(($(grep -vc '^#' /tmp/offline.ev) - 1))
	check "offline: every record in the file ($got besides the header)" test "$got" = "$reads"
	echo 1 >$cpu1
	end_within 10 $cat_pid KILL || true
	check "offline: rmmod" rmmod iolayers

	# 8. CPUs going off and on while `iolayers record` records: the
	# program reads unpinned (the scheduler moves it off cpu1 as cpu1
	# goes), and each read is in the recording once, none lost.
	# Random reads of the uncached file: long enough for cpu1 to go
	# off and on several times under emulation.
	echo 3 >/proc/sys/vm/drop_caches
	stopped_pc hotplug 4000 rand || exit 1
	check "hotplug: insmod" insmod "$ko" pid=$PC_PID
	"$IOLAYERS_REPO/userspace/iolayers" record -o /tmp/hotplug.jsonl 2>/tmp/hotplug.err &
	rec=$!
	check "hotplug: the recorder has the stream" wait_stream_reader
	kill -CONT $PC_PID
	flips=0
	while st=$(task_state $PC_PID) && [ -n "$st" ] && [ "$st" != Z ]; do
		echo 0 >$cpu1
		echo 1 >$cpu1
		flips=$((flips + 1))
	done
	wait $PC_PID
	reads=$(summary_field syscall count)
	stream_accounted "$reads"
	check "hotplug: the recorder ends on SIGINT" end_within 20 $rec INT
	read -r n uniq lost on1 <<<"$(python3 -c 'import json, sys
seqs, lost, on1 = [], None, 0
for line in open("/tmp/hotplug.jsonl"):
    o = json.loads(line)
    if "seq" in o:
        seqs.append(o["seq"])
        on1 += o["cpu"] == 1
    elif o.get("end"):
        lost = o["lost"]
print(len(seqs), len(set(seqs)), lost, on1)')"
	check "hotplug: cpu1 went off and on $flips times while the program read ($on1 reads ended on cpu1)" \
		test "$flips" -ge 2
	check "hotplug: every read recorded once ($n recorded, $uniq distinct, $reads read, lost $lost)" \
		test "$n" = "$reads" -a "$uniq" = "$reads" -a "$lost" = 0
	check "hotplug: cpu1 online" test "$(cat $cpu1)" = 1
	check "hotplug: rmmod" rmmod iolayers
else
	echo "# offline: no second CPU that can go offline here: not tested"
fi
finish
