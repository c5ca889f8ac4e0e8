/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Registers of the RISC-V Trace Control Interface 1.0 used by the ntrace
 * driver: the trace encoder (with its timestamp unit, filters and
 * comparators) and the RAM sink. Names follow the specification's fields.
 */
#ifndef NTRACE_REGS_H
#define NTRACE_REGS_H

#include <linux/bits.h>

#define TR_BLOCK_SIZE		0x1000	/* every component owns a 4 KiB block */

/* tr??Control / tr??Impl: common to every component */
#define TR_CONTROL		0x000
#define TR_IMPL			0x004
#define TR_ACTIVE		BIT(0)
#define TR_ENABLE		BIT(1)
#define TR_EMPTY		BIT(3)
#define TR_IMPL_VER_MAJOR	GENMASK(3, 0)
#define TR_IMPL_VER_MINOR	GENMASK(7, 4)
#define TR_IMPL_COMP_TYPE	GENMASK(11, 8)
#define TR_COMP_ENCODER		0x1
#define TR_COMP_FUNNEL		0x8
#define TR_COMP_RAMSINK		0x9

/* Trace encoder */
#define TE_INST_FEATURES	0x008
#define TE_INST_FILTERS		0x00c
#define TS_CONTROL		0x040
#define TE_FILTER(i)		(0x400 + 0x20 * (i))
#define TE_FILTER_MATCH_INST(i)	(0x404 + 0x20 * (i))
#define TE_COMP(j)		(0x600 + 0x20 * (j))
#define TE_COMP_PMATCH_LO(j)	(0x610 + 0x20 * (j))
#define TE_COMP_PMATCH_HI(j)	(0x614 + 0x20 * (j))
#define TE_COMP_SMATCH_LO(j)	(0x618 + 0x20 * (j))
#define TE_COMP_SMATCH_HI(j)	(0x61c + 0x20 * (j))
#define TE_MAX_FILTERS		16
#define TE_MAX_COMPS		8

/* trTeImpl */
#define TE_IMPL_PROTO_MAJOR	GENMASK(19, 16)
#define TE_IMPL_PROTO_MINOR	GENMASK(23, 20)

/* trTeControl */
#define TE_INST_TRACING		BIT(2)
#define TE_INST_MODE		GENMASK(6, 4)
#define TE_MODE_BTM		3
#define TE_MODE_HTM		6
#define TE_CONTEXT		BIT(9)
#define TE_INST_STALL_OR_OVF	BIT(12)
#define TE_INHIBIT_SRC		BIT(15)
#define TE_SYNC_MODE		GENMASK(17, 16)
#define TE_SYNC_MAX		GENMASK(23, 20)
#define TE_FORMAT		GENMASK(26, 24)
#define TE_FORMAT_NTRACE	1

/* trTeInstFeatures */
#define TE_F_NO_ADDR_DIFF	BIT(0)
#define TE_F_NO_TRAP_ADDR	BIT(1)
#define TE_F_SEQ_JUMP		BIT(2)
#define TE_F_IMPLICIT_RETURN	BIT(3)
#define TE_F_IRET_MODE		GENMASK(7, 6)
#define TE_F_REPEATED_HISTORY	BIT(8)
#define TE_F_ALL_JUMPS		BIT(9)
#define TE_F_EXTEND_ADDR_MSB	BIT(10)
#define TE_F_SRC_ID		GENMASK(27, 16)
#define TE_F_SRC_BITS		GENMASK(31, 28)

/* trTsControl */
#define TS_ACTIVE		BIT(0)
#define TS_COUNT		BIT(1)
#define TS_RESET		BIT(2)
#define TS_MODE			GENMASK(6, 4)
#define TS_PRESCALE		GENMASK(9, 8)
#define TS_ENABLE		BIT(15)
#define TS_WIDTH		GENMASK(29, 24)

/* trTeFilter<i>Control / MatchInst */
#define FLT_ENABLE		BIT(0)
#define FLT_MATCH_PRIV		BIT(1)
#define FLT_MATCH_COMP1		BIT(4)
#define FLT_COMP1		GENMASK(7, 5)
#define FLT_PRIV_CHOICE		GENMASK(7, 0)

/* trTeComp<j>Control */
#define CMP_P_INPUT		GENMASK(1, 0)	/* 0: iaddr */
#define CMP_S_INPUT		GENMASK(3, 2)
#define CMP_P_FUNC		GENMASK(6, 4)
#define CMP_S_FUNC		GENMASK(10, 8)
#define CMP_MATCH_MODE		GENMASK(13, 12)
#define CMP_FUNC_LT		2
#define CMP_FUNC_LE		3
#define CMP_FUNC_GE		5
#define CMP_FUNC_TRUE		7
#define CMP_MODE_P_AND_S	1

/* RAM sink */
#define RAM_START_LO		0x010
#define RAM_START_HI		0x014
#define RAM_LIMIT_LO		0x018
#define RAM_LIMIT_HI		0x01c
#define RAM_WP_LO		0x020
#define RAM_WP_HI		0x024
#define RAM_MODE_SMEM		BIT(4)
#define RAM_STOP_ON_WRAP	BIT(8)
#define RAM_HAS_SRAM		BIT(12)
#define RAM_HAS_SMEM		BIT(13)
#define RAM_WRAP		BIT(0)	/* in trRamWPLow */

#endif /* NTRACE_REGS_H */
