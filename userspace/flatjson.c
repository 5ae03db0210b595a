// SPDX-License-Identifier: GPL-2.0
/*
 * Flat JSON objects: a JSON lines recording's read objects (one level of
 * members whose values are integers, strings, null, true, false or arrays
 * of strings) read without building a tree. jansson's tree, built and
 * freed for every line, was 80 % of what reading a recording cost (about
 * 142,000 instructions a read). This parser takes only what it fully
 * understands and says no to anything else (a nested object, a real
 * number, a byte outside ASCII in a string, \u0000, a lone surrogate, a
 * duplicate key, bad syntax): the caller then gives the line to jansson,
 * which accepts or refuses it and whose tree is turned into the same flat
 * form (il_fj_from_jansson()). The fuzzer checks that both agree on every
 * line this parser takes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "flatjson.h"

static const char *ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static int hex4(const char *p, const char *end, unsigned int *v)
{
	int i;

	*v = 0;
	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		char c = p[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned int)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/* Code point @c as UTF-8 at @out; the bytes written. */
static size_t utf8(char *out, unsigned int c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/*
 * A string after its opening quote, decoded into @o's scratch with a NUL;
 * @*p after its closing quote. Its decoded form is never longer than its
 * text (an escape of 6 or 12 bytes gives at most 3 or 4).
 */
static const char *str(struct il_fj *o, const char **p, const char *end)
{
	const char *q = *p;
	char *out = o->scratch + o->used, *start = out;

	while (q < end) {
		unsigned char c = (unsigned char)*q++;
		unsigned int u, lo;

		if (c == '"') {
			*out++ = '\0';
			o->used += (size_t)(out - start);
			*p = q;
			return start;
		}
		if (c < 0x20 || c >= 0x80)
			return NULL;	/* jansson's to judge (control, UTF-8) */
		if (c != '\\') {
			*out++ = (char)c;
			continue;
		}
		if (q >= end)
			return NULL;
		switch (*q++) {
		case '"':
			*out++ = '"';
			break;
		case '\\':
			*out++ = '\\';
			break;
		case '/':
			*out++ = '/';
			break;
		case 'b':
			*out++ = '\b';
			break;
		case 'f':
			*out++ = '\f';
			break;
		case 'n':
			*out++ = '\n';
			break;
		case 'r':
			*out++ = '\r';
			break;
		case 't':
			*out++ = '\t';
			break;
		case 'u':
			if (hex4(q, end, &u))
				return NULL;
			q += 4;
			if (!u || (u >= 0xdc00 && u < 0xe000))
				return NULL;	/* \u0000, a lone low surrogate */
			if (u >= 0xd800 && u < 0xdc00) {
				if (end - q < 6 || q[0] != '\\' || q[1] != 'u' ||
				    hex4(q + 2, end, &lo) || lo < 0xdc00 || lo >= 0xe000)
					return NULL;
				q += 6;
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			}
			out += utf8(out, u);
			break;
		default:
			return NULL;
		}
	}
	return NULL;
}

/* An integer as JSON writes one; NULL for a real, a leading zero, overflow. */
static const char *num(const char *p, const char *end, int64_t *v)
{
	int neg = 0;
	uint64_t u = 0, lim;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	if (*p == '0' && p + 1 < end && p[1] >= '0' && p[1] <= '9')
		return NULL;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned int d = (unsigned int)(*p++ - '0');

		if (u > (lim - d) / 10)
			return NULL;
		u = u * 10 + d;
	}
	if (p < end && (*p == '.' || *p == 'e' || *p == 'E'))
		return NULL;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return p;
}

static int lit(const char **p, const char *end, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(end - *p) < n || memcmp(*p, word, n))
		return -1;
	*p += n;
	return 0;
}

static unsigned int key_hash(const char *key)
{
	unsigned int h = 2166136261u;	/* FNV-1a */

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 16777619u;
	return h;
}

/*
 * Member @i into the hash table by its key; -1 when its key is already
 * there (a duplicate is jansson's to refuse).
 */
static int slot_put(struct il_fj *o, int i)
{
	struct il_fj_val *v = &o->v[i];
	unsigned int k = v->hash & (IL_FJ_SLOTS - 1);

	while (o->slot[k]) {
		const struct il_fj_val *w = &o->v[o->slot[k] - 1];

		if (w->hash == v->hash && !strcmp(w->key, v->key))
			return -1;
		k = (k + 1) & (IL_FJ_SLOTS - 1);
	}
	o->slot[k] = (unsigned short)(i + 1);
	return 0;
}

static int reserve(struct il_fj *o, size_t len)
{
	if (len + 1 > o->cap) {
		char *s = realloc(o->scratch, len + 1);

		if (!s)
			return -1;
		o->scratch = s;
		o->cap = len + 1;
	}
	o->used = 0;
	o->n = 0;
	memset(o->slot, 0, sizeof(o->slot));
	return 0;
}

/**
 * il_fj_parse() - A flat JSON object, if this parser takes it.
 * @o: filled (its scratch reused from line to line; il_fj_free())
 * @line: the text, @len bytes; what follows the object's end is not read
 * @len: its length
 *
 * Return: 0, or -1 when not taken (not flat, not what jansson surely
 * reads the same, or out of memory): give the line to jansson.
 */
int il_fj_parse(struct il_fj *o, const char *line, size_t len)
{
	const char *p = line, *end = line + len;

	if (reserve(o, len))
		return -1;
	p = ws(p, end);
	if (p >= end || *p++ != '{')
		return -1;
	p = ws(p, end);
	if (p < end && *p == '}')
		return 0;
	for (;;) {
		struct il_fj_val *v;
		const char *key;

		if (o->n == IL_FJ_MAX || p >= end || *p++ != '"')
			return -1;
		key = str(o, &p, end);
		if (!key)
			return -1;
		p = ws(p, end);
		if (p >= end || *p++ != ':')
			return -1;
		p = ws(p, end);
		if (p >= end)
			return -1;
		v = &o->v[o->n];
		memset(v, 0, sizeof(*v));
		v->key = key;
		v->hash = key_hash(key);
		if (slot_put(o, o->n))
			return -1;
		switch (*p) {
		case '"':
			p++;
			v->type = IL_FJ_STR;
			v->s = str(o, &p, end);
			if (!v->s)
				return -1;
			break;
		case 'n':
			v->type = IL_FJ_NULL;
			if (lit(&p, end, "null"))
				return -1;
			break;
		case 't':
			v->type = IL_FJ_TRUE;
			if (lit(&p, end, "true"))
				return -1;
			break;
		case 'f':
			v->type = IL_FJ_FALSE;
			if (lit(&p, end, "false"))
				return -1;
			break;
		case '[':
			/* Strings only: their decoded forms one after the other. */
			p = ws(p + 1, end);
			v->type = IL_FJ_ARR;
			v->s = o->scratch + o->used;
			if (p < end && *p == ']') {
				p++;
				break;
			}
			for (;;) {
				if (p >= end || *p++ != '"' || !str(o, &p, end))
					return -1;
				v->n++;
				p = ws(p, end);
				if (p < end && *p == ',') {
					p = ws(p + 1, end);
					continue;
				}
				if (p < end && *p == ']') {
					p++;
					break;
				}
				return -1;
			}
			break;
		default:
			v->type = IL_FJ_INT;
			p = num(p, end, &v->i);
			if (!p)
				return -1;
			break;
		}
		o->n++;
		p = ws(p, end);
		if (p < end && *p == ',') {
			p = ws(p + 1, end);
			continue;
		}
		if (p < end && *p == '}')
			return 0;
		return -1;
	}
}

/* A copy into @o's scratch, up to @s's first NUL (as json_string_value() reads it). */
static const char *keep(struct il_fj *o, const char *s)
{
	size_t n = strlen(s);
	char *at;

	if (o->used + n + 1 > o->cap) {
		size_t cap = (o->used + n + 1) * 2, koff[IL_FJ_MAX], soff[IL_FJ_MAX];
		char *b;
		int i;

		/* Earlier members point into the old buffer: by offsets into the new. */
		for (i = 0; i < o->n; i++) {
			koff[i] = (size_t)(o->v[i].key - o->scratch);
			soff[i] = o->v[i].s ? (size_t)(o->v[i].s - o->scratch) : SIZE_MAX;
		}
		b = realloc(o->scratch, cap);
		if (!b)
			return NULL;
		for (i = 0; i < o->n; i++) {
			o->v[i].key = b + koff[i];
			o->v[i].s = soff[i] == SIZE_MAX ? NULL : b + soff[i];
		}
		o->scratch = b;
		o->cap = cap;
	}
	at = o->scratch + o->used;
	memcpy(at, s, n + 1);
	o->used += n + 1;
	return at;
}

/**
 * il_fj_from_jansson() - jansson's object in the flat form.
 * @o: filled
 * @j: a JSON object
 *
 * A member that is not an integer, a string, null, true, false or an
 * array of strings is IL_FJ_OTHER, which no reader of it takes.
 *
 * Return: 0, -1 when out of memory, -2 past IL_FJ_MAX members.
 */
int il_fj_from_jansson(struct il_fj *o, json_t *j)
{
	const char *key;
	json_t *val, *e;
	size_t i;

	if (reserve(o, 256))
		return -1;
	json_object_foreach(j, key, val) {
		struct il_fj_val *v;
		const char *at;

		if (o->n == IL_FJ_MAX)
			return -2;
		at = keep(o, key);
		if (!at)
			return -1;
		v = &o->v[o->n];
		memset(v, 0, sizeof(*v));
		v->key = at;
		v->hash = key_hash(at);
		if (slot_put(o, o->n++))
			return -1;	/* jansson refused duplicates already */
		switch (json_typeof(val)) {
		case JSON_INTEGER:
			v->type = IL_FJ_INT;
			v->i = json_integer_value(val);
			break;
		case JSON_STRING:
			v->type = IL_FJ_STR;
			v->s = keep(o, json_string_value(val));
			if (!v->s)
				return -1;
			break;
		case JSON_NULL:
			v->type = IL_FJ_NULL;
			break;
		case JSON_TRUE:
			v->type = IL_FJ_TRUE;
			break;
		case JSON_FALSE:
			v->type = IL_FJ_FALSE;
			break;
		case JSON_ARRAY:
			v->type = IL_FJ_ARR;
			json_array_foreach(val, i, e) {
				if (!json_is_string(e)) {
					v->type = IL_FJ_OTHER;
					break;
				}
				at = keep(o, json_string_value(e));
				if (!at)
					return -1;
				if (!v->n++)
					v->s = at;
			}
			break;
		default:
			v->type = IL_FJ_OTHER;
			break;
		}
	}
	return 0;
}

/**
 * il_fj_get() - A member by its key.
 * @o: the object
 * @key: its key
 *
 * Return: the member, or NULL.
 */
const struct il_fj_val *il_fj_get(const struct il_fj *o, const char *key)
{
	unsigned int h = key_hash(key), k = h & (IL_FJ_SLOTS - 1);

	while (o->slot[k]) {
		const struct il_fj_val *v = &o->v[o->slot[k] - 1];

		if (v->hash == h && !strcmp(v->key, key))
			return v;
		k = (k + 1) & (IL_FJ_SLOTS - 1);
	}
	return NULL;
}

/**
 * il_fj_next_str() - The string after @s in an array's decoded strings.
 * @s: one of them
 *
 * Return: the next (the caller counts them: IL_FJ_ARR's n).
 */
const char *il_fj_next_str(const char *s)
{
	return s + strlen(s) + 1;
}

/**
 * il_fj_free() - The scratch of @o.
 * @o: the object
 */
void il_fj_free(struct il_fj *o)
{
	free(o->scratch);
	o->scratch = NULL;
	o->cap = o->used = 0;
	o->n = 0;
}
