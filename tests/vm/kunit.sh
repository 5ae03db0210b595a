#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: run the KUnit suites (loading iolayers_kunit.ko runs them) and
# print the kernel log between markers, for scripts/run-kunit to parse.
set -u
dmesg -C
insmod "$IOLAYERS_MODULE_DIR/iolayers_kunit.ko" || exit 1
echo IOLAYERS_KTAP_BEGIN
dmesg
echo IOLAYERS_KTAP_END
rmmod iolayers_kunit
