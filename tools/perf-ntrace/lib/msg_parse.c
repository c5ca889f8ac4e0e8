// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Streaming N-Trace message parser: one pass over the bytes, state kept
 * across calls so messages may span input chunks.
 *
 * Framing is checked byte by byte (MSEO sequences, length limit); a framing
 * error turns the bytes up to the next MSEO=11 byte into one "bad region"
 * record. Field-level problems (too long, wrong count) are reported for the
 * whole message, whose framing is intact, so the next message parses
 * normally.
 */
#include <string.h>

#include "msg_cut.h"

#define PARSER_MAX_FIELDS MSG_CUT_MAX_FIELDS

void ntrace_parser_init(struct ntrace_parser *p, const struct ntrace_codec_cfg *cfg,
			uint64_t base_offset)
{
	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	if (!p->cfg.max_msg_bytes)
		p->cfg.max_msg_bytes = NTRACE_MSG_MAX_BYTES;
	if (p->cfg.src_bits > NTRACE_MAX_SRC_BITS)
		p->cfg.src_bits = NTRACE_MAX_SRC_BITS;
	p->pos = base_offset;
	p->state = p->cfg.wait_for_eom ? ST_WAIT : ST_IDLE;
}

static void bad_mark(struct ntrace_parser *p, uint64_t start, uint64_t end, unsigned int err,
		     unsigned int tcode)
{
	if (!p->bad) {
		p->bad = true;
		p->bad_start = start;
		p->bad_err = err;
		p->bad_tcode = tcode;
	}
	p->bad_end = end;
}

static void error_record(struct ntrace_msg *m, uint64_t start, uint64_t end, unsigned int err,
			 unsigned int tcode)
{
	memset(m, 0, sizeof(*m));
	m->offset = start;
	m->size = (uint32_t)(end - start);
	m->err = err;
	m->tcode = tcode;
}

static void bad_flush(struct ntrace_parser *p, struct ntrace_msg *m)
{
	error_record(m, p->bad_start, p->bad_end, p->bad_err, p->bad_tcode);
	p->bad = false;
}

static void msg_begin(struct ntrace_parser *p, uint64_t off, unsigned int tcode)
{
	struct msg_layout l;

	p->state = ST_MSG;
	p->start = off;
	p->nbytes = 1;
	p->tcode = tcode;
	p->hdr_need = p->cfg.src_bits;
	if (msg_fixed_layout(tcode, &l))
		p->hdr_need += l.fixed_bits;
	p->hdr_got = 0;
	p->hdr = 0;
	p->acc = 0;
	p->acc_bits = 0;
	p->acc_hi_or = 0;
	p->acc_hi_and = 1;
	p->nfields = 0;
	p->ferr = 0;
	p->fempty = false;
}

/* Close the variable field collected so far. */
static void field_close(struct ntrace_parser *p)
{
	unsigned int i = p->nfields;

	if (p->hdr_got < p->hdr_need) {
		if (!p->ferr)
			p->ferr = NTRACE_MSG_ERR_SHORT;
	} else if (!p->acc_bits && p->cfg.strict) {
		if (!p->ferr)
			p->ferr = NTRACE_MSG_ERR_EMPTY_FIELD;
	} else if (!p->acc_bits) {
		/* a quirk: a field of no bits is 0 (the message is flagged) */
		p->fempty = true;
		if (i < PARSER_MAX_FIELDS) {
			p->field[i] = 0;
			p->field_bits[i] = 0;
		}
	} else if (i < PARSER_MAX_FIELDS) {
		p->field[i] = p->acc;
		/* 255 = more than 64 bits; hi bits all 1 = 254 (MSB extension) */
		if (p->acc_bits <= 64)
			p->field_bits[i] = (uint8_t)p->acc_bits;
		else if (!p->acc_hi_or)
			p->field_bits[i] = 64;	/* only zero padding past bit 63 */
		else
			p->field_bits[i] = p->acc_hi_and ? 254 : 255;
	}
	p->nfields++;
	p->acc = 0;
	p->acc_bits = 0;
	p->acc_hi_or = 0;
	p->acc_hi_and = 1;
}

static inline void acc_add(struct ntrace_parser *p, uint64_t v, unsigned int n)
{
	unsigned int at = p->acc_bits;

	if (at < 64) {
		p->acc |= v << at;
		if (at + n > 64) {
			unsigned int hn = at + n - 64;
			uint64_t hi = v >> (64 - at);

			p->acc_hi_or |= hi != 0;
			p->acc_hi_and &= hi == ((1u << hn) - 1);
		}
	} else {
		p->acc_hi_or |= v != 0;
		p->acc_hi_and &= v == ((1u << n) - 1);
	}
	p->acc_bits = (uint16_t)(at + n);
}

static const struct ntrace_msg msg_zero;

/* Interpret a complete message; writes a message or an error record. */
static void msg_finish(struct ntrace_parser *p, struct ntrace_msg *m)
{
	const struct ntrace_codec_cfg *cfg = &p->cfg;
	unsigned int tcode = p->tcode, nf = p->nfields, nslots, i;
	struct msg_layout l;
	uint64_t h = p->hdr;
	bool std;

	*m = msg_zero;	/* a copy: memset of this size is a slow "rep stos" here */
	m->offset = p->start;
	m->size = p->nbytes;
	m->tcode = tcode;
	if (__builtin_expect(p->fempty, 0))
		m->flags = NTRACE_MSGF_EMPTY_FIELD;
	p->state = ST_IDLE;

	if (p->ferr) {
		m->err = p->ferr;
		return;
	}
	if (cfg->src_bits) {
		m->src = (uint16_t)(h & ((1u << cfg->src_bits) - 1));
		h >>= cfg->src_bits;
	}
	std = msg_fixed_layout(tcode, &l);
	if (std) {
		switch (l.fixed) {
		case FIX_BTYPE:
			m->btype = h & 3;
			break;
		case FIX_CODE4:
			m->code = h & 15;
			break;
		case FIX_SYNC:
			m->sync = h & 15;
			break;
		case FIX_SYNC_BTYPE:
			m->sync = h & 15;
			m->btype = (h >> 4) & 3;
			break;
		case FIX_EVCODE_CDF:
			m->code = h & 15;
			m->cdf = (h >> 4) & 3;
			break;
		}
		std = msg_resolve_layout(tcode, m->code, m->cdf, cfg->variant, &l);
	}
	if (!std) {
		/* Unknown layout: keep the segments, cannot tell a TSTAMP. */
		m->flags |= NTRACE_MSGF_LAYOUT_RAW;
		m->nraw = nf < NTRACE_MSG_RAW_FIELDS ? nf : NTRACE_MSG_RAW_FIELDS;
		if (nf > NTRACE_MSG_RAW_FIELDS)
			m->flags |= NTRACE_MSGF_RAW_TRUNC;
		for (i = 0; i < m->nraw; i++) {
			m->raw[i] = p->field[i];
			if (p->field_bits[i] > 64)
				m->flags |= NTRACE_MSGF_RAW_TRUNC;
		}
		return;
	}

	nslots = msg_slot_count(&l);
	if (nf == nslots + 1 && cfg->tstamp) {
		if (p->field_bits[nslots] > 64) {
			m->err = NTRACE_MSG_ERR_FIELD_TOO_LONG;
			return;
		}
		m->tstamp = p->field[nslots];
		m->flags |= NTRACE_MSGF_TSTAMP;
	} else if (nf != nslots) {
		m->err = NTRACE_MSG_ERR_FIELD_COUNT;
		return;
	}
	for (i = 0; i < nslots; i++) {
		uint64_t v = p->field[i];
		unsigned int bits = p->field_bits[i];

		if (l.slots[i] == SLOT_ADDR) {
			if (!addr_value(cfg, v, bits, &m->addr)) {
				m->err = NTRACE_MSG_ERR_FIELD_TOO_LONG;
				return;
			}
			m->addr_bits = bits > 64 ? 64 : (uint8_t)bits;
			m->flags |= NTRACE_MSGF_ADDR;
			continue;
		}
		if (bits > 64) {
			m->err = NTRACE_MSG_ERR_FIELD_TOO_LONG;
			return;
		}
		switch (l.slots[i]) {
		case SLOT_ICNT:
			m->icnt = v;
			m->flags |= NTRACE_MSGF_ICNT;
			break;
		case SLOT_HIST:
			m->hist = v;
			m->flags |= NTRACE_MSGF_HIST;
			break;
		case SLOT_COUNT:
			m->count = v;
			m->flags |= NTRACE_MSGF_COUNT;
			break;
		case SLOT_DATA:
			m->data = v;
			break;
		}
	}
}

/*
 * Fast path for a message that starts at q (MSEO 00, parser idle, nothing
 * pending) and ends within the 8 bytes there (msg_cut8()); 0 sends it the
 * byte-by-byte way. Both give the same records (tests/unit/msg_corrupt_test.c
 * and the parser fuzzer compare them).
 */
static size_t parse_word(struct ntrace_parser *p, const uint8_t *q, uint64_t off,
			 struct ntrace_msg *m)
{
	struct msg_cut c = { .field = p->field, .bits = p->field_bits };
	unsigned int k = msg_cut8(&p->cfg, q, &c);

	if (!k)
		return 0;
	p->hdr = c.hdr;
	p->start = off;
	p->nbytes = k;
	p->tcode = (uint8_t)c.tcode;
	p->nfields = (uint8_t)c.nf;
	p->ferr = 0;
	p->fempty = false;
	msg_finish(p, m);
	return k;
}

size_t ntrace_parse(struct ntrace_parser *p, const uint8_t *buf, size_t len,
		    struct ntrace_msg *out, size_t max, size_t *consumed)
{
	const unsigned int maxb = p->cfg.max_msg_bytes;
	size_t i, n = 0;

	for (i = 0; i < len && n < max; i++) {
		unsigned int b = buf[i], mseo = b & 3, mdo = b >> 2;
		uint64_t off = p->pos + i;

		switch (p->state) {
		case ST_MSG: {
			unsigned int k = 0;

			/* fast path: inside a variable field with room in acc */
			if (__builtin_expect(mseo != NTRACE_MSEO_RESERVED &&
					     p->hdr_got == p->hdr_need && p->acc_bits <= 58 &&
					     p->nbytes < maxb, 1)) {
				p->nbytes++;
				p->acc |= (uint64_t)mdo << p->acc_bits;
				p->acc_bits += 6;
				if (mseo != NTRACE_MSEO_NORMAL) {
					field_close(p);
					if (mseo == NTRACE_MSEO_END_MSG)
						msg_finish(p, &out[n++]);
				}
				break;
			}
			if (mseo == NTRACE_MSEO_RESERVED) {
				bad_mark(p, p->start, off + 1, NTRACE_MSG_ERR_MSEO, p->tcode);
				p->state = ST_SKIP;
				break;
			}
			if (++p->nbytes > maxb) {
				bad_mark(p, p->start, off + 1, NTRACE_MSG_ERR_TOO_LONG, p->tcode);
				p->state = mseo == NTRACE_MSEO_END_MSG ? ST_IDLE : ST_SKIP;
				break;
			}
			if (p->hdr_got < p->hdr_need) {
				k = p->hdr_need - p->hdr_got;
				if (k > 6)
					k = 6;
				p->hdr |= (uint64_t)(mdo & ((1u << k) - 1)) << p->hdr_got;
				p->hdr_got += k;
			}
			if (k < 6)
				acc_add(p, mdo >> k, 6 - k);
			if (mseo != NTRACE_MSEO_NORMAL) {
				field_close(p);
				if (mseo == NTRACE_MSEO_END_MSG)
					msg_finish(p, &out[n++]);
			}
			break;
		}
		case ST_IDLE:
			if (mseo == NTRACE_MSEO_NORMAL && !p->bad && len - i >= 8) {
				size_t k = parse_word(p, buf + i, off, &out[n]);

				if (k) {
					n++;
					i += k - 1;
					break;
				}
			}
			if (b == NTRACE_IDLE_BYTE) {
				if (p->bad)
					bad_flush(p, &out[n++]);
			} else if (mseo == NTRACE_MSEO_NORMAL) {
				if (p->bad)
					bad_flush(p, &out[n++]);
				msg_begin(p, off, mdo);
			} else if (mseo == NTRACE_MSEO_END_MSG) {
				/* ends a message that did not start: a stray
				 * byte, unless part of a longer bad region */
				bad_mark(p, off, off + 1, NTRACE_MSG_ERR_STRAY_EOM, 0xFF);
			} else {
				bad_mark(p, off, off + 1, NTRACE_MSG_ERR_GARBAGE, 0xFF);
				if (p->bad_err == NTRACE_MSG_ERR_STRAY_EOM)
					p->bad_err = NTRACE_MSG_ERR_GARBAGE;
				p->state = ST_SKIP;
			}
			break;
		case ST_SKIP:
			p->bad_end = off + 1;
			if (mseo == NTRACE_MSEO_END_MSG)
				p->state = ST_IDLE;
			break;
		default: /* ST_WAIT */
			if (mseo == NTRACE_MSEO_END_MSG)
				p->state = ST_IDLE;
			break;
		}
	}
	p->pos += i;
	if (consumed)
		*consumed = i;
	return n;
}

size_t ntrace_parse_finish(struct ntrace_parser *p, struct ntrace_msg out[2])
{
	size_t n = 0;

	if (p->state == ST_MSG) {
		bad_mark(p, p->start, p->pos, NTRACE_MSG_ERR_TRUNCATED, p->tcode);
	} else if (p->state == ST_SKIP && p->bad) {
		p->bad_end = p->pos;
	}
	if (p->bad)
		bad_flush(p, &out[n++]);
	p->state = ST_IDLE;
	return n;
}
