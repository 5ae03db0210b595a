#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: cgroup= follows every task of a cgroup v2 and of the
# cgroups under it, against the reads the processes themselves count
# (tests/vm/threadcheck.c, static: its reads are all counted ones). Two
# cgroups, each with processes started before and after the load; one
# process moved from the other cgroup into the followed one between two
# halves of its reads, one moved out; a nested cgroup followed through
# its parent; the setting changed at runtime, by path and by id; a
# cgroup removed while followed; refusals of what names no cgroup.
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
tc=$IOLAYERS_MODULE_DIR/threadcheck
cg=/sys/fs/cgroup
dd if=/dev/zero of=/mnt/f-small bs=4k count=4 status=none

reader=$IOLAYERS_REPO/userspace/iolayers

# Refusals, each naming the value (the module's messages).
refused_msg() {
	dmesg -C
	# shellcheck disable=SC2086
	! insmod "$ko" $1 2>/dev/null && dmesg | grep -qF "$2"
}

# A kernel without cgroups (the debug kernel's tinyconfig): cgroup= can
# only be off, and says why; the reader's --set-cgroup "" turns it off.
if ! grep -qw cgroup2 /proc/filesystems; then
	check "no cgroups here: cgroup=/x refused, message says why" \
		refused_msg cgroup=/x "invalid cgroup '/x': this kernel has no cgroups"
	check "cgroup= empty with pid= loads" insmod "$ko" pid=$$ cgroup=
	check "the setting reads back empty" test -z "$(cat $IOLAYERS_P/cgroup)"
	check "--set-cgroup of a path refused" sh -c '! "$1" --set-cgroup /x 2>/dev/null' sh "$reader"
	check "--set-cgroup \"\" accepted" "$reader" --set-cgroup ""
	check "rmmod" rmmod iolayers
	finish
fi

mountpoint -q $cg || mount -t cgroup2 none $cg
check "cgroup2 mounted at $cg" test -e $cg/cgroup.procs
# No controller in the cgroups below: another test of the boot may have
# enabled one (cache-state's +memory), and a memory cgroup a task ran in
# stays dying, after its removal, until the pages charged to it go,
# which the counts of dying cgroups below cannot wait for (make check's
# 5.10 boot: two such stayed the whole test).
for c in $(cat $cg/cgroup.subtree_control); do
	echo "-$c" >$cg/cgroup.subtree_control
done
check "no controller enabled below the root ('$(cat $cg/cgroup.subtree_control)')" \
	test -z "$(cat $cg/cgroup.subtree_control)"
mkdir -p $cg/ilA/inner/deeper-and-longer-than-thirty-two-bytes $cg/ilB $cg/ilC $cg/ilD $cg/ilE
# Controls: removed beside a followed cgroup, held by nothing.
mkdir -p $cg/ilX1 $cg/ilX2 $cg/ilX3

# dying: the removed cgroups something still holds (the kernel's count).
dying() { awk '$1 == "nr_dying_descendants" { print $2 }' $cg/cgroup.stat; }
# dying_is N: the count is N within 10 s (a cgroup's release runs a
# grace period after its last reference goes).
dying_is() {
	local i=0
	while [ "$(dying)" != "$1" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(dying)" = "$1" ]
}
d0=$(dying)
# held_by_us N: the count comes down to N (a control removed at the same
# time was released: a grace period went by) and stays there a second.
# A followed cgroup the module did not hold would have gone with it.
held_by_us() {
	dying_is "$1" && sleep 1 && [ "$(dying)" = "$1" ]
}

# start_in CGROUP OUT MODE N: threadcheck MODE N in CGROUP (it moves itself
# there before the exec), stopped before its first counted read; sets P.
start_in() {
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" "$3" "$4" /mnt/f-small' \
		sh "$1" "$tc" "$3" "$4" >"$2" &
	P=$!
	wait_stopped $P
}

# run_to_end PID: it goes on to its end.
run_to_end() {
	kill -CONT "$1"
	wait "$1"
}

syscalls() { stats_hits sys_exit; }

# two_runs CG1 N1 CG2 N2: threadcheck's N1 reads in CG1 and N2 in CG2,
# both started, then both run to their end.
two_runs() {
	local p1
	start_in "$1" /tmp/two1.out reads "$2"
	p1=$P
	start_in "$3" /tmp/two2.out reads "$4"
	run_to_end $p1
	run_to_end $P
}

check "cgroup of no such path refused, message names it" \
	refused_msg cgroup=/il-none "invalid cgroup '/il-none'"
check "cgroup=abc refused, message names it" refused_msg cgroup=abc "invalid cgroup 'abc'"
check "cgroup=0 refused" refused_msg cgroup=0 "invalid cgroup '0'"
check "cgroup of no such id refused" refused_msg cgroup=999999999 "no cgroup has that id"

# 1. Followed: ilA (A1 before the load, A2 after, N1 in a cgroup two
# levels under it), M1 moved in from ilB between its halves, M2 moved out
# to ilB. Not followed: ilB's B1 and B2.
start_in $cg/ilA /tmp/a1.out reads 100
a1=$P
start_in $cg/ilB /tmp/b1.out reads 70
b1=$P
start_in $cg/ilA/inner/deeper-and-longer-than-thirty-two-bytes /tmp/n1.out reads 50
n1=$P
start_in $cg/ilB /tmp/m1.out pause 40
m1=$P
start_in $cg/ilA /tmp/m2.out pause 30
m2=$P
check "insmod cgroup=/ilA" insmod "$ko" cgroup=/ilA
check "the setting reads back: $(cat $IOLAYERS_P/cgroup)" \
	test "$(cat $IOLAYERS_P/cgroup)" = /ilA
check "debugfs shows it too" test "$(cat $IOLAYERS_D/cgroup)" = /ilA
start_in $cg/ilA /tmp/a2.out reads 60
a2=$P
start_in $cg/ilB /tmp/b2.out reads 80
b2=$P
for p in $a1 $b1 $n1 $a2 $b2; do run_to_end $p; done
# The movers' first halves, then each moved, then their second halves.
kill -CONT $m1 $m2
wait_stopped $m1
wait_stopped $m2
echo $m1 >$cg/ilA/cgroup.procs
echo $m2 >$cg/ilB/cgroup.procs
run_to_end $m1
run_to_end $m2
for f in a1 b1 n1 a2 b2 m1 m2; do echo "$f: $(cat /tmp/$f.out)"; done
# Each program's own count: A1, N1, A2, and each mover's half in ilA.
want=$((100 + 50 + 60 + 40 + 30))
got=$(syscalls)
check "every read of ilA's tasks, no other (sys_exit $got == $want)" test "$got" = "$want"
check "the programs read what they said (a1 $(cat /tmp/a1.out), m1 $(cat /tmp/m1.out))" \
	test "$(cat /tmp/a1.out)" = "reads reads 100" -a "$(cat /tmp/m1.out)" = "pause reads 80"

# 2. At runtime: ilB by path, then ilA by id.
echo /ilB >$IOLAYERS_P/cgroup
echo 1 >$IOLAYERS_P/reset
two_runs $cg/ilA 20 $cg/ilB 30
check "cgroup moved to /ilB at runtime: its reads alone ($(syscalls) == 30)" \
	test "$(syscalls)" = 30
id=$(stat -c %i $cg/ilA)
echo "$id" >$IOLAYERS_P/cgroup
echo 1 >$IOLAYERS_P/reset
check "by id $id: it reads back as ilA's path ($(cat $IOLAYERS_P/cgroup))" \
	test "$(cat $IOLAYERS_P/cgroup)" = /ilA
two_runs $cg/ilA/inner 25 $cg/ilB 35
check "cgroup by id: ilA's tasks, under it too ($(syscalls) == 25)" test "$(syscalls)" = 25

# The reader sets it: a path with the cgroup2 mount point first (as a
# container runtime prints it), and a systemd unit's name (no systemd in
# the guest: the one cgroup of that name under the mount).
mkdir -p $cg/il.slice/il-fake.service
check "iolayers --set-cgroup $cg/ilB" "$reader" --set-cgroup $cg/ilB
check "it set /ilB ($(cat $IOLAYERS_P/cgroup))" test "$(cat $IOLAYERS_P/cgroup)" = /ilB
check "iolayers --unit il-fake.service" "$reader" --unit il-fake.service
check "it set the unit's cgroup ($(cat $IOLAYERS_P/cgroup))" \
	test "$(cat $IOLAYERS_P/cgroup)" = /il.slice/il-fake.service
echo 1 >$IOLAYERS_P/reset
two_runs $cg/il.slice/il-fake.service 12 $cg/ilB 9
check "the unit's tasks alone ($(syscalls) == 12)" test "$(syscalls)" = 12
check "--unit of no such unit fails, naming it" \
	sh -c '"$1" --unit il-none.service 2>&1 | grep -q "il-none.service: no cgroup of that name"' \
	sh "$reader"
check "and leaves the setting ($(cat $IOLAYERS_P/cgroup))" \
	test "$(cat $IOLAYERS_P/cgroup)" = /il.slice/il-fake.service
check "iolayers --set-cgroup \"\" turns it off" "$reader" --set-cgroup ""
check "it reads back empty ('$(cat $IOLAYERS_P/cgroup)')" test -z "$(cat $IOLAYERS_P/cgroup)"
check "iolayers --set-comm x, then \"\"" sh -c '"$1" --set-comm x && "$1" --set-comm ""' sh "$reader"
check "comm reads back empty ('$(cat $IOLAYERS_P/comm)')" test -z "$(cat $IOLAYERS_P/comm)"
rmdir $cg/il.slice/il-fake.service $cg/il.slice
# A long path (past what a short buffer would take): set and read back
# whole, by the parameter and by debugfs, and followed.
long=/ilA/inner/deeper-and-longer-than-thirty-two-bytes
long2=$long/$(printf 'n%.0s' $(seq 200))/$(printf 'm%.0s' $(seq 100))
mkdir -p $cg$long2
echo "$long2" >$IOLAYERS_P/cgroup
check "a ${#long2}-byte path reads back whole" test "$(cat $IOLAYERS_P/cgroup)" = "$long2"
check "and in debugfs" test "$(cat $IOLAYERS_D/cgroup)" = "$long2"
check "and in the reader's -j filters" sh -c '"$1" -j | grep -qF "\"cgroup\": \"$2\""' \
	sh "$reader" "$long2"
echo 1 >$IOLAYERS_P/reset
start_in $cg$long2 /tmp/l1.out reads 7
run_to_end $P
check "its task followed ($(syscalls) == 7)" test "$(syscalls)" = 7
echo "" >$IOLAYERS_P/cgroup
rmdir $cg$long2 ${cg}${long2%/*}

# 3. A cgroup removed while followed: held, it matches nothing any more,
# the setting says so; the module unloads cleanly.
echo /ilC >$IOLAYERS_P/cgroup
echo 1 >$IOLAYERS_P/reset
start_in $cg/ilC /tmp/c1.out reads 15
c1=$P
run_to_end $c1
check "ilC followed ($(syscalls) == 15)" test "$(syscalls)" = 15
rmdir $cg/ilC $cg/ilX1
check "ilC removed while followed: '$(cat $IOLAYERS_P/cgroup)'" \
	test "$(cat $IOLAYERS_P/cgroup)" = "/ilC (removed)"
check "ilC held while followed, the control let go (dying $(dying), $d0 before)" \
	held_by_us $((d0 + 1))
start_in $cg/ilA /tmp/a5.out reads 10
run_to_end $P
check "nothing followed after its removal ($(syscalls) == 15)" test "$(syscalls)" = 15
# The module's reference keeps a removed cgroup (ilD, in which nothing
# ever ran: no page of it is charged anywhere) until the setting moves:
# moved to ilD, ilC goes; ilD removed stays.
echo /ilD >$IOLAYERS_P/cgroup
rmdir $cg/ilD $cg/ilX3
check "setting moved: ilC let go, ilD removed while followed held, the control let go (dying $(dying), $d0 before)" \
	held_by_us $((d0 + 1))
echo "" >$IOLAYERS_P/cgroup
check "cgroup turned off: reads back empty" test -z "$(cat $IOLAYERS_P/cgroup)"
check "turned off, ilD let go (dying $(dying), $d0 before)" dying_is "$d0"
check "rmmod" rmmod iolayers

# 4. A cgroup followed at unload goes with the module: ilE, removed while
# followed, is released by the rmmod (a load refused after the setting's
# parse lets go the same way: the kernel frees the parameters).
check "insmod cgroup=/ilE" insmod "$ko" cgroup=/ilE
rmdir $cg/ilE $cg/ilX2
check "ilE removed while followed is held, the control let go (dying $(dying), $d0 before)" \
	held_by_us $((d0 + 1))
check "rmmod with a cgroup followed" rmmod iolayers
check "unloaded, ilE let go (dying $(dying), $d0 before)" dying_is "$d0"
mkdir $cg/ilE
check "a load refused after cgroup= took its cgroup: refused" \
	refused_msg "cgroup=/ilE flows=-1" "invalid flows"
rmdir $cg/ilE
check "and it let the cgroup go (dying $(dying), $d0 before)" dying_is "$d0"
rmdir $cg/ilA/inner/deeper-and-longer-than-thirty-two-bytes $cg/ilA/inner $cg/ilA $cg/ilB
finish
