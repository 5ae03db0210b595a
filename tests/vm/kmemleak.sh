#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest, on a kmemleak kernel (the debug kernel): the leak scan of the
# whole boot, as its last test. Without this script run-vm's init scans
# after each script (5 s for the youngest object to be old enough, then two
# scans: 15 s each time on the debug kernel); with it, once here, for what
# every earlier test of the boot left. A leak is reported with the
# allocation's backtrace, which names the code that made it; the kernel's
# "new suspected memory leaks" line fails this part of the log too.
# vm-last: it scans for the leaks of every test before it
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

kml=/sys/kernel/debug/kmemleak
check "the kernel has kmemleak" test -w $kml || { finish; exit 1; }
check "no module of ours is loaded" test ! -d /sys/module/iolayers -a ! -d /sys/module/iolayers_kunit
# Objects are reported once 5 s old and unchanged between two scans.
sleep 5
t=$SECONDS
echo scan >$kml
echo scan >$kml
n=$(grep -c "unreferenced object" $kml || true)
echo "# two scans took $((SECONDS - t)) s"
# (Not the words kmemleak reports with: run-vm fails a part holding them.)
check "kmemleak: no leak in the boot ($n suspects)" test "$n" = 0
[ "$n" = 0 ] || cat $kml
finish
