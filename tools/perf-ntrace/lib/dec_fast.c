// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The direct path for the messages that make most of an HTM trace once a
 * source is synchronised: IndirectBranch and IndirectBranchHist with
 * B-TYPE 0, ResourceFull with RCODE 0, 1 or 2. They are cut from the bytes
 * (msg_cut8()) straight into the source's state and walk, without the
 * parser's message record and the generic dispatch (ntrace_decoder_put(),
 * put_src(), branch_msg()), which cost as much as the walk itself.
 * A trace of a compiled program repeats its messages: an indirect branch
 * message whose walk is known (dec_memo.c, by the message's bytes) is
 * replayed without even a cut, and the cuts are kept by the bytes too.
 *
 * Anything else stops the direct path before it changes any state, and
 * the parser and ntrace_decoder_put() take the message: another TCODE or
 * B-TYPE, a message longer than 8 bytes or with a timestamp, a source that
 * is not synchronised, not known to be HTM or filtered out, a field wider
 * than a checked width. Both paths leave the same state and report the
 * same runs and events: scripts/jobs.sh compares --jobs 1 (this path)
 * with --jobs 2, whose pieces go through ntrace_decoder_put().
 */
#include <stdlib.h>

#include "dec_internal.h"
#include "msg_cut.h"

/* A message of a kind this path takes, as its bytes say. */
struct fmsg {
	uint64_t word;		/* its bytes, zero past its end; 0: an empty cache entry */
	uint64_t f[3];		/* variable fields; f[1] of a branch message: the address value */
	uint8_t len, tcode, code, nf, abits;	/* code: RCODE, or B-TYPE (0) */
	uint16_t src;
};

/* The message at q (8 bytes readable) if it is one of the kinds above, else 0. */
static unsigned int cut(const struct ntrace_decoder *d, const uint8_t *q, struct fmsg *m)
{
	const struct ntrace_codec_cfg *cfg = &d->parser.cfg;
	uint64_t field[MSG_CUT_MAX_FIELDS] = { 0 }, h;
	uint8_t bits[MSG_CUT_MAX_FIELDS];
	struct msg_cut c = { .field = field, .bits = bits };
	unsigned int k = msg_cut8(cfg, q, &c), tc, code;

	if (!k)
		return 0;
	tc = c.tcode;
	h = c.hdr;
	m->src = (uint16_t)(cfg->src_bits ? h & ((1u << cfg->src_bits) - 1) : 0);
	h >>= cfg->src_bits;
	code = (unsigned int)(h & 15);	/* B-TYPE in bits 1:0, or RCODE */
	if (tc == NTRACE_TC_INDIRECT_BRANCH_HIST || tc == NTRACE_TC_INDIRECT_BRANCH) {
		if (c.nf != (tc == NTRACE_TC_INDIRECT_BRANCH ? 2u : 3u) ||
		    (code & 3) != NTRACE_BTYPE_INDIRECT || field[0] > d->icnt_limit)
			return 0;
		code = NTRACE_BTYPE_INDIRECT;
		addr_value(cfg, field[1], bits[1], &field[1]);	/* < 64 bits: always */
		m->abits = bits[1];
		if (c.nf == 2)
			field[2] = 1;	/* no HIST: an empty one does the same */
	} else if (tc == NTRACE_TC_RESOURCE_FULL) {
		if (code == NTRACE_RCODE_ICNT || code == NTRACE_RCODE_HIST) {
			if (c.nf != 1 || (code == NTRACE_RCODE_ICNT && field[0] > d->icnt_limit))
				return 0;
		} else if (code != NTRACE_RCODE_HREPEAT || c.nf != 2 ||
			   field[1] > d->hrep_limit) {
			return 0;
		}
	} else {
		return 0;
	}
	m->f[0] = field[0];
	m->f[1] = field[1];
	m->f[2] = field[2];
	m->len = (uint8_t)k;
	m->tcode = (uint8_t)tc;
	m->code = (uint8_t)code;
	m->nf = (uint8_t)c.nf;
	return k;
}

/*
 * The message at q (its bytes: word) through the cut cache: a trace
 * repeats its messages (the same I-CNT, HIST and address field for the
 * same path), so the cut of each is kept by its bytes. Equal bytes, equal
 * cut.
 */
static const struct fmsg *lookup(struct ntrace_decoder *d, const uint8_t *q, uint64_t word)
{
	struct fmsg *e = &d->cuts[(word * 0x9E3779B97F4A7C15ull) >> (64 - DEC_CUTS_BITS)];

	if (e->word == word)
		return e;
	if (!cut(d, q, e)) {
		e->word = 0;
		return NULL;
	}
	e->word = word;
	return e;
}

const struct ntrace_msg *dec_prev(const struct ntrace_decoder *d, const struct dec_src *s,
				  struct ntrace_msg *tmp)
{
	uint8_t b[8];
	struct fmsg m;
	unsigned int i;

	if (!s->prev_fast)
		return &s->prev;
	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(s->prev_word >> 8 * i);
	cut(d, b, &m);	/* it was cut before: the same again */
	*tmp = (struct ntrace_msg){
		.offset = s->prev_off,
		.size = m.len,
		.tcode = m.tcode,
		.flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR |
			 (m.nf == 3 ? NTRACE_MSGF_HIST : 0),
		.addr_bits = m.abits,
		.src = s->id,
		.btype = NTRACE_BTYPE_INDIRECT,
		.icnt = m.f[0],
		.addr = m.f[1],
		.hist = m.nf == 3 ? m.f[2] : 0,
	};
	return tmp;
}

/*
 * Take messages from buf while they are of the kinds above; returns the
 * bytes taken (whole messages). The parser must be idle.
 */
size_t dec_fast(struct ntrace_decoder *d, const uint8_t *buf, size_t len)
{
	const unsigned int sbits = d->parser.cfg.src_bits;
	size_t i = 0;

	if (!msg_parser_idle(&d->parser) || !d->cuts)
		return 0;
	while (len - i >= 8 && !d->stopped) {
		const struct fmsg *m = NULL;
		const struct dec_memo *known;
		uint64_t word, target, pc;
		struct dec_memo_rec rec;
		struct dec_src *s;
		unsigned int k, src = 0;
		bool memo;
		int rc;

		word = msg_word(buf + i, &k);
		if (!word)
			break;
		if (sbits) {
			m = lookup(d, buf + i, word);
			if (!m)
				break;
			src = m->src;
		}
		if (d->cfg.src >= 0 && src != (unsigned int)d->cfg.src)
			break;
		s = d->srcs[src];
		if (!s || !s->synced || !s->mode_known || !s->htm)
			break;
		memo = d->memo && !s->icnt && !s->hn && !s->hq_len && !s->run_open;
		if (memo && !sbits) {	/* then every message is this source's */
			size_t n = dec_memo_run(d, s, buf + i, len - i);

			if (n) {
				i += n;
				continue;
			}
			known = NULL;
		} else {
			known = memo ? dec_memo_find(d, s, word) : NULL;
		}
		if (!known && !m && !(m = lookup(d, buf + i, word)))
			break;
		/* taken: from here on as ntrace_decoder_put() would; events
		 * give the parser's position, the message's offset */
		d->st.messages++;
		d->st.tcode[(word >> 2) & 63]++;	/* TCODE: the first byte's MDO */
		if (known) {
			dec_memo_replay(d, s, known);
			rc = 0;
		} else {
			if (m->tcode == NTRACE_TC_RESOURCE_FULL) {
				rc = 0;
				if (m->code == NTRACE_RCODE_ICNT)
					s->icnt += m->f[0];
				else
					rc = dec_hist_push(d, s, m->f[0],
							   m->code == NTRACE_RCODE_HIST ? 1 : m->f[1]);
				if (!rc)
					dec_resource_walk(d, s);
				goto next;
			}
			/* an indirect branch message whose walk is not known */
			pc = s->pc;
			if (memo)
				dec_memo_start(d, s, &rec);
			s->icnt += m->f[0];
			rc = dec_hist_push(d, s, m->f[2], 1);
			target = 0;
			if (!rc) {
				target = ntrace_addr_from_uaddr(m->f[1], s->ref_addr, d->xlen);
				s->ref_addr = target;
				rc = dec_final_indirect(d, s, m->tcode, target);
				/* the walk left the images: back at target? */
				if (rc && !s->synced)
					dec_resume(d, s, m->tcode, target);
			}
			if (memo)
				dec_memo_stop(d, s, &rec, pc, word, m->f[1], target, rc);
		}
		s->prev_word = word;	/* the record only if it is asked for */
		s->prev_off = d->parser.pos;
		s->prev_fast = true;
		s->prev_valid = !rc && s->synced;
next:
		d->parser.pos += k;
		i += k;
	}
	return i;
}

struct fmsg *dec_cuts_new(void)
{
	return dec_table_new(((size_t)1 << DEC_CUTS_BITS) * sizeof(struct fmsg));
}

void dec_cuts_free(struct fmsg *cuts)
{
	dec_table_free(cuts, ((size_t)1 << DEC_CUTS_BITS) * sizeof(struct fmsg));
}
