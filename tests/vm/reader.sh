#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test of the reader (userspace/iolayers) against the live module:
# what it prints agrees with fio's own counts, its interval deltas add up to
# the total, its settings (--set-pid, --reset) reach the module and say so,
# -p shows one process's reads and changes nothing. Last, the
# kernel locked down (integrity, as under Secure Boot: no debugfs file with
# a write bit opens): every reader action still works, its settings through
# the module's parameters.
# vm-files: data:16
# vm-last: it locks the kernel down (integrity), for the rest of the boot
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

# intervals_during FILE: the reader's interval mode (-T 1) into FILE while
# the stopped fio ($fio_pid) runs to its end, then Ctrl-C; the reader's
# exit status.
intervals_during() {
	"$reader" -T 1 >"$1" &
	local r=$!
	sleep 1
	kill -CONT "$fio_pid"
	wait "$fio_pid"
	sleep 2.5
	kill -INT $r
	wait $r
}

bash -c 'kill -STOP $$; exec fio --name=r --filename=/mnt/data --size=16m --rw=randread --bs=4k \
	--ioengine=sync --invalidate=0 --thread --number_ios=800 --output-format=json --output=/tmp/fio.json' &
fio_pid=$!
while [ "$(awk '{ print $3 }' /proc/$fio_pid/stat 2>/dev/null)" != T ]; do sleep 0.1; done
"$reader" 2>/tmp/err
check "reader says the module is not loaded, with the insmod line" \
	grep -q "the module is not loaded: insmod iolayers.ko pid=PID" /tmp/err
# A recording that cannot start leaves an earlier one as it was (it was
# emptied when record opened its output before the stream).
echo '{"an earlier": "recording"}' >/tmp/keep.jsonl
"$reader" record -o /tmp/keep.jsonl --duration 1 2>/tmp/err
rc=$?
check "record without the module: exit 1 ($rc), says so" \
	bash -c "[ $rc = 1 ] && grep -q 'is the module loaded' /tmp/err"
check "record without the module: -o FILE untouched, nothing left beside it" \
	bash -c 'grep -q "an earlier" /tmp/keep.jsonl && [ "$(ls /tmp/keep.jsonl*)" = /tmp/keep.jsonl ]'
# Loaded for another process first; the reader moves it to fio.
insmod "$ko" pid=1 || echo "insmod failed"
"$reader" --set-pid "$fio_pid" 2>/tmp/err
check "reader --set-pid writes the module's pid and says so" \
	grep -q "module setting pid: '1' -> '$fio_pid' (it stays after this reader exits)" /tmp/err
check "module follows $fio_pid" test "$(cat "$IOLAYERS_D/pid")" = "$fio_pid"
"$reader" --set-pid 0 2>/tmp/err
check "a refused setting is one clear line" grep -q "the module refused '0'" /tmp/err
check "reader --reset" "$reader" --reset
check "reset: no reads" test "$(json 'sum(j["cache"].values())')" = 0

intervals_during /tmp/intervals.txt
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
# -p: a view filter. fio's reads are all its own; none are init's; the
# module's pid is unchanged, and its totals are not offered as init's.
kept() { sed -n 's/.* of \([0-9]*\) kept)$/\1/p'; }
# fio has exited: the module no longer follows its number.
pid_before=$(cat "$IOLAYERS_D/pid")
check "fio exited: pid= cleared ($pid_before), pid_exited $(stats_value pid_exited)" \
	test "$pid_before" = 0 -a "$(stats_value pid_exited)" = 1
all=$("$reader" --svg /tmp/va.svg | kept)
mine=$("$reader" -p "$fio_pid" --svg /tmp/vp.svg | kept)
none=$("$reader" -p 1 --svg /tmp/v1.svg | kept)
check "-p: the kept reads are all fio's, none init's ($mine == $all > 0, $none)" \
	test "$mine" -eq "$all" -a "$all" -gt 0 -a "$none" -eq 0
check "-p 1 -t: no read of init" bash -c "! \"$reader\" -p 1 -t 2>/dev/null"
"$reader" -p 1 -H >/dev/null 2>/tmp/err
check "-p 1 -H: the module's histograms are not init's: refused, one line" \
	grep -q "not of 1 alone" /tmp/err
check "-p changed nothing in the module (pid $(cat "$IOLAYERS_D/pid"))" \
	test "$(cat "$IOLAYERS_D/pid")" = "$pid_before"
# A saved copy reads as the live tree (fio has ended: nothing changes).
# save-debugfs used to stop at stream/ (cat of a directory under set -e).
rm -rf /tmp/saved
check "save-debugfs saves the tree" timeout 60 "$IOLAYERS_REPO/scripts/save-debugfs" /tmp/saved
"$reader" -j >/tmp/live.json
"$reader" --root /tmp/saved -j >/tmp/saved.json
check "iolayers --root of the saved tree: the live tree's reads, layers and flows" \
	python3 -c 'import json
a, b = (json.load(open(f)) for f in ("/tmp/live.json", "/tmp/saved.json"))
assert a["cache"] == b["cache"] and a["layers"] == b["layers"], "totals differ"
assert len(a["flows"]) == len(b["flows"]) > 0, (len(a["flows"]), len(b["flows"]))'
for v in --files -D --slow -t; do
	"$reader" $v >/tmp/lv1.txt
	check "iolayers --root of the saved tree: $v as live" \
		bash -c "\"$reader\" --root /tmp/saved $v | diff - /tmp/lv1.txt"
done
rmmod iolayers

# --- lockdown ----------------------------------------------------------------
# Loaded first: a locked-down kernel loads only signed modules.
insmod "$ko" pid=1 || echo "insmod failed"
mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security
lock=/sys/kernel/security/lockdown
check "the kernel has the lockdown LSM ($(cat $lock 2>/dev/null))" grep -q integrity $lock
echo integrity >$lock
check "locked down: integrity ($(cat $lock))" grep -q '\[integrity\]' $lock
# What lockdown does to debugfs: a file opened for writing is refused.
bash -c "echo 1 >$IOLAYERS_D/reset" 2>/tmp/lerr
check "locked down: debugfs refuses to open a file for writing ($(cat /tmp/lerr))" \
	grep -q "Operation not permitted" /tmp/lerr
bash -c 'kill -STOP $$; exec fio --name=l --filename=/mnt/data --size=16m --rw=randread --bs=4k \
	--ioengine=sync --invalidate=0 --thread --number_ios=300 --output-format=json --output=/tmp/fiol.json' &
fio_pid=$!
while [ "$(awk '{ print $3 }' /proc/$fio_pid/stat 2>/dev/null)" != T ]; do sleep 0.1; done
check "locked down: --set-pid --reset" "$reader" --set-pid "$fio_pid" --reset
check "locked down: the module follows $fio_pid" test "$(cat "$IOLAYERS_D/pid")" = "$fio_pid"
check "locked down: reset, no reads" test "$(json 'sum(j["cache"].values())')" = 0
check "locked down: --set-comm fio" "$reader" --set-comm fio
check "locked down: comm reads back fio" test "$(cat "$IOLAYERS_D/comm")" = fio
check "locked down: --set-comm ''" "$reader" --set-comm ''
intervals_during /tmp/lintervals.txt
check "locked down: interval mode ($(grep -c '^cache:' /tmp/lintervals.txt) intervals)" \
	test "$(grep -c '^cache:' /tmp/lintervals.txt)" -ge 2
ios=$(python3 -c 'import json; print(sum(x["read"]["total_ios"] for x in json.load(open("/tmp/fiol.json"))["jobs"]))')
files=$(json 'sum(v for k, v in j["cache"].items() if k != "other")')
check "locked down: -j file reads == fio total_ios ($files, $ios)" test "$files" -eq "$ios"
for v in "" -H -D --files -P --slow -t "-H -u" "-H -m"; do
	# shellcheck disable=SC2086 # the options are words
	check "locked down: iolayers $v" bash -c "\"$reader\" $v >/tmp/lv.txt && test -s /tmp/lv.txt"
done
check "locked down: --prometheus -o" "$reader" --prometheus -o /tmp/l.prom
check "locked down: the Prometheus file has the reads" grep -q '^iolayers_reads_total' /tmp/l.prom
# cat's output to /dev/null: 17 MB on the serial console took 70 s.
check "locked down: record -- cat" bash -c "\"$reader\" record --json -o /tmp/l.jsonl -- cat /mnt/data >/dev/null"
n=$(grep -c '"ret"' /tmp/l.jsonl)
check "locked down: record saved cat's reads ($n)" test "$n" -gt 0
check "record -o: the recording renamed into place, nothing left beside it" \
	test "$(ls /tmp/l.jsonl*)" = /tmp/l.jsonl
# What is not a regular file is written, not replaced: a rename over
# /dev/null put a regular file in its place.
"$reader" record -o /dev/null -- cat /mnt/data >/dev/null 2>&1
check "record -o /dev/null: /dev/null is still the device" test -c /dev/null
ln -sf /tmp/l.jsonl /tmp/link.jsonl
"$reader" record --json -o /tmp/link.jsonl -- cat /mnt/data >/dev/null 2>&1
check "record -o LINK: the link stays, its file has the recording" \
	bash -c 'test -L /tmp/link.jsonl && grep -q "\"end\": true" /tmp/l.jsonl'
rm -f /tmp/link.jsonl
rmmod iolayers
finish
