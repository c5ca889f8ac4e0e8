// SPDX-License-Identifier: GPL-2.0-only
/*
 * SiFive pre-ratified ("version 0") trace encoder registers, as in the
 * HiFive Premier P550 (topologies p550 and sifive-hart): teControl, teImpl,
 * the timestamp unit (tsControl, tsLower, tsUpper) and the ITC registers,
 * in the layout of include/uapi/linux/ntrace_tci_v0.h. The encoder itself
 * is the library's, in its sifive-v0 variant (trace_out.c hands it the
 * registers; ntrace_enc_cfg_from_regs() reads the v0 layout).
 *
 * Choices where the published register tables leave room (documented in
 * Documentation/trace/ntrace-qemu-model.rst):
 *  - in reset (teActive=0) teControl reads its table reset value (teEmpty,
 *    teSyncMaxBTM 3, teSyncMaxInst 0xA, teSliceFormat 1, teSink) and
 *    writes to other registers are ignored; release from reset completes
 *    at the writer's next block, as the 1.0 encoder's;
 *  - WARL fields keep their value when written a value they cannot hold
 *    (teInstruction 1..5, teSyncMaxBTM 0xC..0xE, teSyncMaxInst 6..0xE,
 *    tsBranch 2); teSink holds the one sink there is;
 *  - the mode fields are latched while teEnable=1, as in the 1.0 model;
 *  - teStallEnable reads 0 (the model never stalls the hart);
 *    teStallOrOverflow is set when a message is lost (the funnel in reset),
 *    and the encoder then emits an Error message; only writing 0 clears it;
 *  - teSinkError is set when the encoder's output cannot be delivered (the
 *    funnel in reset) or, with an embedded sink, a trace word could not be
 *    written (the buffer is not RAM); writing 1 clears it;
 *  - ITC registers are plain storage: no ITC messages are generated;
 *    xtiControl, xtoControl, wpControl and pcSample are not modelled (0);
 *  - the p550 encoder's timestamp unit is a slave (tsType 4): its value is
 *    the funnel's system counter while both units are active, else 0; only
 *    tsActive, tsEnable, tsBranch, tsInstrumentation and tsOwnership are
 *    writable there. A sifive-hart encoder has its own internal unit
 *    (tsType 2) with tsCount, tsReset and tsPrescale.
 */
#include <string.h>

#include "model.h"
#include "../../../include/uapi/linux/ntrace_tci_v0.h"

#define TS_MASK		((1ull << MODEL_V0_TS_WIDTH) - 1)

static bool embedded_sink(void)
{
	return M.topo == TOPO_SIFIVE_HART;
}

/* teSink: the one sink this topology's encoders have */
static uint32_t te_sink(void)
{
	return embedded_sink() ? TCI_V0_SINK_SBA : TCI_V0_SINK_FUNNEL;
}

static uint32_t reset_control(void)
{
	return TCI_SET(V0_TE_SYNC_MAX_BTM, 3) | TCI_SET(V0_TE_SYNC_MAX_INST, 0xa) |
	       TCI_SET(V0_TE_SLICE_FORMAT, 1) | TCI_SET(V0_SINK, te_sink());
}

static uint32_t legal_control(uint32_t val, uint32_t old)
{
	uint32_t mode = TCI_GET(val, V0_TE_INST_MODE);
	uint32_t btm = TCI_GET(val, V0_TE_SYNC_MAX_BTM);
	uint32_t inst = TCI_GET(val, V0_TE_SYNC_MAX_INST);
	uint32_t c = old & (TCI_V0_TE_INST_MODE_MASK | TCI_V0_TE_SYNC_MAX_BTM_MASK |
			    TCI_V0_TE_SYNC_MAX_INST_MASK);

	if (mode == TCI_V0_TE_INST_MODE_OFF || mode == TCI_V0_TE_INST_MODE_HTM ||
	    mode == TCI_V0_TE_INST_MODE_HTM_OPT)
		c = (c & ~TCI_V0_TE_INST_MODE_MASK) | TCI_SET(V0_TE_INST_MODE, mode);
	if (btm <= 0xb || btm == TCI_V0_TE_SYNC_OFF)
		c = (c & ~TCI_V0_TE_SYNC_MAX_BTM_MASK) | TCI_SET(V0_TE_SYNC_MAX_BTM, btm);
	if (inst <= 5 || inst == TCI_V0_TE_SYNC_OFF)
		c = (c & ~TCI_V0_TE_SYNC_MAX_INST_MASK) | TCI_SET(V0_TE_SYNC_MAX_INST, inst);
	c |= val & (TCI_V0_TE_ITC_MODE_MASK | TCI_V0_TE_INHIBIT_SRC);
	/* teStopOnWrap exists only where the encoder has its own sink */
	if (embedded_sink())
		c |= val & TCI_V0_STOP_ON_WRAP;
	return c | TCI_SET(V0_TE_SLICE_FORMAT, 1) | TCI_SET(V0_SINK, te_sink());
}

/* ---- timestamp units ------------------------------------------------------ */

uint64_t v0_ts_read(const struct v0_tsunit *u)
{
	unsigned int ps = TCI_GET(u->control, V0_TS_PRESCALE);

	if (!u->active)
		return 0;
	if (!(u->control & TCI_V0_TS_COUNT))
		return u->held;
	return ((clock_read() - u->base) >> (2 * ps)) & TS_MASK;
}

void v0_ts_reset(struct v0_tsunit *u, uint32_t type)
{
	(void)type;
	memset(u, 0, sizeof(*u));
}

/*
 * tsControl of an internal unit (tsCount, tsReset, tsPrescale): the value
 * goes on from where it was (or 0 after tsReset), whatever the new
 * prescaler or count state. Entering or leaving reset sets every field to
 * its default (counter 0, stopped), as the 1.0 unit does.
 */
void v0_ts_write(struct v0_tsunit *u, uint32_t val, uint32_t writable)
{
	uint64_t v;
	unsigned int ps;

	if (!(val & TCI_V0_TS_ACTIVE) || !u->active) {
		memset(u, 0, sizeof(*u));
		u->active = val & TCI_V0_TS_ACTIVE;
		return;
	}
	v = (val & TCI_V0_TS_RESET) ? 0 : v0_ts_read(u);
	u->control = val & writable & (TCI_V0_TS_COUNT | TCI_V0_TS_PRESCALE_MASK);
	ps = TCI_GET(u->control, V0_TS_PRESCALE);
	u->held = v;
	u->base = clock_read() - (v << (2 * ps));
}

uint32_t v0_ts_control(const struct v0_tsunit *u)
{
	return u->active ? TCI_V0_TS_ACTIVE | u->control : 0;
}

/* The encoder's timestamp: its unit's (the system's for a slave) while active. */
uint64_t te_v0_ts_value(struct hart *h)
{
	const struct encoder *te = &h->te;

	return te->ts_active && te->ts0 ? v0_ts_read(te->ts0) : 0;
}

/* The encoder's unit has a value when it and the unit it reads are active. */
void te_v0_ts_update(struct hart *h)
{
	struct encoder *te = &h->te;
	bool run = te->ts_active && te->ts0 && te->ts0->active;

	if (run != te->ts_running) {
		te->ts_running = run;
		vcpu_set_active(h->idx, ACTIVE_TS, run);
	}
	ts_update_needed(h);
}

static uint32_t ts_type(void)
{
	return embedded_sink() ? TCI_V0_TS_TYPE_BUS : TCI_V0_TS_TYPE_SLAVE;
}

/* tsControl as read: the TE's fields, the own unit's, type and width. */
static uint32_t ts_control_word(const struct hart *h)
{
	const struct encoder *te = &h->te;
	uint32_t c = TCI_SET(V0_TS_TYPE, ts_type()) | TCI_SET(V0_TS_WIDTH, MODEL_V0_TS_WIDTH);

	if (te->ts_active)
		c |= TCI_V0_TS_ACTIVE | te->ts_control;
	if (embedded_sink())
		c |= v0_ts_control(&te->ts_own);
	return c;
}

static void write_ts_control(struct hart *h, uint32_t val)
{
	struct encoder *te = &h->te;
	uint32_t br = TCI_GET(val, V0_TS_BRANCH);

	if (!(val & TCI_V0_TS_ACTIVE) || !te->ts_active) {
		te->ts_active = val & TCI_V0_TS_ACTIVE;
		te->ts_control = 0;
	} else {
		if (br == 2)	/* reserved: keep */
			br = TCI_GET(te->ts_control, V0_TS_BRANCH);
		te->ts_control = (val & (TCI_V0_TS_ENABLE | TCI_V0_TS_ITC | TCI_V0_TS_OWNERSHIP)) |
				 TCI_SET(V0_TS_BRANCH, br);
	}
	if (embedded_sink())
		v0_ts_write(&te->ts_own, val, TCI_V0_TS_COUNT | TCI_V0_TS_PRESCALE_MASK);
	te_v0_ts_update(h);
}

/* ---- the encoder ------------------------------------------------------------ */

void te_v0_reset(struct hart *h)
{
	struct encoder *te = &h->te;
	volatile uint32_t *r = h->te_regs;
	unsigned int i;

	memset(te, 0, sizeof(*te));
	te->empty = true;
	te->control = reset_control();
	h->fault_armed = false;
	te->ts0 = embedded_sink() ? &te->ts_own : &M.funnels[0].ts;
	if (r) {
		r[TCI_V0_ITC_TRACE_ENABLE / 4] = 0;
		r[TCI_V0_ITC_TRIG_ENABLE / 4] = 0;
		for (i = 0; i < TCI_V0_ITC_CHANNELS; i++)
			r[TCI_V0_ITC_STIMULUS(i) / 4] = 0;
	}
	if (embedded_sink() && h->root) {
		spin_lock(&h->root->lock);
		ram_flush(h->root);
		sink_v0_reset(h->root);
		spin_unlock(&h->root->lock);
	}
	vcpu_set_active(h->idx, ACTIVE_TS, false);
	ts_update_needed(h);
}

static bool v0_tracing(const struct encoder *te)
{
	return te->active && te->enable && te->inst_tracing &&
	       TCI_GET(te->control, V0_TE_INST_MODE) != TCI_V0_TE_INST_MODE_OFF;
}

/* teControl as read; with an embedded sink, teEnable drops at stop-on-wrap. */
static uint32_t control_word(const struct hart *h)
{
	const struct encoder *te = &h->te;
	const struct ramsink *s = embedded_sink() ? h->root : NULL;
	uint32_t c = te->control;

	if (!te->active)
		return reset_control() | TCI_V0_EMPTY;
	c |= TCI_V0_ACTIVE;
	c |= te->enable && (!s || s->enable) ? TCI_V0_ENABLE : 0;
	c |= te->inst_tracing ? TCI_V0_TE_TRACING : 0;
	c |= te->empty && (!s || ram_empty(s)) ? TCI_V0_EMPTY : 0;
	c |= te->overflow ? TCI_V0_TE_STALL_OR_OVF : 0;
	c |= te->sink_error || (s && s->sink_error) ? TCI_V0_SINK_ERROR : 0;
	return c;
}

void te_v0_publish(struct hart *h)
{
	volatile uint32_t *r = h->te_regs;
	bool emb = embedded_sink();

	r[TCI_V0_CONTROL / 4] = control_word(h);
	/* srcID: the hart index; hartid: its mhartid, the same on QEMU virt */
	r[TCI_V0_IMPL / 4] = (emb ? TCI_V0_HAS_SBA_SINK : TCI_V0_HAS_FUNNEL_SINK) |
			     TCI_SET(V0_SINK_BYTES, 0) | TCI_SET(V0_TE_SRC_ID, h->idx) |
			     TCI_SET(V0_TE_SRC_BITS, emb ? 0 : 2) | TCI_SET(V0_TE_HARTID, h->idx);
	r[TCI_V0_TS_CONTROL / 4] = ts_control_word(h);
	if (emb && h->root) {
		spin_lock(&h->root->lock);
		sink_v0_publish(h->root);
		spin_unlock(&h->root->lock);
	}
	ts_publish(h);
}

/* teControl as the sink's publish sees it (hart lock held by the caller). */
uint32_t te_v0_control(const struct hart *h)
{
	return control_word(h);
}

static void sink_follow(struct hart *h, bool was_enabled)
{
	struct ramsink *s = h->root;

	if (!embedded_sink())
		return;
	spin_lock(&s->lock);
	s->control = h->te.control & TCI_V0_STOP_ON_WRAP ? TCI_RAM_STOP_ON_WRAP : 0;
	if (was_enabled && !h->te.enable) {
		ram_flush(s);
		s->enable = false;
	} else if (!was_enabled && h->te.enable) {
		s->enable = true;
	}
	spin_unlock(&s->lock);
}

static void write_control(struct hart *h, uint32_t val, uint32_t mask,
			  unsigned int vcpu, const struct tb_insn *at)
{
	struct encoder *te = &h->te;
	bool was_tracing = v0_tracing(te), was_enabled = te->enable;

	if (!te->active) {
		if (val & TCI_V0_ACTIVE) {
			h->pending |= PEND_TE_ACTIVE;
			vcpu_set_active(vcpu, ACTIVE_SERVICE, true);
		}
		return;
	}
	if (!(val & TCI_V0_ACTIVE)) {
		if (was_tracing)
			ingress_stop(h, vcpu, at);
		h->pending &= ~PEND_TE_ACTIVE;
		te_v0_reset(h);
		return;
	}
	/* teStallOrOverflow: software clears it by writing 0 (not W1C) */
	if ((mask & 0xff00) && !(val & TCI_V0_TE_STALL_OR_OVF))
		te->overflow = false;
	/* teSinkError: write 1 to clear */
	if ((mask & 0xff000000) && (val & TCI_V0_SINK_ERROR)) {
		te->sink_error = false;
		if (embedded_sink())
			h->root->sink_error = false;
	}
	if (!was_enabled)
		te->control = legal_control(val, te->control);
	te->enable = val & TCI_V0_ENABLE;
	h->fault_armed |= te->enable;
	te->inst_tracing = val & TCI_V0_TE_TRACING;
	ts_update_needed(h);
	/* an embedded sink captures before trace starts ... */
	if (!was_enabled && te->enable)
		sink_follow(h, was_enabled);
	if (!was_tracing && v0_tracing(te))
		ingress_start(h, vcpu, at);
	else if (was_tracing && !v0_tracing(te))
		ingress_stop(h, vcpu, at);
	/* ... and is flushed after the encoder's last message */
	if (was_enabled || !te->enable)
		sink_follow(h, was_enabled);
}

/* Offsets with a register; anything else is reserved and reads 0. */
static bool te_is_reg(unsigned int off)
{
	return off == TCI_V0_CONTROL || off == TCI_V0_IMPL ||
	       (embedded_sink() && off >= TCI_V0_SINK_BASE && off <= TCI_V0_SINK_WP) ||
	       (off >= TCI_V0_TS_CONTROL && off <= TCI_V0_TS_UPPER) ||
	       off == TCI_V0_ITC_TRACE_ENABLE || off == TCI_V0_ITC_TRIG_ENABLE ||
	       (off >= TCI_V0_ITC_STIMULUS(0) && off < TCI_V0_ITC_STIMULUS(TCI_V0_ITC_CHANNELS));
}

void te_v0_write(struct hart *h, unsigned int off, uint32_t val, uint32_t mask,
		 unsigned int vcpu, const struct tb_insn *at)
{
	struct encoder *te = &h->te;
	bool itc = off >= TCI_V0_ITC_TRACE_ENABLE && off < TCI_V0_ITC_STIMULUS(TCI_V0_ITC_CHANNELS);

	if (off == TCI_V0_CONTROL) {
		write_control(h, val, mask, vcpu, at);
	} else if (!te->active) {
		/* in reset: writes are ignored */
		if (itc)
			h->te_regs[off / 4] = 0;
	} else if (off == TCI_V0_TS_CONTROL) {
		write_ts_control(h, val);
	} else if (embedded_sink() && off >= TCI_V0_SINK_BASE && off <= TCI_V0_SINK_WP) {
		spin_lock(&h->root->lock);
		sink_v0_write(h->root, off, val);
		spin_unlock(&h->root->lock);
	}
	/* the ITC registers keep what was written (plain storage) */
	if (!te_is_reg(off))
		h->te_regs[off / 4] = 0;
	te_v0_publish(h);
}
