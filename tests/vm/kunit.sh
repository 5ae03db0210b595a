#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest: run the KUnit suites (loading iolayers_kunit.ko runs them) and
# print the kernel log between markers, for scripts/run-kunit to parse. The
# functions under test are iolayers.ko's own, so it is loaded first, with a
# filter that follows nothing.
set -u
insmod "$IOLAYERS_MODULE_DIR/iolayers.ko" comm=iolayers-kunit || exit 1
dmesg -C
insmod "$IOLAYERS_MODULE_DIR/iolayers_kunit.ko" || exit 1
echo IOLAYERS_KTAP_BEGIN
dmesg
echo IOLAYERS_KTAP_END
rmmod iolayers_kunit
rmmod iolayers
