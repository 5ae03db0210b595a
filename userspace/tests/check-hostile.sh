#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The reader on recordings a user did not make well, or someone made to
# harm: strings with markup and terminal control sequences, recordings cut
# short or filtered, many files, options that cannot go together.
#
# Usage: tests/check-hostile.sh READER FIXTURES_DIR
set -u
reader=$1
fixtures=$2
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

not_ok() { echo "not ok - $*"; failed=$((failed + 1)); }
ok() { echo "ok - $*"; }

# rec.py OUT [KIND]: a recording. hostile: its strings are markup and
# control sequences; files N: N files read once each.
cat >"$tmp/rec.py" <<'PY'
import json, sys
out, kind = sys.argv[1], sys.argv[2]
evil = "<script>alert(1)</script>&\x1b[2J\x1b]0;pwned\x07\x9b\u202e"
short = "<b>&\x1b[2J\x07\x9b\u202e"	# a comm, a disk: shorter than 32 bytes
hdr = {"iolayers_record": 1, "stream_version": 1, "format": 7, "kernel": "6.1",
       "module": "iolayers " + (evil if kind == "hostile" else "0.1.0"), "open_ns": 1,
       "settings": {"pid": "42", "comm": evil if kind == "hostile" else "",
                    "children": "0", "slow_us": "1"}, "command": []}
def read(seq, ino, comm="x", disk="nvme0n1"):
    return {"seq": seq, "cpu": 0, "tid": 42, "tgid": 42, "comm": comm, "syscall": "pread64",
            "fd": 3, "pos": 0, "req": 4096, "ret": 4096, "cache": "MISS",
            "start_ns": 1000 * seq, "syscall_ns": 500000, "vfs_ns": 400000, "fs_ns": 300000,
            "queue_ns": 1000, "service_ns": 200000, "device_ns": 190000, "vfs_off": 10,
            "fs_off": 20, "queue_off": 30, "issue_off": 40, "device_off": 50,
            "done_off": 60, "bios": 1, "rqs": 1, "bio_bytes": 4096, "rq_bytes": 4096,
            "ra_bytes": 0, "requeues": 0, "errors": 0, "ino": ino, "fs_dev": "259:0",
            "dev": "259:0", "disk": disk, "ndisks": 1, "missed": [], "sock": None,
            "sock_ns": None, "tcp_ns": None, "wait_ns": None, "sock_off": None,
            "tcp_off": None}
with open(out, "w") as f:
    f.write(json.dumps(hdr) + "\n")
    n = int(sys.argv[3]) if kind == "files" else 3
    for i in range(n):
        comm = short if kind == "hostile" else "x"
        if kind == "utf8":	# names in UTF-8, one with a backslash (escaped)
            comm = ["x", "\u00e9\u00e8\u00eadb", "a\\b"][i]
        r = read(i + 1, 100 + i, comm, short if kind == "hostile" else "nvme0n1")
        if kind == "hostile" and i == 2:	# the slowest: an AIO request, its opcode hostile
            r.update(syscall="aio:" + short, syscall_ns=None, vfs_ns=None, vfs_off=None,
                     uring_ns=None, aio_ns=600000, ur_attempts=1, ur_issue_ns=9000,
                     ur_issue_off=10, ur_where=["inline", short])
        if kind == "hostile" and i == 1:	# a page fault, with attempts no module writes
            r.update(syscall="fault", fd=-1, syscall_ns=None, vfs_ns=None, vfs_off=None,
                     fs_ns=None, fs_off=None, uring_ns=None, aio_ns=None, fault_ns=550000,
                     ur_attempts=1, ur_issue_ns=9000, ur_issue_off=10, ur_where=[short])
        f.write(json.dumps(r) + "\n")
    for i in range(n):
        path = "/mnt/" + (evil if kind == "hostile" else "f") + str(i)
        f.write(json.dumps({"file": {"fs_dev": "259:0", "ino": 100 + i, "path": path}}) + "\n")
    f.write(json.dumps({"end": True, "reads": n, "lost": 0}) + "\n")
PY

# 1. Strings: escaped on the terminal, in JSON, in the SVG (an AIO
# request's opcode and where too, in -t; a page fault's timeline, -f 2).
python3 "$tmp/rec.py" "$tmp/h.jsonl" hostile
for v in "" -H -t "-f 2" --slow --files -D -j; do
	# "-f 2": an option and its argument, two words.
	# shellcheck disable=SC2086
	if ! "$reader" --from "$tmp/h.jsonl" $v >"$tmp/out" 2>"$tmp/err" || [ -s "$tmp/err" ]; then
		not_ok "hostile strings: iolayers $v fails or warns: $(head -3 "$tmp/err")"
		continue
	fi
	# No C0 control but newline, no DEL, no C1 (a byte or UTF-8), no bidi override.
	if python3 - "$tmp/out" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
assert not any(c < 0x20 and c != 0x0a or c == 0x7f for c in b), "a control byte"
t = b.decode("utf-8")
assert not any(0x80 <= ord(c) <= 0x9f or ord(c) == 0x202e for c in t), "C1 or bidi"
PY
	then
		ok "hostile strings: iolayers ${v:-(table)} prints no control character"
	else
		not_ok "hostile strings: iolayers ${v:-(table)}: $(head -c 300 "$tmp/out" | od -c | head -5)"
	fi
done
"$reader" --from "$tmp/h.jsonl" --slow >"$tmp/out"
# \u009b in the recording is the byte 0x9b the recorder escaped (a C1 control).
[ "$(grep -cF '<b>&\x1b[2J\x07\x9b\u{202e}' "$tmp/out")" = 3 ] &&
	ok "hostile strings: --slow shows each read's comm escaped" ||
	not_ok "hostile strings: --slow: $(cat "$tmp/out")"
# A fault's timeline: its entry and return, no descriptor; the attempts
# its record should not hold are no request's (not shown, nothing null).
"$reader" --from "$tmp/h.jsonl" -f 2 >"$tmp/out"
grep -q '^fault #2: tid 42 .*, 4096 of 4096 bytes at 0, MISS$' "$tmp/out" &&
	grep -q '^└─ fault returns .*<- fault 550us$' "$tmp/out" &&
	! grep -qE 'attempt|fd |\(null\)|inline' "$tmp/out" &&
	ok "hostile strings: a fault's timeline shows no request's part" ||
	not_ok "hostile strings: a fault's timeline: $(cat "$tmp/out")"
# Columns stay aligned when a name is UTF-8 or escaped: printf's %-15s
# pads by bytes, and "\u00e9\u00e8\u00eadb" is 5 characters in 8 bytes.
python3 "$tmp/rec.py" "$tmp/u.jsonl" utf8
"$reader" --from "$tmp/u.jsonl" --slow >"$tmp/out"
if python3 - "$tmp/out" <<'PY'
import sys
rows = open(sys.argv[1], encoding="utf-8").read().splitlines()
head = rows[0].index("    TID")
cols = {r[head:head + 7] for r in rows[1:]}
assert len(rows) == 4 and cols == {"     42"}, (rows, cols)
PY
then
	ok "names: --slow's columns aligned for UTF-8 and escaped names"
else
	not_ok "names: --slow's columns: $(cat "$tmp/out")"
fi

if "$reader" --from "$tmp/h.jsonl" --svg "$tmp/h.svg" >/dev/null 2>"$tmp/err" &&
	python3 - "$tmp/h.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
tags = {e.tag.split("}")[-1] for e in root.iter()}
assert "script" not in tags, tags
text = "".join(root.itertext())
assert "<script>alert(1)</script>&" in text, text[:200]
PY
then
	ok "hostile strings: the SVG parses, holds <script> as text, no script element"
else
	not_ok "hostile strings: SVG: $(head -3 "$tmp/err")"
fi

# 2. Damaged recordings: read up to the damage, with a warning; --strict refuses.
python3 "$tmp/rec.py" "$tmp/g.jsonl" good
head -c -200 "$tmp/g.jsonl" >"$tmp/cut.jsonl"			# a recorder killed
grep -v '"end"' "$tmp/g.jsonl" >"$tmp/noend.jsonl"		# no trailer
grep -v '"seq": 2,' "$tmp/g.jsonl" >"$tmp/grep.jsonl"		# filtered
{ head -n 2 "$tmp/g.jsonl"; printf 'garbage\n'; tail -n +3 "$tmp/g.jsonl"; } >"$tmp/mid.jsonl"
check_damaged() {
	local name=$1 file=$2 reads=$3 pat=$4 rc
	"$reader" --from "$file" -j >"$tmp/dj" 2>"$tmp/de"
	rc=$?
	n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["flows"]))' \
		"$tmp/dj" 2>/dev/null)
	if [ $rc = 0 ] && [ "$n" = "$reads" ] && grep -qE "warning: .*$pat" "$tmp/de"; then
		ok "$name: $reads reads read, exit 0, warned: $(cut -c1-120 "$tmp/de")"
	else
		not_ok "$name: exit $rc, $n reads (want $reads): $(cat "$tmp/de")"
	fi
	"$reader" --from "$file" --strict -j >/dev/null 2>"$tmp/de"
	rc=$?
	[ $rc = 1 ] && grep -q "refused (--strict)" "$tmp/de" && ok "$name: --strict exits 1" ||
		not_ok "$name: --strict: exit $rc: $(cat "$tmp/de")"
}
check_damaged "a recording cut mid-line" "$tmp/cut.jsonl" 3 "cut short"
check_damaged "a recording without its trailer" "$tmp/noend.jsonl" 3 "no trailer"
check_damaged "a recording filtered by grep" "$tmp/grep.jsonl" 2 "counts 3 reads and 0 lost, the lines before it 2"
check_damaged "garbage in the middle" "$tmp/mid.jsonl" 1 "line 3 \(byte [0-9]+\): not a JSON object"
"$reader" --from "$tmp/g.jsonl" --strict -j >/dev/null 2>"$tmp/de" && [ ! -s "$tmp/de" ] &&
	ok "a whole recording: no warning, --strict reads it" || not_ok "a whole recording: $(cat "$tmp/de")"

# 3. Many files: the file table and --files in linear time. With a scan
# per file (quadratic), 200,000 files had not ended after 300 s; 150,000
# take about 6 s now. The bound is far above what a linear reader needs,
# not a performance figure.
python3 "$tmp/rec.py" "$tmp/many.jsonl" files 150000
if timeout 60 "$reader" --from "$tmp/many.jsonl" --files --rows 1000000 >"$tmp/mf" 2>"$tmp/err"; then
	n=$(grep -c ' /mnt/f[0-9]*$' "$tmp/mf")
	[ "$n" = 150000 ] && ok "--files: 150000 files, each once" ||
		not_ok "--files: $n file rows, want 150000"
else
	not_ok "--files on 150000 files did not end within 60 s: $(head -3 "$tmp/err")"
fi

# 4. A machine with many CPUs and disks: stats has rows per CPU (each
# buffer) and per disk. The reader held 96 counters and refused a 4-CPU
# machine's stats.
big=$tmp/bigbox
cp -r "$fixtures/6.12.117-stream" "$big"
python3 - "$big/stats" <<'PY'
import sys
p = sys.argv[1]
out = []
for line in open(p):
    w = line.split()
    if w and w[0] == "disk" and "major" in w:
        out.append(line)
        for d in range(16):
            out.append(f"vd{chr(97 + d)} 252 {16 * d} 10 40960 0 1000 10 900\n")
        continue
    if w and w[0] == "table" and "entries" in w:
        out.append(line)
        # A hostile saved tree: a row name with a quote and a backslash.
        out.append('ev"il\\x 1 1 8 2 0 0 0\n')
        continue
    if w and (w[0].startswith("stream/") or w[0].startswith("slow/")):
        if w[0] in ("stream/0", "slow/0"):
            kind = w[0].split("/")[0]
            for c in range(256):
                out.append(f"{kind}/{c} {c} 0 {c % 3} 1052640\n")
        continue
    out.append(line)
open(p, "w").write("".join(out))
PY
if "$reader" --root "$big" -j >"$tmp/big.json" 2>"$tmp/err" &&
	python3 - "$tmp/big.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
flat = json.dumps(j)
assert "stream/255" in flat and "slow/255" in flat, "per-CPU rows missing"
PY
then
	ok "256 CPUs and 17 disks: stats read, every CPU's buffer in -j"
else
	not_ok "256 CPUs and 17 disks: $(head -3 "$tmp/err")"
fi
"$reader" --root "$big" --prometheus >"$tmp/big.prom" 2>"$tmp/err" &&
	[ "$(grep -c '^iolayers_buffer_dropped_records_total{.*cpu="' "$tmp/big.prom")" -ge 512 ] &&
	ok "256 CPUs: --prometheus has a dropped-records series per CPU and buffer" ||
	not_ok "256 CPUs: --prometheus: $(grep -c 'buffer_dropped' "$tmp/big.prom") series; $(head -3 "$tmp/err")"
# Label values from the file escaped: the client library's parser reads
# the table named with a quote and a backslash back as it was.
if /usr/bin/python3 - "$tmp/big.prom" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
tables = set()
for fam in text_string_to_metric_families(open(sys.argv[1]).read()):
    for smp in fam.samples:
        if "table" in smp.labels:
            tables.add(smp.labels["table"])
assert 'ev"il\\x' in tables, tables
PY
then
	ok "--prometheus: a table named with a quote and a backslash, escaped"
else
	not_ok "--prometheus: hostile label values: $(grep 'ev' "$tmp/big.prom" | head -3)"
fi

# 5. Options: two views, a modifier without its view, two sources: exit 2, said.
while IFS='|' read -r args pat; do
	# shellcheck disable=SC2086
	"$reader" --from "$tmp/g.jsonl" ${args//@TMP@/$tmp} >"$tmp/o" 2>"$tmp/e"
	rc=$?
	[ $rc = 2 ] && grep -qF -- "$pat" "$tmp/e" && ok "iolayers $args: exit 2, '$pat'" ||
		not_ok "iolayers $args: exit $rc: $(cat "$tmp/e")"
done <<'EOF'
-j --svg @TMP@/never.svg|-j and --svg are two views
-j --prometheus|-j and --prometheus are two views
-H -t|-t and -H are two views
--slow --files|--slow and --files are two views
--root /tmp|--from and --root are two sources
-c MISS -j|-c selects the reads of
-m|-m and -u are the unit of -H and -D
-T|-T prints a time with each interval
EOF
[ ! -e "$tmp/never.svg" ] && ok "-j --svg: no SVG written" || not_ok "-j --svg wrote an SVG"
"$reader" --strict 2>"$tmp/e"; rc=$?
[ $rc = 2 ] && grep -q "goes with --from" "$tmp/e" && ok "--strict without --from: exit 2" ||
	not_ok "--strict alone: exit $rc"

# 6. -c in the table: only that state's section.
fx=$(ls -d "$fixtures"/*/ | head -n 1)
"$reader" --root "$fx" -c MISS >"$tmp/t" 2>&1
secs=$(grep -cE '^[A-Za-z]+: [0-9]+ reads$' "$tmp/t")
grep -qE '^MISS: [0-9]+ reads$' "$tmp/t" && [ "$secs" = 1 ] && ok "-c MISS: the table has MISS only" ||
	not_ok "-c MISS: $secs sections: $(head -20 "$tmp/t")"

# 7. --slow shows the ID that -f takes.
id=$("$reader" --root "$fx" --slow | awk 'NR == 2 { print $1 }')
"$reader" --root "$fx" -f "$id" >"$tmp/f" 2>&1 && grep -q "#$id:" "$tmp/f" &&
	ok "--slow's ID $id: -f $id shows that read" || not_ok "-f of --slow's ID '$id': $(head -2 "$tmp/f")"

# 8. --help: every example on its own line (argp wraps long ones to column 0).
"$reader" --help | awk '/^EXAMPLES:/ { on = 1; next } on && /^$/ { exit } on' >"$tmp/ex"
[ -s "$tmp/ex" ] && ! grep -qv '^    iolayers\|^    insmod' "$tmp/ex" &&
	ok "--help: $(wc -l <"$tmp/ex") examples, none wrapped" ||
	not_ok "--help: wrapped or missing examples: $(grep -v '^    ' "$tmp/ex")"

echo "check-hostile: $failed failed"
[ "$failed" = 0 ]
