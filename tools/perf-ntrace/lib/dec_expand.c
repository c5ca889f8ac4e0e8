// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Expansion of a run into instruction addresses. A run is contiguous
 * (fall-through only), so its instructions follow from the blocks that
 * cover it: the block cache gives instruction starts as a bit mask for
 * short blocks; long blocks are stepped through the image layer. It runs
 * inside the run callback, so it reads the cache without filling it.
 */
#include "dec_internal.h"

#define BATCH 256

int ntrace_decoder_run_pcs(struct ntrace_decoder *d, const struct ntrace_dec_run *r,
			   int (*fn)(void *ctx, const uint64_t *pcs, size_t n), void *ctx)
{
	uint64_t buf[BATCH], pc = r->start;
	uint32_t left = r->ninsn;
	size_t n = 0;
	int rc;

	while (left) {
		struct dec_blk tmp;
		const struct dec_blk *b;
		uint32_t take;

		rc = dec_block_peek(d, pc, &tmp, &b);
		if (rc)
			return rc;
		take = left < b->ninsn ? left : b->ninsn;
		if (b->imask) {
			uint64_t m = b->imask;
			uint32_t i;

			for (i = 0; i < take; i++) {
				buf[n++] = pc + 2 * (uint64_t)__builtin_ctzll(m);
				m &= m - 1;
				if (n == BATCH) {
					rc = fn(ctx, buf, n);
					if (rc)
						return rc;
					n = 0;
				}
			}
			pc = m ? pc + 2 * (uint64_t)__builtin_ctzll(m)
			       : b->after;
		} else {
			struct ntrace_idec id;
			uint32_t i;

			for (i = 0; i < take; i++) {
				rc = ntrace_images_decode(d->img, pc, &id);
				if (rc)
					return rc;
				if (!id.size)
					return NTRACE_ECORRUPT;	/* cannot happen: never loop */
				buf[n++] = pc;
				pc += id.size;
				if (n == BATCH) {
					rc = fn(ctx, buf, n);
					if (rc)
						return rc;
					n = 0;
				}
			}
		}
		left -= take;
	}
	return n ? fn(ctx, buf, n) : 0;
}
