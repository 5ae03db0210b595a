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
finish
