// SPDX-License-Identifier: GPL-2.0
/* BLOCK layer: blk-mq request tracepoints. */

#include <linux/tracepoint.h>
#include <iolayers/iolayers.h>

struct request;

/* Prototype of TRACE_EVENT(block_rq_issue), include/trace/events/block.h. */
static void iolayers_block_rq_issue(void *data, struct request *rq)
{
	if (iolayers_traced())
		iolayers_hit(IOLAYERS_P_BLOCK_RQ_ISSUE);
}

/**
 * iolayers_block_register() - Attach the BLOCK layer's tracepoints.
 *
 * Context: process context, may sleep.
 */
void iolayers_block_register(void)
{
	iolayers_tracepoint_attach(&iolayers_probes[IOLAYERS_P_BLOCK_RQ_ISSUE],
				   iolayers_block_rq_issue, NULL);
}

/**
 * iolayers_block_unregister() - Detach the BLOCK layer's tracepoints.
 *
 * Context: process context, may sleep.
 */
void iolayers_block_unregister(void)
{
	iolayers_tracepoint_detach(&iolayers_probes[IOLAYERS_P_BLOCK_RQ_ISSUE],
				   iolayers_block_rq_issue, NULL);
}
