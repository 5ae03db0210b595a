/* SPDX-License-Identifier: GPL-2.0 */
/* iolayers reader: parsed forms of the module's debugfs files. */
#ifndef IOLAYERS_READER_H
#define IOLAYERS_READER_H

#include <stdio.h>
#include <stdint.h>

#define IL_MAX_PROBES	64
#define IL_NAME_LEN	32

/** struct il_probe - One line of `layers` joined with its line of `stats`. */
struct il_probe {
	char name[IL_NAME_LEN];
	char layer[IL_NAME_LEN];
	char kind[IL_NAME_LEN];
	char state[IL_NAME_LEN];	/* attached, missing, failed, detached */
	int err;			/* errno of a failed or missing probe */
	uint64_t hits;
	int64_t nmissed;		/* -1 where the probe has no such counter */
};

#define IL_MAX_COUNTERS	96
#define IL_MAX_COLS	16

/**
 * struct il_counter - A `name value` line of `stats`, or one cell of its
 * tables named TABLE_COLUMN (e.g. task_entries, bio_stale).
 */
struct il_counter {
	char name[IL_NAME_LEN];
	uint64_t value;
};

/** struct il_snapshot - Everything read from one debugfs tree. */
struct il_snapshot {
	char version[IL_NAME_LEN];
	int format;
	int pid;
	int nprobes;
	struct il_probe probes[IL_MAX_PROBES];
	int ncounters;
	struct il_counter counters[IL_MAX_COUNTERS];
};

int il_parse_version(FILE *f, struct il_snapshot *s, char *err, size_t errlen);
int il_parse_layers(FILE *f, struct il_snapshot *s, char *err, size_t errlen);
int il_parse_stats(FILE *f, struct il_snapshot *s, char *err, size_t errlen);
int il_counter(const struct il_snapshot *s, const char *name, uint64_t *value);
int il_read_snapshot(const char *root, struct il_snapshot *s, char *err, size_t errlen);
void il_print_table(FILE *out, const struct il_snapshot *s);

#endif
