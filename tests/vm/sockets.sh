#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: reads from sockets are flows. A loopback server
# (tests/vm/sockcheck.c, followed) reads messages a client sends over TCP
# (IPv4 and IPv6), UDP, Unix streams and Unix datagrams, and logs before
# each read what FIONREAD says is queued: against that log, every read is
# a flow with its syscall and return value, named with its kind of socket,
# READY when data was queued, WAITED when none was, with its SOCK time
# (and TCP's on TCP, its wait when it waited). The TCP server also
# preads a file between its socket reads: file flows beside socket ones.
# A second server of the same kind, not followed, contributes nothing.
# vm-files: sfile:4
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
reader=$IOLAYERS_REPO/userspace/iolayers
sc=$IOLAYERS_MODULE_DIR/sockcheck
n=200
[ "${IOLAYERS_KERNEL:-}" = debug ] && n=80

# The guest's init leaves the loopback interface down.
ip link set lo up || { echo "cannot bring lo up"; exit 1; }

# tcp_insegs: the kernel's count of TCP segments received (/proc/net/snmp).
tcp_insegs() {
	awk '$1 == "Tcp:" { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 }
		else print $(c["InSegs"]) }' /proc/net/snmp
}

# start_sc NAME KIND [FILE]: a sockcheck, stopped before its first read;
# the UDP server ends with 5 recvmmsg() calls.
start_sc() {
	local mmsg=0
	[ "$2" = udp ] && mmsg=5
	SC_MMSG=$mmsg PC_LOG=/tmp/$1.log "$sc" "$2" "$n" 1000 ${3:+"$3"} >/tmp/$1.out 2>&1 &
	SC_PID=$!
	while [ "$(task_state $SC_PID)" != T ]; do
		kill -0 $SC_PID 2>/dev/null || return 1
		poll_nap
	done
}

# A pid to load with: the first server, the others are set at run time.
start_sc tcp tcp /mnt/sfile || { echo "sockcheck did not start: $(cat /tmp/tcp.out)"; exit 1; }
insmod "$ko" pid="$SC_PID" flows=4096 rcv=1 || { not_ok "insmod pid=$SC_PID rcv=1"; finish; }
ok "insmod pid=$SC_PID rcv=1"
layers=$(cat "$IOLAYERS_D/layers")
echo "$layers" | grep -E 'SOCK'
check "layers: sock_recvmsg attached" grep -qE '^sock_recvmsg +SOCK +fentry +attached' \
	"$IOLAYERS_D/layers"
first=1
for kind in tcp tcp6 udp unix unix-dgram; do
	if [ $first = 0 ]; then
		start_sc "$kind" "$kind" || { not_ok "$kind: sockcheck did not start"; continue; }
	fi
	first=0
	pid=$SC_PID
	echo "$pid" >"$IOLAYERS_P/pid"
	echo 1 >"$IOLAYERS_P/reset"
	start_sc "$kind-other" "$kind" || { not_ok "$kind: second sockcheck did not start"; continue; }
	other=$SC_PID
	insegs0=$(tcp_insegs)
	kill -CONT "$pid" "$other"
	wait "$pid" "$other"
	cat /tmp/$kind.out
	cp "$IOLAYERS_D/flows" "/tmp/$kind.flows"
	read -r nflows nlog matched sock_wrong state_off ready waited unk layers_bad file_rows \
		file_bad others <<<"$(python3 "$IOLAYERS_REPO/tests/vm/check-socks.py" \
		"/tmp/$kind.flows" "/tmp/$kind.log" "$pid" "$other" "$kind")"
	nsock=$((nlog - file_rows))
	echo "$kind: $nflows flows of $nlog reads; READY $ready WAITED $waited UNK $unk; $state_off disagree with FIONREAD"
	grep -m3 -E " (READY|WAITED) " "/tmp/$kind.flows"
	check "$kind: one flow per read, in order, with its syscall and return ($matched == $nflows == $nlog)" \
		test "$matched/$nflows" = "$nlog/$nlog"
	check "$kind: every socket read names its socket $kind ($sock_wrong wrong)" test "$sock_wrong" = 0
	check "$kind: both states occur (READY $ready, WAITED $waited), none UNK" \
		test "$ready" -gt 0 -a "$waited" -gt 0 -a "$unk" = 0
	# A segment can land between FIONREAD and the read: READY where the
	# log says nothing was queued. At most 5 %.
	check "$kind: the state agrees with FIONREAD but for $state_off of $nsock (<= 5 %)" \
		test $((state_off * 20)) -le "$nsock"
	check "$kind: SOCK timed, TCP timed on TCP only, a wait exactly for WAITED ($layers_bad wrong)" \
		test "$layers_bad" = 0
	check "$kind: nothing from the server not followed ($others)" test "$others" = 0
	check "$kind: hist: sock layer counts every socket read ($(hist_total sock) == $nsock)" \
		test "$(hist_total sock)" = "$nsock"
	check "$kind: hist: wait layer counts the WAITED reads ($(hist_total wait) == $waited)" \
		test "$(hist_total wait)" = "$waited"
	case $kind in
	tcp*) check "$kind: hist: tcp layer counts every read ($(hist_total tcp) == $nsock)" \
		test "$(hist_total tcp)" = "$nsock"
		# The receive path against the connection's own count of the
		# segments it received (TCP_INFO tcpi_segs_in, from before the
		# first read to after the last): the module counts from the
		# first read (segments before it are not its) and until the
		# close (the client's FIN after the last read is).
		segs=$(awk '{ print $8 }' "/tmp/$kind.out")
		rcv=$(awk '$1 == "layer" { print $4 }' "$IOLAYERS_D/rcv")
		insegs=$(($(tcp_insegs) - insegs0))
		echo "$kind: receive path: $rcv segments; TCP_INFO segs_in $segs; Tcp InSegs (both ends) $insegs"
		head -4 "$IOLAYERS_D/rcv"
		check "$kind: receive path: the connection's segments ($rcv against $segs, within 5 % + 2)" \
			test $(((rcv - segs) * (rcv - segs))) -le $(((segs / 20 + 2) * (segs / 20 + 2)))
		check "$kind: receive path: no kretprobe missed" \
			test "$(awk '$1 == "tcp_v4_do_rcv" || $1 == "tcp_v6_do_rcv" { s += $3 } END { print s + 0 }' \
			"$IOLAYERS_D/stats")" = 0
		if [ "$kind" = tcp6 ]; then
			# The reader: a section per socket state, the receive path.
			"$reader" >/tmp/reader.out 2>&1
			"$reader" -H >/tmp/reader-h.out 2>&1
			cat /tmp/reader.out
			check "reader: READY and WAITED sections with sock, tcp and wait rows" \
				sh -c "grep -qE '^READY: $ready reads' /tmp/reader.out &&
				grep -qE '^WAITED: $waited reads' /tmp/reader.out &&
				grep -qE '^  wait ' /tmp/reader.out && grep -qE '^  tcp ' /tmp/reader.out"
			check "reader: the receive path's $rcv segments" \
				grep -q "^tcp receive path: $rcv segments" /tmp/reader.out
			check "reader -H: the receive path's histogram, bcc-style" \
				grep -q "^tcp_v4_do_rcv/tcp_v6_do_rcv = $rcv segments" /tmp/reader-h.out
		fi ;;
	*) check "$kind: hist: no tcp layer ($(hist_total tcp))" test "$(hist_total tcp)" = 0 ;;
	esac
	if [ "$kind" = udp ]; then
		check "udp: the followed server's 5 recvmmsg() calls counted, not flows ($(stats_value recvmmsg_calls))" \
			test "$(stats_value recvmmsg_calls)" = 5
	fi
	if [ "$kind" = tcp ]; then
		check "tcp: the file's preads are file flows beside them ($file_rows, $file_bad wrong)" \
			test "$file_rows" -gt 0 -a "$file_bad" = 0
		late=$(flows_where "/tmp/$kind.flows" 'col("done_off") != "-" && col("done_off") + 0 > col("syscall_ns") + 0' | wc -l)
		check "tcp: no request folded into a read completed after its end ($late)" test "$late" = 0
	fi
	read -r compared outside worst nested <<<"$(python3 "$IOLAYERS_REPO/tests/vm/check-times.py" \
		"/tmp/$kind.flows" "/tmp/$kind.log" "$pid")"
	check "$kind: each read's time inside the server's clock reads around it ($outside of $compared outside; worst $worst ns)" \
		test "$outside" = 0 -a "$compared" = "$nflows"
	check "$kind: VFS, SOCK and TCP times inside the syscall's ($nested not)" test "$nested" = 0
	# The reader's fixture of socket reads (userspace/tests/fixtures/*-tcp,
	# by scripts/capture-fixtures): TCP reads and the file's preads.
	[ "$kind" != tcp ] || dump_debugfs
done
echo "summary:"
cat "$IOLAYERS_D/summary"
check "stats: no drops" test "$(drops_total)" = 0
# The Unix, IPv6 and datagram-wait entries share one ftrace_ops
# (design.rst): each of their calls found its probe, and the datagram
# wait (grouped) saw the last kind's waits (reset zeroes the hits before
# each kind; a family's recvmsg counts no hit after sock_recvmsg's).
check "stats: function entries attached in groups ($(stats_value fentry_grouped))" \
	test "$(stats_value fentry_grouped)" -gt 0
check "stats: every grouped function entry's call found its probe ($(stats_value fentry_unmatched))" \
	test "$(stats_value fentry_unmatched)" = 0
waited=$(awk '$1 == "WAITED" { print $2 }' "$IOLAYERS_D/summary")
check "stats: the grouped __skb_wait_for_more_packets saw unix-dgram's waits ($(stats_hits __skb_wait_for_more_packets) hits, ${waited:-no} WAITED)" \
	test "$(stats_hits __skb_wait_for_more_packets)" -ge "${waited:-1}" -a "${waited:-0}" -gt 0
# Every TCP socket the servers read has closed: the module forgot them.
check "sock table empty once the sockets closed ($(table_col sock entries))" \
	test "$(table_col sock entries)" = 0
check "rmmod" rmmod iolayers

# Sockets read after a RST: the reset closed them before the first read,
# and their close() destroys them without another transition to
# TCP_CLOSE. They were added at that read and never removed: after
# max_flows of them the table was full and learnt no socket more, and an
# address reused by a socket not followed had its segments counted.
n_rst=600
[ "${IOLAYERS_KERNEL:-}" = debug ] && n_rst=150
python3 "$IOLAYERS_REPO/tests/vm/rstserver.py" $n_rst >/tmp/rst.out 2>&1 &
rst=$!
wait_stopped $rst
insmod "$ko" pid=$rst max_flows=512 rcv=1 || not_ok "insmod pid=$rst max_flows=512 rcv=1"
kill -CONT $rst
wait_stopped $rst
check "RST: the server's $n_rst reads ended in ECONNRESET ($(cat /tmp/rst.out))" \
	grep -qx "resets $n_rst" /tmp/rst.out
open_entries=$(table_col sock entries)
full=$(table_col sock table_full)
kill -CONT $rst
wait_stopped $rst
check "RST: no entry for a socket read after its reset ($open_entries of $n_rst open; table full $full times)" \
	test "$open_entries" = 0 -a "$full" = 0
check "RST: the table empty once they closed ($(table_col sock entries))" \
	test "$(table_col sock entries)" = 0
kill -CONT $rst
wait $rst
check "rmmod (RST)" rmmod iolayers
# A read of a listening socket (ENOTCONN) did not make the listener a
# followed socket: its segments are connection requests, which the
# receive path then timed (make bench's review, 2026-12-05). The same
# process then connects to it and accepts 20 times, reading nothing.
python3 - >/tmp/lst.out 2>&1 <<'PY' &
import os, signal, socket
l = socket.socket()
l.bind(("127.0.0.1", 0))
l.listen(64)
port = l.getsockname()[1]
os.kill(os.getpid(), signal.SIGSTOP)
try:
    l.recv(1)
except OSError as e:
    print("recv errno", e.errno)
for _ in range(20):
    c = socket.create_connection(("127.0.0.1", port))
    a, _ = l.accept()
    c.close()
    a.close()
print("accepted 20")
PY
lst=$!
wait_stopped $lst
insmod "$ko" pid=$lst rcv=1 || not_ok "insmod pid=$lst rcv=1 (listener)"
insegs0=$(tcp_insegs)
kill -CONT $lst
wait $lst
cat /tmp/lst.out
check "listener: its read failed (ENOTCONN) and 20 connections were accepted" \
	sh -c "grep -qx 'recv errno 107' /tmp/lst.out && grep -qx 'accepted 20' /tmp/lst.out"
rcv=$(awk '$1 == "layer" { print $4 }' "$IOLAYERS_D/rcv")
check "listener: no segment timed ($rcv; Tcp InSegs $(($(tcp_insegs) - insegs0)))" test "$rcv" = 0
check "rmmod (listener)" rmmod iolayers
# rcv=0, the default: the TCP reads are followed as above (a request and
# its response, tools/tcpload), and no receive path probe is attached, nor
# any segment timed.
cp "$IOLAYERS_MODULE_DIR/tcpload" /tmp/tcpload
stopped_workload tcp 200 /tmp/tcpload.json
insmod "$ko" pid=$WL_PID || not_ok "insmod pid=$WL_PID (rcv=0)"
check "rcv=0: no receive path probe point in layers" \
	sh -c "! grep -qE '^(tcp_v4_do_rcv|tcp_v6_do_rcv|inet_sock_set_state|tcp_v4_destroy_sock) ' $IOLAYERS_D/layers"
check "rcv=0: the setting reads 0" grep -qx 0 /sys/module/iolayers/parameters/rcv
insegs0=$(tcp_insegs)
kill -CONT $WL_PID
wait $WL_PID || not_ok "tcpload failed: $(cat /tmp/tcpload.json)"
calls=$(workload_calls /tmp/tcpload.json)
rcv=$(awk '$1 == "layer" { print $4 }' "$IOLAYERS_D/rcv")
check "rcv=0: every recv() followed to TCP ($(hist_total tcp) TCP layer reads, $calls calls) and no segment timed ($rcv; Tcp InSegs $(($(tcp_insegs) - insegs0)))" \
	sh -c "[ $rcv = 0 ] && [ $(hist_total tcp) = $calls ]"
check "rcv=0: no socket learnt (socket table's high mark $(table_col sock high))" \
	test "$(table_col sock high)" = 0
check "rmmod (rcv=0)" rmmod iolayers
# sockets=0: the SOCK layer is not attached at all.
insmod "$ko" pid=$$ sockets=0 || not_ok "insmod sockets=0"
check "sockets=0: no SOCK probe point in layers" sh -c "! grep -q ' SOCK ' $IOLAYERS_D/layers"
check "rmmod (sockets=0)" rmmod iolayers
finish
