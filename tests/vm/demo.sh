#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest part of `make demo`: fio randread, iolayers.ko pid=<fio>, the
# counters read three times a second apart, the latency summary and
# histograms, the reader's table, then unload.
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"
echo IOLAYERS_DEMO_BEGIN
echo "guest kernel $(uname -r), $(nproc) CPUs"
dd if=/dev/zero of=/mnt/demo bs=1M count=64 oflag=direct status=none
fio --name=demo --filename=/mnt/demo --size=64m --rw=randread --bs=4k --direct=1 \
	--ioengine=psync --thread --time_based --runtime=600 >/dev/null 2>&1 &
f=$!
wait_reading "$f" || { echo "fio did not start"; exit 1; }
echo "\$ insmod iolayers.ko pid=$f      # fio"
insmod "$IOLAYERS_MODULE_DIR/iolayers.ko" pid="$f" || exit 1
for i in 1 2 3; do
	sleep 1
	echo
	echo "\$ cat /sys/kernel/debug/iolayers/stats      # after ${i} s"
	cat "$IOLAYERS_D/stats"
done
echo
echo "\$ cat /sys/kernel/debug/iolayers/layers"
cat "$IOLAYERS_D/layers"
echo
echo "\$ cat /sys/kernel/debug/iolayers/summary"
cat "$IOLAYERS_D/summary"
echo
echo "\$ cat /sys/kernel/debug/iolayers/hist"
cat "$IOLAYERS_D/hist"
echo
echo "\$ iolayers"
"$IOLAYERS_REPO/userspace/iolayers"
rc=$?
kill "$f"
wait
rmmod iolayers || rc=1
echo IOLAYERS_DEMO_END
exit $rc
