// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one place where the model meets the N-Trace encoder library
 * (tools/perf-ntrace, ntrace/encoder.h), with the per-block call inline in
 * model.h (trace_out_block): encoder configuration from the trTe*
 * registers, records in, whole messages out to the encoder's output (a
 * funnel or a RAM sink, topology.c).
 *
 * Parameters the registers do not show (a decoder must use the same):
 * the library defaults of ntrace_enc_cfg_default() (I-CNT 16 bits incl.
 * overflow bit, HIST 32 bits, return stack depth 16, partial return
 * address 16 bits), 4-bit ingress itype; XLEN is the target's (M.xlen),
 * which the registers do not show either: a decoder takes it from the
 * program's ELF class.
 */
#include <stdlib.h>
#include <string.h>

#include <ntrace/encoder.h>

#include "model.h"
#include "../../../include/uapi/linux/ntrace_tci.h"

/* Options the model's encoder implements (trTeInstFeatures WARL mask). */
uint32_t trace_out_features(void)
{
	return TCI_TE_F_SEQ_JUMP | TCI_TE_F_IMPLICIT_RETURN | TCI_TE_F_IRET_MODE_MASK |
	       TCI_TE_F_REPEATED_HISTORY | TCI_TE_F_ALL_JUMPS | TCI_TE_F_EXTEND_ADDR_MSB;
}

bool trace_out_has_context(void)
{
	return true;
}

bool trace_out_mode_ok(unsigned int mode)
{
	return mode == NTRACE_MODE_BTM || mode == NTRACE_MODE_HTM;
}

bool trace_out_sync_mode_ok(unsigned int mode)
{
	return mode <= NTRACE_SYNCMODE_HWORDS;
}

static int emit(void *ctx, const struct ntrace_msg *msg)
{
	struct trace_out *o = ctx;
	uint8_t buf[NTRACE_MSG_MAX_BYTES];
	size_t n = ntrace_msg_encode(&o->enc.cfg.codec, msg, buf);

	if (!n) {
		fprintf(stderr, "ntrace-model: hart %u: encoder produced an unencodable "
			"%s message; dropped\n", o->h->idx, ntrace_tcode_name(msg->tcode));
		return 0;
	}
	if (route_push(o->h, buf, n) < 0) {
		o->h->te.overflow = true;	/* trTeInstStallOrOverflow */
		o->dropped = true;
	}
	/* the sink's pointers moved: publish them after this block */
	o->h->ram_dirty = true;
	return 0;
}

/* The encoder's settings from its registers, as a decoder reads them. */
static const char *cfg_from_regs(struct hart *h, struct ntrace_enc_cfg *c)
{
	const struct encoder *te = &h->te;
	struct ntrace_tci_regs r = {
		.te_control = te->control,
		.te_features = te->features,
		.ts_control = te->ts_active ? TCI_TS_ACTIVE | te->ts_control : 0,
		.te_impl = h->te_regs[TCI_IMPL / 4],
	};

	/*
	 * SiFive v0: teControl and teImpl in their layout (version 0 tells
	 * the library); tsControl with its type, TSTAMP fields only while the
	 * unit has a value (a slave unit: the funnel's is active too).
	 */
	if (M.v0)
		r.ts_control = te->ts_running ? h->te_regs[TCI_TS_CONTROL / 4] : 0;

	const char *why;

	ntrace_enc_cfg_default(c);
	c->codec.xlen = (uint8_t)M.xlen;
	return ntrace_enc_cfg_from_regs(&r, c, &why) ? why : NULL;
}

const char *trace_out_start(struct hart *h)
{
	struct trace_out *o = h->enc;
	struct ntrace_enc_cfg cfg;
	const char *err;

	if (!o) {
		o = calloc(1, sizeof(*o));
		if (!o)
			return "out of memory";
		o->h = h;
		h->enc = o;
	}
	err = cfg_from_regs(h, &cfg);
	o->dropped = false;
	o->running = !err && !ntrace_encoder_init(&o->enc, &cfg, emit, o, &err);
	return err;
}

void trace_out_records(struct hart *h, const struct ntrace_insn *r, size_t n)
{
	struct trace_out *o = h->enc;

	if (o && o->running) {
		ntrace_encoder_put(&o->enc, r, n);
		trace_out_overrun_check(o);
	}
}

/* Plain records of one block (ntrace_encoder_put_run). */
void trace_out_run(struct hart *h, const struct ntrace_insn *r, size_t n, unsigned int hw,
		   const struct ntrace_run_attr *a)
{
	struct trace_out *o = h->enc;

	if (o && o->running) {
		ntrace_encoder_put_run(&o->enc, r, n, hw, a);
		trace_out_overrun_check(o);
	}
}

void trace_out_stop(struct hart *h)
{
	struct trace_out *o = h->enc;

	if (o && o->running) {
		ntrace_encoder_finish(&o->enc);
		trace_out_overrun_check(o);
		h->ram_dirty = true;
	}
	if (o)
		o->running = false;
}
