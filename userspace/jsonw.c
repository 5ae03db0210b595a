// SPDX-License-Identifier: GPL-2.0
/*
 * JSON text into a caller's buffer: the recorder writes one line per read
 * of the stream, fast enough to keep up with the module on one CPU, so a
 * line is formatted here with plain stores and written with one fwrite()
 * rather than a dozen fprintf() calls (each parsing its format and taking
 * the stream's lock). The views' JSON uses the same string escaping.
 */
#include <stdio.h>
#include <string.h>

#include "iolayers.h"

char *il_put(char *p, const char *lit)
{
	size_t n = strlen(lit);

	memcpy(p, lit, n);
	return p + n;
}

char *il_put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

char *il_put_i64(char *p, int64_t v)
{
	if (v >= 0)
		return il_put_u64(p, (uint64_t)v);
	*p++ = '-';
	return il_put_u64(p, -(uint64_t)v);
}

char *il_put_str(char *p, const char *s, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	*p++ = '"';
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			p = il_put(p, "\\u00");
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		} else {
			*p++ = (char)c;
		}
	}
	*p++ = '"';
	return p;
}

/**
 * il_json_bytes_to() - A JSON string read back as the bytes il_put_str()
 *	wrote.
 * @buf: where the bytes go, NUL-terminated
 * @len: its size
 * @s: the decoded string (UTF-8)
 *
 * il_put_str() writes each byte outside printable ASCII as \u00XX, which a
 * JSON parser decodes as the character U+00XX, two bytes of UTF-8: each
 * such character becomes its one byte again, so that a comm, disk or path
 * that is not ASCII reads the same from a JSON recording as from a binary
 * one. Other characters stay as they are.
 *
 * Return: 0, or -1 when the bytes do not fit.
 */
int il_json_bytes_to(char *buf, size_t len, const char *s)
{
	size_t n = 0;

	for (; *s; n++) {
		unsigned char c = (unsigned char)*s;

		if (n + 1 >= len)
			return -1;
		if ((c == 0xc2 || c == 0xc3) && ((unsigned char)s[1] & 0xc0) == 0x80) {
			buf[n] = (char)((c & 0x03) << 6 | ((unsigned char)s[1] & 0x3f));
			s += 2;
		} else {
			buf[n] = *s++;
		}
	}
	if (!len)
		return -1;
	buf[n] = '\0';
	return 0;
}

void il_json_str(FILE *out, const char *s, size_t max)
{
	char buf[IL_JSON_STR_MAX(64)];
	size_t i, n;

	fputc('"', out);
	for (i = 0; i < max && s[i]; i += n) {
		char *e;

		n = strnlen(s + i, max - i < 64 ? max - i : 64);
		/* il_put_str's quotes dropped: a string is written in pieces. */
		e = il_put_str(buf, s + i, n);
		fwrite(buf + 1, 1, (size_t)(e - buf) - 2, out);
	}
	fputc('"', out);
}
