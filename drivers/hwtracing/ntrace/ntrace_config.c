// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace: perf_event_attr.config -> encoder register values, and the
 * AUXTRACE_INFO record of a CPU. Pure functions: the KUnit module
 * (ntrace_kunit.c) builds this file into itself.
 */
#include <linux/array_size.h>
#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/ntrace_tci.h>
#include <linux/ntrace_tci_v0.h>
#include <linux/string.h>

#include "ntrace_config.h"

/* ntrace_cpu_info.ts_mode and caps->ts_mode hold trTsMode values */
static_assert(NTRACE_TS_MODE_NONE == TCI_TS_MODE_NONE);
static_assert(NTRACE_TS_MODE_EXTERNAL == TCI_TS_MODE_EXTERNAL);
static_assert(NTRACE_TS_MODE_INTERNAL_SYSTEM == TCI_TS_MODE_INTERNAL_SYSTEM);
static_assert(NTRACE_TS_MODE_INTERNAL_CORE == TCI_TS_MODE_INTERNAL_CORE);
static_assert(NTRACE_TS_MODE_SHARED == TCI_TS_MODE_SHARED);

static int reject(const char **why, const char *msg, int err)
{
	*why = msg;
	return err;
}

/* Highest implicit return mode the encoder has: full > partial > count. */
static unsigned int best_iret_mode(u8 modes)
{
	unsigned int m;

	for (m = 3; m >= 1; m--)
		if (modes & BIT(m))
			return m;
	return 0;
}

unsigned int ntrace_caps_nr_ranges(const struct ntrace_caps *caps)
{
	return min3((unsigned int)caps->nr_filters,
		    (unsigned int)caps->nr_comparators,
		    (unsigned int)NTRACE_MAX_RANGES);
}

static int resolve_options(const struct ntrace_caps *caps, u64 config,
			   bool htm, struct ntrace_prog *prog,
			   const char **why)
{
	unsigned int iret_mode = NTRACE_CFG_GET(config, IRET_MODE);

	if (iret_mode && !(config & NTRACE_CFG_IRET_MASK))
		return reject(why, "iret_mode needs iret=1", -EINVAL);
	if (config & NTRACE_CFG_IRET_MASK) {
		if (!(caps->features & TCI_TE_F_IMPLICIT_RETURN))
			return reject(why, "encoder has no implicit return",
				      -EOPNOTSUPP);
		if (!iret_mode)
			iret_mode = best_iret_mode(caps->iret_modes);
		else if (!(caps->iret_modes & BIT(iret_mode)))
			return reject(why, "encoder lacks this iret_mode",
				      -EOPNOTSUPP);
		prog->features |= TCI_TE_F_IMPLICIT_RETURN |
				  FIELD_PREP(TCI_TE_F_IRET_MODE_MASK, iret_mode);
		prog->iret_mode = iret_mode;
	}
	if (config & NTRACE_CFG_REPHIST_MASK) {
		if (!htm)
			return reject(why, "rephist needs htm=1", -EINVAL);
		if (!(caps->features & TCI_TE_F_REPEATED_HISTORY))
			return reject(why, "encoder has no repeated history",
				      -EOPNOTSUPP);
		prog->features |= TCI_TE_F_REPEATED_HISTORY;
	}
	if (config & NTRACE_CFG_SEQJUMP_MASK) {
		if (!(caps->features & TCI_TE_F_SEQ_JUMP))
			return reject(why, "encoder has no sequential jumps",
				      -EOPNOTSUPP);
		prog->features |= TCI_TE_F_SEQ_JUMP;
	}
	if (config & NTRACE_CFG_ALLJUMPS_MASK) {
		if (!(caps->features & TCI_TE_F_ALL_JUMPS))
			return reject(why, "encoder has no all-jumps mode",
				      -EOPNOTSUPP);
		prog->features |= TCI_TE_F_ALL_JUMPS;
	}
	if ((prog->features & caps->tied_features) &&
	    (prog->features & caps->tied_features) != caps->tied_features)
		return reject(why, "encoder has iret only with rephist",
			      -EOPNOTSUPP);
	if (config & NTRACE_CFG_CTX_MASK) {
		if (!caps->ctx)
			return reject(why, "encoder has no context messages",
				      -EOPNOTSUPP);
		prog->te_control |= TCI_TE_CONTEXT;
	}
	if (config & NTRACE_CFG_SRC_MASK) {
		if (!caps->src_bits)
			return reject(why, "encoder has no source ID",
				      -EOPNOTSUPP);
		prog->src = true;
	}
	return 0;
}

static int resolve_sync(const struct ntrace_caps *caps, u64 config,
			struct ntrace_prog *prog, const char **why)
{
	unsigned int sync = NTRACE_CFG_GET(config, SYNC);
	unsigned int period = NTRACE_CFG_GET(config, SYNC_PERIOD);
	unsigned int max;

	if (!sync)	/* count messages, else the first mode it has */
		sync = caps->sync_modes ? __ffs(caps->sync_modes) :
		       caps->sync_mode_reset;
	else if (!(caps->sync_modes & BIT(sync)))
		return reject(why, "encoder lacks this sync mode", -EOPNOTSUPP);
	if (period > 16)
		return reject(why, "sync_period is 1..16 (0: default)", -EINVAL);
	max = period ? period - 1 : caps->sync_max_reset;
	if (max > caps->sync_max)
		return reject(why, "sync_period above the encoder's maximum",
			      -EOPNOTSUPP);
	prog->te_control |= FIELD_PREP(TCI_TE_SYNC_MODE_MASK, sync) |
			    FIELD_PREP(TCI_TE_SYNC_MAX_MASK, max);
	return 0;
}

static int resolve_ts(const struct ntrace_caps *caps, u64 config,
		      struct ntrace_prog *prog, const char **why)
{
	unsigned int prescale = NTRACE_CFG_GET(config, TS_PRESCALE);

	if (!(config & NTRACE_CFG_TS_MASK)) {
		if (prescale)
			return reject(why, "ts_prescale needs ts=1", -EINVAL);
		return 0;
	}
	if (!caps->ts_mode)
		return reject(why, "encoder has no timestamp unit", -EOPNOTSUPP);
	if (prescale > caps->ts_prescale_max)
		return reject(why, "ts_prescale above the unit's maximum",
			      -EOPNOTSUPP);
	prog->ts_control = TCI_TS_ACTIVE | TCI_TS_COUNT | TCI_TS_ENABLE |
			   FIELD_PREP(TCI_TS_MODE_MASK, caps->ts_mode) |
			   FIELD_PREP(TCI_TS_PRESCALE_MASK, prescale);
	return 0;
}

int ntrace_config_resolve(const struct ntrace_caps *caps, u64 config,
			  u64 config1, u64 config2, bool exclude_user,
			  bool exclude_kernel, unsigned int nr_ranges,
			  struct ntrace_prog *prog, const char **why)
{
	bool htm = config & NTRACE_CFG_HTM_MASK;
	unsigned int mode;
	int err;

	memset(prog, 0, sizeof(*prog));
	*why = NULL;
	if (config & ~NTRACE_CFG_VALID_MASK)
		return reject(why, "reserved bits set in config", -EINVAL);
	if (config1 & ~NTRACE_CFG1_VALID_MASK)
		return reject(why, "reserved bits set in config1", -EINVAL);
	if (config2 & ~NTRACE_CFG2_VALID_MASK)
		return reject(why, "reserved bits set in config2", -EINVAL);
	if (exclude_user && exclude_kernel)
		return reject(why, "user and kernel both excluded", -EINVAL);
	/* htm=0 is BTM, or HTM on an encoder that has no BTM (SiFive v0) */
	if (!(caps->modes & BIT(TCI_TE_INST_MODE_BTM)))
		htm = true;
	mode = htm ? TCI_TE_INST_MODE_HTM : TCI_TE_INST_MODE_BTM;
	if (!(caps->modes & BIT(mode)))
		return reject(why, htm ? "encoder has no HTM" : "encoder has no BTM",
			      -EOPNOTSUPP);
	prog->te_control = FIELD_PREP(TCI_TE_INST_MODE_MASK, mode) |
			   FIELD_PREP(TCI_TE_FORMAT_MASK, TCI_TE_FORMAT_NTRACE);

	err = resolve_options(caps, config, htm, prog, why);
	if (!err)
		err = resolve_sync(caps, config, prog, why);
	if (!err)
		err = resolve_ts(caps, config, prog, why);
	if (err)
		return err;

	if (nr_ranges > ntrace_caps_nr_ranges(caps))
		return reject(why, "more address ranges than filters",
			      -EOPNOTSUPP);
	prog->nr_ranges = nr_ranges;
	/* Machine mode (firmware) is traced only when nothing is excluded. */
	if (exclude_user || exclude_kernel) {
		if (!caps->priv_filter || !caps->nr_filters)
			return reject(why, "encoder cannot filter by privilege",
				      -EOPNOTSUPP);
		prog->priv_mask = (exclude_user ? 0 : BIT(NTRACE_PRIV_U)) |
				  (exclude_kernel ? 0 : BIT(NTRACE_PRIV_S));
	}
	return 0;
}

u32 ntrace_prog_te_control(const struct ntrace_prog *prog)
{
	return prog->te_control;
}

u32 ntrace_prog_features(const struct ntrace_prog *prog,
			 const struct ntrace_caps *caps, unsigned int cpu)
{
	u32 f = prog->features;

	if (prog->src)
		f |= FIELD_PREP(TCI_TE_F_SRC_BITS_MASK, caps->src_bits) |
		     FIELD_PREP(TCI_TE_F_SRC_ID_MASK,
				caps->src_id_writable ? cpu : caps->src_id);
	return f;
}

u32 ntrace_sifive_te_control(const struct ntrace_prog *prog, bool own_sink)
{
	u32 sync = FIELD_GET(TCI_TE_SYNC_MODE_MASK, prog->te_control);
	u32 max = FIELD_GET(TCI_TE_SYNC_MAX_MASK, prog->te_control);
	bool opt = prog->features & TCI_TE_F_IMPLICIT_RETURN;
	u32 v = TCI_V0_ACTIVE;

	v |= FIELD_PREP(TCI_V0_TE_INST_MODE_MASK,
			opt ? TCI_V0_TE_INST_MODE_HTM_OPT : TCI_V0_TE_INST_MODE_HTM);
	/* 1.0: a sync per 2^(max + 4) messages; v0: 2^(n + 5), 32 at least */
	v |= FIELD_PREP(TCI_V0_TE_SYNC_MAX_BTM_MASK,
			sync == TCI_TE_SYNC_MODE_MSGS ? (max ? max - 1 : 0) :
			TCI_V0_TE_SYNC_OFF);
	v |= FIELD_PREP(TCI_V0_TE_SYNC_MAX_INST_MASK, TCI_V0_TE_SYNC_OFF);
	if (!prog->src)
		v |= TCI_V0_TE_INHIBIT_SRC;
	v |= FIELD_PREP(TCI_V0_SINK_MASK, own_sink ? TCI_V0_SINK_SBA :
					    TCI_V0_SINK_FUNNEL);
	return v;
}

unsigned int ntrace_src_bits(unsigned int hw_bits, unsigned int nr_cpus)
{
	unsigned int need = nr_cpus > 1 ? fls(nr_cpus - 1) : 1;

	return min(need, hw_bits);
}

u64 ntrace_ts_rate(u8 ts_mode, u64 node_hz, u64 timebase_hz)
{
	if (ts_mode == NTRACE_TS_MODE_NONE)
		return 0;
	if (node_hz)
		return node_hz;
	return ts_mode == NTRACE_TS_MODE_EXTERNAL ? timebase_hz : 0;
}

void ntrace_caps_intersect(struct ntrace_caps *all,
			   const struct ntrace_caps *one)
{
	all->modes &= one->modes;
	all->iret_modes &= one->iret_modes;
	all->sync_modes &= one->sync_modes;
	all->sync_max = min(all->sync_max, one->sync_max);
	all->sync_max_reset = min(all->sync_max_reset, one->sync_max_reset);
	all->src_bits = min(all->src_bits, one->src_bits);
	all->src_id_writable &= one->src_id_writable;
	all->ctx &= one->ctx;
	all->priv_filter &= one->priv_filter;
	all->features &= one->features;
	all->tied_features |= one->tied_features;
	all->nr_filters = min(all->nr_filters, one->nr_filters);
	all->nr_comparators = min(all->nr_comparators, one->nr_comparators);
	if (all->ts_mode != one->ts_mode || all->ts_width != one->ts_width)
		all->ts_mode = 0;
	/* timestamps on different clocks cannot be compared: rate unknown */
	if (!all->ts_mode || all->ts_rate_hz != one->ts_rate_hz)
		all->ts_rate_hz = 0;
	all->ts_prescale_max = min(all->ts_prescale_max, one->ts_prescale_max);
}

void ntrace_cpu_info_pack(struct ntrace_cpu_info *out,
			  const struct ntrace_caps *caps, unsigned int cpu,
			  u32 hartid, u32 te_control, u32 features,
			  u32 ts_control)
{
	bool inhibit = te_control & TCI_TE_INHIBIT_SRC;
	u32 opt = 0;

	memset(out, 0, sizeof(*out));
	out->cpu = cpu;
	out->hartid = hartid;
	out->src_bits = inhibit ? 0 :
			FIELD_GET(TCI_TE_F_SRC_BITS_MASK, features);
	out->src_id = out->src_bits ?
		      FIELD_GET(TCI_TE_F_SRC_ID_MASK, features) : 0;
	out->format = FIELD_GET(TCI_TE_FORMAT_MASK, te_control);
	out->proto_major = caps->proto_major;
	out->proto_minor = caps->proto_minor;
	out->te_ver_major = caps->ver_major;
	out->te_ver_minor = caps->ver_minor;
	out->variant = caps->variant;
	out->mode = FIELD_GET(TCI_TE_INST_MODE_MASK, te_control);
	if (features & TCI_TE_F_IMPLICIT_RETURN) {
		opt |= NTRACE_OPT_IRET;
		out->iret_mode = FIELD_GET(TCI_TE_F_IRET_MODE_MASK, features);
	}
	out->return_depth = caps->return_depth;
	out->return_addr_bits = caps->return_addr_bits;
	out->icnt_bits = caps->icnt_bits;
	out->hist_bits = caps->hist_bits;
	out->hrepeat_bits = caps->hrepeat_bits;
	out->bcnt_bits = caps->bcnt_bits;
	if (features & TCI_TE_F_REPEATED_HISTORY)
		opt |= NTRACE_OPT_REPHIST;
	if (features & TCI_TE_F_SEQ_JUMP)
		opt |= NTRACE_OPT_SEQJUMP;
	if (features & TCI_TE_F_ALL_JUMPS)
		opt |= NTRACE_OPT_ALLJUMPS;
	if (features & TCI_TE_F_EXTEND_ADDR_MSB)
		opt |= NTRACE_OPT_EXT_ADDR_MSB;
	if (features & TCI_TE_F_NO_ADDR_DIFF)
		opt |= NTRACE_OPT_NO_ADDR_DIFF;
	if (features & TCI_TE_F_NO_TRAP_ADDR)
		opt |= NTRACE_OPT_NO_TRAP_ADDR;
	if (te_control & TCI_TE_CONTEXT)
		opt |= NTRACE_OPT_CTX;
	if (inhibit)
		opt |= NTRACE_OPT_INHIBIT_SRC;
	if (ts_control & TCI_TS_ENABLE) {
		opt |= NTRACE_OPT_TS;
		out->ts_mode = FIELD_GET(TCI_TS_MODE_MASK, ts_control);
		out->ts_width = FIELD_GET(TCI_TS_WIDTH_MASK, ts_control);
		out->ts_prescale = FIELD_GET(TCI_TS_PRESCALE_MASK, ts_control);
		out->ts_rate_hz = caps->ts_rate_hz;
	}
	out->options = opt;
	out->itype_bits = caps->itype_bits;
	out->xlen = BITS_PER_LONG;	/* the harts' XLEN: no register shows it */
	out->va_bits = caps->va_bits;
	out->sync_mode = FIELD_GET(TCI_TE_SYNC_MODE_MASK, te_control);
	out->sync_max = FIELD_GET(TCI_TE_SYNC_MAX_MASK, te_control);
	out->te_control = te_control;
	out->te_features = features;
	out->te_impl = caps->te_impl;
	out->ts_control = ts_control;
}

/* N-Trace byte framing: MDO in bits 7:2, MSEO in bits 1:0. */
#define NT_MSEO(b)		((b) & 3)
#define NT_MDO(b)		((b) >> 2)
#define NT_MSEO_NORMAL		0
#define NT_MSEO_RESERVED	2
#define NT_MSEO_END_MSG		3
#define NT_IDLE_BYTE		0xff

/* The synchronisation messages of N-Trace 1.0 (they carry F-ADDR). */
#define NT_TCODE_PROG_TRACE_SYNC		9
#define NT_TCODE_DIRECT_BRANCH_SYNC		11
#define NT_TCODE_INDIRECT_BRANCH_SYNC		12
#define NT_TCODE_INDIRECT_BRANCH_HIST_SYNC	29
#define NT_TCODE_ERROR				8
#define NT_ECODE_PROG_LOST			BIT(2)

size_t ntrace_split_msgs(const u8 *buf, size_t len, unsigned int src_bits,
			 bool wait, ntrace_msg_fn emit, void *ctx)
{
	size_t i = 0, start, dropped = 0;

	if (wait) {
		/* an end of message or an idle byte (both MSEO 3) */
		while (i < len && NT_MSEO(buf[i]) != NT_MSEO_END_MSG)
			i++;
		i = min(i + 1, len);
		dropped = i;
	}
	while (i < len) {
		unsigned int src = 0, got = 0;
		bool bad;

		if (buf[i] == NT_IDLE_BYTE) {
			i++;
			continue;
		}
		start = i;
		/* the first byte holds the TCODE and never ends a field */
		bad = NT_MSEO(buf[i]) != NT_MSEO_NORMAL;
		while (!bad && ++i < len) {
			u8 b = buf[i];

			if (NT_MSEO(b) == NT_MSEO_RESERVED) {
				bad = true;
				break;
			}
			if (got < src_bits) {
				unsigned int k = min(6u, src_bits - got);

				src |= (NT_MDO(b) & ((1u << k) - 1)) << got;
				got += k;
			}
			if (NT_MSEO(b) == NT_MSEO_END_MSG)
				break;
		}
		if (i >= len) {			/* cut at the end */
			dropped += len - start;
			break;
		}
		if (bad || got < src_bits) {
			/* resynchronise after the next end of message */
			while (i < len && NT_MSEO(buf[i]) != NT_MSEO_END_MSG)
				i++;
			i = min(i + 1, len);
			dropped += i - start;
			continue;
		}
		i++;
		emit(ctx, src, buf + start, i - start);
	}
	return dropped;
}

size_t ntrace_msgs_fit(const u8 *buf, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max && NT_MSEO(buf[max - 1]) != NT_MSEO_END_MSG)
		max--;
	return max;
}

bool ntrace_msg_is_sync(const u8 *msg)
{
	switch (NT_MDO(msg[0])) {	/* the TCODE, whole in the first byte */
	case NT_TCODE_PROG_TRACE_SYNC:
	case NT_TCODE_DIRECT_BRANCH_SYNC:
	case NT_TCODE_INDIRECT_BRANCH_SYNC:
	case NT_TCODE_INDIRECT_BRANCH_HIST_SYNC:
		return true;
	}
	return false;
}

size_t ntrace_error_msg(u8 *buf, unsigned int src, unsigned int src_bits)
{
	/* after TCODE, six bits a byte: SRC, ETYPE[4] (0), then ECODE */
	unsigned int bits = src_bits + 4 + 3, i;
	u32 v = src | NT_ECODE_PROG_LOST << (src_bits + 4);
	size_t n = 1;

	buf[0] = NT_TCODE_ERROR << 2;
	for (i = 0; i < bits; i += 6)
		buf[n++] = ((v >> i) & 0x3f) << 2;
	buf[n - 1] |= NT_MSEO_END_MSG;
	return n;
}

enum ntrace_role ntrace_role_of_impl(u32 impl, const char **what)
{
	static const char *const names[] = {
		[TCI_COMP_ENCODER] = "trace encoder",
		[TCI_COMP_FUNNEL] = "trace funnel",
		[TCI_COMP_RAM_SINK] = "RAM sink",
		[TCI_COMP_PIB_SINK] = "PIB sink",
		[TCI_COMP_ATB_BRIDGE] = "ATB bridge",
	};
	u32 type = FIELD_GET(TCI_IMPL_COMP_TYPE_MASK, impl);

	*what = type < ARRAY_SIZE(names) ? names[type] : NULL;
	if (FIELD_GET(TCI_IMPL_VER_MAJOR_MASK, impl) != 1)
		return NTRACE_ROLE_NONE;
	switch (type) {
	case TCI_COMP_ENCODER:
		return NTRACE_ROLE_ENCODER;
	case TCI_COMP_RAM_SINK:
		return NTRACE_ROLE_SINK;
	case TCI_COMP_FUNNEL:
		return NTRACE_ROLE_FUNNEL;
	}
	return NTRACE_ROLE_NONE;
}
