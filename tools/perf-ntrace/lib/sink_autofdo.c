// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The AutoFDO sink: exact range and branch counts of a decoded trace, per
 * image file, written as the "unsymbolized profile" llvm-profgen reads
 * (llvm-profgen --unsymbolized-profile=FILE --binary=IMAGE):
 *
 *   NRANGES
 *   START-END:COUNT      (END: the range's last instruction)
 *   ...
 *   NBRANCHES
 *   FROM->TO:COUNT
 *   ...
 *
 * Addresses are hexadecimal without "0x", as offsets from the image's text
 * base (ntrace_images_where()); counts are decimal. AutoFDO's own text
 * profile (create_gcov and create_llvm_prof --profiler=text) is the same
 * with a third, empty section of single addresses between the two. A sampled branch stack
 * gives ranges between its branches; a trace gives every run, so every
 * retired instruction is counted once and every taken transfer once.
 * Traps and trap returns are left out: their other end is not the image's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dec_internal.h"
#include "sink_autofdo.h"

/* One counted pair: a range (a = first, b = last instruction) or a
 * branch (a = from, b = to), link addresses of image img. */
struct afdo_ent {
	uint64_t a, b, count;
	uint32_t img;		/* index in names[]; UINT32_MAX: empty slot */
};

struct afdo_tab {
	struct afdo_ent *e;
	size_t n, cap;		/* used slots, slots (a power of two) */
};

/* Per-call cache of image ids to name indexes (ids are only stable while
 * the images do not change, i.e. during one runs call). */
#define IDCACHE 8

struct ntrace_afdo {
	struct afdo_tab ranges, branches;
	char **names;			/* image file names, interned */
	uint64_t *insns;		/* instructions counted per image */
	uint64_t *text_base;		/* per image */
	size_t nnames;
	const void *cache_id[IDCACHE];
	uint32_t cache_idx[IDCACHE];
	unsigned int ncache;
	uint64_t outside;		/* instructions in no image */
};

static uint64_t mix(uint64_t a, uint64_t b, uint32_t img)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + img) * 0xc2b2ae3d27d4eb4full;

	return h ^ (h >> 29);
}

static int tab_grow(struct afdo_tab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 4096, i;
	struct afdo_ent *e = malloc(cap * sizeof(*e));

	if (!e)
		return NTRACE_ENOMEM;
	for (i = 0; i < cap; i++)
		e[i].img = UINT32_MAX;
	for (i = 0; i < t->cap; i++) {
		size_t j;

		if (t->e[i].img == UINT32_MAX)
			continue;
		j = mix(t->e[i].a, t->e[i].b, t->e[i].img) & (cap - 1);
		while (e[j].img != UINT32_MAX)
			j = (j + 1) & (cap - 1);
		e[j] = t->e[i];
	}
	free(t->e);
	t->e = e;
	t->cap = cap;
	return 0;
}

static int tab_add(struct afdo_tab *t, uint32_t img, uint64_t a, uint64_t b)
{
	size_t j;

	if (2 * (t->n + 1) > t->cap && tab_grow(t))
		return NTRACE_ENOMEM;
	j = mix(a, b, img) & (t->cap - 1);
	for (;; j = (j + 1) & (t->cap - 1)) {
		struct afdo_ent *e = &t->e[j];

		if (e->img == UINT32_MAX) {
			*e = (struct afdo_ent){ a, b, 1, img };
			t->n++;
			return 0;
		}
		if (e->a == a && e->b == b && e->img == img) {
			e->count++;
			return 0;
		}
	}
}

struct ntrace_afdo *ntrace_afdo_new(void)
{
	return calloc(1, sizeof(struct ntrace_afdo));
}

void ntrace_afdo_free(struct ntrace_afdo *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nnames; i++)
		free(p->names[i]);
	free(p->names);
	free(p->insns);
	free(p->text_base);
	free(p->ranges.e);
	free(p->branches.e);
	free(p);
}

void ntrace_afdo_new_call(struct ntrace_afdo *p)
{
	p->ncache = 0;
}

/* The name index of the image with place w, interning its name. */
static int image_index(struct ntrace_afdo *p, const struct ntrace_image_place *w,
		       uint32_t *idx)
{
	unsigned int i;
	size_t k;

	for (i = 0; i < p->ncache; i++)
		if (p->cache_id[i] == w->id) {
			*idx = p->cache_idx[i];
			return 0;
		}
	for (k = 0; k < p->nnames; k++)
		if (!strcmp(p->names[k], w->image))
			break;
	if (k == p->nnames) {
		char **n = realloc(p->names, (k + 1) * sizeof(*n));
		uint64_t *c, *b;

		if (!n)
			return NTRACE_ENOMEM;
		p->names = n;
		c = realloc(p->insns, (k + 1) * sizeof(*c));
		if (!c)
			return NTRACE_ENOMEM;
		p->insns = c;
		b = realloc(p->text_base, (k + 1) * sizeof(*b));
		if (!b)
			return NTRACE_ENOMEM;
		p->text_base = b;
		n[k] = strdup(w->image);
		if (!n[k])
			return NTRACE_ENOMEM;
		c[k] = 0;
		b[k] = w->text_base;
		p->nnames++;
	}
	if (p->ncache == IDCACHE)
		p->ncache = 0;
	p->cache_id[p->ncache] = w->id;
	p->cache_idx[p->ncache++] = (uint32_t)k;
	*idx = (uint32_t)k;
	return 0;
}

static bool is_branch(unsigned int kind)
{
	return kind >= NTRACE_DK_TAKEN && kind <= NTRACE_DK_RETURN;
}

int ntrace_afdo_run(struct ntrace_afdo *p, struct ntrace_images *img,
		    const struct ntrace_dec_run *r)
{
	struct ntrace_image_place w, wt;
	uint32_t k, kt;
	int rc;

	if (!r->ninsn)
		return 0;
	if (ntrace_images_where(img, r->start, &w)) {
		p->outside += r->ninsn;
		return 0;
	}
	rc = image_index(p, &w, &k);
	if (!rc)
		rc = tab_add(&p->ranges, k, w.link, w.link + (r->last - r->start));
	if (rc)
		return rc;
	p->insns[k] += r->ninsn;
	if (!is_branch(r->kind) || ntrace_images_where(img, r->to, &wt))
		return 0;
	rc = image_index(p, &wt, &kt);
	if (rc || kt != k)	/* from one file into another: no offset pair */
		return rc;
	return tab_add(&p->branches, k, w.link + (r->last - r->start), wt.link);
}

/* Is name the file dso names: the same path, or one that ends in it at a
 * '/' (a copy of the traced system under a root directory; a base name)? */
static bool names_file(const char *name, const char *dso)
{
	size_t n = strlen(name), m = strlen(dso);

	if (m > n || strcmp(name + n - m, dso))
		return false;
	return m == n || dso[0] == '/' || name[n - m - 1] == '/';
}

int ntrace_afdo_pick(const struct ntrace_afdo *p, const char *dso, uint32_t *idx)
{
	size_t k, best = SIZE_MAX;

	for (k = 0; k < p->nnames; k++) {
		if (dso) {
			if (names_file(p->names[k], dso)) {
				best = k;
				break;
			}
		} else if (best == SIZE_MAX || p->insns[k] > p->insns[best]) {
			best = k;
		}
	}
	if (best == SIZE_MAX)
		return NTRACE_EINVAL;
	*idx = (uint32_t)best;
	return 0;
}

const char *ntrace_afdo_name(const struct ntrace_afdo *p, uint32_t idx, uint64_t *insns)
{
	if (idx >= p->nnames)
		return NULL;
	if (insns)
		*insns = p->insns[idx];
	return p->names[idx];
}

static int cmp_ent(const void *x, const void *y)
{
	const struct afdo_ent *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return 0;
}

/* The entries of image idx, sorted; *n of them (caller frees). */
static struct afdo_ent *collect(const struct afdo_tab *t, uint32_t idx, size_t *n)
{
	struct afdo_ent *v = malloc((t->n ? t->n : 1) * sizeof(*v));
	size_t i, m = 0;

	if (!v)
		return NULL;
	for (i = 0; i < t->cap; i++)
		if (t->e[i].img == idx)
			v[m++] = t->e[i];
	qsort(v, m, sizeof(*v), cmp_ent);
	*n = m;
	return v;
}

/* The largest count of image idx in t. */
static uint64_t max_count(const struct afdo_tab *t, uint32_t idx)
{
	uint64_t m = 0;
	size_t i;

	for (i = 0; i < t->cap; i++)
		if (t->e[i].img == idx && t->e[i].count > m)
			m = t->e[i].count;
	return m;
}

/* Counts are divided by div, rounding up: a range that ran stays counted. */
static int write_tab(const struct afdo_tab *t, uint32_t idx, uint64_t base, uint64_t div,
		     const char *sep, FILE *out)
{
	struct afdo_ent *v;
	size_t n, i;

	v = collect(t, idx, &n);
	if (!v)
		return NTRACE_ENOMEM;
	fprintf(out, "%zu\n", n);
	for (i = 0; i < n; i++)
		fprintf(out, "%" PRIx64 "%s%" PRIx64 ":%" PRIu64 "\n",
			v[i].a - base, sep, v[i].b - base, (v[i].count + div - 1) / div);
	free(v);
	return 0;
}

int ntrace_afdo_write(const struct ntrace_afdo *p, uint32_t idx, bool autofdo_text,
		      uint64_t max, FILE *out)
{
	uint64_t m, div = 1;
	int rc;

	if (idx >= p->nnames)
		return NTRACE_EINVAL;
	if (max) {
		m = max_count(&p->ranges, idx);
		if (max_count(&p->branches, idx) > m)
			m = max_count(&p->branches, idx);
		div = m > max ? (m + max - 1) / max : 1;
	}
	rc = write_tab(&p->ranges, idx, p->text_base[idx], div, "-", out);
	if (!rc && autofdo_text)
		fputs("0\n", out);	/* no single-address counts */
	if (!rc)
		rc = write_tab(&p->branches, idx, p->text_base[idx], div, "->", out);
	return rc;
}
