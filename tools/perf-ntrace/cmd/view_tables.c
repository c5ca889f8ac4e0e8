// SPDX-License-Identifier: GPL-2.0-only
/*
 * The views' tables: interned symbol names, the tree of call-site stacks
 * with instruction counts, and a return address -> depth map. Open
 * addressing, grown at half full; every table is as large as the distinct
 * names, stacks or call sites of the trace, never as the trace.
 */
#include <stdlib.h>
#include <string.h>

#include "view_internal.h"

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static uint32_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (uint32_t)x;
}

/* A table of ids + 1 twice as large; rehash with key(id). */
static int regrow(uint32_t **slot, uint32_t *nslot, uint32_t n, void *ctx,
		  uint32_t (*key)(void *ctx, uint32_t id))
{
	uint32_t ns = *nslot ? *nslot * 2 : 1024, i, *s = calloc(ns, sizeof(*s));

	if (!s)
		return -1;
	for (i = 0; i < n; i++) {
		uint32_t j = key(ctx, i) & (ns - 1);

		while (s[j])
			j = (j + 1) & (ns - 1);
		s[j] = i + 1;
	}
	free(*slot);
	*slot = s;
	*nslot = ns;
	return 0;
}

static uint32_t sym_key(void *ctx, uint32_t id)
{
	return hash_str(((struct vsyms *)ctx)->name[id]);
}

uint32_t vsyms_intern(struct vsyms *s, const char *name)
{
	uint32_t j, id;

	if (2 * (s->n + 1) > s->nslot && regrow(&s->slot, &s->nslot, s->n, s, sym_key))
		return VSYM_NONE;
	for (j = hash_str(name) & (s->nslot - 1); s->slot[j]; j = (j + 1) & (s->nslot - 1))
		if (!strcmp(s->name[s->slot[j] - 1], name))
			return s->slot[j] - 1;
	if (s->n == s->cap) {
		uint32_t nc = s->cap ? s->cap * 2 : 256;
		char **p = realloc(s->name, nc * sizeof(*p));

		if (!p)
			return VSYM_NONE;
		s->name = p;
		s->cap = nc;
	}
	id = s->n;
	s->name[id] = strdup(name);
	if (!s->name[id])
		return VSYM_NONE;
	s->n++;
	s->slot[j] = id + 1;
	return id;
}

void vsyms_free(struct vsyms *s)
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		free(s->name[i]);
	free(s->name);
	free(s->slot);
	memset(s, 0, sizeof(*s));
}

static uint32_t node_hash(uint32_t parent, uint32_t sym)
{
	return hash_u64((uint64_t)parent << 32 | sym);
}

static uint32_t node_key(void *ctx, uint32_t id)
{
	const struct vnode *n = &((struct vtree *)ctx)->node[id];

	return node_hash(n->parent, n->sym);
}

int vtree_init(struct vtree *t)
{
	memset(t, 0, sizeof(*t));
	t->node = calloc(256, sizeof(*t->node));
	if (!t->node)
		return -1;
	t->cap = 256;
	t->n = 1;
	t->node[0].parent = VSYM_NONE;
	t->node[0].sym = VSYM_NONE;
	return 0;
}

uint32_t vtree_child(struct vtree *t, uint32_t parent, uint32_t sym)
{
	uint32_t j, id;
	struct vnode *p;

	if (2 * (t->n + 1) > t->nslot && regrow(&t->slot, &t->nslot, t->n, t, node_key))
		return VSYM_NONE;
	for (j = node_hash(parent, sym) & (t->nslot - 1); t->slot[j]; j = (j + 1) & (t->nslot - 1)) {
		p = &t->node[t->slot[j] - 1];
		if (p->parent == parent && p->sym == sym)
			return t->slot[j] - 1;
	}
	if (t->n == t->cap) {
		struct vnode *nn = realloc(t->node, 2 * t->cap * sizeof(*nn));

		if (!nn)
			return VSYM_NONE;
		t->node = nn;
		t->cap *= 2;
	}
	id = t->n++;
	p = &t->node[id];
	memset(p, 0, sizeof(*p));
	p->parent = parent;
	p->sym = sym;
	p->next = t->node[parent].child;
	t->node[parent].child = id;
	t->slot[j] = id + 1;
	return id;
}

/* Children are always created after their parent: one backward pass. */
void vtree_totals(struct vtree *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		t->node[i].total = t->node[i].self;
	for (i = t->n; i-- > 1;)
		t->node[t->node[i].parent].total += t->node[i].total;
}

void vtree_free(struct vtree *t)
{
	free(t->node);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

uint32_t vmap_get(const struct vmap *m, uint64_t key)
{
	uint32_t j;

	if (!m->nslot)
		return 0;
	for (j = hash_u64(key) & (m->nslot - 1); m->val[j]; j = (j + 1) & (m->nslot - 1))
		if (m->key[j] == key)
			return m->val[j];
	return 0;
}

int vmap_put(struct vmap *m, uint64_t key, uint32_t val)
{
	uint32_t j;

	if (2 * (m->n + 1) > m->nslot) {
		struct vmap g = { .nslot = m->nslot ? m->nslot * 2 : 256 };

		g.key = calloc(g.nslot, sizeof(*g.key));
		g.val = calloc(g.nslot, sizeof(*g.val));
		if (!g.key || !g.val) {
			vmap_free(&g);
			return -1;
		}
		for (j = 0; j < m->nslot; j++)
			if (m->val[j])
				vmap_put(&g, m->key[j], m->val[j]);
		vmap_free(m);
		*m = g;
	}
	for (j = hash_u64(key) & (m->nslot - 1); m->val[j]; j = (j + 1) & (m->nslot - 1))
		if (m->key[j] == key) {
			m->val[j] = val;
			return 0;
		}
	m->key[j] = key;
	m->val[j] = val;
	m->n++;
	return 0;
}

void vmap_free(struct vmap *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}
