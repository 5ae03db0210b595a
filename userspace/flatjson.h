/* SPDX-License-Identifier: GPL-2.0 */
/* Flat JSON objects (flatjson.c): a recording's read lines without a tree. */
#ifndef IOLAYERS_FLATJSON_H
#define IOLAYERS_FLATJSON_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

enum { IL_FJ_NULL, IL_FJ_TRUE, IL_FJ_FALSE, IL_FJ_INT, IL_FJ_STR, IL_FJ_ARR, IL_FJ_OTHER };

/*
 * Members an object may have: a read's has 57; one with more (a far
 * newer recorder's) is damage, said so (il_fj_from_jansson()'s -2).
 */
#define IL_FJ_MAX	192

/**
 * struct il_fj_val - A member of a flat object.
 * @key: its key, NUL-terminated
 * @type: IL_FJ_*
 * @i: an integer's value
 * @s: a string's value, NUL-terminated; an array's first string (the
 *	others follow, each after the NUL of the one before: il_fj_next_str())
 * @n: an array's strings
 */
struct il_fj_val {
	const char *key;
	unsigned int hash;
	int type;
	int64_t i;
	const char *s;
	int n;
};

/* Slots of the members' hash table: a power of two, past twice IL_FJ_MAX. */
#define IL_FJ_SLOTS	512

/**
 * struct il_fj - A flat object: its members, their strings in @scratch,
 *	found by their key's hash (@slot: a member's index + 1, 0 empty).
 */
struct il_fj {
	int n;
	struct il_fj_val v[IL_FJ_MAX];
	unsigned short slot[IL_FJ_SLOTS];
	char *scratch;
	size_t cap, used;
};

int il_fj_parse(struct il_fj *o, const char *line, size_t len);
int il_fj_from_jansson(struct il_fj *o, json_t *j);
const struct il_fj_val *il_fj_get(const struct il_fj *o, const char *key);
const char *il_fj_next_str(const char *s);
void il_fj_free(struct il_fj *o);

#endif
