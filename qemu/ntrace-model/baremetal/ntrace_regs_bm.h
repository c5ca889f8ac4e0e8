/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Trace Control Interface access for the bare-metal tests: component
 * addresses of the model (qemu/ntrace-model, default placement in the last
 * 64 KiB of a 512 MiB RAM) and the reset/enable handshakes of the spec.
 */
#ifndef NTRACE_REGS_BM_H
#define NTRACE_REGS_BM_H

#include "bm.h"
#include "../../../include/uapi/linux/ntrace_tci.h"

#ifndef NTRACE_REG_BASE
#define NTRACE_REG_BASE	0x9fff0000UL
#endif
#define TE_BASE(h)	(NTRACE_REG_BASE + (uintptr_t)(h) * 2 * TCI_BLOCK_SIZE)
#define RAM_BASE(h)	(TE_BASE(h) + TCI_BLOCK_SIZE)
#define POLL_LIMIT	100000

/* Poll until (reg & mask) == want; returns the polls used or -1. */
static inline int poll32(uintptr_t reg, uint32_t mask, uint32_t want)
{
	int i;

	for (i = 0; i < POLL_LIMIT; i++)
		if ((rd32(reg) & mask) == want)
			return i;
	return -1;
}

/* Spec "Reset and Discovery": write 0, wait Active=0, write 1, wait Active=1. */
static inline int tci_reset(uintptr_t base)
{
	wr32(base + TCI_CONTROL, 0);
	if (poll32(base + TCI_CONTROL, TCI_ACTIVE, 0) < 0)
		return -1;
	wr32(base + TCI_CONTROL, TCI_ACTIVE);
	return poll32(base + TCI_CONTROL, TCI_ACTIVE, TCI_ACTIVE) < 0 ? -1 : 0;
}

#endif
