// SPDX-License-Identifier: GPL-2.0
/* Plain-C tests of the reader's parser on debugfs files saved from the module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../iolayers.h"

static int failures;

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

	EXPECT(il_read_snapshot("fixtures/6.1.0-57", &s, err, sizeof(err)) == 0);
	EXPECT(!strcmp(s.version, "0.1.0"));
	EXPECT(s.format == 3);
	EXPECT(s.pid == 173);
	EXPECT(s.nprobes == 8);
	EXPECT(!strcmp(s.probes[0].name, "sys_enter"));
	EXPECT(!strcmp(s.probes[0].layer, "SYSCALL"));
	EXPECT(s.probes[0].hits == 415);
	EXPECT(!strcmp(s.probes[2].name, "vfs_read"));
	EXPECT(!strcmp(s.probes[2].layer, "VFS"));
	EXPECT(!strcmp(s.probes[2].kind, "kretprobe"));
	EXPECT(!strcmp(s.probes[2].state, "attached"));
	EXPECT(s.probes[2].hits == 415);
	EXPECT(s.probes[2].nmissed == 0);
	EXPECT(!strcmp(s.probes[5].name, "mm_filemap_add_to_page_cache"));
	EXPECT(!strcmp(s.probes[5].layer, "CACHE"));
	EXPECT(!strcmp(s.probes[7].name, "block_rq_issue"));
	EXPECT(!strcmp(s.probes[7].kind, "tracepoint"));
	EXPECT(s.probes[7].hits == 383);
	EXPECT(s.probes[7].nmissed == -1);
	EXPECT(s.ncounters == 7);
	EXPECT(il_counter(&s, "drop_nomem", &v) == 0 && v == 0);
	EXPECT(il_counter(&s, "flows_high_water", &v) == 0 && v == 2);
	EXPECT(il_counter(&s, "max_flows", &v) == 0 && v == 4096);
	EXPECT(il_counter(&s, "nope", &v) == -1);
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
		"probe hits nmissed\nvfs_read 1 0\n\ndrop_x 1 2\n", NULL,
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
	}
	EXPECT(il_read_snapshot("fixtures/garbled", &s, err, sizeof(err)) == -1);
	EXPECT(strstr(err, "layers: line 2 is garbled") != NULL);
	EXPECT(il_read_snapshot("fixtures/badformat", &s, err, sizeof(err)) == -1);
	EXPECT(strstr(err, "format 99") != NULL);
	EXPECT(il_read_snapshot("fixtures/none", &s, err, sizeof(err)) == -1);
	EXPECT(strstr(err, "No such file") != NULL);
}

static void test_table(void)
{
	struct il_snapshot s;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	EXPECT(il_read_snapshot("fixtures/6.1.0-57", &s, err, sizeof(err)) == 0);
	il_print_table(out, &s);
	fclose(out);
	EXPECT(strstr(buf, "following pid 173") != NULL);
	EXPECT(strstr(buf, "VFS      vfs_read                     kretprobe   attached            415        0") != NULL);
	EXPECT(strstr(buf, "BLOCK    block_rq_issue               tracepoint  attached            383        -") != NULL);
	EXPECT(strstr(buf, "flows_high_water                2") != NULL);
	free(buf);
}

int main(void)
{
	test_real_6_1();
	test_failed_probe_state();
	test_bad_input();
	test_table();
	printf("test_parse: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
