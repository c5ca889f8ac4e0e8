// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Message handling of the flow decoder: what each TCODE adds to the walk
 * (I-CNT, HIST, a target), how the instruction a message ends on is
 * resolved, synchronisation, RepeatBranch replay, Ownership, Error and
 * ProgTraceCorrelation.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dec_internal.h"

static uint64_t faddr(struct ntrace_decoder *d, uint64_t field)
{
	return ntrace_addr_from_faddr(field, d->xlen);
}

static void reset_flow(struct ntrace_decoder *d, struct dec_src *s)
{
	s->icnt = 0;
	s->rs_len = 0;
	s->prev_valid = false;
	dec_hist_clear(d, s);
}

const char *ntrace_quirk_name(unsigned int quirk)
{
	static const char *const names[NTRACE_QUIRK__COUNT] = {
		[NTRACE_QUIRK_STRAY_EOM] = "stray_eom",
		[NTRACE_QUIRK_EMPTY_FIELD] = "empty_field",
		[NTRACE_QUIRK_SYNC4_HTM] = "sync4_htm",
		[NTRACE_QUIRK_UNEXPECTED] = "unexpected_message",
	};

	return quirk < NTRACE_QUIRK__COUNT ? names[quirk] : "?";
}

/*
 * A quirk (enum ntrace_quirk) in the current message, decoded through:
 * counted, and reported the first time for its source s (NULL: the stream).
 */
static void quirk(struct ntrace_decoder *d, struct dec_src *s, unsigned int q, const char *what)
{
	uint8_t *told = s ? &s->quirks_told : &d->quirks_told;

	d->st.quirks[q]++;
	if (*told & (1u << q))
		return;
	*told |= (uint8_t)(1u << q);
	snprintf(d->text, sizeof(d->text), "%s, decoded through; "
		 "further ones are counted (quirk.%s), --strict reports each", what,
		 ntrace_quirk_name(q));
	dec_event(d, s, NTRACE_DEV_QUIRK, q, d->text);
}

void dec_src_unsync(struct ntrace_decoder *d, struct dec_src *s)
{
	s->synced = false;
	s->ref_ok = false;
	s->run_open = false;
	reset_flow(d, s);
}

static unsigned int trap_kind(unsigned int btype)
{
	return btype == NTRACE_BTYPE_EXCEPTION ? NTRACE_DK_EXCEPTION :
	       btype == NTRACE_BTYPE_INTERRUPT ? NTRACE_DK_INTERRUPT : NTRACE_DK_TRAP;
}

static int add_icnt(struct ntrace_decoder *d, struct dec_src *s, const struct ntrace_msg *m)
{
	if (!(m->flags & NTRACE_MSGF_ICNT))
		return 0;
	if (m->icnt > d->icnt_limit)
		return dec_error(d, s, "I-CNT 0x%" PRIx64 " is wider than the %u-bit counter "
				 "(--icnt-bits)", m->icnt, d->cfg.enc.icnt_bits);
	s->icnt += m->icnt;
	return 0;
}

static int add_hist(struct ntrace_decoder *d, struct dec_src *s, const struct ntrace_msg *m,
		    uint64_t rep)
{
	if (!(m->flags & NTRACE_MSGF_HIST))
		return 0;
	return dec_hist_push(d, s, m->hist, rep);
}

/* After a final message: nothing may be left of its HIST. */
static int check_left(struct ntrace_decoder *d, struct dec_src *s)
{
	if (s->hq_len || s->hn)
		return dec_error(d, s, "%" PRIu64 " HIST bits left after the I-CNT ended at 0x%"
				 PRIx64 " (fewer branches in the code than in the trace%s)",
				 dec_hist_pending(s), s->pc,
				 d->alljumps ? "" : "; does the encoder trace direct jumps"
				 " as branches? --all-jumps");
	return 0;
}

/* Stack effects of an indirect jump whose target a message gave. */
static void explicit_indirect(struct ntrace_decoder *d, struct dec_src *s, const struct dec_blk *b)
{
	uint64_t after = b->after;

	if (!d->iret)
		return;
	if (b->itype == NTRACE_ITYPE_RETURN || b->itype == NTRACE_ITYPE_COSWAP)
		dec_rs_drop(s);
	if (b->itype == NTRACE_ITYPE_COSWAP || b->itype == NTRACE_ITYPE_IND_CALL)
		dec_rs_push(s, after);
}

static int mismatch(struct ntrace_decoder *d, struct dec_src *s, uint64_t got, uint64_t want)
{
	ntrace_err_set(&d->err, NTRACE_EBADINPUT,
		       "sync message says pc 0x%" PRIx64 " but the code leads to 0x%" PRIx64
		       "; continuing at the sync address", want, got);
	d->st.errors++;
	return dec_event(d, s, NTRACE_DEV_ERROR, 0, d->err.msg);
}

/*
 * A message whose I-CNT (and HIST) are final. tcode/btype say what the
 * last instruction did; target is the address the message gives (0 for
 * DirectBranch and ProgTraceCorrelation). Returns 0, NTRACE_EBADINPUT
 * (reported) or the sink's stop value.
 */
static int final_msg(struct ntrace_decoder *d, struct dec_src *s, unsigned int tcode,
		     unsigned int btype, uint64_t target)
{
	const struct dec_blk *b = NULL;
	bool sync = ntrace_tcode_is_sync(tcode);
	uint64_t next = 0;
	unsigned int kind, flags;
	int w = dec_walk(d, s, true, &b);

	if (w == W_ERROR)
		return NTRACE_EBADINPUT;
	switch (tcode) {
	case NTRACE_TC_DIRECT_BRANCH:
	case NTRACE_TC_DIRECT_BRANCH_SYNC:
		if (w != W_AT_END)
			return dec_error(d, s, "DirectBranch: I-CNT ends at 0x%" PRIx64
					 ", which is not after a branch", s->pc);
		if (b->kind == NTRACE_IK_BRANCH) {
			kind = NTRACE_DK_TAKEN;
		} else if (b->kind == NTRACE_IK_JUMP || b->kind == NTRACE_IK_TABLE_JUMP) {
			kind = b->itype == NTRACE_ITYPE_DIR_CALL ? NTRACE_DK_CALL : NTRACE_DK_JUMP;
			if (kind == NTRACE_DK_CALL && d->iret)
				dec_rs_push(s, b->after);
		} else {
			return dec_error(d, s, "DirectBranch: the instruction at 0x%" PRIx64
					 " is %s, not a branch", b->last,
					 ntrace_ikind_name(b->kind));
		}
		if (!b->tvalid)
			return dec_error(d, s, "DirectBranch at 0x%" PRIx64 ": target unknown: %s",
					 b->last, ntrace_images_errmsg(d->img));
		d->st.taken++;
		next = b->target;
		dec_end_block(d, s, b, next, kind, 0);
		if (sync && next != target && mismatch(d, s, next, target))
			return d->stopped;
		break;
	case NTRACE_TC_PROG_TRACE_CORRELATION:
		if (w == W_AT_END) {
			if (dec_end_insn(d, s, b, &next, &kind, &flags))
				return NTRACE_EBADINPUT;
			/* the last instruction's transfer still happened: keep where to */
			if (kind == NTRACE_DK_FALL || kind == NTRACE_DK_NOT_TAKEN)
				next = 0;
			dec_end_block(d, s, b, next, NTRACE_DK_STOP, 0);
			s->pc = 0;
		} else if (s->run_open) {
			dec_run_close(d, s, s->run_last, 0, NTRACE_DK_STOP, 0);
		}
		break;
	default:	/* indirect branch messages and ProgTraceSync */
		if (w == W_AT_END && b->kind == NTRACE_IK_TRAP) {
			/* the I-CNT counts the trap (NexRv's ECALL), the message
			 * gives the handler: B-TYPE 0 says only "indirect" */
			if (dec_trap_counted(d, s, b))
				return d->stopped;
			d->st.traps++;
			dec_end_block(d, s, b, target, btype == NTRACE_BTYPE_INDIRECT ?
				      NTRACE_DK_EXCEPTION : trap_kind(btype), 0);
		} else if (btype != NTRACE_BTYPE_INDIRECT) {
			if (w == W_AT_END) {
				if (dec_end_insn(d, s, b, &next, &kind, &flags))
					return NTRACE_EBADINPUT;
				dec_end_block(d, s, b, next, kind, flags);
			} else if (s->run_open) {
				dec_run_close(d, s, s->run_last, s->pc, NTRACE_DK_FALL, 0);
			}
			dec_run_close(d, s, s->pc, target, trap_kind(btype), 0);
			d->st.traps++;
		} else if (w == W_AT_END && (b->kind == NTRACE_IK_INDIRECT ||
					     b->kind == NTRACE_IK_TRAP_RETURN)) {
			explicit_indirect(d, s, b);
			kind = b->kind == NTRACE_IK_TRAP_RETURN ? NTRACE_DK_TRAP_RETURN
				: b->itype == NTRACE_ITYPE_IND_CALL ? NTRACE_DK_IND_CALL
				: b->itype == NTRACE_ITYPE_RETURN ? NTRACE_DK_RETURN
				: NTRACE_DK_IND_JUMP;
			d->st.indirect++;
			dec_end_block(d, s, b, target, kind, 0);
		} else if (!sync) {
			return dec_error(d, s, "%s: I-CNT ends at 0x%" PRIx64 " (%s), not after an "
					 "indirect jump", ntrace_tcode_name(tcode),
					 w == W_AT_END ? b->last : s->pc,
					 w == W_AT_END ? ntrace_ikind_name(b->kind) : "mid-block");
		} else {
			/* sync on linear code (periodic, SYNC=4, ...) */
			if (w == W_AT_END) {
				if (dec_end_insn(d, s, b, &next, &kind, &flags))
					return NTRACE_EBADINPUT;
				dec_end_block(d, s, b, next ? next : target, kind, flags);
			} else {
				next = s->pc;
				if (s->run_open)
					dec_run_close(d, s, s->run_last, target, NTRACE_DK_FALL, 0);
			}
			if (next && next != target && mismatch(d, s, next, target))
				return d->stopped;
		}
		s->pc = target;
		break;
	}
	return check_left(d, s);
}

/*
 * final_msg() for an indirect branch message with B-TYPE 0. The usual end,
 * the I-CNT spent up to the indirect jump that ends a cached block with no
 * HIST left, is done here without the general walk's dispatch; any other
 * goes to final_msg(), which takes the walk on from where it stopped.
 */
int dec_final_indirect(struct ntrace_decoder *d, struct dec_src *s, unsigned int tcode,
		       uint64_t target)
{
	const struct dec_blk *b;
	unsigned int kind;

	if (s->icnt && !d->stopped)
		dec_walk_fast(d, s);
	b = &d->bc[dec_bc_index(d, s->pc)];
	if (b->pc != s->pc || b->epoch != d->epoch || s->icnt != b->nhalf ||
	    b->kind != NTRACE_IK_INDIRECT || s->hn || s->hq_len)
		return final_msg(d, s, tcode, NTRACE_BTYPE_INDIRECT, target);
	s->icnt = 0;
	explicit_indirect(d, s, b);
	kind = b->itype == NTRACE_ITYPE_IND_CALL ? NTRACE_DK_IND_CALL
	       : b->itype == NTRACE_ITYPE_RETURN ? NTRACE_DK_RETURN : NTRACE_DK_IND_JUMP;
	d->st.indirect++;
	dec_end_block(d, s, b, target, kind, 0);
	return 0;
}

static void resync(struct ntrace_decoder *d, struct dec_src *s, const struct ntrace_msg *m)
{
	uint64_t pc = faddr(d, m->addr);

	reset_flow(d, s);
	s->run_open = false;
	s->pc = pc;
	s->ref_addr = pc;
	/* every sync is an event: a consumer can check the flow against it */
	snprintf(d->text, sizeof(d->text), "%s at 0x%" PRIx64 " (%s, SYNC=%u)",
		 s->synced ? "sync" : "decoding starts", pc, ntrace_tcode_name(m->tcode), m->sync);
	if (!s->synced)
		d->st.syncs++;
	s->synced = true;
	d->aligned = true;
	dec_event(d, s, NTRACE_DEV_SYNC, m->sync, d->text);
}

static int branch_msg(struct ntrace_decoder *d, struct dec_src *s, const struct ntrace_msg *m)
{
	uint64_t target = 0;

	if (add_icnt(d, s, m) || add_hist(d, s, m, 1))
		return NTRACE_EBADINPUT;
	if (m->tcode != NTRACE_TC_DIRECT_BRANCH) {
		if (!(m->flags & NTRACE_MSGF_ADDR))
			return dec_error(d, s, "%s without an address", ntrace_tcode_name(m->tcode));
		target = ntrace_addr_from_uaddr(m->addr, s->ref_addr, d->xlen);
		s->ref_addr = target;
	}
	return final_msg(d, s, m->tcode, m->btype, target);
}

static int sync_msg(struct ntrace_decoder *d, struct dec_src *s, const struct ntrace_msg *m)
{
	uint64_t target = faddr(d, m->addr);
	unsigned int btype = m->tcode == NTRACE_TC_INDIRECT_BRANCH_SYNC ||
			     m->tcode == NTRACE_TC_INDIRECT_BRANCH_HIST_SYNC ? m->btype : 0;

	if (m->sync == NTRACE_SYNC_ICNT && s->htm && s->mode_known) {
		if (d->cfg.enc.codec.strict) {
			if (s->synced)
				dec_error(d, s, "SYNC=4 in HTM at offset %" PRIu64 " (N-Trace 1.0: "
					  "BTM only)", m->offset);
			goto lost;
		}
		quirk(d, s, NTRACE_QUIRK_SYNC4_HTM, "SYNC=4 (I-CNT full) in HTM, which "
		      "N-Trace 1.0 allows in BTM only (the rc7 draft in both)");
	}
	if (s->synced) {
		if (add_icnt(d, s, m) || add_hist(d, s, m, 1))
			goto lost;
		if (final_msg(d, s, m->tcode, btype, target))
			goto lost;
	}
	resync(d, s, m);
	return 0;
lost:	/* the error is reported; the sync itself is good: restart here */
	resync(d, s, m);
	return 0;
}

static int resource_full(struct ntrace_decoder *d, struct dec_src *s, const struct ntrace_msg *m)
{
	uint64_t rep = 1;

	switch (m->code) {
	case NTRACE_RCODE_ICNT:
		if (add_icnt(d, s, m))
			return NTRACE_EBADINPUT;
		break;
	case NTRACE_RCODE_HREPEAT:
		rep = m->count;
		if (rep > d->hrep_limit)
			return dec_error(d, s, "HREPEAT %" PRIu64 " is wider than %u bits "
					 "(--hrepeat-bits)", rep, d->cfg.enc.hrepeat_bits);
		/* fall through */
	case NTRACE_RCODE_HIST:
		if (add_hist(d, s, m, rep))
			return NTRACE_EBADINPUT;
		break;
	case NTRACE_RCODE_V0_NOT_TAKEN:
	case NTRACE_RCODE_V0_TAKEN:
		/* SiFive v0: RDATA branches with one outcome (parsed as count
		 * only in that variant; else the layout is unknown) */
		if (!(m->flags & NTRACE_MSGF_COUNT))
			goto unknown;
		if (!m->count)
			break;
		if (dec_hist_push(d, s, m->code == NTRACE_RCODE_V0_TAKEN ? 3 : 2, m->count))
			return NTRACE_EBADINPUT;
		break;
	default:
unknown:
		snprintf(d->text, sizeof(d->text), "ResourceFull with unknown RCODE %u ignored%s",
			 m->code, m->code == NTRACE_RCODE_V0_NOT_TAKEN ||
			 m->code == NTRACE_RCODE_V0_TAKEN ? " (RCODE 8/9 are the branch counts of "
			 "SiFive's pre-ratified encoder: --variant=sifive-v0?)" : "");
		return dec_event(d, s, NTRACE_DEV_WARN, m->code, d->text);
	}
	return dec_resource_walk(d, s);
}

int dec_resource_walk(struct ntrace_decoder *d, struct dec_src *s)
{
	const struct dec_blk *b;

	return dec_walk(d, s, false, &b) == W_ERROR ? NTRACE_EBADINPUT : 0;
}

static int repeat_branch(struct ntrace_decoder *d, struct dec_src *s, const struct ntrace_msg *m)
{
	struct ntrace_msg again, tmp;
	uint64_t i;
	int rc;

	if (!s->prev_valid)
		return dec_error(d, s, "RepeatBranch without a branch message to repeat");
	if (m->count > d->bcnt_limit)
		return dec_error(d, s, "B-CNT %" PRIu64 " is wider than %u bits (--bcnt-bits)",
				 m->count, d->cfg.enc.bcnt_bits);
	again = *dec_prev(d, s, &tmp);
	again.flags &= (uint8_t)~NTRACE_MSGF_TSTAMP;
	for (i = 0; i < m->count && !d->stopped; i++) {
		rc = branch_msg(d, s, &again);
		if (rc)
			return rc;
	}
	return d->stopped;
}

static void ownership(struct ntrace_decoder *d, struct dec_src *s, const struct ntrace_msg *m)
{
	unsigned int fmt = ntrace_process_format(m->data);

	s->priv = (uint8_t)(ntrace_process_v(m->data) << 2 | ntrace_process_prv(m->data));
	if (fmt == NTRACE_PROCESS_FMT_SCONTEXT || fmt == NTRACE_PROCESS_FMT_HCONTEXT)
		s->context = ntrace_process_context(m->data);
	snprintf(d->text, sizeof(d->text), "priv %u context 0x%" PRIx64, s->priv, s->context);
	dec_event(d, s, NTRACE_DEV_OWNER, fmt, d->text);
}

static struct dec_src *get_src(struct ntrace_decoder *d, unsigned int id)
{
	struct dec_src *s = d->srcs[id];

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->id = (uint16_t)id;
	s->used = true;
	s->rs_cap = d->cfg.enc.codec.variant == NTRACE_VARIANT_SIFIVE_V0 ? DEC_RSTACK_MAX
									  : DEC_RSTACK;
	d->srcs[id] = s;
	d->src_map[id / 64] |= 1ull << (id % 64);
	return s;
}

/* A codec error record: every source loses its place. */
static void parse_error(struct ntrace_decoder *d, const struct ntrace_msg *m)
{
	unsigned int i;
	bool any = false;

	d->st.parse_errors++;
	dec_for_each_src(d, i) {
		struct dec_src *s = d->srcs[i];

		/* a lost address breaks the U-ADDR chain a resumption follows */
		s->ref_ok = false;
		if (!s->synced)
			continue;
		any = true;
		dec_error(d, s, "bad bytes at offset %" PRIu64 " (%u bytes): %s", m->offset,
			  m->size, ntrace_msg_err_name(m->err));
	}
	if (any)
		return;
	/*
	 * No source decoding (between a stop and the next sync): after a sync,
	 * or when the caller knows the input starts at a message boundary,
	 * the bytes may have been a sync, and trace is lost. Else they may be
	 * the tail of a message cut off where the input starts.
	 */
	if (d->aligned) {
		dec_error(d, NULL, "bad bytes at offset %" PRIu64 " (%u bytes): %s", m->offset,
			  m->size, ntrace_msg_err_name(m->err));
		return;
	}
	snprintf(d->text, sizeof(d->text), "bad bytes at offset %" PRIu64 " (%u bytes): %s",
		 m->offset, m->size, ntrace_msg_err_name(m->err));
	dec_event(d, NULL, NTRACE_DEV_WARN, m->err, d->text);
}

/*
 * The mode a message belongs to, NTRACE_MODE_HTM or NTRACE_MODE_BTM, or 0
 * when both produce it: HIST comes only in HTM, DirectBranch only in BTM,
 * and ProgTraceCorrelation's CDF is 1 in HTM and 0 in BTM.
 */
static unsigned int msg_mode(const struct ntrace_msg *m)
{
	switch (m->tcode) {
	case NTRACE_TC_INDIRECT_BRANCH_HIST:
	case NTRACE_TC_INDIRECT_BRANCH_HIST_SYNC:
		return NTRACE_MODE_HTM;
	case NTRACE_TC_RESOURCE_FULL:
		/* HIST, HREPEAT, or the SiFive v0 branch counts (COUNT only in v0) */
		return m->code == NTRACE_RCODE_HIST || m->code == NTRACE_RCODE_HREPEAT ||
		       (m->code != NTRACE_RCODE_ICNT && (m->flags & NTRACE_MSGF_COUNT)) ?
		       NTRACE_MODE_HTM : 0;
	case NTRACE_TC_DIRECT_BRANCH:
	case NTRACE_TC_DIRECT_BRANCH_SYNC:
		return NTRACE_MODE_BTM;
	case NTRACE_TC_PROG_TRACE_CORRELATION:
		return m->cdf ? NTRACE_MODE_HTM : NTRACE_MODE_BTM;
	default:
		return 0;
	}
}

/* A message of the other mode after the mode was decided: say it once. */
static void mode_check(struct ntrace_decoder *d, struct dec_src *s, const struct ntrace_msg *m)
{
	unsigned int mode = msg_mode(m);

	if (!mode || (mode == NTRACE_MODE_HTM) == s->htm)
		return;
	s->hinted = true;
	snprintf(d->text, sizeof(d->text), "%s message in a %s trace: the source mixes BTM and HTM "
		 "(trTeInstMode) or the stream is corrupt", ntrace_tcode_name(m->tcode),
		 s->htm ? "HTM" : "BTM");
	dec_event(d, s, NTRACE_DEV_WARN, m->tcode, d->text);
}

bool dec_resume(struct ntrace_decoder *d, struct dec_src *s, unsigned int tcode,
		uint64_t target)
{
	if (s->synced || !s->ref_ok || !dec_block(d, target))
		return false;
	reset_flow(d, s);
	s->run_open = false;
	s->pc = target;
	s->synced = true;
	s->ref_ok = false;
	d->st.syncs++;
	snprintf(d->text, sizeof(d->text), "decoding resumes at 0x%" PRIx64 " (%s from code "
		 "without an image)", target, ntrace_tcode_name(tcode));
	dec_event(d, s, NTRACE_DEV_SYNC, NTRACE_DEV_SYNC_RESUME, d->text);
	return true;
}

/*
 * A message of source s, which waits for a sync: while it follows the
 * encoder's addresses (s->ref_ok), an indirect branch tells the next one,
 * and decoding resumes there if an image holds it.
 */
static bool resume_at_target(struct ntrace_decoder *d, struct dec_src *s,
			     const struct ntrace_msg *m)
{
	if ((m->tcode != NTRACE_TC_INDIRECT_BRANCH &&
	     m->tcode != NTRACE_TC_INDIRECT_BRANCH_HIST) || !(m->flags & NTRACE_MSGF_ADDR))
		return false;
	s->ref_addr = ntrace_addr_from_uaddr(m->addr, s->ref_addr, d->xlen);
	return dec_resume(d, s, m->tcode, s->ref_addr);
}

/* One message of source s, in stream order. */
static void put_src(struct ntrace_decoder *d, struct dec_src *s, const struct ntrace_msg *m)
{
	ntrace_tstamp_update_variant(&s->ts, m, d->cfg.enc.codec.variant);
	if (__builtin_expect(s->mode_known && !s->hinted, 0))
		mode_check(d, s, m);

	if (ntrace_tcode_is_sync(m->tcode)) {
		sync_msg(d, s, m);
		return;
	}
	switch (m->tcode) {
	case NTRACE_TC_OWNERSHIP:
		ownership(d, s, m);
		return;
	case NTRACE_TC_ERROR:
		d->st.lost++;
		if (s->synced && s->run_open)
			dec_run_close(d, s, s->run_last, 0, NTRACE_DK_STOP, 0);
		s->run_open = false;
		s->synced = false;
		s->ref_ok = false;
		reset_flow(d, s);
		snprintf(d->text, sizeof(d->text),
			 "the encoder lost messages (Error ETYPE=%u ECODE=0x%" PRIx64
			 "); waiting for a sync", m->code, m->data);
		dec_event(d, s, NTRACE_DEV_LOST, (uint32_t)m->data, d->text);
		return;
	default:
		break;
	}
	if (!s->synced) {
		if (!s->ref_ok || !resume_at_target(d, s, m))
			d->st.skipped++;
		return;
	}
	switch (m->tcode) {
	case NTRACE_TC_DIRECT_BRANCH:
	case NTRACE_TC_INDIRECT_BRANCH:
	case NTRACE_TC_INDIRECT_BRANCH_HIST:
		s->prev = *m;
		s->prev_fast = false;
		s->prev_valid = !branch_msg(d, s, m) && s->synced;
		/* its walk left the images: its target may be back in one */
		if (m->tcode != NTRACE_TC_DIRECT_BRANCH && !s->synced)
			dec_resume(d, s, m->tcode, s->ref_addr);
		break;
	case NTRACE_TC_RESOURCE_FULL:
		resource_full(d, s, m);
		break;
	case NTRACE_TC_REPEAT_BRANCH:
		repeat_branch(d, s, m);
		break;
	case NTRACE_TC_PROG_TRACE_CORRELATION:
		if (add_icnt(d, s, m))
			break;
		if (m->cdf == 1 && add_hist(d, s, m, 1))
			break;
		if (final_msg(d, s, m->tcode, 0, 0))
			break;
		s->synced = false;
		s->ref_ok = false;
		s->run_open = false;
		reset_flow(d, s);
		snprintf(d->text, sizeof(d->text), "trace stopped at 0x%" PRIx64 " (EVCODE=%u)",
			 s->pc, m->code);
		dec_event(d, s, NTRACE_DEV_STOP, m->code, d->text);
		break;
	default: {
		char what[64];

		snprintf(what, sizeof(what), "%s message (TCODE %u) ignored",
			 ntrace_tcode_name(m->tcode), m->tcode);
		if (d->cfg.enc.codec.strict)
			dec_event(d, s, NTRACE_DEV_WARN, m->tcode, what);
		else
			quirk(d, s, NTRACE_QUIRK_UNEXPECTED, what);
		break;
	}
	}
}

/*
 * The mode of s is decided (htm): decode the messages held until then.
 * The decoder's current message is restored after.
 */
static void release(struct ntrace_decoder *d, struct dec_src *s, bool htm)
{
	const struct ntrace_msg *cur = d->cur;
	uint32_t i;

	s->htm = htm;
	s->mode_known = true;
	for (i = 0; i < s->nheld && !d->stopped; i++) {
		d->cur = &s->held[i];
		put_src(d, s, &s->held[i]);
	}
	free(s->held);
	s->held = NULL;
	s->nheld = 0;
	d->cur = cur;
}

/*
 * Hold m while no message of s has told BTM from HTM, up to a lookahead;
 * then the setting decides. Returns true if m was held.
 */
static bool hold(struct ntrace_decoder *d, struct dec_src *s, const struct ntrace_msg *m)
{
	unsigned int mode = msg_mode(m);

	if (mode) {
		release(d, s, mode == NTRACE_MODE_HTM);
		return false;
	}
	if (s->nheld == DEC_MODE_LOOKAHEAD ||
	    (!s->held && !(s->held = malloc(DEC_MODE_LOOKAHEAD * sizeof(*s->held))))) {
		release(d, s, d->htm_default);
		return false;
	}
	s->held[s->nheld++] = *m;
	return true;
}

/* Decode every held message (end of input, a reset, a codec error). */
void dec_release_all(struct ntrace_decoder *d)
{
	uint32_t k;

	/* a source that holds nothing has not synchronised: its own messages
	 * will tell its mode after its first sync */
	dec_for_each_src(d, k)
		if (!d->stopped && !d->srcs[k]->mode_known && d->srcs[k]->nheld)
			release(d, d->srcs[k], d->htm_default);
}

int ntrace_decoder_put(struct ntrace_decoder *d, const struct ntrace_msg *m)
{
	struct dec_src *s;

	if (d->stopped)
		return d->stopped;
	d->cur = m;
	if (m->err == NTRACE_MSG_ERR_STRAY_EOM && !d->cfg.enc.codec.strict) {
		quirk(d, NULL, NTRACE_QUIRK_STRAY_EOM, "end-of-message byte between messages");
		goto out;
	}
	if (m->err) {
		dec_release_all(d);	/* they came before the bad bytes */
		parse_error(d, m);
		goto out;
	}
	d->st.messages++;
	d->st.tcode[m->tcode & 63]++;
	if (d->cfg.src >= 0 && m->src != d->cfg.src)
		goto out;
	s = get_src(d, m->src);
	if (!s) {
		dec_event(d, NULL, NTRACE_DEV_ERROR, 0, "out of memory for a new source");
		goto out;
	}
	if (__builtin_expect(m->flags & NTRACE_MSGF_EMPTY_FIELD, 0))
		quirk(d, s, NTRACE_QUIRK_EMPTY_FIELD, "a variable field of no bits (taken as 0)");
	/*
	 * Only a synchronised source's messages tell its mode: before the
	 * first sync they are skipped, and may be bytes of a cut message.
	 */
	if (__builtin_expect(!s->mode_known, 0) &&
	    (s->synced || s->nheld || ntrace_tcode_is_sync(m->tcode)) && hold(d, s, m))
		goto out;
	put_src(d, s, m);
out:
	d->cur = NULL;
	return d->stopped;
}
