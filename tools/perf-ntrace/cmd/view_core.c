// SPDX-License-Identifier: GPL-2.0-only
/*
 * The views' call stacks (view.h): runs of the flow decoder -> frames per
 * track, instruction counts per stack, trap marks, cut stretches, and the
 * anchors of the time axis.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ntrace/image.h>

#include "view_internal.h"

struct view *view_new(enum view_kind kind, FILE *out, const struct view_opts *o)
{
	struct view *v = calloc(1, sizeof(*v));

	if (!v || vtree_init(&v->tree)) {
		free(v);
		return NULL;
	}
	v->kind = kind;
	v->out = out;
	v->o = *o;
	if (!v->o.max_depth)
		v->o.max_depth = VIEW_DEFAULT_MAX_DEPTH;
	v->time = o->time == VIEW_TIME_AUTO ? (o->have_ts ? VIEW_TIME_TS : VIEW_TIME_INSN) : o->time;
	v->want_sync_anchor = true;
	v->cur = UINT32_MAX;
	v->cpu = -1;
	v->first_ev = true;
	return v;
}

void view_free(struct view *v)
{
	uint32_t i;

	if (!v)
		return;
	for (i = 0; i < v->ntr; i++) {
		free(v->tr[i].st);
		vmap_free(&v->tr[i].slots);
	}
	for (i = 0; i < v->nq; i++)
		free(v->q[i].text);
	for (i = 0; i < v->pid_names_n; i++)
		free(v->pid_names[i].comm);
	free(v->pid_names);
	free(v->tr);
	free(v->q);
	free(v->dirty);
	vsyms_free(&v->syms);
	vtree_free(&v->tree);
	free(v);
}

void view_set_decoder(struct view *v, struct ntrace_decoder *d)
{
	v->dec = d;
	view_images_gone(v);
}

void view_images_gone(struct view *v)
{
	memset(v->cache_ptr, 0, sizeof(v->cache_ptr));
}

/* The track of pid/tid (is_cpu: CPU tid's), made on first use. */
static uint32_t track(struct view *v, uint32_t pid, uint32_t tid, int32_t cpu, bool is_cpu)
{
	struct vtrack *t;
	uint32_t i, root;

	for (i = 0; i < v->ntr; i++)
		if (v->tr[i].pid == pid && v->tr[i].tid == tid && v->tr[i].is_cpu == is_cpu)
			return i;
	if (v->ntr == v->cap_tr) {
		uint32_t nc = v->cap_tr ? v->cap_tr * 2 : 8;

		t = realloc(v->tr, nc * sizeof(*t));
		if (!t)
			return UINT32_MAX;
		v->tr = t;
		v->cap_tr = nc;
	}
	root = 0;
	if (!is_cpu && (pid || tid)) {	/* a root frame per task in the stacks */
		char name[48];

		snprintf(name, sizeof(name), "[%u/%u]", pid, tid);
		root = vtree_child(&v->tree, 0, vsyms_intern(&v->syms, name));
		if (root == VSYM_NONE)
			return UINT32_MAX;
	}
	t = &v->tr[v->ntr];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->cpu = cpu;
	t->is_cpu = is_cpu;
	t->root = root;
	return v->ntr++;
}

static struct vtrack *cur_track(struct view *v)
{
	if (v->cur == UINT32_MAX) {
		v->cur = track(v, 0, 0, -1, false);
		if (v->cur == UINT32_MAX)
			return NULL;
	}
	return &v->tr[v->cur];
}

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

static void pop_to(struct view *v, struct vtrack *t, uint32_t depth, uint8_t flags)
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
			pop_to(v, t, i - 1, 0);
			return;
		}
	d = vmap_get(&t->slots, pc);
	if (d && d <= t->depth)
		pop_to(v, t, d - 1, 0);
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
static double ts_time(const struct view *v, uint64_t ts)
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
	v->pend.t = ts_time(v, r->tstamp);
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
	case NTRACE_DK_EXCEPTION:
	case NTRACE_DK_INTERRUPT:
	case NTRACE_DK_TRAP:
	case NTRACE_DK_TRAP_RETURN:	/* back from a handler traced (a kernel exit) */
		return v->kind == VIEW_TIMELINE ? trap(v, t, r) : 0;
	default:
		return 0;
	}
}

int view_runs(void *ctx, const struct ntrace_dec_run *r, size_t n)
{
	struct view *v = ctx;
	struct vtrack *t = cur_track(v);
	size_t i;

	if (!t)
		return NTRACE_ENOMEM;
	for (i = 0; i < n; i++)
		if (one_run(v, t, &r[i]))
			return NTRACE_ENOMEM;
	return 0;
}

/* Decoding stops (error, lost trace) at pos: the frames are cut there. */
static int cut(struct view *v, struct vtrack *t, uint8_t cat, const struct ntrace_dec_event *ev,
	       const char *text)
{
	struct vitem it = { .ph = 'i', .cat = cat, .name = VSYM_NONE, .depth = 0 };

	if (v->have_pend) {
		vt_anchor(v, v->pend.pos, v->pend.t);
		v->have_pend = false;
	}
	if (v->time == VIEW_TIME_TS && ev && ev->tstamp)
		vt_anchor(v, v->pos, ts_time(v, ev->tstamp));
	v->want_sync_anchor = true;
	pop_to(v, t, 0, VIF_CUT);
	t->overflow = 0;
	it.track = (uint32_t)(t - v->tr);
	it.offset = ev ? ev->offset : 0;
	it.addr = ev ? ev->pc : 0;
	it.text = text ? strdup(text) : NULL;
	vt_stamp(v, NULL, &it.b, v->pos);
	it.e = it.b;
	if (!t->gap) {		/* the stretch until the next sync */
		t->gap = true;
		t->gap_cat = cat;
		vt_stamp(v, t, &t->gap_b, v->pos);
	}
	return vt_item(v, &it);
}

int view_event(void *ctx, const struct ntrace_dec_event *ev)
{
	struct view *v = ctx;
	struct vtrack *t = cur_track(v);

	if (!t)
		return NTRACE_ENOMEM;
	switch (ev->type) {
	case NTRACE_DEV_SYNC:
		if (v->time == VIEW_TIME_TS && v->want_sync_anchor) {
			if (v->have_pend)
				vt_anchor(v, v->pend.pos, v->pend.t);
			v->have_pend = false;
			vt_anchor(v, v->pos, ts_time(v, ev->tstamp));
			v->want_sync_anchor = false;
		}
		if (t->gap) {
			struct vitem it = { .ph = 'X', .cat = t->gap_cat, .name = VSYM_NONE,
					    .track = (uint32_t)(t - v->tr), .b = t->gap_b };

			t->gap = false;
			vt_stamp(v, NULL, &it.e, v->pos);
			it.text = strdup(it.cat == VCAT_LOST ? "trace lost" : "not decoded");
			return vt_item(v, &it) ? NTRACE_ENOMEM : 0;
		}
		return 0;
	case NTRACE_DEV_ERROR:
		v->errors++;
		return cut(v, t, VCAT_ERROR, ev, ev->text) ? NTRACE_ENOMEM : 0;
	case NTRACE_DEV_LOST:
		v->lost++;
		return cut(v, t, VCAT_LOST, ev, ev->text) ? NTRACE_ENOMEM : 0;
	default:
		return 0;
	}
}

/* A CPU's track shows which task ran there, from chunk to chunk. */
static void cpu_busy(struct view *v, int32_t cpu, uint32_t task)
{
	uint32_t c = track(v, 0, (uint32_t)cpu, cpu, true);
	struct vtrack *t;

	if (c == UINT32_MAX)
		return;
	t = &v->tr[c];
	if (t->busy && t->busy_track == task)
		return;
	if (t->busy) {
		struct vitem it = { .ph = 'X', .cat = VCAT_TASK, .name = VSYM_NONE,
				    .track = c, .b = t->busy_b, .addr = t->busy_track };

		vt_stamp(v, NULL, &it.e, v->pos);
		vt_item(v, &it);
	}
	t->busy = true;
	t->busy_track = task;
	vt_stamp(v, t, &t->busy_b, v->pos);
}

void view_task(struct view *v, int32_t cpu, uint32_t pid, uint32_t tid, bool resync)
{
	uint32_t c = track(v, pid, tid, cpu, false);

	if (c == UINT32_MAX)
		return;
	if (v->have_pend) {	/* the anchor so far belongs to the previous piece */
		vt_anchor(v, v->pend.pos, v->pend.t);
		v->have_pend = false;
	}
	v->want_sync_anchor = true;
	v->cur = c;
	v->cpu = cpu;
	if (resync) {
		v->resyncs++;
		cut(v, &v->tr[c], VCAT_LOST, NULL, "data lost before this AUX record");
	}
	if (cpu >= 0 && (pid || tid))
		cpu_busy(v, cpu, c);
}

void view_comm(struct view *v, uint32_t pid, const char *comm)
{
	void *p = realloc(v->pid_names, (v->pid_names_n + 1) * sizeof(*v->pid_names));

	if (!p)
		return;
	v->pid_names = p;
	v->pid_names[v->pid_names_n].pid = pid;
	v->pid_names[v->pid_names_n].comm = strdup(comm);
	v->pid_names_n++;
}

int view_finish(struct view *v)
{
	uint32_t i;

	if (v->have_pend) {
		vt_anchor(v, v->pend.pos, v->pend.t);
		v->have_pend = false;
	}
	for (i = 0; i < v->ntr; i++)
		vt_track_done(v, &v->tr[i]);
	if (v->kind == VIEW_TIMELINE)
		return vt_write(v);
	vtree_totals(&v->tree);
	return v->kind == VIEW_FOLDED ? vs_write_folded(v) : vs_write_flame(v);
}
