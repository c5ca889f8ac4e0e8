// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The direct path for the messages that make most of an HTM trace once a
 * source is synchronised: IndirectBranch and IndirectBranchHist with
 * B-TYPE 0, ResourceFull with RCODE 0, 1 or 2. They are cut from the bytes
 * (msg_cut8()) straight into the source's state and walk, without the
 * parser's message record and the generic dispatch (ntrace_decoder_put(),
 * put_src(), branch_msg()), which cost as much as the walk itself.
 *
 * Anything else stops the direct path before it changes any state, and
 * the parser and ntrace_decoder_put() take the message: another TCODE or
 * B-TYPE, a message longer than 8 bytes or with a timestamp, a source that
 * is not synchronised, not known to be HTM or filtered out, a field wider
 * than a checked width. Both paths leave the same state and report the
 * same runs and events: scripts/jobs.sh compares --jobs 1 (this path)
 * with --jobs 2, whose pieces go through ntrace_decoder_put().
 */
#include "dec_internal.h"
#include "msg_cut.h"

/* The branch message as the parser's record would be (RepeatBranch replays it). */
static void keep_prev(struct dec_src *s, uint64_t off, unsigned int size, unsigned int tcode,
		      unsigned int btype, const struct msg_cut *c, uint64_t addr)
{
	s->prev = (struct ntrace_msg){
		.offset = off,
		.size = size,
		.tcode = (uint8_t)tcode,
		.flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR |
			 (c->nf == 3 ? NTRACE_MSGF_HIST : 0),
		.addr_bits = c->bits[1],
		.src = s->id,
		.btype = (uint8_t)btype,
		.icnt = c->field[0],
		.addr = addr,
		.hist = c->nf == 3 ? c->field[2] : 0,
	};
}

/*
 * Take messages from buf while they are of the kinds above; returns the
 * bytes taken (whole messages). The parser must be idle.
 */
size_t dec_fast(struct ntrace_decoder *d, const uint8_t *buf, size_t len)
{
	const struct ntrace_codec_cfg *cfg = &d->parser.cfg;
	const unsigned int sbits = cfg->src_bits;
	uint64_t field[MSG_CUT_MAX_FIELDS];
	uint8_t bits[MSG_CUT_MAX_FIELDS];
	struct msg_cut c = { .field = field, .bits = bits };
	size_t i = 0;

	if (!msg_parser_idle(&d->parser))
		return 0;
	while (len - i >= 8 && !d->stopped) {
		unsigned int k, src, tc, code;
		struct dec_src *s;
		uint64_t h, addr = 0, target;
		int rc;

		if ((buf[i] & 3) != NTRACE_MSEO_NORMAL)
			break;	/* idle byte or garbage */
		k = msg_cut8(cfg, buf + i, &c);
		if (!k)
			break;
		tc = c.tcode;
		h = c.hdr;
		src = sbits ? (unsigned int)(h & ((1u << sbits) - 1)) : 0;
		h >>= sbits;
		if (d->cfg.src >= 0 && src != (unsigned int)d->cfg.src)
			break;
		s = d->srcs[src];
		if (!s || !s->synced || !s->mode_known || !s->htm)
			break;
		code = (unsigned int)(h & 15);	/* B-TYPE in bits 1:0, or RCODE */
		if (tc == NTRACE_TC_INDIRECT_BRANCH_HIST || tc == NTRACE_TC_INDIRECT_BRANCH) {
			if (c.nf != (tc == NTRACE_TC_INDIRECT_BRANCH ? 2u : 3u) ||
			    (code & 3) != NTRACE_BTYPE_INDIRECT || c.field[0] > d->icnt_limit)
				break;
		} else if (tc == NTRACE_TC_RESOURCE_FULL) {
			if (code == NTRACE_RCODE_ICNT || code == NTRACE_RCODE_HIST) {
				if (c.nf != 1 || (code == NTRACE_RCODE_ICNT &&
						  c.field[0] > d->icnt_limit))
					break;
			} else if (code != NTRACE_RCODE_HREPEAT || c.nf != 2 ||
				   c.field[1] > d->hrep_limit) {
				break;
			}
		} else {
			break;
		}

		/* taken: from here on as ntrace_decoder_put() would; events
		 * give the parser's position, the message's offset */
		d->st.messages++;
		d->st.tcode[tc]++;
		if (tc == NTRACE_TC_RESOURCE_FULL) {
			rc = 0;
			if (code == NTRACE_RCODE_ICNT)
				s->icnt += c.field[0];
			else
				rc = dec_hist_push(d, s, c.field[0],
						   code == NTRACE_RCODE_HIST ? 1 : c.field[1]);
			if (!rc)
				dec_resource_walk(d, s);
		} else {
			addr_value(cfg, c.field[1], c.bits[1], &addr);	/* < 64 bits: always */
			keep_prev(s, d->parser.pos, k, tc, code & 3, &c, addr);
			s->icnt += c.field[0];
			rc = tc == NTRACE_TC_INDIRECT_BRANCH_HIST ?
			     dec_hist_push(d, s, c.field[2], 1) : 0;
			if (!rc) {
				target = ntrace_addr_from_uaddr(addr, s->ref_addr, d->xlen);
				s->ref_addr = target;
				rc = dec_final_indirect(d, s, tc, target);
			}
			s->prev_valid = !rc && s->synced;
		}
		d->parser.pos += k;
		i += k;
	}
	return i;
}
