// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Ingress builder: retired instructions and trap marks -> ntrace_insn.
 * A record is completed only when its successor is known (that decides
 * taken/not-taken and whether a trap follows), and delivered one record
 * late so the final one can carry TRACE_STOP.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "err_internal.h"
#include "ntrace/ingress_build.h"

struct ntrace_builder {
	struct ntrace_ingress_opts o;
	ntrace_insn_fn fn;
	void *arg;
	struct ntrace_insn pend;	/* retired, successor not yet known */
	struct ntrace_idec pend_d;
	int have_pend;
	struct ntrace_insn held;	/* complete, not yet delivered */
	int have_held;
	int started;
	uint64_t seq;
	size_t count, unmarked;
	struct ntrace_errbuf err;	/* the last failure, or the first unmarked
					 * discontinuity */
};

struct ntrace_builder *ntrace_builder_new(const struct ntrace_ingress_opts *o,
					  ntrace_insn_fn fn, void *arg)
{
	struct ntrace_builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	if (o)
		b->o = *o;
	b->fn = fn;
	b->arg = arg;
	return b;
}

void ntrace_builder_free(struct ntrace_builder *b)
{
	free(b);
}

size_t ntrace_builder_count(const struct ntrace_builder *b)
{
	return b->count;
}

size_t ntrace_builder_unmarked(const struct ntrace_builder *b)
{
	return b->unmarked;
}

const char *ntrace_builder_errmsg(const struct ntrace_builder *b)
{
	return ntrace_err_msg(&b->err);
}

/* Hand the held record to the consumer; its failure is returned as is. */
static int consume(struct ntrace_builder *b)
{
	int rc = b->fn(b->arg, &b->held);

	if (rc)
		ntrace_err_set(&b->err, rc, "record consumer failed (%d: %s)", rc,
			       ntrace_errstr(rc));
	return rc;
}

static int deliver(struct ntrace_builder *b, const struct ntrace_insn *in)
{
	int rc = 0;

	if (b->have_held)
		rc = consume(b);
	b->held = *in;
	b->have_held = 1;
	b->count++;
	return rc;
}

static struct ntrace_insn record(struct ntrace_builder *b, uint64_t addr,
				 unsigned int size, uint8_t priv)
{
	struct ntrace_insn in = { 0 };

	in.addr = addr;
	in.size = (uint8_t)size;
	in.priv = priv;
	in.context = b->o.context;
	in.tstamp = b->seq;
	if (!b->started)
		in.flags |= NTRACE_INSN_TRACE_START;
	b->started = 1;
	return in;
}

/* itype of the pending record given its successor; 0xff if inconsistent. */
static uint8_t successor_itype(const struct ntrace_builder *b, uint64_t next)
{
	const struct ntrace_idec *d = &b->pend_d;

	if (ntrace_isa_may_follow(d, b->pend.addr, next) == NTRACE_FOLLOW_NO)
		return 0xff;
	/* a run-time target (table jump, indirect, trap return) may be anything */
	return ntrace_isa_itype(d, next == b->pend.addr + (uint64_t)(int64_t)d->off);
}

/* Complete the pending record with its successor and deliver it. */
static int complete(struct ntrace_builder *b, uint64_t next)
{
	uint8_t it = successor_itype(b, next);

	if (it == 0xff) {
		/* a discontinuity nobody marked: report it as an exception */
		b->unmarked++;
		if (b->unmarked == 1)
			ntrace_err_set(&b->err, NTRACE_EBADINPUT,
				       "unmarked discontinuity: %s at 0x%" PRIx64
				       " followed by 0x%" PRIx64, ntrace_ikind_name(b->pend_d.kind),
				       b->pend.addr, next);
		it = NTRACE_ITYPE_EXCEPTION;
	}
	b->pend.itype = it;
	b->have_pend = 0;
	return deliver(b, &b->pend);
}

int ntrace_builder_insn(struct ntrace_builder *b, uint64_t pc,
			const struct ntrace_idec *d, uint8_t priv)
{
	int rc;

	if (d->kind == NTRACE_IK_TRAP)
		return ntrace_err_set(&b->err, NTRACE_EBADINPUT,
				      "trapping instruction (ECALL/EBREAK) at 0x%" PRIx64
				      " recorded as retired", pc);
	if (b->have_pend) {
		rc = complete(b, pc);
		if (rc)
			return rc;
	}
	b->pend = record(b, pc, d->size, priv);
	b->pend_d = *d;
	b->have_pend = 1;
	b->seq++;
	return 0;
}

int ntrace_builder_trap(struct ntrace_builder *b, uint64_t epc, uint64_t cause,
			uint64_t tval, int has_cause, uint8_t priv)
{
	uint8_t it = (cause & NTRACE_CAUSE_INTERRUPT) ? NTRACE_ITYPE_INTERRUPT : NTRACE_ITYPE_EXCEPTION;
	struct ntrace_insn *t;
	struct ntrace_insn z;
	int rc;

	if (b->have_pend && b->pend_d.kind == NTRACE_IK_NONE &&
	    epc == b->pend.addr + b->pend.size) {
		t = &b->pend;	/* the trap goes on a plain instruction */
		b->have_pend = 0;
	} else {
		if (b->have_pend) {
			rc = complete(b, epc);
			if (rc)
				return rc;
		}
		z = record(b, epc, 0, priv);
		t = &z;
	}
	t->itype = it;
	if (has_cause) {
		t->cause = cause;
		t->tval = tval;
		t->flags |= NTRACE_INSN_CAUSE_VALID;
	}
	return deliver(b, t);
}

int ntrace_builder_finish(struct ntrace_builder *b)
{
	int rc = 0;

	if (b->have_pend) {
		/* no successor: a branch counts as not taken */
		b->pend.itype = ntrace_isa_itype(&b->pend_d, 0);
		b->have_pend = 0;
		rc = deliver(b, &b->pend);
		if (rc)
			return rc;
	}
	if (b->have_held) {
		b->held.flags |= NTRACE_INSN_TRACE_STOP;
		rc = consume(b);
		b->have_held = 0;
	}
	return rc;
}

int ntrace_insn_vec_push(void *vec, const struct ntrace_insn *in)
{
	struct ntrace_insn_vec *v = vec;

	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 4096;
		struct ntrace_insn *nv = realloc(v->v, cap * sizeof(*nv));

		if (!nv)
			return NTRACE_ENOMEM;
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = *in;
	return 0;
}

void ntrace_insn_vec_free(struct ntrace_insn_vec *vec)
{
	free(vec->v);
	memset(vec, 0, sizeof(*vec));
}
