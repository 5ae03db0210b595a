#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: xfs on a virtio-blk disk with mq-deadline and btrfs with
# bfq (the kernel's defaults for single-queue disks; two vCPUs give the
# disk two queues and "none"), against mincore() before each pread
# (tests/vm/preadcheck.c) and the disk's own counters
# (/sys/block/vda/stat): buffered reads labelled by residency with FS
# time, O_DIRECT reads (iomap_dio_rw) all DIRECT, each bound to its request.
# Then through device-mapper, buffered and O_DIRECT: ext4 on linear (clones
# queued by the reader) and delay (clones remapped and queued from a
# workqueue 20 ms later) over vda; ext4 and xfs on dm-crypt (decrypted in a
# workqueue) and on LVM made by lvm2 over a partition of an NVMe namespace,
# then ext4 on md RAID1 (with the SCSI disk, write-mostly) and xfs on md
# RAID0 over two partitions: every MISS has
# requests on the disk below (on NVMe with a device time) and they are
# its own, dm-delay's wait lies between the first bio and the issue, and
# the stacked device's bios leave the bio table at once. Last, cgroup v2 io.max on the reader: the bios
# blk-throttle holds back (queued later by a kworker) keep their reads,
# and the wait shows between each read's first bio and its issue.
# vm-modules: virtio_blk xfs btrfs bfq dm_mod dm_delay dm_crypt md_mod raid0 raid1 virtio_scsi sd_mod
# vm-virtio-disk: 512
# vm-scsi-disk: 512
# vm-nvme-ns2: 512
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"
# File reads only: no socket probes to attach at every load (_lib.sh).
# shellcheck disable=SC2034 # used by run_pc (_lib.sh)
IL_INSMOD_ARGS=sockets=0

check "virtio-blk disk present" wait_block /dev/vda
mkdir -p /tmp/vd

# requests_match SLACK: the reads' requests are all in their flows, and
# the disk completed those and at most SLACK reads of its own more.
requests_match() {
	test "$RQS" -ge "$truth_reads" -a "$RQS" -le "$disk" -a "$disk" -le $((RQS + $1))
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
	before=$(disk_reads vda)
	run_pc $fs-direct /tmp/vd/data 200 rand direct
	disk=$(($(disk_reads vda) - before))
	check "$fs O_DIRECT: all DIRECT ($DIRECT == $truth_reads)" test "$DIRECT" = "$truth_reads"
	# btrfs calls it again for a read it had to finish in two parts.
	check "$fs O_DIRECT: FS layer for every read, through iomap_dio_rw ($FS, $DIO)" \
		test "$FS" = "$truth_reads" -a "$DIO" -ge "$truth_reads"
	# A cold file's metadata may add a read or two of its own.
	check "$fs O_DIRECT: requests in flows == disk reads, at most 2 more on the disk ($RQS, $disk)" \
		requests_match 2
	umount /tmp/vd
done

# Device-mapper, without udev (libdevmapper makes the nodes): over vda and
# over the NVMe controller's second namespace, where requests have a
# device time.
export DM_DISABLE_UDEV=1
echo mq-deadline >/sys/block/vda/queue/scheduler
# Namespace 2 by its nsid, not its name: 6.12 scans namespaces in
# parallel and may name namespace 2 nvme0n1 (run-vm's init says which).
ns2=${IOLAYERS_NVME_NS2:-nvme0n2}
check "NVMe namespace 2 present ($ns2)" wait_block /dev/$ns2
check "$ns2 is namespace 2, the test disk on /mnt namespace 1" \
	test "$(cat /sys/block/$ns2/nsid)/$(nvme_nsid_of /mnt)" = 2/1

# stacked_reads NAME DEV BELOW: cold buffered random reads, then O_DIRECT
# ones, of /tmp/vd/data on DEV (a device-mapper device over the disk
# BELOW), each checked against mincore() and the disk's counters: every
# read's requests on BELOW are in its flow (a MISS has at least one, with
# a device time on NVMe), and at most a few more of the file system's
# own; the flows name BELOW; the stacked device's bios are remapped and
# leave the bio table at once; nothing stale or expired.
stacked_reads() {
	local name=$1 dev=$2 below=$3 mode nomiss nodev
	for mode in buffered direct; do
		check "$name: mount $(blkid -o value -s TYPE "$dev")" mount "$dev" /tmp/vd
		echo 3 >/proc/sys/vm/drop_caches
		before=$(disk_reads $below)
		if [ $mode = buffered ]; then
			run_pc "$name-buffered" /tmp/vd/data 150 rand - keep
		else
			run_pc "$name-direct" /tmp/vd/data 100 rand direct keep
		fi
		disk=$(($(disk_reads $below) - before))
		if [ $mode = buffered ]; then
			check "$name buffered: HIT == resident +-1% ($HIT, $truth_res)" within1 "$HIT" "$truth_res"
			check "$name buffered: MISS+PARTIAL == non-resident +-1% ($((MISS + PARTIAL)), $truth_nonres)" \
				within1 $((MISS + PARTIAL)) "$truth_nonres"
			nomiss=$(flows_where "$IOLAYERS_D/flows" 'col("tid") == p && col("cache") == "MISS" &&
				col("rqs") == 0' -v p=$PC_PID | wc -l)
			check "$name buffered: every MISS has requests on $below ($nomiss without)" test "$nomiss" = 0
			# The file system's metadata after drop_caches (5 reads
			# seen with dm-delay) is not the reader's.
			check "$name buffered: requests on $below in flows, at most 8 more on the disk ($RQS, $disk)" \
				test "$RQS" -ge $((MISS + PARTIAL)) -a "$RQS" -le "$disk" -a "$disk" -le $((RQS + 8))
		else
			check "$name O_DIRECT: all DIRECT ($DIRECT == $truth_reads)" test "$DIRECT" = "$truth_reads"
			check "$name O_DIRECT: requests on $below in flows == its reads, at most 8 more on the disk ($RQS, $disk)" \
				requests_match 8
		fi
		check "$name $mode: bios remapped ($(stats_value bios_remapped) >= $((MISS + PARTIAL + DIRECT)))" \
			test "$(stats_value bios_remapped)" -ge $((MISS + PARTIAL + DIRECT))
		check "$name $mode: flows name $below, the disk below ($(wrong_disk $below) wrong)" \
			test "$(wrong_disk $below)" = 0
		case $below in
		nvme*)
			nodev=$(flows_where "$IOLAYERS_D/flows" 'col("tid") == p && col("rqs") > 0 &&
				col("device_ns") == "-"' -v p=$PC_PID | wc -l)
			check "$name $mode: a device time for every read with requests ($nodev without)" \
				test "$nodev" = 0
			check "$name $mode: every $below request with a device time ($(disk_col $below device_rqs) == $(disk_col $below requests) >= $RQS)" \
				test "$(disk_col $below device_rqs)" = "$(disk_col $below requests)" -a \
				"$(disk_col $below requests)" -ge "$RQS" ;;
		*)
			check "$name $mode: $below's requests, none with a device time (virtio-blk: $(disk_col $below requests) >= $RQS, $(disk_col $below device_rqs))" \
				test "$(disk_col $below requests)" -ge "$RQS" -a "$(disk_col $below device_rqs)" = 0 ;;
		esac
		check "$name $mode: bio and request tables empty at once ($(table_col bio entries) $(table_col rq entries))" \
			test "$(table_col bio entries)$(table_col rq entries)" = 00
		check "$name $mode: nothing stale or expired ($(drops_total))" test "$(drops_total)" = 0
		if [ "$name" = "dm delay" ]; then
			# From the read's first bio (on the dm device) to its first
			# issue: dm-delay holds the bio 20 ms. Its timer counts
			# jiffies, the module the clock: a tick is 4 ms at HZ=250,
			# and when the host stalls the guest, its ticks come late
			# and jiffies lag the clock, so a bio queued then is held
			# that much less by the clock (one read of 143 under 15 ms in
			# a cold make check beside the debug kernel's build). Were
			# the first bio the remapped clone's, every gap would be
			# well under a millisecond: the median and 98 % of the reads
			# at 15 ms or more say the wait lies in between.
			read -r nd short median low <<<"$(python3 -c 'import sys
rows = [l.split() for l in open(sys.argv[1])]
c = {n: i for i, n in enumerate(rows[0])}
g = sorted(int(r[c["issue_off"]]) - int(r[c["queue_off"]]) for r in rows[1:]
           if r[c["tid"]] == sys.argv[2] and r[c["rqs"]] != "0" and
           "-" not in (r[c["issue_off"]], r[c["queue_off"]]))
print(len(g), sum(x < 15000000 for x in g), g[(len(g) - 1) // 2] if g else 0, g[0] if g else 0)' \
				"$IOLAYERS_D/flows" "$PC_PID")"
			check "dm delay $mode: the 20 ms delay lies between the reads' first bios and their issues ($short of $nd under 15 ms, median $median ns, least $low ns)" \
				test "$nd" -gt 0 -a "$median" -ge 15000000 -a $((short * 50)) -le "$nd"
		fi
		rmmod iolayers
		umount /tmp/vd
	done
}

# make_data DEV FS: a new FS on DEV holding /tmp/vd/data (8 MiB). ext4
# with 4 KiB blocks whatever the size: below 512 MiB mke2fs takes 1 KiB
# ones, and the file's metadata then cost the disk 10 to 15 reads outside
# the followed reads (a 256 MiB SCSI disk, a 448 MiB LVM volume) where 4
# KiB blocks cost 1 to 3.
make_data() {
	case $2 in
	ext4) mkfs.ext4 -q -F -b 4096 "$1" ;;
	xfs) mkfs.xfs -q -f "$1" ;;
	esac
	mount "$1" /tmp/vd
	head -c $((8 << 20)) /dev/urandom >/tmp/vd/data
	umount /tmp/vd
}

# linear (clones queued by the reader) and delay (clones remapped and
# queued from a workqueue 20 ms later), over the ext4 made on vda itself.
sectors=$(blockdev --getsz /dev/vda)
make_data /dev/vda ext4
for target in linear delay; do
	case $target in
	linear) table="0 $sectors linear /dev/vda 0" ;;
	delay) table="0 $sectors delay /dev/vda 0 20" ;;
	esac
	check "dm $target: create" dmsetup create il-$target --table "$table"
	stacked_reads "dm $target" /dev/mapper/il-$target vda
	dmsetup remove il-$target
done

# On the NVMe namespace, ext4 and xfs on each: dm-crypt (aes-cbc-plain64,
# built into Debian's kernels: no crypto module to load; reads decrypted
# in kcryptd's workqueue after the clone, which carries the read's bio to
# the disk, completes) and an LVM linear volume made by lvm2's own tools
# (without udev or lvmetad; configuration and metadata backups in a
# writable LVM_SYSTEM_DIR).
sectors=$(blockdev --getsz /dev/$ns2)
key=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export LVM_SYSTEM_DIR=/tmp/lvm
mkdir -p $LVM_SYSTEM_DIR /run/lock/lvm
cat >$LVM_SYSTEM_DIR/lvm.conf <<'LVM'
activation { udev_sync = 0 udev_rules = 0 monitoring = 0 }
devices { obtain_device_list_from_udev = 0 use_devicesfile = 0 }
LVM
# partition_ns2 N: a new GPT on the namespace with N partitions (one
# filling it, or two of 240 MiB), their nodes in /dev.
partition_ns2() {
	local spec=','
	[ "$1" = 2 ] && spec=$',240M\n,240M'
	wipefs -q -a /dev/$ns2
	printf 'label: gpt\n%s\n' "$spec" | sfdisk -q /dev/$ns2 >/dev/null
	check "$ns2: $1 partition(s)" wait_block /dev/${ns2}p$1
}
for fs in ext4 xfs; do
	check "dm-crypt: create" dmsetup create il-crypt --table \
		"0 $sectors crypt aes-cbc-plain64 $key 0 /dev/$ns2 0"
	make_data /dev/mapper/il-crypt $fs
	stacked_reads "dm-crypt $fs" /dev/mapper/il-crypt $ns2
	dmsetup remove il-crypt

	partition_ns2 1
	check "lvm: pvcreate, vgcreate, lvcreate on ${ns2}p1" bash -c 'pvcreate -q "$1" &&
		vgcreate -q ilvg "$1" && lvcreate -q -y -L 448m -n data ilvg' lvm /dev/${ns2}p1 </dev/null
	make_data /dev/ilvg/data $fs
	stacked_reads "lvm $fs" /dev/ilvg/data $ns2
	check "lvm: vgremove" vgremove -q -f ilvg
	wipefs -q -a /dev/${ns2}p1 /dev/$ns2
done

# md (mdadm, without udev): RAID1 with ext4 over a partition of the
# namespace and the SCSI disk, the latter write-mostly (md reads from the
# other member while it is well, so every read's requests are on
# namespace 2; over two partitions of one disk md prints "WARNING: ... appears
# to be on the same physical disk", which fails the run), a read going
# down as a clone of md's bio; RAID0 with xfs over two partitions of the
# namespace, md's bio itself remapped to a member. Each partition remaps
# the bio once more.
export MDADM_NO_UDEV=1
mkdir -p /run/mdadm
wait_block /dev/sda
partition_ns2 2
for level in 1 0; do
	case $level in
	1) fs=ext4 devs="/dev/${ns2}p1 /dev/sda" members="--assume-clean /dev/${ns2}p1 --write-mostly /dev/sda" ;;
	0) fs=xfs devs="/dev/${ns2}p1 /dev/${ns2}p2" members=$devs ;;
	esac
	check "md raid$level: create over $devs" mdadm --create /dev/md0 --run --quiet \
		--level=$level --raid-devices=2 $members </dev/null
	make_data /dev/md0 $fs
	stacked_reads "md raid$level $fs" /dev/md0 $ns2
	mdadm --stop /dev/md0
	mdadm --zero-superblock $devs
done
wipefs -q -a /dev/${ns2}p1 /dev/${ns2}p2 /dev/$ns2 /dev/sda

# cgroup v2 io.max: the reader limited to 256 KiB/s of reads on vda, so
# blk-throttle holds its bios back and a kworker queues them later.
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
echo +io >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/il
check "io.max set" bash -c "echo '$(cat /sys/block/vda/dev) rbps=262144' >/sys/fs/cgroup/il/io.max"
make_data /dev/vda ext4
mount /dev/vda /tmp/vd
echo 3 >/proc/sys/vm/drop_caches
before=$(disk_reads vda)
PC_CGROUP=/sys/fs/cgroup/il run_pc throttled /tmp/vd/data 100 rand direct keep
disk=$(($(disk_reads vda) - before))
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
check "SCSI disk present" wait_block /dev/sda
make_data /dev/sda ext4
mount /dev/sda /tmp/vd
echo 3 >/proc/sys/vm/drop_caches
before=$(disk_reads sda)
run_pc scsi-direct /tmp/vd/data 100 rand direct keep
disk=$(($(disk_reads sda) - before))
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
# SCSI's dispatch budget: a device takes queue_depth commands at once; a
# request that finds none (no I/O scheduler: issued directly) goes onto
# the dispatch list without any block event, and a worker issues it once
# a command completes. threadcheck's O_DIRECT threads, each started once
# the one before waits for its I/O, on a depth of 1: every read must
# still have its request (the module keeps such a device's bios in the
# bio table, never in a reader's slot). Ground truth: the program's own
# reads, the disk's, and the kernel's block_rq_issue events, of which
# some must come from a worker (or the budget was never short).
echo none >/sys/block/sda/queue/scheduler
depth=$(cat /sys/block/sda/device/queue_depth)
echo 1 >/sys/block/sda/device/queue_depth
echo 3 >/proc/sys/vm/drop_caches
"$IOLAYERS_MODULE_DIR/threadcheck" descend 85 /tmp/vd/data >/tmp/sb.out &
p=$!
while [ "$(awk '{ print $3 }' /proc/$p/stat 2>/dev/null)" != T ]; do sleep 0.05; done
check "scsi budget: insmod pid=$p" insmod "$IOLAYERS_MODULE_DIR/iolayers.ko" pid=$p $IL_INSMOD_ARGS
trace_start block_rq_issue
before=$(disk_reads sda)
kill -CONT $p
wait $p
trace_stop
echo 0 >$IL_TRACEFS/events/block/block_rq_issue/enable
disk=$(($(disk_reads sda) - before))
read -r _ _ ios </tmp/sb.out
by_worker=$(grep -c 'kworker.* block_rq_issue: 8,0 R' $IL_TRACEFS/trace)
cache_counts
qn=$(summary_field queue count) qb=$(summary_field queue bytes)
echo "# scsi budget: threadcheck $ios reads; disk $disk reads; issued by a worker $by_worker; module DIRECT $DIRECT queue $qn ($qb bytes)"
check "scsi budget: threadcheck made its 425 reads ($ios)" test "$ios" = 425
check "scsi budget: requests issued by a worker, the budget was short ($by_worker > 0)" \
	test "$by_worker" -gt 0
check "scsi budget: every read DIRECT ($DIRECT == $ios)" test "$DIRECT" = "$ios"
check "scsi budget: every read has its request ($qn == $ios), of its bytes ($qb)" \
	test "$qn" = "$ios" -a "$qb" = $((ios * 4096))
check "scsi budget: tables drained ($(table_col bio entries) $(table_col rq entries))" \
	test "$(table_col bio entries)$(table_col rq entries)" = 00
rmmod iolayers
echo "$depth" >/sys/block/sda/device/queue_depth
umount /tmp/vd
finish
