#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest helpers of the request tests (uring.sh, aio.sh): a request's
# records against the checker program that issued them (uringcheck,
# aiocheck: one read in flight at a time, mincore() before each, the
# result of each) and against fio's counts. Sourced after _lib.sh, with
# REQ_KIND (the syscall column's prefix: io_uring, aio), REQ_PROG (the
# checker), REQ_PROBE (the probe whose misses lose an attempt: io_read,
# aio_read) and ko set.

# req_flows TGID: the module's records of TGID's requests of REQ_KIND,
# oldest first: "syscall pos ret cache rqs device_ns ur_attempts ur_where
# req ur_issue_ns syscall_ns".
req_flows() {
	awk -v p="$1" -v kind="^$REQ_KIND:" 'function col(n) { return $(h[n]) }
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		col("tgid") == p && col("syscall") ~ kind {
			print col("syscall"), col("pos"), col("ret"), col("cache"), col("rqs"),
			      col("device_ns"), col("ur_attempts"), col("ur_where"), col("req"),
			      col("ur_issue_ns"), col("syscall_ns")
		}' "$IOLAYERS_D/flows"
}

# req_sane NAME FLOWS [ASKED]: what every request's record must hold, and
# the counters that say nothing was lost: ASKED bytes asked (4096; "-"
# not checked), time issuing within the whole, no attempt the probe
# missed, no request stale, expired or left in flight.
req_sane() {
	check "$1: every record asked ${3:-4096} bytes and spent at most its time issuing" \
		test "$(awk -v asked="${3:-4096}" '(asked != "-" && $9 != asked) || $10 == "-" || $10 + 0 > $11 + 0' "$2" | wc -l)" -eq 0
	check "$1: no attempt missed, no request stale, expired or in flight" \
		test "$(awk -v p="^$REQ_PROBE" '$1 ~ p { m += $3 } END { print m + 0 }' "$IOLAYERS_D/stats")/$(table_col uring stale)/$(table_col uring expired)/$(stats_value uring_in_flight)" = 0/0/0/0
}

# run_req NAME COUNT ARGS...: REQ_PROG under the module, reading REQ_FILE
# (/mnt/ur-data); sets UC_OUT (its summary) and leaves the module loaded;
# the per-read log is /tmp/uc.log, the module's records /tmp/uc.flows
# (REQ_FLOWS, req_flows by default, prints them).
run_req() {
	local name=$1 count=$2 pid
	shift 2
	UC_LOG=/tmp/uc.log "$IOLAYERS_MODULE_DIR/$REQ_PROG" "${REQ_FILE:-/mnt/ur-data}" "$count" 7 \
		"$@" >/tmp/uc.out &
	pid=$!
	wait_stopped $pid
	insmod "$ko" pid=$pid flows=4096 ${IL_INSMOD_ARGS:-} || { not_ok "$name: insmod"; return 1; }
	kill -CONT $pid
	if ! wait $pid; then
		not_ok "$name: $REQ_PROG failed: $(cat /tmp/uc.out)"
		rmmod iolayers
		return 1
	fi
	UC_OUT=$(cat /tmp/uc.out)
	"${REQ_FLOWS:-req_flows}" $pid >/tmp/uc.flows
	echo "$name: $REQ_PROG: $UC_OUT; module: $(wc -l </tmp/uc.flows) records"
	grep -E "^($REQ_KIND|uring|fs|queue|device|HIT|MISS|PARTIAL) " "$IOLAYERS_D/summary"
	grep -E '^(faults_|reqs_irq)' "$IOLAYERS_D/stats"
}

# compare_req: each result against its record, in order: the opcode, the
# offset, the result, and the label mincore() calls for (resident: HIT;
# not resident: MISS or PARTIAL; failed: ERROR, but other for -EBADF, a
# refusal before the file system, as read()'s; DIRECT with EXPECT=DIRECT).
# Prints "records wrong" and the first wrong pairs.
compare_req() {
	paste -d' ' /tmp/uc.log /tmp/uc.flows | awk -v direct="${EXPECT:-}" '
		{
			n++
			want = $4 == -9 ? "other" : $4 < 0 ? "ERROR" : direct == "DIRECT" ? "DIRECT" : $3 ? "HIT" : "MISS|PARTIAL"
			if (NF != 15 || $1 != $5 || $2 != $6 || $4 != $7 || $8 !~ "^(" want ")$") {
				bad++
				if (bad <= 5) print "wrong: " $0 > "/dev/stderr"
			}
		}
		END { printf "%d %d\n", n, bad }'
}

# fio_req NAME ENGINE ARGS...: fio with ENGINE, 32 in flight, FIO_IOS
# (1024) random 4 KiB reads; checks the records against fio's total_ios
# and io_bytes.
# Sets FU_FLOWS and leaves the module loaded.
fio_req() {
	local name=$1 engine=$2 p ios iob recs bytes
	shift 2
	bash -c 'kill -STOP $$; exec fio --eta=never --output-format=json --output=/tmp/fu.json "$@"' \
		fio --name="$name" --filename=/mnt/ur-data --size=16m --rw=randread --bs=4k \
		--ioengine="$engine" --iodepth=32 --thread --number_ios="${FIO_IOS:-1024}" \
		--invalidate=0 "$@" &
	p=$!
	wait_stopped $p
	insmod "$ko" pid=$p flows=4096 ${IL_INSMOD_ARGS:-} || { not_ok "$name: insmod"; return 1; }
	kill -CONT $p
	wait $p
	ios=$(fio_json /tmp/fu.json read.total_ios)
	iob=$(fio_json /tmp/fu.json read.io_bytes)
	req_flows $p >/tmp/fu.flows
	recs=$(wc -l </tmp/fu.flows)
	bytes=$(awk '{ s += $3 } END { printf "%d\n", s }' /tmp/fu.flows)
	echo "$name: fio $ios ios $iob bytes; module $recs records $bytes bytes"
	grep -E "^($REQ_KIND|HIT|MISS|PARTIAL|DIRECT|UNK) " "$IOLAYERS_D/summary"
	check "$name: a record per fio I/O ($recs == $ios)" test "$recs" -eq "$ios"
	check "$name: their results sum to fio's io_bytes ($bytes == $iob)" test "$bytes" -eq "$iob"
	check "$name: no UNK" test "$(awk '$4 == "UNK"' /tmp/fu.flows | wc -l)" -eq 0
	check "$name: no request left in the table" test "$(table_col uring entries)" -eq 0
	req_sane "$name" /tmp/fu.flows
	FU_FLOWS=/tmp/fu.flows
}
