/* SPDX-License-Identifier: GPL-2.0 */
/* The cache state of a read: HIT, MISS, PARTIAL, DIRECT, other, UNK or ERROR. */
#ifndef _IOLAYERS_CACHE_H
#define _IOLAYERS_CACHE_H

#include <linux/types.h>
#include <uapi/iolayers.h>

struct iolayers_task_flow;

/**
 * iolayers_cache_decide() - The cache state of one finished read().
 * @fs_reached: the read went through the FS layer (a file system read)
 * @fs_whole: the FS layer's probes are attached and none of its function
 *	entries was refused during the read (what it saw is all there was)
 * @failed: the syscall returned an error
 * @direct: the FS call had IOCB_DIRECT
 * @range_pages: pages in the byte range the FS call returned
 * @added_pages: pages of that range the reading task added to the page
 *	cache during the call
 * @iowait: the task slept in I/O wait during the FS call
 * @foreign: the task queued I/O of another file or of swap during the
 *	call (a fault on the user buffer): an I/O wait may have been for it
 *
 * A failed read is ERROR here only once it reached the FS layer: one that
 * failed before (a bad file descriptor, a buffer access_ok() refused) is
 * not known to be a file system read and stays other (or UNK), unless
 * its VFS entry saw a regular file of a block file system and it failed
 * with -EIO (iolayers_cache_state()).
 *
 * Inline: it runs at every read's end.
 *
 * Context: any.
 * Return: the state; see &enum iolayers_cache.
 */
static inline enum iolayers_cache
iolayers_cache_decide(bool fs_reached, bool fs_whole, bool failed, bool direct,
		      u64 range_pages, u64 added_pages, bool iowait, bool foreign)
{
	if (!fs_whole)
		return IOLAYERS_C_UNK;
	if (!fs_reached)
		return IOLAYERS_C_OTHER;
	if (failed)
		return IOLAYERS_C_ERROR;
	if (direct)
		return IOLAYERS_C_DIRECT;
	if (!added_pages && !iowait)
		return IOLAYERS_C_HIT;
	if (range_pages && added_pages >= range_pages)
		return IOLAYERS_C_MISS;
	/* Waited, added nothing: on its own I/O in flight, or the other? */
	if (!added_pages && foreign)
		return IOLAYERS_C_UNK;
	return IOLAYERS_C_PARTIAL;
}

enum iolayers_cache iolayers_cache_state(const struct iolayers_task_flow *f, long ret);
u64 iolayers_ra_pages_sum(void);
void iolayers_cache_reset(void);

#endif /* _IOLAYERS_CACHE_H */
