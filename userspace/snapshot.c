// SPDX-License-Identifier: GPL-2.0
/*
 * iolayers reader: what it computes from parsed snapshots (merged
 * histograms, percentiles, interval deltas, picking a flow), apart from
 * parsing (parse.c) and printing (the views).
 */

#include <stdio.h>
#include <string.h>
#include <time.h>
#include "iolayers.h"

/**
 * il_pct_rank() - The rank of a percentile among @count values: ceil(count
 *	* pct / 100), at least 1, without overflow for any count.
 * @count: values
 * @pct: the percentile, 0..100
 *
 * Return: the rank, from 1.
 */
uint64_t il_pct_rank(uint64_t count, unsigned int pct)
{
	uint64_t rank = count / 100 * pct + (count % 100 * pct + 99) / 100;

	return rank < 1 ? 1 : rank;
}

/**
 * il_fmt_wall() - A recording's time on the wall clock.
 * @buf: where it goes
 * @len: its size
 * @ns: a CLOCK_MONOTONIC time of the recording
 * @off: the recording's anchor (CLOCK_REALTIME minus CLOCK_MONOTONIC, ns;
 *	0: none)
 * @fmt: strftime()'s format of local time
 *
 * Without an anchor, or for a time no calendar holds, @ns in seconds.
 */
void il_fmt_wall(char *buf, size_t len, int64_t ns, int64_t off, const char *fmt)
{
	/* Unsigned: each is below 2^63, their sum need not be. */
	uint64_t wall = (uint64_t)ns + (uint64_t)off;
	time_t t = (time_t)(wall / 1000000000);
	struct tm tm;

	if (!off || ns < 0 || wall / 1000000000 > (uint64_t)INT32_MAX * 1000 ||
	    !localtime_r(&t, &tm) || !strftime(buf, len, fmt, &tm))
		snprintf(buf, len, "%.3f", ns / 1e9);
}

/* The bounds of log2 bucket @i: [2^i, 2^(i+1)), bucket 0 [0, 2). */
int il_bucket(uint64_t ns)
{
	int b = ns ? 63 - __builtin_clzll(ns) : 0;

	return b < IOLAYERS_HIST_BUCKETS ? b : IOLAYERS_HIST_BUCKETS - 1;
}

uint64_t il_bucket_lo(int i)
{
	return i ? (uint64_t)1 << i : 0;
}

uint64_t il_bucket_hi(int i)
{
	return i == IOLAYERS_HIST_BUCKETS - 1 ? UINT64_MAX : ((uint64_t)2 << i) - 1;
}

void il_hist_merge(struct il_hist *into, const struct il_hist *h)
{
	int i;

	into->exact = 0;	/* percentiles of a merge: recomputed (il_hist_range()) */
	if (!h->count)
		return;
	if (!into->count || h->min_ns < into->min_ns)
		into->min_ns = h->min_ns;
	if (h->max_ns > into->max_ns)
		into->max_ns = h->max_ns;
	into->count = il_sat_add(into->count, h->count);
	into->sum_ns = il_sat_add(into->sum_ns, h->sum_ns);
	into->bytes = il_sat_add(into->bytes, h->bytes);
	for (i = 0; i < IOLAYERS_HIST_BUCKETS; i++)
		into->buckets[i] = il_sat_add(into->buckets[i], h->buckets[i]);
}

/*
 * @a * @b / @c rounded down, exact, for a quotient that fits 64 bits (@b
 * <= @c here), without 128-bit integers: 32-bit targets (i386, armhf)
 * have none. The product in two 64-bit halves from 32-bit limbs, then a
 * long division a bit at a time (percentiles are not a hot path).
 */
static uint64_t il_mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
	uint64_t lo = (p00 & 0xffffffffu) | (mid << 32);
	uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	uint64_t q = 0, r = 0;
	int i;

	for (i = 127; i >= 0; i--) {
		uint64_t bit = i >= 64 ? (hi >> (i - 64)) & 1 : (lo >> i) & 1;
		int carry = (int)(r >> 63);

		/* With the carry, r is 2^64 more than it holds: >= c. */
		r = (r << 1) | bit;
		if (carry || r >= c) {
			r -= c;
			if (i < 64)
				q |= 1ULL << i;
		}
	}
	return q;
}

/*
 * The module's algorithm (iolayers_hist_percentile()), so both agree on
 * what the module can count; the rank ceil(count * pct / 100) here
 * without overflow for any count a saved tree may hold.
 */
uint64_t il_hist_percentile(const struct il_hist *h, unsigned int pct)
{
	uint64_t rank, cum = 0, lo, width, v;
	int i;

	if (!h->count)
		return 0;
	if (h->exact && (pct == 50 || pct == 90 || pct == 99))
		return h->pct[pct == 50 ? 0 : pct == 90 ? 1 : 2];
	if (pct > 100)
		pct = 100;
	rank = il_pct_rank(h->count, pct);
	for (i = 0; i < IOLAYERS_HIST_BUCKETS; i++) {
		uint64_t c = h->buckets[i];

		if (!c || il_sat_add(cum, c) < rank) {
			cum = il_sat_add(cum, c);
			continue;
		}
		lo = i ? 1ULL << i : 0;
		width = i ? 1ULL << i : 2;
		v = lo + il_mul_div(width, rank - cum, c);
		if (v < lo)	/* the last bucket's end: 2^64 */
			v = UINT64_MAX;
		if (v < h->min_ns)
			v = h->min_ns;
		if (v > h->max_ns)
			v = h->max_ns;
		return v;
	}
	return h->max_ns;
}

/* A layer's histogram over the cache states in @mask (bit per state). */
void il_layer_hist(const struct il_snapshot *s, int layer, unsigned int mask, struct il_hist *out)
{
	il_hist_range(s, 1U << layer, mask, out);
}

/*
 * The reads' whole time, over the cache states in @mask: their top
 * layers' histograms merged, the read-family syscalls', the requests'
 * (io_uring's from format 8, AIO's from format 9) and the page faults'
 * (format 9). The module notes a request or a fault in its layer and not
 * in the syscall's: each read once.
 */
void il_reads_hist(const struct il_snapshot *s, unsigned int mask, struct il_hist *out)
{
	unsigned int lmask = 0;
	int v;

	for (v = 0; v < IL_NR_VIA; v++)
		lmask |= 1U << iolayers_via_layer(v);
	il_hist_range(s, lmask, mask, out);
}

/* The reads in a cache state. */
uint64_t il_cache_reads(const struct il_snapshot *s, int cache)
{
	struct il_hist h;

	il_reads_hist(s, 1U << cache, &h);
	return h.count;
}

/*
 * The flow with @seq, or the slowest when @seq is 0: by its whole
 * latency, a syscall's, a request's or a fault's (il_flow_ns()).
 */
const struct il_flow *il_pick_flow(const struct il_flows *fl, uint64_t seq, int cache)
{
	const struct il_flow *best = NULL;
	int i;

	for (i = 0; i < fl->n; i++) {
		const struct il_flow *f = &fl->v[i];

		if (seq) {
			if (f->seq == seq)
				return f;
			continue;
		}
		if (cache >= 0 && f->cache != cache)
			continue;
		if (!best || il_flow_ns(f) > il_flow_ns(best))
			best = f;
	}
	return best;
}

/*
 * @now minus @before, for interval mode: histograms and counters subtract;
 * min/max of a delta are the bounds of its lowest/highest bucket; @d keeps
 * no flows and no files, and shares @now's counters (free @now, not @d).
 */
void il_snapshot_delta(struct il_snapshot *d, const struct il_snapshot *now,
		       const struct il_snapshot *before)
{
	int l, c, i, j;

	*d = *now;
	d->flows.v = d->slow.v = NULL;
	d->files.v = NULL;
	memset(&d->files, 0, sizeof(d->files));
	memset(&d->fsums, 0, sizeof(d->fsums));
	memset(&d->dsums, 0, sizeof(d->dsums));
	memset(d->fine, 0, sizeof(d->fine));
	d->flows.n = d->slow.n = d->flows.cap = d->slow.cap = 0;
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
			struct il_hist *h = &d->hist[l][c];
			const struct il_hist *b = &before->hist[l][c];
			int lo = -1, hi = -1;

			h->exact = 0;
			if (h->count < b->count)	/* reset in between: all of @now */
				continue;
			h->count -= b->count;
			h->sum_ns -= b->sum_ns;
			h->bytes -= b->bytes;
			for (i = 0; i < IOLAYERS_HIST_BUCKETS; i++) {
				h->buckets[i] -= b->buckets[i];
				if (h->buckets[i]) {
					if (lo < 0)
						lo = i;
					hi = i;
				}
			}
			h->min_ns = lo < 0 ? UINT64_MAX : il_bucket_lo(lo);
			h->max_ns = hi < 0 ? 0 : il_bucket_hi(hi);
		}
	for (i = 0; i < d->nprobes; i++)
		for (j = 0; j < before->nprobes; j++)
			if (!strcmp(d->probes[i].name, before->probes[j].name)) {
				struct il_probe *p = &d->probes[i];
				const struct il_probe *b = &before->probes[j];

				if (p->hits >= b->hits)
					p->hits -= b->hits;
				/* -1 (not shown) stays; a reset in between keeps the total. */
				if (b->calls >= 0 && p->calls >= b->calls && p->timed >= b->timed &&
				    p->timed_ns >= b->timed_ns) {
					p->calls -= b->calls;
					p->timed -= b->timed;
					p->timed_ns -= b->timed_ns;
				}
			}
}
