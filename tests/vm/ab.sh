#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest part of `make ab`: two builds of iolayers.ko on one of the
# benchmark's workloads (IOLAYERS_AB_WORKLOAD: 4k-cached, the default and
# worst case, cached 4 KiB random reads with fio's sync engine;
# 4k-uncached, the same reads of a file dropped from the page cache before
# each run; tcp, tools/tcpload's loopback TCP requests), in one boot.
# Each round runs fio with nothing, with the base build (IOLAYERS_AB_BASE),
# with this tree's build (IOLAYERS_MODULE_DIR) and with its empty=1 floor,
# in an order that alternates between rounds. Each traced run must have
# seen at least fio's reads (the module's syscall count), or it fails.
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

# uncache FILE: drop FILE's clean pages from the page cache (bench.sh).
uncache() {
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}
echo "AB_INFO workload $workload kernel $(uname -r) cpus $(nproc) clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

# run ROUND MODE: one fio run, stopped until the module is loaded.
run() {
	local p reads seen=- ko=$IOLAYERS_MODULE_DIR/iolayers.ko arg= s0 k0 u0 s1 k1 u1
	case $2 in
	base) ko=$IOLAYERS_AB_BASE/iolayers.ko ;;
	floor) arg=empty=1 ;;
	esac
	rm -f /tmp/ab.json
	case $workload in
	tcp)
		# Connects, then stops itself before its first read.
		/tmp/tcpload "$reads_n" 4096 >/tmp/ab.json &
		;;
	*)
		if [ "$workload" = 4k-uncached ]; then uncache /mnt/data; else cat /mnt/data >/dev/null; fi
		FIO=$FIO bash -c 'kill -STOP $$; exec $FIO --name=ab --ioengine=sync --invalidate=0 --thread \
			--eta=never --output-format=json --output=/tmp/ab.json --filename=/mnt/data \
			--size=64m --rw=randread --bs=4k --direct='"$direct --number_ios=$reads_n --io_size=$((reads_n * 4))k" &
		;;
	esac
	p=$!
	while [ "$(awk '{ print $3 }' /proc/$p/stat 2>/dev/null)" != T ]; do sleep 0.05; done
	if [ "$2" != none ]; then
		check "round $1: insmod $2" insmod "$ko" pid=$p $arg
	fi
	sleep 1	# let a new tracer settle (bench.sh)
	read -r s0 k0 u0 <<<"$(insn_totals)"
	kill -CONT $p
	wait $p
	read -r s1 k1 u1 <<<"$(insn_totals)"
	reads=$(python3 -c 'import json
j = json.load(open("/tmp/ab.json"))
print(j["calls"] if "calls" in j else j["jobs"][0]["read"]["total_ios"])')
	case $2 in
	base | new)
		seen=$(awk '$1 == "syscall" { print $2; exit }' "$IOLAYERS_D/summary")
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
