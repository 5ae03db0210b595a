#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: requests that merge the bios of several followed reads.
# Four threads (tests/vm/threadcheck.c merge) read with O_DIRECT the four
# 4 KiB blocks of a stripe at once (a barrier between stripes), stripe
# after stripe, on a virtio-blk disk of one queue of depth 2 (4
# descriptors without indirect ones: the driver halves it) which QEMU
# throttles to 100 requests a second: two reads wait in the I/O scheduler
# beside their neighbours and merge, front or back (the order of arrival
# decides), and a request may carry up to four flows. With fio's four
# jobs reading the same pattern unsynchronised, the jobs drifted apart and
# one run of xfs under mq-deadline merged nothing, throttled or not.
# Ground truth: the program's own count and the disk's
# (/sys/block/vda/stat: reads completed and merged, sectors). For ext4
# and xfs, each under mq-deadline and bfq: every read gets its request,
# the flows' request bytes add up to the reads' and to the disk's sectors
# (but for a little metadata), nothing stale, the tables drain; under
# mq-deadline merges must have happened.
# vm-modules: virtio_blk xfs bfq
# vm-virtio-disk: 512 num-queues=1,queue-size=4,indirect_desc=off throttling.iops-total=100
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "virtio-blk disk present" test -b /dev/vda
mkdir -p /tmp/vd

# vda_stat FIELD: a field of /sys/block/vda/stat (1 reads, 2 merged, 3 sectors).
vda_stat() { awk -v f="$1" '{ print $f }' /sys/block/vda/stat; }

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
		t="$fs/$sched"
		echo $sched >/sys/block/vda/queue/scheduler
		echo 3 >/proc/sys/vm/drop_caches
		"$IOLAYERS_MODULE_DIR/threadcheck" merge 256 /tmp/vd/data >/tmp/m.out &
		p=$!
		while [ "$(awk '{ print $3 }' /proc/$p/stat 2>/dev/null)" != T ]; do sleep 0.05; done
		check "$t: insmod pid=$p" insmod "$ko" pid=$p
		r0=$(vda_stat 1) m0=$(vda_stat 2) s0=$(vda_stat 3)
		kill -CONT $p
		wait $p
		reads=$(($(vda_stat 1) - r0)) merged=$(($(vda_stat 2) - m0))
		bytes=$((($(vda_stat 3) - s0) * 512))
		read -r _ _ ios </tmp/m.out
		iob=$((ios * 4096))
		cache_counts
		qn=$(summary_field queue count) qb=$(summary_field queue bytes)
		echo "$t: threadcheck $ios reads $iob bytes; disk $reads reads $merged merged $bytes bytes;" \
			"module DIRECT $DIRECT queue $qn reads $qb bytes," \
			"merged $(stats_value requests_merged) overflow $(stats_value flow_overflow)"
		check "$t: threadcheck made its 1024 reads ($ios)" test "$ios" = 1024
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
		if [ $sched = mq-deadline ]; then
			check "$t: the disk merged reads ($merged)" test "$merged" -gt 0
		fi
		rmmod iolayers
	done
	umount /tmp/vd
done
finish
