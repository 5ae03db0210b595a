#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: load and unload iolayers.ko many times while the followed
# fio reads (direct and buffered; then through io_uring, Linux AIO and a
# mapping), so probes are removed while they fire.
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
rounds=${IOLAYERS_ROUNDS:-10}
dd if=/dev/zero of=/mnt/load bs=1M count=32 oflag=direct status=none
fio --name=load --filename=/mnt/load --size=32m --rw=randread --bs=4k \
	--ioengine=psync --thread --numjobs=2 --direct=1 --time_based --runtime=3600 \
	>/dev/null 2>&1 &
f=$!
check "fio is reading" wait_reading "$f"
loaded=0
unloaded=0
for i in $(seq "$rounds"); do
	insmod "$ko" pid="$f" && loaded=$((loaded + 1))
	sleep 0.$((RANDOM % 10))
	rmmod iolayers && unloaded=$((unloaded + 1))
done
check "$rounds loads ($loaded)" test "$loaded" -eq "$rounds"
check "$rounds unloads ($unloaded)" test "$unloaded" -eq "$rounds"
kill "$f"
wait

# Requests and faults in flight as the module goes: io_uring reads
# (buffered, their attempts waiting for pages, and direct), Linux AIO's
# (direct, completed in interrupts) and a mapped file's faults (faults=1),
# the page cache dropped every round. Their flows are ended and freed
# with attempts open, completions queued for the worker flushed. Two
# rounds: each takes about 10 s on 6.1 under TCG (the probes' removal
# waits for grace periods under this load).
fio --filename=/mnt/load --size=32m --rw=randread --bs=4k --thread --time_based \
	--runtime=3600 --name=ur --ioengine=io_uring --iodepth=8 \
	--name=urd --ioengine=io_uring --iodepth=8 --direct=1 \
	--name=aio --ioengine=libaio --iodepth=8 --direct=1 \
	--name=mm --ioengine=mmap >/dev/null 2>&1 &
f=$!
t0=$SECONDS
check "fio's io_uring, libaio and mmap jobs are reading" wait_reading "$f"
echo "requests: fio read after $((SECONDS - t0)) s"
t0=$SECONDS
loaded=0
unloaded=0
requests=0
req_rounds=2
for i in $(seq $req_rounds); do
	echo 1 >/proc/sys/vm/drop_caches
	insmod "$ko" pid="$f" faults=1 && loaded=$((loaded + 1))
	sleep 0.$((RANDOM % 10))
	requests=$((requests + $(awk '$1 == "uring" || $1 == "aio" || $1 == "fault" { n += $2 }
		END { print n + 0 }' "$IOLAYERS_D/summary")))
	rmmod iolayers && unloaded=$((unloaded + 1))
done
echo "requests: $req_rounds rounds in $((SECONDS - t0)) s"
check "requests: $req_rounds loads ($loaded)" test "$loaded" -eq $req_rounds
check "requests: $req_rounds unloads ($unloaded)" test "$unloaded" -eq $req_rounds
check "requests: the loads saw requests and faults ($requests)" test "$requests" -gt 0
kill "$f"
wait
finish
