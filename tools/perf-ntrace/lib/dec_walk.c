// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The walk ("Decoding Algorithm Principles"): spend the half-words of
 * I-CNT block by block from the current pc, taking HIST bits at
 * conditional branches, following direct jumps, and inferring returns
 * (return stack) and sequential jumps. A walk stops when the I-CNT is
 * spent, or, when the message that will resolve the last instruction has
 * not arrived yet (ResourceFull only), before an instruction it cannot
 * resolve; it continues when the next message adds I-CNT or HIST.
 */
#include <inttypes.h>
#include <stdarg.h>

#include "dec_internal.h"

int dec_flush(struct ntrace_decoder *d)
{
	uint32_t n = d->nruns;

	d->nruns = 0;
	if (n && d->ops.runs && !d->stopped)
		d->stopped = d->ops.runs(d->ctx, d->runs, n);
	return d->stopped;
}

int dec_event(struct ntrace_decoder *d, struct dec_src *s, unsigned int type, unsigned int code,
	      const char *text)
{
	struct ntrace_dec_event ev;

	d->nevents++;
	if (dec_flush(d))
		return d->stopped;
	if (!d->ops.event)
		return 0;
	ev.type = (uint8_t)type;
	ev.priv = s ? s->priv : 0;
	ev.src = s ? s->id : 0;
	ev.code = code;
	ev.offset = d->cur ? d->cur->offset : d->parser.pos;
	ev.pc = s && s->synced ? s->pc : 0;
	ev.context = s ? s->context : 0;
	ev.tstamp = s ? s->ts : 0;
	ev.text = text;
	d->stopped = d->ops.event(d->ctx, &ev);
	return d->stopped;
}

/* Report an inconsistency: what decoded so far is kept, then wait for a sync. */
int dec_error(struct ntrace_decoder *d, struct dec_src *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ntrace_err_vset(&d->err, NTRACE_EBADINPUT, fmt, ap);
	va_end(ap);
	d->st.errors++;
	if (s) {
		if (s->run_open && s->synced)
			dec_run_close(d, s, s->run_last, 0, NTRACE_DK_STOP, 0);
		s->run_open = false;
		s->synced = false;
		s->ref_ok = false;
		s->icnt = 0;
		s->prev_valid = false;
		s->rs_len = 0;
		dec_hist_clear(d, s);
	}
	dec_event(d, s, NTRACE_DEV_ERROR, 0, d->err.msg);
	return NTRACE_EBADINPUT;
}

void dec_rs_push(struct dec_src *s, uint64_t ret)
{
	if (__builtin_expect(s->rs_log != NULL, 0) && s->rs_nlog++ < DEC_MEMO_OPS)
		s->rs_log[s->rs_nlog - 1] = ret;
	s->rs[s->rs_top] = ret;
	s->rs_top = (s->rs_top + 1) & DEC_RS_MASK;
	if (s->rs_len < s->rs_cap)
		s->rs_len++;
}

static bool rs_pop(struct dec_src *s, uint64_t *ret, uint64_t op)
{
	if (__builtin_expect(s->rs_log != NULL, 0) && s->rs_nlog++ < DEC_MEMO_OPS)
		s->rs_log[s->rs_nlog - 1] = op;
	if (!s->rs_len)
		return false;
	s->rs_top = (s->rs_top - 1) & DEC_RS_MASK;
	s->rs_len--;
	*ret = s->rs[s->rs_top];
	return true;
}

bool dec_rs_pop(struct dec_src *s, uint64_t *ret)
{
	return rs_pop(s, ret, DEC_RS_POP);
}

void dec_rs_drop(struct dec_src *s)
{
	uint64_t dummy;

	rs_pop(s, &dummy, DEC_RS_DROP);
}

/* Target of a sequential jump (isa.h), read from the code before b's last instruction. */
static int seq_target(struct ntrace_decoder *d, struct dec_src *s, const struct dec_blk *b,
		      uint64_t *target)
{
	uint64_t prev = dec_block_prev(d, b);
	struct ntrace_iext p, j;

	if (!prev && s->run_open && b->ninsn == 1)
		prev = s->run_last;
	if (!prev || ntrace_images_decode_ext(d->img, prev, &p) ||
	    ntrace_images_decode_ext(d->img, b->last, &j) ||
	    !ntrace_isa_seq_jump(&p, prev, &j, d->xlen, target))
		return -1;
	return 0;
}

static unsigned int ind_kind(unsigned int itype)
{
	switch (itype) {
	case NTRACE_ITYPE_IND_CALL:
		return NTRACE_DK_IND_CALL;
	case NTRACE_ITYPE_RETURN:
	case NTRACE_ITYPE_COSWAP:
		return NTRACE_DK_RETURN;
	default:
		return NTRACE_DK_IND_JUMP;
	}
}

/*
 * Resolve the block-ending instruction of b. final: the message that
 * carries the I-CNT has arrived (a missing HIST bit then means not taken);
 * mid: the I-CNT goes on past it (so no message reports its target).
 * Returns 0 with *next, *kind, *flags; 1 when it must wait for more
 * messages; -1 after reporting an inconsistency.
 */
static int pass_end(struct ntrace_decoder *d, struct dec_src *s, const struct dec_blk *b,
		    bool final, bool mid, uint64_t *next, unsigned int *kind, unsigned int *flags)
{
	uint64_t after = b->after;
	int bit;

	*flags = 0;
	switch (b->kind) {
	case NTRACE_IK_BRANCH:
		if (s->htm) {
			bit = dec_hist_pop(s);
			if (bit < 0) {
				if (!final)
					return 1;
				bit = 0;
			}
		} else {
			if (!mid)
				return 1;
			bit = 0;
		}
		*next = bit ? b->target : after;
		*kind = bit ? NTRACE_DK_TAKEN : NTRACE_DK_NOT_TAKEN;
		if (bit)
			d->st.taken++;
		return 0;
	case NTRACE_IK_JUMP:
	case NTRACE_IK_TABLE_JUMP:
		if (!b->tvalid)
			return dec_error(d, s, "direct jump at 0x%" PRIx64 ": %s", b->last,
					 ntrace_images_errmsg(d->img));
		if (d->alljumps) {
			if (s->htm) {
				bit = dec_hist_pop(s);
				if (bit < 0 && !final)
					return 1;
				if (bit == 0)
					return dec_error(d, s, "HIST says the direct jump at 0x%"
							 PRIx64 " was not taken", b->last);
			} else {
				if (!mid)
					return 1;
				return dec_error(d, s, "I-CNT runs past the direct jump at 0x%"
						 PRIx64 " (with --all-jumps every jump ends one:"
						 " was trTeInstEnAllJumps on?)", b->last);
			}
		}
		if (b->itype == NTRACE_ITYPE_DIR_CALL) {
			if (d->iret)
				dec_rs_push(s, after);
			*kind = NTRACE_DK_CALL;
		} else {
			*kind = NTRACE_DK_JUMP;
		}
		*next = b->target;
		d->st.taken++;
		return 0;
	case NTRACE_IK_INDIRECT:
		if (!mid)
			return 1;
		*kind = ind_kind(b->itype);
		if (d->iret && (b->itype == NTRACE_ITYPE_RETURN || b->itype == NTRACE_ITYPE_COSWAP)) {
			if (!dec_rs_pop(s, next))
				return dec_error(d, s, "I-CNT runs past the return at 0x%" PRIx64
						 " but the return stack is empty (--implicit-return:"
						 " is the encoder's mode full?)", b->last);
			if (b->itype == NTRACE_ITYPE_COSWAP)
				dec_rs_push(s, after);
			*flags = NTRACE_DRF_IMPLICIT;
			d->st.implicit_returns++;
		} else if (d->seqj && !seq_target(d, s, b, next)) {
			if (d->iret && b->itype == NTRACE_ITYPE_IND_CALL)
				dec_rs_push(s, after);
			*flags = NTRACE_DRF_INFERRED;
		} else {
			return dec_error(d, s, "I-CNT runs past the indirect jump at 0x%" PRIx64
					 " (no message gives its target%s)", b->last,
					 !d->iret && (b->itype == NTRACE_ITYPE_RETURN ||
						      b->itype == NTRACE_ITYPE_COSWAP)
					 ? "; was implicit return on? --implicit-return" :
					 !d->seqj && b->ninsn > 1
					 ? "; was the sequential jump optimisation on? --seq-jump" : "");
		}
		d->st.indirect++;
		return 0;
	case NTRACE_IK_TRAP_RETURN:
		if (!mid)
			return 1;
		return dec_error(d, s, "I-CNT runs past the trap return at 0x%" PRIx64, b->last);
	case NTRACE_IK_NONE:	/* executable region ends: code may go on in the next one */
		*next = after;
		*kind = NTRACE_DK_FALL;
		return 0;
	default:
		return dec_error(d, s, "I-CNT runs into the %s instruction at 0x%" PRIx64
				 ", which cannot retire", ntrace_ikind_name(b->kind), b->last);
	}
}

/*
 * A final message's I-CNT ends on a trapping instruction (ECALL, EBREAK).
 * Such an instruction never retires, so a conforming encoder leaves it out
 * of the I-CNT ("I-CNT Details"); NexRv, the task group's reference code,
 * models ECALL as an indirect call that retires and counts it. The flow is
 * still clear: decode it as retired, then go where the message says. The
 * first time for a source this is reported as a warning. Returns the
 * sink's stop value.
 */
int dec_trap_counted(struct ntrace_decoder *d, struct dec_src *s, const struct dec_blk *b)
{
	if (s->trap_counted)
		return 0;
	s->trap_counted = true;
	snprintf(d->text, sizeof(d->text), "I-CNT counts the %s instruction at 0x%" PRIx64
		 ", which traps and does not retire (an encoder that counts ECALL, as NexRv"
		 " does); decoded as retired", ntrace_ikind_name(b->kind), b->last);
	return dec_event(d, s, NTRACE_DEV_WARN, 0, d->text);
}

/*
 * Resolve the instruction a final message's I-CNT ends on, for messages
 * that do not say what it did (traps, syncs, trace stop): the natural
 * outcome, with an unknown indirect target reported as 0.
 */
int dec_end_insn(struct ntrace_decoder *d, struct dec_src *s, const struct dec_blk *b,
		 uint64_t *next, unsigned int *kind, unsigned int *flags)
{
	uint64_t after = b->after;

	*flags = 0;
	switch (b->kind) {
	case NTRACE_IK_INDIRECT:
		*kind = ind_kind(b->itype);
		*next = 0;
		if (d->iret && (b->itype == NTRACE_ITYPE_RETURN || b->itype == NTRACE_ITYPE_COSWAP)) {
			if (dec_rs_pop(s, next))
				*flags = NTRACE_DRF_IMPLICIT;
			if (b->itype == NTRACE_ITYPE_COSWAP)
				dec_rs_push(s, after);
		} else if (d->iret && b->itype == NTRACE_ITYPE_IND_CALL) {
			dec_rs_push(s, after);
		}
		if (!*next && d->seqj && !seq_target(d, s, b, next))
			*flags = NTRACE_DRF_INFERRED;
		return 0;
	case NTRACE_IK_TRAP_RETURN:
		*kind = NTRACE_DK_TRAP_RETURN;
		*next = 0;
		return 0;
	case NTRACE_IK_JUMP:
	case NTRACE_IK_TABLE_JUMP:
		if (!s->htm && d->alljumps && b->tvalid) {	/* its DirectBranch was folded */
			if (b->itype == NTRACE_ITYPE_DIR_CALL && d->iret)
				dec_rs_push(s, after);
			*kind = b->itype == NTRACE_ITYPE_DIR_CALL ? NTRACE_DK_CALL : NTRACE_DK_JUMP;
			*next = b->target;
			return 0;
		}
		return pass_end(d, s, b, true, true, next, kind, flags) < 0 ? NTRACE_EBADINPUT : 0;
	case NTRACE_IK_BRANCH:
		if (!s->htm) {	/* a taken BTM branch has its own DirectBranch message */
			*next = after;
			*kind = NTRACE_DK_NOT_TAKEN;
			return 0;
		}
		/* fall through */
	default:
		return pass_end(d, s, b, true, true, next, kind, flags) < 0 ? NTRACE_EBADINPUT : 0;
	}
}

/* Close or extend the run after passing the end of b. */
static inline void after_pass(struct ntrace_decoder *d, struct dec_src *s, const struct dec_blk *b,
			      uint64_t next, unsigned int kind, unsigned int flags)
{
	dec_run_add(s, s->pc, b->ninsn, b->last);
	if (kind == NTRACE_DK_FALL || (kind == NTRACE_DK_NOT_TAKEN && d->merge))
		;
	else
		dec_run_close(d, s, b->last, next, kind, flags);
	s->pc = next;
}

int dec_walk(struct ntrace_decoder *d, struct dec_src *s, bool final, const struct dec_blk **endp)
{
	for (;;) {
		uint64_t r = s->icnt, next;
		const struct dec_blk *b;
		unsigned int kind, flags;
		int rc;

		if (r && !d->stopped) {
			dec_walk_fast(d, s);
			r = s->icnt;
		}
		if (!r)
			return final ? W_DONE : W_PAUSE;
		b = dec_block(d, s->pc);
		if (__builtin_expect(!b, 0)) {
			dec_error(d, s, "cannot decode at pc 0x%" PRIx64 ": %s", s->pc,
				  ntrace_images_errmsg(d->img));
			/* no code here, but no message missed either */
			s->ref_ok = d->cfg.resume_at_targets;
			return W_ERROR;
		}
		if (r > b->nhalf) {
			/* fast path: conditional branches and plain direct jumps */
			if (b->kind == NTRACE_IK_BRANCH) {
				int bit = s->htm ? dec_hist_pop(s) : 0;

				if (__builtin_expect(bit >= 0, 1)) {
					dec_run_add(s, s->pc, b->ninsn, b->last);
					s->icnt = r - b->nhalf;
					if (bit) {
						d->st.taken++;
						dec_run_close(d, s, b->last, b->target, NTRACE_DK_TAKEN, 0);
						s->pc = b->target;
					} else {
						next = b->after;
						if (!d->merge)
							dec_run_close(d, s, b->last, next,
								  NTRACE_DK_NOT_TAKEN, 0);
						s->pc = next;
					}
					continue;
				}
			}
			rc = pass_end(d, s, b, final, true, &next, &kind, &flags);
			if (rc)
				return rc < 0 ? W_ERROR : W_PAUSE;
			after_pass(d, s, b, next, kind, flags);
			s->icnt = r - b->nhalf;
			continue;
		}
		if (r == b->nhalf && b->kind == NTRACE_IK_TRAP) {
			/* a trap counted as retired (dec_trap_counted()): only
			 * a message with its target can end there; any other
			 * reports it (dec_end_insn()) */
			if (!final)
				return W_PAUSE;
			*endp = b;
			s->icnt = 0;
			return W_AT_END;
		}
		if (r == b->nhalf && b->kind != NTRACE_IK_INVALID) {
			if (final) {
				*endp = b;
				s->icnt = 0;	/* the caller takes the block */
				return W_AT_END;
			}
			rc = pass_end(d, s, b, false, false, &next, &kind, &flags);
			if (rc)
				return rc < 0 ? W_ERROR : W_PAUSE;
			after_pass(d, s, b, next, kind, flags);
			s->icnt = 0;
			return W_PAUSE;
		}
		/* the I-CNT ends inside this block */
		{
			uint32_t usable = b->nhalf, n;
			uint64_t last;

			if (b->kind == NTRACE_IK_TRAP || b->kind == NTRACE_IK_INVALID)
				usable -= b->lhalf;
			if (r > usable) {
				dec_error(d, s, "I-CNT runs into the %s instruction at 0x%" PRIx64
					  ", which cannot retire", ntrace_ikind_name(b->kind),
					  b->last);
				return W_ERROR;
			}
			if (dec_block_prefix(d, b, (uint32_t)r, &n, &last)) {
				dec_error(d, s, "I-CNT ends inside an instruction (%" PRIu64
					  " half-words from 0x%" PRIx64 ")", r, s->pc);
				return W_ERROR;
			}
			dec_run_add(s, s->pc, n, last);
			s->pc += 2 * r;
			s->icnt = 0;
			return final ? W_DONE : W_PAUSE;
		}
	}
}
