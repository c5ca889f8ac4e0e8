/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Register offsets and fields of the RISC-V Trace Control Interface 1.0
 * that the model implements (trace encoder, timestamp unit, filters and
 * comparators, RAM sink). Names follow the specification's field names.
 */
#ifndef NTRACE_MODEL_TCI_REGS_H
#define NTRACE_MODEL_TCI_REGS_H

#define TCI_COMP_SIZE		0x1000	/* every component owns a 4 KiB block */

/* Common to every component: tr??Control / tr??Impl */
#define TCI_CONTROL		0x000
#define TCI_IMPL		0x004
#define TCI_ACTIVE		(1u << 0)
#define TCI_ENABLE		(1u << 1)
#define TCI_EMPTY		(1u << 3)
#define TCI_IMPL_VER(maj, min)	((maj) | (min) << 4)
#define TCI_IMPL_COMPTYPE(t)	((t) << 8)
#define TCI_COMPTYPE_ENCODER	0x1
#define TCI_COMPTYPE_RAMSINK	0x9

/* Trace encoder */
#define TE_INST_FEATURES	0x008
#define TE_INST_FILTERS		0x00c
#define TE_DATA_CONTROL		0x010
#define TE_DATA_FILTERS		0x01c
#define TS_CONTROL		0x040
#define TS_COUNTER_LOW		0x048
#define TS_COUNTER_HIGH		0x04c
#define TE_TRIG_DBG_CONTROL	0x050
#define TE_TRIG_EXTIN_CONTROL	0x054
#define TE_TRIG_EXTOUT_CONTROL	0x058
#define TE_FILTER_BASE		0x400
#define TE_FILTER_STRIDE	0x020
#define TE_COMP_BASE		0x600
#define TE_COMP_STRIDE		0x020

/* trTeControl */
#define TE_INST_TRACING		(1u << 2)
#define TE_INST_MODE_SHIFT	4
#define TE_INST_MODE_MASK	(7u << 4)
#define TE_CONTEXT		(1u << 9)
#define TE_INST_TRIG_ENABLE	(1u << 11)
#define TE_INST_STALL_OR_OVF	(1u << 12)
#define TE_INST_STALL_ENA	(1u << 13)
#define TE_INHIBIT_SRC		(1u << 15)
#define TE_SYNC_MODE_SHIFT	16
#define TE_SYNC_MODE_MASK	(3u << 16)
#define TE_SYNC_MAX_SHIFT	20
#define TE_SYNC_MAX_MASK	(0xfu << 20)
#define TE_FORMAT_SHIFT		24
#define TE_FORMAT_MASK		(7u << 24)
#define TE_FORMAT_NTRACE	1u

/* trTeInstFeatures */
#define TE_F_NO_ADDR_DIFF	(1u << 0)
#define TE_F_NO_TRAP_ADDR	(1u << 1)
#define TE_F_SEQ_JUMP		(1u << 2)
#define TE_F_IMPLICIT_RETURN	(1u << 3)
#define TE_F_BRANCH_PREDICTION	(1u << 4)
#define TE_F_JUMP_TARGET_CACHE	(1u << 5)
#define TE_F_IRET_MODE_SHIFT	6
#define TE_F_IRET_MODE_MASK	(3u << 6)
#define TE_F_REPEATED_HISTORY	(1u << 8)
#define TE_F_ALL_JUMPS		(1u << 9)
#define TE_F_EXTEND_ADDR_MSB	(1u << 10)
#define TE_F_SRC_ID_SHIFT	16
#define TE_F_SRC_ID_MASK	(0xfffu << 16)
#define TE_F_SRC_BITS_SHIFT	28
#define TE_F_SRC_BITS_MASK	(0xfu << 28)

/* trTsControl */
#define TS_ACTIVE		(1u << 0)
#define TS_COUNT		(1u << 1)
#define TS_RESET		(1u << 2)
#define TS_RUN_IN_DEBUG		(1u << 3)
#define TS_MODE_SHIFT		4
#define TS_MODE_MASK		(7u << 4)
#define TS_MODE_NONE		0
#define TS_MODE_EXTERNAL	1
#define TS_MODE_INTERNAL_CORE	3
#define TS_PRESCALE_SHIFT	8
#define TS_PRESCALE_MASK	(3u << 8)
#define TS_ENABLE		(1u << 15)
#define TS_WIDTH_SHIFT		24

/* trTeFilter<i>* (offsets inside one filter's 0x20 block) */
#define FLT_CONTROL		0x00
#define FLT_MATCH_INST		0x04
#define FLT_ENABLE		(1u << 0)
#define FLT_MATCH_PRIV		(1u << 1)
#define FLT_MATCH_ECAUSE	(1u << 2)
#define FLT_MATCH_INTERRUPT	(1u << 3)
#define FLT_MATCH_COMP1		(1u << 4)
#define FLT_COMP1_SHIFT		5
#define FLT_MATCH_COMP2		(1u << 8)
#define FLT_COMP2_SHIFT		9
#define FLT_MATCH_COMP3		(1u << 12)
#define FLT_COMP3_SHIFT		13

/* trTeComp<j>* (offsets inside one comparator's 0x20 block) */
#define CMP_CONTROL		0x00
#define CMP_PMATCH_LOW		0x10
#define CMP_PMATCH_HIGH		0x14
#define CMP_SMATCH_LOW		0x18
#define CMP_SMATCH_HIGH		0x1c
#define CMP_P_INPUT_MASK	(3u << 0)
#define CMP_S_INPUT_MASK	(3u << 2)
#define CMP_P_FUNC_SHIFT	4
#define CMP_S_FUNC_SHIFT	8
#define CMP_MATCH_MODE_SHIFT	12
#define CMP_P_NOTIFY		(1u << 14)
#define CMP_S_NOTIFY		(1u << 15)

/* RAM sink */
#define RAM_START_LOW		0x010
#define RAM_START_HIGH		0x014
#define RAM_LIMIT_LOW		0x018
#define RAM_LIMIT_HIGH		0x01c
#define RAM_WP_LOW		0x020
#define RAM_WP_HIGH		0x024
#define RAM_RP_LOW		0x028
#define RAM_RP_HIGH		0x02c
#define RAM_DATA		0x040
#define RAM_MODE_SMEM		(1u << 4)
#define RAM_STOP_ON_WRAP	(1u << 8)
#define RAM_MEM_FORMAT_MASK	(3u << 9)
#define RAM_ASYNC_FREQ_MASK	(7u << 12)
#define RAM_HAS_SRAM		(1u << 12)
#define RAM_HAS_SMEM		(1u << 13)
#define RAM_WRAP		(1u << 0)

#endif /* NTRACE_MODEL_TCI_REGS_H */
