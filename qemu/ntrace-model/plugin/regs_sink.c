// SPDX-License-Identifier: GPL-2.0-only
/*
 * RAM sink registers (trRam*, Trace Control Interface 1.0 "Trace RAM
 * Sink"). Two modes (trRamMode):
 *  - SMEM (1): trace bytes go to guest RAM between trRamStart and
 *    trRamLimit (inclusive, 32-bit words), LSB first (sink_store.c);
 *  - SRAM (0), only when the model has SRAM (plugin argument sram=BYTES,
 *    trRamHasSRAM=1): trace goes to model-internal memory of that size
 *    and is read back word by word through trRamRP and trRamData.
 *
 * Choices where the specification leaves room:
 *  - trRamMode resets to 1 (SMEM); it is WARL 0..1 only with SRAM, and
 *    changes only while the sink is disabled and empty. Entering SRAM mode
 *    sets trRamLimit to the SRAM's last word (its size: discovery) and
 *    trRamWP/RP to 0; entering SMEM mode clamps the pointers into RAM;
 *  - SMEM: trRamStart/Limit/WP accept 4-byte aligned addresses inside
 *    guest RAM below the register region, other values are clamped (0
 *    reads back the lowest, all-ones the highest legal address, as
 *    discovery expects); the High halves read 0 while RAM ends below
 *    4 GiB. trRamRP and trRamData are not implemented (read 0), the spec's
 *    "SMEM Generic" configuration;
 *  - SRAM: trRamStart is fixed to 0, trRamLimit is WARL in [0, size - 4]
 *    (trimmable), trRamWP and trRamRP in [0, trRamLimit]; the High halves
 *    read 0. Reading while the sink captures is not implemented, as the
 *    spec allows: while trRamEnable=1 or trRamEmpty=0 trRamRP writes are
 *    ignored and trRamData reads do not advance trRamRP;
 *  - trRamData: the plugin cannot act on a load, so the register page
 *    always holds the SRAM word at trRamRP; when the model sees a load of
 *    trRamData (a load callback, after the access, before the hart's next
 *    instruction) it advances trRamRP by 4 (from trRamLimit to trRamStart)
 *    and stages the next word. Writes to trRamData are ignored;
 *  - writes to Start/Limit/WP while the sink is enabled or not empty are
 *    ignored (the spec only says a trace tool should not write them then,
 *    "Accessing and Detecting RAM Sink Registers", and defines no outcome);
 *  - trRamEmpty reads 0 while a partly filled trace word is held; disabling
 *    the sink pads that word with N-Trace idle bytes (0xFF) and writes it;
 *  - stop-on-wrap: the word written at trRamLimit wraps WP to trRamStart,
 *    sets trRamWrap and clears trRamEnable; later bytes are dropped and the
 *    encoder that sent them reports an overflow;
 *  - messages that come through a funnel while the sink is active but not
 *    capturing wait in the funnel (up to MODEL_HELD_BYTES) and are written
 *    first when trRamEnable is set again; beyond that they are dropped as
 *    above. Directly attached encoders have no such stage.
 */
#include <string.h>

#include "model.h"
#include "../../../include/uapi/linux/ntrace_tci.h"

#define RAM_CONTROL_WARL (TCI_RAM_STOP_ON_WRAP)

bool ram_sram_mode(const struct ramsink *r)
{
	return r->sram && !(r->control & TCI_RAM_MODE_SMEM);
}

bool ram_empty(const struct ramsink *r)
{
	return r->staged == 0;
}

/* trRamEmpty as the guest reads it */
static bool ram_reads_empty(const struct ramsink *r)
{
	return ram_empty(r) && !(r->fault_armed && fault_on_sink(FAULT_RAM_NEVER_EMPTY, r));
}

/* Legal address range of Start/Limit/WP in the current mode. */
static void ram_range(const struct ramsink *r, uint64_t *lo, uint64_t *hi)
{
	if (ram_sram_mode(r)) {
		*lo = 0;
		*hi = M.sram_size - 4;
	} else {
		*lo = M.ram_base;
		*hi = M.reg_base - 4;
	}
}

static uint64_t clamp_addr(uint64_t a, uint64_t lo, uint64_t hi)
{
	a &= ~3ull;
	if (a < lo)
		return lo;
	if (a > hi)
		return hi;
	return a;
}

/* trRamMode changed: bring the pointers into the new mode's range. */
static void mode_changed(struct ramsink *r)
{
	uint64_t lo, hi;

	ram_range(r, &lo, &hi);
	if (ram_sram_mode(r)) {
		r->start = 0;
		r->limit = hi;
		r->wp = 0;
		r->wrap = false;
	} else {
		r->start = clamp_addr(r->start, lo, hi);
		r->limit = clamp_addr(r->limit, lo, hi);
		r->wp = clamp_addr(r->wp, r->start, r->limit >= r->start ? r->limit : r->start);
	}
	r->rp = 0;
}

void ram_reset(struct ramsink *r)
{
	bool was_sram = ram_sram_mode(r);

	r->active = false;
	r->enable = false;
	r->fault_armed = false;
	r->control = TCI_RAM_MODE_SMEM;
	r->staged = 0;
	r->held_len = 0;
	/* Start/Limit/WP are Undef at reset: they keep their values */
	if (was_sram)
		mode_changed(r);
}

/* trRamWP as the guest reads it (its low word holds trRamWrap) */
static uint64_t ram_reads_wp(const struct ramsink *r)
{
	if (r->fault_armed && r->bytes >= 4096 && fault_on_sink(FAULT_RAM_WP_WILD, r))
		return r->limit + 4096;
	return r->wp;
}

void ram_publish(struct ramsink *r)
{
	volatile uint32_t *p = r->regs;
	uint32_t c = TCI_EMPTY;
	bool sram = ram_sram_mode(r);

	if (r->v0) {
		sink_v0_publish(r);
		return;
	}
	if (r->active) {
		c = TCI_ACTIVE | r->control;
		c |= r->enable ? TCI_ENABLE : 0;
		c |= ram_reads_empty(r) ? TCI_EMPTY : 0;
	}
	p[TCI_CONTROL / 4] = c;
	p[TCI_IMPL / 4] = TCI_SET(IMPL_VER_MAJOR, 1) | TCI_SET(IMPL_VER_MINOR, 0) |
			  TCI_SET(IMPL_COMP_TYPE, TCI_COMP_RAM_SINK) | TCI_RAM_HAS_SMEM |
			  (r->sram ? TCI_RAM_HAS_SRAM : 0);
	p[TCI_RAM_START_LOW / 4] = (uint32_t)r->start;
	p[TCI_RAM_START_HIGH / 4] = (uint32_t)(r->start >> 32);
	p[TCI_RAM_LIMIT_LOW / 4] = (uint32_t)r->limit;
	p[TCI_RAM_LIMIT_HIGH / 4] = (uint32_t)(r->limit >> 32);
	p[TCI_RAM_WP_LOW / 4] = (uint32_t)ram_reads_wp(r) | (r->wrap ? TCI_RAM_WRAP : 0);
	p[TCI_RAM_WP_HIGH / 4] = (uint32_t)(ram_reads_wp(r) >> 32);
	p[TCI_RAM_RP_LOW / 4] = sram ? (uint32_t)r->rp : 0;
	p[TCI_RAM_RP_HIGH / 4] = 0;
	p[TCI_RAM_DATA / 4] = sram ? ram_sram_word(r, r->rp) : 0;
}

/* Just the registers that move while capturing (after ram_push). */
void ram_publish_wp(struct ramsink *r)
{
	volatile uint32_t *p = r->regs;

	if (r->v0) {
		sink_v0_publish(r);
		return;
	}
	p[TCI_CONTROL / 4] = r->active ? TCI_ACTIVE | r->control | (r->enable ? TCI_ENABLE : 0) |
					 (ram_reads_empty(r) ? TCI_EMPTY : 0) : TCI_EMPTY;
	p[TCI_RAM_WP_LOW / 4] = (uint32_t)ram_reads_wp(r) | (r->wrap ? TCI_RAM_WRAP : 0);
	p[TCI_RAM_WP_HIGH / 4] = (uint32_t)(ram_reads_wp(r) >> 32);
}

static uint64_t with_word(uint64_t v, bool high, uint32_t w)
{
	if (high)
		return (v & 0xffffffffull) | (uint64_t)w << 32;
	return (v & ~0xffffffffull) | w;
}

static void write_control(struct ramsink *r, uint32_t val, unsigned int vcpu)
{
	uint32_t mode = r->control & TCI_RAM_MODE_SMEM;

	if (!r->active) {
		if (val & TCI_ACTIVE) {
			r->pending_active = true;
			vcpu_set_active(vcpu, ACTIVE_SERVICE, true);
		}
		return;
	}
	if (!(val & TCI_ACTIVE)) {
		ram_flush(r);
		r->pending_active = false;
		ram_reset(r);
		return;
	}
	/* trRamMode: WARL 0..1 with SRAM; changes only while idle */
	if (r->sram && !r->enable && ram_empty(r))
		mode = val & TCI_RAM_MODE_SMEM;
	if (mode != (r->control & TCI_RAM_MODE_SMEM)) {
		r->control = mode;
		mode_changed(r);
	}
	r->control = mode | (val & RAM_CONTROL_WARL);
	if (r->enable && !(val & TCI_ENABLE))
		ram_flush(r);
	/* enabling changes none of Start/Limit/WP/RP */
	r->enable = val & TCI_ENABLE;
	r->fault_armed |= r->enable;
	if (r->enable)
		ram_release(r);
}

void ram_write(struct ramsink *r, unsigned int off, uint32_t val, uint32_t mask,
	       unsigned int vcpu)
{
	bool locked = r->enable || !ram_empty(r);
	bool sram = ram_sram_mode(r);
	uint64_t lo, hi, top;

	(void)mask;
	ram_range(r, &lo, &hi);
	if (off == TCI_CONTROL) {
		write_control(r, val, vcpu);
	} else if (!r->active || locked) {
		/* in reset, or pointers locked while capturing */
	} else if (off == TCI_RAM_START_LOW || off == TCI_RAM_START_HIGH) {
		if (!sram)	/* SRAM: fixed at 0 */
			r->start = clamp_addr(with_word(r->start, off & 4, val), lo, hi);
	} else if (off == TCI_RAM_LIMIT_LOW || off == TCI_RAM_LIMIT_HIGH) {
		if (!sram || off == TCI_RAM_LIMIT_LOW)
			r->limit = clamp_addr(with_word(r->limit, off & 4, val), lo, hi);
	} else if (off == TCI_RAM_WP_LOW || off == TCI_RAM_WP_HIGH) {
		top = r->limit >= r->start ? r->limit : r->start;
		r->wp = clamp_addr(with_word(r->wp, off & 4, val), r->start, top);
		if (off == TCI_RAM_WP_LOW)
			r->wrap = val & TCI_RAM_WRAP;
	} else if (sram && off == TCI_RAM_RP_LOW) {
		r->rp = clamp_addr(val, r->start, r->limit);
	}
	if (off > TCI_RAM_DATA)
		r->regs[off / 4] = 0;	/* reserved */
	ram_publish(r);
}

/*
 * A load of the sink's register offset off was seen (after it read the
 * page). trRamData in SRAM mode, not capturing: the word at trRamRP was
 * read, so trRamRP moves on (from trRamLimit back to trRamStart) and the
 * next word is staged.
 */
void ram_read(struct ramsink *r, unsigned int off)
{
	if (off != TCI_RAM_DATA || !r->active || !ram_sram_mode(r) || r->enable ||
	    !ram_empty(r))
		return;
	r->rp = r->rp >= r->limit ? r->start : r->rp + 4;
	r->regs[TCI_RAM_RP_LOW / 4] = (uint32_t)r->rp;
	r->regs[TCI_RAM_DATA / 4] = ram_sram_word(r, r->rp);
}
