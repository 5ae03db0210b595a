#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test of the reader (userspace/iolayers) against the live module:
# what it prints agrees with fio's own counts, its interval deltas add up to
# the total, and its settings (--pid, --reset) reach the module.
# vm-files: data:16
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
reader=$IOLAYERS_REPO/userspace/iolayers
echo none >/sys/block/nvme0n1/queue/scheduler

# json EXPR: a value of the reader's JSON (python3 expression on j).
json() {
	"$reader" -j >/tmp/r.json && python3 -c 'import json, sys
j = json.load(open("/tmp/r.json"))
print(eval(sys.argv[1]))' "$1"
}

bash -c 'kill -STOP $$; exec fio --name=r --filename=/mnt/data --size=16m --rw=randread --bs=4k \
	--ioengine=sync --invalidate=0 --thread --number_ios=800 --output-format=json --output=/tmp/fio.json' &
fio_pid=$!
while [ "$(awk '{ print $3 }' /proc/$fio_pid/stat 2>/dev/null)" != T ]; do sleep 0.1; done
"$reader" 2>/tmp/err
check "reader says the module is not loaded, with the insmod line" \
	grep -q "the module is not loaded: insmod iolayers.ko pid=PID" /tmp/err
# Loaded for another process first; the reader moves it to fio.
insmod "$ko" pid=1 || echo "insmod failed"
check "reader --pid writes the module's pid" "$reader" --pid "$fio_pid"
check "module follows $fio_pid" test "$(cat "$IOLAYERS_D/pid")" = "$fio_pid"
"$reader" --pid 0 2>/tmp/err
check "a refused setting is one clear line" grep -q "the module refused '0'" /tmp/err
check "reader --reset" "$reader" --reset
check "reset: no reads" test "$(json 'sum(j["cache"].values())')" = 0

"$reader" -T 1 >/tmp/intervals.txt &
rpid=$!
sleep 1
kill -CONT $fio_pid
wait $fio_pid
sleep 2.5
kill -INT $rpid
wait $rpid
rc=$?
check "interval mode ends cleanly on Ctrl-C (exit $rc)" test "$rc" -eq 0
ios=$(python3 -c 'import json; print(sum(x["read"]["total_ios"] for x in json.load(open("/tmp/fio.json"))["jobs"]))')
iob=$(python3 -c 'import json; print(sum(x["read"]["io_bytes"] for x in json.load(open("/tmp/fio.json"))["jobs"]))')
files=$(json 'sum(v for k, v in j["cache"].items() if k != "other")')
fbytes=$(json 'sum(j["layers"]["syscall"][c]["bytes"] for c in ("HIT", "MISS", "PARTIAL", "DIRECT", "UNK"))')
total=$(json 'sum(j["cache"].values())')
echo "fio: $ios reads, $iob bytes; reader: $files file reads, $fbytes bytes, $total reads in all"
check "reader's file reads == fio total_ios ($files, $ios)" test "$files" -eq "$ios"
check "reader's syscall bytes of file reads == fio io_bytes ($fbytes, $iob)" test "$fbytes" -eq "$iob"
"$reader" >/tmp/table.txt
cat /tmp/table.txt
tab=$(awk '/^(HIT|MISS|PARTIAL|DIRECT|UNK|ERROR): [0-9]+ reads$/ { s += $2 } END { print s + 0 }' /tmp/table.txt)
check "the table's per-state reads add up to fio's ($tab)" test "$tab" -eq "$ios"
head -30 /tmp/intervals.txt
deltas=$(awk '/^cache:/ { for (i = 2; i < NF; i++) if ($i ~ /^(HIT|MISS|PARTIAL|DIRECT|other|UNK|ERROR)$/) s += $(i + 1) } END { print s + 0 }' /tmp/intervals.txt)
n=$(grep -c '^cache:' /tmp/intervals.txt)
check "interval mode: $n intervals with timestamps" test "$n" -ge 2 -a "$(grep -Ec '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' /tmp/intervals.txt)" -eq "$n"
check "interval deltas add up to the total ($deltas, $total)" test "$deltas" -eq "$total"
"$reader" -t -c MISS >/tmp/tl.txt
cat /tmp/tl.txt
check "timeline of the slowest MISS reaches the device" grep -q 'device done (last)' /tmp/tl.txt
check "timeline names the disk of its requests" grep -q 'request.* on nvme0n1' /tmp/tl.txt
rmmod iolayers
finish
