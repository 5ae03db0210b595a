#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: page faults on a file's mapping as flows, one per fault,
# against the kernel's own count of each touch's faults
# (getrusage(RUSAGE_THREAD), minor and major) and mincore() before it
# (tests/vm/mmapcheck.c), with MADV_RANDOM, MADV_SEQUENTIAL and a warm
# cache; write touches (a record for each major one) and a file of
# memory (tmpfs: none).
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"
. "$IOLAYERS_REPO/tests/vm/_req.sh"
REQ_KIND=fault REQ_PROG=mmapcheck REQ_FILE=/mnt/mm-data REQ_FLOWS=mm_flows
IL_INSMOD_ARGS="sockets=0 faults=1"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
echo none >/sys/block/nvme0n1/queue/scheduler
dd if=/dev/urandom of=/mnt/mm-data bs=1M count=16 status=none
sync
ino=$(stat -c %i /mnt/mm-data)

# Off by default (faults=1): no FAULT layer, and a program's faults make
# no record.
insmod "$ko" pid=1 || { not_ok "insmod pid=1"; finish; }
check "no FAULT layer without faults=1" test -z "$(awk '$2 == "FAULT"' "$IOLAYERS_D/layers")"
rmmod iolayers
insmod "$ko" pid=1 faults=1 || { not_ok "insmod pid=1 faults=1"; finish; }
fault_probe=$(awk '$2 == "FAULT" { print $1 ":" $4 }' "$IOLAYERS_D/layers")
rmmod iolayers
echo "FAULT probe: $fault_probe"
if kretprobes_unsafe; then
	check "the FAULT layer is not probed on this kernel, and says so" \
		test "$fault_probe" = handle_mm_fault:unverified
	finish
fi
check "the FAULT layer's handle_mm_fault is attached" test "$fault_probe" = handle_mm_fault:attached

# mm_flows TGID: the module's fault records of TGID on the data file,
# oldest first: "pos cache ret req rqs device_ns ra_bytes syscall_ns".
mm_flows() {
	awk -v p="$1" -v ino="$ino" 'function col(n) { return $(h[n]) }
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		col("tgid") == p && col("syscall") == "fault" && col("ino") == ino {
			print col("pos"), col("cache"), col("ret"), col("req"), col("rqs"),
			      col("device_ns"), col("ra_bytes"), col("syscall_ns")
		}' "$IOLAYERS_D/flows"
}

# compare_mm: each faulting touch against its record, in order: its
# page's offset, one fault, and the label the kernel's count calls for
# (major: MISS, or PARTIAL when it waited for another's read of its
# page; minor: HIT). A major fault on a page mincore() said was cached
# is one the kernel counts major for its retry (it let go of the mmap
# lock to start the readahead the page's marker called for): HIT, or
# PARTIAL. Prints "touches wrong".
compare_mm() {
	paste -d' ' /tmp/uc.log /tmp/uc.flows | awk '
		{
			n++
			want = $3 == 0 ? "HIT" : $4 ? "HIT|PARTIAL" : "MISS|PARTIAL"
			if (NF != 12 || $2 + $3 != 1 || $1 != $5 || $6 !~ "^(" want ")$" || $7 != 4096) {
				bad++
				if (bad <= 5) print "wrong: " $0 > "/dev/stderr"
			}
		}
		END { printf "%d %d\n", n, bad }'
}

# mm_sane NAME: what every fault's record holds, and nothing lost.
mm_sane() {
	check "$1: a record per fault the kernel counted ($(wc -l </tmp/uc.flows) == $faults)" \
		test "$(wc -l </tmp/uc.flows)" -eq "$faults"
	read -r n bad <<<"$(compare_mm)"
	check "$1: each record's page and label as the kernel's count says ($bad of $n wrong)" \
		test "$n/$bad" = "$faults/0"
	check "$1: every MISS has its request and a device time" \
		test "$(awk '$2 == "MISS" && ($5 == 0 || $6 == "-")' /tmp/uc.flows | wc -l)" -eq 0
	check "$1: no fault probe missed, no flow stale" \
		test "$(awk '$1 == "handle_mm_fault" { print $3 }' "$IOLAYERS_D/stats")/$(table_col task stale)" = 0/0
	check "$1: no syscall flow was made of the faults ($(hist_total syscall))" \
		test "$(hist_total syscall)" -le 0
}

# --- faults=0 (the default): no fault record -------------------------------
echo 3 >/proc/sys/vm/drop_caches
if IL_INSMOD_ARGS=sockets=0 run_req default 40 random; then
	check "default: no fault record without faults=1 ($(wc -l </tmp/uc.flows))" \
		test "$(wc -l </tmp/uc.flows)" -eq 0
	rmmod iolayers
fi

# --- MADV_RANDOM on a cold cache: each fault reads its own page -----------
echo 3 >/proc/sys/vm/drop_caches
if run_req random 150 random; then
	read -r _ touches _ faults _ minor _ major <<<"$UC_OUT"
	check "random: most touches were major faults ($major of $touches)" \
		test "$major" -gt $((touches / 2))
	mm_sane random
	check "random: no readahead around the faults" \
		test "$(awk '$7 != 0' /tmp/uc.flows | wc -l)" -eq 0
	check "random: the fault histogram holds every record at least ($(hist_total fault))" \
		test "$(hist_total fault)" -ge "$faults"
	rmmod iolayers
fi

# --- MADV_SEQUENTIAL on a cold cache: readahead, majors and minors --------
echo 3 >/proc/sys/vm/drop_caches
if run_req sequential 150 sequential; then
	read -r _ touches _ faults _ minor _ major <<<"$UC_OUT"
	echo "sequential: $major major and $minor minor faults"
	mm_sane sequential
	check "sequential: the major faults read ahead (ra_bytes)" \
		test "$(awk '$2 == "MISS" && $7 > 0' /tmp/uc.flows | wc -l)" -gt 0
	rmmod iolayers
fi

# --- A warm cache, the default advice: minor faults, HIT, no I/O ----------
cat /mnt/mm-data >/dev/null
if run_req warm 150; then
	read -r _ touches _ faults _ minor _ major <<<"$UC_OUT"
	check "warm: only minor faults ($major major)" test "$major" -eq 0
	check "warm: fewer faults than touches: fault-around mapped neighbours ($faults of $touches)" \
		test "$faults" -lt "$touches"
	mm_sane warm
	check "warm: no fault made a request" \
		test "$(awk '$5 != 0' /tmp/uc.flows | wc -l)" -eq 0
	rmmod iolayers
fi

# --- Signals while faults wait: given up, taken again, counted once -------
echo 3 >/proc/sys/vm/drop_caches
if run_req signals 150 random signals; then
	read -r _ touches _ faults _ minor _ major <<<"$UC_OUT"
	echo "signals: $(stats_value faults_given_up) faults given up"
	mm_sane signals
	rmmod iolayers
fi

# --- Write touches of a private mapping: a major one read its page -------
# Each major write fault (the kernel's count) is a record at its touch's
# page, labelled as mincore() said before the touch: MISS or PARTIAL
# where its page was not cached; HIT (or PARTIAL, its page still being
# read) where it was: the kernel counts a fault as major when it was
# retried, as after it let go of the mmap lock to start the readahead
# its cached page's marker called for. The minor ones (copies of cached
# pages) read nothing from the disk: counted, not recorded.
echo 3 >/proc/sys/vm/drop_caches
if run_req write 60 write; then
	read -r _ touches _ faults _ minor _ major <<<"$UC_OUT"
	check "write: a record per major write fault ($(wc -l </tmp/uc.flows) == $major)" \
		test "$(wc -l </tmp/uc.flows)" -eq "$major" -a "$major" -gt 0
	read -r n bad <<<"$(awk '$3 > 0' /tmp/uc.log | paste -d' ' - /tmp/uc.flows | awk '
		{
			n++
			want = $4 ? "HIT|PARTIAL" : "MISS|PARTIAL"
			if (NF != 12 || $1 != $5 || $6 !~ "^(" want ")$" || $7 != 4096) {
				bad++
				if (bad <= 5) print "wrong: " $0 > "/dev/stderr"
			}
		}
		END { print n + 0, bad + 0 }')"
	check "write: each record at its major touch's page, labelled as mincore() said ($bad of $n wrong)" \
		test "$n/$bad" = "$major/0"
	check "write: the minor ones were counted ($(stats_value faults_write) >= $minor)" \
		test "$(stats_value faults_write)" -ge "$minor" -a "$minor" -gt 0
	rmmod iolayers
fi

# --- A file of memory (tmpfs): its faults read no disk, counted only ------
mkdir -p /mnt/mm-shm
if mount -t tmpfs -o size=8m iolayers-shm /mnt/mm-shm; then
	head -c 4M /mnt/mm-data >/mnt/mm-shm/data
	shm_ino=$(stat -c %i /mnt/mm-shm/data)
	if REQ_FILE=/mnt/mm-shm/data run_req tmpfs 60 random; then
		read -r _ touches _ faults _ minor _ major <<<"$UC_OUT"
		recs=$(awk -v ino="$shm_ino" 'function col(n) { return $(h[n]) }
			NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
			col("syscall") == "fault" && col("ino") == ino' "$IOLAYERS_D/flows" | wc -l)
		check "tmpfs: no record of the file's faults ($recs)" test "$recs" -eq 0
		check "tmpfs: its faults counted as mapping no file ($(stats_value faults_no_file) >= $faults > 0)" \
			test "$(stats_value faults_no_file)" -ge "$faults" -a "$faults" -gt 0
		rmmod iolayers
	fi
	umount /mnt/mm-shm
else
	not_ok "tmpfs: mount"
fi

# --- pread() into a mapped page: the faults are the read's -----------------
echo 3 >/proc/sys/vm/drop_caches
if run_req readinto 60 readinto; then
	read -r _ touches _ faults _ minor _ major <<<"$UC_OUT"
	preads=$(awk -v ino="$ino" 'function col(n) { return $(h[n]) }
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		col("syscall") == "pread64" && col("ino") == ino' "$IOLAYERS_D/flows" | wc -l)
	check "readinto: no fault record, a pread64 record per touch ($(wc -l </tmp/uc.flows), $preads of $touches)" \
		test "$(wc -l </tmp/uc.flows)/$preads" = "0/$touches"
	check "readinto: the faults in the reads were counted theirs ($(stats_value faults_in_reads) >= $faults)" \
		test "$(stats_value faults_in_reads)" -ge "$faults" -a "$faults" -gt 0
	rmmod iolayers
fi

finish
