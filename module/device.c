// SPDX-License-Identifier: GPL-2.0
/*
 * DEVICE layer: the NVMe driver's tracepoints nvme_setup_cmd and
 * nvme_complete_rq. They live in the nvme_core module, so they are found
 * through a tracepoint module notifier (which also replays the modules
 * already loaded) and let go when nvme_core goes away. Without them (no
 * NVMe, or virtio-blk) the DEVICE layer shows as missing and only the
 * BLOCK layer's issue-to-complete service time is measured.
 */

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <iolayers/iolayers.h>
#include <iolayers/flow.h>

#define IOLAYERS_NVME_MODULE	"nvme_core"

struct nvme_command;

/* Prototype of TRACE_EVENT(nvme_setup_cmd), drivers/nvme/host/trace.h. */
static void iolayers_nvme_setup_cmd(void *data, struct request *rq, struct nvme_command *cmd)
{
	IOLAYERS_COST_SCOPE(IOLAYERS_P_NVME_SETUP_CMD);
	struct iolayers_rq *r;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	rcu_read_lock();
	r = iolayers_rq_bind(rq);
	if (r) {
		iolayers_hit(IOLAYERS_P_NVME_SETUP_CMD);
		r->setup_ns = ktime_get_ns();
		r->devdone_ns = 0;
	}
	rcu_read_unlock();
}

/* Prototype of TRACE_EVENT(nvme_complete_rq). */
static void iolayers_nvme_complete_rq(void *data, struct request *rq)
{
	IOLAYERS_COST_SCOPE(IOLAYERS_P_NVME_COMPLETE_RQ);
	struct iolayers_rq *r;

	if (iolayers_empty)
		return;	/* empty=1: the floor of the mechanism */
	rcu_read_lock();
	r = iolayers_rq_find(rq);
	if (r && r->setup_ns) {
		iolayers_hit(IOLAYERS_P_NVME_COMPLETE_RQ);
		r->devdone_ns = ktime_get_ns();
	}
	rcu_read_unlock();
}

static const struct {
	enum iolayers_probe_id id;
	void *probe;
} iolayers_nvme_probes[] = {
	{ IOLAYERS_P_NVME_COMPLETE_RQ, iolayers_nvme_complete_rq },
	{ IOLAYERS_P_NVME_SETUP_CMD, iolayers_nvme_setup_cmd },
};

/* Serialises the notifier against unload. */
static DEFINE_MUTEX(iolayers_device_lock);

static void iolayers_nvme_attach(struct module *mod)
{
	unsigned int i, k;

	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);

		for (k = 0; k < ARRAY_SIZE(iolayers_nvme_probes); k++) {
			struct iolayers_probe *p = &iolayers_probes[iolayers_nvme_probes[k].id];

			if (p->state != IOLAYERS_PROBE_ATTACHED && !strcmp(tp->name, p->name))
				iolayers_tracepoint_attach_tp(p, tp, iolayers_nvme_probes[k].probe,
							      NULL);
		}
	}
}

static void iolayers_nvme_detach(void)
{
	unsigned int k;

	/* Completions first: a set-up command never waits on a missing one. */
	for (k = 0; k < ARRAY_SIZE(iolayers_nvme_probes); k++) {
		struct iolayers_probe *p = &iolayers_probes[iolayers_nvme_probes[k].id];

		iolayers_tracepoint_detach(p, iolayers_nvme_probes[k].probe, NULL);
		p->state = IOLAYERS_PROBE_MISSING;
	}
}

static int iolayers_tp_module_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct tp_module *tp_mod = data;

	if (strcmp(tp_mod->mod->name, IOLAYERS_NVME_MODULE))
		return NOTIFY_OK;
	mutex_lock(&iolayers_device_lock);
	if (val == MODULE_STATE_COMING)
		iolayers_nvme_attach(tp_mod->mod);
	else if (val == MODULE_STATE_GOING)
		iolayers_nvme_detach();
	mutex_unlock(&iolayers_device_lock);
	return NOTIFY_OK;
}

static struct notifier_block iolayers_tp_module_nb = {
	.notifier_call = iolayers_tp_module_notify,
};

/**
 * iolayers_device_register() - Watch for nvme_core and attach to it.
 *
 * NVMe built into the kernel is attached at once; as a module, when (or
 * as soon as) nvme_core is loaded. Until then the DEVICE probes show as
 * missing.
 *
 * Context: process context, may sleep.
 */
void iolayers_device_register(void)
{
	unsigned int k;
	int ret;

	for (k = 0; k < ARRAY_SIZE(iolayers_nvme_probes); k++) {
		struct iolayers_probe *p = &iolayers_probes[iolayers_nvme_probes[k].id];
		struct tracepoint *tp = iolayers_tracepoint_find(p->name);

		/* NVMe built into the kernel: its tracepoints are core ones. */
		p->state = IOLAYERS_PROBE_MISSING;
		if (tp)
			iolayers_tracepoint_attach_tp(p, tp, iolayers_nvme_probes[k].probe, NULL);
	}
	ret = register_tracepoint_module_notifier(&iolayers_tp_module_nb);
	if (ret)
		pr_warn("iolayers: tracepoint module notifier failed (%d), DEVICE layer disabled\n",
			ret);
	if (iolayers_probes[IOLAYERS_P_NVME_SETUP_CMD].state != IOLAYERS_PROBE_ATTACHED)
		pr_warn("iolayers: %s not loaded (no NVMe tracepoints yet), DEVICE layer waits for it\n",
			IOLAYERS_NVME_MODULE);
}

/**
 * iolayers_device_unregister() - Stop watching and detach.
 *
 * Context: process context, may sleep.
 */
void iolayers_device_unregister(void)
{
	unregister_tracepoint_module_notifier(&iolayers_tp_module_nb);
	mutex_lock(&iolayers_device_lock);
	iolayers_nvme_detach();
	mutex_unlock(&iolayers_device_lock);
}
