// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Pre-decoded per-halfword table of an executable region (see image.h).
 * One backward pass: an entry that does not end a block inherits the
 * block end of the instruction that follows it.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "image_internal.h"

int ntrace_img_build_table(struct ntrace_images *set, struct ntrace_region *r)
{
	uint64_t len = r->end - r->start;
	uint64_t n = len / 2, h;
	struct ntrace_hw *tab;

	if (r->start & 1)
		return ntrace_err_set(&set->err, NTRACE_IMG_EINVAL,
			"%s: executable region at odd address 0x%" PRIx64,
			r->img->name, r->start);
	if (n == 0 || n > UINT32_MAX)
		return ntrace_err_set(&set->err, NTRACE_IMG_EINVAL,
			"%s: executable region [0x%" PRIx64 ", 0x%" PRIx64
			") is too small or too large to decode", r->img->name,
			r->start, r->end);
	tab = malloc(n * sizeof(*tab));
	if (!tab)
		return ntrace_err_set(&set->err, NTRACE_IMG_ENOMEM,
				      "%s: out of memory for the decode table",
				      r->img->name);
	for (h = n; h-- > 0;) {
		struct ntrace_hw *e = &tab[h];
		uint64_t next;

		ntrace_isa_decode_bytes(r->bytes + 2 * h, len - 2 * h, &set->cfg, &e->d);
		next = h + e->d.size / 2;
		if (ntrace_isa_ends_block(&e->d) || next >= n) {
			e->last = (uint32_t)h;
			e->ninsn = 1;
		} else {
			e->last = tab[next].last;
			e->ninsn = tab[next].ninsn + 1;
		}
	}
	r->tab = tab;
	r->ntab = n;
	return 0;
}
