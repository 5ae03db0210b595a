#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test on a PREEMPT_RT kernel: the module refuses to load, says
# why, and leaves nothing behind (no debugfs directory, no module, no
# warning in the log). Ground truth: the kernel's own config and
# /proc/modules.
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
check "the kernel is PREEMPT_RT ($(uname -v))" grep -q PREEMPT_RT /proc/version
out=$("$IOLAYERS_REPO/userspace/iolayers" --check 2>&1)
rc=$?
echo "$out"
said=0
grep -q 'PREEMPT_RT kernel: the module refuses to load' <<<"$out" && said=1
check "--check says so before loading (exit $rc: 2)" test "$rc/$said" = 2/1
dmesg -C
err=$(insmod "$ko" pid=1 2>&1)
rc=$?
check "insmod fails ($rc: $err)" test "$rc" -ne 0
check "it says: operation not supported" grep -qi "not supported" <<<"$err"
check "the log says why" sh -c 'dmesg | grep -q "iolayers: PREEMPT_RT kernels are not supported"'
check "no module loaded" sh -c '! grep -q "^iolayers " /proc/modules'
check "no debugfs directory" test ! -e "$IOLAYERS_D"
finish
