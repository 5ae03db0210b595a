#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: a soak. Half a million followed reads (fio, 4 KiB at random
# offsets of a cached file) with the stream consumed all along: fio's own
# count of reads is what the stream holds of its file (the reads of its
# libraries, /proc, its helper thread's timer and pipe are apart), every
# read is in the stream or said lost, and from the tenth of them on to
# the end nothing grows: the module's memory (`stats`; less the removed
# entries kept to reuse, which fill up to their bound), the kernel's
# unreclaimable slab (/proc/meminfo's SUnreclaim: a leak of one small
# allocation, or of a reference pinning an inode or a file, per read
# would add megabytes), no table drops, and once fio is gone no flow is
# in flight and the tables are empty. Then rmmod.
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
# Half a million in make check (57 s of the 6.1 guest for a million);
# IOLAYERS_SOAK_READS for a longer one.
n=${IOLAYERS_SOAK_READS:-500000}
early=$((n / 10))

# mem_less_reuse: memory_total less memory_reuse, of one read of stats
# (the lists change with every read the module follows).
mem_less_reuse() {
	awk '$1 == "memory_total" { t = $2 } $1 == "memory_reuse" { r = $2 }
	     END { if (t == "" || r == "") exit 1; print t - r }' "$IOLAYERS_D/stats"
}

# meminfo_kb FIELD: a /proc/meminfo field, KiB.
meminfo_kb() {
	awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo
}

dd if=/dev/zero of=/mnt/soak bs=1M count=16 status=none
cat /mnt/soak >/dev/null
# fio waits on a fifo before its first read, so the module is loaded for
# its pid (reads of its start-up counted too: it is followed from exec).
rm -f /tmp/soak.go
mkfifo /tmp/soak.go
(read -r _ </tmp/soak.go && exec fio --name=soak --filename=/mnt/soak --size=16m \
	--rw=randread --bs=4k --ioengine=psync --thread --disk_util=0 --io_size=$((n * 4))k --norandommap \
	--output-format=json --output=/tmp/soak.json) &
f=$!
check "insmod pid=$f" insmod "$ko" pid="$f"
# The stream's reader counts the records per file (tests/vm/streamtally.c).
"$IOLAYERS_MODULE_DIR/streamtally" "$IOLAYERS_D/stream/raw" "$f" >/tmp/soak.tally &
c=$!
check "a reader has the stream" wait_stream_reader
echo go >/tmp/soak.go

# The 100,000th read: the baseline.
i=0
while [ "$(hist_total syscall)" -lt "$early" ] && [ $i -lt 3000 ]; do
	sleep 0.2
	i=$((i + 1))
done
# The lists of removed entries kept to reuse fill as far as grace periods
# lag behind, at any time up to their bound (table.c): they are apart.
base_mem=$(mem_less_reuse) || mem= || base_mem=
base_slab=$(meminfo_kb SUnreclaim)
base_reads=$(hist_total syscall)
echo "# at read $base_reads: memory_total less memory_reuse $base_mem, SUnreclaim $base_slab kB"
check "fio reached read $early ($base_reads)" test "$base_reads" -ge "$early"

wait "$f"
check "fio ended well" test $? -eq 0
ios=$(fio_json /tmp/soak.json read.total_ios)
total=$(hist_total syscall)
echo "# fio: $ios reads; the module: $total; stats:"
sed -n '/^table/,/^$/p;/^stream/p;/^memory/p;/^flows_in_flight/p' "$IOLAYERS_D/stats"
check "fio made $n reads ($ios)" test "${ios:-0}" -eq "$n"
check "the module counted them ($total >= $n)" test "$total" -ge "$n"
check "every read is in the stream or said lost" stream_accounted "$total"
# Records lost without a count: 1 to 22 in about half of the runs while
# the kernel's ring buffer's reader took records from any CPU (design.rst,
# loss accounting); none since each CPU's records are taken on that CPU.
check "no record vanished from a CPU's ring ($(stats_value stream_vanished))" \
	test "$(stats_value stream_vanished)" -eq 0
check "the stream got them all: $total == delivered $(stats_value stream_delivered) + lost $(stats_value stream_lost)" \
	test $(($(stats_value stream_delivered) + $(stats_value stream_lost))) -eq "$total"
mem=$(mem_less_reuse)
slab=$(meminfo_kb SUnreclaim)
check "the module's memory less the entries kept to reuse did not grow after read $base_reads ($base_mem -> $mem)" \
	test -n "$mem" -a -n "$base_mem" -a "${mem:-1}" -le "${base_mem:-0}"
check "the entries kept to reuse are within their bound ($(stats_value memory_reuse) <= $(stats_value memory_reuse_max))" \
	test "$(stats_value memory_reuse)" -le "$(stats_value memory_reuse_max)"
# 900,000 reads: one 8-byte allocation each would be 7,000 kB.
check "SUnreclaim grew by less than 2 MiB after read $base_reads ($base_slab -> $slab kB)" \
	test $((slab - base_slab)) -lt 2048
check "nothing dropped ($(drops_total))" test "$(drops_total)" -eq 0
check "no flow in flight ($(stats_value flows_in_flight))" test "$(stats_value flows_in_flight)" -eq 0
for t in task bio rq tgid; do
	check "the $t table is empty ($(table_col $t entries))" test "$(table_col $t entries)" -eq 0
done
# TERM: a background job of a script ignores SIGINT.
check "the stream's reader ends" end_within 10 "$c" TERM
# Its count per file: fio's file read exactly as often as fio says (less
# records said lost); the rest are fio's other reads, which grow with its
# run time (its helper thread reads a timerfd and a pipe several times a
# second): 1558 once under a loaded host, when they were held to < 1000.
check "the stream's reader parsed every record it was given (exit $END_STATUS)" \
	test "${END_STATUS:-1}" -eq 0
fdev=$(stat -c %Hd:%Ld /mnt/soak)
ino=$(stat -c %i /mnt/soak)
read -r _ recs _ tlost _ untallied _ foreign _ </tmp/soak.tally
mine=$(awk -v d="$fdev" -v i="$ino" 'NR > 1 && $1 == d && $2 == i { print $3 }' /tmp/soak.tally)
echo "# the stream's reader: $(head -n 1 /tmp/soak.tally); reads per file (fs_dev ino count path):"
awk 'NR == FNR { if (FNR > 1) p[$1 " " $2] = substr($0, length($1 $2) + 3); next }
	FNR > 1 && FNR <= 16 { print "# " $0, p[$1 " " $2] }' "$IOLAYERS_D/files" /tmp/soak.tally
check "the reader was given every record: $recs + lost $tlost == $total" \
	test "${recs:-0}" -eq "$(stats_value stream_delivered)" -a $((${recs:-0} + ${tlost:-0})) -eq "$total"
# Exact when nothing is lost; a reader that takes each CPU's records in
# batches of 16 keeps up with a sixth of them here (issue 32 makes it
# keep up), so the records it was given must be some of fio's reads.
check "the stream holds fio's $n reads of $fdev inode $ino (${mine:-0}, lost $tlost)" \
	test "${mine:-0}" -gt 0 -a "${mine:-0}" -le "$n" -a $((${mine:-0} + ${tlost:-0})) -ge "$n"
check "no record of another file was left uncounted ($untallied)" test "${untallied:-1}" -eq 0
check "every record is of fio's process $f ($foreign of another)" test "${foreign:-1}" -eq 0
check "rmmod" rmmod iolayers
finish
