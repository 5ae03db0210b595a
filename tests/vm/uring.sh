#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: io_uring reads as flows, one per request, against ground
# truth the module did not produce: mincore() before each read and each
# CQE's result (tests/vm/uringcheck.c, one read in flight at a time), and
# fio's own counts at queue depth 32 (its io_uring engine).
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"
IL_INSMOD_ARGS=sockets=0

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
echo none >/sys/block/nvme0n1/queue/scheduler
dd if=/dev/zero of=/mnt/ur-data bs=1M count=16 status=none
sync

# Kernels before 6.1 have no URING layer: `layers` must say so, and the
# reads it cannot see are then no records at all (never another kind's).
insmod "$ko" pid=1 || { not_ok "insmod pid=1"; finish; }
uring_probes=$(awk '$2 == "URING" { print $1 ":" $4 }' "$IOLAYERS_D/layers" | tr '\n' ' ')
rmmod iolayers
echo "URING probes: $uring_probes"
case $(uname -r) in
5.*)
	check "no URING layer on $(uname -r): layers says so (unverified or missing)" \
		grep -Eq '^io_uring_submit_sqe:(unverified|missing) $' <<<"$uring_probes"
	finish
	;;
esac
check "the URING layer's submission, completion and io_read are attached" \
	test "$(echo "$uring_probes" | grep -Eo '(io_uring_submit_(sqe|req)|io_uring_complete|io_read):attached' | wc -l)" -eq 3
# READ_FIXED has a handler of its own on the kernels that have it.
if grep -q ' io_read_fixed$' /proc/kallsyms; then
	check "io_read_fixed is attached where the kernel has it" \
		grep -q 'io_read_fixed:attached' <<<"$uring_probes"
fi

# uring_flows TGID: the module's io_uring records of TGID, oldest first:
# "syscall pos ret cache rqs device_ns ur_attempts ur_where req
# ur_issue_ns syscall_ns".
uring_flows() {
	awk -v p="$1" 'function col(n) { return $(h[n]) }
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		col("tgid") == p && col("syscall") ~ /^io_uring:/ {
			print col("syscall"), col("pos"), col("ret"), col("cache"), col("rqs"),
			      col("device_ns"), col("ur_attempts"), col("ur_where"), col("req"),
			      col("ur_issue_ns"), col("syscall_ns")
		}' "$IOLAYERS_D/flows"
}

# uring_sane NAME FLOWS: what every request's record must hold, and the
# counters that say nothing was lost: 4 KiB asked, time issuing within
# the whole, no attempt the kretprobes missed, no request stale, expired
# or left in flight.
uring_sane() {
	check "$1: every record asked 4096 bytes and spent at most its time issuing" \
		test "$(awk '$9 != 4096 || $10 == "-" || $10 + 0 > $11 + 0' "$2" | wc -l)" -eq 0
	check "$1: no attempt missed, no request stale, expired or in flight" \
		test "$(awk '$1 ~ /^io_read/ { m += $3 } END { print m + 0 }' "$IOLAYERS_D/stats")/$(table_col uring stale)/$(table_col uring expired)/$(stats_value uring_in_flight)" = 0/0/0/0
}

# run_uc NAME COUNT ARGS...: uringcheck under the module; sets UC_PID and
# UC_OUT (its summary), and leaves the module loaded; the per-read log is
# /tmp/uc.log, the module's records /tmp/uc.flows.
run_uc() {
	local name=$1 count=$2
	shift 2
	UC_LOG=/tmp/uc.log "$IOLAYERS_MODULE_DIR/uringcheck" /mnt/ur-data "$count" 7 "$@" \
		>/tmp/uc.out &
	UC_PID=$!
	wait_stopped $UC_PID
	insmod "$ko" pid=$UC_PID flows=4096 ${IL_INSMOD_ARGS:-} || { not_ok "$name: insmod"; return 1; }
	kill -CONT $UC_PID
	if ! wait $UC_PID; then
		not_ok "$name: uringcheck failed: $(cat /tmp/uc.out)"
		rmmod iolayers
		return 1
	fi
	UC_OUT=$(cat /tmp/uc.out)
	uring_flows $UC_PID >/tmp/uc.flows
	echo "$name: uringcheck: $UC_OUT; module: $(wc -l </tmp/uc.flows) records"
	grep -E '^(uring|fs|queue|device) ' "$IOLAYERS_D/summary"
}

# compare_uc NAME: each CQE against its record, in order: the opcode, the
# offset, the result, and the label mincore() calls for (resident: HIT;
# not resident: MISS or PARTIAL; failed: ERROR; DIRECT with EXPECT=DIRECT).
# Prints "records wrong" and the first wrong pairs.
compare_uc() {
	paste -d' ' /tmp/uc.log /tmp/uc.flows | awk -v direct="${EXPECT:-}" '
		{
			n++
			want = $4 < 0 ? "ERROR" : direct == "DIRECT" ? "DIRECT" : $3 ? "HIT" : "MISS|PARTIAL"
			if (NF != 15 || $1 != $5 || $2 != $6 || $4 != $7 || $8 !~ "^(" want ")$") {
				bad++
				if (bad <= 5) print "wrong: " $0 > "/dev/stderr"
			}
		}
		END { printf "%d %d\n", n, bad }'
}

# --- One read at a time, cold: each label against mincore() ----------------
echo 3 >/proc/sys/vm/drop_caches
if run_uc cold 300 mixed; then
	read -r _ reads _ res _ nonres _ bytes _ failed <<<"$UC_OUT"
	read -r n bad <<<"$(compare_uc)"
	check "cold: a record per CQE ($(wc -l </tmp/uc.flows) == $reads)" \
		test "$(wc -l </tmp/uc.flows)" -eq "$reads"
	check "cold: each record's op, offset, result and label as the CQE and mincore() say ($bad of $n wrong)" \
		test "$n/$bad" = "$reads/0"
	check "cold: some reads were not resident ($nonres of $reads)" test "$nonres" -gt $((reads / 4))
	check "cold: every MISS has a request of its own and a device time" \
		test "$(awk '$4 == "MISS" && ($5 == 0 || $6 == "-")' /tmp/uc.flows | wc -l)" -eq 0
	check "cold: every HIT took one attempt, inline" \
		test "$(awk '$4 == "HIT" && ($7 != 1 || $8 != "inline")' /tmp/uc.flows | wc -l)" -eq 0
	awk '$4 == "MISS" { n[$7 " " $8]++ } END { for (k in n) print "cold: MISS with attempts, where " k ": " n[k] }' /tmp/uc.flows
	check "cold: the uring histogram holds every record ($(hist_total uring))" \
		test "$(hist_total uring)" -eq "$reads"
	check "cold: no syscall flow was made of the requests ($(hist_total syscall))" \
		test "$(hist_total syscall)" -le 0
	check "cold: no request left in the table" test "$(table_col uring entries)" -eq 0
	uring_sane cold /tmp/uc.flows
	rmmod iolayers
fi

# --- Forced to io-wq (IOSQE_ASYNC): attributed all the same ----------------
echo 3 >/proc/sys/vm/drop_caches
if run_uc async 200 async; then
	read -r _ reads _ res _ nonres _ bytes _ failed <<<"$UC_OUT"
	read -r n bad <<<"$(compare_uc)"
	check "async: each record as its CQE and mincore() say ($bad of $n wrong)" \
		test "$n/$bad" = "$reads/0"
	check "async: every attempt ran in io-wq" \
		test "$(awk '$8 != "iowq"' /tmp/uc.flows | wc -l)" -eq 0
	uring_sane async /tmp/uc.flows
	rmmod iolayers
fi

# --- An SQPOLL ring: submitted and issued by the ring's thread -------------
echo 3 >/proc/sys/vm/drop_caches
if run_uc sqpoll 200 sqpoll; then
	read -r _ reads _ res _ nonres _ bytes _ failed <<<"$UC_OUT"
	read -r n bad <<<"$(compare_uc)"
	check "sqpoll: each record as its CQE and mincore() say ($bad of $n wrong)" \
		test "$n/$bad" = "$reads/0"
	check "sqpoll: the first attempts ran in the SQPOLL thread" \
		test "$(awk '$8 !~ /sqpoll/' /tmp/uc.flows | wc -l)" -eq 0
	uring_sane sqpoll /tmp/uc.flows
	rmmod iolayers
fi

# --- Failing reads: ERROR exactly where the CQE says so ---------------------
echo 3 >/proc/sys/vm/drop_caches
if run_uc errors 200 errors; then
	read -r _ reads _ res _ nonres _ bytes _ failed <<<"$UC_OUT"
	read -r n bad <<<"$(compare_uc)"
	check "errors: some reads failed ($failed of $reads)" test "$failed" -ge $((reads / 5))
	check "errors: each record as its CQE and mincore() say ($bad of $n wrong)" \
		test "$n/$bad" = "$reads/0"
	uring_sane errors /tmp/uc.flows
	rmmod iolayers
fi

# --- O_DIRECT: DIRECT, with the BLOCK and DEVICE layers ---------------------
if EXPECT=DIRECT run_uc direct 200 direct mixed; then
	read -r _ reads _ res _ nonres _ bytes _ failed <<<"$UC_OUT"
	read -r n bad <<<"$(EXPECT=DIRECT compare_uc)"
	check "direct: each record DIRECT with its CQE's result ($bad of $n wrong)" \
		test "$n/$bad" = "$reads/0"
	check "direct: every record has its request and a device time" \
		test "$(awk '$5 == 0 || $6 == "-"' /tmp/uc.flows | wc -l)" -eq 0
	uring_sane direct /tmp/uc.flows
	rmmod iolayers
fi

# --- fio's io_uring engine, 32 in flight: fio's counts ----------------------
# fio_uring NAME ARGS...: fio with the io_uring engine, 1024 random 4 KiB
# reads; checks the records against fio's total_ios and io_bytes.
fio_uring() {
	local name=$1 p ios iob recs bytes
	shift
	bash -c 'kill -STOP $$; exec fio --eta=never --output-format=json --output=/tmp/fu.json "$@"' \
		fio --name="$name" --filename=/mnt/ur-data --size=16m --rw=randread --bs=4k \
		--ioengine=io_uring --iodepth=32 --thread --number_ios=1024 --invalidate=0 "$@" &
	p=$!
	wait_stopped $p
	insmod "$ko" pid=$p flows=4096 ${IL_INSMOD_ARGS:-} || { not_ok "$name: insmod"; return 1; }
	kill -CONT $p
	wait $p
	ios=$(fio_json /tmp/fu.json read.total_ios)
	iob=$(fio_json /tmp/fu.json read.io_bytes)
	uring_flows $p >/tmp/fu.flows
	recs=$(wc -l </tmp/fu.flows)
	bytes=$(awk '{ s += $3 } END { printf "%d\n", s }' /tmp/fu.flows)
	echo "$name: fio $ios ios $iob bytes; module $recs records $bytes bytes"
	grep -E '^(uring|HIT|MISS|PARTIAL|DIRECT|UNK) ' "$IOLAYERS_D/summary"
	check "$name: a record per fio I/O ($recs == $ios)" test "$recs" -eq "$ios"
	check "$name: their results sum to fio's io_bytes ($bytes == $iob)" test "$bytes" -eq "$iob"
	check "$name: no UNK" test "$(awk '$4 == "UNK"' /tmp/fu.flows | wc -l)" -eq 0
	check "$name: no request left in the table" test "$(table_col uring entries)" -eq 0
	uring_sane "$name" /tmp/fu.flows
	FU_FLOWS=/tmp/fu.flows
}

echo 3 >/proc/sys/vm/drop_caches
if fio_uring fio-buffered; then
	check "fio-buffered: misses were seen (MISS or PARTIAL)" \
		test "$(awk '$4 ~ /MISS|PARTIAL/' "$FU_FLOWS" | wc -l)" -gt 100
	rmmod iolayers
fi
echo 3 >/proc/sys/vm/drop_caches
if fio_uring fio-direct --direct=1 --fixedbufs; then
	check "fio-direct: every record DIRECT, READ_FIXED, with a request" \
		test "$(awk '$4 != "DIRECT" || $1 != "io_uring:READ_FIXED" || $5 == 0' "$FU_FLOWS" | wc -l)" -eq 0
	rmmod iolayers
fi
echo 3 >/proc/sys/vm/drop_caches
if fio_uring fio-sqpoll --sqthread_poll=1; then
	check "fio-sqpoll: every request was issued by the SQPOLL thread first" \
		test "$(awk '$8 !~ /sqpoll/' "$FU_FLOWS" | wc -l)" -eq 0
	rmmod iolayers
fi

finish
