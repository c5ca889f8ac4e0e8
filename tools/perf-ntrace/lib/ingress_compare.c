// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Comparison and text form of ingress record streams (for tests). */
#include <inttypes.h>
#include <stdio.h>

#include "ntrace/ingress_build.h"

void ntrace_insn_print(FILE *f, const struct ntrace_insn *in)
{
	fprintf(f, "%016" PRIx64 " %u %-14s %u %x", in->addr, in->size,
		ntrace_itype_name(in->itype), in->priv, in->flags);
	if (in->flags & NTRACE_INSN_CAUSE_VALID)
		fprintf(f, " cause=%" PRIx64, in->cause);
	fputc('\n', f);
}

static int same(const struct ntrace_insn *a, const struct ntrace_insn *b)
{
	if (a->addr != b->addr || a->size != b->size || a->itype != b->itype ||
	    a->priv != b->priv)
		return 0;
	if ((a->flags & b->flags & NTRACE_INSN_CAUSE_VALID) && a->cause != b->cause)
		return 0;
	return 1;
}

static void describe(char *s, size_t len, const struct ntrace_insn *in)
{
	snprintf(s, len, "0x%" PRIx64 " size %u %s priv %u", in->addr, in->size,
		 ntrace_itype_name(in->itype), in->priv);
}

int ntrace_insn_compare(const struct ntrace_insn *a, size_t na,
			const struct ntrace_insn *b, size_t nb, char *msg,
			size_t msglen)
{
	char x[96], y[96];
	size_t i, n = na < nb ? na : nb;

	for (i = 0; i < n; i++) {
		if (same(&a[i], &b[i]))
			continue;
		describe(x, sizeof(x), &a[i]);
		describe(y, sizeof(y), &b[i]);
		snprintf(msg, msglen, "record %zu differs: %s vs %s", i, x, y);
		return 1;
	}
	if (na != nb) {
		snprintf(msg, msglen, "lengths differ: %zu vs %zu records (equal up to %zu)",
			 na, nb, n);
		return 1;
	}
	if (msglen)
		msg[0] = 0;
	return 0;
}
