// SPDX-License-Identifier: GPL-2.0-only
/*
 * The RAM sink's data path: trace bytes into the circular buffer
 * [trRamStart, trRamLimit] of guest RAM (SMEM mode) or of the sink's
 * model-internal SRAM (SRAM mode), LSB first in 32-bit words (64-bit in a
 * SiFive v0 funnel's sink, whose registers are regs_funnel_v0.c's), with
 * trRamWP, trRamWrap and stop-on-wrap as the Trace Control Interface
 * describes them. Callers hold the sink's lock.
 */
#include <string.h>

#include "model.h"
#include "../../../include/uapi/linux/ntrace_tci.h"

/* Host pointer to [addr, addr + len) of the sink's buffer memory. */
static uint8_t *sink_mem(const struct ramsink *r, uint64_t addr, size_t len)
{
	if (ram_sram_mode(r))
		return addr + len <= M.sram_size ? r->sram + addr : NULL;
	/* a v0 sink takes any address: never over the register region */
	if (r->v0 && (addr + len > M.reg_base || addr + len < addr))
		return NULL;
	return guest_ram_ptr(addr, len);
}

/* The SRAM word at addr (trRamData), LSB first. */
uint32_t ram_sram_word(const struct ramsink *r, uint64_t addr)
{
	const uint8_t *p = sink_mem(r, addr & ~3ull, 4);

	return p ? p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24 : 0;
}

void ram_flush(struct ramsink *r)
{
	static const uint8_t idle[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	if (r->staged && r->enable)
		ram_push(r, idle, r->wbytes - r->staged);
	r->staged = 0;
}

/*
 * A whole message that reached the sink through a funnel while the sink is
 * active but not capturing: the funnel holds it, up to MODEL_HELD_BYTES in
 * all (hardware funnels have FIFOs that absorb a short stop of their
 * output; the size allows for a host descheduling the vCPU that stopped
 * the sink). Returns 0, or -1 when there is no room: it is dropped.
 */
int ram_hold(struct ramsink *r, unsigned int hart, const uint8_t *buf, size_t n)
{
	if (r->held_len + n > sizeof(r->held))
		return -1;
	memcpy(r->held + r->held_len, buf, n);
	memset(r->held_from + r->held_len, (int)hart, n);
	r->held_len += n;
	return 0;
}

/*
 * Capturing resumes: write what the funnel held first. If the sink stops
 * on wrap meanwhile, the rest is lost: each hart that lost some reports it
 * with its next message (its encoder overflowed).
 */
void ram_release(struct ramsink *r)
{
	uint64_t before = r->bytes;
	size_t i, n = r->held_len;

	r->held_len = 0;
	if (!n || !ram_push(r, r->held, n))
		return;
	for (i = r->bytes - before; i < n; i++)
		M.harts[r->held_from[i]].release_lost = true;
}

/*
 * Store trace bytes. Returns 0, or -1 when (some of) the bytes were
 * dropped because the sink is not capturing.
 */
int ram_push(struct ramsink *r, const uint8_t *buf, size_t n)
{
	uint8_t *p;

	if (ram_push_fast(r, buf, n))
		return 0;
	if (r->active && r->enable && r->bytes >= 4096 &&
	    fault_on_sink(FAULT_RAM_WP_STUCK, r))
		return -1;	/* not written: the encoder overflows */
	while (n) {
		/* bytes up to the end of the word at trRamLimit */
		uint64_t room = r->wp <= r->limit ? r->limit + r->wbytes - r->wp - r->staged :
						    (uint64_t)r->wbytes - r->staged;
		size_t chunk = n < room ? n : (size_t)room;
		uint64_t adv;

		if (!r->active || !r->enable)
			return -1;
		p = sink_mem(r, r->wp + r->staged, chunk);
		if (p)
			memcpy(p, buf, chunk);
		else if (r->v0)
			r->sink_error = true;	/* the bus write failed */
		r->bytes += chunk;
		buf += chunk;
		n -= chunk;
		adv = (r->staged + chunk) & -(uint64_t)r->wbytes;
		r->staged = (r->staged + chunk) & (r->wbytes - 1);
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
			ram_publish(r);
			return n ? -1 : 0;
		}
	}
	return 0;
}
