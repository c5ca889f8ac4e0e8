/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* Private structures of the parallel decoder (pdec_*.c, ntrace/pardec.h). */
#ifndef NTRACE_PDEC_INTERNAL_H
#define NTRACE_PDEC_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "dec_internal.h"
#include "ntrace/pardec.h"

#define PD_MAXSNAP	8		/* states recorded near a piece's start */
#define PD_PIECE_MIN	(16u << 10)	/* adaptive pieces: at least a few syncs' worth */
/* pdec_decide.c: trace bytes held to decide, and places to cut wanted there */
#define PD_DECIDE	(256u << 10)
#define PD_DECIDE_CUTS	2
#define PD_INSPARE	4		/* piece input buffers kept for reuse */

/* Formatted output of a piece: the sink's buffers, handed over in order. */
struct pd_blk {
	struct pd_blk *next;
	size_t len;
	char *data;			/* DEC_SINK_BUF bytes, from malloc */
};

/*
 * A decoder with its view of the images and its sink, used by one piece
 * at a time and then by a later one (dec_renew()). It decodes with the
 * caches of the thread that runs it (ntrace_pardec.caches), which stay
 * warm in that thread's core; its own small ones serve the calling
 * thread's few steps after its thread is done.
 */
struct pd_engine {
	struct pd_engine *next;		/* in the spare list */
	int thread;			/* the thread that used it last (-1: none) */
#define PD_CALLER	(-2)		/* thread: the calling thread */
	struct ntrace_images *img;
	struct ntrace_decoder *d;
	struct ntrace_sink *sink;	/* NULL without runs */
};

struct pd_ev {
	uint64_t pos;			/* output bytes of the piece before it */
	struct ntrace_dec_event ev;	/* ev.text points into text (or NULL) */
	char *text;
};

/* The state of a piece's decoder after a message that ends at 'end'. */
struct pd_snap {
	uint64_t end;			/* stream offset after the message */
	uint64_t outpos;		/* output bytes before that point */
	size_t nev;			/* events before that point */
	struct ntrace_dec_stats st;	/* counters there */
	struct dec_state state;
};

enum { PD_QUEUED, PD_RUNNING, PD_DONE };

struct pd_piece {
	struct ntrace_pardec *p;
	struct pd_piece *next;		/* in stream order */
	uint64_t index;
	uint64_t start;			/* stream offset of buf[0] */
	uint8_t *buf;
	size_t len;
	bool nocut;			/* starts mid-message: only the decoder before
					 * may decode it */
	size_t cap;			/* of buf */
	/* the decoder of the piece (set up by its thread) */
	struct pd_engine *eng;		/* taken by its thread; NULL for a nocut piece */
	struct ntrace_decoder *d;	/* eng's, once set up */
	struct ntrace_sink *sink;
	struct ntrace_dec_stats base;	/* counters where its output starts counting */
	/* under p->mu */
	int state;			/* PD_* */
	bool cancel;			/* its work is not wanted: stop */
	bool main;			/* driven by the calling thread: never wait */
	struct pd_blk *head, *tail;
	size_t head_off;		/* read offset in head */
	uint64_t committed;		/* output bytes appended */
	uint64_t drained;		/* output bytes taken by the merger */
	uint64_t skip;			/* output bytes before this are dropped */
	struct pd_ev *ev;
	size_t nev, evcap, evdone;
	struct pd_snap snap[PD_MAXSNAP];
	unsigned int nsnap;
	bool snap_done;			/* no more states will be recorded */
	bool full;			/* its thread waits for its output to be taken */
	int err;			/* its thread ran out of memory */
};

struct ntrace_pardec {
	/* one decoder or pieces: undecided while the first bytes are held */
	enum { PD_UNDECIDED, PD_DIRECT, PD_PARALLEL } mode;
	size_t dscan, dlast;		/* held bytes scanned; the last place to cut */
	unsigned int dcuts;		/* places to cut found */
	struct ntrace_decoder *direct;	/* PD_DIRECT: the one decoder */
	struct ntrace_sink *dsink;	/* and its sink (NULL without runs) */
	struct ntrace_dec_cfg cfg;
	struct ntrace_pardec_cfg pc;
	struct ntrace_images *img;
	FILE *out;
	int (*event)(void *ctx, const struct ntrace_dec_event *ev);
	void *ctx;
	pthread_t *thr;
	unsigned int nthr;
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* the calling thread waits on it for 'watch' */
	struct pd_piece *watch;		/* the piece whose progress it waits for */
	pthread_cond_t full_cv;		/* output taken, or cancel: threads whose
					 * output is full */
	pthread_cond_t work_cv;		/* a piece queued, or shutdown: idle threads */
	bool shutdown;
	/* pieces in stream order: head is the one whose output is being written */
	struct pd_piece *head, *tail;
	unsigned int npieces;
	uint64_t next_index;
	/*
	 * Engines no piece uses (under mu). The calling thread makes them,
	 * at least one for each queued piece; a thread takes one it used
	 * before if it can (its sink's buffer is in that core's caches).
	 */
	struct pd_engine *spare_eng;
	unsigned int nspare_eng, nwant_eng;
	unsigned int nthreads_up;	/* numbers the threads */
	/*
	 * Decoders that only hold caches (dec_caches_swap()): one for each
	 * thread, [jobs] the calling thread's. A thread's caches serve every
	 * piece it decodes, as one decoder's caches serve a whole trace.
	 */
	struct ntrace_decoder **caches;
	struct pd_blk *spare_blk;	/* written-out blocks, their buffers empty
					 * (under mu) */
	struct {
		uint8_t *buf;
		size_t cap;
	} spare_in[PD_INSPARE];		/* input buffers (calling thread) */
	unsigned int nspare_in;
	/* bytes not yet in a piece */
	uint8_t *fill;
	size_t fill_len, fill_cap, scan;
	uint64_t fill_start;		/* stream offset of fill[0] */
	bool fill_nocut;
	/* where the head piece's decoder stands in the stream (overlap) */
	uint64_t lead_pos;
	/* quirks reported, per source (bit per enum ntrace_quirk): each piece's
	 * decoder reports its first of each, one decoder the first of all */
	uint8_t quirks_told[1u << NTRACE_MAX_SRC_BITS];
	/* results */
	struct ntrace_dec_stats acc;	/* counters of the retired decoders */
	uint64_t in_bytes, out_bytes, retired_in;
	struct ntrace_pardec_info info;
	int stopped;
	bool finished;
	struct dec_state cmp;		/* the head decoder's state, for comparing */
	struct ntrace_errbuf err;
};

/*
 * pc made progress the calling thread may wait for (under p->mu): it is
 * woken only when it waits for pc, so that a thread's other steps cost no
 * wake-up and no switch.
 */
static inline void pd_wake_main(struct ntrace_pardec *p, struct pd_piece *pc)
{
	if (p->watch == pc)
		pthread_cond_signal(&p->cv);
}

/* The calling thread waits for pc's progress (under p->mu). */
static inline void pd_wait_main(struct ntrace_pardec *p, struct pd_piece *pc)
{
	p->watch = pc;
	pthread_cond_wait(&p->cv, &p->mu);
	p->watch = NULL;
}

/* A message starts at b[i] (i > 0): the byte before ends one. */
static inline bool pd_msg_starts(const uint8_t *b, size_t i)
{
	return (b[i - 1] & 3) == NTRACE_MSEO_END_MSG && (b[i] & 3) == NTRACE_MSEO_NORMAL;
}

/* The n bytes at b, cut at a message boundary, start with a sync message. */
static inline bool pd_starts_sync(const uint8_t *b, size_t n)
{
	return n && (b[0] & 3) == NTRACE_MSEO_NORMAL && ntrace_tcode_is_sync(b[0] >> 2);
}

/* pdec_decide.c: one decoder or pieces (mode), and the one decoder's path */
/* A sync message starts in b[from, to) (b: at a message boundary or not). */
bool pd_sync_in(const uint8_t *b, size_t from, size_t to);
/* Decide once the held bytes tell, or at the end: 0 or a failure. */
int pd_decide(struct ntrace_pardec *p, bool end);
/* PD_DIRECT: the decoder's stop code, with its reason set. */
int pd_direct_stopped(struct ntrace_pardec *p);
int pd_direct_finish(struct ntrace_pardec *p);
/* pdec_core.c: start the threads and cut what is held (PD_PARALLEL). */
int pd_go_parallel(struct ntrace_pardec *p);

/* pdec_work.c: the threads and the pieces' decoders */
void *pd_thread(void *arg);
/* A new engine (calling thread); NULL with *why. */
struct pd_engine *pd_engine_new(struct ntrace_pardec *p, const char **why);
/* One more spare engine if the queued pieces need it (calling thread). */
int pd_engine_stock(struct ntrace_pardec *p, const char **why);
/* The caches of thread t (PD_CALLER: the calling thread). */
static inline struct ntrace_decoder *pd_caches(struct ntrace_pardec *p, int t)
{
	return p->caches[t == PD_CALLER ? p->pc.jobs : (unsigned int)t];
}
void pd_engine_free(struct pd_engine *e);
/* Start the piece's decoder afresh (its thread). */
void pd_piece_setup(struct pd_piece *pc);
/* Free a piece; its engine and buffers become spares (calling thread). */
void pd_piece_free(struct pd_piece *pc);

/* pdec_out.c: output and events of a piece */
/* The sink's hand-off (dec_sink_to()): buf joins pc's output. */
char *pd_take(void *ctx, char *buf, size_t n);
/* A block no chain holds any more: it and its buffer become spares (under p->mu). */
void pd_spare_out(struct ntrace_pardec *p, struct pd_blk *b);
int pd_on_runs(void *ctx, const struct ntrace_dec_run *r, size_t n);
int pd_on_event(void *ctx, const struct ntrace_dec_event *ev);
/* Write out what pc holds now, with its events; 0 or the stop/failure code. */
int pd_drain(struct ntrace_pardec *p, struct pd_piece *pc);
/* Output bytes pc's decoder has produced so far (its thread or the caller's). */
uint64_t pd_outpos(struct pd_piece *pc);

#endif /* NTRACE_PDEC_INTERNAL_H */
