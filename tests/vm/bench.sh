#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest part of `make bench`: fio workloads under each tracer, rounds
# interleaved (the tracer order rotates every round) so drift in the
# emulated machine hits every tracer alike. One line per run:
#   BENCH workload tracer round reads seconds attach_s mem_kb seen kinsns uinsns
# reads and seconds are fio's (total_ios, job runtime); kinsns and uinsns
# the guest instructions executed (kernel, user) from fio's start to its
# end, counted by the tools/icount plugin when the guest runs under
# -icount (run-vm -I), "-" otherwise; seen the read()
# calls the tracer itself counted (iolayers: summary's syscall count;
# bpftrace: its @reads; "-" for none and the floor), which must be at
# least fio's reads, or the tracer measured nothing; attach_s the time
# from starting the tracer to it being ready; mem_kb the growth of used
# memory (MemTotal - MemAvailable) while attached. scripts/bench-overhead
# turns them into the report.
#
# Counting instructions, the workloads do fixed numbers of reads (fio's
# --number_ios) and fio runs from a copy in /tmp (a tmpfs): loaded over the
# 9p root, its start varied by more than what is measured. Wall-clock
# runs keep the time-based workloads. fio's disk-utilisation thread is off
# (--disk_util=0, every mode): it wakes on a timer, and under -icount the
# guest's clock follows the host's while it waits for I/O, so the number
# of its wakeups in a run varied with the host. With it the uncached runs
# of one tracer spread 2-4 % (thousands of instructions a read: the
# floors' medians came out at 8 and 2539 on 6.1 and 7.2), without it
# 0.16-0.25 % (6.1, make bench of 2026-12-05, benchmarks.rst).
#
# tcp: socket reads instead of file reads: tools/tcpload's server (the
# followed process) recv()s 4 KiB at a time what its client (a child, not
# followed) sends over loopback TCP, a fixed number of 4 KiB messages in
# both modes. Its reads are every recv() call (the one that sees EOF too).
#
# IOLAYERS_BENCH_ROUNDS (default 5), IOLAYERS_BENCH_SMOKE=1: one round of
# one short workload, to check that the machinery works (make check);
# IOLAYERS_BENCH_WORKLOADS, IOLAYERS_BENCH_TRACERS: subsets of the
# workloads and tracers, comma-separated.
# vm-files: data:64 big:256
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
rounds=${IOLAYERS_BENCH_ROUNDS:-5}
icount=${IOLAYERS_ICOUNT_FILE:+1}
echo none >/sys/block/nvme0n1/queue/scheduler
# Reads per run when counting: the cached case's count as in the hand
# measurements that found spreads under 0.05 %; uncached reads are slower
# to emulate, and make bench throttles the drive to 1,000 requests a
# second (scripts/_common.sh, counted_disk_opts), after a burst of 100
# that QEMU lets through unthrottled: 4,000 reads a run make that burst
# 2.5 % of them. fio stops at --number_ios or at the end of --io_size (by
# default the file's size, 16384 blocks): both are set.
n_cached=20000 n_uncached=4000 n_tcp=20000
if [ "${IOLAYERS_BENCH_SMOKE:-0}" = 1 ]; then
	rounds=1
	workloads="4k-cached tcp"
	# No bpftrace: under -icount its start alone took a minute and a
	# half of the host; tests/vm/twins.sh checks the libbpf twin's
	# counts.
	tracers="none iolayers iolayers-rcv libbpf libbpf-rcv"
	runtime=1 n_cached=2000 n_tcp=2000
else
	workloads="4k-cached 4k-uncached 128m 4k-numjobs2 tcp uring-cached uring-uncached mmap"
	tracers="none iolayers iolayers-rcv iolayers-noflows iolayers-stream floor libbpf libbpf-rcv libbpf-floor libbpf-stream bpftrace bpftrace-fast bpftrace-floor bpftrace-stream badcase"
	runtime=4
fi
[ -z "${IOLAYERS_BENCH_WORKLOADS:-}" ] || workloads=${IOLAYERS_BENCH_WORKLOADS//,/ }
[ -z "${IOLAYERS_BENCH_TRACERS:-}" ] || tracers=${IOLAYERS_BENCH_TRACERS//,/ }
FIO=fio
[ -z "$icount" ] || fio_tmpfs
TCPLOAD=$IOLAYERS_MODULE_DIR/tcpload
nap_init
# The guest's init leaves the loopback interface down.
ip link set lo up || echo "BENCH_FAIL cannot bring lo up"
# Counting, from the tmpfs as fio is.
[ -z "$icount" ] || { cp "$TCPLOAD" /tmp/tcpload && TCPLOAD=/tmp/tcpload; }

btv=$(bpftrace_version) || echo "BENCH_FAIL no bpftrace (${IOLAYERS_BPFTRACE_ROOT:-host})"
echo "BENCH_INFO kernel $(uname -r) ${btv:-bpftrace ?} cpus $(nproc) accel ${IOLAYERS_ACCEL:-tcg} clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) rounds $rounds counting ${icount:-0}"

used_kb() {
	awk '/^MemTotal:/ { t = $2 } /^MemAvailable:/ { a = $2 } END { print t - a }' /proc/meminfo
}

# fio_args WORKLOAD: the fio job, reads of data (64 MiB) or big (256 MiB).
# Counting, a fixed number of reads; otherwise a fixed time. The io_uring
# ones keep 8 reads in flight; mmap reads the file through fio's mapping
# of it, uncached: each read a page fault (its engine's options come
# after run()'s --ioengine=sync, and the last one given is fio's).
fio_args() {
	local small="--filename=/mnt/data --size=64m --rw=randread --bs=4k"
	local cached="--time_based --runtime=$runtime" uncached="--number_ios=400"
	local jobs2="--time_based --runtime=$runtime"

	if [ -n "$icount" ]; then
		cached="--number_ios=$n_cached --io_size=$((n_cached * 4))k"
		uncached="--number_ios=$n_uncached"
		jobs2="--number_ios=$((n_cached / 2))"
	fi
	case $1 in
	4k-cached) echo "$small $cached" ;;
	4k-uncached) echo "$small $uncached" ;;
	128m) echo "--filename=/mnt/big --size=256m --rw=randread --bs=128m --io_size=256m" ;;
	4k-numjobs2) echo "$small --numjobs=2 $jobs2" ;;
	uring-cached) echo "$small $cached --ioengine=io_uring --iodepth=8" ;;
	uring-uncached) echo "$small $uncached --ioengine=io_uring --iodepth=8" ;;
	mmap) echo "$small $uncached --ioengine=mmap" ;;
	esac
}

# attach TRACER PID: sets DETACH (a command) and ATTACH_S; 1 on failure.
attach() {
	local t0 t1
	t0=$(date +%s.%N)
	case $1 in
	none) DETACH=true ;;
	iolayers) insmod "$ko" pid="$2" $KO_ARGS || return 1; DETACH="rmmod iolayers" ;;
	iolayers-rcv) insmod "$ko" pid="$2" rcv=1 $KO_ARGS || return 1; DETACH="rmmod iolayers" ;;
	iolayers-noflows) insmod "$ko" pid="$2" flows=0 $KO_ARGS || return 1; DETACH="rmmod iolayers" ;;
	floor) insmod "$ko" pid="$2" empty=1 $KO_ARGS || return 1; DETACH="rmmod iolayers" ;;
	iolayers-stream)
		# Recording every read while the workload runs (iolayers record).
		record_start "$2" || return 1
		DETACH="kill -INT $REC; wait $REC; rmmod iolayers"
		;;
	badcase)
		insmod "$IOLAYERS_MODULE_DIR/iolayers_badcase.ko" || return 1
		DETACH="rmmod iolayers_badcase"
		;;
	fprobe-floor)
		insmod "$IOLAYERS_MODULE_DIR/iolayers_mechfloor.ko" || return 1
		DETACH="rmmod iolayers_mechfloor"
		;;
	bpftrace|bpftrace-fast|bpftrace-floor|bpftrace-stream)
		bpftrace_start "$1" "$2" || return 1
		DETACH="kill -INT $BT; wait $BT"
		;;
	libbpf|libbpf-rcv|libbpf-floor|libbpf-stream)
		twin_start "$1" "$2" || return 1
		DETACH="kill -INT $TW; wait $TW"
		;;
	esac
	t1=$(date +%s.%N)
	ATTACH_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}


# workload_reads: "READS SECONDS" of the last run, from /tmp/b.json (fio's
# total_ios and job runtime, or tcpload's recv() calls and seconds).
workload_reads() {
	python3 -c 'import json
j = json.load(open("/tmp/b.json"))
if "jobs" in j:
    j = j["jobs"]
    print(sum(x["read"]["total_ios"] for x in j), max(x["read"]["runtime"] for x in j) / 1000)
else:
    print(j["calls"], j["seconds"])'
}

run() {
	local w=$1 tr=$2 r=$3 p mem0 mem1 reads secs seen=- rcv=- k0=0 u0=0 k1=0 u1=0 ins="- -"
	# Uncached: only the data file leaves the page cache. drop_caches also
	# dropped fio's own pages (read back over 9p in the measured run) and
	# slowed the run right after it: "none", attached at once, was the
	# slowest of all in the first runs.
	# Cached: read twice, so that every page of the file is on the active
	# list before every run. Read once (after an uncached run dropped
	# it), the run's own second touches activated the pages: the first
	# cached run of each round counted 10-17 million kernel instructions
	# more (500-850 per read) than the runs after it.
	case $w in
	4k-uncached | uring-uncached | mmap) uncache /mnt/data ;;
	128m) uncache /mnt/big ;;
	tcp) ;;
	*) cat /mnt/data /mnt/data >/dev/null ;;
	esac
	rm -f /tmp/b.json
	if [ "$w" = tcp ]; then
		# Connects, then stops itself before its first read.
		"$TCPLOAD" "$n_tcp" 4096 >/tmp/b.json &
	else
		# shellcheck disable=SC2046
		FIO=$FIO bash -c 'kill -STOP $$; exec $FIO --name=b --ioengine=sync --invalidate=0 --thread --disk_util=0 \
			--eta=never --output-format=json --output=/tmp/b.json "$@"' fio $(fio_args "$w") &
	fi
	p=$!
	while [ "$(awk '{ print $3 }' /proc/$p/stat 2>/dev/null)" != T ]; do
		if ! kill -0 $p 2>/dev/null; then
			echo "BENCH_FAIL $w $tr $r the workload ended before its reads"
			return
		fi
		sleep 0.05
	done
	mem0=$(used_kb)
	# The mmap workload's reads are faults: the FAULT layer is asked for.
	KO_ARGS= TW_ARGS=
	[ "$w" != mmap ] || KO_ARGS=faults=1 TW_ARGS=-f
	if ! attach "$tr" "$p"; then
		echo "BENCH_FAIL $w $tr $r attach"
		kill -9 $p
		wait $p 2>/dev/null
		return
	fi
	# Let the tracer settle: right after an ftrace callback is attached
	# one run counted 20 % more than the next ones (make ab, round 1).
	sleep 1
	mem1=$(used_kb)
	[ -z "$icount" ] || read -r _ k0 u0 <<<"$(insn_totals)"
	kill -CONT $p
	wait $p
	# A streaming reader may lag: count until it has taken every read.
	stream_caught_up "$tr"
	[ -z "$icount" ] || { read -r _ k1 u1 <<<"$(insn_totals)"; ins="$((k1 - k0)) $((u1 - u0))"; }
	case $tr in
	iolayers|iolayers-rcv|iolayers-noflows|iolayers-stream)
		# Its reads: the read family's syscalls, requests and faults.
		seen=$(awk '$1 ~ /^(syscall|uring|aio|fault)$/ { s += $2 } END { print s + 0 }' \
			"$IOLAYERS_D/summary")
		rcv=$(awk '$1 == "layer" && $2 == "tcp_rcv" { print $4 }' "$IOLAYERS_D/rcv")
		# What it measured, beside the twin's (BENCH_TWIN), for the log.
		[ "$tr" != iolayers ] || sed "s/^/BENCH_MODULE $w $r /" "$IOLAYERS_D/summary"
		# The stream's reader had taken every read (or been told it
		# lost it) when the span ended: it took none since.
		[ "$tr" != iolayers-stream ] ||
			[ $(($(stats_value stream_delivered) + $(stats_value stream_lost))) -ge "$seen" ] ||
			echo "BENCH_FAIL $w $tr $r the reader had not taken every read when the span ended"
		;;
	esac
	eval "$DETACH" >/dev/null 2>&1
	[ "$tr" != libbpf ] || sed "s/^/BENCH_TWIN $w $r /" /tmp/tw.out /tmp/tw.err
	case $tr in
	libbpf|libbpf-rcv|libbpf-stream)
		rcv=$(awk '$1 == "layer" && $2 == "tcp_rcv" { print $4 }' /tmp/tw.out) ;;
	bpftrace|bpftrace-fast|bpftrace-stream)
		rcv=$(awk '/^@rcv:/ { f = 1; next } f && !NF { f = 0 }
			f && match($0, /[])] +[0-9]+ /) { s += substr($0, RSTART + 1, RLENGTH - 1) }
			END { print s + 0 }' /tmp/bt.out) ;;
	esac
	# The receive path's segments each tracer timed: about one per request
	# where it is asked for (rcv=1, -r; the bpftrace scripts always), none
	# otherwise.
	if [ "$w" = tcp ] && [ "$rcv" != - ]; then
		echo "BENCH_RCV $w $tr $r segments $rcv"
		case $tr in
		iolayers|iolayers-noflows|iolayers-stream|libbpf|libbpf-stream)
			[ "$rcv" = 0 ] || echo "BENCH_FAIL $w $tr $r timed $rcv segments unasked" ;;
		*) [ "$rcv" -gt 0 ] || echo "BENCH_FAIL $w $tr $r timed no tcp_v4_do_rcv" ;;
		esac
	fi
	case $tr in
	bpftrace|bpftrace-fast)
		seen=$(awk -F': ' '/^@(reads|requests)\[/ || /^@faults:/ { s += $2 } END { print s + 0 }' \
			/tmp/bt.out) ;;
	# The twin's lines; what the recording got and lost, for the log.
	bpftrace-stream) seen=$(grep -cE '^[0-9]+ [A-Za-z]+ ' /tmp/bt.out) ;;
	libbpf)
		seen=$(awk '$1 == "reads" { print $2 }' /tmp/tw.out)
		# Reads BPF lost to its recursion guard (tools/bpftwin/twin.c).
		echo "BENCH_MISSES $w $tr $r $(awk '$1 == "misses" { print $2 }' /tmp/tw.out)" ;;
	# The recorder's own count: "iolayers record: N reads, L lost, saved to ...".
	iolayers-stream) echo "BENCH_STREAM $w $r $(tail -1 /tmp/rec.err)" ;;
	libbpf-stream)
		seen=$(awk '$1 == "reads" { print $2 }' /tmp/tw.out)
		echo "BENCH_MISSES $w $tr $r $(awk '$1 == "misses" { print $2 }' /tmp/tw.out)"
		echo "BENCH_STREAM $w $r recorded $(wc -l </tmp/tw.rec) $(grep '^records ' /tmp/tw.out)" ;;
	esac
	read -r reads secs <<<"$(workload_reads)"
	echo "BENCH $w $tr $r $reads $secs $ATTACH_S $((mem1 - mem0)) $seen $ins"
}

# Read every file once: QEMU then serves the disk image from the host's page
# cache, so the first uncached run does not pay the host's cold disk.
cat /mnt/data /mnt/big >/dev/null
# One untraced run of each workload first: the first run in a boot counted
# 9 % more kernel instructions than the next ones (icount test).
for w in $workloads; do
	run "$w" none 0 >/dev/null
done

for r in $(seq 1 "$rounds"); do
	set -- $tracers
	# Rotate the tracer order by the round number.
	for _ in $(seq 2 "$r"); do set -- "${@:2}" "$1"; done
	order="$*"
	for w in $workloads; do
		for tr in $order; do
			# The receive path's variants: socket reads only.
			case $tr in *-rcv) [ "$w" = tcp ] || continue ;; esac
			run "$w" "$tr" "$r"
		done
	done
done
echo "BENCH_DONE"
