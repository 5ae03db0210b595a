#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: xfs on a virtio-blk disk with mq-deadline and btrfs with
# bfq (the kernel's defaults for single-queue disks; two vCPUs give the
# disk two queues and "none"), against mincore() before each pread
# (tests/vm/preadcheck.c) and the disk's own counters
# (/sys/block/vda/stat): buffered reads labelled by residency with FS
# time, O_DIRECT reads (iomap_dio_rw) all DIRECT, each bound to its request.
# Then through device-mapper, buffered and O_DIRECT: ext4 on linear (clones
# queued by the reader), delay (clones remapped and queued from a workqueue
# 20 ms later) and dm-crypt (decrypted in a workqueue), xfs on LVM made by
# lvm2: every MISS has requests on the disk below and they are its own,
# dm-delay's wait lies between the first bio and the issue, and the
# stacked device's bios leave the bio table at once. Last, cgroup v2 io.max on the reader: the bios
# blk-throttle holds back (queued later by a kworker) keep their reads,
# and the wait shows between each read's first bio and its issue.
# vm-modules: virtio_blk xfs btrfs bfq dm_mod dm_delay dm_crypt virtio_scsi sd_mod
# vm-virtio-disk: 512
# vm-scsi-disk: 512
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
echo mq-deadline >/sys/block/vda/queue/scheduler
sectors=$(blockdev --getsz /dev/vda)

# stacked_reads NAME DEV: cold buffered random reads, then O_DIRECT ones, of
# /tmp/vd/data on DEV (a device-mapper device over vda), each checked
# against mincore() and the disk's counters: every read's requests on vda
# are in its flow (a MISS has at least one), and at most a few more of the
# file system's own; the stacked device's bios are remapped and leave the
# bio table at once; nothing stale or expired.
stacked_reads() {
	local name=$1 dev=$2 mode nomiss
	for mode in buffered direct; do
		check "$name: mount $(blkid -o value -s TYPE "$dev")" mount "$dev" /tmp/vd
		echo 3 >/proc/sys/vm/drop_caches
		before=$(vda_reads)
		if [ $mode = buffered ]; then
			run_pc "$name-buffered" /tmp/vd/data 150 rand - keep
		else
			run_pc "$name-direct" /tmp/vd/data 100 rand direct keep
		fi
		disk=$(($(vda_reads) - before))
		if [ $mode = buffered ]; then
			check "$name buffered: HIT == resident +-1% ($HIT, $truth_res)" within1 "$HIT" "$truth_res"
			check "$name buffered: MISS+PARTIAL == non-resident +-1% ($((MISS + PARTIAL)), $truth_nonres)" \
				within1 $((MISS + PARTIAL)) "$truth_nonres"
			nomiss=$(flows_where "$IOLAYERS_D/flows" 'col("tid") == p && col("cache") == "MISS" &&
				col("rqs") == 0' -v p=$PC_PID | wc -l)
			check "$name buffered: every MISS has requests on vda ($nomiss without)" test "$nomiss" = 0
			# The file system's metadata after drop_caches (5 reads
			# seen with dm-delay) is not the reader's.
			check "$name buffered: requests on vda in flows, at most 8 more on the disk ($RQS, $disk)" \
				test "$RQS" -ge $((MISS + PARTIAL)) -a "$RQS" -le "$disk" -a "$disk" -le $((RQS + 8))
		else
			check "$name O_DIRECT: all DIRECT ($DIRECT == $truth_reads)" test "$DIRECT" = "$truth_reads"
			check "$name O_DIRECT: requests on vda in flows == its reads, at most 8 more on the disk ($RQS, $disk)" \
				requests_match 8
		fi
		check "$name $mode: bios remapped ($(stats_value bios_remapped) >= $((MISS + PARTIAL + DIRECT)))" \
			test "$(stats_value bios_remapped)" -ge $((MISS + PARTIAL + DIRECT))
		check "$name $mode: flows name vda, the disk below ($(wrong_disk vda) wrong)" \
			test "$(wrong_disk vda)" = 0
		check "$name $mode: vda's requests, none with a device time (virtio-blk: $(disk_col vda requests) >= $RQS, $(disk_col vda device_rqs))" \
			test "$(disk_col vda requests)" -ge "$RQS" -a "$(disk_col vda device_rqs)" = 0
		check "$name $mode: bio and request tables empty at once ($(table_col bio entries) $(table_col rq entries))" \
			test "$(table_col bio entries)$(table_col rq entries)" = 00
		check "$name $mode: nothing stale or expired ($(drops_total))" test "$(drops_total)" = 0
		if [ "$name" = "dm delay" ]; then
			# From the read's first bio (on the dm device) to its first issue.
			short=$(flows_where "$IOLAYERS_D/flows" 'col("tid") == p && col("rqs") > 0 &&
				col("issue_off") - col("queue_off") < 15000000' -v p=$PC_PID | wc -l)
			check "dm delay $mode: the 20 ms delay lies between every read's first bio and its issue ($short shorter)" \
				test "$short" = 0
		fi
		rmmod iolayers
		umount /tmp/vd
	done
}

# make_data DEV FS: a new FS on DEV holding /tmp/vd/data (8 MiB).
make_data() {
	case $2 in
	ext4) mkfs.ext4 -q -F "$1" ;;
	xfs) mkfs.xfs -q -f "$1" ;;
	esac
	mount "$1" /tmp/vd
	head -c $((8 << 20)) /dev/urandom >/tmp/vd/data
	umount /tmp/vd
}

# linear (clones queued by the reader) and delay (clones remapped and
# queued from a workqueue 20 ms later), over the ext4 made on vda itself.
make_data /dev/vda ext4
for target in linear delay; do
	case $target in
	linear) table="0 $sectors linear /dev/vda 0" ;;
	delay) table="0 $sectors delay /dev/vda 0 20" ;;
	esac
	check "dm $target: create" dmsetup create il-$target --table "$table"
	stacked_reads "dm $target" /dev/mapper/il-$target
	dmsetup remove il-$target
done

# dm-crypt (aes-cbc-plain64, built into Debian's kernels: no crypto module
# to load): reads decrypted in kcryptd's workqueue after the clone, which
# carries the read's bio to vda, completes. ext4 made through it.
key=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
check "dm-crypt: create" dmsetup create il-crypt --table "0 $sectors crypt aes-cbc-plain64 $key 0 /dev/vda 0"
make_data /dev/mapper/il-crypt ext4
stacked_reads dm-crypt /dev/mapper/il-crypt
dmsetup remove il-crypt

# LVM (linear, made by lvm2's own tools without udev or lvmetad; its
# configuration and metadata backups in a writable LVM_SYSTEM_DIR), xfs on it.
export LVM_SYSTEM_DIR=/tmp/lvm
mkdir -p $LVM_SYSTEM_DIR /run/lock/lvm
cat >$LVM_SYSTEM_DIR/lvm.conf <<'LVM'
activation { udev_sync = 0 udev_rules = 0 monitoring = 0 }
devices { obtain_device_list_from_udev = 0 use_devicesfile = 0 }
LVM
wipefs -q -a /dev/vda
check "lvm: pvcreate, vgcreate, lvcreate" bash -c 'pvcreate -q /dev/vda && vgcreate -q ilvg /dev/vda &&
	lvcreate -q -y -L 448m -n data ilvg' </dev/null
make_data /dev/ilvg/data xfs
stacked_reads "lvm linear" /dev/ilvg/data
check "lvm: vgremove" vgremove -q -f ilvg
wipefs -q -a /dev/vda

# cgroup v2 io.max: the reader limited to 256 KiB/s of reads on vda, so
# blk-throttle holds its bios back and a kworker queues them later.
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
echo +io >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/il
check "io.max set" bash -c "echo '$(cat /sys/block/vda/dev) rbps=262144' >/sys/fs/cgroup/il/io.max"
make_data /dev/vda ext4
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
# A SCSI disk on virtio-scsi (SATA disks go through the same SCSI layer):
# the DEVICE layer from scsi_dispatch_cmd_start to scsi_dispatch_cmd_done,
# within each request's service time, and the disk named in the flows.
# As large as vda (4 KiB ext4 blocks): on a 256 MiB disk (1 KiB blocks)
# the disk read 10 times more than the reads' 100 requests, none of them
# in a followed read; vda's file systems cost 1 to 3.
i=0
while [ ! -b /dev/sda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "SCSI disk present" test -b /dev/sda
make_data /dev/sda ext4
mount /dev/sda /tmp/vd
echo 3 >/proc/sys/vm/drop_caches
read -r before rest </sys/block/sda/stat
run_pc scsi-direct /tmp/vd/data 100 rand direct keep
read -r after rest </sys/block/sda/stat
disk=$((after - before))
check "scsi: scsi_dispatch_cmd_start attached (scsi_mod, through the module notifier)" \
	grep -Eq '^scsi_dispatch_cmd_start +DEVICE +tracepoint +attached$' "$IOLAYERS_D/layers"
check "scsi O_DIRECT: all DIRECT ($DIRECT == $truth_reads)" test "$DIRECT" = "$truth_reads"
check "scsi O_DIRECT: requests on sda in flows == its reads, at most 8 more on the disk ($RQS, $disk)" \
	requests_match 8
nodev=$(flows_where "$IOLAYERS_D/flows" 'col("tid") == p && col("rqs") > 0 &&
	col("device_ns") == "-"' -v p=$PC_PID | wc -l)
check "scsi: a device time for every read with requests ($nodev without)" test "$nodev" = 0
longer=$(flows_where "$IOLAYERS_D/flows" 'col("device_ns") != "-" &&
	col("device_ns") + 0 > col("service_ns") + 0' | wc -l)
check "scsi: device time within the service time ($longer longer)" test "$longer" = 0
check "scsi: flows name sda ($(wrong_disk sda) wrong)" test "$(wrong_disk sda)" = 0
check "scsi: every sda request had a device time ($(disk_col sda device_rqs) == $(disk_col sda requests) >= $truth_reads)" \
	test "$(disk_col sda device_rqs)" = "$(disk_col sda requests)" -a "$(disk_col sda requests)" -ge "$truth_reads"
check "scsi: tables empty, nothing stale or expired ($(table_col bio entries) $(table_col rq entries) $(drops_total))" \
	test "$(table_col bio entries)$(table_col rq entries)$(drops_total)" = 000
rmmod iolayers
umount /tmp/vd
finish
