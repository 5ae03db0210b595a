#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test of what the Debian packages install (scripts/check-deb):
# the module DKMS built in a clean bookworm root from iolayers-dkms, and
# the reader from the iolayers package ($IOLAYERS_READER), against fio's
# own counts: what a user of the packages runs.
# vm-files: data:16
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
reader=${IOLAYERS_READER:?the packaged reader}
echo none >/sys/block/nvme0n1/queue/scheduler

check "the module is DKMS's: signed by its key" \
	test "$(modinfo -F signer "$ko")" = "DKMS module signing key"
"$reader" --check >/tmp/check.out 2>&1
cat /tmp/check.out
check "packaged reader --check: every layer works before the load (exit 0)" \
	test "$(grep -c '^no ' /tmp/check.out)" -eq 0
bash -c 'kill -STOP $$; exec fio --name=p --filename=/mnt/data --size=16m --rw=randread --bs=4k \
	--ioengine=sync --invalidate=0 --thread --number_ios=500 --output-format=json --output=/tmp/fio.json' &
fio_pid=$!
while [ "$(awk '{ print $3 }' /proc/$fio_pid/stat 2>/dev/null)" != T ]; do sleep 0.1; done
check "insmod the DKMS-built module" insmod "$ko" pid=1
check "packaged reader: --set-pid --reset" "$reader" --set-pid "$fio_pid" --reset
echo 3 >/proc/sys/vm/drop_caches
kill -CONT $fio_pid
wait $fio_pid
read -r ios iob < <(python3 -c 'import json; j = json.load(open("/tmp/fio.json"))
print(sum(x["read"]["total_ios"] for x in j["jobs"]), sum(x["read"]["io_bytes"] for x in j["jobs"]))')
"$reader" -j >/tmp/r.json
read -r files fbytes < <(python3 -c 'import json; j = json.load(open("/tmp/r.json"))
c = ("HIT", "MISS", "PARTIAL", "DIRECT", "UNK")
print(sum(j["cache"][k] for k in c), sum(j["layers"]["syscall"][k]["bytes"] for k in c))')
echo "fio: $ios reads, $iob bytes; packaged reader: $files file reads, $fbytes bytes"
check "packaged reader: file reads == fio total_ios ($files, $ios)" test "$files" -eq "$ios"
check "packaged reader: bytes == fio io_bytes ($fbytes, $iob)" test "$fbytes" -eq "$iob"
"$reader" -H >/tmp/h.txt
check "packaged reader -H: bcc's histogram layout" grep -q 'nsecs *: count *distribution' /tmp/h.txt
"$reader" -t -c MISS >/tmp/tl.txt
check "packaged reader -t -c MISS: the read reaches the device" grep -q 'device done' /tmp/tl.txt
"$reader" --prometheus >/tmp/p.prom
check "packaged reader --prometheus: fio's misses counted" \
	grep -Eq '^iolayers_reads_total\{cache="miss"\} [1-9]' /tmp/p.prom
rmmod iolayers
finish
