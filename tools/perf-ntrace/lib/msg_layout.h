/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Private: per-TCODE message layout shared by the parser and the writer.
 * The layout is derived from the "Fields in Messages" table of N-Trace 1.0.
 */
#ifndef NTRACE_MSG_LAYOUT_H
#define NTRACE_MSG_LAYOUT_H

#include <ntrace/msg.h>

/* Fixed fields after TCODE and SRC, in wire order. */
enum msg_fixed {
	FIX_NONE,
	FIX_BTYPE,		/* B-TYPE[2] */
	FIX_CODE4,		/* ETYPE / RCODE [4] */
	FIX_SYNC,		/* SYNC[4] */
	FIX_SYNC_BTYPE,		/* SYNC[4] B-TYPE[2] */
	FIX_EVCODE_CDF,		/* EVCODE[4] CDF[2] */
};

/* Variable fields, in wire order; SLOT_END terminates. */
enum msg_slot {
	SLOT_END,
	SLOT_ICNT,
	SLOT_ADDR,
	SLOT_HIST,
	SLOT_COUNT,
	SLOT_DATA,
};

#define MSG_MAX_SLOTS 3

struct msg_layout {
	uint8_t fixed;		/* enum msg_fixed */
	uint8_t fixed_bits;
	uint8_t slots[MSG_MAX_SLOTS + 1];
};

/*
 * Layout of a standard message, resolved with the header fields that choose
 * optional fields (RCODE, CDF). Returns false for vendor/reserved TCODEs and
 * reserved RCODE/CDF values (raw layout).
 */
static inline bool msg_fixed_layout(unsigned int tcode, struct msg_layout *l)
{
	static const struct msg_layout tab[64] = {
		[NTRACE_TC_OWNERSHIP] = { FIX_NONE, 0, { SLOT_DATA } },
		[NTRACE_TC_DIRECT_BRANCH] = { FIX_NONE, 0, { SLOT_ICNT } },
		[NTRACE_TC_INDIRECT_BRANCH] = { FIX_BTYPE, 2, { SLOT_ICNT, SLOT_ADDR } },
		[NTRACE_TC_ERROR] = { FIX_CODE4, 4, { SLOT_DATA } },
		[NTRACE_TC_PROG_TRACE_SYNC] = { FIX_SYNC, 4, { SLOT_ICNT, SLOT_ADDR } },
		[NTRACE_TC_DIRECT_BRANCH_SYNC] = { FIX_SYNC, 4, { SLOT_ICNT, SLOT_ADDR } },
		[NTRACE_TC_INDIRECT_BRANCH_SYNC] = { FIX_SYNC_BTYPE, 6, { SLOT_ICNT, SLOT_ADDR } },
		[NTRACE_TC_RESOURCE_FULL] = { FIX_CODE4, 4, { SLOT_ICNT } },	/* resolved by RCODE */
		[NTRACE_TC_INDIRECT_BRANCH_HIST] = { FIX_BTYPE, 2,
						     { SLOT_ICNT, SLOT_ADDR, SLOT_HIST } },
		[NTRACE_TC_INDIRECT_BRANCH_HIST_SYNC] = { FIX_SYNC_BTYPE, 6,
							  { SLOT_ICNT, SLOT_ADDR, SLOT_HIST } },
		[NTRACE_TC_REPEAT_BRANCH] = { FIX_NONE, 0, { SLOT_COUNT } },
		[NTRACE_TC_PROG_TRACE_CORRELATION] = { FIX_EVCODE_CDF, 6, { SLOT_ICNT } },
	};

	/* every standard TCODE has at least one variable field */
	if (tcode >= 64 || tab[tcode].slots[0] == SLOT_END)
		return false;
	*l = tab[tcode];
	return true;
}

/*
 * Resolve the variable part of ResourceFull / ProgTraceCorrelation; variant
 * (enum ntrace_variant) adds the vendor RCODEs it defines.
 */
static inline bool msg_resolve_layout(unsigned int tcode, unsigned int code, unsigned int cdf,
				      unsigned int variant, struct msg_layout *l)
{
	if (tcode == NTRACE_TC_RESOURCE_FULL) {
		if (code == NTRACE_RCODE_ICNT) {
			l->slots[0] = SLOT_ICNT;
			l->slots[1] = SLOT_END;
		} else if (code == NTRACE_RCODE_HIST) {
			l->slots[0] = SLOT_HIST;
			l->slots[1] = SLOT_END;
		} else if (code == NTRACE_RCODE_HREPEAT) {
			l->slots[0] = SLOT_HIST;
			l->slots[1] = SLOT_COUNT;
			l->slots[2] = SLOT_END;
		} else if (variant == NTRACE_VARIANT_SIFIVE_V0 &&
			   (code == NTRACE_RCODE_V0_NOT_TAKEN || code == NTRACE_RCODE_V0_TAKEN)) {
			l->slots[0] = SLOT_COUNT;
			l->slots[1] = SLOT_END;
		} else {
			return false;
		}
	} else if (tcode == NTRACE_TC_PROG_TRACE_CORRELATION) {
		if (cdf == 0) {
			l->slots[1] = SLOT_END;
		} else if (cdf == 1) {
			l->slots[1] = SLOT_HIST;
			l->slots[2] = SLOT_END;
		} else {
			return false;
		}
	}
	return true;
}

static inline unsigned int msg_slot_count(const struct msg_layout *l)
{
	unsigned int n = 0;

	while (n < MSG_MAX_SLOTS && l->slots[n] != SLOT_END)
		n++;
	return n;
}

/* Address field width in bits: address bits xlen-1..1. */
static inline unsigned int msg_addr_width(const struct ntrace_codec_cfg *cfg)
{
	return cfg->xlen == 32 ? 31 : 63;
}

#endif /* NTRACE_MSG_LAYOUT_H */
