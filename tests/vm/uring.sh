#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: io_uring reads as flows, one per request, against ground
# truth the module did not produce: mincore() before each read and each
# CQE's result (tests/vm/uringcheck.c, one read in flight at a time), and
# fio's own counts at queue depth 32 (its io_uring engine).
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"
. "$IOLAYERS_REPO/tests/vm/_req.sh"
IL_INSMOD_ARGS=sockets=0
REQ_KIND=io_uring REQ_PROG=uringcheck REQ_PROBE=io_read

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
echo none >/sys/block/nvme0n1/queue/scheduler
dd if=/dev/zero of=/mnt/ur-data bs=1M count=16 status=none
sync

# Kernels before 6.1 have no URING layer: `layers` must say so, and the
# reads it cannot see are then no records at all (never another kind's).
insmod "$ko" pid=1 || { not_ok "insmod pid=1"; finish; }
uring_probes=$(awk '$2 == "URING" { print $1 ":" $4 }' "$IOLAYERS_D/layers" | tr '\n' ' ')
rmmod iolayers
echo "URING probes: $uring_probes"
case $(uname -r) in
5.*)
	check "no URING layer on $(uname -r): layers says so (unverified or missing)" \
		grep -Eq '^io_uring_submit_sqe:(unverified|missing) $' <<<"$uring_probes"
	finish
	;;
esac
check "the URING layer's submission, completion and io_read are attached" \
	test "$(echo "$uring_probes" | grep -Eo '(io_uring_submit_(sqe|req)|io_uring_complete|io_read):attached' | wc -l)" -eq 3
# READ_FIXED has a handler of its own on the kernels that have it.
if grep -q ' io_read_fixed$' /proc/kallsyms; then
	check "io_read_fixed is attached where the kernel has it" \
		grep -q 'io_read_fixed:attached' <<<"$uring_probes"
fi

# --- One read at a time, cold: each label against mincore() ----------------
echo 3 >/proc/sys/vm/drop_caches
if run_req cold 300 mixed; then
	read -r _ reads _ res _ nonres _ bytes _ failed <<<"$UC_OUT"
	read -r n bad <<<"$(compare_req)"
	check "cold: a record per CQE ($(wc -l </tmp/uc.flows) == $reads)" \
		test "$(wc -l </tmp/uc.flows)" -eq "$reads"
	check "cold: each record's op, offset, result and label as the CQE and mincore() say ($bad of $n wrong)" \
		test "$n/$bad" = "$reads/0"
	check "cold: some reads were not resident ($nonres of $reads)" test "$nonres" -gt $((reads / 4))
	# READV_FIXED (6.15 on): in the rotation where the kernel has it,
	# each of its records checked above with the others.
	if grep -q ' io_prep_readv_fixed$' /proc/kallsyms; then
		check "cold: READV_FIXED requests among them ($(grep -c '^io_uring:READV_FIXED ' /tmp/uc.log))" \
			test "$(grep -c '^io_uring:READV_FIXED ' /tmp/uc.log)" -gt 0
	fi
	check "cold: every MISS has a request of its own and a device time" \
		test "$(awk '$4 == "MISS" && ($5 == 0 || $6 == "-")' /tmp/uc.flows | wc -l)" -eq 0
	check "cold: every HIT took one attempt, inline" \
		test "$(awk '$4 == "HIT" && ($7 != 1 || $8 != "inline")' /tmp/uc.flows | wc -l)" -eq 0
	awk '$4 == "MISS" { n[$7 " " $8]++ } END { for (k in n) print "cold: MISS with attempts, where " k ": " n[k] }' /tmp/uc.flows
	check "cold: the uring histogram holds every record ($(hist_total uring))" \
		test "$(hist_total uring)" -eq "$reads"
	check "cold: no syscall flow was made of the requests ($(hist_total syscall))" \
		test "$(hist_total syscall)" -le 0
	check "cold: no request left in the table" test "$(table_col uring entries)" -eq 0
	req_sane cold /tmp/uc.flows
	rmmod iolayers
fi

# --- Forced to io-wq (IOSQE_ASYNC): attributed all the same ----------------
echo 3 >/proc/sys/vm/drop_caches
if run_req async 200 async; then
	read -r _ reads _ res _ nonres _ bytes _ failed <<<"$UC_OUT"
	read -r n bad <<<"$(compare_req)"
	check "async: each record as its CQE and mincore() say ($bad of $n wrong)" \
		test "$n/$bad" = "$reads/0"
	check "async: every attempt ran in io-wq" \
		test "$(awk '$8 != "iowq"' /tmp/uc.flows | wc -l)" -eq 0
	req_sane async /tmp/uc.flows
	rmmod iolayers
fi

# --- An SQPOLL ring: submitted and issued by the ring's thread -------------
echo 3 >/proc/sys/vm/drop_caches
if run_req sqpoll 200 sqpoll; then
	read -r _ reads _ res _ nonres _ bytes _ failed <<<"$UC_OUT"
	read -r n bad <<<"$(compare_req)"
	check "sqpoll: each record as its CQE and mincore() say ($bad of $n wrong)" \
		test "$n/$bad" = "$reads/0"
	check "sqpoll: the first attempts ran in the SQPOLL thread" \
		test "$(awk '$8 !~ /sqpoll/' /tmp/uc.flows | wc -l)" -eq 0
	req_sane sqpoll /tmp/uc.flows
	rmmod iolayers
fi

# --- Failing reads: ERROR exactly where the CQE says so ---------------------
echo 3 >/proc/sys/vm/drop_caches
if run_req errors 200 errors; then
	read -r _ reads _ res _ nonres _ bytes _ failed <<<"$UC_OUT"
	read -r n bad <<<"$(compare_req)"
	check "errors: some reads failed ($failed of $reads)" test "$failed" -ge $((reads / 5))
	check "errors: each record as its CQE and mincore() say ($bad of $n wrong)" \
		test "$n/$bad" = "$reads/0"
	req_sane errors /tmp/uc.flows
	rmmod iolayers
fi

# --- O_DIRECT: DIRECT, with the BLOCK and DEVICE layers ---------------------
if EXPECT=DIRECT run_req direct 200 direct mixed; then
	read -r _ reads _ res _ nonres _ bytes _ failed <<<"$UC_OUT"
	read -r n bad <<<"$(EXPECT=DIRECT compare_req)"
	check "direct: each record DIRECT with its CQE's result ($bad of $n wrong)" \
		test "$n/$bad" = "$reads/0"
	check "direct: every record has its request and a device time" \
		test "$(awk '$5 == 0 || $6 == "-"' /tmp/uc.flows | wc -l)" -eq 0
	req_sane direct /tmp/uc.flows
	rmmod iolayers
fi

# --- A full CQ ring, then requests not followed at the reads' addresses ----
# The reads are cached, so each batch completes as it is submitted: the
# first fills the CQ ring, the second's CQEs overflow it. Where the
# completion tracepoint does not see a CQE posted to the overflow list
# (7.2), those reads make no record, and their flows are left at their
# requests' addresses; the NOPs submitted next take freed requests again
# (not followed: no read, and no CQE), and one at a flow's address drops
# it, counted stale, before anything of theirs could be taken for it
# (io_uring's cache of freed requests is last in, first out: the NOPs
# take the overflowed reads' requests). Every read is a record (as its
# CQE says) or counted stale, none left.
cat /mnt/ur-data >/dev/null
if run_req overflow 16 overflow; then
	read -r _ reads _ <<<"$UC_OUT"
	recs=$(wc -l </tmp/uc.flows)
	stale=$(table_col uring stale)
	left=$(table_col uring entries)
	echo "overflow: $recs records, $stale stale, $left left of $reads reads"
	check "overflow: every read a record or counted stale, none left ($recs + $stale == $reads, $left left)" \
		test $((recs + stale))/$left = "$reads/0"
	if [ "$recs" -lt "$reads" ]; then
		check "overflow: the NOPs dropped flows of unseen CQEs ($stale stale)" test "$stale" -gt 0
	fi
	check "overflow: each record a HIT with its CQE's offset and result" \
		test "$(awk 'NR == FNR { cqe[$2 " " $4] = 1; next }
			!(($2 " " $3) in cqe) || $4 != "HIT"' /tmp/uc.log /tmp/uc.flows | wc -l)" -eq 0
	rmmod iolayers
fi

# --- Reads the layer counts and does not follow ----------------------------
# RECV from a Unix socket and file reads that post no CQE on success: as
# many counted as the program made, none a record.
cat /mnt/ur-data >/dev/null
if run_req recv 50 recv; then
	read -r _ recvs _ skipped <<<"$UC_OUT"
	check "recv: every RECV and CQE-skipping read counted ($(stats_value uring_unfollowed) == $recvs + $skipped)" \
		test "$(stats_value uring_unfollowed)" -eq $((recvs + skipped))
	check "recv: none a record ($(wc -l </tmp/uc.flows))" test "$(wc -l </tmp/uc.flows)" -eq 0
	rmmod iolayers
fi

# --- fio's io_uring engine, 32 in flight: fio's counts ----------------------
echo 3 >/proc/sys/vm/drop_caches
if fio_req fio-buffered io_uring; then
	check "fio-buffered: misses were seen (MISS or PARTIAL)" \
		test "$(awk '$4 ~ /MISS|PARTIAL/' "$FU_FLOWS" | wc -l)" -gt 100
	rmmod iolayers
fi
echo 3 >/proc/sys/vm/drop_caches
if fio_req fio-direct io_uring --direct=1 --fixedbufs; then
	check "fio-direct: every record DIRECT, READ_FIXED, with a request" \
		test "$(awk '$4 != "DIRECT" || $1 != "io_uring:READ_FIXED" || $5 == 0' "$FU_FLOWS" | wc -l)" -eq 0
	rmmod iolayers
fi
echo 3 >/proc/sys/vm/drop_caches
if fio_req fio-sqpoll io_uring --sqthread_poll=1; then
	check "fio-sqpoll: every request was issued by the SQPOLL thread first" \
		test "$(awk '$8 !~ /sqpoll/' "$FU_FLOWS" | wc -l)" -eq 0
	rmmod iolayers
fi

finish
