/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Parallel decoding of one raw N-Trace stream: the same output as one
 * decoder (decoder.h) feeding a sink, byte for byte, from several threads,
 * in bounded memory.
 *
 * The stream is cut into pieces at message boundaries, before a
 * synchronising message where one is near. Each piece is decoded by a
 * thread with a decoder of its own that starts there, formatting its runs
 * into a buffer; near the start of its piece it also records its decoding
 * state (dec_state.c) at a few message boundaries. The calling thread
 * writes the pieces out in order. The decoder that owns the output so far
 * continues into the next piece up to such a boundary and compares its
 * own state there: where the two states are equal, the rest of the two
 * decodes is the same, so the output switches to the next piece's decoder
 * at that boundary. Where no state is equal (a source without sync in the
 * piece, Ownership or a warned-once flag the new decoder has not seen, a
 * cut inside garbage), the owning decoder decodes the whole next piece
 * itself, as one decoder would: slower, never different.
 *
 * Parallel decoding needs sync messages in the trace (the encoder's
 * periodic sync, trTeInstSyncMode), so the decoder decides from the trace:
 * the first 256 KiB are held, and unless they hold two places to cut
 * 16 KiB or more apart, one decoder in the calling thread decodes the
 * whole trace straight into out, with no thread started (a trace with
 * one sync at its start, or a short one). An explicit piece_bytes always
 * splits.
 *
 * Output: the PC list or branch records of ntrace_sink_* written to a FILE
 * (the tandem-verification format keeps state across runs and is not
 * supported). Events go to a callback in the calling thread, in stream
 * order, each after the output that comes before it; the counters are
 * those of one decoder. Callbacks never run in the library's threads.
 * Memory: at most 2 x jobs pieces are held, each with a decoder (its block
 * cache, decoder.h), its trace bytes and up to out_limit bytes of output.
 * A piece's decoder, once the piece is written out, decodes a later one,
 * in the thread that used it if it can: its caches stay warm, as one
 * decoder's do.
 */
#ifndef NTRACE_PARDEC_H
#define NTRACE_PARDEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ntrace/decoder.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ntrace_pardec_cfg {
	unsigned int jobs;		/* decoding threads; 0: the online CPUs */
	size_t piece_bytes;		/* trace bytes per piece (at least 64); 0: about
					 * 2 MiB of output each (at most out_limit / 4)
					 * by the output per trace byte so far,
					 * 16 KiB..8 MiB */
	size_t out_limit;		/* output bytes one piece may hold before its
					 * thread waits; 0: 32 MiB */
	bool runs;			/* format the runs (false: events and counts only) */
	enum ntrace_sink_format fmt;	/* NTRACE_SINK_PC or NTRACE_SINK_BRANCHES */
	bool symbols;			/* branches: ntrace_sink_set_symbols() */
	uint32_t events;		/* event types to deliver, 1 << NTRACE_DEV_*; 0: all */
};

/* Defaults: online CPUs, adaptive pieces, 32 MiB, PC list, every event. */
void ntrace_pardec_cfg_default(struct ntrace_pardec_cfg *pc);

/* Opaque parallel decoder (one per trace; call it from one thread). */
struct ntrace_pardec;

/*
 * cfg as for ntrace_decoder_new(); img must outlive the decoder and not
 * change while it lives, and must not fetch code on demand. out receives
 * the formatted runs (borrowed). event (may be NULL) gets each event whose
 * type pc->events selects, with ctx; non-zero from it stops decoding as it
 * stops ntrace_decoder_feed(). NULL with *why (static text) on a bad
 * setting or when out of memory or threads.
 */
struct ntrace_pardec *ntrace_pardec_new(const struct ntrace_dec_cfg *cfg,
					struct ntrace_images *img,
					const struct ntrace_pardec_cfg *pc, FILE *out,
					int (*event)(void *ctx, const struct ntrace_dec_event *ev),
					void *ctx, const char **why);

/*
 * Raw N-Trace bytes, in any chunking. Returns 0, the event callback's stop
 * value, or a failure (NTRACE_EWRITE, an image code for instructions the
 * images do not hold, as the sink reports; NTRACE_ENOMEM):
 * ntrace_pardec_errmsg() says why. After a non-zero return, only
 * stats/errmsg/free.
 */
int ntrace_pardec_feed(struct ntrace_pardec *p, const uint8_t *buf, size_t len);

/* End of the trace (ntrace_decoder_finish()); writes the rest and flushes
 * out. Returns as ntrace_pardec_feed(). Call once. */
int ntrace_pardec_finish(struct ntrace_pardec *p);

/* The counters of the decode so far; after finish, those one decoder
 * would give for the whole trace (all of them, syncs included). */
void ntrace_pardec_stats(const struct ntrace_pardec *p, struct ntrace_dec_stats *s);

/* How the work was split. */
struct ntrace_pardec_info {
	uint64_t pieces;	/* pieces cut */
	uint64_t joined;	/* pieces whose own decode took over at a proven state */
	uint64_t redecoded;	/* pieces decoded again by the decoder before (no
				 * equal state found) */
	uint64_t overlap_bytes;	/* trace bytes decoded twice to find equal states */
	uint64_t threads;	/* threads started; 0: the trace was not worth
				 * splitting and one decoder in the calling
				 * thread decoded it */
};
void ntrace_pardec_info(const struct ntrace_pardec *p, struct ntrace_pardec_info *i);

/* Why the last call failed ("no error" if none did). */
const char *ntrace_pardec_errmsg(const struct ntrace_pardec *p);

/* Stop the threads and free everything (NULL allowed); out is not closed. */
void ntrace_pardec_free(struct ntrace_pardec *p);

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_PARDEC_H */
