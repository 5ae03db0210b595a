#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest part of `make profile`: where a read's added instructions go.
# fio (from a tmpfs) makes IOLAYERS_PROFILE_READS 4 KiB reads, cached
# (IOLAYERS_PROFILE_WORKLOAD 4k-cached, the default) or not (4k-uncached),
# or as many uncached reads of 128 MiB (128m: make bench's; a few), or
# tools/tcpload as many recv() calls over loopback TCP (tcp), under each
# tracer of IOLAYERS_PROFILE_TRACERS, between two
# markers of the instruction counter (run-vm -I -P counts per block
# address). While each tracer is attached, the guest's /proc/kallsyms
# (with the module's and the BPF programs' symbols) goes to the counter's
# directory; scripts/_profile-report.py maps the counts to functions.
# Tracers: none, iolayers, iolayers-noflows (flows=0), floor (empty=1),
# iolayers-stream (iolayers record recording every read to a file; and
# libbpf-stream, the twin's consumer doing the same),
# fprobe-floor (tools/mechfloor, kernels with fprobe), bpftrace*, libbpf
# and libbpf-floor (tools/bpftwin). Prints
# per run: PROFILE_RUN tracer reads first_marker last_marker, and the
# module's self-accounting (stats) after the iolayers run.
# vm-files: data:64 big:256
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
reads=${IOLAYERS_PROFILE_READS:-20000}
tracers=${IOLAYERS_PROFILE_TRACERS:-none,iolayers,floor,bpftrace-fast,bpftrace-floor}
workload=${IOLAYERS_PROFILE_WORKLOAD:-4k-cached}
echo none >/sys/block/nvme0n1/queue/scheduler
echo 0 >/proc/sys/kernel/kptr_restrict
cat /mnt/data >/dev/null
fio_tmpfs
ip link set lo up
cp "$IOLAYERS_MODULE_DIR/tcpload" /tmp/tcpload
nap_init

# run TRACER: one fio run, stopped until the tracer is attached.
run() {
	local p a b n
	stopped_workload "$workload" "$reads" /tmp/p.json
	p=$WL_PID
	case $1 in
	none) ;;
	iolayers) insmod "$ko" pid=$p || return 1 ;;
	iolayers-rcv) insmod "$ko" pid=$p rcv=1 || return 1 ;;
	iolayers-noflows) insmod "$ko" pid=$p flows=0 || return 1 ;;
	floor) insmod "$ko" pid=$p empty=1 || return 1 ;;
	iolayers-stream) record_start $p || return 1 ;;
	fprobe-floor) insmod "$IOLAYERS_MODULE_DIR/iolayers_mechfloor.ko" || return 1 ;;
	bpftrace*) bpftrace_start "$1" $p || return 1 ;;
	libbpf*) twin_start "$1" $p || return 1 ;;
	esac
	sleep 1	# let a new tracer settle (bench.sh)
	cat /proc/kallsyms >"$IOLAYERS_COUNT_DIR/kallsyms-$1"
	read -r a _ <<<"$(insn_totals)"
	kill -CONT $p
	wait $p
	# A streaming reader may lag: count until it has written out every
	# batch (as make bench, without starting a process).
	stream_caught_up "$1"
	read -r b _ <<<"$(insn_totals)"
	n=$(workload_calls /tmp/p.json)
	echo "PROFILE_RUN $1 $n $a $b"
	case $1 in
	iolayers)
		echo "IOLAYERS_PROFILE_STATS"
		sed '/^$/q' "$IOLAYERS_D/stats"
		rmmod iolayers
		;;
	iolayers-rcv | iolayers-noflows | floor) rmmod iolayers ;;
	iolayers-stream) kill -INT $REC; wait $REC; rmmod iolayers ;;
	fprobe-floor) rmmod iolayers_mechfloor ;;
	bpftrace*) kill -INT $BT; wait $BT ;;
	libbpf*) kill -INT $TW; wait $TW ;;
	esac
}

# A first untraced run warms up (the first run in a boot counts more).
run none >/dev/null
for t in ${tracers//,/ }; do
	run "$t" || echo "PROFILE_FAIL $t"
done
echo "IOLAYERS_PROFILE_END"
