/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared state of the call-tree views (view.h); not used outside view_*.c. */
#ifndef PERF_NTRACE_VIEW_INTERNAL_H
#define PERF_NTRACE_VIEW_INTERNAL_H

#include "view.h"

/* ---- interned names (view_tables.c) ---- */
struct vsyms {
	char **name;		/* id -> name (owned) */
	uint32_t n, cap;
	uint32_t *slot;		/* open addressing: id + 1, 0 empty */
	uint32_t nslot;		/* power of two */
};

#define VSYM_NONE UINT32_MAX

uint32_t vsyms_intern(struct vsyms *s, const char *name);	/* VSYM_NONE: no memory */
void vsyms_free(struct vsyms *s);

/* ---- the call-site tree of the stacks (view_tables.c) ---- */
struct vnode {
	uint32_t parent, sym;	/* root: parent VSYM_NONE */
	uint32_t child, next;	/* first child, next sibling (0: none; node 0 is the root) */
	uint64_t self;		/* instructions counted with this node as leaf */
	uint64_t total;		/* self + the children's totals (filled at the end) */
};

struct vtree {
	struct vnode *node;
	uint32_t n, cap;
	uint32_t *slot;		/* (parent, sym) -> node + 1 */
	uint32_t nslot;
};

int vtree_init(struct vtree *t);			/* node 0 = root; 0 or -1 */
uint32_t vtree_child(struct vtree *t, uint32_t parent, uint32_t sym);	/* VSYM_NONE: no memory */
void vtree_totals(struct vtree *t);
void vtree_free(struct vtree *t);

/* ---- u64 -> u32 map: a track's return address -> the depth of its frame ---- */
struct vmap {
	uint64_t *key;
	uint32_t *val;		/* 0: empty */
	uint32_t n, nslot;
};

uint32_t vmap_get(const struct vmap *m, uint64_t key);	/* 0: none */
int vmap_put(struct vmap *m, uint64_t key, uint32_t val);	/* val > 0; 0 or -1 */
void vmap_free(struct vmap *m);

/* ---- time stamps ---- */
enum { VST_NONE, VST_REAL, VST_EST };

struct vstamp {
	uint64_t pos;		/* instructions retired before this point (all tracks) */
	double t;		/* time there, once known */
	uint8_t st;		/* VST_* */
};

/* Tiny slices of one parent waiting to be drawn as one. */
struct vgroup {
	struct vstamp b, e;
	uint32_t n, inner;	/* slices in it, and their nested tiny slices */
	uint32_t name;
	bool same;		/* all n have this name */
};

struct vframe {
	uint64_t ret;		/* where its return goes */
	uint32_t name;		/* symbol of the call target */
	uint32_t node;		/* tree node of the call sites so far */
	uint32_t inner;		/* tiny descendants drawn in no slice of their own */
	struct vstamp b;
	struct vgroup g;	/* its tiny children */
};

struct vtrack {
	uint32_t pid, tid;	/* in the JSON */
	int32_t cpu;
	bool is_cpu;		/* a CPU's track (what ran there) */
	bool dirty;		/* holds stamps not yet resolved */
	struct vframe *st;
	uint32_t depth, cap;
	uint64_t overflow;	/* frames beyond VIEW_HARD_DEPTH */
	uint32_t root;		/* tree node of the track */
	struct vgroup g;	/* tiny slices at depth 1 */
	struct vmap slots;	/* return address -> depth its frame had */
	/* a stretch that did not decode (error, lost data), until the next sync */
	bool gap;
	uint8_t gap_cat;
	struct vstamp gap_b;
	/* a CPU track: the task on it since */
	bool busy;
	uint32_t busy_track;
	struct vstamp busy_b;
};

#define VIEW_HARD_DEPTH (1u << 20)

/* Categories of timeline events. */
enum { VCAT_CALL, VCAT_MERGED, VCAT_SYSCALL, VCAT_EXCEPTION, VCAT_INTERRUPT, VCAT_TRAP,
       VCAT_TRAP_RETURN, VCAT_ERROR, VCAT_LOST, VCAT_TASK, VCAT_TRIGGER, VCAT__COUNT };

/* One timeline event waiting for its times. */
struct vitem {
	struct vstamp b, e;
	uint32_t name;		/* symbol id (VSYM_NONE: text) */
	uint32_t track;
	uint32_t depth;
	uint32_t merged, inner;
	uint64_t addr, to, offset;
	char *text;		/* owned */
	uint8_t cat;
	uint8_t ph;		/* 'X' or 'i' */
	uint8_t flags;		/* VIF_* */
};

#define VIF_CUT		0x01	/* frame closed by lost data or a decode error */
#define VIF_OPEN	0x02	/* frame still open at the end of the trace */
#define VIF_SAME	0x04	/* merged: all of one name */

struct view {
	enum view_kind kind;
	FILE *out;
	struct view_opts o;
	struct ntrace_decoder *dec;
	struct vsyms syms;
	struct vtree tree;
	/* symbol cache: name pointer of the current image sets -> id */
	const char *cache_ptr[1024];
	uint32_t cache_id[1024];
	struct vtrack *tr;
	uint32_t ntr, cap_tr, cur;
	uint64_t pos;		/* instructions so far, all tracks */
	/* time */
	enum view_time time;	/* decided: TS or INSN */
	bool have_prev, have_pend, want_sync_anchor, ts_seen;
	struct vstamp prev, pend;	/* last confirmed anchor, anchor being built */
	uint64_t pend_raw;	/* the timestamp of pend as the trace has it */
	int32_t cpu;		/* of the trace being decoded (-1: unknown) */
	double rate;		/* time per instruction of the last interval */
	uint32_t *dirty;	/* tracks with unresolved stamps */
	uint32_t ndirty, cap_dirty;
	struct vitem *q;	/* events waiting for a time */
	uint32_t nq, cap_q;
	/* output */
	bool first_ev, failed;
	/* counters for the metadata */
	uint64_t slices, drawn, merged, groups, capped, overflow, est_stamps, forced;
	uint64_t errors, lost, traps[VCAT__COUNT], insns, unknown_insns, resyncs;
	uint32_t pid_names_n;
	struct { uint32_t pid; char *comm; } *pid_names;
};

/* view_core.c, view_calls.c */
struct vtrack *vc_cur_track(struct view *v);	/* NULL: no memory */
void vc_pop_to(struct view *v, struct vtrack *t, uint32_t depth, uint8_t flags);
double vc_ts_time(const struct view *v, uint64_t ts);

/* view_timeline.c */
void vt_stamp(struct view *v, struct vtrack *t, struct vstamp *s, uint64_t pos);
void vt_anchor(struct view *v, uint64_t pos, double t);
int vt_item(struct view *v, struct vitem *it);		/* takes it->text */
void vt_frame_done(struct view *v, struct vtrack *t, uint32_t idx, uint8_t flags);
void vt_track_done(struct view *v, struct vtrack *t);
int vt_write(struct view *v);

/* view_stacks.c */
int vs_write_folded(struct view *v);
int vs_write_flame(struct view *v);
void vs_json_str(FILE *f, const char *s);

/* view_flame_page.c: the page around the data */
extern const char view_flame_page_head[], view_flame_page_script[];

#endif /* PERF_NTRACE_VIEW_INTERNAL_H */
