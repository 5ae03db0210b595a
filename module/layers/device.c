// SPDX-License-Identifier: GPL-2.0
/*
 * DEVICE layer: from the driver handing a request to the device to the
 * device's completion, where the driver has tracepoints for both: NVMe
 * (nvme_setup_cmd, nvme_complete_rq, in nvme_core) and SCSI, which SATA
 * disks go through too (scsi_dispatch_cmd_start before the host's
 * queuecommand, scsi_dispatch_cmd_done when the host completes it, in
 * scsi_mod). The registry attaches a module's tracepoints when it is (or
 * gets) loaded and lets go when it goes away. virtio-blk has none: there
 * the BLOCK layer's service time (issue, which its queue_rq does just
 * before the kick, to the completion its interrupt ends) is what is
 * measured, and the DEVICE layer shows nothing.
 */

#define pr_fmt(fmt) "iolayers: " fmt

#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <scsi/scsi_cmnd.h>
#include <iolayers/flow.h>
#include <iolayers/layers.h>
#include <iolayers/probe.h>
#include <trace/events/scsi.h>
#include <iolayers/request.h>

IOLAYERS_PROBE_COUNTERS(iolayers_pc_nvme_setup_cmd);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_nvme_complete_rq);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_scsi_start);
IOLAYERS_PROBE_COUNTERS(iolayers_pc_scsi_done);

struct nvme_command;

/*
 * The driver hands @rq to the device (again, after a requeue). NVMe sets
 * the command up before the issue, where the request may not have an
 * entry yet: it binds it like the issue does. SCSI dispatches after it:
 * the entry is there, and binding would take the issued entry for
 * another life of the request.
 */
static __always_inline void iolayers_device_start(struct request *rq, bool before_issue,
						  struct iolayers_probe_pcpu __percpu *pc)
{
	struct iolayers_rq *r;

	iolayers_handler_rcu_lock();
	r = before_issue ? iolayers_rq_bind(rq) : iolayers_rq_find(rq);
	if (r) {
		iolayers_hit(pc);
		r->setup_ns = ktime_get_ns();
		r->devdone_ns = 0;
	}
	iolayers_handler_rcu_unlock();
}

/* The device completed @rq. */
static __always_inline void iolayers_device_done(struct request *rq,
						 struct iolayers_probe_pcpu __percpu *pc)
{
	struct iolayers_rq *r;

	iolayers_handler_rcu_lock();
	r = iolayers_rq_find(rq);
	if (r && r->setup_ns) {
		iolayers_hit(pc);
		r->devdone_ns = ktime_get_ns();
	}
	iolayers_handler_rcu_unlock();
}

/* Prototype of TRACE_EVENT(nvme_setup_cmd), drivers/nvme/host/trace.h. */
static void iolayers_nvme_setup_cmd(void *data, struct request *rq, struct nvme_command *cmd)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_nvme_setup_cmd);

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	iolayers_device_start(rq, true, &iolayers_pc_nvme_setup_cmd);
}

/* Prototype of TRACE_EVENT(nvme_complete_rq). */
static void iolayers_nvme_complete_rq(void *data, struct request *rq)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_nvme_complete_rq);

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	iolayers_device_done(rq, &iolayers_pc_nvme_complete_rq);
}

/* Prototype of TRACE_EVENT(scsi_dispatch_cmd_start), include/trace/events/scsi.h. */
static void iolayers_scsi_start(void *data, struct scsi_cmnd *cmd)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_scsi_start);

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	iolayers_device_start(scsi_cmd_to_rq(cmd), false, &iolayers_pc_scsi_start);
}

/* Prototype of DEFINE_EVENT(scsi_cmd_done_timeout_template, scsi_dispatch_cmd_done). */
static void iolayers_scsi_done(void *data, struct scsi_cmnd *cmd)
{
	IOLAYERS_COST_SCOPE(&iolayers_pc_scsi_done);

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	iolayers_device_done(scsi_cmd_to_rq(cmd), &iolayers_pc_scsi_done);
}

/*
 * The SCSI handlers' prototypes against the kernel's (never called). The
 * NVMe tracepoints are declared in the driver's private header
 * (drivers/nvme/host/trace.h), which no headers package carries: their
 * prototypes are pinned in compat.h.
 */
static void __maybe_unused iolayers_device_check_types(void)
{
	IOLAYERS_TP_CHECK(scsi_dispatch_cmd_start, iolayers_scsi_start);
	IOLAYERS_TP_CHECK(scsi_dispatch_cmd_done, iolayers_scsi_done);
}

/* A machine has some of these drivers: each pair is optional. */
static struct iolayers_probe iolayers_device_probes[] = {
	IOLAYERS_TRACEPOINT("nvme_setup_cmd", iolayers_nvme_setup_cmd,
			    iolayers_pc_nvme_setup_cmd, .optional = true,
			    .unverified = !IOLAYERS_NVME_PINNED),
	IOLAYERS_TRACEPOINT("nvme_complete_rq", iolayers_nvme_complete_rq,
			    iolayers_pc_nvme_complete_rq, .optional = true,
			    .unverified = !IOLAYERS_NVME_PINNED),
	IOLAYERS_TRACEPOINT("scsi_dispatch_cmd_start", iolayers_scsi_start,
			    iolayers_pc_scsi_start, .optional = true),
	IOLAYERS_TRACEPOINT("scsi_dispatch_cmd_done", iolayers_scsi_done,
			    iolayers_pc_scsi_done, .optional = true),
};

/* The DEVICE layer: a command's hand-off to the device to its completion. */
struct iolayers_layer_probes iolayers_device_layer = {
	.name = "DEVICE",
	.probes = iolayers_device_probes,
	.nr_probes = ARRAY_SIZE(iolayers_device_probes),
};
