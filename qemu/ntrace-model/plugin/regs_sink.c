// SPDX-License-Identifier: GPL-2.0-only
/*
 * RAM sink (trRam*) in SMEM mode: trace bytes go to guest RAM between
 * trRamStart and trRamLimit (inclusive, 32-bit words), LSB first.
 *
 * Choices where the specification leaves room:
 *  - SMEM only (trRamHasSRAM=0, trRamMode reads 1); trRamRP and trRamData
 *    are not implemented (read 0, writes ignored), as the spec's "SMEM
 *    Generic" configuration;
 *  - trRamStart/Limit/WP accept 4-byte aligned addresses inside guest RAM
 *    below the register region; other values are clamped to that range
 *    (writing 0 reads back the lowest, writing all-ones the highest legal
 *    address, as the discovery procedure expects). The High halves are
 *    therefore 0 while RAM ends below 4 GiB;
 *  - writes to Start/Limit/WP while the sink is enabled or not empty are
 *    ignored (the registers, trRamWrap included, keep their values). The
 *    spec only says a trace tool should not write them then ("Accessing
 *    and Detecting RAM Sink Registers") and defines no outcome; as WARL
 *    fields their value may depend on the state, and keeping the current
 *    one keeps the capture consistent (tests: regs.c, sink.c);
 *  - trRamEmpty reads 0 while a partly filled trace word is held; disabling
 *    the sink pads that word with N-Trace idle bytes (0xFF) and writes it;
 *  - stop-on-wrap: the word written at trRamLimit wraps WP to trRamStart,
 *    sets trRamWrap and clears trRamEnable; later bytes are dropped and the
 *    encoder reports an overflow.
 */
#include <string.h>

#include "model.h"
#include "../../../include/uapi/linux/ntrace_tci.h"

#define RAM_CONTROL_WARL (TCI_RAM_STOP_ON_WRAP)

void ram_reset(struct hart *h)
{
	struct ramsink *r = &h->ram;

	r->active = false;
	r->enable = false;
	r->control = TCI_RAM_MODE_SMEM;
	r->staged = 0;
	/* Start/Limit/WP are Undef at reset: they keep their values */
}

static bool ram_empty(const struct ramsink *r)
{
	return r->staged == 0;
}

void ram_publish(struct hart *h)
{
	struct ramsink *r = &h->ram;
	volatile uint32_t *p = h->ram_regs;
	uint32_t c = TCI_EMPTY;

	if (r->active) {
		c = TCI_ACTIVE | r->control;
		c |= r->enable ? TCI_ENABLE : 0;
		c |= ram_empty(r) ? TCI_EMPTY : 0;
	}
	p[TCI_CONTROL / 4] = c;
	p[TCI_IMPL / 4] = TCI_SET(IMPL_VER_MAJOR, 1) | TCI_SET(IMPL_VER_MINOR, 0) |
			  TCI_SET(IMPL_COMP_TYPE, TCI_COMP_RAM_SINK) | TCI_RAM_HAS_SMEM;
	p[TCI_RAM_START_LOW / 4] = (uint32_t)r->start;
	p[TCI_RAM_START_HIGH / 4] = (uint32_t)(r->start >> 32);
	p[TCI_RAM_LIMIT_LOW / 4] = (uint32_t)r->limit;
	p[TCI_RAM_LIMIT_HIGH / 4] = (uint32_t)(r->limit >> 32);
	p[TCI_RAM_WP_LOW / 4] = (uint32_t)r->wp | (r->wrap ? TCI_RAM_WRAP : 0);
	p[TCI_RAM_WP_HIGH / 4] = (uint32_t)(r->wp >> 32);
	p[TCI_RAM_RP_LOW / 4] = 0;
	p[TCI_RAM_RP_HIGH / 4] = 0;
	p[TCI_RAM_DATA / 4] = 0;
}

/* Just the registers that move while capturing (after ram_push). */
void ram_publish_wp(struct hart *h)
{
	struct ramsink *r = &h->ram;
	volatile uint32_t *p = h->ram_regs;

	p[TCI_CONTROL / 4] = r->active ? TCI_ACTIVE | r->control | (r->enable ? TCI_ENABLE : 0) |
					 (ram_empty(r) ? TCI_EMPTY : 0) : TCI_EMPTY;
	p[TCI_RAM_WP_LOW / 4] = (uint32_t)r->wp | (r->wrap ? TCI_RAM_WRAP : 0);
	p[TCI_RAM_WP_HIGH / 4] = (uint32_t)(r->wp >> 32);
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

static uint64_t with_word(uint64_t v, bool high, uint32_t w)
{
	if (high)
		return (v & 0xffffffffull) | (uint64_t)w << 32;
	return (v & ~0xffffffffull) | w;
}

void ram_flush(struct hart *h)
{
	struct ramsink *r = &h->ram;
	uint8_t idle[4] = { 0xff, 0xff, 0xff, 0xff };

	if (r->staged && r->enable)
		ram_push(h, idle, 4 - r->staged);
	r->staged = 0;
}

static void write_control(struct hart *h, uint32_t val, unsigned int vcpu)
{
	struct ramsink *r = &h->ram;

	if (!r->active) {
		if (val & TCI_ACTIVE) {
			h->pending |= PEND_RAM_ACTIVE;
			vcpu_set_active(vcpu, ACTIVE_SERVICE, true);
		}
		return;
	}
	if (!(val & TCI_ACTIVE)) {
		ram_flush(h);
		h->pending &= ~PEND_RAM_ACTIVE;
		ram_reset(h);
		return;
	}
	r->control = TCI_RAM_MODE_SMEM | (val & RAM_CONTROL_WARL);
	if (r->enable && !(val & TCI_ENABLE))
		ram_flush(h);
	/* enabling changes none of Start/Limit/WP */
	r->enable = val & TCI_ENABLE;
}

void ram_write(struct hart *h, unsigned int off, uint32_t val, uint32_t mask,
	       unsigned int vcpu)
{
	struct ramsink *r = &h->ram;
	uint64_t lo = M.ram_base, hi = M.reg_base - 4;
	bool locked = r->enable || !ram_empty(r);

	(void)mask;
	if (off == TCI_CONTROL) {
		write_control(h, val, vcpu);
	} else if (!r->active || locked) {
		/* in reset, or pointers locked while capturing */
	} else if (off == TCI_RAM_START_LOW || off == TCI_RAM_START_HIGH) {
		r->start = clamp_addr(with_word(r->start, off & 4, val), lo, hi);
	} else if (off == TCI_RAM_LIMIT_LOW || off == TCI_RAM_LIMIT_HIGH) {
		r->limit = clamp_addr(with_word(r->limit, off & 4, val), lo, hi);
	} else if (off == TCI_RAM_WP_LOW || off == TCI_RAM_WP_HIGH) {
		uint64_t top = r->limit >= r->start ? r->limit : r->start;

		r->wp = clamp_addr(with_word(r->wp, off & 4, val), r->start, top);
		if (off == TCI_RAM_WP_LOW)
			r->wrap = val & TCI_RAM_WRAP;
	}
	if (off > TCI_RAM_DATA)
		h->ram_regs[off / 4] = 0;	/* reserved */
	ram_publish(h);
}

/*
 * Store trace bytes. Returns 0, or -1 when (some of) the bytes were
 * dropped because the sink is not capturing.
 */
int ram_push(struct hart *h, const uint8_t *buf, size_t n)
{
	struct ramsink *r = &h->ram;

	while (n) {
		/* bytes up to the end of the word at trRamLimit */
		uint64_t room = r->wp <= r->limit ? r->limit + 4 - r->wp - r->staged : 4u - r->staged;
		size_t chunk = n < room ? n : (size_t)room;
		uint8_t *p;
		uint64_t adv;

		if (!r->active || !r->enable)
			return -1;
		p = guest_ram_ptr(r->wp + r->staged, chunk);
		if (p)
			memcpy(p, buf, chunk);
		h->bytes += chunk;
		buf += chunk;
		n -= chunk;
		adv = (r->staged + chunk) & ~3ull;
		r->staged = (r->staged + chunk) & 3;
		if (!adv)
			continue;
		if (r->wp + adv <= r->limit) {
			r->wp += adv;
			continue;
		}
		/* the word at trRamLimit was written: back to trRamStart */
		r->wp = r->start;
		r->wrap = true;
		if (r->control & TCI_RAM_STOP_ON_WRAP) {
			r->enable = false;
			r->staged = 0;
			ram_publish(h);
			return n ? -1 : 0;
		}
	}
	return 0;
}
