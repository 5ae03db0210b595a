# SPDX-License-Identifier: GPL-2.0
# Helpers for the in-guest tests; sourced. Each check prints `ok - ...` or
# `not ok - ...`; finish prints the counts and sets the exit status.

IOLAYERS_D=/sys/kernel/debug/iolayers
# Where the runtime settings are written (debugfs shows them read-only).
IOLAYERS_P=/sys/module/iolayers/parameters
_passed=0
_failed=0

# Where a test's time goes (the debug kernel's tests take many minutes): a
# "# at N s" line before a result when 10 s or more passed since the last.
_mark=0
_at() {
	[ $((SECONDS - _mark)) -lt 10 ] || { _mark=$SECONDS; echo "# at $SECONDS s"; }
}
ok() { _at; echo "ok - $*"; _passed=$((_passed + 1)); }
not_ok() { _at; echo "not ok - $*"; _failed=$((_failed + 1)); }

# full_scope: this boot runs every part of a test. make check gives the
# kernels it tests for their probes alone (5.10, sid) IOLAYERS_SCOPE=core:
# there a test skips the parts that test no more of the kernel than the
# main kernels' runs did (the reader's own features, fio's other engines
# on a path already counted), and says which it skipped.
full_scope() {
	[ "${IOLAYERS_SCOPE:-full}" != core ] && return 0
	echo "# scope core: not run here: $*"
	return 1
}

# check DESCRIPTION COMMAND...: ok when COMMAND succeeds.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

finish() {
	echo "guest: $_passed passed, $_failed failed"
	[ "$_failed" -eq 0 ]
	exit $?
}

# stats_hits PROBE: the hits column of /sys/kernel/debug/iolayers/stats.
stats_hits() {
	local name hits rest
	while read -r name hits rest; do
		[ "$name" = "$1" ] && echo "$hits" && return 0
	done <"$IOLAYERS_D/stats"
	return 1
}

# proc_io PID FIELD: a field of /proc/PID/io (whole thread group). Builtins
# only: every exec is slow in an emulated guest.
proc_io() {
	local k v
	while read -r k v; do
		[ "$k" = "$2:" ] && echo "$v" && return 0
	done <"/proc/$1/io"
	return 1
}

# summary_field LAYER COLUMN: a column (count, bytes, min_ns...) of `summary`.
summary_field() {
	awk -v l="$1" -v c="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == l { print $(col[c]) }' "$IOLAYERS_D/summary"
}

# cache_counts: sets HIT MISS PARTIAL DIRECT OTHER UNK ERR from `summary`
# (each state's reads, by name).
cache_counts() {
	local n
	for n in HIT MISS PARTIAL DIRECT OTHER UNK ERR; do printf -v $n 0; done
	eval "$(awk '$1 ~ /^(HIT|MISS|PARTIAL|DIRECT|other|UNK|ERROR)$/ && $2 ~ /^[0-9]+$/ {
		n = $1; if (n == "other") n = "OTHER"; if (n == "ERROR") n = "ERR"
		print n "=" $2 }' "$IOLAYERS_D/summary")"
}

# task_state PID: the state letter of PID (R, S, T, Z, ...), nothing when
# it is gone. The command name must hold no blank or ')': the third
# field of /proc/PID/stat follows it.
task_state() {
	local s
	{ read -r s <"/proc/$1/stat"; } 2>/dev/null || return 0
	s=${s##*) }
	echo "${s%% *}"
}

# poll_nap: the wait between two looks of a poll loop, a twentieth of a
# second, without starting a process (sleep is an exec: tens of ms of
# the emulated CPU a look, and its tenth of a second mostly idle): nap's,
# its FIFO made at the first call; sleep's where no FIFO can be made.
poll_nap() {
	if nap_init; then
		nap 0.05
	else
		sleep 0.05
	fi
}

# wait_stopped PID: until PID is stopped (SIGSTOP, its own included) or gone.
wait_stopped() {
	while [ "$(task_state "$1")" != T ]; do
		kill -0 "$1" 2>/dev/null || return 1
		poll_nap
	done
}

# run_pc NAME FILE COUNT PATTERN [direct|errors|-] [keep]: preadcheck under the
# module; sets truth_* and HIT MISS PARTIAL DIRECT OTHER UNK ERR, FS (the FS
# layer's count), DIO (iomap_dio_rw hits), RQS (requests in its kept
# flows), RA (readahead pages), PC_PID. With keep the module stays loaded (the caller unloads it).
# PC_CGROUP: a cgroup directory preadcheck is moved into before it reads;
# PC_ARGS: more module parameters; IL_INSMOD_ARGS: a test's own for every
# load (sockets=0 in the tests of file reads that load the module many
# times: the SOCK layer's eleven ftrace registrations took 4 to 6 s per
# load and unload in a TCG guest, 6.12's stacks test ran out of its 20
# minutes with them; since function entries are filtered by address,
# loading is quick, but each unregistration still waits for tasks-RCU).
run_pc() {
	local name=$1 out p
	shift
	local mode=${4:--}
	[ "$mode" = - ] && mode=
	"$IOLAYERS_MODULE_DIR/preadcheck" "$1" "$2" "$3" 42 $mode >/tmp/pc.out &
	p=$!
	PC_PID=$p
	while [ "$(task_state $p)" != T ]; do
		kill -0 $p 2>/dev/null || { wait $p; echo "$name: preadcheck failed: $(cat /tmp/pc.out)"; return 1; }
		poll_nap
	done
	[ -z "${PC_CGROUP:-}" ] || echo $p >"$PC_CGROUP/cgroup.procs"
	insmod "$IOLAYERS_MODULE_DIR/iolayers.ko" pid=$p ${IL_INSMOD_ARGS:-} ${PC_ARGS:-} || return 1
	kill -CONT $p
	wait $p
	out=$(cat /tmp/pc.out)
	echo "$name: preadcheck: $out"
	read -r _ truth_reads _ truth_res _ truth_nonres _ truth_bytes _ truth_failed _ truth_swapped <<<"$out"
	cache_counts
	FS=$(summary_field fs count)
	RQS=$(flows_sum $p 'col("rqs")')
	DIO=$(stats_hits iomap_dio_rw)
	RA=$(stats_value readahead_pages)
	echo "$name: module: HIT $HIT MISS $MISS PARTIAL $PARTIAL DIRECT $DIRECT other $OTHER UNK $UNK ERROR $ERR fs $FS iomap_dio_rw $DIO rqs $RQS"
	grep -E '^(syscall|fs) ' "$IOLAYERS_D/summary"
	[ "${5:-}" = keep ] || rmmod iolayers
}

# within1 A B: |A - B| is at most 1 % of the reads.
within1() { test $((($1 - $2) * 100 / truth_reads)) -eq 0; }

# hist_total LAYER: the sum of the bucket counts of a layer in `hist`.
hist_total() {
	awk -v l="$1" '
		$1 == "layer" { on = ($2 == l); next }
		on { s += $3 }
		END { print s + 0 }' "$IOLAYERS_D/hist"
}

# stats_value NAME: a single-value line of `stats` (drops, occupancy).
stats_value() {
	awk -v n="$1" '$1 == n { print $2 }' "$IOLAYERS_D/stats"
}

# table_col TABLE COLUMN: a cell of the tables part of `stats` (entries,
# high, bound, table_full, nomem, stale, expired).
table_col() {
	awk -v t="$1" -v col="$2" '
		$1 == "table" { for (i = 1; i <= NF; i++) c[$i] = i; next }
		c[col] && $1 == t { print $(c[col]); exit }' "$IOLAYERS_D/stats"
}

# disk_col DISK COLUMN: a column (requests, bytes, device_rqs...) of DISK's
# line in the disks' section of `stats`; empty when the disk is not there.
disk_col() {
	awk -v d="$1" -v c="$2" '
		$1 == "disk" { for (i = 1; i <= NF; i++) h[$i] = i; on = 1; next }
		NF == 0 { on = 0 }
		on && $1 == d { print $(h[c]) }' "$IOLAYERS_D/stats"
}

# wrong_disk DISK: lines of `flows` whose disk is not DISK although they
# have requests, or whose disk is not "-" without any.
wrong_disk() {
	flows_where "$IOLAYERS_D/flows" '(col("rqs") > 0 && col("disk") != d) ||
		(col("rqs") == 0 && col("disk") != "-")' -v d="$1" | wc -l
}

# table_sum COLUMN [TABLE...]: COLUMN of the tables part of `stats`
# summed over the TABLEs named, or over every table it lists.
table_sum() {
	local col=$1
	shift
	awk -v col="$col" -v only=" $* " '
		$1 == "table" { for (i = 1; i <= NF; i++) c[$i] = i; on = 1; next }
		NF == 0 { on = 0 }
		on && c[col] && (only == "  " || index(only, " " $1 " ")) { s += $(c[col]) }
		END { print s + 0 }' "$IOLAYERS_D/stats"
}

# drops_total: every drop of every table (table_full nomem stale expired).
drops_total() {
	local d s=0
	for d in table_full nomem stale expired; do
		s=$((s + $(table_sum $d)))
	done
	echo $s
}

# wait_block DEV: wait up to 10 s for the block device node DEV (a disk
# probed asynchronously, a partition after its table was written); true
# when it is there.
wait_block() {
	local i=0
	while [ ! -b "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	test -b "$1"
}

# disk_reads [DISK]: reads completed by DISK (default the test disk,
# NVMe namespace 1: nvme0n1, or what run-vm's init found it named): the
# first field of its stat.
disk_reads() {
	local r rest
	read -r r rest </sys/block/"${1:-${IOLAYERS_NVME_DISK:-nvme0n1}}"/stat
	echo "$r"
}

# nvme_nsid_of DIR: the NVMe namespace id of the disk mounted on DIR.
nvme_nsid_of() {
	local dev
	dev=$(awk -v d="$1" '$2 == d { print $1 }' /proc/mounts | tail -n1)
	cat "/sys/block/${dev#/dev/}/nsid" 2>/dev/null || echo none
}

# stop_wait PID: SIGSTOP the thread group and wait until every thread stopped.
stop_wait() {
	local end=$((SECONDS + 30)) t stat all
	kill -STOP "$1"
	while [ $SECONDS -lt $end ]; do
		all=1
		for t in /proc/"$1"/task/*/stat; do
			read -r stat <"$t"
			stat=${stat##*) }
			[ "${stat%% *}" = T ] || all=0
		done
		[ $all -eq 1 ] && return 0
		sleep 0.2
	done
	return 1
}

# wait_reading PID: wait (up to 5 min) until the process has read 100 blocks
# of 4 KiB from the disk.
wait_reading() {
	local end=$((SECONDS + 300)) n
	while [ $SECONDS -lt $end ]; do
		n=$(proc_io "$1" read_bytes) || return 1
		[ "$n" -ge $((100 * 4096)) ] && return 0
		sleep 1
	done
	return 1
}

# wait_more_reads PID FROM N: wait (up to 2 min) until PID's read() count
# is at least FROM + N.
wait_more_reads() {
	local end=$((SECONDS + 120)) n
	while [ $SECONDS -lt $end ]; do
		n=$(proc_io "$1" syscr) || return 1
		[ "$n" -ge $(($2 + $3)) ] && return 0
		sleep 0.5
	done
	return 1
}

# flows_where FILE CONDITION [AWK_ARGS...]: the data lines of `flows` or
# `slow` for which the awk CONDITION holds; col("name") is a column by its
# header name, e.g. flows_where "$IOLAYERS_D/flows" 'col("rqs") > 0'.
flows_where() {
	local file=$1 cond=$2
	shift 2
	awk "$@" 'function col(n) { return $(h[n]) }
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		'"($cond)" "$file"
}

# flows_sum PID EXPR: the sum of the awk EXPR over PID's lines of `flows`
# (col("name") is a column by its header name), as an integer.
flows_sum() {
	awk -v p="$1" 'function col(n) { return $(h[n]) }
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		col("tid") == p { s += '"$2"' } END { printf "%d\n", s }' "$IOLAYERS_D/flows"
}

# dump_debugfs: print every file of the module's debugfs directory between
# markers; scripts/capture-fixtures turns them back into files.
dump_debugfs() {
	local f
	for f in "$IOLAYERS_D"/*; do
		[ -f "$f" ] || continue
		echo "IOLAYERS_FILE ${f##*/}"
		cat "$f"
	done
	echo "IOLAYERS_FILE_END"
}

# fio_tmpfs: copy fio, its libraries and the dynamic loader into /tmp (a
# tmpfs) and set FIO to a command running that copy: started from the 9p
# root, its loading varies from run to run by more than the instruction
# counts it is used to measure.
fio_tmpfs() {
	local d=/tmp/fio-root f
	if [ ! -x $d/fio ]; then
		mkdir -p $d
		cp -L "$(command -v fio)" $d/fio
		for f in $(ldd "$(command -v fio)" | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }'); do
			cp -L "$f" $d/
		done
	fi
	FIO="$d/ld-linux-x86-64.so.2 --library-path $d $d/fio"
}

# insn_totals: "seq kernel user", the instruction counter's running
# totals at a marker executed now (run-vm -I).
insn_totals() {
	"$IOLAYERS_INSN_MARK" "$IOLAYERS_ICOUNT_FILE"
}

# nap SECONDS: sleep without starting a process (a read that times out on
# a FIFO nobody writes), for loops inside a span whose instructions are
# counted, and poll loops (poll_nap). nap_init (outside any span) makes
# the FIFO, opens it and removes its name: one of this shell's own, so
# that a subshell making its own (NAP_FD not set there yet) never opens
# another's name, or a regular file where the name was just removed.
nap_init() {
	[ -n "${NAP_FD:-}" ] && return 0
	local f=/tmp/.nap-$BASHPID
	rm -f "$f" && mkfifo "$f" && exec {NAP_FD}<>"$f" || return 1
	rm -f "$f"
}
nap() {
	read -r -t "$1" -u "$NAP_FD" _ || true
}

# writer_idle PID: wait (at most a minute) until PID has written nothing
# for 0.3 s (/proc/PID/io's wchar unchanged over three looks 0.1 s apart),
# without starting a process: the end of a streaming row's span, once
# the stream's reader has written out every batch it took (each reader
# takes its records every 10 ms or so). 1 if it never settles.
writer_idle() {
	local i k v w last=-1 same=0
	for ((i = 0; i < 600; i++)); do
		w=
		while read -r k v; do
			[ "$k" = wchar: ] && w=$v
		done <"/proc/$1/io"
		if [ "$w" = "$last" ]; then
			same=$((same + 1))
			[ $same -ge 3 ] && return 0
		else
			same=0
			last=$w
		fi
		nap 0.1
	done
	return 1
}

# record_start PID: load the module for PID and start iolayers record
# writing every read to /tmp/rec.out (REC its pid); returns once it has
# the stream. The streaming rows of make bench and make profile.
record_start() {
	insmod "$IOLAYERS_MODULE_DIR/iolayers.ko" pid="$1" || return 1
	"$IOLAYERS_REPO/userspace/iolayers" record -o /tmp/rec.out 2>/tmp/rec.err &
	REC=$!
	wait_stream_reader
}

# stream_caught_up TRACER: for the streaming rows, the end of the span:
# wait until the stream's reader has written nothing for 0.3 s, without
# starting a process (counting the lines written so far, as before, put
# grep over the whole recording, and python for the workload's count, in
# the twins' spans: thousands of instructions a read). Whether it had
# taken every read by then is checked after the span (make bench's
# BENCH_FAIL). Other tracers: at once.
stream_caught_up() {
	case $1 in
	iolayers-stream) writer_idle "$REC" ;;
	bpftrace-stream) writer_idle "$BT" ;;
	libbpf-stream) writer_idle "$TW" ;;
	*) return 0 ;;
	esac
}

# wait_stream_reader: until a reader has the module's stream open (10 s).
wait_stream_reader() {
	local i
	for i in $(seq 200); do
		[ "$(stats_value stream_readers)" = 1 ] && return 0
		poll_nap
	done
	return 1
}

# end_within SECONDS PID SIGNAL: send SIGNAL to PID (a child of this shell)
# and wait at most SECONDS for it to end (gone or a zombie); its exit
# status in END_STATUS.
end_within() {
	local i st
	END_STATUS=
	kill -"$3" "$2" 2>/dev/null
	for i in $(seq $(($1 * 20))); do
		st=$(task_state "$2")
		if [ -z "$st" ] || [ "$st" = Z ]; then
			wait "$2" 2>/dev/null
			END_STATUS=$?
			return 0
		fi
		poll_nap
	done
	return 1
}

# fio_json FILE KEY: fio's JSON output (FILE; text fio printed before it
# is skipped) summed over its jobs at KEY, a dotted path (read.total_ios,
# total_err); -1 when the file or the key is not there.
fio_json() {
	python3 -c 'import json, sys
t = open(sys.argv[1]).read()
s = 0
for j in json.loads(t[t.index("{"):])["jobs"]:
    for p in sys.argv[2].split("."):
        j = j[p]
    s += j
print(s)' "$1" "$2" 2>/dev/null || echo -1
}

# stream_accounted N: until the stream's reader was given, or told it
# lost, N records (at most a minute).
stream_accounted() {
	local i
	for i in $(seq 1200); do
		[ $(($(stats_value stream_delivered) + $(stats_value stream_lost))) -ge "$1" ] &&
			return 0
		poll_nap
	done
	return 1
}

# stopped_pc NAME COUNT PATTERN [MODE]: preadcheck on $PC_FILE (default
# /mnt/data), stopped before its first read, logging each read to
# /tmp/NAME.pclog; sets PC_PID.
stopped_pc() {
	PC_LOG=/tmp/$1.pclog "$IOLAYERS_MODULE_DIR/preadcheck" "${PC_FILE:-/mnt/data}" "$2" "$3" 7 ${4:+"$4"} \
		>/tmp/$1.pcout &
	PC_PID=$!
	while [ "$(task_state $PC_PID)" != T ]; do
		kill -0 $PC_PID 2>/dev/null || return 1
		poll_nap
	done
}

# bpftrace_root_prepare: make the root of another Debian suite
# (IOLAYERS_BPFTRACE_ROOT, e.g. sid's with its bpftrace, on the host's 9p
# root, read-only) ready to run that bpftrace in a chroot: the guest's
# proc, sys (with debugfs and tracefs), dev and /dev/fd, and a tmpfs on
# its /tmp holding the twins' scripts. Once per boot. Such a bpftrace
# (0.20 and later) attaches fentry to module functions too: the fast
# twin's NVMe probes become fentry probes there (args.req for the
# request the kprobes read from a register).
bpftrace_root_prepare() {
	local r=$IOLAYERS_BPFTRACE_ROOT
	mountpoint -q "$r/proc" && return 0
	[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
	mount -t proc proc "$r/proc" &&
		mount --rbind /sys "$r/sys" &&
		mount --rbind /dev "$r/dev" &&
		mount -t tmpfs tmpfs "$r/tmp" || return 1
	cp "$IOLAYERS_REPO"/scripts/*.bt "$r/tmp/"
	sed -e 's/^kprobe:nvme_/fentry:nvme_/' -e 's/(struct request \*)arg[01]/args.req/' \
		-e 's/\[arg[01]\]/[args.req]/g' "$IOLAYERS_REPO/scripts/iolayers-fast.bt" \
		>"$r/tmp/iolayers-fast.bt"
}

# bpftrace_version: the version line of the bpftrace the twins run.
bpftrace_version() {
	if [ -n "${IOLAYERS_BPFTRACE_ROOT:-}" ]; then
		bpftrace_root_prepare && chroot "$IOLAYERS_BPFTRACE_ROOT" bpftrace --version
	else
		bpftrace --version
	fi
}

# bpftrace_start TRACER PID: start a bpftrace twin (bpftrace,
# bpftrace-fast, bpftrace-floor, or bpftrace-stream: the twin printing
# a line per read) following PID, its output in
# /tmp/bt.out, BT its pid. Returns once its BEGIN line is printed (bpftrace
# runs BEGIN after every probe is attached); 1, with its output on stderr,
# when it ended first or was not ready within 10 minutes.
bpftrace_start() {
	local bt stream=0
	case $1 in
	bpftrace) bt=iolayers.bt ;;
	bpftrace-stream) bt=iolayers.bt stream=1 ;;
	bpftrace-fast) bt=iolayers-fast.bt ;;
	bpftrace-floor) bt=iolayers-floor.bt ;;
	*) return 1 ;;
	esac
	local src=$IOLAYERS_REPO/scripts tmp=/tmp
	if [ -n "${IOLAYERS_BPFTRACE_ROOT:-}" ]; then
		bpftrace_root_prepare || return 1
		src=$IOLAYERS_BPFTRACE_ROOT/tmp tmp=$src
	fi
	# The URING, AIO and FAULT layers' twin, where io_uring's submission
	# names its request (6.1 on): appended, as one program; not in the
	# smoke run (its kprobes take seconds to attach under TCG).
	if [ "$bt" != iolayers-floor.bt ] && [ "${IOLAYERS_BENCH_SMOKE:-0}" != 1 ] &&
		grep -qs 'field:void \* req;' /sys/kernel/tracing/events/io_uring/io_uring_submit_*/format; then
		cat "$src/$bt" "$IOLAYERS_REPO/scripts/iolayers-async.bt" >"$tmp/bt-all.bt"
		src=$tmp bt=bt-all.bt
	fi
	if [ -n "${IOLAYERS_BPFTRACE_ROOT:-}" ]; then
		# Its map size setting's name since bpftrace 0.20 (the old one
		# still read, with a warning).
		BPFTRACE_MAX_MAP_KEYS=65536 chroot "$IOLAYERS_BPFTRACE_ROOT" bpftrace \
			"/tmp/$bt" "$2" $stream >/tmp/bt.out 2>&1 &
	else
		BPFTRACE_MAP_KEYS_MAX=65536 bpftrace "$src/$bt" "$2" $stream >/tmp/bt.out 2>&1 &
	fi
	BT=$!
	wait_ready /tmp/bt.out '^iolayers-bt: ready' $BT 6000 && return 0
	cat /tmp/bt.out >&2
	return 1
}

# wait_ready FILE PATTERN PID TENTHS: until a line of FILE matches PATTERN
# (0), PID ends or TENTHS tenths of a second pass (1).
wait_ready() {
	for _ in $(seq 1 $(($4 * 2))); do
		grep -q "$2" "$1" && return 0
		kill -0 "$3" 2>/dev/null || return 1
		poll_nap
	done
	return 1
}

# fio_job_ios JSON JOB: fio's count of JOB's reads in its JSON output
# (-1 when it has none).
fio_job_ios() {
	python3 -c 'import json, sys
t = open(sys.argv[1]).read()
for j in json.loads(t[t.index("{"):])["jobs"]:
    if j["jobname"] == sys.argv[2]:
        print(j["read"]["total_ios"])' "$1" "$2" 2>/dev/null || echo -1
}

# twin_start TRACER PID: the libbpf twin (tools/bpftwin, $IOLAYERS_TWIN)
# following PID, its output in /tmp/tw.out; libbpf-floor its floor (-e),
# libbpf-stream with every read's record written to /tmp/tw.rec. Sets TW;
# returns once it says it is ready (1 if it never does). TW_ARGS: more
# options (-f, the page faults).
twin_start() {
	local opt=()
	read -ra opt <<<"${TW_ARGS:-}"
	case $1 in
	libbpf) ;;
	libbpf-rcv) opt+=(-r) ;;
	libbpf-floor) opt+=(-e) ;;
	libbpf-stream) opt+=(-o /tmp/tw.rec) ;;
	*) return 1 ;;
	esac
	[ -x "${IOLAYERS_TWIN:-}" ] || { echo "no libbpf twin (IOLAYERS_TWIN)" >&2; return 1; }
	# Emptied first: the last run's "ready" must not be taken for this one's.
	: >/tmp/tw.out
	: >/tmp/tw.rec
	"$IOLAYERS_TWIN" "${opt[@]}" "$2" >/tmp/tw.out 2>/tmp/tw.err &
	TW=$!
	wait_ready /tmp/tw.out '^iolayers-twin: ready' $TW 1200 && return 0
	kill $TW 2>/dev/null
	wait $TW 2>/dev/null
	cat /tmp/tw.out /tmp/tw.err >&2
	return 1
}

# spread N...: (max - min) / median of the values, in percent.
spread() {
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 }
		END { if (NR == 0 || v[int((NR + 1) / 2)] == 0) { print "inf"; exit }
		      printf "%.4f\n", (v[NR] - v[1]) / v[int((NR + 1) / 2)] * 100 }'
}

# uncache FILE: drop FILE's clean pages from the page cache, nothing else.
uncache() {
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}

# stopped_workload WORKLOAD READS OUT [DIRECT]: make ab's and make
# profile's run, stopped before its first read; its pid in WL_PID, its
# JSON in OUT. 4k-cached and 4k-uncached: fio's READS random 4 KiB reads
# of /mnt/data (64 MiB; uncached: dropped from the page cache first;
# DIRECT=1: O_DIRECT), from the tmpfs copy of fio (fio_tmpfs); 128m:
# READS reads of 128 MiB of /mnt/big (256 MiB, dropped from the page
# cache first), as make bench's; tcp: /tmp/tcpload's READS requests of
# 4 KiB; uring-cached and uring-uncached: as 4k-*, through fio's io_uring
# engine with 8 requests in flight. fio without its disk-utilisation
# thread, as make bench (bench.sh).
stopped_workload() {
	local w=$1 n=$2 out=$3 direct=${4:-0} eng
	rm -f "$out"
	case $w in
	tcp)
		# Connects, then stops itself before its first read.
		/tmp/tcpload "$n" 4096 >"$out" &
		;;
	128m)
		uncache /mnt/big
		FIO=$FIO bash -c 'kill -STOP $$; exec $FIO --name=w --ioengine=sync --invalidate=0 --thread --disk_util=0 \
			--eta=never --output-format=json --output='"$out"' --filename=/mnt/big \
			--size=256m --rw=randread --bs=128m --number_ios='"$n --io_size=$((n * 128))m" &
		;;
	*)
		case $w in
		*-uncached) uncache /mnt/data ;;
		*) cat /mnt/data >/dev/null ;;
		esac
		# uring-*: fio's io_uring engine, 8 requests in flight (make bench's).
		eng=sync
		case $w in uring-*) eng="io_uring --iodepth=8" ;; esac
		FIO=$FIO bash -c 'kill -STOP $$; exec $FIO --name=w --ioengine='"$eng"' --invalidate=0 --thread --disk_util=0 \
			--eta=never --output-format=json --output='"$out"' --filename=/mnt/data \
			--size=64m --rw=randread --bs=4k --direct='"$direct --number_ios=$n --io_size=$((n * 4))k" &
		;;
	esac
	WL_PID=$!
	while [ "$(task_state $WL_PID)" != T ]; do poll_nap; done
}

# workload_calls OUT: the reads a stopped_workload made (fio's total_ios,
# tcpload's recv() calls).
workload_calls() {
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(j["calls"] if "calls" in j else j["jobs"][0]["read"]["total_ios"])' "$1"
}

# trace_start EVENT...: tracefs records the block events EVENT... into a
# fresh buffer from now on; trace_stop ends the recording; trace_count
# EVENT: how many times the kernel traced EVENT since trace_start.
IL_TRACEFS=/sys/kernel/tracing
trace_start() {
	local e
	echo 0 >$IL_TRACEFS/tracing_on
	echo >$IL_TRACEFS/trace
	for e in "$@"; do
		echo 1 >$IL_TRACEFS/events/block/$e/enable
	done
	echo 1 >$IL_TRACEFS/tracing_on
}
trace_stop() { echo 0 >$IL_TRACEFS/tracing_on; }
trace_count() { grep -c " $1: " $IL_TRACEFS/trace; }

# kretprobes_unsafe: where ftrace would jump, not call, to
# kprobe_ftrace_handler at its odd address (compat.h's
# IOLAYERS_KRETPROBE_UNSAFE), the module attaches no kretprobe.
kretprobes_unsafe() {
	local a
	a=$(awk '$3 == "kprobe_ftrace_handler" { print $1; exit }' /proc/kallsyms)
	[ -n "$a" ] && [ $((0x${a: -1} & 1)) -eq 1 ]
}
