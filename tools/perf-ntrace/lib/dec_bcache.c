// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Block cache of the flow decoder: per block start, everything the walk
 * needs about the block (length in instructions and halfwords, the kind
 * of its last instruction, its direct target, where instructions start),
 * filled from the image layer on the first visit. Direct mapped, fixed
 * size, so memory stays bounded whatever the program.
 */
#include <inttypes.h>

#include "dec_internal.h"

static int fill(struct ntrace_decoder *d, struct dec_blk *e, uint64_t pc)
{
	struct ntrace_block b;
	struct ntrace_idec id;
	uint64_t a;
	uint32_t i;
	int rc = ntrace_images_block(d->img, pc, &b);

	if (rc)
		return rc;
	if (!b.nhalf || !b.end.size)
		return NTRACE_ECORRUPT;	/* cannot happen with a sane image layer; never loop */
	e->last = b.last;
	e->nhalf = b.nhalf;
	e->ninsn = b.ninsn;
	e->kind = b.end.kind;
	e->itype = b.end.itype;
	/* SiFive v0: a co-routine swap only pushes, as an indirect call */
	if (e->itype == NTRACE_ITYPE_COSWAP && d->cfg.enc.codec.variant == NTRACE_VARIANT_SIFIVE_V0)
		e->itype = NTRACE_ITYPE_IND_CALL;
	e->lhalf = b.end.size / 2;
	e->after = b.last + b.end.size;
	e->target = b.target;
	e->tvalid = ntrace_isa_is_direct(&b.end) &&
		    (b.end.kind != NTRACE_IK_TABLE_JUMP || b.target);
	e->imask = 0;
	if (b.nhalf <= 64) {
		for (a = pc, i = 0; i < b.ninsn; i++) {
			if (ntrace_images_decode(d->img, a, &id) || !id.size)
				break;
			e->imask |= 1ull << ((a - pc) >> 1);
			a += id.size;
		}
		if (i != b.ninsn)
			e->imask = 0;	/* 0 = no mask: step through the image */
	}
	e->toff = dec_bc_off(d, e->target);
	e->aoff = dec_bc_off(d, e->after);
	e->pc = pc;
	e->epoch = d->epoch;
	return 0;
}

const struct dec_blk *dec_block_fill(struct ntrace_decoder *d, uint64_t pc)
{
	struct dec_blk *e = &d->bc[dec_bc_index(d, pc)];

	if (fill(d, e, pc)) {
		e->epoch = 0;	/* empty */
		return NULL;
	}
	return e;
}

int dec_block_peek(struct ntrace_decoder *d, uint64_t pc, struct dec_blk *tmp,
		   const struct dec_blk **bp)
{
	const struct dec_blk *e = &d->bc[dec_bc_index(d, pc)];

	if (e->pc == pc && e->epoch == d->epoch) {
		*bp = e;
		return 0;
	}
	*bp = tmp;
	return fill(d, tmp, pc);
}

int dec_block_prefix(struct ntrace_decoder *d, const struct dec_blk *b, uint32_t nh,
		     uint32_t *ninsn, uint64_t *lastp)
{
	struct ntrace_idec id;
	uint64_t pc = b->pc, a = pc, prev = 0;
	uint32_t n = 0;
	int rc;

	if (!nh) {
		*ninsn = 0;
		*lastp = 0;
		return 0;
	}
	if (b->imask) {
		uint64_t below = b->imask & ((1ull << nh) - 1);

		if (nh < 64 && !(b->imask >> nh & 1))
			return NTRACE_EBADINPUT;
		*ninsn = dec_popcount(below);
		*lastp = pc + 2 * (uint64_t)(63 - __builtin_clzll(below));
		return 0;
	}
	while (a < pc + 2 * (uint64_t)nh) {
		rc = ntrace_images_decode(d->img, a, &id);
		if (rc)
			return rc;
		if (!id.size)
			return NTRACE_ECORRUPT;	/* cannot happen: never loop */
		prev = a;
		a += id.size;
		n++;
	}
	if (a != pc + 2 * (uint64_t)nh)
		return NTRACE_EBADINPUT;
	*ninsn = n;
	*lastp = prev;
	return 0;
}

uint64_t dec_block_prev(struct ntrace_decoder *d, const struct dec_blk *b)
{
	uint32_t n;
	uint64_t prev;

	if (b->ninsn < 2)
		return 0;
	if (dec_block_prefix(d, b, b->nhalf - b->lhalf, &n, &prev))
		return 0;
	return prev;
}
