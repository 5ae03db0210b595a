// SPDX-License-Identifier: GPL-2.0
/*
 * Strings from the module's files and from recordings, escaped for the
 * output they go to. A file name can hold any byte but '/' and NUL, a
 * process can name itself anything, and a recording or a saved tree can
 * be edited by anyone: on a terminal, control bytes (ESC starts a control
 * sequence, 0x9b is one on an 8-bit terminal) and Unicode's bidirectional
 * overrides would let such a string rewrite or hide what is printed
 * around it; in SVG (XML) '<' and '&' would open markup. JSON and the
 * Prometheus formats escape in their own writers.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "iolayers.h"

/*
 * The UTF-8 sequence at @s: its length (1 to 4), with its code point in
 * @cp, or 0 when @s does not start a well-formed one (a stray continuation
 * byte, an overlong form, a surrogate, past U+10FFFF, cut short).
 */
static int utf8_seq(const unsigned char *s, uint32_t *cp)
{
	int n, i;
	uint32_t c = s[0], min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0) {
		n = 2;
		c &= 0x1f;
		min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3;
		c &= 0x0f;
		min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		n = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* the string's NUL included */
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* A code point a terminal acts on rather than shows: C0, DEL, C1, bidi controls. */
static int term_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x061c || c == 0x200e ||
	       c == 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/**
 * il_term_str() - A string made safe to print on a terminal.
 * @dst: where the escaped string goes
 * @size: its size (4 times the string's length plus 1 holds any string)
 * @src: the string
 *
 * Printable UTF-8 is kept; a backslash becomes "\\", a control byte or a
 * byte that is not well-formed UTF-8 "\xNN", and a C1 or bidirectional
 * control code point "\u{NNNN}". Cut at a whole escape when @dst is short.
 *
 * Return: @dst.
 */
char *il_term_str(char *dst, size_t size, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t o = 0;
	char esc[16];
	uint32_t cp;
	int n;

	if (!size)
		return dst;
	while (*s) {
		const char *piece = (const char *)s;
		size_t len;

		n = utf8_seq(s, &cp);
		if (!n) {
			snprintf(esc, sizeof(esc), "\\x%02x", *s);
			piece = esc;
			len = strlen(esc);
			n = 1;
		} else if (cp == '\\') {
			piece = "\\\\";
			len = 2;
		} else if (term_control(cp)) {
			if (cp < 0x80)
				snprintf(esc, sizeof(esc), "\\x%02x", (unsigned int)cp);
			else
				snprintf(esc, sizeof(esc), "\\u{%04x}", (unsigned int)cp);
			piece = esc;
			len = strlen(esc);
		} else {
			len = (size_t)n;
		}
		if (o + len >= size)
			break;
		memcpy(dst + o, piece, len);
		o += len;
		s += n;
	}
	dst[o] = '\0';
	return dst;
}

/**
 * il_xml_str() - Print a string as XML character data or attribute text.
 * @out: where
 * @src: the string
 * @max: at most this many characters of it
 *
 * The five markup characters become entities, a tab a character
 * reference (no raw control byte in the document); a character XML 1.0
 * does not allow or discourages (another control character, U+FFFE,
 * U+FFFF), a bidirectional control (which would reorder the text around
 * it in a browser) and a byte that is not well-formed UTF-8 become
 * U+FFFD, so that the document stays well-formed and shows what it holds.
 */
void il_xml_str(FILE *out, const char *src, size_t max)
{
	const unsigned char *s = (const unsigned char *)src;
	uint32_t cp;
	size_t i;
	int n;

	for (i = 0; i < max && *s; i++, s += n) {
		n = utf8_seq(s, &cp);
		if (!n) {
			fputs("&#xFFFD;", out);
			n = 1;
			continue;
		}
		switch (cp) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		case '\t':	/* allowed, but as a reference: no raw control byte */
			fputs("&#9;", out);
			break;
		default:
			if (term_control(cp) || cp == 0xfffe || cp == 0xffff)
				fputs("&#xFFFD;", out);
			else
				fwrite(s, 1, (size_t)n, out);
		}
	}
}

/**
 * il_term_pad() - A string made safe to print on a terminal, padded to a
 *	column's width.
 * @dst: where the escaped string goes
 * @size: its size (IL_TERM_LEN() of the string's length plus @width)
 * @src: the string
 * @width: the column's width in characters
 *
 * As il_term_str(), then spaces until the string fills @width characters:
 * a field printed with "%-15s" is padded by bytes, and a name in UTF-8 or
 * with escapes would shift every column after it. A character is counted
 * as one column (East Asian wide ones take two on most terminals).
 *
 * Return: @dst.
 */
char *il_term_pad(char *dst, size_t size, const char *src, int width)
{
	size_t o;
	int cols = 0;

	if (!size)
		return dst;
	il_term_str(dst, size, src);
	for (o = 0; dst[o]; o++)
		if (((unsigned char)dst[o] & 0xc0) != 0x80)
			cols++;
	for (; cols < width && o + 1 < size; cols++)
		dst[o++] = ' ';
	dst[o] = '\0';
	return dst;
}
