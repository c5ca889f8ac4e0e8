// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Encoder configuration: defaults and validation. The same struct configures
 * the flow decoder, so the checks name the Trace Control Interface field.
 */
#include <string.h>

#include <ntrace/encoder.h>

void ntrace_enc_cfg_default(struct ntrace_enc_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->codec.xlen = 64;
	cfg->mode = NTRACE_MODE_BTM;
	cfg->itype_bits = 4;
	cfg->icnt_bits = 16;
	cfg->hist_bits = 32;
	cfg->hrepeat_bits = 18;
	cfg->bcnt_bits = 18;
	cfg->return_depth = 16;
	cfg->return_addr_bits = 16;
	cfg->start_sync = NTRACE_SYNC_TRACE_ENABLE;
	cfg->stop_evcode = NTRACE_EVCODE_TRACE_DISABLED;
}

void ntrace_enc_cfg_effective(struct ntrace_enc_cfg *cfg)
{
	if (cfg->itype_bits == 3)
		cfg->implicit_return = NTRACE_IRET_OFF;
	/* the SiFive v0 encoder has a call counter of 1023 and nothing else */
	if (cfg->codec.variant == NTRACE_VARIANT_SIFIVE_V0 &&
	    (cfg->implicit_return == NTRACE_IRET_PARTIAL || cfg->implicit_return == NTRACE_IRET_FULL)) {
		cfg->implicit_return = NTRACE_IRET_COUNT;
		cfg->return_depth = NTRACE_V0_RETURN_DEPTH;
	}
}

/* The first unusable setting, named by its Trace Control Interface field. */
static const char *cfg_problem(const struct ntrace_enc_cfg *c)
{
	if (c->mode != NTRACE_MODE_BTM && c->mode != NTRACE_MODE_HTM)
		return "trTeInstMode must be 3 (BTM) or 6 (HTM)";
	if (c->itype_bits != 3 && c->itype_bits != 4)
		return "itype width must be 3 or 4 bits";
	if (c->codec.src_bits > NTRACE_MAX_SRC_BITS)
		return "trTeSrcBits must be 0..12";
	if (c->codec.src_bits < 16 && c->src_id >> c->codec.src_bits)
		return "trTeSrcID does not fit in trTeSrcBits";
	if (c->codec.xlen && c->codec.xlen != 32 && c->codec.xlen != 64)
		return "XLEN must be 32 or 64";
	if (c->icnt_bits < 3 || c->icnt_bits > 32)
		return "I-CNT width must be 3..32 bits (overflow bit included)";
	if (c->hist_bits < 2 || c->hist_bits > NTRACE_MAX_HIST_BITS)
		return "HIST width must be 2..32 bits (stop bit included)";
	if (c->hrepeat_bits < 1 || c->hrepeat_bits > NTRACE_MAX_HREPEAT_BITS)
		return "HREPEAT width must be 1..18 bits";
	if (c->bcnt_bits < 1 || c->bcnt_bits > NTRACE_MAX_BCNT_BITS)
		return "B-CNT width must be 1..18 bits";
	if (c->implicit_return > NTRACE_IRET_FULL)
		return "trTeInstImplicitReturnMode must be 0..3";
	if (c->implicit_return && c->itype_bits != 4)
		return "implicit return needs 4-bit itype";
	if (c->codec.variant >= NTRACE_VARIANT__COUNT)
		return "unknown protocol variant";
	if (c->codec.variant == NTRACE_VARIANT_SIFIVE_V0 &&
	    c->implicit_return != NTRACE_IRET_OFF && c->implicit_return != NTRACE_IRET_COUNT)
		return "the SiFive v0 encoder's implicit return is simple call counting only";
	if (c->codec.variant == NTRACE_VARIANT_SIFIVE_V0 && c->implicit_return &&
	    (c->return_depth < 1 || c->return_depth > NTRACE_V0_RETURN_DEPTH))
		return "the SiFive v0 call counter depth must be 1..1023";
	if (c->codec.variant != NTRACE_VARIANT_SIFIVE_V0 && c->implicit_return &&
	    (c->return_depth < 1 || c->return_depth > NTRACE_IRET_MAX_DEPTH))
		return "return stack depth must be 1..32";
	if (c->implicit_return == NTRACE_IRET_PARTIAL &&
	    (c->return_addr_bits < 2 || c->return_addr_bits > 63))
		return "partial return address width must be 2..63 bits";
	if (c->icnt_full_sync && c->mode != NTRACE_MODE_BTM)
		return "SYNC=4 on I-CNT full is only allowed in BTM mode";
	if (c->htm_ib_no_hist && c->mode != NTRACE_MODE_HTM)
		return "IndirectBranch-when-HIST-empty only applies to HTM mode";
	if (c->sync_mode > NTRACE_SYNCMODE_HWORDS)
		return "trTeInstSyncMode must be 0..3";
	if (c->sync_max > 15)
		return "trTeInstSyncMax must be 0..15";
	if (c->start_sync > 15)
		return "start SYNC code must be 0..15";
	if (c->stop_evcode > 15)
		return "stop EVCODE must be 0..15";
	return NULL;
}

int ntrace_enc_cfg_check(const struct ntrace_enc_cfg *cfg, const char **why)
{
	const char *w = cfg_problem(cfg);

	if (why)
		*why = w;
	return w ? NTRACE_ECONFIG : 0;
}
