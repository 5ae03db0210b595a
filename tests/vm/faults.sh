#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test (debug kernel: KASAN, lockdep, kmemleak and the kernel's
# fault injection): the module's allocations fail.
#
# The kernel's failslab (kmalloc and the slab caches) and fail_page_alloc
# (the page allocator) are set in debugfs to fail only in a task given
# make-it-fail and only where the call stack passes through a module's
# code (between the kernel image's end and the module area's end): the
# reader's own allocations, and the rest of the guest's, go on.
#
# 1. At load: for each injector, one insmod per budget (`space`: the
#    bytes or pages the module may allocate before every later
#    allocation fails, so that no fallback, such as kvmalloc()'s vmalloc
#    after its kmalloc, gets around it): the load fails cleanly or, with
#    budget enough, works and unloads; a load with nothing injected works
#    after each; small budgets make loads fail; kmemleak's scan (after the
#    script, or by kmemleak.sh at the end of make check's boot) finds
#    nothing left behind.
# 2. While following: every third allocation of the module in the
#    reader's context fails, 200 in all (preadcheck, 2000 reads of a file
#    half in the page cache): the module's `nomem` drops are the
#    failures the injector forced (less a few of kmemleak's own, made
#    inside the module's allocations), every read is either counted or its
#    loss is (a read whose task entry could not be made), and the reads
#    that lost a bio's or a request's entry say they missed the BLOCK
#    layer (reads_missed: at least one, at most one per such failure).
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
fi_dir=/sys/kernel/debug
# The module area lies above the kernel image (x86_64).
image_end=$(awk '$3 == "_end" { print $1; exit }' /proc/kallsyms)
check "the kernel image's end is in /proc/kallsyms ($image_end)" \
	test -n "$image_end" -a "$(echo "$image_end" | tr -d 0)" != ""

# fi_setup INJECTOR: failing nothing yet, only for tasks with make-it-fail
# and stacks through a module.
fi_setup() {
	local d=$fi_dir/$1
	echo 0 >"$d/probability"
	echo 1 >"$d/interval"
	echo 0 >"$d/space"
	echo Y >"$d/task-filter"
	echo 0 >"$d/verbose"
	echo "0x$image_end" >"$d/require-start"
	echo 0xffffffffff000000 >"$d/require-end"
	echo 32 >"$d/stacktrace-depth"
	case $1 in
	failslab) echo N >"$d/ignore-gfp-wait" ;;
	fail_page_alloc)
		echo N >"$d/ignore-gfp-wait"
		echo N >"$d/ignore-gfp-highmem"
		echo 0 >"$d/min-order"
		;;
	esac
}

# fi_arm INJECTOR SPACE TIMES INTERVAL: fail TIMES allocations, every
# INTERVAL-th, once SPACE bytes (pages) were allocated.
fi_arm() {
	local d=$fi_dir/$1
	echo "$2" >"$d/space"
	echo "$4" >"$d/interval"
	echo "$3" >"$d/times"
	echo 100 >"$d/probability"
}

fi_disarm() {
	echo 0 >"$fi_dir/$1/probability"
}

for inj in failslab fail_page_alloc; do
	check "$inj is in debugfs" test -d "$fi_dir/$inj"
	fi_setup "$inj"
done

# 1. Loads.
for inj in failslab fail_page_alloc; do
	if [ $inj = failslab ]; then
		spaces="0 256 1024 4096 16384 65536 262144 1048576"
	else
		spaces="0 1 4 16 64 256 1024 4096"
	fi
	failed=0 n=0
	for sp in $spaces; do
		fi_arm $inj "$sp" -1 1
		# make-it-fail for insmod only (this shell's child, which execs it).
		(echo 1 >/proc/self/make-it-fail && exec insmod "$ko" pid=1) 2>/tmp/fi.err
		rc=$?
		fi_disarm $inj
		n=$((n + 1))
		if [ $rc -ne 0 ]; then
			failed=$((failed + 1))
			echo "# $inj space $sp: insmod failed: $(head -c 200 /tmp/fi.err)"
			check "$inj space $sp: the load failed for want of memory (ENOMEM)" \
				grep -q "Cannot allocate memory" /tmp/fi.err
			check "$inj space $sp: the module is not loaded after its failed load" \
				test ! -e /sys/module/iolayers
		else
			echo "# $inj space $sp: loaded"
			check "$inj space $sp: rmmod" rmmod iolayers
		fi
		check "$inj space $sp: a load with nothing injected works" insmod "$ko" pid=1
		check "$inj space $sp: and its rmmod" rmmod iolayers
	done
	echo "# $inj: $n loads, $failed failed"
	check "$inj: loads failed for it ($failed of $n)" test "$failed" -gt 0
done

# 2. While following: the reader's entries.
PC_FILE=/mnt/fi-data
dd if=/dev/zero of=$PC_FILE bs=1M count=16 status=none
sync
echo 3 >/proc/sys/vm/drop_caches
dd if=$PC_FILE of=/dev/null bs=1M count=8 status=none
stopped_pc faults 2000 rand
check "insmod pid=$PC_PID" insmod "$ko" pid=$PC_PID
echo 1 >/proc/$PC_PID/make-it-fail
fi_arm failslab 0 200 3
kill -CONT $PC_PID
wait $PC_PID
left=$(cat "$fi_dir/failslab/times")
fi_disarm failslab
forced=$((200 - left))
read -r _ truth_reads _ <"/tmp/faults.pcout"
nomem=$(table_sum nomem)
blk=$(table_sum nomem bio rq)
missed=$(stats_value reads_missed)
seen=$(hist_total syscall)
sed -n '/^table/,/^$/p;/^reads_missed/p' "$IOLAYERS_D/stats"
echo "# following: $truth_reads reads; $forced failures forced; nomem $nomem (task $(table_col task nomem)); seen $seen, missed $(stats_value reads_missed)"
check "following: failures were forced ($forced)" test "$forced" -gt 0
# The injector also fails allocations made inside the module's own: on
# this kernel kmemleak's record of each (its object and scan area), a few
# of 200 (4 and 5 in two runs; every third allocation through the module
# is failed, and most of those are the module's own entries). Every
# failure of the module's is a drop, and nothing else is.
check "following: the module's failures are its nomem drops ($nomem <= $forced, at most 10 others)" \
	test "$nomem" -le "$forced" -a $((forced - nomem)) -le 10
check "following: every read counted or its loss ($seen + $(table_col task nomem) == $truth_reads)" \
	test $((seen + $(table_col task nomem))) -eq "$truth_reads"
check "following: bio or request entries failed ($blk)" test "$blk" -gt 0
check "following: the reads that lost one say so (0 < $missed <= $blk)" \
	test "$missed" -gt 0 -a "$missed" -le "$blk"
check "following: nothing in flight ($(stats_value flows_in_flight))" \
	test "$(stats_value flows_in_flight)" -eq 0
check "following: rmmod" rmmod iolayers
# The injectors as the boot had them, for the boot's later tests.
for inj in failslab fail_page_alloc; do
	fi_setup "$inj"
	echo N >"$fi_dir/$inj/task-filter"
	echo 0 >"$fi_dir/$inj/require-start"
	echo 0xffffffffffffffff >"$fi_dir/$inj/require-end"
	echo 1 >"$fi_dir/$inj/times"
done
finish
