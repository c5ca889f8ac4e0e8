// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Walk memo: what an indirect branch message did, by (pc, its bytes).
 * Compiled programs repeat their paths: the same loop body, the same call
 * from the same place. When a source starts a message with nothing pending
 * (no I-CNT or HIST left, no open run), the message's walk depends only on
 * where it starts, its I-CNT and its HIST, and on the return addresses it
 * pops that were pushed before it (implicit returns from callers outside
 * the message). So a walk with no error or event, whose runs all went to
 * the run buffer, is kept: its runs (the last one's target is the
 * message's), its return-stack operations in order (dec_rs_push/pop/drop
 * note them), its counts, and the older return addresses it used, which
 * must be on top of the stack again for a replay. Replaying is a copy.
 * The key is the message's bytes, not its fields: no cut is needed to
 * find it (the address field, also in the bytes, makes a walk that ends
 * in several places several entries). The image epoch is part of the key:
 * new images, new walks.
 */
#include <stdlib.h>
#include <string.h>

#include "dec_internal.h"
#include "msg_cut.h"

struct dec_memo {
	uint64_t pc, word;	/* key; word 0 (no end of message) never comes: empty */
	uint64_t addr;		/* the message's address field value */
	uint32_t epoch;
	uint8_t nruns, nops, nneed;
	uint8_t npop;		/* entries from before the walk it popped or dropped */
	uint16_t taken, indirect, implicit;
	uint8_t keep;		/* bit i: the push op[i] is still on the stack at the end */
	uint8_t rise;		/* how far above its start the stack went */
	uint64_t insns;
	uint64_t need[DEC_MEMO_NEED];	/* the stack's newest entries it used, newest first */
	struct ntrace_dec_run run[DEC_MEMO_RUNS];	/* time, privilege and SRC zero */
	uint64_t op[DEC_MEMO_OPS];	/* return stack: push of an address (even), or 1: pop */
};

_Static_assert(DEC_MEMO_OPS <= 8, "struct dec_memo's keep has a bit per operation");

struct dec_memo *dec_memo_new(void)
{
	return dec_table_new(((size_t)1 << DEC_MEMO_BITS) * sizeof(struct dec_memo));
}

void dec_memo_free(struct dec_memo *memo)
{
	dec_table_free(memo, ((size_t)1 << DEC_MEMO_BITS) * sizeof(struct dec_memo));
}

void dec_memo_clear(struct ntrace_decoder *d)
{
	if (d->memo)
		memset(d->memo, 0, ((size_t)1 << DEC_MEMO_BITS) * sizeof(*d->memo));
}

static struct dec_memo *slot(struct ntrace_decoder *d, uint64_t pc, uint64_t word)
{
	uint64_t h = (pc ^ word * 0x9E3779B97F4A7C15ull) * 0xD6E8FEB86659FD93ull;

	return &d->memo[h >> (64 - DEC_MEMO_BITS)];
}

static inline const struct dec_memo *find(struct ntrace_decoder *d, const struct dec_src *s,
					  uint64_t word)
{
	const struct dec_memo *e = slot(d, s->pc, word);
	unsigned int i;

	if (e->word != word || e->pc != s->pc || e->epoch != d->epoch || s->rs_len < e->nneed)
		return NULL;
	for (i = 0; i < e->nneed; i++)
		if (s->rs[(s->rs_top - 1 - i) & DEC_RS_MASK] != e->need[i])
			return NULL;
	return e;
}

/* Inline in dec_memo_run(), where it is most of the work. */
static inline __attribute__((always_inline)) void replay(struct ntrace_decoder *d,
							  struct dec_src *s,
							  const struct dec_memo *e)
{
	unsigned int i, n;
	struct ntrace_dec_run *o;
	uint64_t target;

	target = ntrace_addr_from_uaddr(e->addr, s->ref_addr, d->xlen);
	s->ref_addr = target;
	n = e->nruns;
	if (!d->ops.runs) {
		/* nobody takes runs (counts only): a replay's are never read */
		d->st.insns += e->insns;
		d->st.runs += n;
	} else if (__builtin_expect(d->nruns + n > DEC_RUNBUF, 0)) {
		/* flush where dec_emit_run() would */
		for (i = 0; i < n; i++)
			dec_emit_run(d, s, e->run[i].start, e->run[i].ninsn, e->run[i].last,
				     i + 1 < n ? e->run[i].to : target, e->run[i].kind,
				     e->run[i].flags);
	} else {
		const uint64_t ts = s->ts;	/* locals: the stores below may alias s */
		const uint8_t priv = s->priv;
		const uint16_t src = s->id;

		o = &d->runs[d->nruns];
		for (i = 0; i < n; i++) {
			o[i] = e->run[i];
			o[i].tstamp = ts;
			o[i].priv = priv;
			o[i].src = src;
		}
		o[n - 1].to = target;
		d->nruns += n;
		d->st.insns += e->insns;
		d->st.runs += n;
	}
	if (s->rs_len >= e->npop && s->rs_len + e->rise <= s->rs_cap) {
		/* neither empty nor full on the way: the net effect will do,
		 * the pops of older entries, then the pushes that stay */
		uint32_t top = s->rs_top - e->npop, len = s->rs_len - e->npop;
		unsigned int keep;

		for (keep = e->keep; keep; keep &= keep - 1, top++, len++)
			s->rs[top & DEC_RS_MASK] = e->op[__builtin_ctz(keep)];
		s->rs_top = top & DEC_RS_MASK;
		s->rs_len = len;
	} else {
		for (i = 0; i < e->nops; i++) {
			uint64_t op = e->op[i];

			if (!(op & 1)) {
				s->rs[s->rs_top] = op;	/* dec_rs_push() */
				s->rs_top = (s->rs_top + 1) & DEC_RS_MASK;
				if (s->rs_len < s->rs_cap)
					s->rs_len++;
			} else if (s->rs_len) {		/* dec_rs_pop() */
				s->rs_top = (s->rs_top - 1) & DEC_RS_MASK;
				s->rs_len--;
			}
		}
	}
	d->st.taken += e->taken;
	d->st.indirect += e->indirect;
	d->st.implicit_returns += e->implicit;
	s->pc = target;
}

const struct dec_memo *dec_memo_find(struct ntrace_decoder *d, const struct dec_src *s,
				     uint64_t word)
{
	return find(d, s, word);
}

void dec_memo_replay(struct ntrace_decoder *d, struct dec_src *s, const struct dec_memo *e)
{
	replay(d, s, e);
}

/*
 * After a replay nothing is pending (the walks kept end so), so the next
 * message's walk can be looked up at once: this loop replays a run of
 * known messages without dec_fast()'s checks of each one.
 */
size_t dec_memo_run(struct ntrace_decoder *d, struct dec_src *s, const uint8_t *buf, size_t len)
{
	uint64_t word = 0, off = 0;
	size_t i = 0;

	while (len - i >= 8 && !d->stopped) {
		const struct dec_memo *e;
		unsigned int k;
		uint64_t w = msg_word(buf + i, &k);

		if (!w || !(e = find(d, s, w)))
			break;
		/* as dec_fast() takes a message */
		d->st.messages++;
		d->st.tcode[(w >> 2) & 63]++;
		replay(d, s, e);
		word = w;
		off = d->parser.pos;
		d->parser.pos += k;
		i += k;
	}
	if (i) {	/* the last message is the one a RepeatBranch repeats */
		s->prev_word = word;
		s->prev_off = off;
		s->prev_fast = true;
		s->prev_valid = s->synced;
	}
	return i;
}

void dec_memo_start(struct ntrace_decoder *d, struct dec_src *s, struct dec_memo_rec *r)
{
	unsigned int i;

	r->nruns = d->nruns;
	r->runs = d->st.runs;
	r->taken = d->st.taken;
	r->indirect = d->st.indirect;
	r->implicit = d->st.implicit_returns;
	r->other = d->st.traps + d->st.errors + d->nevents;
	r->rs_len = s->rs_len;
	for (i = 0; i < DEC_MEMO_NEED && i < s->rs_len; i++)
		r->top[i] = s->rs[(s->rs_top - 1 - i) & DEC_RS_MASK];
	s->rs_log = r->op;
	s->rs_nlog = 0;
}

void dec_memo_stop(struct ntrace_decoder *d, struct dec_src *s, const struct dec_memo_rec *r,
		   uint64_t pc, uint64_t word, uint64_t addr, uint64_t target, int rc)
{
	uint64_t n = d->st.runs - r->runs;
	unsigned int i, level = 0, old = 0, nneed = 0, rise = 0, keep = 0;
	uint8_t live[DEC_MEMO_OPS];	/* the pushes not popped yet, by their index */
	struct dec_memo *e;

	s->rs_log = NULL;
	if (s->rs_nlog > DEC_MEMO_OPS)
		return;
	/* which entries from before the walk it popped, and used; how high
	 * the stack went; which pushes stay */
	for (i = 0; i < s->rs_nlog; i++) {
		if (!(r->op[i] & 1)) {
			live[level++] = (uint8_t)i;
			if (level - old > rise)
				rise = level - old;
		} else if (level) {
			level--;
		} else {
			if (r->op[i] == DEC_RS_POP) {
				if (old >= DEC_MEMO_NEED || old >= r->rs_len)
					return;
				nneed = old + 1;
			}
			old++;
		}
	}
	if (rc || d->stopped || !s->synced || !n || n > DEC_MEMO_RUNS ||
	    d->nruns != r->nruns + n || d->st.traps + d->st.errors + d->nevents != r->other ||
	    d->st.taken - r->taken > UINT16_MAX || d->st.indirect - r->indirect > UINT16_MAX ||
	    d->st.implicit_returns - r->implicit > UINT16_MAX ||
	    s->icnt || s->hn || s->hq_len || s->run_open || s->pc != target ||
	    d->runs[d->nruns - 1].to != target)
		return;
	for (i = 0; i < level; i++)
		keep |= 1u << live[i];
	e = slot(d, pc, word);
	e->pc = pc;
	e->npop = (uint8_t)old;
	e->keep = (uint8_t)keep;
	e->rise = (uint8_t)rise;
	e->word = word;
	e->addr = addr;
	e->epoch = d->epoch;
	e->nruns = (uint8_t)n;
	e->nops = (uint8_t)s->rs_nlog;
	e->taken = (uint16_t)(d->st.taken - r->taken);
	e->indirect = (uint16_t)(d->st.indirect - r->indirect);
	e->implicit = (uint16_t)(d->st.implicit_returns - r->implicit);
	e->nneed = (uint8_t)nneed;
	for (i = 0; i < nneed; i++)
		e->need[i] = r->top[i];
	e->insns = 0;
	for (i = 0; i < n; i++) {
		e->run[i] = d->runs[r->nruns + i];
		e->run[i].tstamp = 0;
		e->run[i].priv = 0;
		e->run[i].src = 0;
		e->insns += e->run[i].ninsn;
	}
	for (i = 0; i < e->nops; i++)
		e->op[i] = r->op[i];
}
