// SPDX-License-Identifier: GPL-2.0
/*
 * DEVICE layer: the NVMe driver's tracepoints nvme_setup_cmd and
 * nvme_complete_rq. They live in the nvme_core module: the registry
 * attaches them when nvme_core is (or gets) loaded and lets go when it
 * goes away. Without them (no NVMe, or virtio-blk) the DEVICE layer shows
 * as missing and only the BLOCK layer's issue-to-complete service time is
 * measured.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <iolayers/flow.h>
#include <iolayers/layers.h>
#include <iolayers/probe.h>
#include <iolayers/request.h>

IOLAYERS_PROBE_COUNTERS(iolayers_pc_nvme_setup_cmd);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_nvme_complete_rq);

struct nvme_command;

/* Prototype of TRACE_EVENT(nvme_setup_cmd), drivers/nvme/host/trace.h. */
static void iolayers_nvme_setup_cmd(void *data, struct request *rq, struct nvme_command *cmd)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_nvme_setup_cmd);
	struct iolayers_rq *r;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	rcu_read_lock();
	r = iolayers_rq_bind(rq);
	if (r) {
		iolayers_hit(&iolayers_pc_nvme_setup_cmd);
		r->setup_ns = ktime_get_ns();
		r->devdone_ns = 0;
	}
	rcu_read_unlock();
}

/* Prototype of TRACE_EVENT(nvme_complete_rq). */
static void iolayers_nvme_complete_rq(void *data, struct request *rq)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_nvme_complete_rq);
	struct iolayers_rq *r;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	rcu_read_lock();
	r = iolayers_rq_find(rq);
	if (r && r->setup_ns) {
		iolayers_hit(&iolayers_pc_nvme_complete_rq);
		r->devdone_ns = ktime_get_ns();
	}
	rcu_read_unlock();
}

static struct iolayers_probe iolayers_device_probes[] = {
	IOLAYERS_TRACEPOINT("nvme_setup_cmd", iolayers_nvme_setup_cmd,
			    iolayers_pc_nvme_setup_cmd),
	IOLAYERS_TRACEPOINT("nvme_complete_rq", iolayers_nvme_complete_rq,
			    iolayers_pc_nvme_complete_rq),
};

/* The DEVICE layer: an NVMe command's setup to its completion. */
struct iolayers_layer_probes iolayers_device_layer = {
	.name = "DEVICE",
	.probes = iolayers_device_probes,
	.nr_probes = ARRAY_SIZE(iolayers_device_probes),
};
