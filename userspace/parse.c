// SPDX-License-Identifier: GPL-2.0
/* iolayers reader: the one place that parses the module's debugfs files. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "iolayers.h"
#include "../include/uapi/iolayers.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static struct il_probe *find_probe(struct il_snapshot *s, const char *name)
{
	int i;

	for (i = 0; i < s->nprobes; i++)
		if (!strcmp(s->probes[i].name, name))
			return &s->probes[i];
	return NULL;
}

int il_parse_version(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	char line[256];

	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "iolayers %31s", s->version) != 1)
		return fail(err, errlen, "version: first line is not 'iolayers VERSION'");
	if (!fgets(line, sizeof(line), f) || sscanf(line, "format %d", &s->format) != 1)
		return fail(err, errlen, "version: second line is not 'format N'");
	if (s->format != IOLAYERS_FORMAT_VERSION)
		return fail(err, errlen,
			    "debugfs format %d is not the one this reader knows (%d): use the reader built with the module",
			    s->format, IOLAYERS_FORMAT_VERSION);
	return 0;
}

int il_parse_layers(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	char line[256];
	int lineno = 0;

	s->nprobes = 0;
	while (fgets(line, sizeof(line), f)) {
		struct il_probe *p;
		char state[IL_NAME_LEN];
		int n, e = 0;

		if (++lineno == 1) {
			if (strncmp(line, "probe", 5))
				return fail(err, errlen, "layers: no header line");
			continue;
		}
		if (s->nprobes == IL_MAX_PROBES)
			return fail(err, errlen, "layers: more than %d probes", IL_MAX_PROBES);
		p = &s->probes[s->nprobes];
		memset(p, 0, sizeof(*p));
		p->nmissed = -1;
		n = sscanf(line, "%31s %31s %31s %31[a-z]: %d", p->name, p->layer, p->kind,
			   state, &e);
		if (n < 4)
			return fail(err, errlen, "layers: line %d is garbled", lineno);
		memcpy(p->state, state, sizeof(state));
		p->err = n == 5 ? e : 0;
		s->nprobes++;
	}
	if (lineno == 0)
		return fail(err, errlen, "layers: empty");
	return 0;
}

static int add_counter(struct il_snapshot *s, const char *prefix, const char *name,
		       uint64_t value, char *err, size_t errlen)
{
	struct il_counter *c;

	if (s->ncounters == IL_MAX_COUNTERS)
		return fail(err, errlen, "stats: more than %d counters", IL_MAX_COUNTERS);
	c = &s->counters[s->ncounters++];
	snprintf(c->name, sizeof(c->name), "%s%s%s", prefix, *prefix ? "_" : "", name);
	c->value = value;
	return 0;
}

/*
 * The part of `stats` after the probes, in blank-line separated sections:
 * a table (a `table` header line naming the columns, then one row per
 * table, stored as TABLE_COLUMN counters) or `name value` lines.
 */
static int parse_counters(FILE *f, struct il_snapshot *s, int lineno, char *err, size_t errlen)
{
	char line[512], cols[IL_MAX_COLS][IL_NAME_LEN], name[IL_NAME_LEN];
	int ncols = 0;	/* > 0 inside a table section */

	s->ncounters = 0;
	while (fgets(line, sizeof(line), f)) {
		char *tok, *save, *end;
		uint64_t v;
		int n;

		lineno++;
		tok = strtok_r(line, " \t\n", &save);
		if (!tok) {
			ncols = 0;
			continue;
		}
		if (strlen(tok) >= IL_NAME_LEN)
			return fail(err, errlen, "stats: line %d is garbled", lineno);
		if (!strcmp(tok, "table")) {
			for (ncols = 0; (tok = strtok_r(NULL, " \t\n", &save)); ncols++) {
				if (ncols == IL_MAX_COLS || strlen(tok) >= IL_NAME_LEN)
					return fail(err, errlen,
						    "stats: line %d: bad table header", lineno);
				strcpy(cols[ncols], tok);
			}
			continue;
		}
		strcpy(name, tok);
		for (n = 0; (tok = strtok_r(NULL, " \t\n", &save)); n++) {
			errno = 0;
			v = strtoull(tok, &end, 10);
			if (errno || *end || *tok == '-' || n >= (ncols ? ncols : 1))
				return fail(err, errlen, "stats: line %d is garbled", lineno);
			if (add_counter(s, ncols ? name : "", ncols ? cols[n] : name, v,
					err, errlen))
				return -1;
		}
		if (n != (ncols ? ncols : 1))
			return fail(err, errlen, "stats: line %d is garbled", lineno);
	}
	return 0;
}

int il_counter(const struct il_snapshot *s, const char *name, uint64_t *value)
{
	int i;

	for (i = 0; i < s->ncounters; i++) {
		if (!strcmp(s->counters[i].name, name)) {
			*value = s->counters[i].value;
			return 0;
		}
	}
	return -1;
}

int il_parse_stats(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	char line[256], name[IL_NAME_LEN], missed[32];
	int lineno = 0;

	while (fgets(line, sizeof(line), f)) {
		struct il_probe *p;
		uint64_t hits;
		char *end;

		if (++lineno == 1) {
			if (strncmp(line, "probe", 5))
				return fail(err, errlen, "stats: no header line");
			continue;
		}
		if (line[0] == '\n')
			return parse_counters(f, s, lineno, err, errlen);
		if (sscanf(line, "%31s %" SCNu64 " %31s", name, &hits, missed) != 3)
			return fail(err, errlen, "stats: line %d is garbled", lineno);
		p = find_probe(s, name);
		if (!p)
			return fail(err, errlen, "stats: probe '%s' is not in layers", name);
		p->hits = hits;
		if (strcmp(missed, "-")) {
			errno = 0;
			p->nmissed = strtoll(missed, &end, 10);
			if (errno || *end)
				return fail(err, errlen, "stats: line %d: bad nmissed", lineno);
		}
	}
	if (lineno == 0)
		return fail(err, errlen, "stats: empty");
	return 0;
}

typedef int (*il_parser)(FILE *, struct il_snapshot *, char *, size_t);

static int parse_file(const char *root, const char *name, il_parser fn,
		      struct il_snapshot *s, char *err, size_t errlen)
{
	char path[4096];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	f = fopen(path, "r");
	if (!f)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	ret = fn(f, s, err, errlen);
	fclose(f);
	return ret;
}

static int parse_pid(FILE *f, struct il_snapshot *s, char *err, size_t errlen)
{
	if (fscanf(f, "%d", &s->pid) != 1)
		return fail(err, errlen, "pid: not a number");
	return 0;
}

int il_read_snapshot(const char *root, struct il_snapshot *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (parse_file(root, IOLAYERS_FILE_VERSION, il_parse_version, s, err, errlen) ||
	    parse_file(root, IOLAYERS_FILE_LAYERS, il_parse_layers, s, err, errlen) ||
	    parse_file(root, IOLAYERS_FILE_STATS, il_parse_stats, s, err, errlen) ||
	    parse_file(root, IOLAYERS_FILE_PID, parse_pid, s, err, errlen))
		return -1;
	return 0;
}

void il_print_table(FILE *out, const struct il_snapshot *s)
{
	int i;

	fprintf(out, "iolayers %s, following pid %d\n\n", s->version, s->pid);
	fprintf(out, "%-8s %-28s %-11s %-10s %12s %8s\n", "LAYER", "PROBE", "KIND",
		"STATE", "HITS", "MISSED");
	for (i = 0; i < s->nprobes; i++) {
		const struct il_probe *p = &s->probes[i];
		char missed[24] = "-";

		if (p->nmissed >= 0)
			snprintf(missed, sizeof(missed), "%" PRId64, p->nmissed);
		fprintf(out, "%-8s %-28s %-11s %-10s %12" PRIu64 " %8s\n", p->layer,
			p->name, p->kind, p->state, p->hits, missed);
	}
	if (s->ncounters)
		fputc('\n', out);
	for (i = 0; i < s->ncounters; i++)
		fprintf(out, "%-20s %12" PRIu64 "\n", s->counters[i].name, s->counters[i].value);
}
