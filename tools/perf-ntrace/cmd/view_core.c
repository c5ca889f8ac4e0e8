// SPDX-License-Identifier: GPL-2.0-only
/*
 * The views (view.h): their life, tracks per task and CPU, the decoder's
 * events (syncs, errors, lost trace: cut stretches and time anchors).
 * The runs are followed in view_calls.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

struct vtrack *vc_cur_track(struct view *v)
{
	if (v->cur == UINT32_MAX) {
		v->cur = track(v, 0, 0, -1, false);
		if (v->cur == UINT32_MAX)
			return NULL;
	}
	return &v->tr[v->cur];
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
		vt_anchor(v, v->pos, vc_ts_time(v, ev->tstamp));
	v->want_sync_anchor = true;
	vc_pop_to(v, t, 0, VIF_CUT);
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
	struct vtrack *t = vc_cur_track(v);

	if (!t)
		return NTRACE_ENOMEM;
	switch (ev->type) {
	case NTRACE_DEV_SYNC:
		if (v->time == VIEW_TIME_TS && v->want_sync_anchor) {
			if (v->have_pend)
				vt_anchor(v, v->pend.pos, v->pend.t);
			v->have_pend = false;
			vt_anchor(v, v->pos, vc_ts_time(v, ev->tstamp));
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
	if (v->unknown_insns)
		fprintf(stderr, "perf-ntrace decode: %" PRIu64 " instructions in code no image "
			"holds are not in the stacks\n", v->unknown_insns);
	return v->kind == VIEW_FOLDED ? vs_write_folded(v) : vs_write_flame(v);
}
