// SPDX-License-Identifier: GPL-2.0
/* Plain-C tests of the reader's parser on debugfs files saved from the module. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "../iolayers.h"
#include "../flatjson.h"
#include "../../include/uapi/iolayers.h"

static int failures;

/* `flows`' header of format 7, before the io_uring columns. */
#define FLOWS_HEADER_7 \
	"seq start_ns tid tgid comm syscall fd pos req ret cache syscall_ns vfs_ns fs_ns " \
	"queue_ns service_ns device_ns bios rqs bio_bytes rq_bytes ra_bytes " \
	"requeues errors vfs_off fs_off queue_off issue_off device_off done_off disk missed " \
	"ino fs_dev dev ndisks sock sock_ns tcp_ns wait_ns sock_off tcp_off"

#define EXPECT(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
		failures++;						\
	}								\
} while (0)

/* A snapshot saved from the real module on Debian's 6.1 kernel (module-basic). */
static void test_real_6_1(void)
{
	struct il_snapshot s;
	char err[256] = "";
	uint64_t v = 99;
	int l;

	EXPECT(il_read_snapshot("fixtures/6.1.0-57", &s, err, sizeof(err)) == 0);
	EXPECT(!strcmp(s.version, "0.1.0"));
	EXPECT(s.format == 4);
	EXPECT(s.pid == 181);
	EXPECT(s.comm[0] == 0 && s.children == 0);
	EXPECT(s.nprobes == 18);
	EXPECT(!strcmp(s.probes[0].name, "sys_enter"));
	EXPECT(!strcmp(s.probes[0].layer, "SYSCALL"));
	EXPECT(s.probes[0].hits == 2832);
	EXPECT(!strcmp(s.probes[2].name, "vfs_read"));
	EXPECT(!strcmp(s.probes[2].kind, "kretprobe"));
	EXPECT(!strcmp(s.probes[2].state, "attached"));
	EXPECT(s.probes[2].hits == 2832 && s.probes[2].nmissed == 0);
	EXPECT(!strcmp(s.probes[14].name, "nvme_setup_cmd"));
	EXPECT(!strcmp(s.probes[14].layer, "DEVICE"));
	EXPECT(s.probes[14].hits == 2823 && s.probes[14].nmissed == -1);
	/* The tables part: TABLE_COLUMN counters; then name value lines. */
	EXPECT(il_counter(&s, "task_high", &v) == 0 && v == 2);
	EXPECT(il_counter(&s, "bio_bound", &v) == 0 && v == 65536);
	EXPECT(il_counter(&s, "rq_expired", &v) == 0 && v == 0);
	EXPECT(il_counter(&s, "requests_bound", &v) == 0 && v == 2823);
	EXPECT(il_counter(&s, "readahead_pages", &v) == 0 && v == 0);
	EXPECT(il_counter(&s, "nope", &v) == -1);
	EXPECT(s.ncounters == 4 * 7 + 8);
	/* Histograms: the module's summary has the same counts and p50s. */
	EXPECT(s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_DIRECT].count == 2823);
	EXPECT(s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_OTHER].count == 9);
	EXPECT(il_hist_percentile(&s.hist[IOLAYERS_L_SERVICE][IOLAYERS_C_DIRECT], 50) == 76061);
	for (l = IOLAYERS_L_QUEUE; l <= IOLAYERS_L_DEVICE; l++)
		EXPECT(s.hist[l][IOLAYERS_C_DIRECT].bytes == 11563008);
	EXPECT(s.flows.n == 256);
	EXPECT(s.flows.n && s.flows.v[0].seq == 7278593 && s.flows.v[0].cache == IOLAYERS_C_DIRECT);
	EXPECT(s.flows.n && s.flows.v[0].lat[IOLAYERS_L_DEVICE] == 79750 && s.flows.v[0].done_off == 108040);
	EXPECT(s.flows.n && s.flows.v[0].start_ns == 18946277724LL && s.flows.v[0].pos == 24481792);
	EXPECT(s.slow.n == 2);
	/* Format 4 has no disk column. */
	EXPECT(s.flows.n && !strcmp(s.flows.v[0].disk, "-"));
	il_snapshot_free(&s);
}

/* Format 5 (the ERROR state) from Debian's 6.12; format 4 above still reads. */
static void test_real_6_12(void)
{
	struct il_snapshot s;
	uint64_t sum = 0, v;
	char err[256];
	int c;

	EXPECT(il_read_snapshot("fixtures/6.12.117", &s, err, sizeof(err)) == 0);
	EXPECT(s.format == 5);
	for (c = 0; c < IOLAYERS_NR_CACHE; c++)
		sum += s.hist[IOLAYERS_L_SYSCALL][c].count;
	EXPECT(sum == 591 && s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_DIRECT].count == 570);
	EXPECT(s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_ERROR].count == 0);
	/* The disks' section and the flows' disk column. */
	EXPECT(il_counter(&s, "nvme0n1_major", &v) == 0 && v == 259);
	EXPECT(il_counter(&s, "nvme0n1_requests", &v) == 0 && v == 570);
	EXPECT(il_counter(&s, "nvme0n1_device_rqs", &v) == 0 && v == 570);
	EXPECT(il_counter(&s, "disk_overflow", &v) == 0 && v == 0);
	EXPECT(s.flows.n > 0 && !strcmp(s.flows.v[0].disk, "nvme0n1"));
	il_snapshot_free(&s);
}

static int parse_string(int (*fn)(FILE *, struct il_snapshot *, char *, size_t),
			struct il_snapshot *s, const char *text, char *err, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!f)
		abort();
	ret = fn(f, s, err, len);
	fclose(f);
	return ret;
}

static int parse_flows_string(struct il_flows *fl, const char *text, char *err, size_t len)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!f) {
		/* fmemopen refuses an empty buffer: that is an empty file */
		fl->n = 0;
		fl->v = NULL;
		snprintf(err, len, "empty");
		return -1;
	}
	ret = il_parse_flows(f, fl, err, len);
	fclose(f);
	return ret;
}

static void test_failed_probe_state(void)
{
	struct il_snapshot s;
	char err[256];

	memset(&s, 0, sizeof(s));
	EXPECT(parse_string(il_parse_layers, &s,
			    "probe layer kind state\n"
			    "vfs_read VFS kprobe missing: -2\n"
			    "block_rq_issue BLOCK tracepoint failed: -16\n", err, sizeof(err)) == 0);
	EXPECT(s.nprobes == 2);
	EXPECT(!strcmp(s.probes[0].state, "missing") && s.probes[0].err == -2);
	EXPECT(!strcmp(s.probes[1].state, "failed") && s.probes[1].err == -16);
}

/* Bad input gives an error message, never a crash or a silent success. */
static void test_bad_input(void)
{
	static const char * const bad_stats[] = {
		"", "probe hits nmissed\nvfs_read\n", "probe hits nmissed\nvfs_read x 0\n",
		"probe hits nmissed\nnope 1 0\n", "probe hits nmissed\nvfs_read 1 zz\n",
		"hits\n", "probe hits nmissed\nvfs_read 1 0\n\ndrop_x\n",
		"probe hits nmissed\nvfs_read 1 0\n\ndrop_x 1 2\n",
		"probe hits nmissed calls timed timed_ns avg_ns\nvfs_read 1 0 5\n",
		"probe hits nmissed calls timed timed_ns avg_ns\nvfs_read 1 0 5 x 9 9\n",
		"probe hits nmissed calls timed timed_ns avg_ns\nvfs_read 1 0 -5 1 9 9\n", NULL,
	};
	struct il_snapshot s;
	char err[256];
	int i;

	for (i = 0; bad_stats[i]; i++) {
		memset(&s, 0, sizeof(s));
		parse_string(il_parse_layers, &s, "probe l k s\nvfs_read VFS kprobe attached\n",
			     err, sizeof(err));
		err[0] = 0;
		EXPECT(parse_string(il_parse_stats, &s, bad_stats[i], err, sizeof(err)) == -1);
		EXPECT(err[0] != 0);
		il_snapshot_free(&s);
	}
	EXPECT(il_read_snapshot("fixtures/garbled", &s, err, sizeof(err)) == -1);
	EXPECT(strstr(err, "layers: line 2 is garbled") != NULL);
	EXPECT(il_read_snapshot("fixtures/badformat", &s, err, sizeof(err)) == -1);
	EXPECT(strstr(err, "format 99") != NULL);
	EXPECT(il_read_snapshot("fixtures/none", &s, err, sizeof(err)) == -1);
	EXPECT(strstr(err, "No such file") != NULL);
}

/*
 * The self-accounting columns are found by name; a file without them
 * (format 4 before they came) leaves them -1; deltas subtract them.
 */
static void test_costs(void)
{
	static const char layers[] = "probe l k s\nvfs_read VFS kretprobe attached\n"
				     "sys_enter SYSCALL tracepoint attached\n";
	struct il_snapshot a, b, d;
	char err[256];

	memset(&a, 0, sizeof(a));
	EXPECT(parse_string(il_parse_layers, &a, layers, err, sizeof(err)) == 0);
	EXPECT(parse_string(il_parse_stats, &a,
			    "probe hits nmissed\nvfs_read 7 0\nsys_enter 9 -\n", err,
			    sizeof(err)) == 0);
	EXPECT(a.probes[0].hits == 7 && a.probes[0].calls == -1 && a.probes[1].timed_ns == -1);

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	EXPECT(parse_string(il_parse_layers, &a, layers, err, sizeof(err)) == 0);
	EXPECT(parse_string(il_parse_layers, &b, layers, err, sizeof(err)) == 0);
	EXPECT(parse_string(il_parse_stats, &a,
			    "probe hits nmissed calls timed timed_ns avg_ns\n"
			    "vfs_read 7 0 140 2 3000 1500\nsys_enter 9 - 300 4 2000 500\n", err,
			    sizeof(err)) == 0);
	EXPECT(a.probes[0].calls == 140 && a.probes[0].timed == 2 && a.probes[0].timed_ns == 3000);
	EXPECT(a.probes[1].nmissed == -1 && a.probes[1].calls == 300);
	EXPECT(parse_string(il_parse_stats, &b,
			    "probe hits nmissed calls timed timed_ns avg_ns\n"
			    "vfs_read 10 0 204 3 4000 1333\nsys_enter 9 - 300 4 2000 500\n", err,
			    sizeof(err)) == 0);
	il_snapshot_delta(&d, &b, &a);
	EXPECT(d.probes[0].hits == 3 && d.probes[0].calls == 64 && d.probes[0].timed == 1 &&
	       d.probes[0].timed_ns == 1000);
	EXPECT(d.probes[1].calls == 0 && d.probes[1].timed_ns == 0);

	/* Loaded without cost=1: zeros that mean "not counted". */
	memset(&a, 0, sizeof(a));
	EXPECT(parse_string(il_parse_layers, &a, layers, err, sizeof(err)) == 0);
	EXPECT(parse_string(il_parse_stats, &a,
			    "probe hits nmissed calls timed timed_ns avg_ns\n"
			    "vfs_read 7 0 0 0 0 -\nsys_enter 9 - 0 0 0 -\n\ncost 0\n", err,
			    sizeof(err)) == 0);
	EXPECT(a.probes[0].hits == 7 && a.probes[0].calls == -1 && a.probes[1].timed == -1 &&
	       a.probes[1].timed_ns == -1);
	il_snapshot_free(&a);
	memset(&a, 0, sizeof(a));
	EXPECT(parse_string(il_parse_layers, &a, layers, err, sizeof(err)) == 0);
	EXPECT(parse_string(il_parse_stats, &a,
			    "probe hits nmissed calls timed timed_ns avg_ns\n"
			    "vfs_read 7 0 140 2 3000 1500\nsys_enter 9 - 300 4 2000 500\n\ncost 1\n",
			    err, sizeof(err)) == 0);
	EXPECT(a.probes[0].calls == 140 && a.probes[1].timed == 4);
	il_snapshot_free(&a);
}

static void test_table(void)
{
	struct il_snapshot s;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	EXPECT(il_read_snapshot("fixtures/6.1.0-57", &s, err, sizeof(err)) == 0);
	il_view_probes(out, &s);
	il_view_table(out, &s, ~0U);
	fclose(out);
	EXPECT(strstr(buf, "following pid 181") != NULL);
	EXPECT(strstr(buf, "VFS      vfs_read                     kretprobe   attached           2832        0") != NULL);
	EXPECT(strstr(buf, "DEVICE   nvme_setup_cmd               tracepoint  attached           2823        -") != NULL);
	EXPECT(strstr(buf, "task_high                       2") != NULL);
	EXPECT(strstr(buf, "DIRECT: 2823 reads") != NULL);
	EXPECT(strstr(buf, "  service  I2C-like      2823     11563008   76.1us    179us   1.27ms   7.73ms  64.8%") != NULL);
	EXPECT(strstr(buf, "cache: HIT 0 (0.0%)  MISS 0 (0.0%)  PARTIAL 0 (0.0%)  DIRECT 2823 (100.0%)  other 9  UNK 0 (0.0%)") != NULL);
	il_snapshot_free(&s);
	free(buf);
}

static void test_hist_and_flows(void)
{
	struct il_snapshot s;
	struct il_flows fl;
	char err[256];

	memset(&s, 0, sizeof(s));
	EXPECT(parse_string(il_parse_hist, &s,
			    "layer syscall cache MISS count 3 sum_ns 7000 min_ns 1000 max_ns 3500 bytes 12288\n"
			    "                1024                 2047            2\n"
			    "                2048                 4095            1\n"
			    "layer fs cache HIT count 1 sum_ns 1 min_ns 1 max_ns 1 bytes 5\n"
			    "                   0                    1            1\n"
			    "layer fs cache ERROR count 1 sum_ns 9 min_ns 9 max_ns 9 bytes 0\n"
			    "                   8                   15            1\n",
			    err, sizeof(err)) == 0);
	EXPECT(s.hist[IOLAYERS_L_FS][IOLAYERS_C_ERROR].buckets[3] == 1);
	EXPECT(s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].count == 3);
	EXPECT(s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].buckets[10] == 2);
	EXPECT(s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].buckets[11] == 1);
	EXPECT(s.hist[IOLAYERS_L_FS][IOLAYERS_C_HIT].buckets[0] == 1);
	EXPECT(s.hist[IOLAYERS_L_VFS][IOLAYERS_C_HIT].count == 0);
	/* rank 2 of 3 is the last sample of bucket 10: 1024 + 1024 * 2 / 2 */
	EXPECT(il_hist_percentile(&s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS], 50) == 2048);
	/* clamped to the exact max; p0 is the first sample's place: 1024 + 1024 / 2 */
	EXPECT(il_hist_percentile(&s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS], 100) == 3500);
	EXPECT(il_hist_percentile(&s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS], 0) == 1536);

	EXPECT(parse_flows_string(&fl,
				  "seq start_ns tid tgid comm syscall fd pos req ret cache syscall_ns vfs_ns fs_ns "
				  "queue_ns service_ns device_ns bios rqs bio_bytes rq_bytes ra_bytes requeues errors "
				  "vfs_off fs_off queue_off issue_off device_off done_off future\n"
				  "7 100 5 5 fio read 3 -1 4096 4096 MISS 900 800 700 10 500 480 1 1 4096 4096 0 0 0 "
				  "50 90 120 130 610 630 x\n"
				  "8 200 5 5 fio pread64 3 8192 4096 4096 HIT 90 80 70 - - - 0 0 0 0 0 0 0 5 9 - - - - y\n"
				  "9 300 5 5 fio pread64 3 0 4096 -14 ERROR 90 80 70 - - - 0 0 0 0 0 0 0 5 9 - - - - z\n",
				  err, sizeof(err)) == 0);
	EXPECT(fl.n == 3 && fl.v[2].cache == IOLAYERS_C_ERROR && fl.v[2].ret == -14);
	EXPECT(fl.n == 3 && !strcmp(fl.v[2].disk, "-") && !strcmp(fl.v[2].missed, "-"));
	EXPECT(fl.n == 3 && fl.v[0].seq == 7 && fl.v[0].cache == IOLAYERS_C_MISS && fl.v[0].lat[IOLAYERS_L_DEVICE] == 480);
	EXPECT(fl.n == 3 && fl.v[1].pos == 8192 && fl.v[1].lat[IOLAYERS_L_QUEUE] == -1 && fl.v[1].queue_off == -1);
	EXPECT(fl.n == 3 && !strcmp(fl.v[1].syscall, "pread64") && fl.v[1].start_ns == 200);
	EXPECT(il_pick_flow(&fl, 0, -1) == &fl.v[0]);
	EXPECT(il_pick_flow(&fl, 8, -1) == &fl.v[1]);
	EXPECT(il_pick_flow(&fl, 0, IOLAYERS_C_HIT) == &fl.v[1]);
	EXPECT(il_pick_flow(&fl, 0, IOLAYERS_C_ERROR) == &fl.v[2]);
	EXPECT(il_pick_flow(&fl, 99, -1) == NULL);
	free(fl.v);
	/* Format 5's columns: the disk of the requests, the layers missed. */
	EXPECT(parse_flows_string(&fl,
				  "seq start_ns tid tgid comm syscall fd pos req ret cache syscall_ns vfs_ns fs_ns "
				  "queue_ns service_ns device_ns bios rqs bio_bytes rq_bytes ra_bytes requeues errors "
				  "vfs_off fs_off queue_off issue_off device_off done_off disk missed\n"
				  "7 100 5 5 fio read 3 -1 4096 4096 UNK 900 800 700 10 500 480 1 1 4096 4096 0 0 0 "
				  "50 - 120 130 610 630 sda+ vfs,fs\n",
				  err, sizeof(err)) == 0);
	EXPECT(fl.n == 1 && !strcmp(fl.v[0].disk, "sda+") && !strcmp(fl.v[0].missed, "vfs,fs"));
	EXPECT(fl.n == 1 && fl.v[0].fs_off == -1 && fl.v[0].cache == IOLAYERS_C_UNK);
	free(fl.v);
	/* Format 6's: the file, its file system, the disk's number, disks. */
	EXPECT(parse_flows_string(&fl, FLOWS_HEADER_7 "\n"
				  "7 100 5 5 fio read 3 8192 4096 4096 MISS 900 800 700 10 500 480 1 1 4096 4096 0 0 0 "
				  "50 90 120 130 610 630 sda+ - 12 8:1 8:0 2 - - - - - -\n"
				  "8 200 5 5 cat read 0 -1 4096 7 other 90 80 - - - - 0 0 0 0 0 0 0 5 - - - - - - - - - - 0"
				  " - - - - - -\n"
				  /* Format 7's: a TCP read that waited. */
				  "9 300 5 5 srv recvfrom 4 -1 1000 1000 WAITED 9000 - - - - - 0 0 0 0 0 0 0 - - - - - - "
				  "- - - - - 0 tcp 8800 8700 8000 200 300\n",
				  err, sizeof(err)) == 0);
	EXPECT(fl.n == 3 && fl.v[0].pos == 8192 && !strcmp(fl.v[0].disk, "sda+"));
	EXPECT(fl.n == 3 && fl.v[1].pos == -1 && fl.v[1].cache == IOLAYERS_C_OTHER);
	EXPECT(fl.n == 3 && !strcmp(fl.v[0].sock, "-") && fl.v[0].lat[IOLAYERS_L_SOCK] == -1);
	EXPECT(fl.n == 3 && !strcmp(fl.v[2].sock, "tcp") && fl.v[2].cache == IOLAYERS_C_WAITED &&
	       fl.v[2].lat[IOLAYERS_L_SOCK] == 8800 && fl.v[2].lat[IOLAYERS_L_TCP] == 8700 &&
	       fl.v[2].lat[IOLAYERS_L_WAIT] == 8000 && fl.v[2].sock_off == 200 &&
	       fl.v[2].tcp_off == 300 && !strcmp(fl.v[2].syscall, "recvfrom"));
	/* Format 7 has no io_uring columns: every read a syscall. */
	EXPECT(fl.n == 3 && fl.v[2].via == IOLAYERS_VIA_SYSCALL &&
	       fl.v[2].lat[IOLAYERS_L_SYSCALL] == 9000 && fl.v[2].lat[IOLAYERS_L_URING] == -1 &&
	       fl.v[2].ur_attempts == -1 && !strcmp(fl.v[2].ur_where, "-"));
	free(fl.v);
}

/*
 * An inode number past 2^63 (overlayfs's xino: its layer in the top
 * bits), as the module prints it in flows and files: the read shows no
 * file, the file's line is passed over; neither is an error (the reader
 * refused the whole tree before).
 */
static void test_big_inode(void)
{
	static const char files[] = "fs_dev ino path\n0:44 9223372036854775809 /lower/a\n"
				    "0:44 12 /upper/b\n";
	char flows[4096], *p, err[256];
	struct il_snapshot s;
	struct il_flows fl = { 0 };
	FILE *f = fopen("fixtures/6.12.117-stream/flows", "r");
	size_t n = f ? fread(flows, 1, sizeof(flows) - 1, f) : 0;
	int col = 0, i;

	if (f)
		fclose(f);
	flows[n] = '\0';
	/* The header's ino column, then the first read's value in it replaced. */
	p = strchr(flows, '\n');
	EXPECT(p != NULL);
	if (!p)
		return;
	for (i = 0; flows + i < p; i++)
		if (flows[i] == ' ' && !strncmp(flows + i + 1, "ino ", 4))
			break;
	for (; flows + i >= flows && flows + i < p; i--)
		col += flows[i] == ' ';
	*strchr(p + 1, '\n') = '\0';
	{
		char line[2048], *tok, *save = NULL;
		int k = 0;

		snprintf(line, sizeof(line), "%s", p + 1);
		p[1] = '\0';
		for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save), k++) {
			strcat(flows, k ? " " : "");
			strcat(flows, k == col ? "18446744073709551615" : tok);
		}
		strcat(flows, "\n");
	}
	f = fmemopen(flows, strlen(flows), "r");
	EXPECT(f && !il_parse_flows(f, &fl, err, sizeof(err)) && fl.n == 1 && fl.v[0].ino == -1);
	if (f)
		fclose(f);
	free(fl.v);
	memset(&s, 0, sizeof(s));
	f = fmemopen((void *)files, strlen(files), "r");
	EXPECT(f && !il_parse_files(f, &s, err, sizeof(err)) && s.files.n == 1 &&
	       il_file_path(&s, "0:44", 12) && !strcmp(il_file_path(&s, "0:44", 12), "/upper/b"));
	if (f)
		fclose(f);
	il_snapshot_free(&s);
}

static void test_bad_hist_and_flows(void)
{
	static const char * const bad_hist[] = {
		"   0 1 1\n",
		"layer nope cache HIT count 1 sum_ns 1 min_ns 1 max_ns 1 bytes 1\n0 1 1\n",
		"layer fs cache HIT count 2 sum_ns 1 min_ns 1 max_ns 1 bytes 1\n0 1 1\n",
		"layer fs cache HIT count 1 sum_ns 1 min_ns 1 max_ns 1 bytes 1\n3 7 1\n",
		"layer fs cache HIT count 1 sum_ns 1 min_ns 1 max_ns 1 bytes 1\n4 7 2\n",
		"layer fs cache HIT count 1 sum_ns 1 min_ns 9 max_ns 1 bytes 1\n0 1 1\n",
		"layer fs cache HIT count 1 sum_ns 1 min_ns 1 max_ns 1 bytes 1 extra\n0 1 1\n",
		NULL,
	};
	static const char * const bad_flows[] = {
		"", "seq tid\n",
		IOLAYERS_FLOWS_HEADER "\n1 2 3\n",
		IOLAYERS_FLOWS_HEADER "\n1 1 2 2 c read 3 -1 1 1 NOPE 1 1 1 - - - 0 0 0 0 0 0 0 1 1 - - - -\n",
		IOLAYERS_FLOWS_HEADER "\n1 1 2 2 c read 3 -1 1 1 HIT 1 1 1 - - - 0 0 0 0 0 0 0 1 1 - - - - vda - 9\n",
		IOLAYERS_FLOWS_HEADER "\n-1 1 2 2 c read 3 -1 1 1 HIT 1 1 1 - - - 0 0 0 0 0 0 0 1 1 - - - -\n",
		IOLAYERS_FLOWS_HEADER "\n1 1 2 2 c read 3 -1 1 1x HIT 1 1 1 - - - 0 0 0 0 0 0 0 1 1 - - - -\n",
		NULL,
	};
	struct il_snapshot s;
	struct il_flows fl;
	char err[256];
	int i;

	for (i = 0; bad_hist[i]; i++) {
		memset(&s, 0, sizeof(s));
		err[0] = 0;
		EXPECT(parse_string(il_parse_hist, &s, bad_hist[i], err, sizeof(err)) == -1);
		EXPECT(err[0] != 0);
	}
	for (i = 0; bad_flows[i]; i++) {
		err[0] = 0;
		EXPECT(parse_flows_string(&fl, bad_flows[i], err, sizeof(err)) == -1);
		EXPECT(err[0] != 0);
		free(fl.v);
	}
}

static int parse_recording_string(struct il_snapshot *s, const char *text, char *err,
				  size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	memset(s, 0, sizeof(*s));
	ret = il_parse_recording(f, s, err, errlen);
	fclose(f);
	return ret;
}

/* @tmpl with @1 to @4 replaced by @args[0] to [3], into @out. */
static void subst(char *out, size_t size, const char *tmpl, const char *const *args)
{
	size_t o = 0, n;
	const char *a;

	for (; *tmpl && o + 1 < size; tmpl++) {
		if (tmpl[0] == '@' && tmpl[1] >= '1' && tmpl[1] <= '4') {
			a = args[tmpl[1] - '1'];
			n = strlen(a);
			if (o + n >= size)
				break;
			memcpy(out + o, a, n);
			o += n;
			tmpl++;
		} else {
			out[o++] = *tmpl;
		}
	}
	out[o] = '\0';
}

/* A recording (iolayers record) read back: flows, histograms, losses. */
static void test_recording(void)
{
	static const char head[] =
		"{\"iolayers_record\": 1, \"stream_version\": 1, \"format\": 6, \"kernel\": \"k\", "
		"\"module\": \"iolayers 0.1.0\", \"open_ns\": 1, \"settings\": {\"slow_us\": \"1\"}, "
		"\"command\": []}\n";
	/* Refused: no header to read anything by. */
	static const char * const bad[] = {
		"",
		"{\"seq\": 1}\n",
		"[1]\n",
		"{\"iolayers_record\": 2, \"settings\": {}, \"format\": 6, \"module\": \"x\"}\n",
		NULL,
	};
	/* start_ns, syscall_ns, vfs_off */
	static const char rd[] =
		"{\"seq\": 7, \"cpu\": 0, \"tid\": 42, \"tgid\": 42, \"comm\": \"x\", "
		"\"syscall\": \"pread64\", \"fd\": 3, \"pos\": 8192, \"req\": 4096, \"ret\": 4096, "
		"\"cache\": \"MISS\", \"start_ns\": %s, \"syscall_ns\": %s, \"vfs_ns\": 400000, "
		"\"fs_ns\": 300000, \"queue_ns\": 1000, \"service_ns\": 200000, "
		"\"device_ns\": 190000, \"vfs_off\": %s, \"fs_off\": 20, \"queue_off\": 30, "
		"\"issue_off\": 40, \"device_off\": 50, \"done_off\": 60, \"bios\": 1, "
		"\"rqs\": 1, \"bio_bytes\": 4096, \"rq_bytes\": 4096, \"ra_bytes\": 0, "
		"\"requeues\": 0, \"errors\": 0, \"ino\": 12, \"fs_dev\": \"259:0\", "
		"\"dev\": \"259:0\", \"disk\": \"nvme0n1\", \"ndisks\": 1, \"missed\": []}\n";
	/*
	 * Read up to the damage, with a warning: what follows the header
	 * (@1), a good read (@2), a read with extreme values (@3, @4). Not
	 * printf's %N$: with _FORTIFY_SOURCE it refuses one left unused.
	 */
	static const struct {
		const char *text;
		int reads;
		int64_t lost;
		const char *warning;
	} damaged[] = {
		{ "@1{\"lost\": 1, \"lost\": 2}\n", 0, 0, "line 2 (byte 1" },
		{ "@1{\"seq\": 1, \"tid\": 1}\n", 0, 0, "not a read's record" },
		{ "@1{\"what\": 1}\n", 0, 0, "1 objects of no kind" },
		{ "@1{\"what\": 1}\n", 0, 0, "no trailer after line 2" },
		{ "@1{\"end\": true, \"reads\": 0, \"lost\": 0}\n{\"lost\": 1}\n", 0, 0,
		  "a line after the trailer" },
		{ "@1{\"lost\": 1}\nnot json\n", 0, 1, "line 3 (byte" },
		{ "@1{\"file\": {\"fs_dev\": \"8:1\", \"ino\": -4, \"path\": \"/x\"}}\n", 0, 0,
		  "not a file's record" },
		/* A recorder killed mid-line. */
		{ "@1@2{\"seq\": 8, \"cpu\": 0, \"tid\"", 1, 0, "cut short" },
		/* grep -v MISS: the trailer counts a read no longer there. */
		{ "@1{\"end\": true, \"reads\": 1, \"lost\": 0}\n", 0, 0,
		  "counts 1 reads and 0 lost, the lines before it 0 and 0" },
		/* Extreme values: refused before any sum can overflow. */
		{ "@1@2@3", 1, 0, "numbers no kernel writes" },
		{ "@1@2@4", 1, 0, "numbers no kernel writes" },
		{ "@1{\"lost\": 9223372036854775807}\n", 0, 0, "lost records no kernel" },
		{ "@1{\"lost\": 4611686018427387903}\n{\"lost\": 4611686018427387903}\n", 0,
		  4611686018427387903LL, "lost records no kernel" },
		{ NULL },
	};
	char good[1024], ext1[1024], ext2[1024];
	uint64_t v = 0;
	struct il_snapshot s;
	char err[256], text[4096];
	FILE *f = fopen("recordings/small.jsonl", "r");
	int i;

	EXPECT(f != NULL);
	if (!f)
		return;
	memset(&s, 0, sizeof(s));
	EXPECT(il_parse_recording(f, &s, err, sizeof(err)) == 0);
	fclose(f);
	EXPECT(s.format == 6 && s.pid == 42 && !strcmp(s.version, "0.1.0"));
	EXPECT(!s.warning[0]);
	EXPECT(s.flows.n == 2 && s.flows.v[0].seq == 7 && s.flows.v[0].pos == 8192);
	EXPECT(s.flows.n == 2 && s.flows.v[1].lat[IOLAYERS_L_QUEUE] == -1 &&
	       !strcmp(s.flows.v[1].missed, "fs") && !strcmp(s.flows.v[1].disk, "-"));
	EXPECT(s.slow.n == 1 && s.slow.v[0].seq == 7);
	EXPECT(s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].count == 1 &&
	       s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].buckets[18] == 1 &&
	       s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].bytes == 4096);
	EXPECT(s.hist[IOLAYERS_L_DEVICE][IOLAYERS_C_HIT].count == 0 &&
	       s.hist[IOLAYERS_L_DEVICE][IOLAYERS_C_MISS].sum_ns == 190000);
	EXPECT(il_counter(&s, "stream_lost", &v) == 0 && v == 3);
	EXPECT(s.files.n == 1 && s.flows.n == 2 && s.flows.v[0].ino == 12 &&
	       !strcmp(il_file_path(&s, s.flows.v[0].fs_dev, s.flows.v[0].ino) ?: "", "/mnt/a file"));
	il_snapshot_free(&s);
	for (i = 0; bad[i]; i++) {
		snprintf(text, sizeof(text), bad[i], head);
		err[0] = 0;
		EXPECT(parse_recording_string(&s, text, err, sizeof(err)) == -1);
		EXPECT(err[0] != 0);
		il_snapshot_free(&s);
	}
	snprintf(good, sizeof(good), rd, "100", "500000", "10");
	snprintf(ext1, sizeof(ext1), rd, "9223372036854775000", "9000", "10");
	snprintf(ext2, sizeof(ext2), rd, "100", "500000", "9223372036854775806");
	for (i = 0; damaged[i].text; i++) {
		uint64_t hist_reads;

		subst(text, sizeof(text), damaged[i].text, (const char *[]){ head, good, ext1, ext2 });
		err[0] = 0;
		v = 0;
		EXPECT(parse_recording_string(&s, text, err, sizeof(err)) == 0);
		hist_reads = s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].count;
		if (s.flows.n != damaged[i].reads || (int)hist_reads != damaged[i].reads ||
		    il_counter(&s, "stream_lost", &v) || (int64_t)v != damaged[i].lost ||
		    !strstr(s.warning, damaged[i].warning)) {
			printf("damaged recording %d: %d reads (histogram %d), lost %llu, warning "
			       "'%s'; want %d, %lld, '%s'\n", i, s.flows.n, (int)hist_reads,
			       (unsigned long long)v, s.warning, damaged[i].reads,
			       (long long)damaged[i].lost, damaged[i].warning);
			failures++;
		}
		il_snapshot_free(&s);
	}
}

/* Strings for a terminal and for XML: nothing a terminal or a parser acts on survives. */
static void test_escape(void)
{
	/* ESC [2J, a title set (OSC ... BEL), C1 CSI as one byte and as UTF-8, RLO, bad UTF-8. */
	static const char hostile[] = "a\x1b[2J\x1b]0;pwn\x07\x9b\xc2\x9b\xe2\x80\xae"
				      "\\\xc3\xa9\xed\xa0\x80\xf0\x9f\x98\x80z";
	char t[IL_TERM_LEN(sizeof(hostile))], small[6], *buf = NULL;
	size_t len = 0;
	FILE *m;

	il_term_str(t, sizeof(t), hostile);
	EXPECT(!strcmp(t, "a\\x1b[2J\\x1b]0;pwn\\x07\\x9b\\u{009b}\\u{202e}\\\\\xc3\xa9"
		       "\\xed\\xa0\\x80\xf0\x9f\x98\x80z"));
	/* Cut at a whole escape, never inside one. */
	il_term_str(small, sizeof(small), "ab\x1b");
	EXPECT(!strcmp(small, "ab"));
	il_term_str(small, sizeof(small), "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	EXPECT(!strcmp(small, "\xc3\xa9\xc3\xa9"));
	m = open_memstream(&buf, &len);
	EXPECT(m != NULL);
	if (!m)
		return;
	il_xml_str(m, "<script>&\"'\x01\xff\xc3\xa9", SIZE_MAX);
	fputc('|', m);
	il_xml_str(m, "\xc3\xa9\xc3\xa9" "abc", 2);
	/* A tab (a comm may hold one: the fuzzer's SVG had it raw). */
	fputc('|', m);
	il_xml_str(m, "a\tb", SIZE_MAX);
	fclose(m);
	EXPECT(!strcmp(buf, "&lt;script&gt;&amp;&quot;&#39;&#xFFFD;&#xFFFD;\xc3\xa9|\xc3\xa9\xc3\xa9|a&#9;b"));
	free(buf);
}

/* The JSON writer: numbers at their limits, escapes that parse back. */
static void test_json_writer(void)
{
	static const char odd[] = "a\"b\\c\n\x01\xe9\x7f/z";
	char buf[256], *p;
	json_error_t jerr;
	json_t *j;

	p = il_put(buf, "[");
	p = il_put_u64(p, UINT64_MAX);
	p = il_put_i64(il_put(p, ", "), INT64_MIN);
	p = il_put_i64(il_put(p, ", "), 0);
	p = il_put_str(il_put(p, ", "), odd, sizeof(odd));
	p = il_put_str(il_put(p, ", "), "abcdef", 3);
	p = il_put(p, "]");
	*p = '\0';
	EXPECT(!strcmp(buf, "[18446744073709551615, -9223372036854775808, 0, "
		       "\"a\\\"b\\\\c\\u000a\\u0001\\u00e9\\u007f/z\", \"abc\"]"));
	j = json_loads(buf, JSON_DECODE_INT_AS_REAL, &jerr);
	EXPECT(j && json_array_size(j) == 5);
	if (j) {
		/* \u00e9 reads back as U+00E9 (two bytes of UTF-8). */
		EXPECT(!strcmp(json_string_value(json_array_get(j, 3)),
			       "a\"b\\c\n\x01\xc3\xa9\x7f/z"));
		EXPECT(!strcmp(json_string_value(json_array_get(j, 4)), "abc"));
		json_decref(j);
	}
	EXPECT(il_put_str(buf, odd, sizeof(odd)) - buf <= IL_JSON_STR_MAX((long)strlen(odd)));
}

/*
 * Counts near 2^64 (a saved tree can say anything): a percentile stays in
 * its bucket, and merged histograms stop at UINT64_MAX instead of
 * wrapping to a small count.
 */
static void test_hist_limits(void)
{
	struct il_hist a = { 0 }, b = { 0 };

	a.count = 1ULL << 63;
	a.buckets[10] = a.count;	/* [1024, 2047] */
	a.min_ns = 1024;
	a.max_ns = 2047;
	a.sum_ns = UINT64_MAX - 5;
	/* rank 2^62 and 0.99 * 2^63 of 2^63 in [1024, 2047] */
	EXPECT(il_hist_percentile(&a, 50) == 1536);
	EXPECT(il_hist_percentile(&a, 99) == 2037);
	b = a;
	il_hist_merge(&a, &b);
	EXPECT(a.count == UINT64_MAX);
	EXPECT(a.sum_ns == UINT64_MAX);
	EXPECT(a.buckets[10] == UINT64_MAX);
	EXPECT(il_hist_percentile(&a, 50) == 1536);

	/*
	 * Bucket 62 ([2^62, 2^63)) holding 3e18 samples: the interpolation's
	 * product (width 2^62 times a rank past 10^18) needs up to 124 bits,
	 * done without 128-bit integers; the values are Python's exact ones.
	 */
	memset(&a, 0, sizeof(a));
	a.count = 3000000000000000000ULL;
	a.buckets[62] = a.count;
	a.min_ns = 1ULL << 62;
	a.max_ns = UINT64_MAX;
	EXPECT(il_hist_percentile(&a, 50) == 6917529027641081856ULL);
	EXPECT(il_hist_percentile(&a, 99) == 9177255176670501928ULL);
	EXPECT(il_hist_percentile(&a, 37) == 6318009845245521428ULL);
	/* A divisor past 2^63: the long division's remainder overflows. */
	a.count = UINT64_MAX;
	a.buckets[62] = a.count;
	EXPECT(il_hist_percentile(&a, 50) == 6917529027641081856ULL);
	EXPECT(il_hist_percentile(&a, 99) == 9177255176670501928ULL);
	EXPECT(il_hist_percentile(&a, 37) == 6318009845245521428ULL);
	/* The last bucket's end is 2^64: p100 there is the max, not 0. */
	memset(&a, 0, sizeof(a));
	a.count = 4;
	a.buckets[63] = 4;
	a.min_ns = 1ULL << 63;
	a.max_ns = UINT64_MAX;
	EXPECT(il_hist_percentile(&a, 100) == UINT64_MAX);
}

/* A view's output, into a buffer to free. */
#define VIEW(buf, view, ...) do {					\
	size_t len_ = 0;						\
	FILE *m_ = open_memstream(&(buf), &len_);			\
									\
	if (!m_)							\
		abort();						\
	view(m_, __VA_ARGS__);						\
	fclose(m_);							\
} while (0)

/*
 * A recording of @head, the reads @r1 to @r3 and its trailer, into @s: 1
 * when it is read whole, without a warning.
 */
static int parse_reads(struct il_snapshot *s, const char *head, const char *r1, const char *r2,
		       const char *r3)
{
	char text[8192], err[256] = "";

	snprintf(text, sizeof(text), "%s%s%s%s{\"end\": true, \"reads\": 3, \"lost\": 0}\n", head,
		 r1, r2, r3);
	return !parse_recording_string(s, text, err, sizeof(err)) && !s->warning[0] &&
	       s->flows.n == 3;
}

/* `flows` of this reader's header and @lines into @fl: il_parse_flows()'s return. */
static int parse_lines(struct il_flows *fl, const char *lines, char *err, size_t len)
{
	char text[8192];

	snprintf(text, sizeof(text), "%s\n%s", IOLAYERS_FLOWS_HEADER, lines);
	err[0] = '\0';
	return parse_flows_string(fl, text, err, len);
}

/*
 * Whether a recording of @head, the good read @r1 and the read @r2 is
 * read up to @r2 (line 3), which is not a read's record (damage).
 */
static int damaged_at_line_3(const char *head, const char *r1, const char *r2)
{
	char text[8192], err[256] = "";
	struct il_snapshot s;
	int ok;

	snprintf(text, sizeof(text), "%s%s%s", head, r1, r2);
	ok = !parse_recording_string(&s, text, err, sizeof(err)) && s.flows.n == 1 &&
	     strstr(s.warning, "line 3") && strstr(s.warning, "not a read's record");
	il_snapshot_free(&s);
	return ok;
}

/*
 * Whether @f is a read of kind @via (enum iolayers_via) whose whole
 * latency, @ns, is in its kind's layer only: every other kind's -1.
 */
static int of_kind(const struct il_flow *f, int via, int64_t ns)
{
	int v;

	if (f->via != via || il_flow_top(f) != iolayers_via_layer(via) || il_flow_ns(f) != ns)
		return 0;
	for (v = 0; v < IL_NR_VIA; v++)
		if (v != via && f->lat[iolayers_via_layer(v)] != -1)
			return 0;
	return 1;
}

/* A format 8 recording's header, and its reads. */
static const char ur_head[] =
	"{\"iolayers_record\": 1, \"stream_version\": 2, \"format\": 8, \"kernel\": \"k\", "
	"\"module\": \"iolayers 0.1.0\", \"open_ns\": 1, \"settings\": {\"slow_us\": \"1\"}, "
	"\"command\": []}\n";
/* seq, syscall, syscall_ns, uring_ns (format 8) and aio_ns (9), the ur_* members */
static const char ur_rd[] =
	"{\"seq\": %d, \"cpu\": 0, \"tid\": 42, \"tgid\": 42, \"comm\": \"x\", "
	"\"syscall\": \"%s\", \"fd\": 3, \"pos\": 8192, \"req\": 4096, \"ret\": 4096, "
	"\"cache\": \"MISS\", \"start_ns\": 100, \"syscall_ns\": %s, \"vfs_ns\": null, "
	"\"fs_ns\": 300000, \"queue_ns\": 1000, \"service_ns\": 200000, "
	"\"device_ns\": 190000, \"sock_ns\": null, \"tcp_ns\": null, \"wait_ns\": null"
	"%s, \"vfs_off\": null, \"fs_off\": 20, \"queue_off\": 30, "
	"\"issue_off\": 40, \"device_off\": 50, \"done_off\": 60, \"bios\": 1, "
	"\"rqs\": 1, \"bio_bytes\": 4096, \"rq_bytes\": 4096, \"ra_bytes\": 0, "
	"\"requeues\": 0, \"errors\": 0, \"ino\": 12, \"fs_dev\": \"259:0\", "
	"\"dev\": \"259:0\", \"disk\": \"nvme0n1\", \"ndisks\": 1, \"missed\": [], "
	"\"sock\": null, \"sock_off\": null, \"tcp_off\": null%s}\n";
static const char ur_none[] = ", \"ur_attempts\": null, \"ur_issue_ns\": null, "
			      "\"ur_issue_off\": null, \"ur_where\": null";
static const char ur_two[] = ", \"ur_attempts\": 2, \"ur_issue_ns\": 7000, "
			     "\"ur_issue_off\": 10, \"ur_where\": [\"inline\", \"taskwork\"]";

/*
 * Format 8: io_uring read requests. `flows` names one "io_uring:OP" and
 * shows its whole latency (submission to CQE) in syscall_ns; the reader
 * keeps it in the uring layer, never the syscall's, as the module's
 * histograms do; the per-read views sort and end it by that latency.
 */
static void test_uring(void)
{
	static const char line_syscall[] =
		"7 100 5 5 fio pread64 3 8192 4096 4096 MISS 900 800 700 10 500 480 1 1 4096 4096 0 0 0 "
		"50 90 120 130 610 630 sda - 12 8:1 8:0 1 - - - - - - - - - -\n";
	static const char line_read[] =
		"8 200 5 5 fio io_uring:READ 3 0 4096 4096 MISS 2000 - 1500 10 900 880 1 1 4096 4096 0 0 0 "
		"- 300 400 410 1300 1320 sda - 12 8:1 8:0 1 - - - - - - 2 700 60 inline,taskwork\n";
	/* An opcode the uapi header does not name; no attempt began. */
	static const char line_op[] =
		"9 300 5 5 fio io_uring:7 4 -1 100 -22 other 50 - - - - - 0 0 0 0 0 0 0 "
		"- - - - - - - - - - - 0 - - - - - - 0 - - -\n";
	static const char * const bad[] = {
		/* a request's latency not shown */
		"8 200 5 5 fio io_uring:READ 3 0 4096 4096 HIT - - - - - - 0 0 0 0 0 0 0 "
		"- - - - - - - - - - - 0 - - - - - - 1 - - inline\n",
		/* more attempts than the module counts */
		"8 200 5 5 fio io_uring:READ 3 0 4096 4096 HIT 9 - - - - - 0 0 0 0 0 0 0 "
		"- - - - - - - - - - - 0 - - - - - - 256 - - inline\n",
		NULL,
	};
	char text[8192], r1[2048], r2[2048], r3[2048], err[256], *buf = NULL;
	struct il_snapshot s;
	struct il_flows fl;
	const struct il_flow *f;
	json_error_t jerr;
	json_t *j, *jf;
	int i;

	EXPECT(parse_flows_string(&fl, IOLAYERS_FLOWS_HEADER "\n", err, sizeof(err)) == 0 &&
	       fl.n == 0);
	free(fl.v);
	snprintf(text, sizeof(text), "%s\n%s%s%s", IOLAYERS_FLOWS_HEADER, line_syscall, line_read,
		 line_op);
	EXPECT(parse_flows_string(&fl, text, err, sizeof(err)) == 0);
	EXPECT(fl.n == 3);
	if (fl.n == 3) {
		EXPECT(fl.v[0].via == IOLAYERS_VIA_SYSCALL && fl.v[0].lat[IOLAYERS_L_SYSCALL] == 900 &&
		       fl.v[0].lat[IOLAYERS_L_URING] == -1 && fl.v[0].ur_attempts == -1 &&
		       fl.v[0].ur_issue_ns == -1 && !strcmp(fl.v[0].ur_where, "-"));
		/* The request: named, its latency in the uring layer only. */
		EXPECT(fl.v[1].via == IOLAYERS_VIA_URING && !strcmp(fl.v[1].syscall, "io_uring:READ"));
		EXPECT(fl.v[1].lat[IOLAYERS_L_URING] == 2000 && fl.v[1].lat[IOLAYERS_L_SYSCALL] == -1);
		EXPECT(fl.v[1].lat[IOLAYERS_L_VFS] == -1 && fl.v[1].lat[IOLAYERS_L_FS] == 1500 &&
		       fl.v[1].lat[IOLAYERS_L_DEVICE] == 880 && fl.v[1].vfs_off == -1);
		EXPECT(fl.v[1].ur_attempts == 2 && fl.v[1].ur_issue_ns == 700 &&
		       fl.v[1].ur_issue_off == 60 && !strcmp(fl.v[1].ur_where, "inline,taskwork"));
		EXPECT(il_flow_top(&fl.v[1]) == IOLAYERS_L_URING && il_flow_ns(&fl.v[1]) == 2000);
		EXPECT(fl.v[2].via == IOLAYERS_VIA_URING && !strcmp(fl.v[2].syscall, "io_uring:7") &&
		       fl.v[2].lat[IOLAYERS_L_URING] == 50 && fl.v[2].ret == -22 &&
		       fl.v[2].ur_attempts == 0 && fl.v[2].ur_issue_off == -1 &&
		       !strcmp(fl.v[2].ur_where, "-"));
		/* The slowest: the request, by its whole latency. */
		EXPECT(il_pick_flow(&fl, 0, -1) == &fl.v[1]);
		VIEW(buf, il_view_timeline, &fl.v[1]);
		EXPECT(strstr(buf, "io_uring:READ #8: tid 5 fio, fd 3, 4096 of 4096 bytes at 0, MISS\n"));
		EXPECT(strstr(buf, "submit  ") && strstr(buf, "CQE  ") && !strstr(buf, "sys_e"));
		EXPECT(strstr(buf, "<- 2 attempts, 700ns issuing, inline,taskwork\n"));
		EXPECT(strstr(buf, "(+2.00us)  <- io_uring 2.00us\n"));
		free(buf);
		VIEW(buf, il_view_timeline, &fl.v[0]);
		EXPECT(strstr(buf, "pread64() #7:") && strstr(buf, "sys_exit") &&
		       strstr(buf, "<- syscall 900ns\n"));
		free(buf);
		VIEW(buf, il_view_slow, &fl);
		EXPECT(strstr(buf, "    uring      aio"));
		free(buf);
	}
	free(fl.v);
	for (i = 0; bad[i]; i++) {
		EXPECT(parse_lines(&fl, bad[i], err, sizeof(err)) == -1 && strstr(err, "line 2"));
		free(fl.v);
	}

	/* The module's histograms: a uring row of `hist`. */
	memset(&s, 0, sizeof(s));
	EXPECT(parse_string(il_parse_hist, &s,
			    "layer uring cache HIT count 2 sum_ns 3000 min_ns 1000 max_ns 2000 bytes 8192\n"
			    "                 512                 1023            1\n"
			    "                1024                 2047            1\n",
			    err, sizeof(err)) == 0);
	EXPECT(s.hist[IOLAYERS_L_URING][IOLAYERS_C_HIT].count == 2 &&
	       s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_HIT].count == 0);
	EXPECT(il_cache_reads(&s, IOLAYERS_C_HIT) == 2);

	/* A format 8 tree (hand-made, as the module writes one). */
	EXPECT(il_read_snapshot("fixtures/handmade-8-uring", &s, err, sizeof(err)) == 0);
	EXPECT(s.format == 8);
	EXPECT(s.hist[IOLAYERS_L_URING][IOLAYERS_C_MISS].count == 1 &&
	       s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].count == 1 &&
	       s.hist[IOLAYERS_L_URING][IOLAYERS_C_DIRECT].count == 2 &&
	       s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_DIRECT].count == 0);
	EXPECT(il_cache_reads(&s, IOLAYERS_C_MISS) == 2 && il_cache_reads(&s, IOLAYERS_C_DIRECT) == 2);
	EXPECT(s.flows.n == 10 && s.slow.n == 2);
	if (s.flows.n == 10) {
		f = &s.flows.v[4];
		EXPECT(f->seq == 1320 && f->via == IOLAYERS_VIA_URING &&
		       f->lat[IOLAYERS_L_URING] == 2412000 && f->lat[IOLAYERS_L_SYSCALL] == -1);
		EXPECT(il_pick_flow(&s.flows, 0, -1) == f);
		EXPECT(!strcmp(s.flows.v[6].syscall, "io_uring:READ_FIXED") &&
		       !strcmp(s.flows.v[6].ur_where, "sqpoll"));
	}
	VIEW(buf, il_view_table, &s, 1U << IOLAYERS_C_DIRECT);
	/* A DIRECT section of requests only: no syscall row; shares of their time. */
	EXPECT(strstr(buf, "DIRECT: 2 reads\n") && !strstr(buf, "  syscall "));
	EXPECT(strstr(buf, "  uring                     2        12288    524us    912us    912us    912us 100.0%\n"));
	free(buf);
	VIEW(buf, il_view_json, &s);
	j = json_loads(buf, JSON_DECODE_INT_AS_REAL, &jerr);
	EXPECT(j != NULL);
	jf = json_array_get(json_object_get(j, "flows"), 4);
	EXPECT(json_is_null(json_object_get(json_object_get(jf, "latency_ns"), "syscall")));
	EXPECT(json_number_value(json_object_get(json_object_get(jf, "latency_ns"), "uring")) == 2412000);
	EXPECT(json_number_value(json_object_get(json_object_get(jf, "uring"), "attempts")) == 2);
	EXPECT(!strcmp(json_string_value(json_object_get(json_object_get(jf, "uring"), "where")) ?: "",
		       "inline,taskwork"));
	EXPECT(json_is_null(json_object_get(json_array_get(json_object_get(j, "flows"), 0), "uring")));
	EXPECT(json_number_value(json_object_get(json_object_get(j, "cache"), "MISS")) == 2);
	json_decref(j);
	free(buf);
	il_snapshot_free(&s);

	/* A recording: a request's latency in uring_ns, its syscall_ns null. */
	snprintf(r1, sizeof(r1), ur_rd, 7, "pread64", "500000", ", \"uring_ns\": null", ur_none);
	snprintf(r2, sizeof(r2), ur_rd, 8, "io_uring:READ", "null", ", \"uring_ns\": 900000",
		 ur_two);
	/* An older recorder's read (format 7): no uring_ns, no ur_*. */
	snprintf(r3, sizeof(r3), ur_rd, 9, "read", "400", "", "");
	EXPECT(parse_reads(&s, ur_head, r1, r2, r3));
	if (s.flows.n == 3) {
		EXPECT(s.flows.v[0].via == IOLAYERS_VIA_SYSCALL && s.flows.v[0].ur_attempts == -1 &&
		       !strcmp(s.flows.v[0].ur_where, "-"));
		f = &s.flows.v[1];
		EXPECT(f->via == IOLAYERS_VIA_URING && f->lat[IOLAYERS_L_URING] == 900000 &&
		       f->lat[IOLAYERS_L_SYSCALL] == -1 && f->ur_attempts == 2 &&
		       f->ur_issue_ns == 7000 && f->ur_issue_off == 10 &&
		       !strcmp(f->ur_where, "inline,taskwork"));
		EXPECT(s.flows.v[2].via == IOLAYERS_VIA_SYSCALL &&
		       s.flows.v[2].lat[IOLAYERS_L_URING] == -1 &&
		       s.flows.v[2].lat[IOLAYERS_L_SYSCALL] == 400);
	}
	/* Counted in the uring layer, not the syscall's; slow by its latency. */
	EXPECT(s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].count == 2 &&
	       s.hist[IOLAYERS_L_URING][IOLAYERS_C_MISS].count == 1 &&
	       s.hist[IOLAYERS_L_URING][IOLAYERS_C_MISS].sum_ns == 900000 &&
	       s.hist[IOLAYERS_L_URING][IOLAYERS_C_MISS].bytes == 4096 &&
	       s.hist[IOLAYERS_L_FS][IOLAYERS_C_MISS].count == 3);
	EXPECT(il_cache_reads(&s, IOLAYERS_C_MISS) == 3);
	EXPECT(s.slow.n == 2 && s.slow.v[1].seq == 8);
	il_snapshot_free(&s);
	/* A request with a syscall latency, a syscall with a request's: damage. */
	snprintf(r2, sizeof(r2), ur_rd, 8, "io_uring:READ", "900000", ", \"uring_ns\": 900000",
		 ur_two);
	snprintf(r3, sizeof(r3), ur_rd, 9, "pread64", "900000", ", \"uring_ns\": 900000", ur_none);
	EXPECT(damaged_at_line_3(ur_head, r1, r2) && damaged_at_line_3(ur_head, r1, r3));
}

/* A format 9 recording's header. */
static const char rec9_head[] =
	"{\"iolayers_record\": 1, \"stream_version\": 3, \"format\": 9, \"kernel\": \"k\", "
	"\"module\": \"iolayers 0.1.0\", \"open_ns\": 1, \"settings\": {\"slow_us\": \"1\"}, "
	"\"command\": []}\n";

/* A format 9 recording's AIO request: one attempt, inline. */
static const char ur_one[] = ", \"ur_attempts\": 1, \"ur_issue_ns\": 5000, "
			     "\"ur_issue_off\": 10, \"ur_where\": [\"inline\"]";

/* Whether @buf, a view's output, holds @a, @b and @c; frees it. */
static int holds(char *buf, const char *a, const char *b, const char *c)
{
	int found = buf && strstr(buf, a) && strstr(buf, b) && strstr(buf, c);

	free(buf);
	return found;
}

/* The --files row of a file (ino INO in its place), found at or after @from. */
static const char *files_row(const char *buf, int64_t ino)
{
	char key[32];

	snprintf(key, sizeof(key), "  ino %lld on ", (long long)ino);
	return strstr(buf, key);
}

/*
 * Format 9: Linux AIO read requests. `flows` names one "aio:PREAD" (or
 * PREADV, or the IOCB_CMD_* number) and shows its whole latency
 * (submission to its completion event) in syscall_ns; the reader keeps it
 * in the aio layer, never the syscall's or the uring layer's. Its issue
 * in io_submit() may return before its I/O completes: the timeline puts
 * the events in their order.
 */
static void test_aio(void)
{
	static const char lines[] =
		"10 400 5 5 fio aio:PREAD 3 0 4096 4096 DIRECT 1100 - 100 10 900 880 1 1 4096 4096 "
		"0 0 0 - 40 50 60 940 960 sda - 13 8:1 8:0 1 - - - - - - 1 150 30 inline\n"
		"11 500 5 5 fio aio:PREADV 3 8192 8192 8192 HIT 300 - 200 - - - 0 0 0 0 0 0 0 "
		"- 20 - - - - - - 13 8:1 - 0 - - - - - - 1 250 10 inline\n"
		"12 600 5 5 fio aio:9 4 -1 100 -22 other 50 - - - - - 0 0 0 0 0 0 0 "
		"- - - - - - - - - - - 0 - - - - - - 1 20 5 inline\n"
		/* Not a request: no colon after the prefix. */
		"13 700 5 5 fio aiofoo 3 0 1 1 other 1000 60 - - - - 0 0 0 0 0 0 0 "
		"5 - - - - - - - 12 8:1 - 0 - - - - - - - - - -\n";
	/* a request's latency not shown */
	static const char bad[] =
		"10 400 5 5 fio aio:PREAD 3 0 4096 4096 HIT - - - - - - 0 0 0 0 0 0 0 "
		"- - - - - - - - - - - 0 - - - - - - 1 - - inline\n";
	/* A read of each kind's latency members but its own null: damage. */
	static const struct {
		const char *syscall, *syscall_ns, *lat, *ur;
	} damaged[] = {
		{ "aio:PREAD", "900000", ", \"uring_ns\": null, \"aio_ns\": 900000", ur_one },
		{ "aio:PREAD", "null", ", \"uring_ns\": 900000, \"aio_ns\": 900000", ur_one },
		{ "aio:PREAD", "null", ", \"uring_ns\": null, \"aio_ns\": null", ur_one },
		{ "aio:PREAD", "null", ", \"uring_ns\": null", ur_one },
		{ "io_uring:READ", "null", ", \"uring_ns\": 900000, \"aio_ns\": 900000", ur_two },
		{ "pread64", "900000", ", \"uring_ns\": null, \"aio_ns\": 900000", ur_none },
	};
	char r1[2048], r2[2048], r3[2048], err[256], *buf = NULL;
	const char *a, *b;
	struct il_snapshot s;
	struct il_flows fl;
	const struct il_flow *f;
	json_error_t jerr;
	json_t *j, *jf;
	size_t i;

	EXPECT(il_via_of("aio:PREAD") == IOLAYERS_VIA_AIO &&
	       il_via_of("io_uring:READ") == IOLAYERS_VIA_URING &&
	       il_via_of("aio") == IOLAYERS_VIA_SYSCALL && il_via_of("aiofoo:1") == IOLAYERS_VIA_SYSCALL);
	EXPECT(parse_lines(&fl, lines, err, sizeof(err)) == 0);
	EXPECT(fl.n == 4);
	if (fl.n == 4) {
		/* The request: its latency in the aio layer only. */
		f = &fl.v[0];
		EXPECT(of_kind(f, IOLAYERS_VIA_AIO, 1100));
		EXPECT(f->ur_attempts == 1 && f->ur_issue_ns == 150 && f->ur_issue_off == 30 &&
		       !strcmp(f->ur_where, "inline"));
		EXPECT(of_kind(&fl.v[1], IOLAYERS_VIA_AIO, 300));
		EXPECT(of_kind(&fl.v[2], IOLAYERS_VIA_AIO, 50) && !strcmp(fl.v[2].syscall, "aio:9") &&
		       fl.v[2].ret == -22);
		EXPECT(of_kind(&fl.v[3], IOLAYERS_VIA_SYSCALL, 1000));
		/* By their whole latency: the request's 1.1 us over the syscall's 1 us. */
		EXPECT(il_pick_flow(&fl, 0, -1) == f);
		EXPECT(il_pick_flow(&fl, 0, IOLAYERS_C_OTHER) == &fl.v[3]);
		/* Its issue returned before its I/O: the events in order, flat. */
		VIEW(buf, il_view_timeline, f);
		EXPECT(strstr(buf, "aio:PREAD #10: tid 5 fio, fd 3, 4096 of 4096 bytes at 0, DIRECT\n"));
		EXPECT(!strstr(buf, "sys_e") && !strstr(buf, "CQE") && !strstr(buf, "\u2502   "));
		a = strstr(buf, "\u251c\u2500 issue in io_submit ");
		b = strstr(buf, "\u251c\u2500 block_rq_issue (first) ");
		EXPECT(a && b && a < b && strstr(a, "(+30ns)    <- 1 attempt, 150ns issuing, inline\n"));
		a = strstr(buf, "\u251c\u2500 issue returns ");
		EXPECT(a && b && b < a && a < strstr(buf, "device done"));
		EXPECT(a && strstr(a, "(+140ns)   <- FS 100ns\n"));
		EXPECT(strstr(buf, "\u2514\u2500 completion event ") &&
		       strstr(buf, "(+1.10us)  <- aio 1.10us\n"));
		free(buf);
		/* A buffered read of the cache: its issue, then its event. */
		VIEW(buf, il_view_timeline, &fl.v[1]);
		EXPECT(holds(buf, "aio:PREADV #11:", "\u251c\u2500 issue returns", "<- aio 300ns\n"));
		VIEW(buf, il_view_slow, &fl);
		EXPECT(holds(buf, "    uring      aio", "        -    0.001", ""));
		/* --files: a file's time is its requests' too, most first. */
		memset(&s, 0, sizeof(s));
		s.flows = fl;
		EXPECT(!il_model_sum_flows(&s));
		VIEW(buf, il_view_files, &s, 10);
		a = files_row(buf, 13);
		b = files_row(buf, 12);
		EXPECT(a && b && a < b);
		free(buf);
		il_model_free(&s);
	}
	free(fl.v);
	EXPECT(parse_lines(&fl, bad, err, sizeof(err)) == -1 && strstr(err, "line 2"));
	free(fl.v);

	/*
	 * A format 9 tree (hand-made, as the module writes one). Reads:
	 * syscalls, io_uring and AIO requests and page faults, as its summary
	 * counts them (the faults: test_fault()).
	 */
	EXPECT(il_read_snapshot("fixtures/handmade-9-aio", &s, err, sizeof(err)) == 0 &&
	       s.format == 9);
	EXPECT(il_cache_reads(&s, IOLAYERS_C_HIT) == 5 && il_cache_reads(&s, IOLAYERS_C_MISS) == 4 &&
	       il_cache_reads(&s, IOLAYERS_C_DIRECT) == 2 && il_cache_reads(&s, IOLAYERS_C_OTHER) == 2 &&
	       il_cache_reads(&s, IOLAYERS_C_ERROR) == 2);
	EXPECT(s.hist[IOLAYERS_L_AIO][IOLAYERS_C_MISS].bytes == 8192 &&
	       s.hist[IOLAYERS_L_AIO][IOLAYERS_C_ERROR].count == 1 &&
	       s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_ERROR].count == 0);
	EXPECT(s.flows.n == 16 && s.slow.n == 5);
	if (s.flows.n == 16) {
		f = &s.flows.v[6];
		EXPECT(f->seq == 2448 && f->via == IOLAYERS_VIA_AIO && !strcmp(f->syscall, "aio:PREADV") &&
		       f->lat[IOLAYERS_L_AIO] == 2530000 && f->lat[IOLAYERS_L_SYSCALL] == -1);
		EXPECT(il_pick_flow(&s.flows, 0, IOLAYERS_C_DIRECT) == &s.flows.v[7]);
	}
	VIEW(buf, il_view_table, &s, 1U << IOLAYERS_C_ERROR);
	EXPECT(strstr(buf, "ERROR: 2 reads\n") && !strstr(buf, "  syscall "));
	EXPECT(strstr(buf, "  aio                       1            0   28.0us   28.0us   28.0us   28.0us  84.3%\n"));
	free(buf);
	VIEW(buf, il_view_prometheus, &s);
	EXPECT(strstr(buf, "iolayers_reads_total{cache=\"hit\"} 5\n") &&
	       strstr(buf, "iolayers_read_bytes_total{cache=\"miss\"} 20480\n") &&
	       strstr(buf, "iolayers_aio_latency_seconds_count{cache=\"direct\"} 1\n") &&
	       strstr(buf, "iolayers_aio_latency_seconds_count{cache=\"partial\"} 0\n"));
	free(buf);
	VIEW(buf, il_view_json, &s);
	j = json_loads(buf, JSON_DECODE_INT_AS_REAL, &jerr);
	EXPECT(j != NULL);
	jf = json_array_get(json_object_get(j, "flows"), 7);
	EXPECT(json_is_null(json_object_get(json_object_get(jf, "latency_ns"), "syscall")) &&
	       json_is_null(json_object_get(json_object_get(jf, "latency_ns"), "uring")));
	EXPECT(json_number_value(json_object_get(json_object_get(jf, "latency_ns"), "aio")) == 1102400);
	EXPECT(json_number_value(json_object_get(json_object_get(jf, "uring"), "attempts")) == 1);
	EXPECT(!strcmp(json_string_value(json_object_get(json_object_get(jf, "uring"), "where")) ?: "",
		       "inline"));
	EXPECT(json_number_value(json_object_get(json_object_get(j, "cache"), "HIT")) == 5);
	json_decref(j);
	free(buf);
	il_snapshot_free(&s);

	/* A recording: an AIO request's latency in aio_ns, the others null. */
	snprintf(r1, sizeof(r1), ur_rd, 7, "pread64", "500000",
		 ", \"uring_ns\": null, \"aio_ns\": null", ur_none);
	snprintf(r2, sizeof(r2), ur_rd, 8, "aio:PREADV", "null",
		 ", \"uring_ns\": null, \"aio_ns\": 700000", ur_one);
	snprintf(r3, sizeof(r3), ur_rd, 9, "io_uring:READ", "null",
		 ", \"uring_ns\": 800000, \"aio_ns\": null", ur_two);
	EXPECT(parse_reads(&s, rec9_head, r1, r2, r3));
	if (s.flows.n == 3) {
		f = &s.flows.v[1];
		EXPECT(of_kind(f, IOLAYERS_VIA_AIO, 700000) && f->ur_attempts == 1 &&
		       f->ur_issue_ns == 5000 && !strcmp(f->ur_where, "inline"));
		EXPECT(s.flows.v[2].via == IOLAYERS_VIA_URING &&
		       s.flows.v[2].lat[IOLAYERS_L_AIO] == -1);
	}
	EXPECT(s.hist[IOLAYERS_L_AIO][IOLAYERS_C_MISS].count == 1 &&
	       s.hist[IOLAYERS_L_AIO][IOLAYERS_C_MISS].sum_ns == 700000 &&
	       s.hist[IOLAYERS_L_AIO][IOLAYERS_C_MISS].bytes == 4096 &&
	       s.hist[IOLAYERS_L_URING][IOLAYERS_C_MISS].count == 1 &&
	       s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].count == 1);
	EXPECT(il_cache_reads(&s, IOLAYERS_C_MISS) == 3 && s.slow.n == 3);
	il_snapshot_free(&s);
	for (i = 0; i < sizeof(damaged) / sizeof(damaged[0]); i++) {
		snprintf(r2, sizeof(r2), ur_rd, 8, damaged[i].syscall, damaged[i].syscall_ns,
			 damaged[i].lat, damaged[i].ur);
		EXPECT(damaged_at_line_3(rec9_head, r1, r2));
	}
}

/* A format 9 recording's page fault: its latency in fault_ns, the others null. */
static const char fault_lat[] = ", \"uring_ns\": null, \"aio_ns\": null, \"fault_ns\": %s";

/*
 * Format 9: page faults on a file's mapping. `flows` names one "fault"
 * (the whole column: no colon, no opcode), fd -1, pos its page's file
 * offset, and shows its whole latency (its entry to its last return) in
 * syscall_ns; the reader keeps it in the fault layer, never the
 * syscall's, and has no request's attempts for it. Its I/O is drawn
 * under its entry in the timeline.
 */
static void test_fault(void)
{
	static const char lines[] =
		"20 400 5 5 fio fault -1 1048576 4096 4096 MISS 3100 - - 10 2900 2800 1 1 131072 "
		"131072 126976 0 0 - - 60 70 2970 2980 sda - 14 8:1 8:0 1 - - - - - - - - - -\n"
		"21 500 5 5 fio fault -1 20480 4096 4096 HIT 310 - - - - - 0 0 0 0 0 0 0 "
		"- - - - - - - - 14 8:1 - 0 - - - - - - - - - -\n"
		"22 600 5 5 fio fault -1 4194304 4096 -14 ERROR 52 - - - - - 0 0 0 0 0 0 0 "
		"- - - - - - - - 14 8:1 - 0 - - - - - - - - - -\n"
		/* Attempts no module writes for a fault: never shown as a request's. */
		"23 700 5 5 fio fault -1 0 4096 4096 PARTIAL 800 - - - - - 0 0 0 0 0 0 0 "
		"- - - - - - - - 15 8:1 - 0 - - - - - - 3 90 9 inline\n"
		/* Not a fault: "fault" is the whole column. */
		"24 800 5 5 fio fault:1 3 0 1 1 other 1000 60 - - - - 0 0 0 0 0 0 0 "
		"5 - - - - - - - 12 8:1 - 0 - - - - - - - - - -\n";
	static const char * const bad[] = {
		/* a fault's latency not shown */
		"20 400 5 5 fio fault -1 0 4096 4096 HIT - - - - - - 0 0 0 0 0 0 0 "
		"- - - - - - - - 14 8:1 - 0 - - - - - - - - - -\n",
		NULL,
	};
	struct il_snapshot s = { 0 };
	char err[256], *buf = NULL;
	const struct il_flow *f;
	struct il_flows fl;
	const char *a, *b;
	json_t *j, *jf;
	json_error_t jerr;
	size_t i;

	EXPECT(il_via_of("fault") == IOLAYERS_VIA_FAULT && il_via_of("fault:1") == IOLAYERS_VIA_SYSCALL &&
	       il_via_of("faults") == IOLAYERS_VIA_SYSCALL && il_via_of("aio:PREAD") == IOLAYERS_VIA_AIO);
	EXPECT(parse_lines(&fl, lines, err, sizeof(err)) == 0);
	EXPECT(fl.n == 5);
	if (fl.n == 5) {
		/*
		 * Its latency in the fault layer only, no FS layer; its file,
		 * no descriptor; the slowest by its whole latency (3.1 us).
		 */
		f = &fl.v[0];
		EXPECT(of_kind(f, IOLAYERS_VIA_FAULT, 3100) && f->lat[IOLAYERS_L_FS] == -1 &&
		       il_pick_flow(&fl, 0, -1) == f);
		EXPECT(f->fd == -1 && f->pos == 1048576 && f->ino == 14 && f->ra_bytes == 126976 &&
		       f->ur_attempts == -1 && !strcmp(f->ur_where, "-"));
		EXPECT(of_kind(&fl.v[2], IOLAYERS_VIA_FAULT, 52) && fl.v[2].ret == -14 &&
		       fl.v[2].cache == IOLAYERS_C_ERROR && il_pick_flow(&fl, 0, IOLAYERS_C_HIT) == &fl.v[1]);
		EXPECT(of_kind(&fl.v[4], IOLAYERS_VIA_SYSCALL, 1000));
		/* Entry, its I/O under it, return; no descriptor, no attempt. */
		VIEW(buf, il_view_timeline, f);
		EXPECT(strstr(buf, "fault #20: tid 5 fio, 4096 of 4096 bytes at 1048576, MISS\n"));
		EXPECT(!strstr(buf, "fd ") && !strstr(buf, "sys_e") && !strstr(buf, "attempt") &&
		       !strstr(buf, "read_iter") && !strstr(buf, "vfs_read"));
		a = strstr(buf, "\u251c\u2500 fault entry ");
		b = strstr(buf, "\u2502   \u251c\u2500 block_rq_issue (first) ");
		EXPECT(a && b && a < b && strstr(b, "(+70ns)    <- Q 10ns\n"));
		EXPECT(strstr(buf, "\u2502   \u2514\u2500 block_rq_complete (last) ") &&
		       strstr(buf, "131072 bytes, readahead 126976\n"));
		EXPECT(strstr(buf, "\u2514\u2500 fault returns ") &&
		       strstr(buf, "(+3.10us)  <- fault 3.10us\n"));
		free(buf);
		VIEW(buf, il_view_timeline, &fl.v[3]);
		EXPECT(!strstr(buf, "attempt") && !strstr(buf, "(null)"));
		EXPECT(holds(buf, "fault #23:", "\u2514\u2500 fault returns", "<- fault 800ns\n"));
		VIEW(buf, il_view_slow, &fl);
		EXPECT(holds(buf, "      aio    fault\n", "        -    0.003\n", ""));
		VIEW(buf, il_view_json, &(struct il_snapshot){ .flows = fl });
		j = json_loads(buf, JSON_DECODE_INT_AS_REAL, &jerr);
		free(buf);
		EXPECT(j != NULL);
		for (i = 0; i < 4; i++) {
			jf = json_array_get(json_object_get(j, "flows"), i);
			EXPECT(json_is_null(json_object_get(jf, "uring")) &&
			       json_is_null(json_object_get(jf, "fd")) &&
			       json_is_null(json_object_get(json_object_get(jf, "latency_ns"), "syscall")) &&
			       json_is_number(json_object_get(json_object_get(jf, "latency_ns"), "fault")));
		}
		json_decref(j);
		/* --files: the faults under their file, by their time. */
		s.flows = fl;
		EXPECT(!il_model_sum_flows(&s));
		VIEW(buf, il_view_files, &s, 10);
		a = files_row(buf, 14);
		b = files_row(buf, 12);
		EXPECT(a && b && a < b && strstr(buf, "       3         8192  33.3%"));
		free(buf);
		il_model_free(&s);
	}
	free(fl.v);
	for (i = 0; bad[i]; i++) {
		EXPECT(parse_lines(&fl, bad[i], err, sizeof(err)) == -1 && strstr(err, "line 2"));
		free(fl.v);
	}
}

/*
 * Faults read from the hand-made format 9 tree (test_aio() reads its
 * requests) and from a recording: in the fault layer, counted among the
 * reads of their cache state.
 */
static void test_fault_kept(void)
{
	/* A fault's latency where another kind's is, or none: damage. */
	static const struct {
		const char *syscall, *syscall_ns, *lat;
	} damaged[] = {
		{ "fault", "900000", ", \"uring_ns\": null, \"aio_ns\": null, \"fault_ns\": null" },
		{ "fault", "null", ", \"uring_ns\": null, \"aio_ns\": 900000, \"fault_ns\": null" },
		{ "fault", "900000", ", \"uring_ns\": null, \"aio_ns\": null, \"fault_ns\": 900000" },
		{ "fault", "null", ", \"uring_ns\": null, \"aio_ns\": null" },
		{ "pread64", "900000", ", \"uring_ns\": null, \"aio_ns\": null, \"fault_ns\": 9" },
	};
	char lat[128], r1[2048], r2[2048], r3[2048], err[256], *buf = NULL;
	const struct il_flow *f;
	struct il_snapshot s;
	size_t i;

	/* The hand-made format 9 tree's faults (test_aio() reads its requests). */
	EXPECT(il_read_snapshot("fixtures/handmade-9-aio", &s, err, sizeof(err)) == 0);
	EXPECT(s.hist[IOLAYERS_L_FAULT][IOLAYERS_C_MISS].count == 1 &&
	       s.hist[IOLAYERS_L_FAULT][IOLAYERS_C_MISS].bytes == 4096 &&
	       s.hist[IOLAYERS_L_FAULT][IOLAYERS_C_PARTIAL].count == 1 &&
	       s.hist[IOLAYERS_L_FAULT][IOLAYERS_C_ERROR].bytes == 0 &&
	       il_cache_reads(&s, IOLAYERS_C_PARTIAL) == 1);
	f = il_pick_flow(&s.flows, 0, -1);
	EXPECT(f && f->seq == 2896 && f->via == IOLAYERS_VIA_FAULT && !strcmp(f->syscall, "fault"));
	EXPECT(s.slow.n == 5 && s.slow.v[4].via == IOLAYERS_VIA_FAULT);
	VIEW(buf, il_view_table, &s, 1U << IOLAYERS_C_PARTIAL);
	EXPECT(holds(buf, "PARTIAL: 1 reads\n",
		     "  fault                     1         4096    840us    840us    840us    840us 100.0%\n",
		     "PARTIAL 1 (7.1%)"));
	VIEW(buf, il_view_prometheus, &s);
	EXPECT(holds(buf, "iolayers_fault_latency_seconds_count{cache=\"miss\"} 1\n",
		     "iolayers_fault_latency_seconds_count{cache=\"direct\"} 0\n",
		     "iolayers_reads_total{cache=\"partial\"} 1\n"));
	/* The FAULT layer's probe and the fault counters of `stats`, as -P shows any. */
	VIEW(buf, il_view_probes, &s);
	EXPECT(holds(buf, "FAULT    handle_mm_fault              kretprobe   attached",
		     "faults_given_up                 1\n", "reqs_irq_done                   1\n"));
	il_snapshot_free(&s);

	/* A recording: a fault's latency in fault_ns, syscall_ns null. */
	snprintf(r1, sizeof(r1), ur_rd, 7, "pread64", "500000",
		 ", \"uring_ns\": null, \"aio_ns\": null, \"fault_ns\": null", ur_none);
	snprintf(lat, sizeof(lat), fault_lat, "700000");
	snprintf(r2, sizeof(r2), ur_rd, 8, "fault", "null", lat, ur_none);
	snprintf(r3, sizeof(r3), ur_rd, 9, "aio:PREAD", "null",
		 ", \"uring_ns\": null, \"aio_ns\": 800000, \"fault_ns\": null", ur_one);
	EXPECT(parse_reads(&s, rec9_head, r1, r2, r3));
	if (s.flows.n == 3) {
		f = &s.flows.v[1];
		EXPECT(of_kind(f, IOLAYERS_VIA_FAULT, 700000) && f->ur_attempts == -1);
		EXPECT(of_kind(&s.flows.v[2], IOLAYERS_VIA_AIO, 800000));
	}
	EXPECT(s.hist[IOLAYERS_L_FAULT][IOLAYERS_C_MISS].count == 1 &&
	       s.hist[IOLAYERS_L_FAULT][IOLAYERS_C_MISS].sum_ns == 700000 &&
	       s.hist[IOLAYERS_L_FAULT][IOLAYERS_C_MISS].bytes == 4096 &&
	       s.hist[IOLAYERS_L_SYSCALL][IOLAYERS_C_MISS].count == 1);
	EXPECT(il_cache_reads(&s, IOLAYERS_C_MISS) == 3 && s.slow.n == 3 && s.slow.v[1].seq == 8);
	il_snapshot_free(&s);
	for (i = 0; i < sizeof(damaged) / sizeof(damaged[0]); i++) {
		snprintf(r2, sizeof(r2), ur_rd, 8, damaged[i].syscall, damaged[i].syscall_ns,
			 damaged[i].lat, ur_none);
		EXPECT(damaged_at_line_3(rec9_head, r1, r2));
	}
}

/*
 * The flat JSON parser takes what it surely reads as jansson does, and
 * leaves the rest to jansson: the lines here it must refuse (take: 0), or
 * take with the member named holding the value given.
 */
static void test_flat_json(void)
{
	static const struct {
		const char *line;
		int take;
		const char *key, *str;
		int64_t num;
	} cases[] = {
		{ "{\"a\": 1, \"b\": \"x\"}", 1, "a", NULL, 1 },
		{ " {\"a\":-9223372036854775808}", 1, "a", NULL, INT64_MIN },
		{ "{\"a\": 9223372036854775807}\n", 1, "a", NULL, INT64_MAX },
		{ "{\"a\": 9223372036854775808}", 0, NULL, NULL, 0 },	/* too big */
		{ "{\"a\": 01}", 0, NULL, NULL, 0 },			/* leading zero */
		{ "{\"a\": 1.5}", 0, NULL, NULL, 0 },			/* a real */
		{ "{\"a\": 1e3}", 0, NULL, NULL, 0 },
		{ "{\"a\": -0}", 1, "a", NULL, 0 },
		{ "{\"a\": 1, \"a\": 2}", 0, NULL, NULL, 0 },		/* duplicate */
		{ "{\"a\": {\"b\": 1}}", 0, NULL, NULL, 0 },		/* nested */
		{ "{\"a\": [1]}", 0, NULL, NULL, 0 },			/* not strings */
		{ "{\"a\": [\"x\", \"y\"]}", 1, "a", "x", 0 },
		{ "{\"a\": \"\\u00e9\\n\\\"\\\\\\/\"}", 1, "a", "\xc3\xa9\n\"\\/", 0 },
		{ "{\"a\": \"\\ud83d\\ude00\"}", 1, "a", "\xf0\x9f\x98\x80", 0 },
		{ "{\"a\": \"\\ud83d\"}", 0, NULL, NULL, 0 },		/* lone surrogate */
		{ "{\"a\": \"\\udc00\"}", 0, NULL, NULL, 0 },
		{ "{\"a\": \"\\u0000\"}", 0, NULL, NULL, 0 },		/* NUL */
		{ "{\"a\": \"\xc3\xa9\"}", 0, NULL, NULL, 0 },		/* raw UTF-8 */
		{ "{\"a\": \"\x01\"}", 0, NULL, NULL, 0 },		/* control */
		{ "{\"a\": \"\\x\"}", 0, NULL, NULL, 0 },		/* bad escape */
		{ "{\"a\": 1,}", 0, NULL, NULL, 0 },
		{ "{\"a\" 1}", 0, NULL, NULL, 0 },
		{ "{\"a\": 1", 0, NULL, NULL, 0 },			/* cut short */
		{ "{\"a\": nul}", 0, NULL, NULL, 0 },
		{ "[1]", 0, NULL, NULL, 0 },
		{ "{\"a\": true} trailing", 1, "a", NULL, 0 },		/* as DISABLE_EOF_CHECK */
	};
	struct il_fj a = { 0 }, b = { 0 };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *line = cases[i].line;
		int took = !il_fj_parse(&a, line, strlen(line));
		const struct il_fj_val *v;
		json_error_t jerr;
		json_t *o;

		if (took != cases[i].take) {
			fprintf(stderr, "flat json: case %zu: took %d\n", i, took);
			failures++;
			continue;
		}
		if (!took)
			continue;
		v = il_fj_get(&a, cases[i].key);
		EXPECT(v && (cases[i].str ? !strcmp(v->s, cases[i].str) : v->i == cases[i].num));
		/* jansson reads it the same. */
		o = json_loadb(line, strlen(line), JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK,
			       &jerr);
		EXPECT(o && !il_fj_from_jansson(&b, o) && b.n == a.n);
		v = o ? il_fj_get(&b, cases[i].key) : NULL;
		EXPECT(v && (cases[i].str ? !strcmp(v->s, cases[i].str) : v->i == cases[i].num));
		json_decref(o);
	}
	il_fj_free(&a);
	il_fj_free(&b);
}

int main(void)
{
	test_hist_limits();
	test_flat_json();
	test_big_inode();
	test_real_6_1();
	test_real_6_12();
	test_failed_probe_state();
	test_bad_input();
	test_costs();
	test_table();
	test_hist_and_flows();
	test_bad_hist_and_flows();
	test_recording();
	test_uring();
	test_aio();
	test_fault();
	test_fault_kept();
	test_json_writer();
	test_escape();
	printf("test_parse: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
