/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * N-Trace encoder model: retired-instruction records (ingress.h) in,
 * N-Trace messages out, following the rules of N-Trace 1.0 chapters "Main
 * N-Trace Trace Modes", "Field Encoding and Calculation Techniques",
 * "Synchronizing Messages", "Timestamp Reporting", "Optimization Extensions"
 * and "Rules of Generating Messages".
 *
 * struct ntrace_enc_cfg names every setting that changes what the messages
 * mean, so the flow decoder takes the same struct as its configuration.
 * The model keeps bounded state (a return stack of at most 32 entries, one
 * deferred message) and never allocates.
 */
#ifndef NTRACE_ENCODER_H
#define NTRACE_ENCODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ntrace/error.h>
#include <ntrace/ingress.h>
#include <ntrace/msg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* trTeInstMode values used by N-Trace. */
#define NTRACE_MODE_BTM	3	/* branch trace messaging */
#define NTRACE_MODE_HTM	6	/* history trace messaging */

/* trTeInstImplicitReturnMode */
#define NTRACE_IRET_OFF		0
#define NTRACE_IRET_COUNT	1	/* simple call counter */
#define NTRACE_IRET_PARTIAL	2	/* stack of partial return addresses */
#define NTRACE_IRET_FULL	3	/* stack of full return addresses */
#define NTRACE_IRET_MAX_DEPTH	32	/* spec: never deeper than 32 */

/* trTeInstSyncMode */
#define NTRACE_SYNCMODE_OFF	0
#define NTRACE_SYNCMODE_MSGS	1	/* count messages */
#define NTRACE_SYNCMODE_CYCLES	2	/* count timestamp units (the model's clock) */
#define NTRACE_SYNCMODE_HWORDS	3	/* count I-CNT half-words */

struct ntrace_enc_cfg {
	struct ntrace_codec_cfg codec;	/* SRC width, XLEN, MSB extension, trTsEnable */
	uint16_t src_id;		/* trTeSrcID: SRC value of every message */
	uint8_t mode;			/* trTeInstMode: NTRACE_MODE_BTM or _HTM */
	uint8_t itype_bits;		/* ingress itype width: 3 or 4 */

	/*
	 * I-CNT counter width in bits including its overflow bit (2..32):
	 * the counter is full once bit icnt_bits-1 is set, and is then
	 * reported (ResourceFull RCODE=0, or SYNC=4 with icnt_full_sync).
	 */
	uint8_t icnt_bits;
	/* HIST register width including the stop bit (2..32): full when the
	 * stop bit reaches bit hist_bits-1. */
	uint8_t hist_bits;
	uint8_t hrepeat_bits;		/* HREPEAT counter width (1..18) */
	uint8_t bcnt_bits;		/* B-CNT counter width (1..18) */

	uint8_t implicit_return;	/* trTeInstImplicitReturnMode: NTRACE_IRET_* */
	uint8_t return_addr_bits;	/* NTRACE_IRET_PARTIAL: low address bits kept (2..63) */
	uint16_t return_depth;		/* return stack depth / call counter limit (1..32;
					 * a SiFive v0 call counter: 1..1023) */
	bool seq_jump;			/* trTeInstEnSequentialJump */
	bool all_jumps;			/* trTeInstEnAllJumps */
	bool repeated_history;		/* trTeInstEnRepeatedHistory: ResourceFull RCODE=2
					 * (SiFive v0: RCODE 8/9 counts of one outcome) */
	bool repeat_branch;		/* RepeatBranch (B-CNT) for identical branch messages */
	bool context;			/* trTeContext: Ownership messages */
	bool trap_btype1;		/* report all traps as B-TYPE=1, not 2/3 */
	bool icnt_full_sync;		/* BTM only: I-CNT full -> sync message with SYNC=4 */
	bool htm_ib_no_hist;		/* HTM: IndirectBranch instead of IndirectBranchHist
					 * when HIST is empty */

	uint8_t sync_mode;		/* trTeInstSyncMode: NTRACE_SYNCMODE_* */
	uint8_t sync_max;		/* trTeInstSyncMax: period 2^(sync_max+4) units */
	uint8_t start_sync;		/* SYNC reason at trace start (default TRACE_ENABLE) */
	uint8_t stop_evcode;		/* EVCODE at trace stop / end (default TRACE_DISABLED) */
	/*
	 * SiFive v0 only (tsBranch): which messages other than sync ones carry
	 * a TSTAMP while codec.tstamp is set. The default (0) is all of them
	 * but ResourceFull, which is also what tsBranch 3 selects.
	 */
	uint8_t v0_ts_branch;		/* NTRACE_V0_TSB_* */
};

#define NTRACE_V0_TSB_ALL	0	/* tsBranch 3: branches, exceptions, PTCM, Error */
#define NTRACE_V0_TSB_NONE	1	/* tsBranch 0: sync messages only */
#define NTRACE_V0_TSB_INDIRECT	2	/* tsBranch 1: + indirect branches and exceptions */

/*
 * Defaults: BTM, 4-bit itype, 16-bit I-CNT, 32-bit HIST, 18-bit HREPEAT and
 * B-CNT, implicit return off (stack depth 16, 16 partial bits if enabled),
 * no SRC, no timestamps, XLEN 64, SYNC=5 at start, EVCODE=4 at the end, no
 * options. Note that the flow decoder's default (ntrace_dec_cfg_default)
 * turns implicit return on.
 */
void ntrace_enc_cfg_default(struct ntrace_enc_cfg *cfg);

/*
 * Check a configuration: 0 if usable, else NTRACE_ECONFIG with *why (when
 * why is not NULL) pointing at a static message naming the bad setting by
 * its Trace Control Interface field; *why is NULL when cfg is usable.
 */
int ntrace_enc_cfg_check(const struct ntrace_enc_cfg *cfg, const char **why);

/*
 * Turn cfg into the settings an encoder really applies: an ingress port of
 * 3-bit itypes cannot tell returns from other jumps, so implicit return is
 * off; the SiFive v0 encoder's implicit return is a call counter of 1023
 * (a return stack asked of it becomes that). For decoders given register
 * values or options that may say more.
 */
void ntrace_enc_cfg_effective(struct ntrace_enc_cfg *cfg);

/*
 * An encoder's Trace Control Interface 1.0 registers as read back after
 * programming (field layout: include/uapi/linux/ntrace_tci.h of the
 * ntrace sources).
 */
struct ntrace_tci_regs {
	uint32_t te_control;	/* trTeControl */
	uint32_t te_features;	/* trTeInstFeatures */
	uint32_t ts_control;	/* trTsControl; 0: unit in reset, no TSTAMP */
	uint32_t te_impl;	/* trTeImpl; 0: unknown, not checked */
};

/*
 * Set the fields of cfg that the registers determine, the way OpenCSD
 * reads its decoder settings from captured ETM registers: mode, trTeContext,
 * sync mode and period, SRC width and value (none with trTeInhibitSrc),
 * MSB extension, sequential jumps, all jumps, repeated history, implicit
 * return (on with trTeInstEnImplicitReturn and a trTeInstImplicitReturnMode
 * other than 0, as N-Trace defines it) and TSTAMP fields (trTsEnable with
 * trTsActive and a trTsMode other than none). The rest, which no register
 * shows (counter widths, itype width, return stack depth, XLEN), is left as
 * it was: start from ntrace_enc_cfg_default() or the decoder's defaults.
 * A trTeImpl whose version field (bits 3:0) is 0 is SiFive's pre-ratified
 * encoder (NTRACE_VARIANT_SIFIVE_V0): te_control and te_impl are then read
 * in its layout (teInstruction 6: HTM; 7: HTM with the call counter of 1023
 * and the branch counts; SRC width and ID from teImpl; sync period from
 * teSyncMaxBTM, else teSyncMaxInst), te_features is ignored (it has no
 * such register) and ts_control is read as trTsControl.
 * Returns 0, or NTRACE_ECONFIG with *why (when why is not NULL) naming
 * the field that makes the registers unusable (not N-Trace, or what
 * ntrace_enc_cfg_check() rejects); cfg is then unchanged.
 */
int ntrace_enc_cfg_from_regs(const struct ntrace_tci_regs *r, struct ntrace_enc_cfg *cfg,
			     const char **why);

/*
 * Message sink: called once per message in stream order. Return 0 to go on,
 * non-zero to stop the encoder (it then returns that value).
 */
typedef int (*ntrace_emit_fn)(void *ctx, const struct ntrace_msg *msg);

/* Pending message kinds (private: values of ntrace_encoder.pend). */
enum {
	NTRACE_ENC_NONE,
	NTRACE_ENC_DIRECT,	/* taken direct branch (BTM, or all_jumps) */
	NTRACE_ENC_INDIRECT,	/* indirect jump, trap return, unmatched return */
	NTRACE_ENC_TRAP,	/* exception / interrupt */
	NTRACE_ENC_LINEAR,	/* sync on linear code (periodic, SYNC=4) */
	NTRACE_ENC_RETURN,	/* return: a message only if the target is not pend_expect */
};

/*
 * Encoder state. Plain data owned by the caller (embed it, no free needed);
 * initialise with ntrace_encoder_init(). The fields are the model's
 * internals, for tests and debugging: read them, never write them.
 */
struct ntrace_encoder {
	struct ntrace_enc_cfg cfg;
	ntrace_emit_fn emit;
	void *ctx;
	int stopped;		/* non-zero return of emit */

	bool tracing;		/* between trace start and stop */
	uint64_t icnt;		/* half-words since the last I-CNT report */
	uint64_t hist;		/* HIST register with stop bit; 1 = empty */
	uint64_t last_addr;	/* address of the last message with an address field */
	uint64_t last_ts;	/* last reported timestamp */
	bool ts_valid;

	/* message deferred until the next record gives its address */
	uint8_t pend;		/* NTRACE_ENC_* */
	uint8_t pend_btype;
	uint8_t pend_sync;	/* SYNC reason when it must be a sync message */
	bool pend_is_sync;
	uint64_t pend_expect;	/* NTRACE_ENC_RETURN: predicted return address */
	uint64_t pend_ts;

	/* periodic synchronisation */
	uint64_t sync_count;
	uint64_t sync_period;
	bool sync_due;

	/* implicit return */
	uint64_t rstack[NTRACE_IRET_MAX_DEPTH];
	uint16_t rdepth;	/* entries (or call count in NTRACE_IRET_COUNT) */

	/* SiFive v0 repeated history: a run of rc_count branches of outcome rc_bit */
	uint8_t rc_bit;
	bool rc_open;		/* branches of outcome rc_bit still add to it */
	uint64_t rc_count;
	uint64_t rc_ts;

	/* repeated history: HIST value held back and how often it repeated */
	uint64_t rh_hist;
	uint64_t rh_count;
	uint64_t rh_ts;

	/* RepeatBranch: the last branch message and its repeat count */
	bool rb_valid;
	struct ntrace_msg rb_msg;
	uint64_t rb_target;
	uint64_t rb_count;
	uint64_t rb_ts;

	/* sequential jump: half-words of the previous record if it is in icnt */
	uint8_t prev_size_in_block;

	/* Ownership: last reported privilege and context */
	bool own_valid;
	uint8_t own_priv;
	uint64_t own_context;

	/* FIFO overrun: Error + SYNC=7 restart at the next record */
	bool overrun;
	uint64_t overrun_ecode;

	uint64_t last_record_addr;
	uint64_t last_record_ts;
	uint64_t records;	/* records consumed */
	uint64_t messages;	/* messages emitted */
};

/*
 * Initialise e with a copy of cfg; emit(ctx, msg) receives every message.
 * Returns 0, or NTRACE_ECONFIG with *why as ntrace_enc_cfg_check() sets it
 * (e is then not usable).
 */
int ntrace_encoder_init(struct ntrace_encoder *e, const struct ntrace_enc_cfg *cfg,
			ntrace_emit_fn emit, void *ctx, const char **why);

/*
 * Feed n records in program order. Returns 0, or the sink's non-zero return
 * value (the encoder then stops consuming).
 *
 * How records drive the trace:
 *  - The first record ever, and after a stop the first record with
 *    NTRACE_INSN_TRACE_START, start the trace: ProgTraceSync(start_sync,
 *    I-CNT=0, F-ADDR=its address), then Ownership if enabled. Records while
 *    stopped are not traced; START while tracing is ignored.
 *  - NTRACE_INSN_TRACE_STOP: the record is traced, then ProgTraceCorrelation
 *    (stop_evcode, I-CNT, HIST in HTM). A message still waiting for this
 *    record's target (jump, trap) is folded into that I-CNT.
 *  - Messages with an address (and DirectBranch) are emitted when the next
 *    record arrives; their address is the next record's address, and their
 *    TSTAMP is the time of the record that caused them.
 *  - Sync messages give F-ADDR = the address execution continues at (the
 *    branch/jump/trap target, or the next instruction for a sync on linear
 *    code, which is ProgTraceSync in BTM and IndirectBranchHistSync with
 *    B-TYPE=0 in HTM). Periodic sync is placed at the first message or
 *    instruction boundary after the period expires.
 *  - I-CNT full: ResourceFull RCODE=0 (or SYNC=4 with icnt_full_sync) with
 *    the count including the record that filled it, unless that record ends
 *    a message itself (then the message carries it); at a return that may be
 *    inferable, the count up to the record before it is reported.
 *  - HIST full: ResourceFull RCODE=1 with the full register; with
 *    repeated_history, identical full registers are held back and sent as
 *    one RCODE=2 message (HREPEAT = number of occurrences) before the next
 *    other message. In the SiFive v0 variant a full register whose branches
 *    all went one way starts a run instead: the branches that follow with
 *    the same outcome are counted, and the run is sent as one ResourceFull
 *    RCODE 8 (not taken) or 9 (taken) with the count (at most
 *    2^hrepeat_bits - 1) before the next branch of the other outcome or
 *    the next other message.
 *  - SiFive v0 variant: non-sync TSTAMPs are the XOR with the last reported
 *    time, ResourceFull messages carry none (its timestamp control lists
 *    sync, branch, exception, PTCM, Error and Ownership messages), and a
 *    co-routine swap is traced as an indirect call.
 *  - repeat_branch: a branch message whose fields (I-CNT, U-ADDR field,
 *    HIST, B-TYPE) equal the previous branch message's is counted and sent
 *    as RepeatBranch (B-CNT = repeats) before the next other message.
 */
int ntrace_encoder_put(struct ntrace_encoder *e, const struct ntrace_insn *insn, size_t n);

/*
 * Attributes shared by a run of records (ntrace_encoder_put_run,
 * ntrace_encoder_put_block): the privilege and context of every record,
 * and the timestamp of the first, each later record's being tstamp_step
 * more (0 when all are equal). addr_offset is added to every template
 * address (code that runs at another address than the one it was
 * decoded at; 0 otherwise).
 */
struct ntrace_run_attr {
	uint8_t priv;
	uint64_t context;
	uint64_t tstamp;
	uint64_t tstamp_step;
	uint64_t addr_offset;
};

/* Record i of a run as ntrace_encoder_put_run() takes it. */
static inline void ntrace_run_record(struct ntrace_insn *r, const struct ntrace_insn *insn,
				     size_t i, const struct ntrace_run_attr *a)
{
	*r = insn[i];
	r->addr += a->addr_offset;
	r->itype = NTRACE_ITYPE_NONE;
	r->flags = 0;
	r->priv = a->priv;
	r->context = a->context;
	r->tstamp = a->tstamp + i * a->tstamp_step;
}

/*
 * Feed n sequential records that all have itype NONE and no flags, taking
 * privilege, context and timestamps from *a instead of the records (only
 * addr and size are read); hw is the sum of their sizes in half-words.
 * The result is exactly that of ntrace_encoder_put() on the same records.
 * It is faster for a producer that holds one template record per static
 * instruction, such as a block-based instruction-set simulator: while no
 * message can fall due inside the run (none waits for a target, I-CNT and
 * the sync period do not fill, the privilege and context are unchanged and
 * no timestamp-driven sync runs), the run only adds hw to I-CNT.
 */
int ntrace_encoder_put_run(struct ntrace_encoder *e, const struct ntrace_insn *insn, size_t n,
			   unsigned int hw, const struct ntrace_run_attr *a);

/*
 * A straight-line block as a producer that decodes code once holds it
 * (ntrace_encoder_put_block): n >= 1 template records at consecutive
 * addresses, of which only addr and size are read, hw the sum of their
 * sizes in half-words, and how control left the block: the itype and
 * flags of its last record (a conditional branch taken or not, a jump, a
 * return, ...). The records before the last are plain.
 */
struct ntrace_enc_block {
	const struct ntrace_insn *insn;
	uint32_t n;
	uint32_t hw;
	uint8_t itype;
	uint8_t flags;
};

/* Record i of a block as ntrace_encoder_put_block() takes it. */
static inline void ntrace_enc_block_record(struct ntrace_insn *r, const struct ntrace_enc_block *b,
				       size_t i, const struct ntrace_run_attr *a)
{
	ntrace_run_record(r, b->insn, i, a);
	if (i + 1 == b->n) {
		r->itype = b->itype;
		r->flags = b->flags;
	}
}

/*
 * Feed a whole block with its outcome: exactly what ntrace_encoder_put()
 * gives for the records ntrace_enc_block_record(r, b, i, a), i = 0..n-1. For a
 * block-based instruction-set simulator, one call per executed block, with
 * no record built: while nothing falls due inside the block (as for
 * ntrace_encoder_put_run), the plain records only add to I-CNT and the
 * last one is classified on its own (a branch's history bit, a message
 * that waits for the next block's address). Returns 0 or the sink's
 * non-zero return value.
 */
int ntrace_encoder_put_block(struct ntrace_encoder *e, const struct ntrace_enc_block *b,
			     const struct ntrace_run_attr *a);

/*
 * Model an output FIFO overrun after the records fed so far: whatever the
 * encoder still held (waiting message, repeat counts, I-CNT, HIST) is lost,
 * and the next record is traced with an Error message (ETYPE=0, the given
 * ECODE mask, e.g. NTRACE_ECODE_PROGRAM_LOST) immediately followed by a
 * ProgTraceSync with SYNC=7 ("Error Message", "Synchronizing Messages").
 */
void ntrace_encoder_overrun(struct ntrace_encoder *e, uint64_t ecode);

/*
 * End of the instruction stream: emits what is pending and, if tracing,
 * a ProgTraceCorrelation with cfg.stop_evcode. Returns 0 or the sink's
 * non-zero return value.
 */
int ntrace_encoder_finish(struct ntrace_encoder *e);

/*
 * A ready-made sink that writes each message as bytes through the codec to
 * a FILE (with offset/size filled in), optionally forwarding the message
 * to another sink. Errors from fwrite make the sink return NTRACE_EWRITE.
 */
struct ntrace_byte_sink {
	FILE *out;		/* where bytes go; NULL: nothing written (only
				 * offsets are computed and next is called) */
	const struct ntrace_codec_cfg *codec;	/* borrowed; the encoder's codec */
	uint64_t offset;	/* bytes written so far; start it at 0 */
	ntrace_emit_fn next;	/* optional: gets each message, offset/size set */
	void *next_ctx;		/* passed to next */
};

/*
 * ntrace_emit_fn that encodes msg (ctx: struct ntrace_byte_sink). Returns 0,
 * NTRACE_EWRITE (a write error; errno says why), NTRACE_EINVAL (a message
 * the codec cannot encode: a field does not fit), or next's non-zero
 * return.
 */
int ntrace_byte_sink_emit(void *ctx, const struct ntrace_msg *msg);

/* ---- Text ingress format (for tests and "perf-ntrace encode") ---------- */

/*
 * One record per line: "ADDR SIZE ITYPE [PRIV [CONTEXT [TSTAMP [FLAGS]]]]",
 * numbers in C syntax (0x.. hex, decimal), FLAGS a number or a '|'-joined
 * list of "start", "stop", "seq" (NTRACE_INSN_* names without the prefix).
 * '#' starts a comment; blank lines are skipped.
 * Returns 1 for a record, 0 for a blank/comment line, NTRACE_EBADINPUT for
 * a bad line with *why pointing at a static reason (the field at fault).
 */
int ntrace_insn_parse_text(const char *line, struct ntrace_insn *insn, const char **why);

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_ENCODER_H */
