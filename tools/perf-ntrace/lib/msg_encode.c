// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * N-Trace message writer: message struct -> MDO/MSEO bytes.
 *
 * Bits go into MDO six at a time, least significant first. A variable field
 * is written with the fewest bits that hold its value (at least one), then
 * padded to the byte boundary; its last byte gets MSEO=01, or 11 when it is
 * the last field of the message.
 */
#include <stddef.h>
#include <string.h>

#include "msg_layout.h"

/*
 * The low eight six-bit groups of v (48 bits), one per byte in bits 7:2
 * (MDO), first group in the low byte.
 */
static inline uint64_t mdo_spread(uint64_t v)
{
	uint64_t x = v & 0xffffffffffffull;

	x = (x & 0xffffffull) | (x & 0xffffff000000ull) << 8;
	x = (x & 0x00000fff00000fffull) | (x & 0x00fff00000fff000ull) << 4;
	x = (x & 0x003f003f003f003full) | (x & 0x0fc00fc00fc00fc0ull) << 2;
	return x << 2;
}

/* One 8-byte store: -O2 leaves a byte loop as eight byte stores. */
static inline void put_le64(uint8_t *p, uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	memcpy(p, &x, sizeof(x));
}

/*
 * Every field but the last of a message ends on a byte boundary, so only
 * the fixed fields after TCODE share bytes with what follows: they wait in
 * acc (at most 6 + 12 + 6 bits) and go out with the first variable field.
 * The bytes go straight to the zeroed output buffer: the longest message
 * is 4 + 4 * 11 bytes, so an 8-byte store at any of its bytes stays inside
 * the buffer's NTRACE_MSG_MAX_BYTES, and a field of up to eight groups is
 * one store.
 */
_Static_assert(NTRACE_MSG_MAX_BYTES >= 4 + 4 * 11 + 7, "8-byte stores inside the buffer");

struct bitwriter {
	uint8_t *p;		/* next byte */
	uint64_t acc;		/* fixed-field bits not written yet */
	unsigned int accbits;
};

static inline void bw_fixed(struct bitwriter *w, uint64_t v, unsigned int bits)
{
	w->acc |= v << w->accbits;
	w->accbits += bits;
}

/*
 * g > 8 groups of the 128-bit value hi:lo (the waiting fixed bits and a
 * long first field). Out of line: the common message has no such field
 * and its writer then needs fewer registers.
 */
static __attribute__((noinline)) void put_long(uint8_t *p, uint64_t lo, uint64_t hi,
					       unsigned int g)
{
	unsigned int k;

	for (k = 0; k < g; k += 8) {
		put_le64(p + k, mdo_spread(lo));
		lo = lo >> 48 | hi << 16;
		hi >>= 48;
	}
}

/*
 * A variable field: bits (>= 1) bits of v, none set above them, after the
 * fixed bits waiting, ended on a byte boundary with MSEO=01 (the caller
 * makes the message's last 11).
 */
static inline void bw_field(struct bitwriter *w, uint64_t v, unsigned int bits)
{
	unsigned int a = w->accbits, g = (a + bits + 5) / 6;
	uint64_t lo = w->acc | v << a, hi = a ? v >> (64 - a) : 0;

	w->acc = 0;
	w->accbits = 0;
	if (g <= 8)
		put_le64(w->p, mdo_spread(lo));
	else
		put_long(w->p, lo, hi, g);
	w->p[g - 1] |= NTRACE_MSEO_END_FIELD;
	w->p += g;
}

/* The same for a field after the first (no fixed bits wait): at most 11 groups. */
static inline void bw_field_aligned(struct bitwriter *w, uint64_t v, unsigned int bits)
{
	unsigned int g;

	if (bits <= 6) {	/* the most common field: one byte */
		*w->p++ = (uint8_t)(v << 2 | NTRACE_MSEO_END_FIELD);
		return;
	}
	g = (bits + 5) / 6;
	put_le64(w->p, mdo_spread(v));
	if (g > 8)
		put_le64(w->p + 8, mdo_spread(v >> 48));
	w->p[g - 1] |= NTRACE_MSEO_END_FIELD;
	w->p += g;
}

/* Bits of v, at least one (0 has one); no branch: 0 | 1 has one bit too. */
static inline unsigned int bitlen(uint64_t v)
{
	return 64 - (unsigned int)__builtin_clzll(v | 1);
}

/*
 * Bits to send for an address field value: the fewest MDO-aligned bits,
 * using MSB extension ("Virtual Addresses Optimization") when enabled and
 * shorter. Bits past the first MDO byte boundary are only well defined in
 * whole bytes because an address never shares a byte with another field.
 */
static unsigned int addr_bits(const struct ntrace_codec_cfg *cfg, uint64_t v)
{
	unsigned int w = msg_addr_width(cfg), plain, bits;

	if (!cfg->ext_addr_msb)
		return bitlen(v);
	v &= (1ull << w) - 1;
	plain = (bitlen(v) + 5) / 6 * 6;
	/* a 1 in the top sent bit would read as "extend": add a zero MDO */
	if (plain <= w && ((v >> (plain - 1)) & 1))
		plain += 6;
	for (bits = 6; bits < plain && bits <= w; bits += 6) {
		uint64_t top = v >> (bits - 1);		/* bits w-1 .. bits-1 */

		if (top == (1ull << (w - bits + 1)) - 1)
			return bits;
	}
	return plain;
}

static int put_fixed(struct bitwriter *w, uint64_t v, unsigned int bits)
{
	if (bits < 64 && (v >> bits))
		return -1;
	bw_fixed(w, v, bits);
	return 0;
}

/* Where each variable field's value is in struct ntrace_msg. */
static const uint8_t slot_offset[] = {
	[SLOT_ICNT] = offsetof(struct ntrace_msg, icnt),
	[SLOT_ADDR] = offsetof(struct ntrace_msg, addr),
	[SLOT_HIST] = offsetof(struct ntrace_msg, hist),
	[SLOT_COUNT] = offsetof(struct ntrace_msg, count),
	[SLOT_DATA] = offsetof(struct ntrace_msg, data),
};

/* Value of a variable field and the bits to send (none set above them). */
static inline uint64_t slot_value(const struct ntrace_codec_cfg *cfg, const struct ntrace_msg *m,
				  unsigned int slot, unsigned int *bits)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)m + slot_offset[slot], sizeof(v));
	if (slot == SLOT_ADDR && cfg->ext_addr_msb) {
		/* MSB extension may send fewer bits than the value has */
		v &= (1ull << msg_addr_width(cfg)) - 1;
		*bits = addr_bits(cfg, v);
		return *bits < 64 ? v & ((1ull << *bits) - 1) : v;
	}
	*bits = bitlen(v);
	return v;
}

size_t ntrace_msg_encode(const struct ntrace_codec_cfg *cfg, const struct ntrace_msg *m,
			 uint8_t buf[NTRACE_MSG_MAX_BYTES])
{
	struct bitwriter w = { .p = buf };
	unsigned int i, bits;
	struct msg_layout l;
	uint64_t v;
	bool std;

	if (m->tcode > 63)
		return 0;
	bw_fixed(&w, m->tcode, 6);
	if (cfg->src_bits && put_fixed(&w, m->src, cfg->src_bits))
		return 0;
	if (!cfg->src_bits && m->src)
		return 0;

	std = msg_fixed_layout(m->tcode, &l);
	if (std) {
		int bad = 0;

		switch (l.fixed) {
		case FIX_BTYPE:
			bad = put_fixed(&w, m->btype, 2);
			break;
		case FIX_CODE4:
			bad = put_fixed(&w, m->code, 4);
			break;
		case FIX_SYNC:
			bad = put_fixed(&w, m->sync, 4);
			break;
		case FIX_SYNC_BTYPE:
			bad = put_fixed(&w, m->sync, 4) | put_fixed(&w, m->btype, 2);
			break;
		case FIX_EVCODE_CDF:
			bad = put_fixed(&w, m->code, 4) | put_fixed(&w, m->cdf, 2);
			break;
		}
		if (bad)
			return 0;
		std = msg_resolve_layout(m->tcode, m->code, m->cdf, cfg->variant, &l) &&
		      !(m->flags & NTRACE_MSGF_LAYOUT_RAW);
	}
	/* nothing is written to buf before the message is known to fit */
	if (std) {
		memset(buf, 0, NTRACE_MSG_MAX_BYTES);
		v = slot_value(cfg, m, l.slots[0], &bits);
		bw_field(&w, v, bits);
		/* slots[MSG_MAX_SLOTS] is always SLOT_END */
		for (i = 1; l.slots[i] != SLOT_END; i++) {
			v = slot_value(cfg, m, l.slots[i], &bits);
			bw_field_aligned(&w, v, bits);
		}
		if ((m->flags & NTRACE_MSGF_TSTAMP) && cfg->tstamp)
			bw_field_aligned(&w, m->tstamp, bitlen(m->tstamp));
	} else {
		/* raw layout: the variable segments after the known fixed fields */
		if (m->nraw == 0 || m->nraw > NTRACE_MSG_RAW_FIELDS)
			return 0;
		memset(buf, 0, NTRACE_MSG_MAX_BYTES);
		bw_field(&w, m->raw[0], bitlen(m->raw[0]));
		for (i = 1; i < m->nraw; i++)
			bw_field_aligned(&w, m->raw[i], bitlen(m->raw[i]));
	}
	/* the last field ends the message: MSEO 01 -> 11 */
	w.p[-1] |= NTRACE_MSEO_END_MSG;
	return (size_t)(w.p - buf);
}
