// SPDX-License-Identifier: GPL-2.0-only
/*
 * The views' call stacks (view.h): runs of the flow decoder -> frames per
 * track (calls, returns, longjmp), instruction counts per stack, trap
 * marks, and the timestamps of the runs as anchors of the time axis.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ntrace/image.h>

#include "view_internal.h"

/*
 * Interned name of the symbol at addr; *base its address (0 if none).
 * Code no symbol covers is "[FILE]" (the image's base name) or
 * "[unknown]".
 */
static uint32_t sym_at(struct view *v, uint64_t addr, uint64_t *base)
{
	struct ntrace_images *img = ntrace_decoder_images(v->dec);
	const char *image = NULL, *name;
	uint64_t off = 0;
	uint32_t h;

	name = img ? ntrace_images_symbol(img, addr, &off, &image) : NULL;
	if (base)
		*base = name ? addr - off : 0;
	if (!name) {
		char buf[160];
		const char *slash = image ? strrchr(image, '/') : NULL;

		snprintf(buf, sizeof(buf), "[%s]", slash ? slash + 1 : image ? image : "unknown");
		return vsyms_intern(&v->syms, buf);
	}
	h = (uint32_t)(((uintptr_t)name >> 3) & 1023);
	if (v->cache_ptr[h] != name) {
		uint32_t id = vsyms_intern(&v->syms, name);

		if (id == VSYM_NONE)
			return VSYM_NONE;
		v->cache_ptr[h] = name;
		v->cache_id[h] = id;
	}
	return v->cache_id[h];
}

/* The name of a call's slice: its function, or its address without one. */
static uint32_t callee_at(struct view *v, uint64_t addr)
{
	struct ntrace_images *img = ntrace_decoder_images(v->dec);
	char buf[32];

	if (img && ntrace_images_symbol(img, addr, NULL, NULL))
		return sym_at(v, addr, NULL);
	snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
	return vsyms_intern(&v->syms, buf);
}

/* The tree node instructions of t count on now (its innermost drawn frame). */
static uint32_t top_node(const struct vtrack *t, unsigned int max_depth)
{
	uint32_t d = t->depth < max_depth ? t->depth : max_depth;

	return d ? t->st[d - 1].node : t->root;
}

/*
 * The function that code at addr belongs to in the stacks: its symbol, or
 * in code no symbol covers, the entry of the innermost open call (named
 * by its address), so a program without symbols still has its calls.
 */
static uint32_t func_at(struct view *v, const struct vtrack *t, uint64_t addr, uint64_t *base)
{
	uint64_t b;
	uint32_t s = sym_at(v, addr, &b);

	if (base)
		*base = b;
	return !b && t->depth ? t->st[t->depth - 1].name : s;
}

struct pcs_ctx {
	struct view *v;
	const struct vtrack *t;
	uint32_t node;
	int rc;
};

static int count_pcs(void *ctx, const uint64_t *pcs, size_t n)
{
	struct pcs_ctx *c = ctx;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t s = func_at(c->v, c->t, pcs[i], NULL), leaf;

		leaf = s == VSYM_NONE ? VSYM_NONE : vtree_child(&c->v->tree, c->node, s);
		if (leaf == VSYM_NONE)
			return c->rc = -1;
		c->v->tree.node[leaf].self++;
	}
	return 0;
}

/* Count a run's instructions on the stack open now. */
static int count_run(struct view *v, struct vtrack *t, const struct ntrace_dec_run *r)
{
	uint64_t b1, b2;
	uint32_t s = func_at(v, t, r->start, &b1), leaf;
	struct pcs_ctx c = { v, t, top_node(t, v->o.max_depth), 0 };

	if (s == VSYM_NONE || sym_at(v, r->last, &b2) == VSYM_NONE)
		return -1;
	if (b1 == b2) {	/* one symbol (or none) from start to last */
		leaf = vtree_child(&v->tree, c.node, s);
		if (leaf == VSYM_NONE)
			return -1;
		v->tree.node[leaf].self += r->ninsn;
		return 0;
	}
	if (ntrace_decoder_run_pcs(v->dec, r, count_pcs, &c) && !c.rc)
		v->unknown_insns += r->ninsn;	/* code the images do not hold */
	return c.rc;
}

static int push(struct view *v, struct vtrack *t, const struct ntrace_dec_run *r)
{
	struct ntrace_idec d;
	struct vframe *f;
	uint32_t site;

	if (t->depth == VIEW_HARD_DEPTH) {
		t->overflow++;
		v->overflow++;
		return 0;
	}
	if (t->depth == t->cap) {
		uint32_t nc = t->cap ? t->cap * 2 : 64;

		f = realloc(t->st, nc * sizeof(*f));
		if (!f)
			return -1;
		t->st = f;
		t->cap = nc;
	}
	if (ntrace_images_decode(ntrace_decoder_images(v->dec), r->last, &d))
		d.size = 4;
	f = &t->st[t->depth];
	memset(f, 0, sizeof(*f));
	f->ret = r->last + d.size;
	site = func_at(v, t, r->last, NULL);
	f->name = callee_at(v, r->to);
	if (f->name == VSYM_NONE || site == VSYM_NONE)
		return -1;
	if (t->depth < v->o.max_depth) {
		f->node = vtree_child(&v->tree, top_node(t, v->o.max_depth), site);
		if (f->node == VSYM_NONE)
			return -1;
	} else if (v->kind != VIEW_TIMELINE) {
		v->capped++;
	}
	vt_stamp(v, t, &f->b, v->pos);
	t->depth++;
	if (vmap_put(&t->slots, f->ret, t->depth))
		return -1;
	return 0;
}

void vc_pop_to(struct view *v, struct vtrack *t, uint32_t depth, uint8_t flags)
{
	while (t->depth > depth)
		vt_frame_done(v, t, --t->depth, flags);
}

/* A return to pc: to its frame, or to the depth of the call that returned
 * there before (longjmp), or nowhere (a signal handler's return). */
static void ret(struct view *v, struct vtrack *t, uint64_t pc)
{
	uint32_t i, d;

	if (t->overflow) {
		t->overflow--;
		return;
	}
	for (i = t->depth; i > 0; i--)
		if (t->st[i - 1].ret == pc) {
			vc_pop_to(v, t, i - 1, 0);
			return;
		}
	d = vmap_get(&t->slots, pc);
	if (d && d <= t->depth)
		vc_pop_to(v, t, d - 1, 0);
}

/*
 * A run the trace stopped after (a drain), whose last instruction still
 * went to r->to: a call or a return right before the stop happened all
 * the same, and the stack must say so.
 */
static int stopped(struct view *v, struct vtrack *t, const struct ntrace_dec_run *r)
{
	struct ntrace_idec d;

	if (!r->to || !r->ninsn ||
	    ntrace_images_decode(ntrace_decoder_images(v->dec), r->last, &d))
		return 0;
	/* (itype names a call or a return only for jumps: ntrace/isa.h) */
	if (d.itype == NTRACE_ITYPE_DIR_CALL || d.itype == NTRACE_ITYPE_IND_CALL)
		return push(v, t, r);
	if (d.itype == NTRACE_ITYPE_RETURN)
		ret(v, t, r->to);
	return 0;
}

static int trap(struct view *v, struct vtrack *t, const struct ntrace_dec_run *r)
{
	struct vitem it = { .ph = 'i', .track = (uint32_t)(t - v->tr), .to = r->to };
	struct ntrace_images *img = ntrace_decoder_images(v->dec);
	struct ntrace_idec d;
	uint32_t bits = 0;

	it.addr = r->start;
	if (r->kind == NTRACE_DK_TRAP_RETURN)
		it.addr = r->last;
	else if (r->ninsn)
		it.addr = r->last + (ntrace_images_decode(img, r->last, &d) ? 4 : d.size);
	it.cat = r->kind == NTRACE_DK_INTERRUPT ? VCAT_INTERRUPT :
		 r->kind == NTRACE_DK_TRAP ? VCAT_TRAP :
		 r->kind == NTRACE_DK_TRAP_RETURN ? VCAT_TRAP_RETURN : VCAT_EXCEPTION;
	if (it.cat == VCAT_EXCEPTION && !ntrace_images_insn_bits(img, it.addr, &bits) &&
	    bits == 0x73)
		it.cat = VCAT_SYSCALL;	/* ECALL */
	it.name = VSYM_NONE;
	it.depth = t->depth;
	v->traps[it.cat]++;
	vt_stamp(v, NULL, &it.b, v->pos);
	it.e = it.b;
	return vt_item(v, &it);
}

/*
 * Time of the runs: a run's timestamp is that of the message that reported
 * it, made once its last instruction retired: the time at the position
 * after the last run a timestamp reports.
 */
/* A timestamp on the time axis: perf time in microseconds, or ticks. */
double vc_ts_time(const struct view *v, uint64_t ts)
{
	if (v->o.perf_time)
		return (double)v->o.perf_time(v->o.clock, v->cpu, ts) / 1000.0;
	return (double)ts;
}

static void run_time(struct view *v, const struct ntrace_dec_run *r)
{
	uint64_t at = v->pos + r->ninsn;

	if (v->time != VIEW_TIME_TS)
		return;
	if (v->have_pend && v->pend_raw == r->tstamp) {
		v->pend.pos = at;
		return;
	}
	if (v->have_pend)
		vt_anchor(v, v->pend.pos, v->pend.t);
	v->have_pend = true;
	v->pend.pos = at;
	v->pend_raw = r->tstamp;
	v->pend.t = vc_ts_time(v, r->tstamp);
	v->want_sync_anchor = false;
}

static int one_run(struct view *v, struct vtrack *t, const struct ntrace_dec_run *r)
{
	run_time(v, r);
	if (r->ninsn && v->kind != VIEW_TIMELINE && count_run(v, t, r))
		return -1;
	v->pos += r->ninsn;
	v->insns += r->ninsn;
	switch (r->kind) {
	case NTRACE_DK_CALL:
	case NTRACE_DK_IND_CALL:
		return push(v, t, r);
	case NTRACE_DK_RETURN:
		ret(v, t, r->to);
		return 0;
	case NTRACE_DK_STOP:
		return stopped(v, t, r);
	case NTRACE_DK_EXCEPTION:
	case NTRACE_DK_INTERRUPT:
	case NTRACE_DK_TRAP:
	case NTRACE_DK_TRAP_RETURN:	/* back from a handler traced (a kernel exit) */
		return v->kind == VIEW_TIMELINE ? trap(v, t, r) : 0;
	default:
		return 0;
	}
}

int view_trigger(struct view *v, uint64_t addr, const char *text)
{
	struct vtrack *t = vc_cur_track(v);
	struct vitem it = { .ph = 'i', .cat = VCAT_TRIGGER, .name = VSYM_NONE, .addr = addr };

	if (!t)
		return NTRACE_ENOMEM;
	it.track = (uint32_t)(t - v->tr);
	it.depth = t->depth;
	it.text = strdup(text);
	vt_stamp(v, NULL, &it.b, v->pos);
	it.e = it.b;
	return it.text && !vt_item(v, &it) ? 0 : NTRACE_ENOMEM;
}

int view_runs(void *ctx, const struct ntrace_dec_run *r, size_t n)
{
	struct view *v = ctx;
	struct vtrack *t = vc_cur_track(v);
	size_t i;

	if (!t)
		return NTRACE_ENOMEM;
	for (i = 0; i < n; i++)
		if (one_run(v, t, &r[i]))
			return NTRACE_ENOMEM;
	return 0;
}
