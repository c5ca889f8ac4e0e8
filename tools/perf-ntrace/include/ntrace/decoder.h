/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * N-Trace flow decoder: messages + program images -> retired instructions.
 *
 * Layer 3 of the decoder (like libipt's block decoder or OpenCSD's trace
 * element decoder): it applies the "N-Trace Decoding Guidelines" to the
 * messages of the codec (msg.h), walking the code of the images (image.h)
 * one basic block at a time. Its output is a stream of runs: a run is a
 * sequence of instructions executed one after another by fall-through,
 * ended by a control transfer (or by the end of a message's I-CNT), so a
 * branch record (from = last, to = to) is one run and a PC list is the
 * expansion of the runs. Runs are delivered in batches; instructions are
 * never delivered one by one, which keeps the decoder fast.
 *
 * The configuration is the encoder's own (encoder.h): every setting that
 * changes what the messages mean (mode, implicit return, sequential jumps,
 * all jumps, SRC width, timestamps, I-CNT width) is there.
 *
 * Robustness: decoding starts at the first synchronizing message; on a parse
 * error, an Error message, or any inconsistency between messages and code
 * (a message says branch where the code has none, a PC outside every image,
 * an I-CNT that runs past an indirect jump or ends inside an instruction)
 * the decoder reports the cause with the byte offset of the message and
 * waits for the next synchronizing message. State is bounded (a fixed block
 * cache, a return stack of 32, a history backlog limit) whatever the input.
 */
#ifndef NTRACE_DECODER_H
#define NTRACE_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ntrace/encoder.h>
#include <ntrace/image.h>
#include <ntrace/msg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How control left the last instruction of a run. */
enum ntrace_dec_kind {
	NTRACE_DK_FALL = 0,	/* nothing special: the message's I-CNT ended here
				 * (to = next instruction in memory) */
	NTRACE_DK_NOT_TAKEN,	/* conditional branch, not taken */
	NTRACE_DK_TAKEN,	/* conditional branch, taken */
	NTRACE_DK_JUMP,		/* direct jump (JAL x0, C.J, CM.JT) */
	NTRACE_DK_CALL,		/* direct call (JAL ra, C.JAL, CM.JALT) */
	NTRACE_DK_IND_JUMP,	/* indirect jump (target from a message or inferred) */
	NTRACE_DK_IND_CALL,	/* indirect call */
	NTRACE_DK_RETURN,	/* function return (explicit or implicit) */
	NTRACE_DK_TRAP_RETURN,	/* MRET/SRET */
	NTRACE_DK_EXCEPTION,	/* exception after last (ninsn may be 0) */
	NTRACE_DK_INTERRUPT,	/* interrupt after last (ninsn may be 0) */
	NTRACE_DK_TRAP,		/* exception or interrupt (B-TYPE 1) */
	NTRACE_DK_STOP,		/* trace stopped after last; to = where last went
				 * when it transferred control and the trace
				 * tells (a taken branch, a jump, a return from
				 * the return stack), else 0 */
	NTRACE_DK__COUNT
};

/* ntrace_dec_run.flags */
#define NTRACE_DRF_IMPLICIT	0x01	/* return target taken from the return stack */
#define NTRACE_DRF_INFERRED	0x02	/* indirect target inferred (sequential jump) */

/*
 * One run of instructions: ninsn instructions from start to last by
 * fall-through (not-taken branches do not end a run when merged, but the
 * decoder may also deliver them as NOT_TAKEN runs), then a transfer of kind
 * to address to. A trap taken with no instruction retired is a run with
 * ninsn = 0 and start = last = the address the trap was taken at (0 when
 * unknown).
 */
struct ntrace_dec_run {
	uint64_t start;		/* address of the first instruction */
	uint64_t last;		/* address of the last instruction (the one that
				 * transfers control, for a transfer kind) */
	uint64_t to;		/* where execution continued (0 for STOP) */
	uint64_t tstamp;	/* absolute time of the message that reported it
				 * (0 without timestamps) */
	uint32_t ninsn;		/* instructions start..last; 0 for a bare trap */
	uint8_t kind;		/* enum ntrace_dec_kind */
	uint8_t flags;		/* NTRACE_DRF_* */
	uint8_t priv;		/* enum ntrace_priv from Ownership (0 if never told) */
	uint8_t pad;		/* zero */
	uint16_t src;		/* SRC of the messages (0 without an SRC field) */
	uint16_t pad2;		/* zero; the struct is 48 bytes */
	uint32_t pad3;
};

/*
 * NTRACE_DEV_SYNC's code when no sync message restarted decoding: the flow
 * left the images (firmware, say, which the P550's encoders trace too) and
 * an indirect branch or trap return whose target the messages tell came
 * back into them; decoding resumes at that target.
 */
#define NTRACE_DEV_SYNC_RESUME	16

/* Events besides runs; delivered in order with the runs. */
enum ntrace_dec_ev {
	NTRACE_DEV_SYNC,	/* a sync message: decoding (re)starts or goes on at pc;
				 * code = SYNC, or NTRACE_DEV_SYNC_RESUME */
	NTRACE_DEV_ERROR,	/* decoding stopped: text says why; waits for a sync.
				 * Bad bytes are one even while no source decodes,
				 * once a sync was seen since new or reset, or
				 * after ntrace_decoder_set_aligned() */
	NTRACE_DEV_WARN,	/* something odd that did not stop decoding (bad
				 * bytes before that first sync: a cut message) */
	NTRACE_DEV_LOST,	/* Error message: the encoder lost messages; code = ECODE */
	NTRACE_DEV_STOP,	/* ProgTraceCorrelation: trace stopped; code = EVCODE */
	NTRACE_DEV_OWNER,	/* Ownership: priv, context */
	NTRACE_DEV_QUIRK,	/* a quirk of the encoder decoded through; code =
				 * enum ntrace_quirk. Once per source and kind */
	NTRACE_DEV__COUNT
};

/* One event; priv, context and tstamp are the source's state at the time. */
struct ntrace_dec_event {
	uint8_t type;		/* enum ntrace_dec_ev */
	uint8_t priv;		/* enum ntrace_priv last told by Ownership (0 if never) */
	uint16_t src;		/* SRC of the message (0 when not known) */
	uint32_t code;		/* SYNC: SYNC, LOST: ECODE, STOP: EVCODE, OWNER:
				 * PROCESS FORMAT (NTRACE_PROCESS_FMT_*), WARN: the
				 * odd RCODE or codec error (ntrace_msg_err), else 0 */
	uint64_t offset;	/* byte offset of the message it comes from */
	uint64_t pc;		/* where decoding stands (0 if unknown) */
	uint64_t context;	/* context last told by Ownership (0 if never) */
	uint64_t tstamp;	/* last absolute time of the source (0 without timestamps) */
	const char *text;	/* human-readable reason or description (ERROR, WARN,
				 * LOST; may be NULL for others); valid during the
				 * call only */
};

/*
 * Sink of decoded flow. Either callback may be NULL. runs gets n runs in
 * order (the array is only valid during the call); event gets one event.
 * Non-zero return stops the decoder; ntrace_decoder_feed/put/finish then
 * return that value.
 */
struct ntrace_dec_ops {
	int (*runs)(void *ctx, const struct ntrace_dec_run *r, size_t n);
	int (*event)(void *ctx, const struct ntrace_dec_event *ev);
};

/* Decoder configuration; start from ntrace_dec_cfg_default(). */
struct ntrace_dec_cfg {
	struct ntrace_enc_cfg enc;	/* the encoder's settings (encoder.h) */
	int32_t src;			/* SRC to decode; -1 = every source */
	bool merge_not_taken;		/* fold not-taken branches into runs */
	uint32_t hist_backlog;		/* max queued HIST entries per source (0: 256K;
					 * all sources together: 1M, 24 MB) */
	uint8_t bcache_bits;		/* block cache of 2^bits entries, 64 bytes each
					 * (0: 16, i.e. 4 MB; max 24) */
	bool check_widths;		/* report I-CNT, HREPEAT and B-CNT values wider
					 * than enc's counters (a strictness check: the
					 * fields carry their own width) */
	bool resume_at_targets;		/* where the flow left the images with no
					 * message missed, resume at the first indirect
					 * branch target back in one
					 * (NTRACE_DEV_SYNC_RESUME), not at the next
					 * sync. For traces of code nobody has (a SiFive
					 * v0 encoder traces firmware); a damaged trace
					 * that leaves the images can resume wrongly */
};

/*
 * BTM or HTM is told by the messages of each source from its first sync
 * on (DirectBranch, HIST, ProgTraceCorrelation's CDF; what comes before a
 * sync may be the bytes of a cut message); enc.mode only decides for a
 * source whose first 256 messages from there do not tell, and a message
 * of the other mode after the decision is reported.
 */

/* Defaults: encoder defaults, return-stack implicit return on, all sources,
 * no width checks, resumption at syncs only. */
void ntrace_dec_cfg_default(struct ntrace_dec_cfg *cfg);

/*
 * What real encoders do where N-Trace 1.0 says otherwise, and the meaning
 * is clear: decoded through and counted, each kind reported once per
 * source (once per stream where no source is known, as source 0) by an
 * NTRACE_DEV_QUIRK event. With enc.codec.strict each one is reported: the
 * first three as errors (the source waits for a sync), as 1.0 would have
 * them, an unexpected message as a warning.
 */
enum ntrace_quirk {
	NTRACE_QUIRK_STRAY_EOM,		/* a byte ending a message between messages
					 * (0x03: TCODE 0 ended at once), not 0xFF */
	NTRACE_QUIRK_EMPTY_FIELD,	/* a variable field of no bits: 0 */
	NTRACE_QUIRK_SYNC4_HTM,		/* SYNC=4 (I-CNT full) in HTM: rc7 drafts
					 * allowed it, 1.0 allows it in BTM only */
	NTRACE_QUIRK_UNEXPECTED,	/* a message no decoding step uses (vendor,
					 * reserved): skipped */
	NTRACE_QUIRK__COUNT
};

const char *ntrace_quirk_name(unsigned int quirk);

/* Counters since ntrace_decoder_new(), over all sources. */
struct ntrace_dec_stats {
	uint64_t bytes;		/* trace bytes fed */
	uint64_t messages;	/* messages parsed */
	uint64_t insns;		/* instructions decoded */
	uint64_t runs;		/* runs delivered */
	uint64_t taken;		/* taken branches and direct jumps/calls */
	uint64_t indirect;	/* indirect jumps, calls, returns, trap returns */
	uint64_t implicit_returns; /* returns resolved from the return stack */
	uint64_t traps;		/* exceptions and interrupts */
	uint64_t syncs;		/* times decoding (re)started at a sync message */
	uint64_t errors;	/* decode errors (each followed by a resync wait) */
	uint64_t parse_errors;	/* codec error records */
	uint64_t skipped;	/* messages ignored while not synchronised */
	uint64_t lost;		/* Error messages */
	uint64_t tcode[64];	/* messages per TCODE */
	uint64_t quirks[NTRACE_QUIRK__COUNT];	/* deviations decoded through */
};

/* Opaque decoder state (one per trace; not thread-safe, no global state). */
struct ntrace_decoder;

/*
 * cfg is copied; img must outlive the decoder. ops is copied; ctx is passed
 * to its callbacks. Returns NULL with *why (when why is not NULL) pointing
 * at a static reason: the setting ntrace_enc_cfg_check() or this function
 * finds unusable, or "out of memory".
 */
struct ntrace_decoder *ntrace_decoder_new(const struct ntrace_dec_cfg *cfg,
					  struct ntrace_images *img,
					  const struct ntrace_dec_ops *ops, void *ctx,
					  const char **why);
/*
 * Decode further input with img (may be the same set, changed with
 * ntrace_images_clear() or by more images): the cached blocks are dropped,
 * the decoding state (sync, return stack, pending history) is kept. Call
 * it between feeds, never from a callback. Cheap: no memory is touched.
 */
void ntrace_decoder_set_images(struct ntrace_decoder *d, struct ntrace_images *img);
/* The images the decoder walks now. */
struct ntrace_images *ntrace_decoder_images(const struct ntrace_decoder *d);

/* Free the decoder (NULL is allowed). Does not call finish. */
void ntrace_decoder_free(struct ntrace_decoder *d);

/*
 * Raw N-Trace bytes, in any chunking (the result does not depend on it).
 * Returns 0 or the sink's stop value; trace errors are not failures, they
 * are reported as events and counted in the stats.
 */
int ntrace_decoder_feed(struct ntrace_decoder *d, const uint8_t *buf, size_t len);

/*
 * One already parsed message (or codec error record), for callers that run
 * the codec themselves. Do not mix with feed on the same decoder. Returns 0
 * or the sink's stop value.
 */
int ntrace_decoder_put(struct ntrace_decoder *d, const struct ntrace_msg *m);

/*
 * End of the trace: reports a cut-off message and flushes pending runs.
 * Returns 0 or the sink's stop value. Call once; the decoder may then only
 * be queried (stats) and freed.
 */
int ntrace_decoder_finish(struct ntrace_decoder *d);

/*
 * End of one piece of trace that the next input does not continue (one
 * perf AUX record, a buffer after lost data): as finish, then every source
 * waits for a sync and input may go on. Byte offsets keep counting.
 * Returns 0 or the sink's stop value.
 */
int ntrace_decoder_reset(struct ntrace_decoder *d);

/*
 * The input from here on starts at a message boundary (a perf AUX record
 * that was not cut by a wrap of its buffer): bad bytes before the next
 * sync are damage, an error event, not the tail of a message cut off where
 * the input starts (a warning). A sync implies it; new and reset clear it.
 * Call it between feeds. The codec's wait_for_eom is not changed.
 */
void ntrace_decoder_set_aligned(struct ntrace_decoder *d);

/* Copy the counters so far into *s (any time). */
void ntrace_decoder_stats(const struct ntrace_decoder *d, struct ntrace_dec_stats *s);

/*
 * The instruction addresses of a run, in order, in batches (at most 256 per
 * call) through fn; reads the decoder's block cache without changing it, so
 * it is fast and safe to call from the runs callback. Returns
 * 0, fn's non-zero return, or the image layer's code (NTRACE_ENOMAP, ...;
 * ntrace_images_errmsg() says why) if the images cannot be decoded there.
 */
int ntrace_decoder_run_pcs(struct ntrace_decoder *d, const struct ntrace_dec_run *r,
			   int (*fn)(void *ctx, const uint64_t *pcs, size_t n), void *ctx);

/* ---- Sinks (layer 4) ---------------------------------------------------- */

/*
 * Ready-made sinks with the ntrace_dec_ops.runs signature. Each writes to a
 * FILE through its own buffer; call ntrace_sink_flush() at the end. The
 * first failure (NTRACE_EWRITE for a write error, the image layer's code
 * for instructions the images do not hold) makes the sink return that
 * code from then on, which stops the decoder; ntrace_sink_errmsg() says
 * why.
 *   PC list:  one retired-instruction address per line, "0x%lx".
 *   branches: one line per control transfer (not-taken branches and plain
 *             ends of I-CNT are left out): "FROM TO KIND TSTAMP", traps with
 *             no instruction retired have FROM = the trap address.
 *   tv:       the seed-002 tandem-verification "partial trace" (pc and
 *             instruction per group, trap groups), via ntrace_tv_export().
 *   autofdo:  exact counts of every instruction range run and every taken
 *             transfer within one image file, as llvm-profgen's
 *             unsymbolized profile (llvm-profgen --unsymbolized-profile):
 *             written by the first ntrace_sink_flush() (call it once, after
 *             ntrace_decoder_finish()); addresses are offsets from the
 *             image's text base, so PIE runs at any address add up. The
 *             image is the one set with ntrace_sink_set_dso(), else the one
 *             with the most instructions. Decode with merge_not_taken.
 *   autofdo_text: the same counts as AutoFDO's text profile (create_gcov,
 *             create_llvm_prof --profiler=text), the route to gcc.
 */
enum ntrace_sink_format {
	NTRACE_SINK_PC,
	NTRACE_SINK_BRANCHES,
	NTRACE_SINK_TV,
	NTRACE_SINK_AUTOFDO,
	NTRACE_SINK_AUTOFDO_TEXT,
};

/* Opaque sink state. */
struct ntrace_sink;

/*
 * Create a sink writing fmt to out. out, img and d (the decoder whose runs
 * it expands; may be NULL here and set with ntrace_sink_set_decoder()
 * before the first run) are borrowed and must outlive the sink. img NULL:
 * at each call, the images the decoder walks then (ntrace_decoder_images()),
 * so one sink serves a decoder whose image set changes between calls.
 * Returns NULL when out of memory.
 */
struct ntrace_sink *ntrace_sink_new(enum ntrace_sink_format fmt, FILE *out,
				    struct ntrace_decoder *d, struct ntrace_images *img);
/* ntrace_dec_ops.runs callback; ctx is the sink. 0 or the first failure's code. */
int ntrace_sink_runs(void *sink, const struct ntrace_dec_run *r, size_t n);
/* Write what is buffered (and fflush out). 0 or the first failure's code. */
int ntrace_sink_flush(struct ntrace_sink *s);
/* Why the sink failed (owned by s); "no error" if it did not. */
const char *ntrace_sink_errmsg(const struct ntrace_sink *s);
/* Free the sink (NULL allowed) without flushing; does not close out. */
void ntrace_sink_free(struct ntrace_sink *s);
/* Attach the decoder after creating it (the sink is its callback context). */
void ntrace_sink_set_decoder(struct ntrace_sink *s, struct ntrace_decoder *d);
/* branches: append " SYM+OFF -> SYM+OFF" from the images' symbol tables. */
void ntrace_sink_set_symbols(struct ntrace_sink *s, bool on);
/*
 * PC list and branches: begin each line with prefix (copied, up to 127
 * bytes; NULL or "" for none), e.g. "CPU PID TID TIME " of the task whose
 * trace follows.
 */
void ntrace_sink_set_prefix(struct ntrace_sink *s, const char *prefix);

/*
 * autofdo: count the image file dso instead of the busiest one: its path,
 * or the end of it after a '/' (the traced system's path of a file found
 * under a root directory, a base name). 0 or NTRACE_ENOMEM.
 */
int ntrace_sink_set_dso(struct ntrace_sink *s, const char *dso);
/*
 * autofdo: divide every count by one factor, rounding up, so that none is
 * above max (0, the default: exact counts). GCC 12's -fauto-profile is
 * tuned to sampled counts and optimizes worse with counts in the millions
 * (Documentation/trace/ntrace-autofdo.rst).
 */
void ntrace_sink_set_max_count(struct ntrace_sink *s, uint64_t max);
/* autofdo: the image the counts are for (NULL if none yet) and, in
 * *insns (may be NULL), its instructions counted so far. */
const char *ntrace_sink_dso(const struct ntrace_sink *s, uint64_t *insns);

/* Static names ("taken", "ind_call", "error", ...); "?" when out of range. */
const char *ntrace_dec_kind_name(unsigned int kind);
const char *ntrace_dec_ev_name(unsigned int type);

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_DECODER_H */
