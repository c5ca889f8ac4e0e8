/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SiFive pre-ratified (v0) trace components of the model's p550 and
 * sifive-hart topologies for the bare-metal tests: addresses (register
 * region at the end of a 512 MiB RAM, 0x110000 bytes) and the reset
 * handshake. Register layout: include/uapi/linux/ntrace_tci_v0.h.
 */
#ifndef NTRACE_V0_BM_H
#define NTRACE_V0_BM_H

#include "bm.h"
#include "../../../include/uapi/linux/ntrace_tci.h"	/* TCI_GET / TCI_SET */
#include "../../../include/uapi/linux/ntrace_tci_v0.h"

#define V0_REG_BASE	(0x80000000UL + (512UL << 20) - 0x110000UL)
#define V0_TE(h)	(V0_REG_BASE + 0x100000UL + (uintptr_t)(h) * TCI_V0_BLOCK_SIZE)
#define V0_TF		(V0_REG_BASE + 0x18000UL)
#define V0_POLL_LIMIT	100000

static inline int v0_poll(uintptr_t reg, uint32_t mask, uint32_t want)
{
	int i;

	for (i = 0; i < V0_POLL_LIMIT; i++)
		if ((rd32(reg) & mask) == want)
			return i;
	return -1;
}

/* teActive / tfActive: write 0, wait 0, write 1, wait 1 (as riscv-trace-umd does). */
static inline int v0_reset(uintptr_t base)
{
	wr32(base + TCI_V0_CONTROL, 0);
	if (v0_poll(base + TCI_V0_CONTROL, TCI_V0_ACTIVE, 0) < 0)
		return -1;
	wr32(base + TCI_V0_CONTROL, TCI_V0_ACTIVE);
	return v0_poll(base + TCI_V0_CONTROL, TCI_V0_ACTIVE, TCI_V0_ACTIVE) < 0 ? -1 : 0;
}

#endif
