// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the reader's parser and views: the first byte picks
 * the file kind (5: a recording, iolayers record's JSON lines), the rest
 * is its content. Whatever parses must also print
 * in every view without a sanitizer report.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../iolayers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void views(struct il_snapshot *s, FILE *out)
{
	const struct il_flow *f;
	struct il_snapshot d;

	il_view_table(out, s);
	il_view_hist(out, s, ~0U, IL_UNIT_NS);
	il_view_hist(out, s, ~0U, IL_UNIT_US);
	il_view_disks(out, s, IL_UNIT_MS);
	il_view_json(out, s);
	il_view_prometheus(out, s);
	il_view_svg(out, s, 20);
	il_view_slow(out, &s->flows);
	f = il_pick_flow(&s->flows, 0, -1);
	if (f)
		il_view_timeline(out, f);
	il_snapshot_delta(&d, s, s);
	il_view_table(out, &d);
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
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	s = calloc(1, sizeof(*s));
	f = fmemopen((void *)(data + 1), size - 1, "r");
	if (!s || !f || !devnull)
		abort();
	switch (data[0] % 6) {
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
		ok = !il_parse_recording(f, s, err, sizeof(err));
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
