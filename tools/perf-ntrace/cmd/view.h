/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Views of a decoded trace as a call tree (perf-ntrace decode
 * --format=timeline, folded, flame-html).
 *
 * The view follows the flow decoder's runs: a call (direct or indirect)
 * opens a frame, a return closes the frames up to the one it returns to,
 * a return to where an earlier call returned (longjmp) goes back to that
 * call's depth, and any other return leaves the stack alone (a signal
 * handler returning into the vDSO). Traps are marks, not frames. Each
 * frame becomes a slice of the timeline; every retired instruction is
 * counted on the stack of call sites open when it ran plus its own
 * function (the folded stacks and the flame graph).
 *
 * Time: with trace timestamps (--ts; perf.data recorded with ts=1) a run's
 * timestamp is taken as the time its last instruction ran, and the time of
 * every other instruction is estimated by linear interpolation on the
 * retired-instruction count between the two timestamps around it.
 * Without timestamps the time axis is the retired-instruction count.
 */
#ifndef PERF_NTRACE_VIEW_H
#define PERF_NTRACE_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ntrace/decoder.h>

enum view_kind { VIEW_TIMELINE, VIEW_FOLDED, VIEW_FLAME_HTML };

enum view_time { VIEW_TIME_AUTO, VIEW_TIME_TS, VIEW_TIME_INSN };

struct view_opts {
	unsigned int max_depth;	/* frames deeper than this are not drawn
				 * (timeline) or folded into the deepest
				 * one kept (stacks); 0: the default, 256 */
	uint64_t min_slice;	/* timeline: slices of fewer instructions are
				 * merged with their small neighbours */
	enum view_time time;	/* AUTO: timestamps when the trace has them */
	bool have_ts;		/* the decoder was told the trace has TSTAMP */
	const char *title;	/* name of the single track of a raw trace */
	/* perf.data: perf time (ns) of cpu's timestamp ts, or NULL: ticks */
	uint64_t (*perf_time)(void *ctx, int32_t cpu, uint64_t ts);
	void *clock;		/* its ctx */
};

#define VIEW_DEFAULT_MAX_DEPTH	256
#define VIEW_DEFAULT_MIN_SLICE	8

struct view;

/* NULL when out of memory. out is borrowed. */
struct view *view_new(enum view_kind kind, FILE *out, const struct view_opts *o);
void view_free(struct view *v);

/* The decoder whose runs follow (for its images). */
void view_set_decoder(struct view *v, struct ntrace_decoder *d);
/* ntrace_dec_ops callbacks; ctx is the view. */
int view_runs(void *v, const struct ntrace_dec_run *r, size_t n);
int view_event(void *v, const struct ntrace_dec_event *ev);
/* The trigger (decode --until) was reached at addr, named text: a marker. */
int view_trigger(struct view *v, uint64_t addr, const char *text);

/*
 * perf.data: the trace that follows is task pid/tid's (tid 0 with pid 0:
 * one stream, per-thread mode idx), on cpu (-1: unknown); resync: data was
 * lost before it (the open frames are cut).
 */
void view_task(struct view *v, int32_t cpu, uint32_t pid, uint32_t tid, bool resync);
/* A process's name, for the track names. */
void view_comm(struct view *v, uint32_t pid, const char *comm);
/* The image sets the decoder used go away: nothing may point into them. */
void view_images_gone(struct view *v);

/* Write the view (everything is buffered until here or flushed on the way).
 * 0, or -1 after printing why. */
int view_finish(struct view *v);

/*
 * perf.data (view_pd.c): whether its AUXTRACE_INFO says the trace has
 * timestamps, and perf's time conversion of them when the recording has
 * one (o->perf_time, o->clock; free the clock with view_pd_clock_free()).
 */
void view_pd_clock(const char *path, struct view_opts *o);
void view_pd_clock_free(struct view_opts *o);

#endif /* PERF_NTRACE_VIEW_H */
