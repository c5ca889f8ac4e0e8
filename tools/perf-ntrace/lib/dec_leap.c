// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Leaps: eight HIST bits at a time, for a decode that only counts
 * (--format=stats: no run callback, no walk noted for the memo).
 *
 * From a block, the next eight HIST bits decide the next eight conditional
 * branches, and with them every block in between: the plain direct jumps
 * take no bit. What the walk would count over them (instructions,
 * halfwords of I-CNT, runs closed, jumps) and where it ends depend only on
 * the block's address, the eight bits and the code, so they are kept in a
 * table keyed by those and applied at once: one lookup where the block
 * walk does eight or more, and none of its branches on HIST bits, which
 * the host mispredicts as often as the traced program's outcomes vary.
 *
 * A leap crosses only conditional branches and plain jumps: any other
 * block (a call, a return, an indirect jump, a trap) ends it early, with
 * fewer bits used, and the walk takes that block itself. Where that leaves
 * fewer than two branches, the entry says that no leap starts there with
 * these bits, so that the walk does not try to build it again. A chain
 * meeting a block the cache does not hold is not kept: the walk fills that
 * block and the next visit builds the leap. The image epoch is part of
 * each entry, as in the block cache.
 */
#include <string.h>

#include "dec_internal.h"

/* Blocks a leap may cross: eight branches and a few jumps. A chain of
 * jumps with no branch (a loop of jumps) gives up there. */
#define LEAP_MAX_BLOCKS 24

#define LEAP_TABLE_SIZE (((size_t)1 << DEC_LEAP_BITS) * sizeof(struct dec_leap))

struct dec_leap *dec_leap_new(void)
{
	return dec_table_new(LEAP_TABLE_SIZE);
}

void dec_leap_free(struct dec_leap *t)
{
	dec_table_free(t, LEAP_TABLE_SIZE);
}

void dec_leap_clear(struct ntrace_decoder *d)
{
	if (d->leap)
		memset(d->leap, 0, LEAP_TABLE_SIZE);
}

const struct dec_leap *dec_leap_build(struct ntrace_decoder *d, uint64_t pc, uint32_t off,
				      unsigned int bits)
{
	struct dec_leap *e = dec_leap_slot(d, pc, bits), l = { .pc = pc };
	unsigned int used = 0, nblocks = 0;
	uint64_t cur = pc;

	while (used < 8) {
		const struct dec_blk *b = (const void *)((const char *)d->bc + off);

		if (b->pc != cur || b->epoch != d->epoch)
			return NULL;	/* not in the cache: not kept */
		if (++nblocks > LEAP_MAX_BLOCKS)
			break;
		if (b->kind == NTRACE_IK_BRANCH) {
			bool taken = (bits >> (7 - used++)) & 1;

			l.last = b->last;
			l.insns += b->ninsn;
			l.nhalf += b->nhalf;
			l.tail += b->ninsn;
			if (taken) {
				cur = b->target;
				off = b->toff;
				l.closes++;
				l.start = cur;
				l.tail = 0;
			} else {
				cur = b->after;
				off = b->aoff;
			}
		} else if (b->kind == NTRACE_IK_JUMP && b->itype != NTRACE_ITYPE_DIR_CALL &&
			   b->tvalid && !d->alljumps) {
			/* as the walk's plain jump: closes a run, taken */
			l.last = b->last;
			l.insns += b->ninsn;
			l.nhalf += b->nhalf;
			cur = b->target;
			off = b->toff;
			l.closes++;
			l.jumps++;
			l.start = cur;
			l.tail = 0;
		} else {
			break;
		}
	}
	if (used < 2) {	/* no leap from here with these bits */
		memset(e, 0, sizeof(*e));
		e->pc = pc;
		e->tag = dec_leap_tag(d->epoch, bits, false);
		return e;
	}
	l.to = cur;
	l.toff = off;
	l.nbits = (uint8_t)used;
	l.tag = dec_leap_tag(d->epoch, bits, true);
	*e = l;
	return e;
}
