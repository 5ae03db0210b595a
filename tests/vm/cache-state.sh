#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: the module's HIT/MISS/PARTIAL/DIRECT labels against ground
# truth it did not produce: mincore() before each pread (tests/vm/preadcheck.c),
# drop_caches, O_DIRECT, and fio's own read counts.
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"
# File reads only: no socket probes to attach at every load (_lib.sh).
IL_INSMOD_ARGS=sockets=0

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
echo none >/sys/block/nvme0n1/queue/scheduler
dd if=/dev/zero of=/mnt/cs-data bs=1M count=16 status=none
sync

# Random 4 KiB reads on a cold cache: each page's residency decides.
echo 3 >/proc/sys/vm/drop_caches
run_pc cold-random /mnt/cs-data 1500 rand
files=$((HIT + MISS + PARTIAL + DIRECT + UNK))
check "cold-random: every pread is a file read ($files == $truth_reads)" test "$files" -eq "$truth_reads"
check "cold-random: HIT == resident pages +-1% ($HIT, $truth_res)" \
	test $(((HIT - truth_res) * 100 / truth_reads)) -eq 0
check "cold-random: MISS+PARTIAL == non-resident +-1% ($((MISS + PARTIAL)), $truth_nonres)" \
	test $(((MISS + PARTIAL - truth_nonres) * 100 / truth_reads)) -eq 0
check "cold-random: UNK == 0" test "$UNK" -eq 0
check "cold-random: nearly all reads MISS or PARTIAL (>= 50%)" test $((MISS + PARTIAL)) -ge $((truth_reads / 2))

# Reads that fail in the file system (tests/vm/preadcheck.c errors: a bad
# buffer's -EFAULT, RWF_NOWAIT's -EAGAIN on pages not cached): ERROR, as
# many as the program saw fail, and its flows say so with their ret; the
# others labelled by residency as above.
echo 3 >/proc/sys/vm/drop_caches
PC_ARGS=flows=1024 run_pc errors /mnt/cs-data 900 rand errors keep
bad=$(flows_sum "$PC_PID" '(col("cache") == "ERROR") != (col("ret") < 0)')
failed=$(flows_sum "$PC_PID" 'col("cache") == "ERROR"')
rmmod iolayers
check "errors: RWF_NOWAIT failed too, beyond the bad buffers' third ($truth_failed > $((truth_reads / 3)))" \
	test "$truth_failed" -gt $((truth_reads / 3))
check "errors: ERROR == failed reads ($ERR == $truth_failed)" test "$ERR" -eq "$truth_failed"
check "errors: flows ERROR exactly where ret < 0 ($failed ERROR, $bad wrong)" \
	test "$failed/$bad" = "$truth_failed/0"
check "errors: HIT == resident +-1% ($HIT, $truth_res)" within1 "$HIT" "$truth_res"
check "errors: MISS+PARTIAL == non-resident +-1% ($((MISS + PARTIAL)), $truth_nonres)" \
	within1 $((MISS + PARTIAL)) "$truth_nonres"
check "errors: no DIRECT, other or UNK ($DIRECT, $OTHER, $UNK)" test "$DIRECT$OTHER$UNK" = 000

# Reads of a cached file whose copy to the buffer faults on a page of
# another file that is not cached (preadcheck foreign=): the reader queues
# that file's I/O during its read and waits for it. The read's own pages
# were all resident, so never MISS or PARTIAL: HIT, or UNK where the wait
# cannot be told from one on I/O of its own; the other file's bios are
# not the read's (no request in its flows, bios_foreign).
foreign_test() {
	dd if=/dev/zero of=/mnt/cs-other bs=1M count=1 status=none
	cat /mnt/cs-data >/dev/null
	sync
	local d0 disk foreign
	d0=$(disk_reads)
	run_pc foreign /mnt/cs-data 200 rand foreign=/mnt/cs-other keep
	disk=$(($(disk_reads) - d0))
	foreign=$(stats_value bios_foreign)
	rmmod iolayers
	check "foreign: the read file all resident ($truth_res == $truth_reads)" test "$truth_res" = "$truth_reads"
	check "foreign: the faults read the other file from the disk ($disk reads >= $truth_reads)" \
		test "$disk" -ge "$truth_reads"
	check "foreign: no MISS or PARTIAL ($MISS, $PARTIAL), all HIT or UNK ($HIT + $UNK == $truth_reads)" \
		test "$MISS$PARTIAL" = 00 -a $((HIT + UNK)) = "$truth_reads"
	check "foreign: the other file's bios are not the reads' ($RQS requests in flows, $foreign foreign >= $truth_reads)" \
		test "$RQS" = 0 -a "$foreign" -ge "$truth_reads"
}
foreign_test

# Reads of a cached file into a buffer that is out in swap (a swap file
# on the NVMe disk; preadcheck swap= pages the buffer out before each
# read): the copy swaps it in during the read, I/O that is not the
# file's. As above, never MISS or PARTIAL, no request in the flows, the
# swap-in bios foreign; ground truth: mincore(), the kernel's own count
# of pages swapped in (pswpin) and the disk's reads.
swap_test() {
	dd if=/dev/zero of=/mnt/swap bs=1M count=32 status=none
	chmod 600 /mnt/swap
	mkswap -q /mnt/swap >/dev/null
	check "swap: swapon" swapon /mnt/swap
	cat /mnt/cs-data >/dev/null
	local d0 w0 disk swpin foreign
	vm_swpin() { awk '$1 == "pswpin" { print $2 }' /proc/vmstat; }
	d0=$(disk_reads) w0=$(vm_swpin)
	PC_CGROUP=/sys/fs/cgroup/il run_pc swap /mnt/cs-data 200 rand swap=/sys/fs/cgroup/il/memory.reclaim keep
	disk=$(($(disk_reads) - d0)) swpin=$(($(vm_swpin) - w0))
	foreign=$(stats_value bios_foreign)
	rmmod iolayers
	swapoff /mnt/swap
	rm -f /mnt/swap
	echo "swap: buffer out before $truth_swapped reads; pswpin +$swpin, disk reads +$disk, bios_foreign $foreign"
	check "swap: the read file all resident ($truth_res == $truth_reads)" test "$truth_res" = "$truth_reads"
	check "swap: the buffer was out in swap before most reads ($truth_swapped >= $((truth_reads * 9 / 10)))" \
		test "$truth_swapped" -ge $((truth_reads * 9 / 10))
	check "swap: the kernel swapped the buffer in from the disk ($swpin pswpin, $disk reads >= $truth_swapped)" \
		test "$swpin" -ge "$truth_swapped" -a "$disk" -ge "$truth_swapped"
	check "swap: no MISS or PARTIAL ($MISS, $PARTIAL), all HIT or UNK ($HIT + $UNK == $truth_reads)" \
		test "$MISS$PARTIAL" = 00 -a $((HIT + UNK)) = "$truth_reads"
	check "swap: the swap-ins are not the reads' ($RQS requests in flows, $foreign foreign >= $truth_swapped)" \
		test "$RQS" = 0 -a "$foreign" -ge "$truth_swapped"
}
# memory.reclaim needs the memory controller, which the debug kernel
# (tinyconfig and what it needs) does not build: skipped there.
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
mkdir -p /sys/fs/cgroup/il 2>/dev/null
if [ -e /sys/fs/cgroup/il/memory.reclaim ]; then
	swap_test
else
	echo "swap: skipped, no memory cgroup (memory.reclaim) in this kernel"
fi

# The same file again, now cached: all HIT.
cat /mnt/cs-data >/dev/null
run_pc warm-random /mnt/cs-data 1500 rand
check "warm-random: all pages were resident ($truth_res)" test "$truth_res" -eq "$truth_reads"
check "warm-random: all HIT ($HIT == $truth_reads)" test "$HIT" -eq "$truth_reads"

# Sequential on a cold cache: readahead brings pages in ahead of the reads.
# mincore() counts a page only once it is uptodate, so a page whose I/O
# completes between mincore() and pread() is "non-resident" but a HIT:
# agreement within 1% is asked, not equality.
echo 3 >/proc/sys/vm/drop_caches
run_pc cold-seq /mnt/cs-data 2048 seq
check "cold-seq: HIT == resident +-1% ($HIT, $truth_res)" \
	test $(((HIT - truth_res) * 100 / truth_reads)) -eq 0
check "cold-seq: all file reads labelled ($((HIT + MISS + PARTIAL)) == $truth_reads)" \
	test $((HIT + MISS + PARTIAL)) -eq "$truth_reads"
check "cold-seq: readahead pages counted ($RA)" test "$RA" -gt 0

# fio: buffered randread after drop_caches, then again cached, then O_DIRECT.
# --invalidate=0: fio would otherwise drop the file's cached pages first.
# fio stops itself through a wrapper so the module sees every read; --thread
# keeps its job in the same process (children= is not there yet).
fio_run() {
	bash -c 'kill -STOP $$; exec fio --name=j --filename=/mnt/cs-data --size=16m --rw=randread \
		--bs=4k --ioengine=sync --thread --invalidate=0 --number_ios=1000 --direct='"$1"' --output-format=json \
		--output=/tmp/fio.json' &
	local p=$!
	while [ "$(task_state $p)" != T ]; do poll_nap; done
	insmod "$ko" pid=$p $IL_INSMOD_ARGS || return 1
	kill -CONT $p
	wait $p
	read -r fio_ios fio_bytes < <(python3 -c 'import json; j = json.load(open("/tmp/fio.json"))
print(sum(x["read"]["total_ios"] for x in j["jobs"]), sum(x["read"]["io_bytes"] for x in j["jobs"]))')
	cache_counts
	fsbytes=$(summary_field fs bytes)
	echo "fio direct=$1: total_ios $fio_ios io_bytes $fio_bytes; module: HIT $HIT MISS $MISS PARTIAL $PARTIAL DIRECT $DIRECT other $OTHER UNK $UNK fs bytes $fsbytes"
	rmmod iolayers
}
# Not on the debug kernel: there every exec of fio (64 shared libraries, over
# uncached 9p) took 35 s and each fio run about 130 s of its 616 s, for
# label checks the four stock kernels make; the preadcheck runs above take
# the module through the same cold and warm paths under KASAN, and
# module-basic through O_DIRECT.
if [ "${IOLAYERS_KERNEL:-}" = debug ]; then
	echo "fio: skipped on the debug kernel (fio's checks run on the stock kernels)"
	finish
fi
echo 3 >/proc/sys/vm/drop_caches
fio_run 0
check "fio cold: file reads == fio total_ios ($((HIT + MISS + PARTIAL)), $fio_ios)" \
	test $((HIT + MISS + PARTIAL + DIRECT + UNK)) -eq "$fio_ios"
check "fio cold: fs bytes == fio io_bytes ($fsbytes, $fio_bytes)" test "$fsbytes" -eq "$fio_bytes"
check "fio cold: MISS+PARTIAL >= 50% ($((MISS + PARTIAL)) of $fio_ios)" \
	test $(((MISS + PARTIAL) * 2)) -ge "$fio_ios"
check "fio cold: UNK < 1%" test $((UNK * 100)) -lt "$fio_ios"
fio_run 0
check "fio warm: all HIT ($HIT == $fio_ios)" test "$HIT" -eq "$fio_ios"
fio_run 1
check "fio direct: all DIRECT ($DIRECT == $fio_ios)" test "$DIRECT" -eq "$fio_ios"
check "fio direct: fs bytes == fio io_bytes ($fsbytes, $fio_bytes)" test "$fsbytes" -eq "$fio_bytes"
finish
