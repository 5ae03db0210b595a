#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: the FS layer and the cache labels beyond ext4's plain
# reads, against mincore() before each pread (tests/vm/preadcheck.c):
# tmpfs (shmem_file_read_iter), ext4 O_DIRECT (iomap_dio_rw) and ext4
# O_DIRECT on a file with data journaling (chattr +j), which ext4 serves
# from the page cache and so must not be labelled DIRECT.
# vm-files: plain:8 journal:8
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
pc=$IOLAYERS_MODULE_DIR/preadcheck
echo none >/sys/block/nvme0n1/queue/scheduler

# run_pc NAME FILE COUNT PATTERN [direct]: preadcheck under the module; sets
# truth_* and HIT MISS PARTIAL DIRECT OTHER UNK FS (the FS layer's count).
run_pc() {
	local name=$1 out p
	shift
	"$pc" "$1" "$2" "$3" 42 ${4:-} >/tmp/pc.out &
	p=$!
	while [ "$(awk '{ print $3 }' /proc/$p/stat 2>/dev/null)" != T ]; do sleep 0.1; done
	insmod "$ko" pid=$p || return 1
	kill -CONT $p
	wait $p
	out=$(cat /tmp/pc.out)
	echo "$name: preadcheck: $out"
	read -r _ truth_reads _ truth_res _ truth_nonres _ truth_bytes <<<"$out"
	read -r HIT MISS PARTIAL DIRECT OTHER UNK <<<"$(cache_counts)"
	FS=$(summary_field fs count)
	DIO=$(stats_hits iomap_dio_rw)
	echo "$name: module: HIT $HIT MISS $MISS PARTIAL $PARTIAL DIRECT $DIRECT other $OTHER UNK $UNK fs $FS iomap_dio_rw $DIO"
	rmmod iolayers
}

# within1 A B: |A - B| is at most 1 % of the reads.
within1() { test $((($1 - $2) * 100 / truth_reads)) -eq 0; }

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
finish
