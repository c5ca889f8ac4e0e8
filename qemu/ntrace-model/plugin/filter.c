// SPDX-License-Identifier: GPL-2.0-only
/*
 * Instruction trace filters (trTeFilter<i>) and address comparators
 * (trTeComp<j>) of the Trace Control Interface. Enabled filters selected
 * in trTeInstFilters are ORed; the conditions inside one filter are ANDed.
 * Implemented conditions: privilege and up to three comparators on the
 * instruction address (iaddr). Ecause/interrupt/impdef/data matching is
 * not implemented (those control bits read 0).
 */
#include "model.h"
#include "../../../include/uapi/linux/ntrace_tci.h"

static bool cmp_fn(unsigned int fn, uint64_t in, uint64_t v)
{
	switch (fn) {
	case 0: return in == v;
	case 1: return in != v;
	case 2: return in < v;
	case 3: return in <= v;
	case 4: return in > v;
	case 5: return in >= v;
	case 6: return false;	/* primary: never; secondary: mask (below) */
	default: return true;
	}
}

static bool comparator(struct comparator *k, uint64_t addr)
{
	unsigned int pf = TCI_GET(k->control, CMP_P_FUNC);
	unsigned int sf = TCI_GET(k->control, CMP_S_FUNC);
	unsigned int mode = TCI_GET(k->control, CMP_MATCH_MODE);
	bool p, s;

	if (sf == 6) {
		/* secondary function 6: SMatch masks the primary compare */
		p = cmp_fn(pf, addr & k->smatch, k->pmatch & k->smatch);
		s = true;
	} else {
		p = cmp_fn(pf, addr, k->pmatch);
		s = cmp_fn(sf, addr, k->smatch);
	}
	switch (mode) {
	case 0: return p;
	case 1: return p && s;
	case 2: return !(p && s);
	default: {
		/* set on primary, held up to and including the secondary match */
		bool out;

		if (p || (pf == 6 && !k->latch))
			k->latch = true;
		out = k->latch;
		if (s && k->latch)
			k->latch = false;
		return out;
	}
	}
}

bool filter_match(struct hart *h, uint64_t addr, uint8_t priv)
{
	struct encoder *te = &h->te;
	unsigned int i;

	if (!te->inst_filters)
		return true;
	for (i = 0; i < MODEL_NFILTERS; i++) {
		struct filter *f = &te->flt[i];
		bool ok = true;

		if (!(te->inst_filters & (1u << i)) || !(f->control & TCI_FLT_ENABLE))
			continue;
		if (f->control & TCI_FLT_MATCH_PRIV)
			ok = ok && (f->match_inst >> (priv & 7) & 1);
		if (f->control & TCI_FLT_MATCH_COMP1)
			ok = ok && comparator(&te->cmp[TCI_GET(f->control, FLT_COMP1)], addr);
		if (f->control & TCI_FLT_MATCH_COMP2)
			ok = ok && comparator(&te->cmp[TCI_GET(f->control, FLT_COMP2)], addr);
		if (f->control & TCI_FLT_MATCH_COMP3)
			ok = ok && comparator(&te->cmp[TCI_GET(f->control, FLT_COMP3)], addr);
		if (ok)
			return true;
	}
	return false;
}
