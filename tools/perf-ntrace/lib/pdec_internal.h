/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* Private structures of the parallel decoder (pdec_*.c, ntrace/pardec.h). */
#ifndef NTRACE_PDEC_INTERNAL_H
#define NTRACE_PDEC_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "dec_internal.h"
#include "ntrace/pardec.h"

#define PD_BLK		(1u << 20)	/* output block */
#define PD_MAXSNAP	8		/* states recorded near a piece's start */

/* Formatted output of a piece: a chain of blocks, written by its thread. */
struct pd_blk {
	struct pd_blk *next;
	size_t len;			/* bytes in data (under the lock) */
	char data[PD_BLK];
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
	/* the decoder of the piece (made by its thread) */
	struct ntrace_images *img;	/* a view of the shared set */
	struct ntrace_decoder *d;
	struct ntrace_sink *sink;
	FILE *f;			/* into the chain */
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
	int err;			/* its thread ran out of memory */
};

struct ntrace_pardec {
	struct ntrace_dec_cfg cfg;
	struct ntrace_pardec_cfg pc;
	struct ntrace_images *img;
	FILE *out;
	int (*event)(void *ctx, const struct ntrace_dec_event *ev);
	void *ctx;
	pthread_t *thr;
	unsigned int nthr;
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* any change of any piece */
	bool shutdown;
	/* pieces in stream order: head is the one whose output is being written */
	struct pd_piece *head, *tail;
	unsigned int npieces;
	uint64_t next_index;
	/* bytes not yet in a piece */
	uint8_t *fill;
	size_t fill_len, fill_cap, scan;
	uint64_t fill_start;		/* stream offset of fill[0] */
	bool fill_nocut;
	/* where the head piece's decoder stands in the stream (overlap) */
	uint64_t lead_pos;
	/* results */
	struct ntrace_dec_stats acc;	/* counters of the retired decoders */
	uint64_t in_bytes, out_bytes, retired_in;
	struct ntrace_pardec_info info;
	int stopped;
	bool finished;
	struct dec_state cmp;		/* the head decoder's state, for comparing */
	struct ntrace_errbuf err;
};

/* pdec_work.c: the threads */
void *pd_thread(void *arg);
/* Make the decoder of a piece; 0 or NTRACE_ENOMEM. */
int pd_piece_setup(struct pd_piece *pc);
void pd_piece_free(struct pd_piece *pc);

/* pdec_out.c: output and events of a piece */
FILE *pd_chain_open(struct pd_piece *pc);
int pd_on_runs(void *ctx, const struct ntrace_dec_run *r, size_t n);
int pd_on_event(void *ctx, const struct ntrace_dec_event *ev);
/* Write out what pc holds now, with its events; 0 or the stop/failure code. */
int pd_drain(struct ntrace_pardec *p, struct pd_piece *pc);
/* Output bytes pc's decoder has produced so far (its thread or the caller's). */
uint64_t pd_outpos(struct pd_piece *pc);

#endif /* NTRACE_PDEC_INTERNAL_H */
