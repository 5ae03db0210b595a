#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: load and unload iolayers.ko many times while the followed
# fio reads (direct and buffered), so probes are removed while they fire.
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
finish
