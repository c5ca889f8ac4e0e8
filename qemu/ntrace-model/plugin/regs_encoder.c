// SPDX-License-Identifier: GPL-2.0-only
/*
 * Trace encoder registers (trTe*), its timestamp unit (trTs*), filters and
 * comparators, with the WARL rules of the Trace Control Interface 1.0 and
 * the N-Trace specific controls chapter of N-Trace 1.0.
 *
 * Choices where the specification leaves room (documented in
 * Documentation/trace/ntrace-qemu-model.rst):
 *  - release from reset (trTeActive 0->1) completes at the writer's next
 *    block boundary; until then trTeActive reads 0 and writes to the
 *    component are ignored, so a driver must poll as the spec says;
 *  - mode and option fields are latched while trTeEnable=1: writes to them
 *    (and to trTeInstFeatures, filters, comparators) are ignored until the
 *    encoder is disabled;
 *  - no triggers, no data trace, no stall (trTeInstStallEna reads 0);
 *  - the timestamp unit is External (trTsMode 1): its value is the
 *    platform timer, what the time CSR reads (the ACLINT mtime), divided
 *    by 4^trTsPrescale (the spec defines the prescaler for internal units
 *    only; the model applies it to the external value). trTsCount and
 *    trTsReset, which only internal units use, have no effect; Count keeps
 *    what was written.
 */
#include <string.h>

#include "model.h"
#include "../../../include/uapi/linux/ntrace_tci_v0.h"
#include "../../../include/uapi/linux/ntrace_tci.h"

#define TE_CONTROL_WARL (TCI_TE_INST_MODE_MASK | TCI_TE_CONTEXT | TCI_TE_INHIBIT_SRC | \
			 TCI_TE_SYNC_MODE_MASK | TCI_TE_SYNC_MAX_MASK | TCI_TE_FORMAT_MASK)

static uint32_t legal_inst_mode(uint32_t m)
{
	if (m == 0 || trace_out_mode_ok(m))
		return m;
	/* never revert to 0: pick the supported mode closest in kind */
	if (m < 6 && trace_out_mode_ok(3))
		return 3;
	return trace_out_mode_ok(6) ? 6 : 3;
}

static uint32_t legal_sync_mode(uint32_t m, uint32_t old)
{
	if (m == 0 || trace_out_sync_mode_ok(m))
		return m;
	return old;
}

static uint32_t legal_control(uint32_t val, uint32_t old)
{
	uint32_t c = 0;

	c |= TCI_SET(TE_INST_MODE, legal_inst_mode(TCI_GET(val, TE_INST_MODE)));
	if (trace_out_has_context())
		c |= val & TCI_TE_CONTEXT;
	c |= val & TCI_TE_INHIBIT_SRC;
	c |= TCI_SET(TE_SYNC_MODE, legal_sync_mode(TCI_GET(val, TE_SYNC_MODE),
						   TCI_GET(old, TE_SYNC_MODE)));
	c |= val & TCI_TE_SYNC_MAX_MASK;
	c |= TCI_SET(TE_FORMAT, TCI_TE_FORMAT_NTRACE);	/* only N-Trace */
	return c;
}

static uint32_t legal_features(uint32_t val)
{
	uint32_t sup = trace_out_features();
	uint32_t f = val & sup & (TCI_TE_F_SEQ_JUMP | TCI_TE_F_IMPLICIT_RETURN |
				  TCI_TE_F_REPEATED_HISTORY | TCI_TE_F_ALL_JUMPS |
				  TCI_TE_F_EXTEND_ADDR_MSB);
	uint32_t bits = TCI_GET(val, TE_F_SRC_BITS);

	if (sup & TCI_TE_F_IMPLICIT_RETURN)
		f |= val & TCI_TE_F_IRET_MODE_MASK;
	if (bits > 12)
		bits = 12;
	f |= TCI_SET(TE_F_SRC_BITS, bits);
	f |= val & TCI_TE_F_SRC_ID_MASK;
	return f;
}

static uint32_t legal_filter_control(uint32_t val)
{
	uint32_t c = val & (TCI_FLT_ENABLE | TCI_FLT_MATCH_PRIV | TCI_FLT_MATCH_COMP1 |
			    TCI_FLT_MATCH_COMP2 | TCI_FLT_MATCH_COMP3);
	static const unsigned int shift[3] = {
		TCI_FLT_COMP1_SHIFT, TCI_FLT_COMP2_SHIFT, TCI_FLT_COMP3_SHIFT
	};
	unsigned int k;

	for (k = 0; k < 3; k++) {
		uint32_t j = (val >> shift[k]) & 7;

		if (j >= MODEL_NCOMPS)
			j = MODEL_NCOMPS - 1;
		c |= j << shift[k];
	}
	return c;
}

static uint32_t legal_comp_control(uint32_t val)
{
	/* inputs: only iaddr (0); functions and match modes: all; no notify */
	return val & (TCI_CMP_P_FUNC_MASK | TCI_CMP_S_FUNC_MASK | TCI_CMP_MATCH_MODE_MASK);
}

void te_reset(struct hart *h)
{
	struct encoder *te = &h->te;

	if (M.v0) {
		te_v0_reset(h);
		return;
	}
	memset(te, 0, sizeof(*te));
	te->empty = true;
	h->fault_armed = false;
	te->control = legal_control(TCI_SET(TE_INST_MODE, TCI_TE_INST_MODE_BTM) |
				    TCI_SET(TE_SYNC_MODE, 1u) |
				    TCI_SET(TE_SYNC_MAX, 8u), 0);
	te->features = legal_features(TCI_SET(TE_F_SRC_ID, h->idx));
	te->ts_control = TCI_SET(TS_MODE, TCI_TS_MODE_EXTERNAL);
	vcpu_set_active(h->idx, ACTIVE_TS, false);
	ts_update_needed(h);
}

/*
 * The timestamp unit's value now: the platform timer / 4^trTsPrescale,
 * 48 bits; 0 while the unit has no value (in reset or trTsMode 0). Costs
 * one register read (about 50 ns): callers read it once per block.
 */
uint64_t ts_value(struct hart *h)
{
	struct encoder *te = &h->te;
	unsigned int ps = TCI_GET(te->ts_control, TS_PRESCALE);

	if (M.v0)
		return te_v0_ts_value(h);
	if (!te->ts_running)
		return 0;
	return (clock_read() >> (2 * ps)) & ((1ull << MODEL_TS_WIDTH) - 1);
}

void ts_publish_value(struct hart *h, uint64_t v)
{
	/* v0: tsLower/tsUpper at 0x44/0x48, and the system unit's in the TF */
	unsigned int lo = M.v0 ? TCI_V0_TS_LOWER : TCI_TS_COUNTER_LOW;
	unsigned int hi = M.v0 ? TCI_V0_TS_UPPER : TCI_TS_COUNTER_HIGH;

	h->te_regs[lo / 4] = (uint32_t)v;
	h->te_regs[hi / 4] = (uint32_t)(v >> 32);
	if (M.v0 && M.nfunnels) {
		struct funnel *f = &M.funnels[0];
		uint64_t s = v0_ts_read(&f->ts);

		f->regs[TCI_V0_TS_LOWER / 4] = (uint32_t)s;
		f->regs[TCI_V0_TS_UPPER / 4] = (uint32_t)(s >> 32);
	}
	h->ts_idle = 0;
}

/* trTsCounterLow/High: refreshed at register writes and block boundaries. */
void ts_publish(struct hart *h)
{
	ts_publish_value(h, ts_value(h));
}

/*
 * Do records need the unit's value? When it runs and either messages carry
 * it (trTsEnable) or periodic sync counts it (trTeInstSyncMode 2).
 */
void ts_update_needed(struct hart *h)
{
	struct encoder *te = &h->te;
	bool was = h->ts_needed;

	/* v0: tsEnable is bit 15 as trTsEnable, and there is no sync by time */
	h->ts_needed = te->ts_running && ((te->ts_control & TCI_TS_ENABLE) ||
					  te_sync_by_time(te));
	if (h->ts_needed && !was)
		h->ts_now = ts_value(h);
}

static void ts_update_running(struct hart *h)
{
	struct encoder *te = &h->te;
	bool run = te->ts_active &&
		   TCI_GET(te->ts_control, TS_MODE) != TCI_TS_MODE_NONE;

	if (run != te->ts_running) {
		te->ts_running = run;
		/* the block callback refreshes trTsCounter while the unit runs */
		vcpu_set_active(h->idx, ACTIVE_TS, run);
	}
	ts_update_needed(h);
}

void te_publish(struct hart *h)
{
	struct encoder *te = &h->te;
	volatile uint32_t *r = h->te_regs;
	unsigned int i;
	uint32_t c = TCI_EMPTY;

	if (M.v0) {
		te_v0_publish(h);
		return;
	}
	if (te->active) {
		c = TCI_ACTIVE | te->control;
		c |= te->enable ? TCI_ENABLE : 0;
		c |= te->inst_tracing ? TCI_TE_INST_TRACING : 0;
		c |= te->overflow ? TCI_TE_INST_STALL_OR_OVF : 0;
		c |= te->empty && !(h->fault_armed &&
				    fault_on_hart(FAULT_TE_NEVER_EMPTY, h)) ? TCI_EMPTY : 0;
	}
	r[TCI_CONTROL / 4] = c;
	/* version 1.0 (2.0: an injected fault), an encoder, N-Trace 1.0 */
	r[TCI_IMPL / 4] = TCI_SET(IMPL_VER_MAJOR, fault_on_hart(FAULT_TE_BAD_IMPL, h) ? 2 : 1) |
			  TCI_SET(IMPL_VER_MINOR, 0) |
			  TCI_SET(IMPL_COMP_TYPE, TCI_COMP_ENCODER) |
			  TCI_SET(TE_IMPL_PROTO_MAJOR, 1) | TCI_SET(TE_IMPL_PROTO_MINOR, 0);
	r[TCI_TE_INST_FEATURES / 4] = te->features;
	r[TCI_TE_INST_FILTERS / 4] = te->inst_filters;
	r[TCI_TE_DATA_CONTROL / 4] = 0;	/* trTeDataImplemented = 0 */
	r[TCI_TE_DATA_FILTERS / 4] = 0;
	r[TCI_TS_CONTROL / 4] = (te->ts_active ? TCI_TS_ACTIVE | te->ts_control : 0) |
			    TCI_SET(TS_WIDTH, MODEL_TS_WIDTH);
	r[TCI_TE_TRIG_DBG_CONTROL / 4] = 0;
	r[TCI_TE_TRIG_EXTIN_CONTROL / 4] = 0;
	r[TCI_TE_TRIG_EXTOUT_CONTROL / 4] = 0;
	for (i = 0; i < MODEL_NFILTERS; i++) {
		volatile uint32_t *f = r + TCI_TE_FILTER(i) / 4;

		f[TCI_FLT_CONTROL / 4] = te->flt[i].control;
		f[TCI_FLT_MATCH_INST / 4] = te->flt[i].match_inst;
	}
	for (i = 0; i < MODEL_NCOMPS; i++) {
		volatile uint32_t *k = r + TCI_TE_COMP(i) / 4;

		k[TCI_CMP_CONTROL / 4] = te->cmp[i].control;
		k[TCI_CMP_PMATCH_LOW / 4] = (uint32_t)te->cmp[i].pmatch;
		k[TCI_CMP_PMATCH_HIGH / 4] = (uint32_t)(te->cmp[i].pmatch >> 32);
		k[TCI_CMP_SMATCH_LOW / 4] = (uint32_t)te->cmp[i].smatch;
		k[TCI_CMP_SMATCH_HIGH / 4] = (uint32_t)(te->cmp[i].smatch >> 32);
	}
	ts_publish(h);
}

/* Is instruction trace flowing (encoder enabled and tracing)? */
static bool te_tracing(const struct encoder *te)
{
	return te->active && te->enable && te->inst_tracing &&
	       TCI_GET(te->control, TE_INST_MODE) != 0;
}

static void set_word(uint64_t *v, bool high, uint32_t w)
{
	/*
	 * An RV32 encoder's iaddr has 32 bits: the comparators' optional
	 * PmatchHigh/SmatchHigh are not implemented (read 0).
	 */
	if (high && M.xlen == 32)
		return;
	if (high)
		*v = (*v & 0xffffffffull) | (uint64_t)w << 32;
	else
		*v = (*v & ~0xffffffffull) | w;
}

static void write_filter_regs(struct hart *h, unsigned int off, uint32_t val)
{
	struct encoder *te = &h->te;

	if (off >= TCI_TE_FILTER(0) && off < TCI_TE_FILTER(MODEL_NFILTERS)) {
		struct filter *f = &te->flt[(off - TCI_TE_FILTER_BASE) / TCI_TE_FILTER_STRIDE];

		switch ((off - TCI_TE_FILTER_BASE) % TCI_TE_FILTER_STRIDE) {
		case TCI_FLT_CONTROL:
			f->control = legal_filter_control(val);
			break;
		case TCI_FLT_MATCH_INST:
			f->match_inst = val & 0xff;	/* no interrupt matching */
			break;
		}
	} else if (off >= TCI_TE_COMP(0) && off < TCI_TE_COMP(MODEL_NCOMPS)) {
		struct comparator *k = &te->cmp[(off - TCI_TE_COMP_BASE) / TCI_TE_COMP_STRIDE];

		switch ((off - TCI_TE_COMP_BASE) % TCI_TE_COMP_STRIDE) {
		case TCI_CMP_CONTROL:
			k->control = legal_comp_control(val);
			k->latch = false;
			break;
		case TCI_CMP_PMATCH_LOW:
		case TCI_CMP_PMATCH_HIGH:
			set_word(&k->pmatch, off & 4, val);
			break;
		case TCI_CMP_SMATCH_LOW:
		case TCI_CMP_SMATCH_HIGH:
			set_word(&k->smatch, off & 4, val);
			break;
		}
	}
}

static void write_ts_control(struct hart *h, uint32_t val)
{
	struct encoder *te = &h->te;
	uint32_t mode;

	if (!(val & TCI_TS_ACTIVE) || !te->ts_active) {
		/*
		 * Enter reset (the counter reads 0), or release from it: every
		 * field to its default (mode External, Enable 0, Prescale 0).
		 */
		te->ts_active = val & TCI_TS_ACTIVE;
		te->ts_control = TCI_SET(TS_MODE, TCI_TS_MODE_EXTERNAL);
		ts_update_running(h);
		return;
	}
	/* trTsMode WARL: 0, or External for any other value */
	mode = TCI_GET(val, TS_MODE);
	if (mode != TCI_TS_MODE_NONE)
		mode = TCI_TS_MODE_EXTERNAL;
	te->ts_control = (val & (TCI_TS_COUNT | TCI_TS_PRESCALE_MASK | TCI_TS_ENABLE)) |
			 TCI_SET(TS_MODE, mode);
	ts_update_running(h);
}

static void write_control(struct hart *h, uint32_t val, uint32_t mask,
			  unsigned int vcpu, const struct tb_insn *at)
{
	struct encoder *te = &h->te;
	bool was_tracing = te_tracing(te);
	bool was_enabled = te->enable;

	if (!te->active) {
		if (val & TCI_ACTIVE) {
			/* release from reset completes at the next block */
			h->pending |= PEND_TE_ACTIVE;
			vcpu_set_active(vcpu, ACTIVE_SERVICE, true);
		}
		return;
	}
	if (!(val & TCI_ACTIVE)) {
		/* enter reset: stop and flush, then everything to defaults */
		if (was_tracing)
			ingress_stop(h, vcpu, at);
		h->pending &= ~PEND_TE_ACTIVE;
		te_reset(h);
		return;
	}
	if ((mask & 0xff00) && (val & TCI_TE_INST_STALL_OR_OVF))
		te->overflow = false;
	if (!was_enabled) {
		te->control = legal_control(val, te->control);
		ts_update_needed(h);	/* sync mode 2 counts the timestamp */
	}
	te->enable = val & TCI_ENABLE;
	h->fault_armed |= te->enable;
	te->inst_tracing = val & TCI_TE_INST_TRACING;
	if (!was_enabled && te->enable)
		te->overflow = false;
	if (!was_tracing && te_tracing(te))
		ingress_start(h, vcpu, at);
	else if (was_tracing && !te_tracing(te))
		ingress_stop(h, vcpu, at);
}

/* Offsets te_publish() keeps up to date; anything else is reserved. */
static bool te_is_reg(unsigned int off)
{
	unsigned int r;

	if (off <= TCI_TE_DATA_FILTERS ||
	    (off >= TCI_TS_CONTROL && off <= TCI_TE_TRIG_EXTOUT_CONTROL && off != TCI_TS_CONTROL + 4))
		return off != 0x014 && off != 0x018;
	if (off >= TCI_TE_FILTER(0) && off < TCI_TE_FILTER(MODEL_NFILTERS))
		return (off - TCI_TE_FILTER_BASE) % TCI_TE_FILTER_STRIDE <= TCI_FLT_MATCH_INST;
	if (off >= TCI_TE_COMP(0) && off < TCI_TE_COMP(MODEL_NCOMPS)) {
		r = (off - TCI_TE_COMP_BASE) % TCI_TE_COMP_STRIDE;
		return r == TCI_CMP_CONTROL || r >= TCI_CMP_PMATCH_LOW;
	}
	return false;
}

void te_write(struct hart *h, unsigned int off, uint32_t val, uint32_t mask,
	      unsigned int vcpu, const struct tb_insn *at)
{
	struct encoder *te = &h->te;

	if (M.v0) {
		te_v0_write(h, off, val, mask, vcpu, at);
		return;
	}
	if (off == TCI_CONTROL)
		write_control(h, val, mask, vcpu, at);
	else if (!te->active)
		;	/* in reset: other registers ignore writes */
	else if (off == TCI_TS_CONTROL)
		write_ts_control(h, val);
	else if (te->enable)
		;	/* configuration is latched while enabled */
	else if (off == TCI_TE_INST_FEATURES)
		te->features = legal_features(val);
	else if (off == TCI_TE_INST_FILTERS)
		te->inst_filters = val & ((1u << MODEL_NFILTERS) - 1);
	else
		write_filter_regs(h, off, val);
	if (!te_is_reg(off))
		h->te_regs[off / 4] = 0;
	te_publish(h);
}
