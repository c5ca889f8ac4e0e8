// SPDX-License-Identifier: GPL-2.0-only
/*
 * Baseline for bench.sh: a plugin that does nothing but what the model's
 * cheapest tracing path cannot avoid, one callback per executed block that
 * adds the block's instruction count to a per-vCPU counter. Its cost over
 * plain QEMU is the floor of any per-block plugin design.
 */
#include <stdio.h>

#include "qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = NTRACE_PLUGIN_API_VERSION;

static uint64_t count[64], blocks[64];

static void tb_exec(unsigned int vcpu, void *udata)
{
	count[vcpu & 63] += (uintptr_t)udata;
	blocks[vcpu & 63]++;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)qemu_plugin_tb_n_insns(tb));
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	fprintf(stderr, "tbcall: %llu instructions in %llu blocks\n",
		(unsigned long long)count[0], (unsigned long long)blocks[0]);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	(void)info;
	(void)argc;
	(void)argv;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
