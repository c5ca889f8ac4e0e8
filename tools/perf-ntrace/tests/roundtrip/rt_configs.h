/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Encoder configurations of the round-trip test: every setting a decoder
 * must know, alone and combined. Shared by rt-tool and the benchmark.
 */
#ifndef NTRACE_RT_CONFIGS_H
#define NTRACE_RT_CONFIGS_H

#include <string.h>

#include "ntrace/encoder.h"

struct rt_config {
	const char *name;
	void (*apply)(struct ntrace_enc_cfg *c);
	int corrupt;	/* also run the corruption variants */
};

static void rt_btm(struct ntrace_enc_cfg *c) { (void)c; }
static void rt_htm(struct ntrace_enc_cfg *c) { c->mode = NTRACE_MODE_HTM; }
static void rt_htm_ret8(struct ntrace_enc_cfg *c)
{
	rt_htm(c);
	c->implicit_return = NTRACE_IRET_FULL;
	c->return_depth = 8;
}
static void rt_htm_retcount(struct ntrace_enc_cfg *c)
{
	rt_htm(c);
	c->implicit_return = NTRACE_IRET_COUNT;
	c->return_depth = 8;
}
static void rt_htm_retpartial(struct ntrace_enc_cfg *c)
{
	rt_htm(c);
	c->implicit_return = NTRACE_IRET_PARTIAL;
	c->return_depth = 4;
	c->return_addr_bits = 20;
}
static void rt_btm_ret2(struct ntrace_enc_cfg *c)
{
	c->implicit_return = NTRACE_IRET_FULL;
	c->return_depth = 2;
}
static void rt_htm_ret8_rh(struct ntrace_enc_cfg *c)
{
	rt_htm_ret8(c);
	c->repeated_history = true;
}
static void rt_htm_ret8_rh_seq(struct ntrace_enc_cfg *c)
{
	rt_htm_ret8_rh(c);
	c->seq_jump = true;
}
static void rt_btm_seq(struct ntrace_enc_cfg *c) { c->seq_jump = true; }
static void rt_btm_alljumps(struct ntrace_enc_cfg *c) { c->all_jumps = true; }
static void rt_htm_alljumps(struct ntrace_enc_cfg *c)
{
	rt_htm(c);
	c->all_jumps = true;
}
static void rt_htm_small(struct ntrace_enc_cfg *c)
{
	rt_htm(c);
	c->icnt_bits = 4;
	c->hist_bits = 4;
	c->hrepeat_bits = 3;
}
static void rt_htm_small_rh(struct ntrace_enc_cfg *c)
{
	rt_htm_ret8_rh(c);
	c->icnt_bits = 5;
	c->hist_bits = 3;
	c->hrepeat_bits = 2;
}
static void rt_btm_small(struct ntrace_enc_cfg *c) { c->icnt_bits = 3; }
static void rt_btm_icnt_sync(struct ntrace_enc_cfg *c)
{
	c->icnt_bits = 5;
	c->icnt_full_sync = true;
}
static void rt_btm_repeat(struct ntrace_enc_cfg *c)
{
	c->repeat_branch = true;
	c->bcnt_bits = 4;
}
static void rt_htm_repeat(struct ntrace_enc_cfg *c)
{
	rt_htm(c);
	c->repeat_branch = true;
}
static void rt_btm_sync(struct ntrace_enc_cfg *c)
{
	c->sync_mode = NTRACE_SYNCMODE_HWORDS;
	c->sync_max = 6;
}
static void rt_htm_ret8_rh_sync(struct ntrace_enc_cfg *c)
{
	rt_htm_ret8_rh(c);
	c->sync_mode = NTRACE_SYNCMODE_MSGS;
	c->sync_max = 2;
}
static void rt_htm_src(struct ntrace_enc_cfg *c)
{
	rt_htm_ret8(c);
	c->codec.src_bits = 5;
	c->src_id = 19;
}
static void rt_btm_tstamp(struct ntrace_enc_cfg *c)
{
	c->codec.tstamp = true;
	c->sync_mode = NTRACE_SYNCMODE_CYCLES;
	c->sync_max = 8;
}
static void rt_htm_tstamp_ctx(struct ntrace_enc_cfg *c)
{
	rt_htm_ret8_rh(c);
	c->codec.tstamp = true;
	c->context = true;
	c->codec.src_bits = 2;
	c->src_id = 1;
}
static void rt_btm_3bit(struct ntrace_enc_cfg *c) { c->itype_bits = 3; }
static void rt_htm_3bit(struct ntrace_enc_cfg *c)
{
	rt_htm(c);
	c->itype_bits = 3;
}
/* A 3-bit ingress port reports direct jumps as itype 5 under all-jumps. */
static void rt_htm_3bit_alljumps(struct ntrace_enc_cfg *c)
{
	rt_htm_3bit(c);
	c->all_jumps = true;
}
static void rt_htm_btype1_msb(struct ntrace_enc_cfg *c)
{
	rt_htm_ret8(c);
	c->trap_btype1 = true;
	c->codec.ext_addr_msb = true;
	c->htm_ib_no_hist = true;
}

/*
 * SiFive's pre-ratified encoder as the HiFive Premier P550 runs it
 * (teInstruction 7, rvtrace's p550.cfg): HTM, the call counter of 1023,
 * branch counts (RCODE 8/9), XOR timestamps, a 2-bit SRC, periodic sync.
 */
static void rt_htm_v0(struct ntrace_enc_cfg *c)
{
	rt_htm(c);
	c->codec.variant = NTRACE_VARIANT_SIFIVE_V0;
	c->implicit_return = NTRACE_IRET_COUNT;
	c->return_depth = NTRACE_V0_RETURN_DEPTH;
	c->repeated_history = true;
	c->codec.tstamp = true;
	c->codec.src_bits = 2;
	c->src_id = 1;
	c->sync_mode = NTRACE_SYNCMODE_MSGS;
	c->sync_max = 6;
}
/* The same with small counters: runs of 3 start often and end at 7 branches,
 * the call counter saturates at 40 (deeper than 1.0's 32). */
static void rt_htm_v0_small(struct ntrace_enc_cfg *c)
{
	rt_htm(c);
	c->codec.variant = NTRACE_VARIANT_SIFIVE_V0;
	c->implicit_return = NTRACE_IRET_COUNT;
	c->return_depth = 40;
	c->repeated_history = true;
	c->icnt_bits = 5;
	c->hist_bits = 4;
	c->hrepeat_bits = 3;
}

static const struct rt_config rt_configs[] = {
	{ "btm", rt_btm, 1 },
	{ "htm", rt_htm, 0 },
	{ "htm-ret8", rt_htm_ret8, 0 },
	{ "htm-retcount", rt_htm_retcount, 0 },
	{ "htm-retpartial", rt_htm_retpartial, 0 },
	{ "btm-ret2", rt_btm_ret2, 0 },
	{ "htm-ret8-rh", rt_htm_ret8_rh, 1 },
	{ "htm-ret8-rh-seq", rt_htm_ret8_rh_seq, 0 },
	{ "btm-seq", rt_btm_seq, 0 },
	{ "btm-alljumps", rt_btm_alljumps, 0 },
	{ "htm-alljumps", rt_htm_alljumps, 0 },
	{ "htm-small", rt_htm_small, 0 },
	{ "htm-small-rh", rt_htm_small_rh, 0 },
	{ "btm-small", rt_btm_small, 0 },
	{ "btm-icnt-sync", rt_btm_icnt_sync, 0 },
	{ "btm-repeat", rt_btm_repeat, 0 },
	{ "htm-repeat", rt_htm_repeat, 0 },
	{ "btm-sync", rt_btm_sync, 1 },
	{ "htm-ret8-rh-sync", rt_htm_ret8_rh_sync, 1 },
	{ "htm-src", rt_htm_src, 0 },
	{ "btm-tstamp", rt_btm_tstamp, 0 },
	{ "htm-tstamp-ctx-src", rt_htm_tstamp_ctx, 1 },
	{ "btm-3bit", rt_btm_3bit, 0 },
	{ "htm-3bit", rt_htm_3bit, 0 },
	{ "htm-3bit-alljumps", rt_htm_3bit_alljumps, 0 },
	{ "htm-btype1-msb", rt_htm_btype1_msb, 0 },
	{ "htm-v0-tstamp-src", rt_htm_v0, 1 },
	{ "htm-v0-small", rt_htm_v0_small, 0 },
};

#define RT_NCONFIGS (sizeof(rt_configs) / sizeof(rt_configs[0]))

static inline const struct rt_config *rt_config_find(const char *name)
{
	size_t i;

	for (i = 0; i < RT_NCONFIGS; i++)
		if (!strcmp(rt_configs[i].name, name))
			return &rt_configs[i];
	return NULL;
}

#endif /* NTRACE_RT_CONFIGS_H */
