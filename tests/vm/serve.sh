#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest test: `iolayers serve` scraped once a second by Debian's own
# prometheus server while fio reads (random 4 KiB reads of a file partly
# in the page cache: hits and misses). Three clients connect and send
# nothing the whole time, with room for two more connections only: every
# scrape still gets through. Checked with Prometheus's own queries: the
# target up in every scrape, no counter ever went backwards (resets()),
# the read counts the module's summary shows once fio has ended, and
# histogram_quantile() over the scraped histograms in the same log2
# bucket as the module's own percentiles (its summary's p50, p90, p99);
# a scrape passes promtool's check; OpenMetrics when asked; the exporter
# ends on SIGTERM.
set -u
. "$IOLAYERS_REPO/tests/vm/_lib.sh"

ip link set lo up || { echo "cannot bring lo up"; exit 1; }

ko=$IOLAYERS_MODULE_DIR/iolayers.ko
reader=$IOLAYERS_REPO/userspace/iolayers
port=9732
web=http://127.0.0.1:$port
prom=http://127.0.0.1:9090
work=/tmp/serve
rm -rf $work
mkdir -p $work

# query EXPR: the value of Prometheus's instant query EXPR (its first
# series; "none" when the answer has none). sed, not a JSON parser:
# python's start costs most of a second of the emulated CPU.
query() {
	local v
	v=$(curl -s --max-time 20 "$prom/api/v1/query" --data-urlencode "query=$1" |
		grep -o '"value":\[[^]]*\]' | head -n1 | sed 's/.*,"\(.*\)"\]$/\1/')
	echo "${v:-none}"
}

# same_bucket A B SCALE: two latencies (A times SCALE, and B, in ns) in
# the same log2 bucket, or within a factor 2 where they straddle a bound.
same_bucket() {
	awk -v a="$1" -v b="$2" -v k="$3" 'BEGIN {
		a *= k; b += 0
		if (a <= 0 || b <= 0) exit 1
		la = int(log(a) / log(2)); lb = int(log(b) / log(2))
		r = a > b ? a / b : b / a
		exit !(la == lb || r < 2) }'
}

# wait_until N CMD...: until CMD succeeds, N looks at most (poll_nap's 50 ms each).
wait_until() {
	local n=$1 i=0
	shift
	until "$@" || [ $i -ge "$n" ]; do
		poll_nap
		i=$((i + 1))
	done
}
up_is_1() { [ "$(query 'up{job="iolayers"}')" = 1 ]; }

# Hits and misses: a 64 MiB file, a quarter of it read before.
dd if=/dev/urandom of=/mnt/serve-data bs=1M count=64 status=none
sync
uncache /mnt/serve-data
dd if=/mnt/serve-data of=/dev/null bs=1M count=16 status=none

check "insmod comm=fio" insmod "$ko" comm=fio
"$reader" serve --web.listen-address 127.0.0.1:$port --web.max-connections 5 \
	--web.timeout 600 2>$work/serve.err &
srv=$!
wait_until 100 curl -s -o /dev/null "$web/"
check "serve answers / ($(tr '\n' ' ' <$work/serve.err))" curl -sf -o $work/index.html "$web/"
check "/ links the metrics" grep -q 'href="/metrics"' $work/index.html
code=$(curl -s -o /dev/null -w '%{http_code}' "$web/nothing")
check "an unknown path is 404 ($code)" test "$code" = 404
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$web/metrics")
check "POST is 405 ($code)" test "$code" = 405

# Three clients that connect and send nothing, for the whole test: of the
# five slots, the scrapes have two (a scrape that overran Prometheus's
# timeout may still be answered when the next one comes).
exec 7<>/dev/tcp/127.0.0.1/$port 8<>/dev/tcp/127.0.0.1/$port 9<>/dev/tcp/127.0.0.1/$port

cat >$work/prometheus.yml <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: iolayers
    static_configs:
      - targets: ['127.0.0.1:$port']
EOF
prometheus --config.file=$work/prometheus.yml --storage.tsdb.path=$work/tsdb \
	--web.listen-address=127.0.0.1:9090 --log.level=warn >$work/prometheus.log 2>&1 &
pr=$!
wait_until 1200 curl -sf -o /dev/null "$prom/-/ready"
check "prometheus is ready" curl -sf -o /dev/null "$prom/-/ready"
# Its first scrape: the target is up.
wait_until 600 up_is_1
check "the target is up" up_is_1

fio --name=serve --filename=/mnt/serve-data --size=64m --rw=randread --bs=4k \
	--ioengine=psync --invalidate=0 --runtime=15 --time_based --disk_util=0 \
	--output-format=json --output=$work/fio.json >/dev/null 2>&1
fio_reads=$(fio_json $work/fio.json read.total_ios)
# Two scrapes after fio's last read: the counters are final.
sleep 3
check "fio read ($fio_reads reads)" test "${fio_reads:-0}" -gt 1000

n=$(query 'count_over_time(up{job="iolayers"}[10m])')
lo=$(query 'min_over_time(up{job="iolayers"}[10m])')
check "every one of $n scrapes up (min $lo)" test "${n%.*}" -ge 12 -a "$lo" = 1
lo=$(query 'min_over_time(iolayers_up[10m])')
check "iolayers_up 1 in every scrape (min $lo)" test "$lo" = 1
r=$(query 'sum(resets(iolayers_reads_total[10m])) + sum(resets(iolayers_syscall_latency_seconds_count[10m])) + sum(resets(iolayers_syscall_latency_seconds_bucket[10m])) + sum(resets(iolayers_probe_hits_total[10m]))')
check "no counter went backwards across scrapes (resets: $r)" test "$r" = 0
g=$(query 'sum(increase(iolayers_reads_total[10m]))')
check "the read counters grew across the scrapes ($g)" test "${g%.*}" -gt 1000

sc=$(summary_field syscall count)
pc=$(query 'sum(iolayers_syscall_latency_seconds_count)')
check "scraped syscall count $pc == the module's summary $sc" test "$pc" = "$sc"
cache_counts
h=$(query 'sum(iolayers_reads_total{cache="hit"})')
m=$(query 'sum(iolayers_reads_total{cache="miss"})')
check "scraped hits $h == the summary's $HIT, misses $m == $MISS" \
	test "$h" = "$HIT" -a "$m" = "$MISS"
check "hits and misses both" test "$HIT" -gt 0 -a "$MISS" -gt 0
for p in 50 90 99; do
	mine=$(summary_field syscall p${p}_ns)
	theirs=$(query "histogram_quantile(0.$p, sum by (le) (iolayers_syscall_latency_seconds_bucket))")
	check "p$p: histogram_quantile $theirs s in the module's bucket of $mine ns" \
		same_bucket "$theirs" "$mine" 1e9
done
mine=$(query 'histogram_quantile(0.99, sum by (le) (iolayers_fs_latency_seconds_bucket{cache="miss"}))')
check "a p99 of the misses' fs time by PromQL ($mine s)" \
	awk -v v="$mine" 'BEGIN { exit !(v + 0 > 0 && v + 0 < 10) }'

# The silent clients held their slots all along: no connection was closed
# early while Prometheus alone scraped. Asked before this test's own
# scrapes below, which may come while Prometheus's take the free slots:
# then a silent client's is taken (the exporter's rule when full). A CI
# run with one free slot found one closed (a scrape then, its
# predecessor's answer still going out, or this test's own).
to=$(query 'max_over_time(iolayers_exporter_connection_timeouts_total[10m])')
check "no connection closed early in any of Prometheus's scrapes ($to)" test "$to" = 0
curl -s "$web/metrics" >$work/scrape.prom
check "promtool check metrics passes on a scrape" promtool check metrics <$work/scrape.prom
e=$(awk '$1 == "iolayers_exporter_scrape_errors_total" { print $2 }' $work/scrape.prom)
check "no scrape failed ($e)" test "$e" = 0
ct=$(curl -s -o $work/scrape.om -w '%{content_type}' \
	-H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' \
	"$web/metrics")
check "OpenMetrics when asked ($ct), ending in # EOF" \
	test "${ct%%;*}" = application/openmetrics-text -a "$(tail -n1 $work/scrape.om)" = "# EOF"

exec 7>&- 8>&- 9>&-
kill $pr
wait $pr 2>/dev/null
kill -TERM $srv
wait $srv
rc=$?
check "serve ends on SIGTERM with 0 ($rc)" test $rc = 0
check "rmmod" rmmod iolayers
rm -rf $work /mnt/serve-data
finish
