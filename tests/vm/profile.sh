#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest part of `make profile`: where a cached 4 KiB read's added time
# goes under iolayers. fio runs the bench's worst case (4k-cached) three
# times: with nothing attached, with iolayers.ko, with iolayers.ko empty=1
# (the floor); during the iolayers run `perf record -a -g` samples every
# CPU. Prints fio's reads per run, the module's self-accounting (stats)
# and perf's flat profile: the top symbols, and the share of samples in
# iolayers' own code, in the kprobe/rethook/tracepoint machinery and in
# the rest of the kernel.
#
# IOLAYERS_PROFILE_SECONDS (default 6): each fio run's length.
# vm-files: data:64
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
secs=${IOLAYERS_PROFILE_SECONDS:-6}
echo none >/sys/block/nvme0n1/queue/scheduler
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
cat /mnt/data >/dev/null

# run MODE: one fio run, stopped until the tracer is attached; prints reads.
run() {
	local p reads
	bash -c 'kill -STOP $$; exec fio --name=p --ioengine=sync --invalidate=0 --thread \
		--eta=never --output-format=json --output=/tmp/p.json --filename=/mnt/data \
		--size=64m --rw=randread --bs=4k --time_based --runtime='"$secs" &
	p=$!
	while [ "$(awk '{ print $3 }' /proc/$p/stat 2>/dev/null)" != T ]; do sleep 0.05; done
	case $1 in
	iolayers) insmod "$ko" pid=$p || return 1 ;;
	floor) insmod "$ko" pid=$p empty=1 || return 1 ;;
	esac
	if [ "$1" = iolayers ]; then
		# perf loads slowly over 9p: let it start recording first.
		perf record -a -g -o /tmp/perf.data -- sleep "$((secs + 4))" >/tmp/perf.rec 2>&1 &
		PERF=$!
		sleep 4
	fi
	kill -CONT $p
	wait $p
	[ "$1" = iolayers ] && wait $PERF
	reads=$(python3 -c 'import json; print(json.load(open("/tmp/p.json"))["jobs"][0]["read"]["total_ios"])')
	echo "PROFILE_RUN $1 $reads reads in $secs s"
	if [ "$1" = iolayers ]; then
		echo "IOLAYERS_PROFILE_STATS"
		sed '/^$/q' "$IOLAYERS_D/stats"
		grep '^clock_ns ' "$IOLAYERS_D/stats"
	fi
	[ "$1" = none ] || rmmod iolayers
}

run none
run iolayers
run floor
echo "IOLAYERS_PROFILE_PERF clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
tail -2 /tmp/perf.rec
perf report -i /tmp/perf.data --no-children --sort comm --stdio 2>/dev/null |
	grep -E '^ +[0-9.]+%' | head -8
# Only fio's samples: the reads being measured, not perf or idle CPUs.
perf report -i /tmp/perf.data --comms fio --no-children --sort sym --stdio 2>/dev/null |
	grep -E '^ +[0-9.]+%' | head -40
# Samples by where they landed: our module, the probe machinery, the rest.
perf report -i /tmp/perf.data --comms fio --no-children --sort dso,sym --stdio 2>/dev/null |
	awk '/^ +[0-9.]+%/ {
		p = $1; sub("%", "", p)
		if ($2 ~ /iolayers/) mod += p
		else if ($0 ~ /kprobe|rethook|kretprobe|ftrace|trampoline|__traceiter|tracepoint|int3|do_int3|exc_int3/) mech += p
		else rest += p
	}
	END { printf "PROFILE_SHARE iolayers_module %.1f%% probe_machinery %.1f%% rest %.1f%%\n", mod, mech, rest }'
echo "IOLAYERS_PROFILE_END"
