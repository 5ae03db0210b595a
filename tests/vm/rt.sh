#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test on a PREEMPT_RT kernel: the module loads and follows reads
# there (the boot's module-basic, cache-state and stream check what they
# check elsewhere), its probes allocate nothing (a spinlock_t sleeps on
# RT, the slab allocator's among them): each online CPU's lists of
# entries are filled at load, refilled in process context, and a thousand
# threads' reads at once are followed with none dropped. Ground truth: the
# kernel's own /sys/kernel/realtime, threadcheck's count of its reads.
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
check "the kernel is PREEMPT_RT ($(uname -v))" test "$(cat /sys/kernel/realtime 2>/dev/null)" = 1
out=$("$IOLAYERS_REPO/userspace/iolayers" --check 2>&1)
rc=$?
echo "$out"
said=0
grep -Eq '^ok +PREEMPT_RT kernel: the probes take entries from per-CPU lists' <<<"$out" && said=1
check "--check: RT is no obstacle, and said (exit $rc, said $said)" test "$rc/$said" = 0/1

# Loaded for this shell: every list of every online CPU full at load.
check "insmod pid=$$" insmod "$ko" pid=$$
reuse=$(stats_value memory_reuse)
max=$(stats_value memory_reuse_max)
online=$(nproc)
possible=$(($(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1))
want=$((max / possible * online))
# Full but for the few entries the load itself took (the followed
# process's own).
check "the lists are full at load ($reuse bytes of $want for $online of $possible CPUs)" \
	test "$reuse" -ge $((want - want / 100)) -a "$reuse" -le "$want" -a "$want" -gt 0
check "rmmod" rmmod iolayers

# A CPU that comes online after the load has its lists filled as it comes
# up, before anything on it allocates (before, its first allocation was
# dropped): loaded with cpu1 offline, following a process that reads
# nothing (no entry is taken, no refill runs), then cpu1 brought up.
if [ "$online" -ge 2 ] && [ -w /sys/devices/system/cpu/cpu1/online ]; then
	sleep 600 &
	sl=$!
	trap 'echo 1 >/sys/devices/system/cpu/cpu1/online' EXIT
	check "cpu1 taken offline" sh -c 'echo 0 >/sys/devices/system/cpu/cpu1/online'
	check "insmod pid=$sl with cpu1 offline" insmod "$ko" pid=$sl
	one=$(stats_value memory_reuse)
	# What a CPU's lists hold is sized at load from the CPUs online then.
	max1=$(stats_value memory_reuse_max)
	check "cpu1 brought up" sh -c 'echo 1 >/sys/devices/system/cpu/cpu1/online'
	two=$(stats_value memory_reuse)
	want1=$((max1 / possible))
	want2=$((max1 / possible * 2))
	check "cpu1 offline: one CPU's lists filled at load ($one of $want1)" \
		test "$one" -ge $((want1 - want1 / 100)) -a "$one" -le "$want1"
	check "cpu1 brought up: its lists filled as it came up ($two of $want2)" \
		test "$two" -ge $((want2 - want2 / 100)) -a "$two" -le "$want2"
	check "nothing dropped for want of memory ($(table_sum nomem))" test "$(table_sum nomem)" = 0
	check "rmmod" rmmod iolayers
	kill $sl
	wait $sl 2>/dev/null
else
	echo "# one CPU online: the hotplug fill not checked"
fi

# 3000 threads, each reading a file once and then waiting: a task entry
# each, live at once, more than the lists held at load (1024 a CPU with
# 2 CPUs at max_flows=4096: the rest come from their refills), none
# dropped.
dd if=/dev/urandom of=/tmp/rt.dat bs=4k count=16 2>/dev/null
"$IOLAYERS_MODULE_DIR/threadcheck" threads 3000 /tmp/rt.dat >/tmp/rt.out 2>&1 &
p=$!
wait_stopped $p || true
check "insmod pid=$p" insmod "$ko" pid=$p
kill -CONT $p
while ! grep -q ready /tmp/rt.out && kill -0 $p 2>/dev/null; do sleep 0.2; done
cat /tmp/rt.out
n=$(stats_hits sys_exit)
nomem=$(table_sum nomem)
tasks=$(table_col task entries)
echo "rt: sys_exit $n, task entries $tasks, nomem $nomem, memory_reuse $(stats_value memory_reuse)"
check "every thread's read followed ($n of 3000)" test "$n" = 3000
check "a task entry for each ($tasks >= 3000)" test "${tasks:-0}" -ge 3000
check "no entry dropped for want of memory ($nomem)" test "$nomem" = 0
kill -9 $p
wait $p 2>/dev/null
check "rmmod" rmmod iolayers
rm -f /tmp/rt.dat
finish
