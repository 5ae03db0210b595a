/* SPDX-License-Identifier: GPL-2.0 */
/* The layers' probe tables, for the loader to hand to the registry. */
#ifndef _IOLAYERS_LAYERS_H
#define _IOLAYERS_LAYERS_H

#include <iolayers/probe.h>

extern struct iolayers_layer_probes iolayers_syscall_layer;
extern struct iolayers_layer_probes iolayers_uring_layer;
extern struct iolayers_layer_probes iolayers_aio_layer;
extern struct iolayers_layer_probes iolayers_fault_layer;
extern struct iolayers_layer_probes iolayers_vfs_layer;
extern struct iolayers_layer_probes iolayers_fs_layer;
extern struct iolayers_layer_probes iolayers_cache_layer;
extern struct iolayers_layer_probes iolayers_sock_layer;
extern struct iolayers_layer_probes iolayers_rcv_layer;
extern struct iolayers_layer_probes iolayers_block_layer;
extern struct iolayers_layer_probes iolayers_device_layer;
extern struct iolayers_layer_probes iolayers_filter_layer;

#endif /* _IOLAYERS_LAYERS_H */
