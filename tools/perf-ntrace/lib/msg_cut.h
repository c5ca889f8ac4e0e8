/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Private: framing of a short message from one 64-bit load, and the value
 * of an address field. The parser (msg_parse.c) and the flow decoder's
 * direct path for common messages (dec_fast.c) both cut messages this way;
 * that path and the walk memo (dec_memo.c) know messages by their bytes
 * (msg_word()).
 */
#ifndef NTRACE_MSG_CUT_H
#define NTRACE_MSG_CUT_H

#include <string.h>

#include "msg_layout.h"

/* Parser states (struct ntrace_parser.state). */
enum {
	ST_IDLE,	/* between messages */
	ST_MSG,		/* inside a message */
	ST_SKIP,	/* after a framing error: until MSEO=11 */
	ST_WAIT,	/* start of a wrapped buffer: silently until MSEO=11 */
};

#define MSG_CUT_MAX_FIELDS 8

/* Between messages with nothing pending: the next byte may start one. */
static inline bool msg_parser_idle(const struct ntrace_parser *p)
{
	return p->state == ST_IDLE && !p->bad;
}

/*
 * The MDO bits of 8 bytes (w: the first byte least significant), packed:
 * byte k's 6 bits at bits 6k..6k+5, the order fields are sent in.
 */
static inline uint64_t mdo_pack8(uint64_t w)
{
	uint64_t x = (w >> 2) & 0x3F3F3F3F3F3F3F3Full;

	x = (x & 0x003F003F003F003Full) | ((x >> 2) & 0x0FC00FC00FC00FC0ull);
	x = (x & 0x00000FFF00000FFFull) | ((x >> 4) & 0x00FFF00000FFF000ull);
	return (x & 0x0000000000FFFFFFull) | ((x >> 8) & 0x0000FFFFFF000000ull);
}

/* Packed bit position after the lowest byte flagged in m (bit 8k for byte k). */
static inline unsigned int field_end(uint64_t m)
{
	return 6 * (((unsigned int)__builtin_ctzll(m) >> 3) + 1);
}

/* A message cut by msg_cut8(). */
struct msg_cut {
	unsigned int tcode, nf;
	uint64_t hdr;		/* SRC and fixed fields, LSB first */
	uint64_t *field;	/* nf variable fields (at most 42 bits each) */
	uint8_t *bits;		/* their widths */
};

/*
 * A message that starts at q (its first byte has MSEO 00) and ends within
 * the 8 bytes there (8 may be read), framed with bit masks and its fields
 * cut from the packed MDO bits at once. Returns its length, or 0 for
 * anything unusual (no end in 8 bytes, a reserved MSEO, over the length
 * limit, a short header, an empty field, too many fields), which the
 * parser's byte-by-byte path handles.
 */
static inline unsigned int msg_cut8(const struct ntrace_codec_cfg *cfg, const uint8_t *q,
				    struct msg_cut *c)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t w, lo, hi, endm, inmsg, ends, packed;
	unsigned int last, tcode, need, pos, nf = 0;
	struct msg_layout l;

	memcpy(&w, q, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	lo = w & ones;
	hi = (w >> 1) & ones;
	endm = lo & hi;			/* MSEO 11: end of message */
	if (!endm)
		return 0;
	last = (unsigned int)__builtin_ctzll(endm) >> 3;
	if (last + 1 > cfg->max_msg_bytes)
		return 0;
	inmsg = last == 7 ? ~0ull : (1ull << (8 * (last + 1))) - 1;
	if (hi & ~lo & inmsg)
		return 0;		/* MSEO 10 (reserved) */
	ends = (lo | hi) & inmsg;	/* last byte of each field */
	packed = mdo_pack8(w);
	tcode = (unsigned int)(packed & 63);
	need = cfg->src_bits;
	if (msg_fixed_layout(tcode, &l))
		need += l.fixed_bits;
	pos = 6 + need;
	if (field_end(ends) <= pos)
		return 0;		/* header not complete, or an empty first field */
	c->hdr = need ? (packed >> 6) & ((1ull << need) - 1) : 0;
	do {
		unsigned int end = field_end(ends), nb = end - pos;

		if (!nb || nf == MSG_CUT_MAX_FIELDS)
			return 0;
		c->field[nf] = (packed >> pos) & ((1ull << nb) - 1);	/* nb <= 42 */
		c->bits[nf++] = (uint8_t)nb;
		pos = end;
		ends &= ends - 1;
	} while (ends);
	c->tcode = tcode;
	c->nf = nf;
	return last + 1;
}

/*
 * Field value of an address: MSB-extend when enabled and the top
 * transmitted bit is 1, then keep the address width. bits 254: more than
 * 64 bits, the ones past bit 63 all 1; 255: more than 64, others.
 */
static inline bool addr_value(const struct ntrace_codec_cfg *cfg, uint64_t raw, unsigned int bits,
			      uint64_t *out)
{
	unsigned int w = cfg->xlen == 32 ? 31 : 63;
	uint64_t mask = (1ull << w) - 1;

	if (bits == 255)
		return false;
	if (cfg->ext_addr_msb) {
		if (bits == 254) {
			*out = raw & mask;
			return true;
		}
		if (bits && bits < 64 && (raw >> (bits - 1)) & 1)
			raw |= ~0ull << bits;
		*out = raw & mask;
		return true;
	}
	if (bits == 254)
		return false;
	*out = raw;
	return true;
}

/*
 * The bytes of the message at q (8 readable), zero past its end, with its
 * length in *k; 0 when it does not end within 8 bytes.
 */
static inline uint64_t msg_word(const uint8_t *q, unsigned int *k)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t w, endm;

	memcpy(&w, q, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	endm = w & (w >> 1) & ones;	/* MSEO 11 */
	if (!endm)
		return 0;
	*k = ((unsigned int)__builtin_ctzll(endm) >> 3) + 1;
	endm &= -endm;			/* bit 0 of the last byte */
	return w & ((endm << 8) - 1);	/* (in the 8th byte: 0 - 1, every bit) */
}

#endif /* NTRACE_MSG_CUT_H */
