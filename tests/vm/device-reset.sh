#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: the disk under a followed reader goes away. First the
# NVMe controller is reset three times (sysfs reset_controller) while fio
# reads with O_DIRECT and buffered (caches dropped all along): the reads
# in flight are cancelled and retried or failed by the driver, fio goes on
# reading after each reset, and once it ends no flow is in flight and the
# tables are empty. Then the SCSI disk is deleted (sysfs delete) under a
# reader of a file on it (preadcheck, O_DIRECT, its own log of each
# read): its read fails, the module labels it ERROR, counts every read
# made, leaves none in flight, and the tables empty again. rmmod after
# each.
# vm-last: it deletes the SCSI disk for the rest of the boot
# vm-modules: virtio_blk xfs btrfs bfq dm_mod dm_delay dm_crypt md_mod raid0 raid1 virtio_scsi sd_mod
# vm-virtio-disk: 512
# vm-scsi-disk: 512
# vm-nvme-ns2: 512
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko

# empty_tables WHAT: within 10 s of the reader's end, no flow in flight
# and every table empty.
empty_tables() {
	local i n
	for i in $(seq 100); do
		n=$(($(stats_value flows_in_flight) + $(table_sum entries task bio rq)))
		[ "$n" -eq 0 ] && break
		sleep 0.1
	done
	echo "# $1: in flight $(stats_value flows_in_flight), entries task $(table_col task entries) bio $(table_col bio entries) rq $(table_col rq entries)"
	check "$1: no flow in flight, the task, bio and request tables empty" test "$n" -eq 0
}

# fio_start NAME FILE SECONDS: fio reading FILE with two jobs (4 KiB
# O_DIRECT, 16 KiB buffered) for SECONDS, going on after an error (each
# counted in its total_err), followed by the module; sets F.
fio_start() {
	local name=$1 file=$2 secs=$3 job
	job=(--filename="$file" --size=64m --rw=randread --ioengine=psync --time_based
		--runtime="$secs" --continue_on_error=all --thread)
	# Held on a fifo until the module follows it: every read of fio's
	# counted.
	rm -f "/tmp/$name.go"
	mkfifo "/tmp/$name.go"
	(read -r _ <"/tmp/$name.go" && exec fio --output-format=json \
		--output="/tmp/$name.json" \
		--name="$name-direct" "${job[@]}" --bs=4k --direct=1 \
		--name="$name-buffered" "${job[@]}" --bs=16k) >"/tmp/$name.err" 2>&1 &
	F=$!
	check "$name: insmod pid=$F" insmod "$ko" pid=$F sockets=0
	echo go >"/tmp/$name.go"
	check "$name: fio is reading" wait_reading $F
}

# 1. NVMe: the controller reset under the reads, of a file on
# namespace 1 (6.12 may name it nvme0n2: run-vm's init mounts it by nsid).
check "the test disk on /mnt is NVMe namespace 1" test "$(nvme_nsid_of /mnt)" = 1
dd if=/dev/urandom of=/mnt/reset bs=1M count=64 status=none
sync
echo 3 >/proc/sys/vm/drop_caches
# Time-based, ended by SIGINT once the resets are done (fio then writes
# its counts as at its end): 40 s of it were mostly waiting.
fio_start reset /mnt/reset 300
for i in 1 2 3; do
	before=$(proc_io $F syscr)
	echo 3 >/proc/sys/vm/drop_caches
	echo 1 >/sys/class/nvme/nvme0/reset_controller
	st=
	for j in $(seq 100); do
		st=$(cat /sys/class/nvme/nvme0/state)
		[ "$st" = live ] && break
		sleep 0.1
	done
	check "reset $i: the controller is live again ($st)" test "$st" = live
	check "reset $i: fio reads on" wait_more_reads $F "$before" 200
done
kill -INT $F
wait $F
ios=$(fio_json /tmp/reset.json read.total_ios)
echo "# reset: fio made $ios reads, $(fio_json /tmp/reset.json total_err) failed; the module: $(hist_total syscall)"
# fio's reads and its start-up's.
check "reset: the module counted fio's $ios reads ($(hist_total syscall))" \
	test "$(hist_total syscall)" -ge "$ios" -a "$ios" -gt 0
empty_tables reset
check "reset: rmmod" rmmod iolayers

# 2. SCSI: the disk deleted under O_DIRECT reads of a file on ext4
# (mounted read-only: nothing to write back to a disk that is gone; the
# disk itself would not do: once deleted it has no sectors, and its
# reads return 0 bytes without an I/O). preadcheck logs each read and
# stops at the first that fails: that one is labelled ERROR, every read
# it made is counted, none is left in flight.
check "SCSI disk present" wait_block /dev/sda
mkfs.ext4 -q -F /dev/sda
mkdir -p /tmp/sd
mount /dev/sda /tmp/sd
dd if=/dev/urandom of=/tmp/sd/gone bs=1M count=64 status=none
umount /tmp/sd
mount -o ro /dev/sda /tmp/sd
PC_FILE=/tmp/sd/gone stopped_pc gone 1000000 rand direct
check "gone: insmod pid=$PC_PID" insmod "$ko" pid=$PC_PID sockets=0
kill -CONT $PC_PID
check "gone: preadcheck reads" wait_more_reads $PC_PID 0 500
echo 1 >/sys/block/sda/device/delete
check "the SCSI disk is gone" test ! -e /sys/block/sda
wait $PC_PID
rc=$?
made=$(wc -l </tmp/gone.pclog)
last=$(tail -n 1 /tmp/gone.pclog)
cache_counts
echo "# gone: preadcheck exited $rc after $made reads, the last '$last'; the module: ERROR $ERR of $(hist_total syscall)"
check "gone: preadcheck's last read failed ($last)" test "$(echo "$last" | cut -d' ' -f4)" = -1
check "gone: the module counted each read it made ($(hist_total syscall) == $made)" \
	test "$(hist_total syscall)" -eq "$made"
check "gone: and labelled the failed one ERROR ($ERR)" test "$ERR" -eq 1
empty_tables gone
check "gone: rmmod" rmmod iolayers
umount -l /tmp/sd 2>/dev/null
finish
