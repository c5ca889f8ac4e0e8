// SPDX-License-Identifier: GPL-2.0-only
/*
 * SiFive pre-ratified ("version 0") trace funnel (topology p550) and the
 * system-memory ("SBA") sinks embedded in v0 register blocks: the funnel's
 * own (64-bit words, tfImpl sinkBytes 1) and, in topology sifive-hart,
 * each encoder's (32-bit words). Register layout:
 * include/uapi/linux/ntrace_tci_v0.h; the data path is the RAM sink's
 * (sink_store.c), with the word size of the sink.
 *
 * Sink registers (SinkBase, SinkBaseHigh, SinkLimit, SinkWP): the buffer is
 * SinkBase .. SinkLimit + one word (SinkLimit is its LAST word);
 * SinkBaseHigh holds bits 63:32 of all three addresses; the low bits below
 * the word size read 0, except SinkWP bit 0, the wrapped flag (set when a
 * word is written at SinkLimit and SinkWP goes back to SinkBase; software
 * may write it). Choices where the tables leave room:
 *  - the registers reset to 0; writes to them while the sink is enabled or
 *    holds a partial word are ignored, as the 1.0 RAM sink model does;
 *  - any address is accepted; a word that does not land in guest RAM below
 *    the model's register region is not written and sets the sink error
 *    bit (tfSinkError, or teSinkError for an encoder's own sink);
 *  - tfEnable=0 (or a stop-on-wrap, which clears it) makes the funnel
 *    accept and drop messages, as the table says: the encoders see no
 *    error. A funnel in reset (tfActive=0) refuses them: each encoder that
 *    sent one sets teSinkError and teStallOrOverflow;
 *  - tfEnable 1 -> 0 writes the partial last word padded with idle bytes
 *    (0xFF), then tfEmpty reads 1;
 *  - tfActive=0 resets the whole funnel, its sink and its timestamp unit;
 *    release from reset completes at the writer's next block;
 *  - the funnel's timestamp unit (tsType 2, internal, bus clock) is the
 *    system counter the p550 encoders' slave units read: the platform
 *    timer, from tsReset on, / 4^tsPrescale, stopped while tsCount=0.
 */
#include <string.h>

#include "model.h"
#include "../../../include/uapi/linux/ntrace_tci_v0.h"

/* ---- embedded sinks (sink lock held) ---------------------------------------- */

static bool in_ram(uint64_t a, uint64_t end)
{
	return a >= M.ram_base && a < end && end <= M.reg_base;
}

static void sink_check_range(struct ramsink *r)
{
	r->unmapped = !in_ram(r->start, r->limit + r->wbytes) ||
		      !in_ram(r->wp, r->wp + r->wbytes);
}

void sink_v0_reset(struct ramsink *r)
{
	r->active = false;
	r->enable = false;
	r->control = 0;
	r->staged = 0;
	r->held_len = 0;
	r->start = r->limit = r->wp = 0;
	r->wrap = false;
	r->sink_error = false;
	sink_check_range(r);
}

/* A store to a sink register; false if off is none. */
bool sink_v0_write(struct ramsink *r, unsigned int off, uint32_t val)
{
	uint32_t lo = val & ~(uint32_t)(r->wbytes - 1);
	uint64_t hi;

	if (off < TCI_V0_SINK_BASE || off > TCI_V0_SINK_WP)
		return false;
	if (!r->active || r->enable || !ram_empty(r))
		return true;	/* in reset, or capturing: ignored */
	switch (off) {
	case TCI_V0_SINK_BASE:
		r->start = (r->start & ~0xffffffffull) | lo;
		break;
	case TCI_V0_SINK_BASE_HIGH:
		hi = (uint64_t)val << 32;
		r->start = hi | (uint32_t)r->start;
		r->limit = hi | (uint32_t)r->limit;
		r->wp = hi | (uint32_t)r->wp;
		break;
	case TCI_V0_SINK_LIMIT:
		r->limit = (r->limit & ~0xffffffffull) | lo;
		break;
	case TCI_V0_SINK_WP:
		r->wp = (r->wp & ~0xffffffffull) | lo;
		r->wrap = val & TCI_V0_SINK_WRAPPED;
		break;
	}
	sink_check_range(r);
	return true;
}

/* tfControl as read (root lock held) */
static uint32_t funnel_control(const struct funnel *f)
{
	const struct ramsink *r = f->root;
	uint32_t c = TCI_SET(V0_SINK, TCI_V0_SINK_SBA);

	if (!f->active)
		return c | TCI_V0_EMPTY;
	c |= TCI_V0_ACTIVE;
	c |= r->enable ? TCI_V0_ENABLE : 0;
	c |= ram_empty(r) ? TCI_V0_EMPTY : 0;
	c |= r->control & TCI_RAM_STOP_ON_WRAP ? TCI_V0_STOP_ON_WRAP : 0;
	c |= r->sink_error ? TCI_V0_SINK_ERROR : 0;
	return c;
}

/* The sink's registers, and the control word of the block it is in. */
void sink_v0_publish(struct ramsink *r)
{
	volatile uint32_t *p = r->regs;

	if (!p)
		return;
	p[TCI_V0_SINK_BASE / 4] = (uint32_t)r->start;
	p[TCI_V0_SINK_BASE_HIGH / 4] = (uint32_t)(r->start >> 32);
	p[TCI_V0_SINK_LIMIT / 4] = (uint32_t)r->limit;
	p[TCI_V0_SINK_WP / 4] = (uint32_t)r->wp | (r->wrap ? TCI_V0_SINK_WRAPPED : 0);
	if (M.topo == TOPO_SIFIVE_HART)
		p[TCI_V0_CONTROL / 4] = te_v0_control(&M.harts[r->idx]);
	else
		p[TCI_V0_CONTROL / 4] = funnel_control(&M.funnels[0]);
}

/* ---- the funnel (root sink lock held) ---------------------------------------- */

void funnel_v0_reset(struct funnel *f)
{
	f->active = false;
	f->enable = false;
	f->dis_input = 0;
	memset(&f->ts, 0, sizeof(f->ts));
	ram_flush(f->root);
	sink_v0_reset(f->root);
}

void funnel_v0_publish(struct funnel *f)
{
	volatile uint32_t *p = f->regs;
	uint64_t t = v0_ts_read(&f->ts);

	p[TCI_V0_IMPL / 4] = TCI_V0_HAS_SBA_SINK | TCI_SET(V0_SINK_BYTES, 1);
	sink_v0_publish(f->root);
	p[TCI_V0_TS_CONTROL / 4] = v0_ts_control(&f->ts) |
				   TCI_SET(V0_TS_TYPE, TCI_V0_TS_TYPE_BUS) |
				   TCI_SET(V0_TS_WIDTH, MODEL_V0_TS_WIDTH);
	p[TCI_V0_TS_LOWER / 4] = (uint32_t)t;
	p[TCI_V0_TS_UPPER / 4] = (uint32_t)(t >> 32);
}

static void write_control(struct funnel *f, uint32_t val, unsigned int vcpu)
{
	struct ramsink *r = f->root;

	if (!f->active) {
		if (val & TCI_V0_ACTIVE) {
			f->pending_active = true;
			vcpu_set_active(vcpu, ACTIVE_SERVICE, true);
		}
		return;
	}
	if (!(val & TCI_V0_ACTIVE)) {
		f->pending_active = false;
		funnel_v0_reset(f);
		return;
	}
	if (val & TCI_V0_SINK_ERROR)	/* RW1C */
		r->sink_error = false;
	r->control = val & TCI_V0_STOP_ON_WRAP ? TCI_RAM_STOP_ON_WRAP : 0;
	if (r->enable && !(val & TCI_V0_ENABLE))
		ram_flush(r);
	r->enable = val & TCI_V0_ENABLE;
	/* the funnel forwards whenever active: its sink decides (topology.c) */
	f->enable = true;
}

void funnel_v0_write(struct funnel *f, unsigned int off, uint32_t val, unsigned int vcpu)
{
	if (off == TCI_V0_CONTROL)
		write_control(f, val, vcpu);
	else if (!f->active)
		;	/* in reset: ignored */
	else if (off == TCI_V0_TS_CONTROL)
		v0_ts_write(&f->ts, val, TCI_V0_TS_COUNT | TCI_V0_TS_PRESCALE_MASK);
	else
		sink_v0_write(f->root, off, val);
	/* reserved offsets read 0; the others are rewritten below */
	if (off != TCI_V0_CONTROL && off != TCI_V0_IMPL &&
	    !(off >= TCI_V0_SINK_BASE && off <= TCI_V0_SINK_WP) &&
	    !(off >= TCI_V0_TS_CONTROL && off <= TCI_V0_TS_UPPER))
		f->regs[off / 4] = 0;
	funnel_v0_publish(f);
}
