// SPDX-License-Identifier: GPL-2.0
/*
 * The reader's model of the reads: what every source (the live module's
 * files, a JSON or a binary recording) feeds read by read and every view
 * prints. A recording is read as a stream: each read adds to the
 * histograms, the fine histograms of its percentiles, the per-file and
 * per-disk sums, and is kept only when its view needs it (enum il_keep):
 * memory grows with files, disks and buckets, not with reads.
 */
#include <stdlib.h>
#include <string.h>
#include "iolayers.h"

static void fine_pcts(const struct il_snapshot *s, unsigned int lmask, unsigned int cmask,
		      struct il_hist *out);

static void hist_add(struct il_hist *h, uint64_t v, uint64_t bytes)
{
	int b = il_bucket(v);

	if (!h->count || v < h->min_ns)
		h->min_ns = v;
	if (v > h->max_ns)
		h->max_ns = v;
	h->count = il_sat_add(h->count, 1);
	h->sum_ns = il_sat_add(h->sum_ns, v);
	h->bytes = il_sat_add(h->bytes, bytes);
	h->buckets[b] = il_sat_add(h->buckets[b], 1);
}

static int fine_add(struct il_snapshot *s, int l, int c, uint64_t ns)
{
	struct il_fine *fi = s->fine[l][c];

	if (!fi) {
		fi = calloc(1, sizeof(*fi));
		if (!fi)
			return -1;
		s->fine[l][c] = fi;
	}
	fi->b[il_fine_bucket(ns)]++;
	return 0;
}

/* --files: the read's file's sums (reads of files past IL_MAX_FSUMS counted apart). */
static int fsum_add(struct il_fsums *fs, const struct il_flow *f)
{
	struct il_fsum *x;
	int j, l;

	if (f->ino < 0)
		return 0;	/* no file seen: format 5, or no VFS entry */
	j = il_fmap_get(&fs->map, f->fs_dev, f->ino);
	if (j < 0) {
		if (fs->n >= IL_MAX_FSUMS) {
			fs->dropped++;
			return 0;
		}
		if (fs->n == fs->cap) {
			int cap = fs->cap ? 2 * fs->cap : 64;
			struct il_fsum *v = realloc(fs->v, (size_t)cap * sizeof(*v));

			if (!v)
				return -1;
			fs->v = v;
			fs->cap = cap;
		}
		if (il_fmap_put(&fs->map, f->fs_dev, f->ino, fs->n))
			return -1;
		j = fs->n++;
		x = &fs->v[j];
		memset(x, 0, sizeof(*x));
		strcpy(x->fs_dev, f->fs_dev);
		x->ino = f->ino;
	}
	x = &fs->v[j];
	x->reads++;
	x->bytes += f->ret > 0 ? (uint64_t)f->ret : 0;
	if (f->cache != IOLAYERS_C_OTHER)
		x->files++;
	x->hits += f->cache == IOLAYERS_C_HIT;
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		x->ns[l] += f->lat[l] > 0 ? (double)f->lat[l] : 0;
	return 0;
}

/* -D: the queue, service and device times of a read with requests, by its first disk. */
static int dsum_add(struct il_dsums *ds, const struct il_flow *f)
{
	static const int layers[3] = { IOLAYERS_L_QUEUE, IOLAYERS_L_SERVICE, IOLAYERS_L_DEVICE };
	size_t len;
	int d, k;

	if (f->rqs <= 0 || !strcmp(f->disk, "-"))
		return 0;
	len = strcspn(f->disk, "+");
	for (d = 0; d < ds->n; d++)
		if (strlen(ds->v[d].name) == len && !strncmp(ds->v[d].name, f->disk, len))
			break;
	if (d == ds->n) {
		if (ds->n >= IL_MAX_DSUMS) {
			ds->dropped++;
			return 0;
		}
		if (!ds->v) {
			ds->v = calloc(IL_MAX_DSUMS, sizeof(*ds->v));
			if (!ds->v)
				return -1;
		}
		memcpy(ds->v[d].name, f->disk, len);
		ds->v[d].name[len] = '\0';
		for (k = 0; k < 3; k++)
			ds->v[d].h[k].min_ns = UINT64_MAX;
		ds->n++;
	}
	for (k = 0; k < 3; k++)
		if (f->lat[layers[k]] >= 0)
			hist_add(&ds->v[d].h[k], (uint64_t)f->lat[layers[k]],
				 (uint64_t)f->rq_bytes);
	return 0;
}

static int flows_push(struct il_flows *fl, const struct il_flow *f)
{
	if (fl->n == fl->cap) {
		int cap = fl->cap ? fl->cap * 2 : 256;
		struct il_flow *v = realloc(fl->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -1;
		fl->v = v;
		fl->cap = cap;
	}
	fl->v[fl->n++] = *f;
	return 0;
}

/* The newest @max of the reads pushed: a ring once full, @*next its oldest. */
static int ring_push(struct il_flows *fl, int max, int *next, const struct il_flow *f)
{
	if (fl->n < max)
		return flows_push(fl, f);
	if (max) {
		fl->v[*next] = *f;
		*next = (*next + 1) % max;
	}
	return 0;
}

static void flows_reverse(struct il_flow *v, int n)
{
	int i;

	for (i = 0; i < n / 2; i++) {
		struct il_flow t = v[i];

		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
}

/* A ring in its order, oldest first, in place (no allocation to fail). */
static void ring_rotate(struct il_flows *fl, int *next)
{
	if (!*next)
		return;
	flows_reverse(fl->v, *next);
	flows_reverse(fl->v + *next, fl->n - *next);
	flows_reverse(fl->v, fl->n);
	*next = 0;
}

/* The slowest @n: a heap with the fastest kept at its top, replaced by a slower read. */
static void heap_down(struct il_flow *v, int n, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		struct il_flow t;

		if (l < n && il_flow_ns(&v[l]) < il_flow_ns(&v[m]))
			m = l;
		if (r < n && il_flow_ns(&v[r]) < il_flow_ns(&v[m]))
			m = r;
		if (m == i)
			return;
		t = v[i];
		v[i] = v[m];
		v[m] = t;
		i = m;
	}
}

static int keep_slowest(struct il_flows *fl, int n, const struct il_flow *f)
{
	int i;

	if (fl->n < n) {
		if (flows_push(fl, f))
			return -1;
		/* Up: the heap's order as it fills. */
		for (i = fl->n - 1; i > 0; i = (i - 1) / 2) {
			int up = (i - 1) / 2;
			struct il_flow t = fl->v[i];

			if (il_flow_ns(&fl->v[up]) <= il_flow_ns(&fl->v[i]))
				break;
			fl->v[i] = fl->v[up];
			fl->v[up] = t;
		}
		return 0;
	}
	if (n && il_flow_ns(f) > il_flow_ns(&fl->v[0])) {
		fl->v[0] = *f;
		heap_down(fl->v, fl->n, 0);
	}
	return 0;
}

/* Each histogram's exact percentiles from its fine one. */
static void model_pcts(struct il_snapshot *s)
{
	int l, c;

	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
			struct il_hist *h = &s->hist[l][c];

			if (!h->count)
				h->min_ns = UINT64_MAX;
			else
				fine_pcts(s, 1U << l, 1U << c, h);
		}
}

/*
 * The interval ending at @s->ival_end, to its printer if a read ended in
 * it (the counts then the interval's), and the model emptied for the next.
 */
static void interval_end(struct il_snapshot *s)
{
	int64_t reads = s->rec_reads, lost = s->rec_lost;
	int l, c;

	if (s->ival_reads || s->ival_lost) {
		model_pcts(s);
		s->rec_reads = s->ival_reads;
		s->rec_lost = s->ival_lost;
		s->on_interval(s, s->ival_end > INT64_MAX ? INT64_MAX : (int64_t)s->ival_end);
		s->rec_reads = reads;
		s->rec_lost = lost;
	}
	s->ival_reads = s->ival_lost = 0;
	s->view_reads = 0;
	memset(s->hist, 0, sizeof(s->hist));
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		for (c = 0; c < IOLAYERS_NR_CACHE; c++)
			if (s->fine[l][c])
				memset(s->fine[l][c], 0, sizeof(*s->fine[l][c]));
}

/*
 * Interval mode: the intervals before the one a read ending at @end_ns is
 * in, each given to the printer (those without reads left out). A read
 * that ended before the interval being filled (its CPU's record came
 * late) is counted in it.
 */
static void interval_reach(struct il_snapshot *s, int64_t end_ns)
{
	/* Unsigned: a read's end and the anchor are each below 2^63, not their sum. */
	uint64_t iv = (uint64_t)s->interval_ns, end = (uint64_t)end_ns;

	if (!s->ival_end)
		s->ival_end = end + iv - (end + (uint64_t)s->realtime_off) % iv;
	if (end < s->ival_end)
		return;
	interval_end(s);
	/* Past a gap: straight to the interval of @end_ns. */
	s->ival_end += (end - s->ival_end) / iv * iv + iv;
}

/**
 * il_model_lost() - Records a recording lost, where they were lost.
 * @s: the snapshot being read
 * @n: how many
 */
void il_model_lost(struct il_snapshot *s, int64_t n)
{
	s->rec_lost += n;
	s->ival_lost += n;
	if (s->perfetto)
		il_perfetto_lost(s->perfetto, n);
}

/**
 * il_model_add() - A recording's read into the model.
 * @s: the snapshot being read; its filters and @keep set
 * @f: the read, valid (il_flow_check())
 *
 * Its layers' samples go into the histograms, as the module adds its own
 * (iolayers_flow_finish(), a request's iolayers_flow_req_record(): bytes
 * as it counts them), and the fine ones; then, if the per-read views show
 * it (-c), into the per-file and per-disk sums, and it is kept if its
 * view needs it.
 *
 * Return: 0, or -1 when out of memory.
 */
int il_model_add(struct il_snapshot *s, const struct il_flow *f)
{
	int l;

	if (s->interval_ns) {
		interval_reach(s, f->start_ns + il_flow_ns(f));
		s->ival_reads++;
	}
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++) {
		uint64_t bytes = l <= IOLAYERS_L_FS || l >= IOLAYERS_L_SOCK ?
				 (f->ret > 0 ? (uint64_t)f->ret : 0) : (uint64_t)f->rq_bytes;

		if (f->lat[l] < 0)
			continue;
		hist_add(&s->hist[l][f->cache], (uint64_t)f->lat[l], bytes);
		if (fine_add(s, l, f->cache, (uint64_t)f->lat[l]))
			return -1;
	}
	if (s->view_cache_mask && !(s->view_cache_mask & 1U << f->cache))
		return 0;
	if (s->heat && il_heat_add(s->heat, f, s->realtime_off))
		return -1;
	if (s->interval_ns)
		return 0;	/* intervals print histograms only */
	if (s->perfetto && il_perfetto_read(s->perfetto, f))
		return -1;
	s->view_reads++;
	if (fsum_add(&s->fsums, f) || dsum_add(&s->dsums, f))
		return -1;
	if (!s->no_slow && il_flow_ns(f) >= s->slow_ns) {
		int max = s->slow_max ? s->slow_max : IL_MAX_SLOW;

		if (s->slow.n == max)
			s->slow_dropped++;
		if (ring_push(&s->slow, max, &s->slow_next, f))
			return -1;
	}
	switch (s->keep) {
	case IL_KEEP_ALL:
		return flows_push(&s->flows, f);
	case IL_KEEP_SLOWEST:
		return keep_slowest(&s->flows, s->keep_n, f);
	case IL_KEEP_NEWEST:
		return ring_push(&s->flows, s->keep_n, &s->keep_next, f);
	case IL_KEEP_SEQ:
		return f->seq == s->keep_seq && !s->flows.n ? flows_push(&s->flows, f) : 0;
	default:
		return 0;
	}
}

/* Exact percentiles of the fine histograms of layers @lmask and states @cmask, into @out. */
static void fine_pcts(const struct il_snapshot *s, unsigned int lmask, unsigned int cmask,
		      struct il_hist *out)
{
	static const unsigned int pcts[3] = { 50, 90, 99 };
	const struct il_fine *sel[IOLAYERS_NR_LAYERS * IOLAYERS_NR_CACHE];
	uint64_t total = 0, rank[3], cum = 0;
	int l, c, i, k = 0, n = 0, j;

	out->exact = 0;
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		for (c = 0; c < IOLAYERS_NR_CACHE; c++)
			if ((lmask & 1U << l) && (cmask & 1U << c) && s->hist[l][c].count) {
				if (!s->fine[l][c])
					return;	/* a sample without its fine one: not exact */
				sel[n++] = s->fine[l][c];
				total += s->hist[l][c].count;
			}
	if (!total || total != out->count)
		return;
	for (j = 0; j < 3; j++) {
		rank[j] = il_pct_rank(total, pcts[j]);
	}
	for (i = 0; i < IL_FINE_BUCKETS && k < 3; i++) {
		for (j = 0; j < n; j++)
			cum += sel[j]->b[i];
		for (; k < 3 && cum >= rank[k]; k++) {
			out->pct[k] = il_fine_mid(i);
			if (out->pct[k] < out->min_ns)
				out->pct[k] = out->min_ns;
			if (out->pct[k] > out->max_ns)
				out->pct[k] = out->max_ns;
		}
	}
	out->exact = k == 3;
}

/**
 * il_hist_range() - The histogram of layers @lmask over cache states @cmask.
 * @s: the snapshot
 * @lmask: bit per layer
 * @cmask: bit per cache state
 * @out: the merged histogram; its percentiles exact when @s is a
 *	recording (its fine histograms)
 */
void il_hist_range(const struct il_snapshot *s, unsigned int lmask, unsigned int cmask,
		   struct il_hist *out)
{
	int l, c;

	memset(out, 0, sizeof(*out));
	out->min_ns = UINT64_MAX;
	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		for (c = 0; c < IOLAYERS_NR_CACHE; c++)
			if ((lmask & 1U << l) && (cmask & 1U << c))
				il_hist_merge(out, &s->hist[l][c]);
	if (s->recording)
		fine_pcts(s, lmask, cmask, out);
}

/**
 * il_model_finish() - A recording read whole: the last interval printed
 *	(interval mode), the newest reads kept in their order, each
 *	histogram's exact percentiles.
 * @s: the snapshot
 */
void il_model_finish(struct il_snapshot *s)
{
	if (s->interval_ns && !s->ival_end && s->ival_lost)
		s->ival_end = 1;	/* losses and no read: one interval says so */
	if (s->interval_ns && s->ival_end)
		interval_end(s);	/* the last, however short */
	if (s->keep == IL_KEEP_NEWEST)
		ring_rotate(&s->flows, &s->keep_next);
	ring_rotate(&s->slow, &s->slow_next);
	model_pcts(s);
}

/* The per-file and per-disk sums, emptied. */
static void sums_free(struct il_snapshot *s)
{
	free(s->fsums.v);
	il_fmap_free(&s->fsums.map);
	free(s->dsums.v);
	memset(&s->fsums, 0, sizeof(s->fsums));
	memset(&s->dsums, 0, sizeof(s->dsums));
}

/**
 * il_model_sum_flows() - The per-file and per-disk sums of the reads in
 *	@s->flows (live: the newest the module keeps; again once -p and -c
 *	have filtered them), in place of any before.
 * @s: the snapshot
 *
 * Return: 0, or -1 when out of memory.
 */
int il_model_sum_flows(struct il_snapshot *s)
{
	int i;

	sums_free(s);
	s->view_reads = 0;
	for (i = 0; i < s->flows.n; i++) {
		if (fsum_add(&s->fsums, &s->flows.v[i]) || dsum_add(&s->dsums, &s->flows.v[i]))
			return -1;
		s->view_reads++;
	}
	return 0;
}

/**
 * il_model_free() - What the model allocated in @s.
 * @s: the snapshot
 */
void il_model_free(struct il_snapshot *s)
{
	int l, c;

	for (l = 0; l < IOLAYERS_NR_LAYERS; l++)
		for (c = 0; c < IOLAYERS_NR_CACHE; c++) {
			free(s->fine[l][c]);
			s->fine[l][c] = NULL;
		}
	sums_free(s);
	if (s->heat) {
		il_heat_free(s->heat);
		free(s->heat);
		s->heat = NULL;
	}
}
