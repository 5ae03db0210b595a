/* SPDX-License-Identifier: GPL-2.0 */
/* iolayers reader: what several views share (common.c), apart from iolayers.h. */
#ifndef IOLAYERS_VIEWS_H
#define IOLAYERS_VIEWS_H

#include <stdio.h>
#include "../iolayers.h"

/* A layer's btt name ("Q2I-like"), "" for a layer btt has none for. */
const char *il_layer_alias(int l);
/* The text views' heading: the module's version, whom it follows, a recording's reads. */
void il_print_filters(FILE *out, const struct il_snapshot *s);
/* A line saying where the per-read views' reads come from. */
void il_reads_source(FILE *out, const struct il_snapshot *s);

#endif
