// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Views of an image set for other threads (image_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "image_internal.h"

struct ntrace_images *ntrace_img_share(struct ntrace_images *set, int *rc)
{
	struct ntrace_images *v;
	size_t i;

	*rc = NTRACE_IMG_EINVAL;
	if (set->fetch)
		return NULL;
	/* a table that cannot be built fails again in each view, writing
	 * only the view's error text; out of memory fails here */
	for (i = 0; i < set->nregs; i++)
		if (set->regs[i].exec && !set->regs[i].tab &&
		    ntrace_img_build_table(set, &set->regs[i]) == NTRACE_IMG_ENOMEM) {
			*rc = NTRACE_IMG_ENOMEM;
			return NULL;
		}
	v = malloc(sizeof(*v));
	if (!v) {
		*rc = NTRACE_IMG_ENOMEM;
		return NULL;
	}
	memcpy(v, set, sizeof(*v));
	v->shared = 1;
	v->hit = 0;
	ntrace_err_clear(&v->err);
	*rc = 0;
	return v;
}
