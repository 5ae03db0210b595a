#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: requests that merge the bios of several followed reads,
# and requests merged into others. Threads of one program
# (tests/vm/threadcheck.c gap, descend) read with O_DIRECT 4 KiB blocks in
# a set order, each once the one before it waits for its I/O, on a
# virtio-blk disk of one queue of 8 descriptors without indirect ones (a
# request takes one per segment and two more: two 4 KiB reads fill it,
# the driver stops the queue at the third until one completes, and a
# request of up to 6 segments fits) which QEMU throttles to 100 requests
# a second, so that the reads after the first three wait in the I/O
# scheduler. Four threads reading a stripe at once, fio's jobs or a
# barrier, left the order to chance: runs merged 0 to 107 times, and on
# this disk almost never.
# Ground truth: the program's own count, the disk's
# (/sys/block/vda/stat: reads completed and merged, sectors) and the
# kernel's own merge events (tracefs). For ext4 and xfs, each under
# mq-deadline and bfq: every read gets its request, the flows' request
# bytes add up to the reads' and to the disk's sectors (but for a little
# metadata), the disk's requests and merges to the reads, nothing stale,
# the tables drain; under mq-deadline front merges and request merges
# must have happened, and the module must have seen the latter.
# vm-modules: virtio_blk xfs bfq
# vm-virtio-disk: 512 num-queues=1,queue-size=8,indirect_desc=off throttling.iops-total=100
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"
# File reads only: no socket probes to attach at every load (_lib.sh).
IL_INSMOD_ARGS=sockets=0

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
check "virtio-blk disk present" wait_block /dev/vda
mkdir -p /tmp/vd

# vda_stat FIELD: a field of /sys/block/vda/stat (1 reads, 2 merged, 3 sectors).
vda_stat() { awk -v f="$1" '{ print $f }' /sys/block/vda/stat; }

# In both modes (threadcheck gap, descend) three reads far apart
# first take the disk's two slots and stop its queue, so that the
# stripe's requests stay in the I/O scheduler: gap fills the hole between
# two waiting requests, whose bio merge makes the scheduler merge the
# requests themselves (block_rq_merge: the module hands the merged
# request's reads to the one that took it in); descend reads a block
# after the one above it (a front merge: the request's first sector
# moves). The kernel's own merge events (tracefs) say that each happened
# (trace_start, trace_count: _lib.sh).

# merge_run FS/SCHED MODE N READS: threadcheck MODE N under the module,
# checked against the program's reads and the disk's counters.
merge_run() {
	local t="$1 $2" mode=$2 n=$3 want=$4 p r0 m0 s0 reads merged bytes ios iob qn qb rqm fm bm mod_rqm
	echo 3 >/proc/sys/vm/drop_caches
	"$IOLAYERS_MODULE_DIR/threadcheck" $mode $n /tmp/vd/data >/tmp/m.out &
	p=$!
	while [ "$(awk '{ print $3 }' /proc/$p/stat 2>/dev/null)" != T ]; do sleep 0.05; done
	check "$t: insmod pid=$p" insmod "$ko" pid=$p $IL_INSMOD_ARGS
	r0=$(vda_stat 1) m0=$(vda_stat 2) s0=$(vda_stat 3)
	trace_start block_rq_merge block_bio_frontmerge block_bio_backmerge
	kill -CONT $p
	wait $p
	trace_stop
	reads=$(($(vda_stat 1) - r0)) merged=$(($(vda_stat 2) - m0))
	bytes=$((($(vda_stat 3) - s0) * 512))
	rqm=$(trace_count block_rq_merge) fm=$(trace_count block_bio_frontmerge)
	bm=$(trace_count block_bio_backmerge)
	read -r _ _ ios </tmp/m.out
	iob=$((ios * 4096))
	cache_counts
	qn=$(summary_field queue count) qb=$(summary_field queue bytes)
	mod_rqm=$(stats_value requests_merged)
	echo "$t: threadcheck $ios reads $iob bytes; disk $reads reads $merged merged $bytes bytes;" \
		"kernel events: bio front $fm back $bm, rq merges $rqm;" \
		"module DIRECT $DIRECT queue $qn reads $qb bytes, requests merged $mod_rqm," \
		"overflow $(stats_value flow_overflow)"
	check "$t: threadcheck made its $want reads ($ios)" test "$ios" = "$want"
	check "$t: every read DIRECT ($DIRECT == $ios)" test "$DIRECT" = "$ios"
	check "$t: every read has its request ($qn == $ios)" test "$qn" = "$ios"
	# A cold file's metadata (xfs: 1536 bytes seen) may add a little
	# of the file system's own.
	check "$t: request bytes == the reads' bytes, the disk's at most 8 KiB more ($qb, $iob, $bytes)" \
		test "$qb" = "$iob" -a "$bytes" -ge "$qb" -a "$bytes" -le $((qb + 8192))
	check "$t: nothing stale ($(table_col rq stale) $(table_col bio stale) $(stats_value bio_reused))" \
		test "$(table_col rq stale)$(table_col bio stale)$(stats_value bio_reused)" = 000
	check "$t: no flow overflow ($(stats_value flow_overflow))" test "$(stats_value flow_overflow)" = 0
	check "$t: bio and request tables drained ($(table_col bio entries) $(table_col rq entries))" \
		test "$(table_col bio entries)$(table_col rq entries)" = 00
	# Every merge takes one request off the disk's count: bios == requests + merges.
	check "$t: the disk's requests and merges add up to its bios ($reads + $merged, $ios)" \
		test $((reads + merged)) -ge "$ios" -a $((reads + merged)) -le $((ios + 2))
	check "$t: requests merged by the module <= the kernel's ($mod_rqm <= $rqm)" test "$mod_rqm" -le "$rqm"
	# Which merges mq-deadline makes is set by the order of arrival; bfq
	# merges only bios of one queue (one thread) or of queues it merged.
	if [ "${1#*/}" = mq-deadline ]; then
		case $mode in
		gap) check "$t: requests merged into others, the module saw them ($rqm kernel, $mod_rqm module > 0)" \
			test "$rqm" -gt 0 -a "$mod_rqm" -gt 0 ;;
		descend) check "$t: front merges ($fm)" test "$fm" -gt 0 ;;
		esac
	fi
	rmmod iolayers
}

for fs in ext4 xfs; do
	case $fs in
	ext4) mkfs.ext4 -q -F /dev/vda ;;
	xfs) mkfs.xfs -q -f /dev/vda ;;
	esac
	if ! mount -t $fs /dev/vda /tmp/vd; then
		not_ok "$fs: mount"
		continue
	fi
	ok "$fs: mount"
	dd if=/dev/urandom of=/tmp/vd/data bs=1M count=4 oflag=direct status=none
	sync
	for sched in mq-deadline bfq; do
		echo $sched >/sys/block/vda/queue/scheduler
		merge_run $fs/$sched gap 64 384
		merge_run $fs/$sched descend 64 320
	done
	umount /tmp/vd
done
finish
