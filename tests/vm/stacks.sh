#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: xfs on a virtio-blk disk with mq-deadline and btrfs with
# bfq (the kernel's defaults for single-queue disks; two vCPUs give the
# disk two queues and "none"), against mincore() before each pread
# (tests/vm/preadcheck.c) and the disk's own counters
# (/sys/block/vda/stat): buffered reads labelled by residency with FS
# time, O_DIRECT reads (iomap_dio_rw) all DIRECT, each bound to its request.
# Then ext4 through device-mapper: linear (clones queued by the reader) and
# delay (clones remapped and queued from a workqueue 20 ms later): every
# read's requests on the disk below are its own, the wait lies between its
# first bio and its issue, and the stacked device's bios leave the bio
# table at once. Last, cgroup v2 io.max on the reader: the bios
# blk-throttle holds back (queued later by a kworker) keep their reads,
# and the wait shows between each read's first bio and its issue.
# vm-modules: virtio_blk xfs btrfs bfq dm_mod dm_delay
# vm-virtio-disk: 512
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "virtio-blk disk present" test -b /dev/vda
mkdir -p /tmp/vd

# requests_match SLACK: the reads' requests are all in their flows, and
# the disk completed those and at most SLACK reads of its own more.
requests_match() {
	test "$RQS" -ge "$truth_reads" -a "$RQS" -le "$disk" -a "$disk" -le $((RQS + $1))
}

# vda_reads: reads completed by the virtio disk.
vda_reads() {
	local r rest
	read -r r rest </sys/block/vda/stat
	echo "$r"
}

for fs in xfs btrfs; do
	case $fs in
	xfs) mkfs.xfs -q -f /dev/vda; sched=mq-deadline ;;
	btrfs) mkfs.btrfs -q -f /dev/vda >/dev/null; sched=bfq ;;
	esac
	echo $sched >/sys/block/vda/queue/scheduler
	check "$fs: vda scheduler is $sched" grep -q "\[$sched\]" /sys/block/vda/queue/scheduler
	check "$fs: mount" mount -t $fs /dev/vda /tmp/vd
	head -c $((8 << 20)) /dev/urandom >/tmp/vd/data
	sync

	echo 3 >/proc/sys/vm/drop_caches
	run_pc $fs-buffered /tmp/vd/data 300 rand
	files=$((HIT + MISS + PARTIAL + DIRECT))
	check "$fs buffered: every pread a file read with FS time ($files, $FS == $truth_reads)" \
		test "$files/$FS" = "$truth_reads/$truth_reads"
	check "$fs buffered: HIT == resident +-1% ($HIT, $truth_res)" within1 "$HIT" "$truth_res"
	check "$fs buffered: MISS+PARTIAL == non-resident +-1% ($((MISS + PARTIAL)), $truth_nonres)" \
		within1 $((MISS + PARTIAL)) "$truth_nonres"
	check "$fs buffered: no DIRECT, other or UNK ($DIRECT, $OTHER, $UNK)" \
		test "$DIRECT$OTHER$UNK" = 000

	echo 3 >/proc/sys/vm/drop_caches
	before=$(vda_reads)
	run_pc $fs-direct /tmp/vd/data 200 rand direct
	disk=$(($(vda_reads) - before))
	check "$fs O_DIRECT: all DIRECT ($DIRECT == $truth_reads)" test "$DIRECT" = "$truth_reads"
	# btrfs calls it again for a read it had to finish in two parts.
	check "$fs O_DIRECT: FS layer for every read, through iomap_dio_rw ($FS, $DIO)" \
		test "$FS" = "$truth_reads" -a "$DIO" -ge "$truth_reads"
	# A cold file's metadata may add a read or two of its own.
	check "$fs O_DIRECT: requests in flows == disk reads, at most 2 more on the disk ($RQS, $disk)" \
		requests_match 2
	umount /tmp/vd
done

# Device-mapper over the disk, without udev (libdevmapper makes the nodes).
export DM_DISABLE_UDEV=1
mkfs.ext4 -q -F /dev/vda
mount /dev/vda /tmp/vd
head -c $((8 << 20)) /dev/urandom >/tmp/vd/data
umount /tmp/vd
sectors=$(blockdev --getsz /dev/vda)
echo mq-deadline >/sys/block/vda/queue/scheduler
for target in linear delay; do
	case $target in
	linear) table="0 $sectors linear /dev/vda 0" ;;
	delay) table="0 $sectors delay /dev/vda 0 20" ;;
	esac
	check "dm $target: create" dmsetup create il-$target --table "$table"
	check "dm $target: mount ext4" mount /dev/mapper/il-$target /tmp/vd
	echo 3 >/proc/sys/vm/drop_caches
	before=$(vda_reads)
	run_pc dm-$target /tmp/vd/data 100 rand direct keep
	disk=$(($(vda_reads) - before))
	check "dm $target: all DIRECT ($DIRECT == $truth_reads)" test "$DIRECT" = "$truth_reads"
	# The file system's own metadata after drop_caches (5 reads seen
	# with dm-delay) is not the reader's.
	check "dm $target: requests on vda in flows == its reads, at most 8 more on the disk ($RQS, $disk)" \
		requests_match 8
	check "dm $target: bios remapped for every read ($(stats_value bios_remapped) >= $truth_reads)" \
		test "$(stats_value bios_remapped)" -ge "$truth_reads"
	check "dm $target: bio and request tables empty at once ($(table_col bio entries) $(table_col rq entries))" \
		test "$(table_col bio entries)$(table_col rq entries)" = 00
	check "dm $target: nothing stale or expired ($(drops_total))" test "$(drops_total)" = 0
	if [ $target = delay ]; then
		# From the read's first bio (on the dm device) to its first issue.
		short=$(flows_where "$IOLAYERS_D/flows" 'col("tid") == p && col("rqs") > 0 &&
			col("issue_off") - col("queue_off") < 15000000' -v p=$PC_PID | wc -l)
		check "dm delay: the 20 ms delay lies between every read's first bio and its issue ($short shorter)" \
			test "$short" = 0
	fi
	rmmod iolayers
	umount /tmp/vd
	dmsetup remove il-$target
done

# cgroup v2 io.max: the reader limited to 256 KiB/s of reads on vda, so
# blk-throttle holds its bios back and a kworker queues them later.
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
echo +io >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/il
check "io.max set" bash -c "echo '$(cat /sys/block/vda/dev) rbps=262144' >/sys/fs/cgroup/il/io.max"
mount /dev/vda /tmp/vd
echo 3 >/proc/sys/vm/drop_caches
before=$(vda_reads)
PC_CGROUP=/sys/fs/cgroup/il run_pc throttled /tmp/vd/data 100 rand direct keep
disk=$(($(vda_reads) - before))
check "io.max: all DIRECT ($DIRECT == $truth_reads)" test "$DIRECT" = "$truth_reads"
check "io.max: requests on vda in flows == its reads, at most 8 more on the disk ($RQS, $disk)" \
	requests_match 8
check "io.max: __blk_throtl_bio saw every read ($(stats_hits __blk_throtl_bio))" \
	test "$(stats_hits __blk_throtl_bio)" -ge "$truth_reads"
# 100 reads of 4 KiB at 256 KiB/s: about 1.5 s held back in all.
wait_ms=$(($(flows_sum $PC_PID 'col("rqs") > 0 ? col("issue_off") - col("queue_off") : 0') / 1000000))
check "io.max: the throttle's wait lies between the reads' first bios and issues (${wait_ms} ms >= 1000)" \
	test "$wait_ms" -ge 1000
check "io.max: tables empty, nothing stale or expired ($(table_col bio entries) $(table_col rq entries) $(drops_total))" \
	test "$(table_col bio entries)$(table_col rq entries)$(drops_total)" = 000
rmmod iolayers
umount /tmp/vd
finish
