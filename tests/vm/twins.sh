#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: make bench's twins measure what they are compared for,
# against ground truth neither produces: one fio process reading with a
# psync job and an io_uring job at once (fio's own count of each job's
# I/Os), and tests/vm/mmapcheck.c's page faults (getrusage(): the kernel's
# count of each touch's minor and major faults). The libbpf twin
# (tools/bpftwin, -f for the faults) must see each of the file's reads,
# each io_uring request exactly once, each fault exactly once with its
# label (MISS or PARTIAL exactly for the major ones). The bpftrace twin
# is make bench's only (whose report fails a run in which a tracer saw
# fewer reads than fio made): its start took 40 s of this test (a minute
# more with its io_uring, AIO and fault part's kprobes), and under the
# smoke's -icount a minute and a half of the host.
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

[ -x "${IOLAYERS_TWIN:-}" ] || { not_ok "no libbpf twin (IOLAYERS_TWIN)"; finish; }
dd if=/dev/zero of=/mnt/tw-data bs=1M count=8 status=none
dd if=/dev/zero of=/mnt/mm-data bs=1M count=8 status=none
sync

# fio_kinds: one fio process, stopped, with a psync and an io_uring job of
# 300 random 4 KiB reads each (its disk statistics thread off: no reads
# of its own but its jobs'). Sets FK_PID.
fio_kinds() {
	bash -c 'kill -STOP $$; exec fio --eta=never --output-format=json --output=/tmp/tk.json "$@"' \
		fio --filename=/mnt/tw-data --size=4m --rw=randread --bs=4k --iodepth=8 --thread \
		--number_ios=300 --invalidate=0 --disk_util=0 --name=psync --ioengine=psync \
		--offset=0 --name=io_uring --ioengine=io_uring --offset=4m &
	FK_PID=$!
	wait_stopped $FK_PID
}

# The data file's reads in the libbpf twin's records (-o): "PREADS
# REQUESTS", its pread64 calls and io_uring requests.
file_reads() {
	python3 -c 'import json, sys
n = [0, 0]
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["ino"] == int(sys.argv[2]) and r["ret"] == 4096:
        n[0] += r["syscall"] == "pread64"
        n[1] += r["syscall"].startswith("io_uring:")
print(*n)' /tmp/tw.rec "$(stat -c %i /mnt/tw-data)"
}

# --- The libbpf twin: syscalls and requests of one process ----------------
# fio's start (its own reads of libraries, /proc, its options) comes after
# the stop and is followed too: the data file's reads are counted from
# the twin's records.
cat /mnt/tw-data >/dev/null
fio_kinds
if twin_start libbpf-stream $FK_PID; then
	kill -CONT $FK_PID
	wait $FK_PID
	kill -INT $TW
	wait $TW
	cat /tmp/tw.out /tmp/tw.err
	ps=$(fio_job_ios /tmp/tk.json psync)
	ur=$(fio_job_ios /tmp/tk.json io_uring)
	read -r lb_sys lb_ur <<<"$(awk '$1 == "kinds" { print $3, $5 }' /tmp/tw.out)"
	read -r f_ps f_ur <<<"$(file_reads)"
	echo "libbpf: fio psync $ps, io_uring $ur; the twin: read family $lb_sys, io_uring $lb_ur; of the file: pread64 $f_ps, io_uring $f_ur"
	check "libbpf: each of fio's psync reads of the file once ($f_ps == $ps)" \
		test "$f_ps" -eq "$ps" -a "$ps" -gt 0
	check "libbpf: each io_uring request once ($lb_ur, of the file $f_ur == $ur)" \
		test "$lb_ur" -eq "$ur" -a "$f_ur" -eq "$ur" -a "$ur" -gt 0
	check "libbpf: no record lost, no entry refused, no request stale" \
		test "$(awk '$1 == "records" { print $4 } $1 == "block" { print $9 }
			$1 == "requests" { print $3 }' /tmp/tw.out | tr '\n' /)" = 0/0/0/
else
	not_ok "libbpf: the twin did not start"
	kill -9 $FK_PID
	wait $FK_PID
fi

# --- The libbpf twin's faults (-f): MADV_RANDOM, cold ---------------------
echo 3 >/proc/sys/vm/drop_caches
ino=$(stat -c %i /mnt/mm-data)
"$IOLAYERS_MODULE_DIR/mmapcheck" /mnt/mm-data 150 7 random >/tmp/mm.out &
p=$!
wait_stopped $p
if TW_ARGS=-f twin_start libbpf-stream $p; then
	kill -CONT $p
	wait $p
	kill -INT $TW
	wait $TW
	cat /tmp/mm.out /tmp/tw.err
	grep -E '^(kinds|faults|reads) ' /tmp/tw.out
	read -r _ touches _ faults _ minor _ major <"/tmp/mm.out"
	# The data file's faults, from the twin's records: count, HIT, MISS or
	# PARTIAL, and those not one page.
	read -r n hit miss odd <<<"$(python3 -c 'import json, sys
n = hit = miss = odd = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["syscall"] != "fault" or r["ino"] != int(sys.argv[2]):
        continue
    n += 1
    hit += r["cache"] == "HIT"
    miss += r["cache"] in ("MISS", "PARTIAL")
    odd += r["ret"] != 4096 or r["fault_ns"] is None or r["fs_ns"] is not None
print(n, hit, miss, odd)' /tmp/tw.rec "$ino")"
	check "libbpf -f: a fault of the file per fault the kernel counted ($n == $faults)" \
		test "$n" -eq "$faults" -a "$faults" -gt 0
	check "libbpf -f: MISS or PARTIAL exactly for the major faults ($miss == $major)" \
		test "$miss" -eq "$major"
	check "libbpf -f: HIT exactly for the minor ones ($hit == $minor)" test "$hit" -eq "$minor"
	check "libbpf -f: each a page's, timed in its FAULT layer only ($odd not)" test "$odd" -eq 0
else
	not_ok "libbpf -f: the twin did not start"
	kill -9 $p
	wait $p
fi

finish
