// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * N-Trace encoder model: the rules of "Rules of Generating Messages" and the
 * optimisation chapters applied to one retired-instruction record at a time.
 *
 * Messages that carry an address (or that may have to be upgraded to a sync
 * message carrying F-ADDR) wait for the next record, whose address is the
 * target, as on a real ingress port. At most one message waits at a time.
 * Repeat state (RepeatBranch B-CNT, ResourceFull HREPEAT) is held back and
 * flushed before any other message, so the stream stays in order.
 */
#include <string.h>

#include <ntrace/encoder.h>
#include <ntrace/isa.h>

#include "enc_internal.h"

#define HW(size) ((unsigned int)(size) / 2)

/*
 * A message with every field 0: a copy of it clears a message with
 * vector stores, where GCC makes memset() of one a rep stos, slow to
 * start on x86, once per message.
 */
static const struct ntrace_msg msg_zero;

/*
 * Does message m carry a TSTAMP? With trTsEnable every one does in 1.0;
 * the SiFive v0 timestamp control never times ResourceFull and, by
 * tsBranch, may time only sync messages, or those and the indirect
 * branch (HTM: IndirectBranchHist, exceptions included) ones.
 */
static bool put_tstamp(const struct ntrace_enc_cfg *c, unsigned int tcode)
{
	if (!c->codec.tstamp)
		return false;
	if (c->codec.variant != NTRACE_VARIANT_SIFIVE_V0 || ntrace_tcode_is_sync(tcode))
		return true;
	if (tcode == NTRACE_TC_RESOURCE_FULL)
		return false;
	switch (c->v0_ts_branch) {
	case NTRACE_V0_TSB_NONE:
		return false;
	case NTRACE_V0_TSB_INDIRECT:
		return ntrace_tcode_has_uaddr(tcode);
	default:
		return true;
	}
}

static int put(struct ntrace_encoder *e, struct ntrace_msg *m, uint64_t ts)
{
	const struct ntrace_enc_cfg *c = &e->cfg;
	int rc;

	if (e->stopped)
		return e->stopped;
	m->src = c->codec.src_bits ? c->src_id : 0;
	if (put_tstamp(c, m->tcode)) {
		m->flags |= NTRACE_MSGF_TSTAMP;
		if (ntrace_tcode_is_sync(m->tcode) || !e->ts_valid)
			m->tstamp = ts;
		else
			m->tstamp = ntrace_tstamp_field(ts, e->last_ts, c->codec.variant);
		e->last_ts = ts;
		e->ts_valid = true;
	}
	e->messages++;
	if (c->sync_mode == NTRACE_SYNCMODE_MSGS)
		e->sync_count++;
	rc = e->emit(e->ctx, m);
	if (rc)
		e->stopped = rc;
	return rc;
}

static int flush_rb(struct ntrace_encoder *e)
{
	struct ntrace_msg m;

	if (!e->rb_count)
		return 0;
	m = msg_zero;
	m.tcode = NTRACE_TC_REPEAT_BRANCH;
	m.count = e->rb_count;
	m.flags = NTRACE_MSGF_COUNT;
	e->rb_count = 0;
	return put(e, &m, e->rb_ts);
}

/* The held HIST word: RCODE=1 if it came once, else RCODE=2 with HREPEAT. */
static int flush_rh(struct ntrace_encoder *e)
{
	struct ntrace_msg m;
	uint64_t ts = e->rh_ts;

	if (!e->rh_count)
		return 0;
	m = msg_zero;
	m.tcode = NTRACE_TC_RESOURCE_FULL;
	m.hist = e->rh_hist;
	m.flags = NTRACE_MSGF_HIST;
	if (e->rh_count == 1) {
		m.code = NTRACE_RCODE_HIST;
	} else {
		m.code = NTRACE_RCODE_HREPEAT;
		m.count = e->rh_count;
		m.flags |= NTRACE_MSGF_COUNT;
	}
	e->rh_count = 0;
	/* an I-CNT ResourceFull may have been sent while it was held */
	if (e->ts_valid && ts < e->last_ts)
		ts = e->last_ts;
	return put(e, &m, ts);
}

/* SiFive v0: the run of rc_count branches of outcome rc_bit, as RCODE 8 or 9. */
static int flush_rc(struct ntrace_encoder *e)
{
	struct ntrace_msg m;

	if (!e->rc_count)
		return 0;
	m = msg_zero;
	m.tcode = NTRACE_TC_RESOURCE_FULL;
	m.code = e->rc_bit ? NTRACE_RCODE_V0_TAKEN : NTRACE_RCODE_V0_NOT_TAKEN;
	m.count = e->rc_count;
	m.flags = NTRACE_MSGF_COUNT;
	e->rc_count = 0;
	e->rc_open = false;
	return put(e, &m, e->rc_ts);
}

static inline int flush_repeats(struct ntrace_encoder *e)
{
	int rc;

	if (!e->rb_count && !e->rh_count && !e->rc_count)	/* usually nothing is held */
		return 0;
	rc = flush_rb(e);
	if (!rc)
		rc = flush_rh(e);
	return rc ? rc : flush_rc(e);
}

/* Any message that is not a repeat candidate. */
static int put_plain(struct ntrace_encoder *e, struct ntrace_msg *m, uint64_t ts)
{
	int rc = flush_repeats(e);

	e->rb_valid = false;
	return rc ? rc : put(e, m, ts);
}

/*
 * ResourceFull RCODE=0 (I-CNT full). A held HIST word stays held: decoders
 * add up I-CNT and concatenate HIST bits across ResourceFull messages
 * ("I-CNT Details", "Repeated History Optimization"), so the history
 * repeat goes on counting through it; a RepeatBranch count does not.
 */
static int put_icnt_full(struct ntrace_encoder *e, struct ntrace_msg *m, uint64_t ts)
{
	int rc = flush_rb(e);

	e->rb_valid = false;
	return rc ? rc : put(e, m, ts);
}

static bool same_branch(const struct ntrace_msg *a, const struct ntrace_msg *b)
{
	return a->tcode == b->tcode && a->btype == b->btype && a->icnt == b->icnt &&
	       a->addr == b->addr && a->hist == b->hist;
}

/* A non-sync branch message: counted instead when it repeats the last one. */
static int put_branch(struct ntrace_encoder *e, struct ntrace_msg *m, uint64_t ts)
{
	int rc;

	if (!e->cfg.repeat_branch)
		return put_plain(e, m, ts);
	if (e->rb_valid && !e->rh_count && !e->rc_count && same_branch(m, &e->rb_msg)) {
		e->rb_count++;
		e->rb_ts = ts;
		if (e->rb_count == (1ull << e->cfg.bcnt_bits) - 1)
			return flush_repeats(e);
		return 0;
	}
	rc = flush_repeats(e);
	if (rc)
		return rc;
	e->rb_msg = *m;
	e->rb_valid = true;
	return put(e, m, ts);
}

static uint64_t process_field(unsigned int fmt, unsigned int priv, uint64_t context)
{
	return ntrace_process_make(fmt, priv >> 2, priv & 3, fmt >= 2 ? context : 0);
}

static int put_ownership(struct ntrace_encoder *e, const struct ntrace_insn *r, bool full)
{
	struct ntrace_msg m;
	unsigned int fmt = NTRACE_PROCESS_FMT_PRIV;

	if (full || !e->own_valid || r->context != e->own_context)
		fmt = NTRACE_PROCESS_FMT_SCONTEXT;
	m = msg_zero;
	m.tcode = NTRACE_TC_OWNERSHIP;
	m.data = process_field(fmt, r->priv, r->context);
	e->own_valid = true;
	e->own_priv = r->priv;
	e->own_context = r->context;
	return put_plain(e, &m, r->tstamp);
}

/* A sync message resets the encoder state ("Synchronizing Messages"). */
static int put_sync(struct ntrace_encoder *e, struct ntrace_msg *m, uint64_t ts,
		    const struct ntrace_insn *owner)
{
	int rc = put_plain(e, m, ts);

	if (rc)
		return rc;
	e->rdepth = 0;
	e->sync_count = 0;
	e->sync_due = false;
	e->rb_valid = false;
	if (e->cfg.context && owner)
		return put_ownership(e, owner, true);
	return 0;
}

static void take_counts(struct ntrace_encoder *e, struct ntrace_msg *m, bool with_hist)
{
	m->icnt = e->icnt;
	m->flags |= NTRACE_MSGF_ICNT;
	e->icnt = 0;
	e->prev_size_in_block = 0;
	if (with_hist) {
		m->hist = e->hist;
		m->flags |= NTRACE_MSGF_HIST;
		e->hist = 1;
	}
}

/* Emit the message that waited for its target; next is the next record. */
static int emit_pending(struct ntrace_encoder *e, const struct ntrace_insn *next)
{
	const struct ntrace_enc_cfg *c = &e->cfg;
	unsigned int kind = e->pend;
	bool htm = c->mode == NTRACE_MODE_HTM, sync = e->pend_is_sync;
	uint64_t target = next->addr;
	struct ntrace_msg m;

	e->pend = NTRACE_ENC_NONE;
	e->pend_is_sync = false;
	if (kind == NTRACE_ENC_RETURN) {
		uint64_t a = target, b = e->pend_expect;

		if (c->implicit_return == NTRACE_IRET_PARTIAL) {
			uint64_t mask = (1ull << c->return_addr_bits) - 1;

			a &= mask;
			b &= mask;
		}
		if (a == b) {
			if (!sync)
				return 0;	/* inferable return */
			kind = NTRACE_ENC_LINEAR;
		} else {
			kind = NTRACE_ENC_INDIRECT;
		}
	}

	m = msg_zero;
	m.btype = e->pend_btype;
	if (kind == NTRACE_ENC_DIRECT) {
		m.tcode = sync ? NTRACE_TC_DIRECT_BRANCH_SYNC : NTRACE_TC_DIRECT_BRANCH;
		m.btype = 0;
		take_counts(e, &m, false);
	} else if (kind == NTRACE_ENC_LINEAR) {
		m.btype = 0;
		m.tcode = htm ? NTRACE_TC_INDIRECT_BRANCH_HIST_SYNC : NTRACE_TC_PROG_TRACE_SYNC;
		take_counts(e, &m, htm);
	} else if (htm && !(c->htm_ib_no_hist && e->hist == 1)) {
		m.tcode = sync ? NTRACE_TC_INDIRECT_BRANCH_HIST_SYNC
			       : NTRACE_TC_INDIRECT_BRANCH_HIST;
		take_counts(e, &m, true);
	} else {
		m.tcode = sync ? NTRACE_TC_INDIRECT_BRANCH_SYNC : NTRACE_TC_INDIRECT_BRANCH;
		take_counts(e, &m, false);
	}

	if (sync) {
		m.sync = e->pend_sync;
		m.addr = ntrace_faddr_field(target);
		m.flags |= NTRACE_MSGF_ADDR;
		e->last_addr = target;
		return put_sync(e, &m, e->pend_ts, next);
	}
	if (m.tcode != NTRACE_TC_DIRECT_BRANCH) {
		m.addr = ntrace_uaddr_field(target, e->last_addr);
		m.flags |= NTRACE_MSGF_ADDR;
		e->last_addr = target;
	}
	return put_branch(e, &m, e->pend_ts);
}

static void push_return(struct ntrace_encoder *e, uint64_t ret)
{
	const struct ntrace_enc_cfg *c = &e->cfg;

	if (c->implicit_return == NTRACE_IRET_COUNT) {
		if (e->rdepth < c->return_depth)
			e->rdepth++;
		return;
	}
	if (e->rdepth == c->return_depth) {
		/* full: the oldest entry is forgotten */
		memmove(e->rstack, e->rstack + 1, (c->return_depth - 1) * sizeof(e->rstack[0]));
		e->rdepth--;
	}
	e->rstack[e->rdepth++] = ret;
}

/* Pop for a return: true with *expect set if there is a prediction. */
static bool pop_return(struct ntrace_encoder *e, uint64_t *expect)
{
	if (!e->rdepth)
		return false;
	e->rdepth--;
	*expect = e->cfg.implicit_return == NTRACE_IRET_COUNT ? 0 : e->rstack[e->rdepth];
	return true;
}

/* Hold h as a repeat candidate, after what was held before. */
static int rh_hold(struct ntrace_encoder *e, uint64_t h, uint64_t ts)
{
	int rc = flush_repeats(e);

	if (rc)
		return rc;
	e->rb_valid = false;
	e->rh_hist = h;
	e->rh_count = 1;
	e->rh_ts = ts;
	return 0;
}

/*
 * HIST has as many bits as the held word (enc_hist_len(rh_hist)), or is
 * full. Repeated history ("Repeated History Optimization"): a register
 * equal to the held word is counted; a full register after a full one held
 * once is cut with it into a shorter repeating word when their bits repeat
 * one (enc_hrep_cut); anything else sends the held word and is held in turn
 * when full. Without it a full register is sent at once (RCODE=1).
 */
/*
 * SiFive v0 repeated history: the run ended (a branch went the other way)
 * or its count is full: send it. A full register whose branches all went
 * one way starts a run, any other is sent (RCODE 1).
 */
static int hist_step_v0(struct ntrace_encoder *e, uint64_t ts)
{
	const struct ntrace_enc_cfg *c = &e->cfg;
	unsigned int w = c->hist_bits - 1;
	uint64_t h = e->hist, ones = (1ull << w) - 1;
	struct ntrace_msg m;
	int rc;

	if (e->rc_count && (!e->rc_open || e->rc_count >= (1ull << c->hrepeat_bits) - 1)) {
		rc = flush_rc(e);
		if (rc)
			return rc;
	}
	if (!(h >> w))
		return 0;
	e->hist = 1;
	if ((h & ones) == 0 || (h & ones) == ones) {
		e->rc_bit = h & 1;
		e->rc_count = w;
		e->rc_open = true;
		e->rc_ts = ts;
		return 0;
	}
	m = msg_zero;
	m.tcode = NTRACE_TC_RESOURCE_FULL;
	m.code = NTRACE_RCODE_HIST;
	m.hist = h;
	m.flags = NTRACE_MSGF_HIST;
	return put_plain(e, &m, ts);
}

static int hist_step(struct ntrace_encoder *e, uint64_t ts)
{
	const struct ntrace_enc_cfg *c = &e->cfg;
	unsigned int w = c->hist_bits - 1;
	uint64_t h = e->hist;
	struct enc_hrep cut;
	struct ntrace_msg m;
	int rc;

	if (c->repeated_history && c->codec.variant == NTRACE_VARIANT_SIFIVE_V0)
		return hist_step_v0(e, ts);
	if (!c->repeated_history) {
		e->hist = 1;
		m = msg_zero;
		m.tcode = NTRACE_TC_RESOURCE_FULL;
		m.code = NTRACE_RCODE_HIST;
		m.hist = h;
		m.flags = NTRACE_MSGF_HIST;
		return put_plain(e, &m, ts);
	}
	if (e->rh_count && enc_hist_len(h) == enc_hist_len(e->rh_hist)) {
		if (e->rh_count == 1 && enc_hist_len(h) == w &&
		    enc_hrep_cut(e->rh_hist, h, w, &cut) &&
		    cut.count < 1ull << c->hrepeat_bits) {
			if (cut.head) {		/* sent as the held word */
				e->rh_hist = cut.head;
				rc = flush_rh(e);
				if (rc)
					return rc;
			}
			e->rh_hist = cut.word;
			e->rh_count = cut.count;
			e->rh_ts = ts;
			e->hist = cut.rest;
			return 0;
		}
		if (h == e->rh_hist && e->rh_count < (1ull << c->hrepeat_bits) - 1) {
			e->rh_count++;
			e->rh_ts = ts;
			e->hist = 1;
			return 0;
		}
		if (h == e->rh_hist) {		/* HREPEAT is full */
			e->hist = 1;
			return rh_hold(e, h, ts);
		}
		rc = flush_repeats(e);
		if (rc)
			return rc;
	}
	if (enc_hist_len(h) < w)
		return 0;
	e->hist = 1;
	return rh_hold(e, h, ts);
}

static int trace_start(struct ntrace_encoder *e, const struct ntrace_insn *r, unsigned int sync)
{
	struct ntrace_msg m;

	e->tracing = true;
	e->icnt = 0;
	e->hist = 1;
	e->pend = NTRACE_ENC_NONE;
	e->rb_count = 0;
	e->rh_count = 0;
	e->rc_count = 0;
	e->rc_open = false;
	e->prev_size_in_block = 0;
	m = msg_zero;
	m.tcode = NTRACE_TC_PROG_TRACE_SYNC;
	m.sync = (uint8_t)sync;
	m.addr = ntrace_faddr_field(r->addr);
	m.flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR;
	e->last_addr = r->addr;
	return put_sync(e, &m, r->tstamp, r);
}

/* Trace stops after the current record: report where it ended. */
static int trace_stop(struct ntrace_encoder *e, uint64_t ts)
{
	const struct ntrace_enc_cfg *c = &e->cfg;
	struct ntrace_msg m;

	/* a message waiting for a target that will not come is folded in */
	e->pend = NTRACE_ENC_NONE;
	e->pend_is_sync = false;
	e->tracing = false;
	m = msg_zero;
	m.tcode = NTRACE_TC_PROG_TRACE_CORRELATION;
	m.code = c->stop_evcode;
	m.cdf = c->mode == NTRACE_MODE_HTM;
	take_counts(e, &m, m.cdf);
	return put_plain(e, &m, ts);
}

/* ingress itype -> the 4-bit value the rules below use */
static unsigned int norm_itype(const struct ntrace_enc_cfg *c, unsigned int it)
{
	if (c->itype_bits == 3)
		return ntrace_itype_3bit(it, c->all_jumps);
	if (!c->implicit_return && (it == NTRACE_ITYPE_COSWAP || it == NTRACE_ITYPE_RETURN))
		return NTRACE_ITYPE_INDIRECT;
	/* SiFive v0: a co-routine swap only pushes, as an indirect call */
	if (it == NTRACE_ITYPE_COSWAP && c->codec.variant == NTRACE_VARIANT_SIFIVE_V0)
		return NTRACE_ITYPE_IND_CALL;
	return it == 7 ? NTRACE_ITYPE_NONE : it;
}

static void branch_bit(struct ntrace_encoder *e, unsigned int taken)
{
	if (__builtin_expect(e->rc_open, 0)) {	/* a SiFive v0 run */
		if (taken == e->rc_bit) {
			e->rc_count++;
			return;
		}
		e->rc_open = false;	/* sent by hist_step() before anything else */
	}
	e->hist = e->hist << 1 | taken;
}

/*
 * Classify one record (its ingress itype, its flags and the address after
 * it, next_pc); may set a pending message.
 */
static inline void classify(struct ntrace_encoder *e, unsigned int itype, uint8_t flags,
			    uint64_t next_pc, bool prev_in_block)
{
	const struct ntrace_enc_cfg *c = &e->cfg;
	bool htm = c->mode == NTRACE_MODE_HTM;
	unsigned int it = norm_itype(c, itype);
	bool seq = c->seq_jump && (flags & NTRACE_INSN_SEQ_INFERABLE) && prev_in_block;

	switch (it) {
	case NTRACE_ITYPE_EXCEPTION:
	case NTRACE_ITYPE_INTERRUPT:
		e->pend = NTRACE_ENC_TRAP;
		e->pend_btype = c->trap_btype1 ? NTRACE_BTYPE_TRAP
				: it == NTRACE_ITYPE_EXCEPTION ? NTRACE_BTYPE_EXCEPTION
							       : NTRACE_BTYPE_INTERRUPT;
		break;
	case NTRACE_ITYPE_TRAP_RETURN:
		e->pend = NTRACE_ENC_INDIRECT;
		e->pend_btype = NTRACE_BTYPE_INDIRECT;
		break;
	case NTRACE_ITYPE_NOT_TAKEN:
		if (htm)
			branch_bit(e, 0);
		break;
	case NTRACE_ITYPE_TAKEN:
		if (htm)
			branch_bit(e, 1);
		else
			e->pend = NTRACE_ENC_DIRECT;
		break;
	case NTRACE_ITYPE_IND_CALL:
		if (c->implicit_return)
			push_return(e, next_pc);
		/* fall through */
	case NTRACE_ITYPE_INDIRECT:
	case NTRACE_ITYPE_IND_JUMP:
	case NTRACE_ITYPE_OTHER_IND_JUMP:
		if (!seq) {
			e->pend = NTRACE_ENC_INDIRECT;
			e->pend_btype = NTRACE_BTYPE_INDIRECT;
		}
		break;
	case NTRACE_ITYPE_DIR_CALL:
		if (c->implicit_return)
			push_return(e, next_pc);
		/* fall through */
	case NTRACE_ITYPE_DIR_JUMP:
	case NTRACE_ITYPE_OTHER_DIR_JUMP:
		if (c->all_jumps) {
			if (htm)
				branch_bit(e, 1);
			else
				e->pend = NTRACE_ENC_DIRECT;
		}
		break;
	case NTRACE_ITYPE_COSWAP:
	case NTRACE_ITYPE_RETURN: {
		uint64_t expect = 0;
		bool predicted = pop_return(e, &expect);

		if (it == NTRACE_ITYPE_COSWAP)
			push_return(e, next_pc);
		/* a mispredicted return is sent as an indirect jump too */
		e->pend_btype = NTRACE_BTYPE_INDIRECT;
		if (!predicted) {
			e->pend = NTRACE_ENC_INDIRECT;
		} else if (c->implicit_return != NTRACE_IRET_COUNT) {
			e->pend = NTRACE_ENC_RETURN;
			e->pend_expect = expect;
		}
		break;
	}
	default:
		break;
	}
}

static int put_traced(struct ntrace_encoder *e, const struct ntrace_insn *r);

/* HIST is full, or as long as the held repeat candidate: hist_step() decides. */
static inline bool hist_due(const struct ntrace_encoder *e)
{
	return e->hist >> (e->cfg.hist_bits - 1) ||
	       (e->rh_count && enc_hist_len(e->hist) == enc_hist_len(e->rh_hist)) ||
	       (e->rc_count && (!e->rc_open ||
				e->rc_count >= (1ull << e->cfg.hrepeat_bits) - 1));
}

/*
 * End of a traced record: a periodic sync that fell due rides on the
 * message waiting for the next record, or is sent on linear code.
 */
static inline void sync_step(struct ntrace_encoder *e, uint64_t ts)
{
	if (e->cfg.sync_mode && e->sync_count >= e->sync_period)
		e->sync_due = true;
	if (e->sync_due && !e->pend_is_sync) {
		if (!e->pend) {
			e->pend = NTRACE_ENC_LINEAR;
			e->pend_ts = ts;
		}
		e->pend_is_sync = true;
		e->pend_sync = NTRACE_SYNC_PERIODIC;
	}
}

static void count_record(struct ntrace_encoder *e, const struct ntrace_insn *r)
{
	e->last_record_addr = r->addr;
	e->last_record_ts = r->tstamp;
	e->records++;
}

/*
 * The record finds the encoder tracing with nothing owed before it: no
 * message waits for its address, no restart after an overrun, no
 * Ownership change (priv and context those of the next record).
 */
static bool nothing_owed(const struct ntrace_encoder *e, uint8_t priv, uint64_t context)
{
	return e->tracing && !e->pend && !e->overrun &&
	       (!e->cfg.context ||
		(e->own_valid && priv == e->own_priv && context == e->own_context));
}

/*
 * What record r settles before its own rules: a restart after an overrun,
 * the trace start, the message waiting for r's address, an Ownership
 * change. *traced is false when r is not traced (it was only counted);
 * else nothing is owed any more (nothing_owed() for r).
 */
static int put_head(struct ntrace_encoder *e, const struct ntrace_insn *r, bool *traced)
{
	const struct ntrace_enc_cfg *c = &e->cfg;
	int rc;

	*traced = true;
	if (e->overrun && (e->tracing || (r->flags & NTRACE_INSN_TRACE_START))) {
		struct ntrace_msg m;

		m = msg_zero;
		m.tcode = NTRACE_TC_ERROR;
		m.code = NTRACE_ETYPE_FIFO_OVERRUN;
		m.data = e->overrun_ecode;
		e->overrun = false;
		rc = put(e, &m, r->tstamp);
		if (rc)
			return rc;
		rc = trace_start(e, r, NTRACE_SYNC_FIFO_OVERRUN);
		if (rc)
			return rc;
	} else if (!e->tracing) {
		if (e->records && !(r->flags & NTRACE_INSN_TRACE_START)) {
			count_record(e, r);
			*traced = false;
			return 0;
		}
		rc = trace_start(e, r, e->cfg.start_sync);
		if (rc)
			return rc;
	} else if (e->pend) {
		rc = emit_pending(e, r);
		if (rc)
			return rc;
	}
	if (c->context && (!e->own_valid || r->priv != e->own_priv ||
			   r->context != e->own_context)) {
		rc = put_ownership(e, r, false);
		if (rc)
			return rc;
	}
	return 0;
}

static int put_one(struct ntrace_encoder *e, const struct ntrace_insn *r)
{
	bool traced;
	int rc = put_head(e, r, &traced);

	return rc || !traced ? rc : put_traced(e, r);
}

/* A record traced with nothing owed before it (nothing_owed()). */
static int put_traced(struct ntrace_encoder *e, const struct ntrace_insn *r)
{
	const struct ntrace_enc_cfg *c = &e->cfg;
	unsigned int hw = HW(r->size);
	bool prev_in_block;
	int rc;

	prev_in_block = e->prev_size_in_block != 0;
	e->icnt += hw;
	if (c->sync_mode == NTRACE_SYNCMODE_HWORDS)
		e->sync_count += hw;
	else if (c->sync_mode == NTRACE_SYNCMODE_CYCLES && e->records &&
		 r->tstamp > e->last_record_ts)
		e->sync_count += r->tstamp - e->last_record_ts;

	classify(e, r->itype, r->flags, r->addr + r->size, prev_in_block);
	if (e->pend)
		e->pend_ts = r->tstamp;

	if (hist_due(e)) {
		rc = hist_step(e, r->tstamp);
		if (rc)
			return rc;
	}
	/*
	 * I-CNT full: reported unless this record's own message carries it.
	 * A return that may turn out inferable cannot be relied on: report
	 * the count before it, so the counter stays bounded.
	 */
	if (e->pend == NTRACE_ENC_RETURN && e->icnt >> (c->icnt_bits - 1) && e->icnt > hw) {
		struct ntrace_msg m;

		m = msg_zero;
		m.tcode = NTRACE_TC_RESOURCE_FULL;
		m.code = NTRACE_RCODE_ICNT;
		m.icnt = e->icnt - hw;
		m.flags = NTRACE_MSGF_ICNT;
		e->icnt = hw;
		rc = put_icnt_full(e, &m, r->tstamp);
		if (rc)
			return rc;
	} else if (!e->pend && e->icnt >> (c->icnt_bits - 1)) {
		if (c->icnt_full_sync) {
			e->pend = NTRACE_ENC_LINEAR;
			e->pend_is_sync = true;
			e->pend_sync = NTRACE_SYNC_ICNT;
			e->pend_ts = r->tstamp;
		} else {
			struct ntrace_msg m;

			m = msg_zero;
			m.tcode = NTRACE_TC_RESOURCE_FULL;
			m.code = NTRACE_RCODE_ICNT;
			take_counts(e, &m, false);
			rc = put_icnt_full(e, &m, r->tstamp);
			if (rc)
				return rc;
			hw = 0;	/* counted in the message just sent */
		}
	}
	sync_step(e, r->tstamp);
	e->prev_size_in_block = e->pend ? 0 : (uint8_t)hw;

	if (r->flags & NTRACE_INSN_TRACE_STOP) {
		rc = trace_stop(e, r->tstamp);
		if (rc)
			return rc;
	}
	count_record(e, r);
	return 0;
}

int ntrace_encoder_init(struct ntrace_encoder *e, const struct ntrace_enc_cfg *cfg,
			ntrace_emit_fn emit, void *ctx, const char **why)
{
	int rc = ntrace_enc_cfg_check(cfg, why);

	if (rc)
		return rc;
	memset(e, 0, sizeof(*e));
	e->cfg = *cfg;
	if (!e->cfg.codec.xlen)
		e->cfg.codec.xlen = 64;
	e->emit = emit;
	e->ctx = ctx;
	e->hist = 1;
	e->sync_period = 1ull << (cfg->sync_max + 4);
	return 0;
}

int ntrace_encoder_put(struct ntrace_encoder *e, const struct ntrace_insn *insn, size_t n)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		if (e->stopped)
			return e->stopped;
		rc = put_one(e, &insn[i]);
		if (rc)
			return rc;
	}
	return e->stopped;
}

/*
 * Nothing can fall due inside a run of hw plain half-words: no message waits
 * for a target, no trace start, overrun or Ownership change is owed, and
 * neither I-CNT nor the sync counter fills before its end.
 */
static inline bool run_is_quiet(const struct ntrace_encoder *e, unsigned int hw,
			 const struct ntrace_run_attr *a)
{
	const struct ntrace_enc_cfg *c = &e->cfg;

	if (!nothing_owed(e, a->priv, a->context) || e->sync_due || e->stopped)
		return false;
	if ((e->icnt + hw) >> (c->icnt_bits - 1))
		return false;
	if (c->sync_mode == NTRACE_SYNCMODE_CYCLES)
		return false;
	/* messages sent for the first record may have filled the message count */
	if (c->sync_mode == NTRACE_SYNCMODE_MSGS)
		return e->sync_count < e->sync_period;
	return c->sync_mode != NTRACE_SYNCMODE_HWORDS || e->sync_count + hw < e->sync_period;
}

int ntrace_encoder_put_run(struct ntrace_encoder *e, const struct ntrace_insn *insn, size_t n,
			   unsigned int hw, const struct ntrace_run_attr *a)
{
	struct ntrace_insn r;
	size_t i;
	int rc;

	/*
	 * One record at a time until nothing can fall due in the rest: the
	 * first record is usually the target a branch message waits for.
	 */
	for (i = 0; i < n; i++) {
		if (e->stopped)
			return e->stopped;
		if (run_is_quiet(e, hw, a)) {
			e->icnt += hw;
			if (e->cfg.sync_mode == NTRACE_SYNCMODE_HWORDS)
				e->sync_count += hw;
			e->prev_size_in_block = (uint8_t)HW(insn[n - 1].size);
			e->last_record_addr = insn[n - 1].addr + a->addr_offset;
			e->last_record_ts = a->tstamp + (n - 1) * a->tstamp_step;
			e->records += n - i;
			return 0;
		}
		ntrace_run_record(&r, insn, i, a);
		rc = put_one(e, &r);
		if (rc)
			return rc;
		hw -= HW(r.size);
	}
	return e->stopped;
}

/*
 * A quiet block (run_is_quiet() for all of it) that does not stop trace:
 * put_traced() of its records reduced to what they change. The plain
 * ones only add to I-CNT (and the half-word sync count); the last one
 * adds its half-words and is classified (a branch's history bit, a
 * message that waits for the next block's address). Neither counter fills
 * inside the block, so only HIST and the periodic sync are left to check.
 */
static inline int put_quiet_block(struct ntrace_encoder *e, const struct ntrace_enc_block *b,
				  const struct ntrace_run_attr *a)
{
	size_t last = b->n - 1;
	uint64_t ts = a->tstamp + last * a->tstamp_step;
	uint64_t addr = b->insn[last].addr + a->addr_offset;
	uint8_t size = b->insn[last].size;
	int rc;

	e->icnt += b->hw;
	if (e->cfg.sync_mode == NTRACE_SYNCMODE_HWORDS)
		e->sync_count += b->hw;
	if (b->itype == NTRACE_ITYPE_TAKEN || b->itype == NTRACE_ITYPE_NOT_TAKEN) {
		/* the most common outcome: no call, no sequential jump */
		bool taken = b->itype == NTRACE_ITYPE_TAKEN;

		if (e->cfg.mode == NTRACE_MODE_HTM) {
			branch_bit(e, taken);
		} else if (taken) {
			e->pend = NTRACE_ENC_DIRECT;
			e->pend_ts = ts;
		}
	} else {
		bool prev_in_block = last ? HW(b->insn[last - 1].size) != 0
					  : e->prev_size_in_block != 0;

		classify(e, b->itype, b->flags, addr + size, prev_in_block);
		if (e->pend)
			e->pend_ts = ts;
	}
	if (hist_due(e)) {
		rc = hist_step(e, ts);
		if (rc)
			return rc;
	}
	sync_step(e, ts);
	e->prev_size_in_block = e->pend ? 0 : (uint8_t)HW(size);
	e->last_record_addr = addr;
	e->last_record_ts = ts;
	e->records += b->n;
	return 0;
}

/* Records from..n-1 of a block, one at a time. */
static int put_block_records(struct ntrace_encoder *e, const struct ntrace_enc_block *b,
			     const struct ntrace_run_attr *a, size_t from)
{
	struct ntrace_insn r;
	size_t i;
	int rc;

	for (i = from; i < b->n; i++) {
		if (e->stopped)
			return e->stopped;
		ntrace_enc_block_record(&r, b, i, a);
		rc = put_one(e, &r);
		if (rc)
			return rc;
	}
	return e->stopped;
}

/*
 * ntrace_encoder_put_block() of a block that is not quiet as it comes.
 * Sets *quiet, having done nothing else, when its first record settled
 * what was owed and the rest of the block is quiet now.
 */
static int put_block_general(struct ntrace_encoder *e, const struct ntrace_enc_block *b,
			     const struct ntrace_run_attr *a, bool *quiet)
{
	bool quiet_end = !(b->flags & NTRACE_INSN_TRACE_STOP);
	size_t last = b->n - 1;
	struct ntrace_insn r;
	bool traced;
	int rc;

	if (e->stopped)
		return e->stopped;
	if (!nothing_owed(e, a->priv, a->context)) {
		/*
		 * The first record settles it (usually it is the address a
		 * branch message waits for); then the block goes on as one
		 * that owes nothing, the first record's own rules included.
		 */
		ntrace_enc_block_record(&r, b, 0, a);
		rc = put_head(e, &r, &traced);
		if (rc)
			return rc;
		if (!traced)
			return put_block_records(e, b, a, 1);
		if (quiet_end && run_is_quiet(e, b->hw, a)) {
			*quiet = true;
			return 0;
		}
	}
	if (last) {
		rc = ntrace_encoder_put_run(e, b->insn, last,
					    b->hw - HW(b->insn[last].size), a);
		if (rc)
			return rc;
	}
	if (e->stopped)
		return e->stopped;
	ntrace_enc_block_record(&r, b, last, a);
	/* the common case: straight to the rules of the record itself */
	if (nothing_owed(e, r.priv, r.context))
		return put_traced(e, &r);
	return put_one(e, &r);
}

int ntrace_encoder_put_block(struct ntrace_encoder *e, const struct ntrace_enc_block *b,
			     const struct ntrace_run_attr *a)
{
	bool quiet = false;
	int rc;

	/* the most common block, checked first: quiet as it comes */
	if ((b->flags & NTRACE_INSN_TRACE_STOP) || !run_is_quiet(e, b->hw, a)) {
		rc = put_block_general(e, b, a, &quiet);
		if (!quiet)
			return rc;
	}
	return put_quiet_block(e, b, a);
}

void ntrace_encoder_overrun(struct ntrace_encoder *e, uint64_t ecode)
{
	e->overrun = true;
	e->overrun_ecode = ecode;
	e->pend = NTRACE_ENC_NONE;
	e->pend_is_sync = false;
	e->rb_count = 0;
	e->rb_valid = false;
	e->rh_count = 0;
	e->rc_count = 0;
	e->rc_open = false;
}

int ntrace_encoder_finish(struct ntrace_encoder *e)
{
	if (e->stopped)
		return e->stopped;
	if (!e->tracing)
		return flush_repeats(e);
	return trace_stop(e, e->last_record_ts);
}
