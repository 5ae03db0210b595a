// SPDX-License-Identifier: GPL-2.0
/* Pure helpers (no probe, no state): parsing, log2 buckets, percentiles. */

#include <linux/kernel.h>
#include <linux/ctype.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/threads.h>
#include <linux/errno.h>
#include <iolayers/iolayers.h>
#include <iolayers/hist.h>
#include <iolayers/flow.h>
#include <uapi/iolayers.h>

/**
 * iolayers_parse_pid() - Parse a process id given by the user.
 * @val: the text, as written to the module parameter or debugfs
 * @out: where the parsed id is stored on success
 *
 * Accepts a decimal number in 1..PID_MAX_LIMIT, with an optional trailing
 * newline. Does not check that the process exists.
 *
 * Context: any.
 * Return: 0 on success, -EINVAL when @val is not such a number.
 */
int iolayers_parse_pid(const char *val, pid_t *out)
{
	int v;

	if (!val || kstrtoint(val, 10, &v) || v <= 0 || v > PID_MAX_LIMIT)
		return -EINVAL;
	*out = v;
	return 0;
}

/**
 * iolayers_parse_comm() - Parse a task name given by the user.
 * @val: the text; one trailing newline is ignored
 * @out: TASK_COMM_LEN bytes, set to the name NUL-padded on success
 *
 * An empty name is valid: it turns the comm filter off.
 *
 * Context: any.
 * Return: 0 on success, -EINVAL when the name is longer than the kernel
 * keeps (TASK_COMM_LEN - 1) or has a control character.
 */
int iolayers_parse_comm(const char *val, char *out)
{
	size_t len, i;

	if (!val)
		return -EINVAL;
	len = strlen(val);
	if (len && val[len - 1] == '\n')
		len--;
	if (len >= TASK_COMM_LEN)
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (iscntrl(val[i]))
			return -EINVAL;
	memset(out, 0, TASK_COMM_LEN);
	memcpy(out, val, len);
	return 0;
}

/**
 * iolayers_hist_percentile() - Interpolated percentile of a log2 histogram.
 * @h: the histogram (summed over CPUs)
 * @pct: the percentile, 0..100
 *
 * Finds the bucket holding the sample of rank ceil(count * pct / 100) and
 * interpolates linearly inside it, assuming its samples are spread evenly
 * over [2^i, 2^(i+1)) ([0, 2) for bucket 0). The answer is clamped to the
 * histogram's exact min and max (so p100 is the max, and a histogram of one
 * value gives that value for every percentile).
 *
 * Context: any.
 * Return: the percentile in the histogram's unit, 0 when it is empty.
 */
u64 iolayers_hist_percentile(const struct iolayers_hist *h, unsigned int pct)
{
	u64 rank, cum = 0, lo, width, v;
	unsigned int i;

	if (!h->count)
		return 0;
	pct = min(pct, 100U);
	rank = max_t(u64, 1, div_u64(h->count * pct + 99, 100));
	for (i = 0; i < IOLAYERS_HIST_BUCKETS; i++) {
		u64 c = h->buckets[i];

		if (!c || cum + c < rank) {
			cum += c;
			continue;
		}
		lo = i ? 1ULL << i : 0;
		width = i ? 1ULL << i : 2;
		v = lo + mul_u64_u64_div_u64(width, rank - cum, c);
		return clamp(v, h->min_ns, h->max_ns);
	}
	return h->max_ns;
}

/**
 * iolayers_rq_add_bio() - Add a bound bio to its request's entry.
 * @r: the request's entry
 * @b: the bio's entry (its flow and bytes)
 *
 * Bios of one flow share a slot; the request's queue start is its earliest
 * bio's queue time.
 *
 * Context: any.
 * Return: false when the entry already holds IOLAYERS_RQ_FLOWS other flows
 * (the bio is not attributed).
 */
bool iolayers_rq_add_bio(struct iolayers_rq *r, const struct iolayers_bio *b)
{
	unsigned int i;

	for (i = 0; i < r->nr_flows; i++)
		if (r->flows[i].seq == b->flow.seq && r->flows[i].tid == b->flow.tid)
			break;
	if (i == IOLAYERS_RQ_FLOWS)
		return false;
	if (i == r->nr_flows) {
		r->flows[i] = b->flow;
		r->nr_flows++;
	}
	r->bytes[i] += b->bytes;
	if (!r->queue_ns || b->queue_ns < r->queue_ns)
		r->queue_ns = b->queue_ns;
	return true;
}

/**
 * iolayers_rq_other_life() - Is a request's entry left from an earlier use?
 * @r: the entry found for the request's address
 * @pos: the request's first sector now
 * @issuing: the request is being set up or issued (not completed)
 *
 * Requests are reused per tag: an entry whose completion was missed must
 * not be mistaken for the new request. It is another life when the sector
 * differs, or when an entry already issued is issued again without a
 * requeue in between.
 *
 * Context: any.
 * Return: true when @r does not describe the request now.
 */
bool iolayers_rq_other_life(const struct iolayers_rq *r, sector_t pos, bool issuing)
{
	if (r->sector != pos)
		return true;
	return issuing && r->first_issue_ns && !r->requeued;
}

/**
 * iolayers_blk_fold() - Fold a completed request into one of its flows.
 * @a: the flow's BLOCK/DEVICE part
 * @r: the request's entry
 * @i: the flow's slot in @r
 * @now: completion time
 * @error: the request failed
 *
 * Bytes add up (only the flow's own bios' bytes); latencies keep the
 * longest request's; times keep the first issue and the last completions.
 *
 * Context: any, under the flow's lock.
 */
void iolayers_blk_fold(struct iolayers_blk_acc *a, const struct iolayers_rq *r,
		       unsigned int i, u64 now, bool error)
{
	a->nr_rqs++;
	a->rq_bytes += r->bytes[i];
	a->requeues += r->requeues;
	a->errors += error;
	a->queue_ns = max(a->queue_ns, r->queue_lat);
	a->service_ns = max(a->service_ns, now - r->issue_ns);
	if (r->setup_ns && r->devdone_ns) {
		a->device_ns = max(a->device_ns, r->devdone_ns - r->setup_ns);
		a->device_at = max(a->device_at, r->devdone_ns);
	}
	if (!a->issue_at || r->first_issue_ns < a->issue_at)
		a->issue_at = r->first_issue_ns;
	a->done_at = max(a->done_at, now);
}

/**
 * iolayers_expired() - Is an entry older than the expiry age?
 * @born_ns: when it was added (ktime_get_ns())
 * @now_ns: now
 * @max_age_ns: the age beyond which it is expired; 0 expires everything
 *	added before now
 *
 * An entry added after @now_ns was read (another CPU) is never expired.
 *
 * Context: any.
 * Return: true when @born_ns is more than @max_age_ns before @now_ns.
 */
bool iolayers_expired(u64 born_ns, u64 now_ns, u64 max_age_ns)
{
	return born_ns < now_ns && now_ns - born_ns > max_age_ns;
}
