// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-ntrace decode --format=timeline: the Trace Event Format JSON of
 * Chrome's about:tracing and Perfetto ("traceEvents" with X and i events,
 * process_name/thread_name metadata, "otherData" saying what the time axis
 * is and what was merged or left out).
 *
 * Every point of the timeline is first a position, the number of
 * instructions retired before it. Without timestamps that is its time.
 * With them, a point gets its time once the anchor after it is known
 * (vt_anchor(): a position whose time a timestamp gives): linear between
 * the anchors around it, marked estimated unless it is an anchor. Frames
 * and waiting events whose positions lie after the last anchor are the
 * only ones without a time; events wait in a queue (at most VQ_MAX, then
 * they are extrapolated at the last interval's rate and marked so).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "view_internal.h"

#define VQ_MAX (1u << 16)
#define CPU_PID 2000000000u

static const char *const cat_name[VCAT__COUNT] = {
	"call", "merged", "syscall", "exception", "interrupt", "trap", "trap_return", "error",
	"lost", "task", "trigger",
};

static void mark_dirty(struct view *v, struct vtrack *t)
{
	if (t->dirty)
		return;
	if (v->ndirty == v->cap_dirty) {
		uint32_t nc = v->cap_dirty ? v->cap_dirty * 2 : 16;
		uint32_t *p = realloc(v->dirty, nc * sizeof(*p));

		if (!p)
			return;	/* its stamps are extrapolated at the end */
		v->dirty = p;
		v->cap_dirty = nc;
	}
	t->dirty = true;
	v->dirty[v->ndirty++] = (uint32_t)(t - v->tr);
}

void vt_stamp(struct view *v, struct vtrack *t, struct vstamp *s, uint64_t pos)
{
	s->pos = pos;
	s->t = (double)pos;
	s->st = VST_REAL;
	if (v->time == VIEW_TIME_INSN || v->kind != VIEW_TIMELINE)
		return;
	if (v->have_prev && pos == v->prev.pos) {
		s->t = v->prev.t;
		return;
	}
	s->st = VST_NONE;
	if (t)
		mark_dirty(v, t);
}

/* Time of s from the interval (prev, a]; false if s lies beyond a. */
static bool resolve(struct view *v, struct vstamp *s, const struct vstamp *a)
{
	if (s->st != VST_NONE)
		return true;
	if (s->pos > a->pos)
		return false;
	if (!v->have_prev || s->pos <= v->prev.pos)
		s->t = v->have_prev ? v->prev.t : a->t;
	else
		s->t = v->prev.t + (double)(s->pos - v->prev.pos) * (a->t - v->prev.t) /
				   (double)(a->pos - v->prev.pos);
	s->st = s->pos == a->pos ? VST_REAL : VST_EST;
	v->est_stamps += s->st == VST_EST;
	return true;
}

/* Beyond the last anchor: at the last interval's rate. */
static void extrapolate(struct view *v, struct vstamp *s)
{
	if (s->st != VST_NONE)
		return;
	s->t = v->have_prev ? v->prev.t + (double)(s->pos - v->prev.pos) * v->rate : 0;
	s->st = VST_EST;
	v->est_stamps++;
	v->forced++;
}

/* A track's stamps up to a; false while some lie beyond it. */
static bool resolve_track(struct view *v, struct vtrack *t, const struct vstamp *a)
{
	bool done = true;
	uint32_t i;

	for (i = t->depth; i > 0; i--) {
		struct vframe *f = &t->st[i - 1];
		bool any = f->b.st == VST_NONE || (f->g.n && (f->g.b.st == VST_NONE ||
							       f->g.e.st == VST_NONE));

		if (!any)
			break;	/* frames below began earlier: resolved before */
		done &= resolve(v, &f->b, a);
		/* (each resolve() on its own line: both must run) */
		if (f->g.n) {
			done &= resolve(v, &f->g.b, a);
			done &= resolve(v, &f->g.e, a);
		}
	}
	if (t->g.n) {
		done &= resolve(v, &t->g.b, a);
		done &= resolve(v, &t->g.e, a);
	}
	if (t->gap)
		done &= resolve(v, &t->gap_b, a);
	if (t->busy)
		done &= resolve(v, &t->busy_b, a);
	return done;
}

static int json_time(struct view *v, const char *key, double t, uint64_t pos)
{
	if (v->time == VIEW_TIME_INSN)
		return fprintf(v->out, ",\"%s\":%" PRIu64, key, pos);
	return fprintf(v->out, ",\"%s\":%.3f", key, t);
}

static void track_ids(const struct view *v, uint32_t track, uint32_t *pid, uint32_t *tid)
{
	const struct vtrack *t = &v->tr[track];

	*pid = t->is_cpu ? CPU_PID : t->pid ? t->pid : 1;
	*tid = t->is_cpu ? (uint32_t)t->cpu : t->tid ? t->tid : 1;
}

static void write_item(struct view *v, const struct vitem *it)
{
	FILE *f = v->out;
	uint32_t pid, tid;
	char name[64];

	fputs(v->first_ev ? "{\"traceEvents\":[\n" : ",\n", f);
	v->first_ev = false;
	if (it->name != VSYM_NONE) {
		fputs("{\"name\":", f);
		vs_json_str(f, v->syms.name[it->name]);
	} else {
		if (it->cat == VCAT_MERGED)
			snprintf(name, sizeof(name), "[%u calls]", it->merged);
		else if (it->cat == VCAT_TASK) {
			uint32_t p, t;

			track_ids(v, (uint32_t)it->addr, &p, &t);
			snprintf(name, sizeof(name), "task %u/%u", p, t);
		} else if (it->ph == 'X')
			snprintf(name, sizeof(name), "%s", it->cat == VCAT_LOST ? "trace lost" :
				 "not decoded");
		else if (it->cat == VCAT_TRAP_RETURN)
			snprintf(name, sizeof(name), "trap return");
		else
			snprintf(name, sizeof(name), "%s", cat_name[it->cat]);
		fprintf(f, "{\"name\":\"%s\"", name);
	}
	track_ids(v, it->track, &pid, &tid);
	fprintf(f, ",\"cat\":\"%s\",\"ph\":\"%c\"", cat_name[it->cat], it->ph);
	json_time(v, "ts", it->b.t, it->b.pos);
	if (it->ph == 'X')
		json_time(v, "dur", it->e.t > it->b.t ? it->e.t - it->b.t : 0,
			  it->e.pos - it->b.pos);
	else
		fputs(",\"s\":\"t\"", f);
	fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"begin_insn\":%" PRIu64, pid, tid,
		it->b.pos);
	if (it->ph == 'X')
		fprintf(f, ",\"end_insn\":%" PRIu64, it->e.pos);
	if (it->cat == VCAT_CALL || it->cat == VCAT_MERGED)
		fprintf(f, ",\"depth\":%u", it->depth);
	if (it->b.st == VST_EST || it->e.st == VST_EST)
		fprintf(f, ",\"estimated\":\"%s%s\"", it->b.st == VST_EST ? "begin" : "",
			it->b.st == VST_EST && it->e.st == VST_EST && it->ph == 'X' ? "+end" :
			it->e.st == VST_EST && it->ph == 'X' ? "end" : "");
	if (it->cat == VCAT_MERGED)
		fprintf(f, ",\"merged\":%u", it->merged);
	if (it->inner)
		fprintf(f, ",\"nested_merged\":%u", it->inner);
	if (it->flags & VIF_CUT)
		fputs(",\"cut\":\"trace lost or not decoded after this\"", f);
	if (it->flags & VIF_OPEN)
		fputs(",\"open\":\"still running at the end of the trace\"", f);
	if (it->cat >= VCAT_SYSCALL && it->cat <= VCAT_TRAP_RETURN)
		fprintf(f, ",\"pc\":\"0x%" PRIx64 "\",\"to\":\"0x%" PRIx64 "\"", it->addr, it->to);
	if (it->cat == VCAT_TRIGGER)
		fprintf(f, ",\"pc\":\"0x%" PRIx64 "\"", it->addr);
	if ((it->cat == VCAT_ERROR || it->cat == VCAT_LOST || it->cat == VCAT_TRIGGER) &&
	    it->ph == 'i') {
		if (it->cat != VCAT_TRIGGER)
			fprintf(f, ",\"offset\":%" PRIu64 ",\"pc\":\"0x%" PRIx64 "\"", it->offset,
				it->addr);
		if (it->text) {
			fputs(",\"text\":", f);
			vs_json_str(f, it->text);
		}
	}
	fputs("}}", f);
	if (ferror(f))
		v->failed = true;
}

static void drop_item(struct vitem *it)
{
	free(it->text);
	it->text = NULL;
}

/* Write the waiting events that have their times; with force, all. */
static void drain(struct view *v, bool force)
{
	uint32_t i, n = 0;

	for (i = 0; i < v->nq; i++) {
		struct vitem *it = &v->q[i];

		if (force) {
			extrapolate(v, &it->b);
			extrapolate(v, &it->e);
		}
		if (it->b.st != VST_NONE && it->e.st != VST_NONE) {
			write_item(v, it);
			drop_item(it);
		} else {
			v->q[n++] = *it;
		}
	}
	v->nq = n;
}

void vt_anchor(struct view *v, uint64_t pos, double t)
{
	struct vstamp a = { .pos = pos, .t = t, .st = VST_REAL };
	uint32_t i, n = 0;

	if (v->kind != VIEW_TIMELINE || v->time != VIEW_TIME_TS)
		return;
	if (v->have_prev && (t < v->prev.t || pos < v->prev.pos))
		v->have_prev = false;	/* another clock or piece: start again */
	for (i = 0; i < v->ndirty; i++) {
		struct vtrack *tr = &v->tr[v->dirty[i]];

		if (resolve_track(v, tr, &a))
			tr->dirty = false;
		else
			v->dirty[n++] = v->dirty[i];
	}
	v->ndirty = n;
	for (i = 0; i < v->nq; i++) {
		resolve(v, &v->q[i].b, &a);
		resolve(v, &v->q[i].e, &a);
	}
	if (v->have_prev && pos > v->prev.pos)
		v->rate = (t - v->prev.t) / (double)(pos - v->prev.pos);
	v->prev = a;
	v->have_prev = true;
	drain(v, false);
}

int vt_item(struct view *v, struct vitem *it)
{
	if (v->kind != VIEW_TIMELINE) {
		drop_item(it);
		return 0;
	}
	if (it->b.st != VST_NONE && it->e.st != VST_NONE) {
		write_item(v, it);
		drop_item(it);
		return 0;
	}
	if (v->nq == v->cap_q) {
		uint32_t nc = v->cap_q ? v->cap_q * 2 : 256;
		struct vitem *q = realloc(v->q, nc * sizeof(*q));

		if (!q) {
			drop_item(it);
			return -1;
		}
		v->q = q;
		v->cap_q = nc;
	}
	v->q[v->nq++] = *it;
	if (v->nq >= VQ_MAX)
		drain(v, true);
	return 0;
}

/* Tiny slices of one parent, drawn as one slice (or as themselves, one alone). */
static void flush_group(struct view *v, struct vtrack *t, struct vgroup *g, uint32_t depth)
{
	struct vitem it = { .ph = 'X', .cat = VCAT_CALL, .track = (uint32_t)(t - v->tr),
			    .depth = depth, .b = g->b, .e = g->e, .name = g->name,
			    .inner = g->inner };

	if (!g->n)
		return;
	v->merged += g->inner;
	if (g->n > 1) {
		it.cat = VCAT_MERGED;
		it.merged = g->n;
		if (!g->same)
			it.name = VSYM_NONE;
		v->groups++;
		v->merged += g->n;
	} else {
		v->drawn++;
	}
	g->n = 0;
	g->inner = 0;
	vt_item(v, &it);
}

void vt_frame_done(struct view *v, struct vtrack *t, uint32_t idx, uint8_t flags)
{
	struct vframe *f = &t->st[idx];
	struct vgroup *pg = idx ? &t->st[idx - 1].g : &t->g;
	struct vitem it = { .ph = 'X', .cat = VCAT_CALL, .track = (uint32_t)(t - v->tr),
			    .depth = idx + 1, .name = f->name, .b = f->b, .flags = flags };
	uint64_t dur = v->pos - f->b.pos;

	if (v->kind != VIEW_TIMELINE)
		return;
	v->slices++;
	if (idx >= v->o.max_depth) {
		v->capped++;
		return;
	}
	vt_stamp(v, t, &it.e, v->pos);
	if (v->o.min_slice && dur < v->o.min_slice && !flags) {
		/* tiny: its own tiny children vanish into it, it joins its siblings */
		f->inner += f->g.n + f->g.inner;
		f->g.n = 0;
		if (!pg->n) {
			pg->b = f->b;
			pg->name = f->name;
			pg->same = true;
			pg->inner = 0;
		} else if (pg->name != f->name) {
			pg->same = false;
		}
		pg->n++;
		pg->inner += f->inner;
		pg->e = it.e;
		return;
	}
	flush_group(v, t, pg, idx + 1);
	flush_group(v, t, &f->g, idx + 2);
	v->drawn++;
	vt_item(v, &it);
}

void vt_track_done(struct view *v, struct vtrack *t)
{
	struct vitem it = { .ph = 'X', .track = (uint32_t)(t - v->tr), .name = VSYM_NONE };

	if (v->kind != VIEW_TIMELINE)
		return;
	while (t->depth)
		vt_frame_done(v, t, --t->depth, VIF_OPEN);
	flush_group(v, t, &t->g, 1);
	if (t->gap) {
		it.cat = t->gap_cat;
		it.b = t->gap_b;
		vt_stamp(v, NULL, &it.e, v->pos);
		vt_item(v, &it);
		t->gap = false;
	}
	if (t->busy) {
		it.cat = VCAT_TASK;
		it.b = t->busy_b;
		it.addr = t->busy_track;
		vt_stamp(v, NULL, &it.e, v->pos);
		vt_item(v, &it);
		t->busy = false;
	}
}

static const char *comm_of(const struct view *v, uint32_t pid)
{
	uint32_t i;

	for (i = v->pid_names_n; i > 0; i--)
		if (v->pid_names[i - 1].pid == pid)
			return v->pid_names[i - 1].comm;
	return NULL;
}

static void write_names(struct view *v)
{
	FILE *f = v->out;
	uint32_t i, pid, tid;
	char name[160];

	for (i = 0; i < v->ntr; i++) {
		const struct vtrack *t = &v->tr[i];
		const char *comm = comm_of(v, t->pid);

		track_ids(v, i, &pid, &tid);
		if (t->is_cpu)
			snprintf(name, sizeof(name), "CPU %d", t->cpu);
		else if (!t->pid && !t->tid)
			snprintf(name, sizeof(name), "%s", v->o.title ? v->o.title : "trace");
		else
			snprintf(name, sizeof(name), "%s %u/%u", comm ? comm : "task", t->pid,
				 t->tid);
		fprintf(f, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
			"\"args\":{\"name\":", v->first_ev ? "{\"traceEvents\":[\n" : ",\n", pid,
			tid);
		v->first_ev = false;
		vs_json_str(f, name);
		fputs("}}", f);
		if (t->is_cpu)
			snprintf(name, sizeof(name), "CPUs");
		fprintf(f, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"args\":{\"name\":",
			pid);
		vs_json_str(f, t->is_cpu || !comm ? name : comm);
		fputs("}}", f);
	}
}

int vt_write(struct view *v)
{
	FILE *f = v->out;
	bool ts = v->time == VIEW_TIME_TS;

	drain(v, true);
	write_names(v);
	fprintf(f, "%s],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{"
		"\"generator\":\"perf-ntrace decode --format=timeline\","
		"\"time_axis\":\"%s\",\"time_unit\":\"%s\",", v->first_ev ? "{\"traceEvents\":[" : "",
		ts ? "trace timestamps" : "retired instructions",
		ts && v->o.perf_time ? "microseconds of perf time (the recording's clock, as perf "
		     "script prints it); times between timestamps are interpolated on the "
		     "instruction count (args.estimated)" :
		ts ? "one timestamp tick per microsecond shown; times between timestamps are "
		     "interpolated on the instruction count (args.estimated)" :
		     "one retired instruction per microsecond shown (no timestamps)");
	fprintf(f, "\"instructions\":%" PRIu64 ",\"slices\":%" PRIu64 ",\"slices_drawn\":%" PRIu64
		",\"slices_merged\":%" PRIu64 ",\"merge_groups\":%" PRIu64 ",\"min_slice_insns\":%"
		PRIu64 ",\"max_depth\":%u,\"frames_capped\":%" PRIu64 ",\"frames_untracked\":%"
		PRIu64 ",\"estimated_times\":%" PRIu64 ",\"extrapolated_times\":%" PRIu64
		",\"decode_errors\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"resyncs\":%" PRIu64
		",\"syscalls\":%" PRIu64 ",\"exceptions\":%" PRIu64 ",\"interrupts\":%" PRIu64
		",\"traps\":%" PRIu64 ",\"trap_returns\":%" PRIu64 "}}\n", v->insns, v->slices, v->drawn, v->merged, v->groups,
		v->o.min_slice, v->o.max_depth, v->capped, v->overflow, v->est_stamps, v->forced,
		v->errors, v->lost, v->resyncs, v->traps[VCAT_SYSCALL], v->traps[VCAT_EXCEPTION],
		v->traps[VCAT_INTERRUPT], v->traps[VCAT_TRAP], v->traps[VCAT_TRAP_RETURN]);
	if (fflush(f) || ferror(f) || v->failed) {
		fprintf(stderr, "perf-ntrace decode: write error\n");
		return -1;
	}
	return 0;
}
