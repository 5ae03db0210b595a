// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the reader's parser and views: the first byte picks
 * the file kind (5: a recording, iolayers record's binary or JSON lines;
 * 6: one line for the flat JSON parser against jansson), the rest is its
 * content. Whatever parses must also print in every view without a
 * sanitizer report; the terminal views with no control character, the SVG
 * with every '&' an entity, the JSON view as JSON.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "../iolayers.h"
#include "../flatjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A terminal view's output: no control byte but newline (ESC would start
 * a control sequence), no C1 control or bidirectional override in UTF-8.
 */
static void check_terminal(const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)b[i];

		if ((c < 0x20 && c != '\n') || c == 0x7f)
			abort();
		if (c == 0xc2 && i + 1 < n && (unsigned char)b[i + 1] >= 0x80 &&
		    (unsigned char)b[i + 1] <= 0x9f)
			abort();
		if (c == 0xe2 && i + 2 < n && (unsigned char)b[i + 1] == 0x80 &&
		    (unsigned char)b[i + 2] >= 0xaa && (unsigned char)b[i + 2] <= 0xae)
			abort();
	}
}

/* The SVG: no control byte but newline, every '&' an entity. */
static void check_svg(const char *b, size_t n)
{
	size_t i, j;

	check_terminal(b, n);
	for (i = 0; i < n; i++) {
		if (b[i] != '&')
			continue;
		for (j = i + 1; j < n && j < i + 10 && b[j] != ';'; j++)
			if (!((b[j] >= 'a' && b[j] <= 'z') || (b[j] >= '0' && b[j] <= '9') ||
			      (b[j] >= 'A' && b[j] <= 'F') || b[j] == '#' || b[j] == 'x'))
				abort();
		if (j == n || b[j] != ';' || j == i + 1)
			abort();
	}
}

/* Run @view into memory and check what it printed with @check. */
#define CHECKED(check, view, ...)						\
	do {									\
		char *buf = NULL;						\
		size_t len = 0;							\
		FILE *m = open_memstream(&buf, &len);				\
										\
		if (!m)								\
			abort();						\
		view(m, __VA_ARGS__);						\
		fclose(m);							\
		check(buf, len);						\
		free(buf);							\
	} while (0)

/* The JSON view: one object jansson parses. */
static void check_json(const char *b, size_t n)
{
	json_error_t jerr;
	json_t *j = json_loadb(b, n, JSON_DECODE_INT_AS_REAL, &jerr);	/* u64 sums */

	if (!json_is_object(j)) {
		fprintf(stderr, "fuzz_parse: the JSON view does not parse: %s (line %d, column %d)\n",
			jerr.text, jerr.line, jerr.column);
		abort();
	}
	json_decref(j);
}

static void views(struct il_snapshot *s, FILE *out)
{
	const struct il_flow *f;
	struct il_snapshot d;

	CHECKED(check_terminal, il_view_table, s, ~0U);
	CHECKED(check_terminal, il_view_hist, s, ~0U, IL_UNIT_NS);
	CHECKED(check_terminal, il_view_hist, s, ~0U, IL_UNIT_US);
	CHECKED(check_terminal, il_view_disks, s, IL_UNIT_MS);
	CHECKED(check_terminal, il_view_files, s, 20);
	CHECKED(check_terminal, il_view_slow, &s->flows);
	CHECKED(check_terminal, il_view_probes, s);
	CHECKED(check_json, il_view_json, s);
	il_view_prometheus(out, s);
	CHECKED(check_svg, il_view_svg, s, 20);
	if (s->heat)
		CHECKED(check_svg, il_view_heatmap, s);
	f = il_pick_flow(&s->flows, 0, -1);
	if (f)
		CHECKED(check_terminal, il_view_timeline, f);
	il_snapshot_delta(&d, s, s);
	CHECKED(check_terminal, il_view_table, &d, ~0U);
}

/*
 * Kind 6: one line, read by the flat parser and by jansson. What the flat
 * parser takes, jansson must take too, and the same: every member's key,
 * type, value and strings.
 */
static void flat_against_jansson(const char *line, size_t len)
{
	static struct il_fj a, b;
	json_error_t jerr;
	json_t *o;
	int i, k;

	if (il_fj_parse(&a, line, len))
		return;
	o = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK, &jerr);
	if (!json_is_object(o) || il_fj_from_jansson(&b, o) || a.n != b.n)
		abort();
	json_decref(o);
	for (i = 0; i < a.n; i++) {
		const struct il_fj_val *x = &a.v[i], *y = il_fj_get(&b, x->key);
		const char *xs = x->s, *ys;

		if (!y || x->type != y->type || x->i != y->i || x->n != y->n)
			abort();
		ys = y->s;
		if (x->type == IL_FJ_STR && strcmp(xs, ys))
			abort();
		for (k = 0; x->type == IL_FJ_ARR && k < x->n; k++) {
			if (strcmp(xs, ys))
				abort();
			xs = il_fj_next_str(xs);
			ys = il_fj_next_str(ys);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct il_snapshot *s;
	char err[256];
	FILE *f;
	int ok;

	if (size < 2)
		return 0;
	if (data[0] % 7 == 6) {
		flat_against_jansson((const char *)data + 1, size - 1);
		return 0;
	}
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	s = calloc(1, sizeof(*s));
	f = fmemopen((void *)(data + 1), size - 1, "r");
	if (!s || !f || !devnull)
		abort();
	switch (data[0] % 7) {
	case 0:
		ok = !il_parse_version(f, s, err, sizeof(err));
		break;
	case 1:
		ok = !il_parse_layers(f, s, err, sizeof(err));
		break;
	case 2:
		ok = !il_parse_stats(f, s, err, sizeof(err));
		break;
	case 3:
		ok = !il_parse_hist(f, s, err, sizeof(err));
		break;
	case 4:
		ok = !il_parse_flows(f, &s->flows, err, sizeof(err));
		break;
	default:
		s->heat = calloc(1, sizeof(*s->heat));
		/* The trace is written as the recording is read: to /dev/null. */
		s->perfetto = il_perfetto_open(devnull);
		ok = !il_parse_recording(f, s, err, sizeof(err));
		if (s->perfetto)
			il_perfetto_close(s->perfetto);
		s->perfetto = NULL;
		break;
	}
	fclose(f);
	if (!ok && !err[0])
		abort();	/* an error must say what is wrong */
	if (ok)
		views(s, devnull);
	il_snapshot_free(s);
	free(s);
	return 0;
}
