#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: a real server from Debian's archive followed by its
# cgroup. Redis (bookworm's: its redis-server is redis-tools'
# redis-check-rdb under that name, as the redis-server package links it)
# starts in a cgroup of its own before the module is loaded with
# cgroup= that cgroup; redis-benchmark, outside it, sends it requests.
# Redis counts each read() of a client socket (INFO stats'
# total_reads_processed, incremented before each read, the ones that
# find the connection closed included) and the bytes they returned
# (total_net_input_bytes): the module's socket reads and their bytes
# must equal the difference of the two over the load, less what lies
# outside the module's window (below). None of the benchmark's own
# reads count: it is not in the cgroup.
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ip link set lo up || { echo "cannot bring lo up"; exit 1; }

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
cg=/sys/fs/cgroup
port=6390
work=/tmp/il-redis
rm -rf $work
mkdir -p $work
mountpoint -q $cg || mount -t cgroup2 none $cg
mkdir -p $cg/il-redis

# counts: R and B, Redis's total_reads_processed and
# total_net_input_bytes, from one INFO stats (one connection: its command
# read, counted in R and B, and once the client has gone one read that
# finds the connection closed, after them).
counts() {
	eval "$(redis-cli -p $port INFO stats | tr -d '\r' | awk -F: '
		$1 == "total_reads_processed" { print "R=" $2 }
		$1 == "total_net_input_bytes" { print "B=" $2 }')"
}

ln -s "$(command -v redis-check-rdb)" $work/redis-server
sh -c 'echo $$ >"$1/cgroup.procs" && cd "$2" && exec ./redis-server --port "$3" \
	--bind 127.0.0.1 --save "" --appendonly no --io-threads 1 --daemonize no' \
	sh $cg/il-redis $work $port >$work/redis.log 2>&1 &
rs=$!
i=0
until [ "$(redis-cli -p $port PING 2>/dev/null)" = PONG ] || [ $i -ge 600 ]; do
	poll_nap
	i=$((i + 1))
done
check "redis-server answers (pid $rs, in $(cat /proc/$rs/cgroup))" \
	test "$(redis-cli -p $port PING)" = PONG
check "redis-server is the server, not the checker" grep -q "Ready to accept connections" \
	$work/redis.log

# The baseline: its INFO's own reads are all done once the client has
# gone (a second is plenty), before the module is loaded.
counts
r0=$R b0=$B
sleep 1
check "insmod cgroup=/il-redis (the server started before)" insmod "$ko" cgroup=/il-redis

redis-benchmark -p $port -c 4 -n 1500 -t set,get,lpush -q >$work/bench.out 2>&1
check "redis-benchmark ran ($(tr '\r' '\n' <$work/bench.out | grep -c 'requests per second') tests)" \
	test "$(tr '\r' '\n' <$work/bench.out | grep -c 'requests per second')" -ge 3
# Every benchmark connection closed and read to its end.
sleep 1
m_reads=$(summary_field sock count)
m_bytes=$(summary_field sock bytes)
m_sys=$(stats_hits sys_exit)
cache_counts
sk=$(awk '$1 ~ /^(READY|WAITED|EMPTY)$/ { n += $2 } END { print n + 0 }' $IOLAYERS_D/summary)
# This INFO's command read counts in Redis's numbers, not in the module's
# (taken before it); the baseline INFO's closing read in neither window
# of the module: two reads, and the command's bytes.
cmd_bytes=$(printf '*2\r\n$4\r\nINFO\r\n$5\r\nstats\r\n' | wc -c)
counts
r1=$R b1=$B
want_reads=$((r1 - r0 - 2))
want_bytes=$((b1 - b0 - cmd_bytes))
echo "redis: reads $r0 -> $r1, bytes $b0 -> $b1; module: sock $m_reads reads $m_bytes bytes, socket states $sk, syscalls $m_sys"
check "every socket read of the server counted: $m_reads == Redis's $want_reads" \
	test "$m_reads" = "$want_reads"
check "their bytes: $m_bytes == Redis's $want_bytes" test "$m_bytes" = "$want_bytes"
check "each in a socket state (READY, WAITED, EMPTY: $sk == $m_reads)" test "$sk" = "$m_reads"
check "the load was real (over 3000 reads)" test "$m_reads" -gt 3000
# Its file reads (/proc) are the other states': no HIT or MISS of a
# data file (persistence is off).
check "no file data read (HIT $HIT MISS $MISS)" test "$HIT" = 0 -a "$MISS" = 0

redis-cli -p $port SHUTDOWN NOSAVE >/dev/null 2>&1
wait $rs
check "rmmod" rmmod iolayers
rmdir $cg/il-redis
rm -rf $work
finish
