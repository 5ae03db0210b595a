#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: the FS layer and the cache labels beyond ext4's plain
# reads, against mincore() before each pread (tests/vm/preadcheck.c):
# tmpfs (shmem_file_read_iter), ext4 O_DIRECT (iomap_dio_rw) and ext4
# O_DIRECT on a file with data journaling (chattr +j), which ext4 serves
# from the page cache and so must not be labelled DIRECT. Last, xfs with
# 1 KiB blocks on a loop device: a file whose extents are a btree, read
# after a mount, so that the read itself reads the btree into buffers
# from kmalloc (slab pages). And a split bio past 2 TiB, on a partition of
# a sparse loop device.
# vm-files: plain:8 journal:8
# vm-modules: xfs loop
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"
# File reads only: no socket probes to attach at every load (_lib.sh).
# shellcheck disable=SC2034 # used by run_pc (_lib.sh)
IL_INSMOD_ARGS=sockets=0

echo none >/sys/block/nvme0n1/queue/scheduler

# tmpfs: its pages are all in memory, every read is a HIT with FS time.
head -c $((4 << 20)) /dev/urandom >/tmp/shm-file
run_pc tmpfs /tmp/shm-file 500 rand
check "tmpfs: every pread reached the FS layer ($FS == $truth_reads)" test "$FS" = "$truth_reads"
check "tmpfs: all pages resident ($truth_res)" test "$truth_res" = "$truth_reads"
check "tmpfs: all HIT ($HIT)" test "$HIT" = "$truth_reads"
check "tmpfs: nothing other or UNK ($OTHER, $UNK)" test "$OTHER$UNK" = 00

# ext4 O_DIRECT: through iomap_dio_rw, all DIRECT.
echo 3 >/proc/sys/vm/drop_caches
run_pc ext4-direct /mnt/plain 300 rand direct
check "ext4 O_DIRECT: all DIRECT ($DIRECT == $truth_reads)" test "$DIRECT" = "$truth_reads"
check "ext4 O_DIRECT: FS layer for every read ($FS)" test "$FS" = "$truth_reads"
check "ext4 O_DIRECT: iomap_dio_rw seen for every read ($DIO)" test "$DIO" = "$truth_reads"

# ext4 O_DIRECT on a file with data journaling: ext4 falls back to buffered
# reads (the page cache serves them): labelled by residency, never DIRECT.
# A file's j flag counts only without delayed allocation.
check "remount /mnt with nodelalloc" bash -c 'umount /mnt && mount -o nodelalloc /dev/nvme0n1 /mnt'
check "chattr +j" chattr +j /mnt/journal
check "lsattr shows j" bash -c "lsattr /mnt/journal | cut -d' ' -f1 | grep -q j"
echo 3 >/proc/sys/vm/drop_caches
run_pc journal-direct /mnt/journal 500 rand direct
files=$((HIT + MISS + PARTIAL + DIRECT))
check "data=journal O_DIRECT: every pread a file read ($files == $truth_reads)" \
	test "$files" = "$truth_reads"
check "data=journal O_DIRECT: no DIRECT ($DIRECT)" test "$DIRECT" = 0
check "data=journal O_DIRECT: HIT == resident +-1% ($HIT, $truth_res)" within1 "$HIT" "$truth_res"
check "data=journal O_DIRECT: MISS+PARTIAL == non-resident +-1% ($((MISS + PARTIAL)), $truth_nonres)" \
	within1 $((MISS + PARTIAL)) "$truth_nonres"
check "data=journal O_DIRECT: some reads missed the cache ($truth_nonres)" test "$truth_nonres" -gt 0

# xfs, 1 KiB blocks: 4,000 one-KiB extents with a hole after each are a
# btree that xfs reads on the file's first read after a mount, in the
# reader's context, into 1 KiB buffers from kmalloc. Their bios' pages
# are slab pages, whose mapping field holds the slab's cache: the module
# took it for an address_space and followed it to an inode (an oops on
# 6.1 and 6.12, issue 29). Those bios are the file system's metadata and
# stay the read's (not foreign).
truncate -s 512M /tmp/xfs.img
lo=$(losetup -f --show /tmp/xfs.img)
check "xfs 1 KiB blocks: mkfs on $lo" mkfs.xfs -q -f -b size=1024 "$lo"
mkdir -p /tmp/xb
check "xfs 1 KiB blocks: mount" mount "$lo" /tmp/xb
cmds=()
for ((i = 0; i < 4000; i++)); do
	cmds+=(-c "pwrite -q $((i * 2048)) 1024")
done
# O_DIRECT: each write allocates its own block (buffered, 6.1 made 34
# extents of it, filling the holes from its speculative preallocation).
xfs_io -f -d "${cmds[@]}" /tmp/xb/frag
n=$(xfs_io -r -c stat /tmp/xb/frag | sed -n 's/^fsxattr.nextents = //p')
check "xfs 1 KiB blocks: the file's extents are a btree (${n:-?} >= 1000)" test "${n:-0}" -ge 1000
check "xfs 1 KiB blocks: mount again (extents not read yet)" \
	bash -c "umount /tmp/xb && mount $lo /tmp/xb"
before=$(disk_reads "${lo#/dev/}")
PC_ARGS=flows=1024 run_pc xfs-btree /tmp/xb/frag 300 rand - keep
disk=$(($(disk_reads "${lo#/dev/}") - before))
files=$((HIT + MISS + PARTIAL + DIRECT))
check "xfs btree: every pread a file read ($files == $truth_reads)" test "$files" = "$truth_reads"
check "xfs btree: HIT == resident +-1% ($HIT, $truth_res)" within1 "$HIT" "$truth_res"
check "xfs btree: MISS+PARTIAL == non-resident +-1% ($((MISS + PARTIAL)), $truth_nonres)" \
	within1 $((MISS + PARTIAL)) "$truth_nonres"
check "xfs btree: no DIRECT, other or UNK ($DIRECT, $OTHER, $UNK)" test "$DIRECT$OTHER$UNK" = 000
check "xfs btree: no bio called foreign ($(stats_value bios_foreign))" test "$(stats_value bios_foreign)" = 0
# The first read read the btree: 4,000 extents of 16 bytes are about 68
# leaves of 1 KiB (71 requests with its data on 6.1 and 6.12; adjacent
# leaves may merge).
first=$(awk -v p=$PC_PID 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$(h["tid"]) == p { print $(h["rqs"]); exit }' "$IOLAYERS_D/flows")
check "xfs btree: the first read's requests include the btree's blocks (${first:-?} > 50)" \
	test "${first:-0}" -gt 50
# The disk's reads are the reads' own, the btree's blocks among them, and
# at most 8 more: what preadcheck's open() read before the module was
# loaded (the directory's block, the inode's cluster; 1 on 6.1, 5 on 6.12).
check "xfs btree: requests in flows == $lo's reads, at most 8 more on the disk ($RQS, $disk)" \
	test "$RQS" -le "$disk" -a "$disk" -le $((RQS + 8))
rmmod iolayers
umount /tmp/xb
losetup -d "$lo"
rm -f /tmp/xfs.img

# Sectors past 2^32 (2 TiB): a 1 MiB O_DIRECT read of a partition that
# starts at 2.5 TiB of a sparse 3 TiB loop device, split at 64 KiB
# (max_sectors_kb) into 16 requests. block_split gives the rest's sector
# as an unsigned int: the module took it, the rest no longer matched, and
# every request after the first split was lost to the read (issue 29).
truncate -s 3T /tmp/big.img
# 5,368,709,120 sectors of 512 bytes: 2.5 TiB.
check "past 2 TiB: a partition at 2.5 TiB" \
	bash -c "echo 'start=5368709120, size=204800' | sfdisk -q --label gpt /tmp/big.img"
lo=$(losetup -P -f --show /tmp/big.img)
b=${lo#/dev/}
check "past 2 TiB: ${lo}p1 starts at sector $(cat "/sys/block/$b/${b}p1/start" 2>/dev/null)" \
	test "$(cat "/sys/block/$b/${b}p1/start" 2>/dev/null)" = 5368709120
echo none >"/sys/block/$b/queue/scheduler"
echo 64 >"/sys/block/$b/queue/max_sectors_kb"
before=$(disk_reads "$b")
bash -c 'kill -STOP $$; exec dd if='"${lo}p1"' of=/dev/null bs=1M count=1 iflag=direct status=none' &
p=$!
while [ "$(task_state $p)" != T ]; do sleep 0.1; done
insmod "$IOLAYERS_MODULE_DIR/iolayers.ko" pid=$p sockets=0 || echo "insmod failed"
kill -CONT $p
wait $p
disk=$(($(disk_reads "$b") - before))
rqs=$(flows_sum $p 'col("rqs")')
# The 1 MiB read's label (dd's loader read its libraries too, cached).
label=$(awk -v p=$p 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$(h["tid"]) == p && $(h["req"]) == 1048576 { print $(h["cache"]) }' "$IOLAYERS_D/flows")
check "past 2 TiB: the 1 MiB read was 16 requests on $lo ($disk)" test "$disk" = 16
check "past 2 TiB: every request bound to the read ($rqs of $disk)" test "$rqs" = "$disk"
# A block device's read has no FS layer the module follows
# (blkdev_read_iter): never a page-cache label for this O_DIRECT read.
check "past 2 TiB: one read, not labelled by the page cache (${label:-none})" \
	bash -c "[ \"$(echo $label | wc -w)\" = 1 ] && ! grep -qE 'HIT|MISS|PARTIAL' <<<'$label'"
check "past 2 TiB: no bio taken for a reused one ($(stats_value bio_reused))" \
	test "$(stats_value bio_reused)" = 0
rmmod iolayers
losetup -d "$lo"
rm -f /tmp/big.img

# A file system shut down under its reader (ext4's shutdown ioctl, what
# ext4 does itself when its disk goes away): the next read fails with
# -EIO in ext4's read_iter, before any call the FS layer follows. A read
# of a file that failed: ERROR, not other (a SCSI disk deleted under a
# reader, tests/vm/device-reset.sh, was labelled other).
truncate -s 64M /tmp/shut.img
lo=$(losetup -f --show /tmp/shut.img)
mkfs.ext4 -q -F "$lo"
mkdir -p /tmp/shut
mount "$lo" /tmp/shut
head -c $((4 << 20)) /dev/urandom >/tmp/shut/file
sync
PC_FILE=/tmp/shut/file stopped_pc shut 100 rand
check "shut down: insmod pid=$PC_PID" insmod "$IOLAYERS_MODULE_DIR/iolayers.ko" pid=$PC_PID sockets=0
check "shut down: ext4 on $lo shut down" xfs_io -x -c shutdown /tmp/shut
kill -CONT $PC_PID
wait $PC_PID
last=$(tail -n 1 /tmp/shut.pclog)
cache_counts
check "shut down: preadcheck's one read failed ($(wc -l </tmp/shut.pclog): $last)" \
	test "$(wc -l </tmp/shut.pclog)" = 1 -a "$(echo "$last" | cut -d' ' -f4)" = -1
check "shut down: it is labelled ERROR (ERROR $ERR, other $OTHER, UNK $UNK)" \
	test "$ERR/$OTHER/$UNK" = 1/0/0
rmmod iolayers
umount /tmp/shut
losetup -d "$lo"
rm -f /tmp/shut.img
finish
