#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest part of `make ab`: two builds of iolayers.ko on the benchmark's
# worst case (cached 4 KiB random reads, fio's sync engine), in one boot.
# Each round runs fio with nothing, with the base build (IOLAYERS_AB_BASE),
# with this tree's build (IOLAYERS_MODULE_DIR) and with its empty=1 floor,
# in an order that alternates between rounds. Each traced run must have
# seen at least fio's reads (the module's syscall count), or it fails.
# Prints "AB ROUND MODE READS SECONDS SEEN" per run.
#
# IOLAYERS_AB_ROUNDS (default 6), IOLAYERS_AB_SECONDS (default 6).
# vm-files: data:64
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

secs=${IOLAYERS_AB_SECONDS:-6}
rounds=${IOLAYERS_AB_ROUNDS:-6}
echo none >/sys/block/nvme0n1/queue/scheduler
cat /mnt/data >/dev/null
echo "AB_INFO kernel $(uname -r) cpus $(nproc) clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

# run ROUND MODE: one fio run, stopped until the module is loaded.
run() {
	local p reads seen=- ko=$IOLAYERS_MODULE_DIR/iolayers.ko arg=
	case $2 in
	base) ko=$IOLAYERS_AB_BASE/iolayers.ko ;;
	floor) arg=empty=1 ;;
	esac
	bash -c 'kill -STOP $$; exec fio --name=ab --ioengine=sync --invalidate=0 --thread \
		--eta=never --output-format=json --output=/tmp/ab.json --filename=/mnt/data \
		--size=64m --rw=randread --bs=4k --time_based --runtime='"$secs" &
	p=$!
	while [ "$(awk '{ print $3 }' /proc/$p/stat 2>/dev/null)" != T ]; do sleep 0.05; done
	if [ "$2" != none ]; then
		check "round $1: insmod $2" insmod "$ko" pid=$p $arg
	fi
	kill -CONT $p
	wait $p
	reads=$(python3 -c 'import json; print(json.load(open("/tmp/ab.json"))["jobs"][0]["read"]["total_ios"])')
	case $2 in
	base | new)
		seen=$(awk '$1 == "syscall" { print $2; exit }' "$IOLAYERS_D/summary")
		check "round $1: $2 saw fio's reads ($seen >= $reads)" test "$seen" -ge "$reads"
		;;
	esac
	[ "$2" = none ] || rmmod iolayers
	echo "AB $1 $2 $reads $secs $seen"
}

for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) = 1 ]; then order="none base new floor"; else order="floor new base none"; fi
	for m in $order; do run "$r" "$m"; done
done
finish
