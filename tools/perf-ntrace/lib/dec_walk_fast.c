// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The hot loop of the walk: blocks ending in a conditional branch whose
 * outcome is known (a HIST bit in HTM, not taken in BTM), a direct jump or
 * an implicit return, well inside the I-CNT. Anything else returns to the
 * general loop (dec_walk()), which goes on from where this one stopped.
 *
 * Most of a compiled program's blocks end in a branch, and with merged
 * not-taken branches most of those close no run, so that path is the one
 * kept short. The open run's start, length and last block are locals, put
 * in the run buffer only when it closes: adding to a run in memory made
 * each block wait for the store of the one before. The taken branches are
 * counted from the HIST bits used, afterwards. The loop is bound by its
 * chain of loads (an entry gives the next one's offset), so the offsets
 * are kept in bytes and the branch on the HIST bit stays a branch: a
 * conditional move there would make each lookup wait for the bit, where
 * the host's prediction lets it run ahead (measured: 23 % slower).
 *
 * A walk that only counts (--format=stats) leaps: eight HIST bits and the
 * blocks they decide at once, from a table (dec_leap.c), where it can.
 */
#include <stddef.h>
#include <string.h>

#include "dec_internal.h"

/*
 * The runs closed by the loop, d->runs[d->nruns] up to end: counted in
 * the decoder's totals and added to the buffer (their instructions are
 * counted as they close).
 */
static inline void tally(struct ntrace_decoder *d, const struct ntrace_dec_run *end)
{
	d->st.runs += (uint64_t)(end - &d->runs[d->nruns]);
	d->nruns = (uint32_t)(end - d->runs);
}

/*
 * A run closes while the buffer is full: hand the buffer over first, as
 * dec_emit_run() does, and go on at its start.
 */
static struct ntrace_dec_run *flush_full(struct ntrace_decoder *d)
{
	tally(d, &d->runs[DEC_RUNBUF]);
	dec_flush(d);
	return d->runs;
}

/* The HIST bits ready to use (struct dec_src's hw and hn). */
struct ready {
	uint64_t hw;
	uint32_t hn;
};

/*
 * Every ready bit was used and the backlog has more: count the taken
 * branches of the used word (see the end of walk()) and refill it here,
 * rather than going back to the general loop for it.
 */
static __attribute__((noinline)) struct ready refill(struct ntrace_decoder *d, struct dec_src *s)
{
	if (s->hn)
		d->st.taken += (uint64_t)dec_popcount(s->hw >> (64 - s->hn));
	s->hw = 0;
	s->hn = 0;
	dec_hist_refill(s);
	return (struct ready){ s->hw, s->hn };
}

/* Where a block other than a conditional branch went, and its run's flags. */
struct hop {
	uint64_t to;
	unsigned int flags;
};

/*
 * A block ending in a direct jump or call, or in a return the stack
 * resolves: the run's kind, with h (counted and the stack changed); -1
 * when the general walk must take it (--all-jumps, a target the image does
 * not give, an empty stack, any other instruction). Out of line, and h
 * rather than the loop's own variables, which must stay in registers.
 */
static __attribute__((noinline)) int pass_other(struct ntrace_decoder *d, struct dec_src *s,
						const struct dec_blk *b, struct hop *h)
{
	switch (b->kind) {
	case NTRACE_IK_JUMP:
	case NTRACE_IK_TABLE_JUMP:
		if (d->alljumps || !b->tvalid)
			return -1;
		h->to = b->target;
		h->flags = 0;
		d->st.taken++;
		if (b->itype != NTRACE_ITYPE_DIR_CALL)
			return NTRACE_DK_JUMP;
		if (d->iret)
			dec_rs_push(s, b->after);
		return NTRACE_DK_CALL;
	case NTRACE_IK_INDIRECT:
		if (!d->iret || b->itype != NTRACE_ITYPE_RETURN || !s->rs_len)
			return -1;
		dec_rs_pop(s, &h->to);
		h->flags = NTRACE_DRF_IMPLICIT;
		d->st.indirect++;
		d->st.implicit_returns++;
		return NTRACE_DK_RETURN;
	default:
		return -1;
	}
}

/*
 * The bytes of a run from kind to pad3 (kind, flags, priv, pad, src, pad2,
 * pad3: 12 bytes, the same for most runs) as two words, so that closing a
 * run stores them with two instructions rather than seven.
 */
struct tail {
	uint32_t meta;		/* kind, flags, priv, pad */
	uint64_t src;		/* src, pad2, pad3 */
};
_Static_assert(offsetof(struct ntrace_dec_run, flags) == offsetof(struct ntrace_dec_run, kind) + 1 &&
	       offsetof(struct ntrace_dec_run, priv) == offsetof(struct ntrace_dec_run, kind) + 2 &&
	       offsetof(struct ntrace_dec_run, pad) == offsetof(struct ntrace_dec_run, kind) + 3 &&
	       offsetof(struct ntrace_dec_run, src) == offsetof(struct ntrace_dec_run, kind) + 4 &&
	       sizeof(struct ntrace_dec_run) == offsetof(struct ntrace_dec_run, src) + 8,
	       "struct ntrace_dec_run's last 12 bytes are kind..pad3");

static inline struct tail run_tail(unsigned int kind, unsigned int flags, unsigned int priv,
				   unsigned int src)
{
	struct ntrace_dec_run t = {
		.kind = (uint8_t)kind, .flags = (uint8_t)flags, .priv = (uint8_t)priv,
		.src = (uint16_t)src,
	};
	struct tail w;

	memcpy(&w.meta, &t.kind, sizeof(w.meta));
	memcpy(&w.src, &t.src, sizeof(w.src));
	return w;
}

/*
 * The loop for one setting of HTM and merged not-taken branches (constants
 * once inlined, so each version tests neither). keep: the runs are kept
 * in the buffer; without it (no run callback and no walk being noted for
 * the memo, which reads them: --format=stats) they are only counted.
 * leap: (HTM, merged, not kept) d->leap is there: use it.
 */
static inline __attribute__((always_inline)) void walk(struct ntrace_decoder *d,
							struct dec_src *s, const bool htm,
							const bool merge, const bool keep,
							const bool leap)
{
	const struct dec_blk *bc = d->bc;
	const uint32_t epoch = d->epoch;
	const uint64_t ts = s->ts;
	const struct tail taken_tail = run_tail(NTRACE_DK_TAKEN, 0, s->priv, s->id);
	const struct tail jump_tail = run_tail(NTRACE_DK_JUMP, 0, s->priv, s->id);
	const struct ntrace_dec_run *full = &d->runs[DEC_RUNBUF];
	uint64_t pc = s->pc, r = s->icnt, hw = s->hw;
	uint32_t hn = s->hn, off = dec_bc_off(d, pc);	/* pc's entry */
	uint64_t insns = 0, runs = 0;	/* of the runs closed (runs: when not kept) */
	uint64_t jumps = 0;		/* the leaps' plain jumps */
	/* closed runs go from d->runs[d->nruns] (set at the end) to o */
	struct ntrace_dec_run *o = &d->runs[d->nruns];

	/* the open run, or an empty one (n 0) that starts at pc; lastp: its
	 * last instruction, once the loop has added a block (in the block
	 * cache, which the loop never changes, or leap_last: a later leap may
	 * build over the entry of an earlier one) */
	uint64_t start = s->run_open ? s->run_start : pc;
	uint32_t n = s->run_open ? s->run_ninsn : 0;
	const uint64_t *lastp = NULL;
	uint64_t leap_last = 0;

	for (;;) {
		const struct dec_blk *b = (const void *)((const char *)bc + off);
		struct tail t = taken_tail;

		if (leap && hn >= 8) {
			unsigned int top = (unsigned int)(hw >> 56);
			const struct dec_leap *l = dec_leap_slot(d, pc, top);
			const uint64_t want = dec_leap_tag(epoch, top, true);

			if (__builtin_expect(l->pc != pc || (l->tag | 256) != want, 0))
				l = dec_leap_build(d, pc, off, top);
			if (l && l->tag == want && r > l->nhalf) {
				hw <<= l->nbits;
				hn -= l->nbits;
				r -= l->nhalf;
				pc = l->to;
				off = l->toff;
				runs += l->closes;
				jumps += l->jumps;
				if (l->closes) {
					insns += n + l->insns - l->tail;
					n = l->tail;
					start = l->start;
				} else {
					n += l->insns;
				}
				leap_last = l->last;
				lastp = &leap_last;
				continue;
			}
		}
		if (__builtin_expect(b->pc != pc || b->epoch != epoch ||
				     r <= b->nhalf, 0))
			break;
		if (__builtin_expect(b->kind == NTRACE_IK_BRANCH, 1)) {
			bool taken = false;

			if (htm) {
				if (__builtin_expect(!hn, 0)) {
					struct ready h;

					if (!s->hq_len)
						break;
					h = refill(d, s);
					hw = h.hw;
					hn = h.hn;
				}
				taken = (int64_t)hw < 0;
				hw <<= 1;
				hn--;
			}
			n += b->ninsn;
			lastp = &b->last;
			r -= b->nhalf;
			if (taken) {
				pc = b->target;
				off = b->toff;
			} else {
				pc = b->after;
				off = b->aoff;
				if (merge)
					continue;
				t = run_tail(NTRACE_DK_NOT_TAKEN, 0, s->priv, s->id);
			}
		} else if (b->kind == NTRACE_IK_JUMP && b->itype != NTRACE_ITYPE_DIR_CALL &&
			   b->tvalid && !d->alljumps) {
			/* a plain direct jump (no stack to change): as common as
			 * calls and returns together, so not out of line */
			n += b->ninsn;
			r -= b->nhalf;
			pc = b->target;
			off = b->toff;
			d->st.taken++;
			t = jump_tail;
		} else {
			struct hop h;
			int kind = pass_other(d, s, b, &h);

			if (kind < 0)
				break;
			n += b->ninsn;
			r -= b->nhalf;
			pc = h.to;
			off = dec_bc_off(d, pc);
			t = run_tail((unsigned int)kind, h.flags, s->priv, s->id);
		}
		insns += n;
		if (!keep) {	/* only counted */
			runs++;
			start = pc;
			n = 0;
			continue;
		}
		if (__builtin_expect(o == full, 0))
			o = flush_full(d);
		o->start = start;
		o->ninsn = n;
		o->last = b->last;
		o->to = pc;
		o->tstamp = ts;
		memcpy(&o->kind, &t.meta, sizeof(t.meta));
		memcpy(&o->src, &t.src, sizeof(t.src));
		o++;
		start = pc;
		n = 0;
	}
	tally(d, o);
	d->st.runs += runs;
	d->st.insns += insns;
	d->st.taken += jumps;
	s->run_open = n != 0;
	if (s->run_open) {
		s->run_start = start;
		if (lastp)
			s->run_last = *lastp;
		s->run_ninsn = n;
	}
	/* the taken branches: the HIST bits used (since refill()) that were set */
	if (hn != s->hn)
		d->st.taken += (uint64_t)dec_popcount(s->hw >> (64 - (s->hn - hn)));
	s->pc = pc;
	s->icnt = r;
	s->hw = hw;
	s->hn = hn;
}

void dec_walk_fast(struct ntrace_decoder *d, struct dec_src *s)
{
	if (s->htm && d->merge) {	/* the usual settings */
		if (d->ops.runs || s->rs_log)
			walk(d, s, true, true, true, false);
		else if (!d->alljumps && (d->leap || (d->leap = dec_leap_new())))
			walk(d, s, true, true, false, true);	/* only counted: leaps */
		else
			walk(d, s, true, true, false, false);
	} else if (s->htm) {
		walk(d, s, true, false, true, false);
	} else if (d->merge) {
		walk(d, s, false, true, true, false);
	} else {
		walk(d, s, false, false, true, false);
	}
}
