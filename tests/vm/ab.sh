#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest part of `make ab`: two builds of iolayers.ko on one of the
# benchmark's workloads (IOLAYERS_AB_WORKLOAD: 4k-cached, the default and
# worst case, cached 4 KiB random reads with fio's sync engine;
# 4k-uncached, the same reads of a file dropped from the page cache before
# each run; uring-cached and uring-uncached, the same through fio's
# io_uring engine, 8 in flight; tcp, tools/tcpload's loopback TCP
# requests), in one boot.
# Each round runs fio with nothing, with the base build (IOLAYERS_AB_BASE),
# with this tree's build (IOLAYERS_MODULE_DIR) and with its empty=1 floor,
# in an order that alternates between rounds. Each traced run must have
# seen at least fio's reads (the module's syscall, uring, aio and fault
# counts), or it fails.
# The guest counts instructions (run-vm -I); fio, from a tmpfs, makes a
# fixed number of reads. Prints "AB ROUND MODE READS INSNS SEEN" per run,
# INSNS the guest instructions (kernel and user) from fio's start to end.
#
# IOLAYERS_AB_ROUNDS (default 3), IOLAYERS_AB_READS (default 20000);
# IOLAYERS_AB_DIRECT=1: O_DIRECT reads instead, each a request to the
# NVMe disk (the BLOCK and DEVICE layers' paths).
# vm-files: data:64
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

reads_n=${IOLAYERS_AB_READS:-20000}
direct=${IOLAYERS_AB_DIRECT:-0}
rounds=${IOLAYERS_AB_ROUNDS:-3}
workload=${IOLAYERS_AB_WORKLOAD:-4k-cached}
echo none >/sys/block/nvme0n1/queue/scheduler
cat /mnt/data >/dev/null
fio_tmpfs
ip link set lo up
cp "$IOLAYERS_MODULE_DIR/tcpload" /tmp/tcpload
echo "AB_INFO workload $workload kernel $(uname -r) cpus $(nproc) clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

# run ROUND MODE: one fio run, stopped until the module is loaded.
run() {
	local p reads seen=- ko=$IOLAYERS_MODULE_DIR/iolayers.ko arg= s0 k0 u0 s1 k1 u1
	case $2 in
	base) ko=$IOLAYERS_AB_BASE/iolayers.ko ;;
	floor) arg=empty=1 ;;
	esac
	stopped_workload "$workload" "$reads_n" /tmp/ab.json "$direct"
	p=$WL_PID
	if [ "$2" != none ]; then
		check "round $1: insmod $2" insmod "$ko" pid=$p $arg
	fi
	sleep 1	# let a new tracer settle (bench.sh)
	read -r s0 k0 u0 <<<"$(insn_totals)"
	kill -CONT $p
	wait $p
	read -r s1 k1 u1 <<<"$(insn_totals)"
	reads=$(workload_calls /tmp/ab.json)
	case $2 in
	base | new)
		# Every kind of read (an io_uring workload's are requests).
		seen=$(awk '$1 ~ /^(syscall|uring|aio|fault)$/ { n += $2 } END { print n + 0 }' \
			"$IOLAYERS_D/summary")
		check "round $1: $2 saw fio's reads ($seen >= $reads)" test "$seen" -ge "$reads"
		;;
	esac
	[ "$2" = none ] || rmmod iolayers
	echo "AB $1 $2 $reads $((k1 - k0 + u1 - u0)) $seen"
}

# A first untraced run warms up (the first run in a boot counts more).
run 0 none >/dev/null

for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) = 1 ]; then order="none base new floor"; else order="floor new base none"; fi
	for m in $order; do run "$r" "$m"; done
done
finish
