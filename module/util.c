// SPDX-License-Identifier: GPL-2.0
/* Pure helpers (no probe, no state): parameter parsing and log2 bucketing. */

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/threads.h>
#include <linux/errno.h>
#include <iolayers/iolayers.h>
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
 * iolayers_log2_bucket() - Histogram bucket of a value.
 * @value: a latency in ns or a size in bytes
 *
 * Bucket 0 holds 0 and 1; bucket i (i >= 1) holds [2^i, 2^(i+1)).
 *
 * Context: any.
 * Return: bucket index in 0..IOLAYERS_HIST_BUCKETS-1.
 */
unsigned int iolayers_log2_bucket(u64 value)
{
	if (value < 2)
		return 0;
	return min_t(unsigned int, ilog2(value), IOLAYERS_HIST_BUCKETS - 1);
}
