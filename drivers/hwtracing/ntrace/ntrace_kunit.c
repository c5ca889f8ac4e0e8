// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the ntrace PMU's pure functions: perf config checking
 * against discovered capabilities (errno and register values), the
 * timestamp rate, the AUXTRACE_INFO header and per-CPU record (layout
 * and contents), the splitting of a shared sink's bytes into whole
 * messages per source, and the sink's window in an AUX area.
 */
#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/module.h>
#include <linux/ntrace_tci.h>
#include <linux/stddef.h>

#include "ntrace_config.h"

/* The pure functions under test are built into this module. */
#include "ntrace_config.c"
#include "ntrace_window.c"

/* What discovery finds on the QEMU model with 4 harts (ntrace-qemu-model.rst). */
static const struct ntrace_caps model_caps = {
	.te_impl = 0x00010101,
	.ver_major = 1,
	.proto_major = 1,
	.modes = BIT(TCI_TE_INST_MODE_BTM) | BIT(TCI_TE_INST_MODE_HTM),
	.iret_modes = BIT(1) | BIT(2) | BIT(3),
	.sync_modes = BIT(1) | BIT(2) | BIT(3),
	.sync_max = 15,
	.sync_mode_reset = 1,
	.sync_max_reset = 8,
	.src_bits = 2,		/* of 12: CPU numbers 0..3 */
	.src_id_writable = true,
	.ctx = true,
	.priv_filter = true,
	.features = TCI_TE_F_SEQ_JUMP | TCI_TE_F_IMPLICIT_RETURN |
		    TCI_TE_F_REPEATED_HISTORY | TCI_TE_F_ALL_JUMPS |
		    TCI_TE_F_EXTEND_ADDR_MSB,
	.nr_filters = 2,
	.nr_comparators = 2,
	.ts_mode = NTRACE_TS_MODE_EXTERNAL,	/* the platform timer */
	.ts_width = 48,
	.ts_prescale_max = 3,
	.ts_rate_hz = 10000000,			/* virt's timebase-frequency */
	.icnt_bits = 16,
	.hist_bits = 32,
	.hrepeat_bits = 18,
	.bcnt_bits = 18,
	.return_depth = 16,
	.return_addr_bits = 16,
	.itype_bits = 4,
	.va_bits = 39,
};

/*
 * What discovery finds on a SiFive v0 encoder of the P550 (hart 2 of 4,
 * through the system funnel), in TCI 1.0 terms (ntrace_sifive.c).
 */
static const struct ntrace_caps sifive_v0_caps = {
	.te_impl = 0x22200100,	/* hartid 2, nSrcBits 2, srcID 2, funnel sink */
	.variant = NTRACE_PROTO_VARIANT_SIFIVE_V0,
	.modes = BIT(TCI_TE_INST_MODE_HTM),
	.iret_modes = BIT(TCI_TE_IRET_MODE_COUNT),
	.features = TCI_TE_F_IMPLICIT_RETURN | TCI_TE_F_REPEATED_HISTORY,
	.tied_features = TCI_TE_F_IMPLICIT_RETURN | TCI_TE_F_REPEATED_HISTORY,
	.sync_modes = BIT(TCI_TE_SYNC_MODE_MSGS),
	.sync_max = 12,
	.sync_mode_reset = TCI_TE_SYNC_MODE_MSGS,
	.sync_max_reset = 4,	/* teSyncMaxBTM reset 3: 256 messages */
	.src_bits = 2,
	.src_id = 2,
	.ts_mode = NTRACE_TS_MODE_SHARED,
	.ts_width = 40,
	.icnt_bits = 16,
	.hist_bits = 32,
	.bcnt_bits = 18,
	.itype_bits = 4,
};

/* A minimal encoder: BTM only, no options, no filters, no timestamps. */
static const struct ntrace_caps bare_caps = {
	.te_impl = 0x00010101,
	.modes = BIT(TCI_TE_INST_MODE_BTM),
	.sync_modes = BIT(3),
	.sync_max = 4,
	.sync_mode_reset = 3,
	.sync_max_reset = 2,
};

static int resolve(const struct ntrace_caps *c, u64 config, bool xu, bool xk,
		   struct ntrace_prog *p)
{
	const char *why;
	int err = ntrace_config_resolve(c, config, 0, 0, xu, xk, 0, p, &why);

	/* every refusal names its reason */
	if (err && !why)
		return -EFAULT;
	return err;
}

static void ntrace_defaults_test(struct kunit *test)
{
	struct ntrace_prog p;

	KUNIT_ASSERT_EQ(test, resolve(&model_caps, 0, false, false, &p), 0);
	KUNIT_EXPECT_EQ(test, FIELD_GET(TCI_TE_INST_MODE_MASK, p.te_control),
			TCI_TE_INST_MODE_BTM);
	KUNIT_EXPECT_EQ(test, FIELD_GET(TCI_TE_FORMAT_MASK, p.te_control), 1);
	KUNIT_EXPECT_EQ(test, FIELD_GET(TCI_TE_SYNC_MODE_MASK, p.te_control),
			1);
	KUNIT_EXPECT_EQ(test, FIELD_GET(TCI_TE_SYNC_MAX_MASK, p.te_control), 8);
	KUNIT_EXPECT_EQ(test, p.features, 0);
	KUNIT_EXPECT_EQ(test, p.ts_control, 0);
	KUNIT_EXPECT_EQ(test, p.priv_mask, 0);
	KUNIT_EXPECT_FALSE(test, p.src);

	/* bare encoder: its only sync mode and its reset period */
	KUNIT_ASSERT_EQ(test, resolve(&bare_caps, 0, false, false, &p), 0);
	KUNIT_EXPECT_EQ(test, FIELD_GET(TCI_TE_SYNC_MODE_MASK, p.te_control),
			3);
	KUNIT_EXPECT_EQ(test, FIELD_GET(TCI_TE_SYNC_MAX_MASK, p.te_control), 2);
}

static void ntrace_options_test(struct kunit *test)
{
	u64 cfg = NTRACE_CFG_SET(HTM, 1) | NTRACE_CFG_SET(IRET, 1) |
		  NTRACE_CFG_SET(REPHIST, 1) | NTRACE_CFG_SET(SEQJUMP, 1) |
		  NTRACE_CFG_SET(ALLJUMPS, 1) | NTRACE_CFG_SET(CTX, 1) |
		  NTRACE_CFG_SET(SYNC, 3) | NTRACE_CFG_SET(SYNC_PERIOD, 16) |
		  NTRACE_CFG_SET(TS, 1) | NTRACE_CFG_SET(TS_PRESCALE, 2) |
		  NTRACE_CFG_SET(SRC, 1);
	struct ntrace_prog p;
	u32 f;

	KUNIT_ASSERT_EQ(test, resolve(&model_caps, cfg, false, true, &p), 0);
	KUNIT_EXPECT_EQ(test, FIELD_GET(TCI_TE_INST_MODE_MASK, p.te_control),
			TCI_TE_INST_MODE_HTM);
	KUNIT_EXPECT_TRUE(test, p.te_control & TCI_TE_CONTEXT);
	KUNIT_EXPECT_EQ(test, FIELD_GET(TCI_TE_SYNC_MODE_MASK, p.te_control),
			3);
	KUNIT_EXPECT_EQ(test, FIELD_GET(TCI_TE_SYNC_MAX_MASK, p.te_control),
			15);
	/* iret without a mode: the best one, full address compare */
	KUNIT_EXPECT_EQ(test, p.features,
			TCI_TE_F_IMPLICIT_RETURN |
			FIELD_PREP(TCI_TE_F_IRET_MODE_MASK, 3) |
			TCI_TE_F_REPEATED_HISTORY | TCI_TE_F_SEQ_JUMP |
			TCI_TE_F_ALL_JUMPS);
	KUNIT_EXPECT_EQ(test, p.ts_control,
			TCI_TS_ACTIVE | TCI_TS_COUNT | TCI_TS_ENABLE |
			FIELD_PREP(TCI_TS_MODE_MASK, NTRACE_TS_MODE_EXTERNAL) |
			FIELD_PREP(TCI_TS_PRESCALE_MASK, 2));
	KUNIT_EXPECT_EQ(test, p.priv_mask, BIT(NTRACE_PRIV_U));
	f = ntrace_prog_features(&p, &model_caps, 3);
	KUNIT_EXPECT_EQ(test, FIELD_GET(TCI_TE_F_SRC_ID_MASK, f), 3);
	KUNIT_EXPECT_EQ(test, FIELD_GET(TCI_TE_F_SRC_BITS_MASK, f), 2);

	cfg = NTRACE_CFG_SET(IRET, 1) | NTRACE_CFG_SET(IRET_MODE, 1);
	KUNIT_ASSERT_EQ(test, resolve(&model_caps, cfg, true, false, &p), 0);
	KUNIT_EXPECT_EQ(test, FIELD_GET(TCI_TE_F_IRET_MODE_MASK, p.features),
			1);
	KUNIT_EXPECT_EQ(test, p.priv_mask, BIT(NTRACE_PRIV_S));
}

struct bad_config {
	const char *what;
	const struct ntrace_caps *caps;
	u64 config, config1, config2;
	bool xu, xk;
	unsigned int ranges;
	int err;
};

static const struct bad_config bad_configs[] = {
	{ "reserved config bit 9", &model_caps, BIT_ULL(9), 0, 0, 0, 0, 0, -EINVAL },
	{ "reserved config bit 63", &model_caps, BIT_ULL(63), 0, 0, 0, 0, 0, -EINVAL },
	{ "config1 set", &model_caps, 0, 1, 0, 0, 0, 0, -EINVAL },
	{ "config2 set", &model_caps, 0, 0, 1, 0, 0, 0, -EINVAL },
	{ "user and kernel excluded", &model_caps, 0, 0, 0, 1, 1, 0, -EINVAL },
	{ "iret_mode without iret", &model_caps, NTRACE_CFG_SET(IRET_MODE, 2),
	  0, 0, 0, 0, 0, -EINVAL },
	{ "rephist with BTM", &model_caps, NTRACE_CFG_SET(REPHIST, 1),
	  0, 0, 0, 0, 0, -EINVAL },
	{ "sync_period 17", &model_caps, NTRACE_CFG_SET(SYNC_PERIOD, 17),
	  0, 0, 0, 0, 0, -EINVAL },
	{ "ts_prescale without ts", &model_caps,
	  NTRACE_CFG_SET(TS_PRESCALE, 1), 0, 0, 0, 0, 0, -EINVAL },
	{ "HTM on a BTM-only encoder", &bare_caps, NTRACE_CFG_SET(HTM, 1),
	  0, 0, 0, 0, 0, -EOPNOTSUPP },
	{ "iret unsupported", &bare_caps, NTRACE_CFG_SET(IRET, 1),
	  0, 0, 0, 0, 0, -EOPNOTSUPP },
	{ "seqjump unsupported", &bare_caps, NTRACE_CFG_SET(SEQJUMP, 1),
	  0, 0, 0, 0, 0, -EOPNOTSUPP },
	{ "alljumps unsupported", &bare_caps, NTRACE_CFG_SET(ALLJUMPS, 1),
	  0, 0, 0, 0, 0, -EOPNOTSUPP },
	{ "ctx unsupported", &bare_caps, NTRACE_CFG_SET(CTX, 1),
	  0, 0, 0, 0, 0, -EOPNOTSUPP },
	{ "src unsupported", &bare_caps, NTRACE_CFG_SET(SRC, 1),
	  0, 0, 0, 0, 0, -EOPNOTSUPP },
	{ "sync mode 1 unsupported", &bare_caps, NTRACE_CFG_SET(SYNC, 1),
	  0, 0, 0, 0, 0, -EOPNOTSUPP },
	{ "sync_period above max", &bare_caps, NTRACE_CFG_SET(SYNC_PERIOD, 6),
	  0, 0, 0, 0, 0, -EOPNOTSUPP },
	{ "no timestamp unit", &bare_caps, NTRACE_CFG_SET(TS, 1),
	  0, 0, 0, 0, 0, -EOPNOTSUPP },
	{ "user-only without filters", &bare_caps, 0, 0, 0, 0, 1, 0,
	  -EOPNOTSUPP },
	{ "3 ranges with 2 filters", &model_caps, 0, 0, 0, 0, 0, 3,
	  -EOPNOTSUPP },
};

static void bad_config_desc(const struct bad_config *b, char *desc)
{
	strscpy(desc, b->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad_config, bad_configs, bad_config_desc);

static void ntrace_bad_config_test(struct kunit *test)
{
	const struct bad_config *b = test->param_value;
	struct ntrace_prog p;
	const char *why;

	KUNIT_EXPECT_EQ(test, ntrace_config_resolve(b->caps, b->config,
						    b->config1, b->config2,
						    b->xu, b->xk, b->ranges,
						    &p, &why), b->err);
	KUNIT_EXPECT_NOT_NULL(test, why);
}

static void ntrace_ts_rate_test(struct kunit *test)
{
	/* no unit: no rate, whatever the device tree says */
	KUNIT_EXPECT_EQ(test, ntrace_ts_rate(NTRACE_TS_MODE_NONE, 1000, 10000000), 0);
	/* External without the property: the platform timer */
	KUNIT_EXPECT_EQ(test, ntrace_ts_rate(NTRACE_TS_MODE_EXTERNAL, 0, 10000000),
			10000000);
	/* the node's riscv,timestamp-frequency wins */
	KUNIT_EXPECT_EQ(test, ntrace_ts_rate(NTRACE_TS_MODE_EXTERNAL, 1000000, 10000000),
			1000000);
	KUNIT_EXPECT_EQ(test, ntrace_ts_rate(NTRACE_TS_MODE_INTERNAL_SYSTEM, 25000000,
					     10000000), 25000000);
	/* an internal clock the device tree does not name: unknown */
	KUNIT_EXPECT_EQ(test, ntrace_ts_rate(NTRACE_TS_MODE_INTERNAL_CORE, 0, 10000000), 0);
	KUNIT_EXPECT_EQ(test, ntrace_ts_rate(NTRACE_TS_MODE_EXTERNAL, 0, 0), 0);
}

/*
 * The role of a generic "riscv,trace-component" node from its tr??Impl:
 * values laid out as the TCI specification's tables give them.
 */
static void ntrace_role_of_impl_test(struct kunit *test)
{
	static const struct {
		u32 impl;
		enum ntrace_role role;
		const char *what;
	} t[] = {
		/* trTeImpl: N-Trace 1.0 (trTeProtocolMajor 1), encoder 1.0 */
		{ 0x00010101, NTRACE_ROLE_ENCODER, "trace encoder" },
		/* newer or experimental minor: still driven (the probe warns) */
		{ 0x00010131, NTRACE_ROLE_ENCODER, "trace encoder" },
		{ 0x000101f1, NTRACE_ROLE_ENCODER, "trace encoder" },
		/* pre-ratified 0.x and a future 2.0: not driven */
		{ 0x00010100, NTRACE_ROLE_NONE, "trace encoder" },
		{ 0x00010102, NTRACE_ROLE_NONE, "trace encoder" },
		/* trRamImpl with trRamHasSMEM (and trRamHasSRAM) */
		{ 0x00002901, NTRACE_ROLE_SINK, "RAM sink" },
		{ 0x00003901, NTRACE_ROLE_SINK, "RAM sink" },
		/* trFunnelImpl, with vendor bits 31:24 set */
		{ 0xab000801, NTRACE_ROLE_FUNNEL, "trace funnel" },
		/* sinks the drivers do not drive */
		{ 0x00000a01, NTRACE_ROLE_NONE, "PIB sink" },
		{ 0x00000e01, NTRACE_ROLE_NONE, "ATB bridge" },
		/* types the TCI does not define; an empty block reads 0 */
		{ 0x00000301, NTRACE_ROLE_NONE, NULL },
		{ 0x00000f01, NTRACE_ROLE_NONE, NULL },
		{ 0x00000000, NTRACE_ROLE_NONE, NULL },
	};
	const char *what;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		KUNIT_EXPECT_EQ_MSG(test, ntrace_role_of_impl(t[i].impl, &what),
				    t[i].role, "trImpl %#010x", t[i].impl);
		if (t[i].what)
			KUNIT_EXPECT_STREQ_MSG(test, what, t[i].what,
					       "trImpl %#010x", t[i].impl);
		else
			KUNIT_EXPECT_NULL_MSG(test, what, "trImpl %#010x",
					      t[i].impl);
	}
}

/* The SRC width for trTeSrcID = CPU number: enough for every CPU, no more. */
static void ntrace_src_bits_test(struct kunit *test)
{
	static const struct {
		unsigned int hw, cpus, want;
	} t[] = {
		{ 12, 1, 1 },		/* one CPU: still a SRC field */
		{ 12, 2, 1 },
		{ 12, 3, 2 },
		{ 12, 4, 2 },
		{ 12, 5, 3 },
		{ 12, 256, 8 },
		{ 12, 257, 9 },
		{ 12, 4096, 12 },
		{ 12, 8192, 12 },	/* never wider than the encoder */
		{ 4, 64, 4 },
		{ 1, 1, 1 },
		{ 0, 4, 0 },		/* no SRC field at all */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		KUNIT_EXPECT_EQ_MSG(test, ntrace_src_bits(t[i].hw, t[i].cpus),
				    t[i].want, "%u bits, %u CPUs", t[i].hw,
				    t[i].cpus);
}

static void ntrace_intersect_test(struct kunit *test)
{
	struct ntrace_caps all = model_caps, other = model_caps;

	ntrace_caps_intersect(&all, &bare_caps);
	KUNIT_EXPECT_EQ(test, all.modes, BIT(TCI_TE_INST_MODE_BTM));
	KUNIT_EXPECT_EQ(test, all.sync_modes, BIT(3));
	KUNIT_EXPECT_EQ(test, all.sync_max, 4);
	KUNIT_EXPECT_EQ(test, all.features, 0);
	KUNIT_EXPECT_EQ(test, all.ts_mode, 0);
	KUNIT_EXPECT_EQ(test, all.ts_rate_hz, 0);
	KUNIT_EXPECT_EQ(test, ntrace_caps_nr_ranges(&all), 0);
	KUNIT_EXPECT_EQ(test, ntrace_caps_nr_ranges(&model_caps), 2);

	/* same timestamp clock everywhere: its rate stays */
	all = model_caps;
	ntrace_caps_intersect(&all, &other);
	KUNIT_EXPECT_EQ(test, all.ts_rate_hz, 10000000);
	/* timestamps at different rates: no common rate */
	other.ts_rate_hz = 1000000;
	ntrace_caps_intersect(&all, &other);
	KUNIT_EXPECT_EQ(test, all.ts_mode, NTRACE_TS_MODE_EXTERNAL);
	KUNIT_EXPECT_EQ(test, all.ts_rate_hz, 0);
}

static void ntrace_info_layout_test(struct kunit *test)
{
	/* The ABI: sizes and u64 alignment of include/uapi/linux/ntrace.h */
	KUNIT_EXPECT_EQ(test, sizeof(struct ntrace_auxtrace_info), 88);
	KUNIT_EXPECT_EQ(test, sizeof(struct ntrace_cpu_info), 72);
	KUNIT_EXPECT_EQ(test, offsetof(struct ntrace_cpu_info, ts_zero),
			NTRACE_CPU_INFO_SIZE_V1);
	KUNIT_EXPECT_EQ(test, offsetof(struct ntrace_auxtrace_info, config), 32);
	/* the time conversion is appended to the first layout */
	KUNIT_EXPECT_EQ(test, offsetof(struct ntrace_auxtrace_info, time_shift),
			NTRACE_AUXTRACE_INFO_SIZE_V1);
	KUNIT_EXPECT_EQ(test, offsetof(struct ntrace_auxtrace_info, time_flags), 58);
	KUNIT_EXPECT_EQ(test, offsetof(struct ntrace_auxtrace_info, time_mult), 60);
	KUNIT_EXPECT_EQ(test, offsetof(struct ntrace_auxtrace_info, time_zero), 64);
	KUNIT_EXPECT_EQ(test, offsetof(struct ntrace_auxtrace_info, time_cycles), 72);
	KUNIT_EXPECT_EQ(test, offsetof(struct ntrace_auxtrace_info, time_mask), 80);
	KUNIT_EXPECT_EQ(test, NTRACE_AUXTRACE_VERSION, 1);
	KUNIT_EXPECT_EQ(test, offsetof(struct ntrace_cpu_info, src_id), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct ntrace_cpu_info, mode), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct ntrace_cpu_info, options), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct ntrace_cpu_info, ts_rate_hz), 40);
	KUNIT_EXPECT_EQ(test, offsetof(struct ntrace_cpu_info, te_control), 48);
	KUNIT_EXPECT_EQ(test, offsetof(struct ntrace_cpu_info, ts_control), 60);
	/* the magic reads "NTTRACE1" in a little-endian file */
	KUNIT_EXPECT_EQ(test, NTRACE_AUXTRACE_MAGIC & 0xff, 'N');
	KUNIT_EXPECT_EQ(test, NTRACE_AUXTRACE_MAGIC >> 56, '1');
}

static void ntrace_info_pack_test(struct kunit *test)
{
	u64 cfg = NTRACE_CFG_SET(HTM, 1) | NTRACE_CFG_SET(IRET, 1) |
		  NTRACE_CFG_SET(IRET_MODE, 2) | NTRACE_CFG_SET(TS, 1) |
		  NTRACE_CFG_SET(CTX, 1) | NTRACE_CFG_SET(SRC, 1) |
		  NTRACE_CFG_SET(SYNC_PERIOD, 5);
	struct ntrace_cpu_info ci;
	struct ntrace_prog p;
	u32 ctl, f, ts;

	KUNIT_ASSERT_EQ(test, resolve(&model_caps, cfg, false, true, &p), 0);
	ctl = TCI_ACTIVE | TCI_ENABLE | p.te_control;
	f = ntrace_prog_features(&p, &model_caps, 3);
	ts = p.ts_control | FIELD_PREP(TCI_TS_WIDTH_MASK, 48);
	ntrace_cpu_info_pack(&ci, &model_caps, 3, 7, ctl, f, ts);
	KUNIT_EXPECT_EQ(test, ci.cpu, 3);
	KUNIT_EXPECT_EQ(test, ci.hartid, 7);
	KUNIT_EXPECT_EQ(test, ci.src_id, 3);
	KUNIT_EXPECT_EQ(test, ci.src_bits, 2);
	KUNIT_EXPECT_EQ(test, ci.format, 1);
	KUNIT_EXPECT_EQ(test, ci.proto_major, 1);
	KUNIT_EXPECT_EQ(test, ci.proto_minor, 0);
	KUNIT_EXPECT_EQ(test, ci.te_ver_major, 1);
	KUNIT_EXPECT_EQ(test, ci.mode, TCI_TE_INST_MODE_HTM);
	KUNIT_EXPECT_EQ(test, ci.iret_mode, 2);
	KUNIT_EXPECT_EQ(test, ci.options,
			NTRACE_OPT_IRET | NTRACE_OPT_TS | NTRACE_OPT_CTX);
	KUNIT_EXPECT_EQ(test, ci.sync_mode, 1);
	KUNIT_EXPECT_EQ(test, ci.sync_max, 4);
	KUNIT_EXPECT_EQ(test, ci.ts_mode, NTRACE_TS_MODE_EXTERNAL);
	KUNIT_EXPECT_EQ(test, ci.ts_width, 48);
	KUNIT_EXPECT_EQ(test, ci.ts_rate_hz, 10000000);
	KUNIT_EXPECT_EQ(test, ci.icnt_bits, 16);
	KUNIT_EXPECT_EQ(test, ci.hist_bits, 32);
	KUNIT_EXPECT_EQ(test, ci.return_depth, 16);
	KUNIT_EXPECT_EQ(test, ci.return_addr_bits, 16);
	KUNIT_EXPECT_EQ(test, ci.itype_bits, 4);
	KUNIT_EXPECT_EQ(test, ci.xlen, IS_ENABLED(CONFIG_64BIT) ? 64 : 32);
	KUNIT_EXPECT_EQ(test, ci.va_bits, 39);
	KUNIT_EXPECT_EQ(test, ci.te_control, ctl);
	KUNIT_EXPECT_EQ(test, ci.te_features, f);
	KUNIT_EXPECT_EQ(test, ci.reserved0, 0);

	/* trTeInhibitSrc: no SRC field whatever trTeSrcBits says */
	ntrace_cpu_info_pack(&ci, &model_caps, 3, 7, ctl | TCI_TE_INHIBIT_SRC, f,
			     0);
	KUNIT_EXPECT_EQ(test, ci.src_bits, 0);
	KUNIT_EXPECT_EQ(test, ci.src_id, 0);
	KUNIT_EXPECT_TRUE(test, ci.options & NTRACE_OPT_INHIBIT_SRC);
	KUNIT_EXPECT_FALSE(test, ci.options & NTRACE_OPT_TS);
	KUNIT_EXPECT_EQ(test, ci.ts_width, 0);
	KUNIT_EXPECT_EQ(test, ci.ts_rate_hz, 0);
}

/*
 * A SiFive v0 encoder: HTM whatever htm says, implicit return only with
 * repeated history, its fixed source ID, no privilege filter, and the
 * teControl values the P550's register table gives (bit numbers written
 * out here, not taken from linux/ntrace_tci_v0.h).
 */
static void ntrace_sifive_v0_test(struct kunit *test)
{
	u64 opt = NTRACE_CFG_SET(IRET, 1) | NTRACE_CFG_SET(REPHIST, 1);
	struct ntrace_cpu_info ci;
	struct ntrace_prog p;

	KUNIT_ASSERT_EQ(test, resolve(&sifive_v0_caps, 0, false, false, &p), 0);
	KUNIT_EXPECT_EQ(test, FIELD_GET(TCI_TE_INST_MODE_MASK, p.te_control),
			TCI_TE_INST_MODE_HTM);
	/* active, teInstruction 6, teInhibitSrc, teSyncMaxBTM 3, teSyncMaxInst
	 * off, teSink 7 (its own system memory sink)
	 */
	KUNIT_EXPECT_EQ(test, ntrace_sifive_te_control(&p, true),
			0x1 | 6 << 4 | 1 << 15 | 3 << 16 | 0xf << 20 | 7u << 28);

	KUNIT_EXPECT_EQ(test, resolve(&sifive_v0_caps, NTRACE_CFG_SET(IRET, 1),
				      false, false, &p), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, resolve(&sifive_v0_caps, NTRACE_CFG_SET(HTM, 1) |
				      NTRACE_CFG_SET(REPHIST, 1), false, false, &p),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, resolve(&sifive_v0_caps, 0, false, true, &p),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, resolve(&sifive_v0_caps, NTRACE_CFG_SET(IRET_MODE, 2) |
				      opt, false, false, &p), -EOPNOTSUPP);

	/* as riscv-trace-umd's p550.cfg: teInstruction 7, teSyncMaxBTM 11 */
	KUNIT_ASSERT_EQ(test, resolve(&sifive_v0_caps, opt | NTRACE_CFG_SET(SRC, 1) |
				      NTRACE_CFG_SET(SYNC_PERIOD, 13), false, false,
				      &p), 0);
	KUNIT_EXPECT_EQ(test, p.iret_mode, TCI_TE_IRET_MODE_COUNT);
	KUNIT_EXPECT_EQ(test, ntrace_sifive_te_control(&p, false),
			0x1 | 7 << 4 | 0xb << 16 | 0xf << 20 | 8u << 28);
	KUNIT_EXPECT_EQ(test, resolve(&sifive_v0_caps, opt | NTRACE_CFG_SET(SYNC_PERIOD, 14),
				      false, false, &p), -EOPNOTSUPP);

	/* the SRC its messages carry is the fixed one, whatever the CPU */
	KUNIT_ASSERT_EQ(test, resolve(&sifive_v0_caps, opt | NTRACE_CFG_SET(SRC, 1),
				      false, false, &p), 0);
	ntrace_cpu_info_pack(&ci, &sifive_v0_caps, 0, 2, p.te_control,
			     ntrace_prog_features(&p, &sifive_v0_caps, 0), 0);
	KUNIT_EXPECT_EQ(test, ci.variant, NTRACE_PROTO_VARIANT_SIFIVE_V0);
	KUNIT_EXPECT_EQ(test, ci.src_id, 2);
	KUNIT_EXPECT_EQ(test, ci.src_bits, 2);
	KUNIT_EXPECT_EQ(test, ci.te_ver_major, 0);
	KUNIT_EXPECT_EQ(test, ci.options, NTRACE_OPT_IRET | NTRACE_OPT_REPHIST);
}

/*
 * ntrace_split_msgs(): N-Trace bytes of several sources (SRC field) into
 * whole messages. The expected bytes are built by msg_enc below, an
 * encoder of the specification's framing written for this test ("MDO and
 * MSEO", "MSEO Sequences": fields LSB first in the 6 MDO bits of each
 * byte, a fixed field runs on into the next field's bits, the last byte
 * of a variable field has MSEO 01, of a message 11; 0xFF is idle) and by
 * the specification's own example message.
 */
#define NT_TCODE_DIRECT_BRANCH		3
#define NT_TCODE_INDIRECT_BRANCH_HIST	28

struct msg_enc {
	u8 buf[32];
	size_t len;
	u32 acc;		/* bits not yet in a byte */
	unsigned int bits;
};

static void enc_flush(struct msg_enc *e, unsigned int mseo)
{
	e->buf[e->len++] = (e->acc & 0x3f) << 2 | mseo;
	e->acc >>= 6;
	e->bits = e->bits > 6 ? e->bits - 6 : 0;
}

static void enc_bits(struct msg_enc *e, u32 val, unsigned int width)
{
	unsigned int i;

	for (i = 0; i < width; i++) {
		e->acc |= ((val >> i) & 1) << e->bits;
		if (++e->bits == 6)
			enc_flush(e, 0);
	}
}

/* A message starts with its TCODE, then SRC (src_bits wide) if any. */
static void enc_start(struct msg_enc *e, unsigned int tcode,
		      unsigned int src_bits, u32 src)
{
	memset(e, 0, sizeof(*e));
	enc_bits(e, tcode, 6);
	enc_bits(e, src, src_bits);
}

/* A variable field of the value's significant bits (at least one). */
static void enc_var(struct msg_enc *e, u64 val, bool last)
{
	unsigned int mseo = last ? 3 : 1;

	do {
		enc_bits(e, val & 1, 1);
		val >>= 1;
	} while (val);
	if (e->bits)
		enc_flush(e, mseo);
	else
		e->buf[e->len - 1] |= mseo;
}

/* DirectBranch: TCODE, SRC, I-CNT */
static void enc_direct(struct msg_enc *e, unsigned int src_bits, u32 src,
		       u32 icnt)
{
	enc_start(e, NT_TCODE_DIRECT_BRANCH, src_bits, src);
	enc_var(e, icnt, true);
}

/* ProgTraceSync: TCODE, SRC, SYNC[4], I-CNT, F-ADDR */
static void enc_sync(struct msg_enc *e, unsigned int src_bits, u32 src,
		     u32 icnt, u64 faddr)
{
	enc_start(e, NT_TCODE_PROG_TRACE_SYNC, src_bits, src);
	enc_bits(e, 5, 4);
	enc_var(e, icnt, false);
	enc_var(e, faddr, true);
}

struct split_out {
	unsigned int n;
	unsigned int src[16];
	const u8 *msg[16];
	size_t size[16];
};

static void split_collect(void *ctx, unsigned int src, const u8 *msg,
			  size_t size)
{
	struct split_out *o = ctx;

	if (o->n < ARRAY_SIZE(o->src)) {
		o->src[o->n] = src;
		o->msg[o->n] = msg;
		o->size[o->n] = size;
	}
	o->n++;
}

/* A stream of encoded messages with idle bytes where asked. */
struct stream {
	u8 buf[256];
	size_t len;
	size_t off[16];		/* where each message starts */
	size_t size[16];
	unsigned int n;
};

static void put_idle(struct stream *s, unsigned int n)
{
	memset(s->buf + s->len, 0xff, n);
	s->len += n;
}

static void put_msg(struct stream *s, const struct msg_enc *e)
{
	s->off[s->n] = s->len;
	s->size[s->n++] = e->len;
	memcpy(s->buf + s->len, e->buf, e->len);
	s->len += e->len;
}

static void ntrace_split_spec_example_test(struct kunit *test)
{
	/* "MDO and MSEO Encoding Example": idle, IndirectBranchHist, idle */
	static const u8 ex[] = { 0xff, 0x70, 0xd0, 0x1d, 0x1d, 0xf8, 0xff, 0xff };
	struct split_out o = { };
	struct msg_enc e;

	KUNIT_EXPECT_EQ(test, ntrace_split_msgs(ex, sizeof(ex), 0, false,
						split_collect, &o), 0);
	KUNIT_ASSERT_EQ(test, o.n, 1);
	KUNIT_EXPECT_EQ(test, o.src[0], 0);
	KUNIT_EXPECT_PTR_EQ(test, o.msg[0], ex + 1);
	KUNIT_EXPECT_EQ(test, o.size[0], 6);

	/* the encoder of this test makes the same bytes from the fields */
	enc_start(&e, NT_TCODE_INDIRECT_BRANCH_HIST, 0, 0);
	enc_bits(&e, 0, 2);		/* B-TYPE */
	enc_var(&e, 0x7d, false);	/* I-CNT */
	enc_var(&e, 0x7, false);	/* U-ADDR */
	enc_bits(&e, 0xffe, 12);	/* HIST, the last field */
	e.buf[e.len - 1] |= 3;
	KUNIT_ASSERT_EQ(test, e.len, 6);
	KUNIT_EXPECT_MEMEQ(test, e.buf, ex + 1, 6);
}

/* Messages of three sources, idle bytes between some: each whole, in order. */
static void ntrace_split_sources_test(struct kunit *test)
{
	static const u32 srcs[] = { 9, 10, 9, 11, 10, 9 };
	struct stream s = { };
	struct split_out o = { };
	struct msg_enc e;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(srcs); i++) {
		if (i % 2)
			enc_sync(&e, 4, srcs[i], 100 * i + 1,
				 0x10000ull * (i + 1) + 0x1234);
		else
			enc_direct(&e, 4, srcs[i], 1 << (3 * i));
		put_msg(&s, &e);
		put_idle(&s, i % 3);
	}
	KUNIT_EXPECT_EQ(test, ntrace_split_msgs(s.buf, s.len, 4, false,
						split_collect, &o), 0);
	KUNIT_ASSERT_EQ(test, o.n, ARRAY_SIZE(srcs));
	for (i = 0; i < ARRAY_SIZE(srcs); i++) {
		KUNIT_EXPECT_EQ(test, o.src[i], srcs[i]);
		KUNIT_EXPECT_PTR_EQ(test, o.msg[i], s.buf + s.off[i]);
		KUNIT_EXPECT_EQ(test, o.size[i], s.size[i]);
		/* the odd ones are ProgTraceSync, the others DirectBranch */
		KUNIT_EXPECT_EQ(test, ntrace_msg_is_sync(o.msg[i]), i % 2 == 1);
	}
}

/* SRC fields 0..12 bits wide, also ending inside the TCODE's next bytes. */
static void ntrace_split_src_bits_test(struct kunit *test)
{
	unsigned int w;

	for (w = 0; w <= TCI_TE_SRC_BITS_MAX; w++) {
		u32 src = 0xabc & (BIT(w) - 1);
		struct split_out o = { };
		struct stream s = { };
		struct msg_enc e;

		enc_sync(&e, w, src, 0x3f, 0x80001234);
		put_msg(&s, &e);
		enc_direct(&e, w, src ^ (BIT(w) - 1), 0);
		put_msg(&s, &e);
		KUNIT_EXPECT_EQ_MSG(test, ntrace_split_msgs(s.buf, s.len, w,
							    false, split_collect,
							    &o), 0,
				    "src_bits %u", w);
		KUNIT_ASSERT_EQ_MSG(test, o.n, 2, "src_bits %u", w);
		KUNIT_EXPECT_EQ_MSG(test, o.src[0], src, "src_bits %u", w);
		KUNIT_EXPECT_EQ_MSG(test, o.src[1], src ^ (BIT(w) - 1),
				    "src_bits %u", w);
		KUNIT_EXPECT_EQ_MSG(test, o.size[0], s.size[0], "src_bits %u", w);
		KUNIT_EXPECT_EQ_MSG(test, o.size[1], s.size[1], "src_bits %u", w);
	}
}

/*
 * A sink that wrapped: the buffer starts inside a message (wait) and ends
 * inside another. Both are dropped, the whole ones between are kept.
 */
static void ntrace_split_cut_test(struct kunit *test)
{
	struct split_out o = { };
	struct stream s = { };
	struct msg_enc e;
	size_t from, to;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		enc_sync(&e, 6, 40 + i, 7 * i, 0x2000 + i);
		put_msg(&s, &e);
	}
	from = s.off[0] + 2;			/* inside message 0 */
	to = s.off[3] + s.size[3] - 1;		/* its end byte missing */
	KUNIT_EXPECT_EQ(test, ntrace_split_msgs(s.buf + from, to - from, 6,
						true, split_collect, &o),
			(s.size[0] - 2) + (s.size[3] - 1));
	KUNIT_ASSERT_EQ(test, o.n, 2);
	KUNIT_EXPECT_EQ(test, o.src[0], 41);
	KUNIT_EXPECT_PTR_EQ(test, o.msg[0], s.buf + s.off[1]);
	KUNIT_EXPECT_EQ(test, o.src[1], 42);
	KUNIT_EXPECT_EQ(test, o.size[1], s.size[2]);

	/* cut right after its first byte: a TCODE alone */
	o.n = 0;
	KUNIT_EXPECT_EQ(test, ntrace_split_msgs(s.buf, s.off[1] + 1, 6, false,
						split_collect, &o), 1);
	KUNIT_EXPECT_EQ(test, o.n, 1);
	/* wait with the buffer at a boundary: the first message is lost */
	o.n = 0;
	KUNIT_EXPECT_EQ(test, ntrace_split_msgs(s.buf, s.len, 6, true,
						split_collect, &o), s.size[0]);
	KUNIT_EXPECT_EQ(test, o.n, 3);
}

/*
 * ntrace_msgs_fit(): at every limit, the end of the last message the
 * encoder of this test put wholly below it.
 */
static void ntrace_msgs_fit_test(struct kunit *test)
{
	struct stream s = { };
	struct msg_enc e;
	size_t max, want;
	unsigned int i;

	for (i = 0; i < 5; i++) {
		if (i % 2)
			enc_direct(&e, 3, i, 1 << (5 * i));
		else
			enc_sync(&e, 3, i, 3 * i + 1, 0x8000 + 0x1111 * i);
		put_msg(&s, &e);
	}
	for (max = 0; max < s.len; max++) {
		want = 0;
		for (i = 0; i < s.n; i++)
			if (s.off[i] + s.size[i] <= max)
				want = s.off[i] + s.size[i];
		KUNIT_EXPECT_EQ_MSG(test, ntrace_msgs_fit(s.buf, s.len, max),
				    want, "limit %zu", max);
	}
	KUNIT_EXPECT_EQ(test, ntrace_msgs_fit(s.buf, s.len, s.len), s.len);
	KUNIT_EXPECT_EQ(test, ntrace_msgs_fit(s.buf, s.len, s.len + 9), s.len);
}

/* Malformed input: dropped up to the next end of message, no more. */
static void ntrace_split_malformed_test(struct kunit *test)
{
	struct split_out o = { };
	struct stream s = { };
	struct msg_enc e;
	size_t bad_from, bad_len;

	/* only idle bytes */
	put_idle(&s, 9);
	KUNIT_EXPECT_EQ(test, ntrace_split_msgs(s.buf, s.len, 4, false,
						split_collect, &o), 0);
	KUNIT_EXPECT_EQ(test, o.n, 0);

	/* a reserved MSEO (10) inside a message, then a good message */
	s.len = 0;
	s.n = 0;
	enc_sync(&e, 4, 3, 0x155, 0x40);
	e.buf[2] = (e.buf[2] & ~3) | 2;
	put_msg(&s, &e);
	enc_direct(&e, 4, 5, 0x21);
	put_msg(&s, &e);
	/* a message shorter than its SRC field (12 bits: two bytes after TCODE) */
	bad_from = s.len;
	s.buf[s.len++] = NT_TCODE_DIRECT_BRANCH << 2;
	s.buf[s.len++] = 0x2a << 2 | 3;
	bad_len = s.len - bad_from;
	/* a first byte that is not a message start (MSEO 01) */
	s.buf[s.len++] = 0x10 << 2 | 1;
	s.buf[s.len++] = 0x11 << 2 | 3;
	enc_direct(&e, 4, 6, 0x3);
	put_msg(&s, &e);

	o.n = 0;
	KUNIT_EXPECT_EQ(test, ntrace_split_msgs(s.buf, s.len, 4, false,
						split_collect, &o),
			s.size[0] + 2);
	KUNIT_ASSERT_EQ(test, o.n, 3);
	KUNIT_EXPECT_EQ(test, o.src[0], 5);
	KUNIT_EXPECT_PTR_EQ(test, o.msg[0], s.buf + s.off[1]);
	/* with 4 SRC bits the short message is whole: SRC 0x2a & 0xf */
	KUNIT_EXPECT_EQ(test, o.src[1], 0xa);
	KUNIT_EXPECT_EQ(test, o.size[1], bad_len);
	KUNIT_EXPECT_EQ(test, o.src[2], 6);

	o.n = 0;
	KUNIT_EXPECT_EQ(test, ntrace_split_msgs(s.buf + bad_from,
						s.len - bad_from, 12, false,
						split_collect, &o),
			bad_len + 2 + s.size[2]);
	KUNIT_EXPECT_EQ(test, o.n, 0);
}

/*
 * ntrace_error_msg(): the Error message that marks a hole the driver
 * made (ntrace_shared.c), as this test's encoder writes one (TCODE 8,
 * SRC, ETYPE[4] 0, ECODE 0b100 "program trace lost"), and one worked by
 * hand from the message table: SRC 3 of 2 bits is MDO 000011 (0x0C), ECODE
 * MDO 000100 ending the message (0x13).
 */
static void ntrace_error_msg_test(struct kunit *test)
{
	static const u8 hand[] = { 0x20, 0x0c, 0x13 };
	static const unsigned int widths[] = { 0, 1, 2, 5, 6, 7, 12 };
	u8 buf[NTRACE_ERROR_MSG_MAX + 1];
	struct split_out o = { };
	struct msg_enc e;
	unsigned int i, src;
	size_t n;

	n = ntrace_error_msg(buf, 3, 2);
	KUNIT_ASSERT_EQ(test, n, sizeof(hand));
	KUNIT_EXPECT_MEMEQ(test, buf, hand, sizeof(hand));
	for (i = 0; i < ARRAY_SIZE(widths); i++) {
		src = (1u << widths[i]) - 1 - (widths[i] > 1);
		enc_start(&e, 8, widths[i], src);
		enc_bits(&e, 0, 4);
		enc_var(&e, 4, true);
		memset(buf, 0xaa, sizeof(buf));
		n = ntrace_error_msg(buf, src, widths[i]);
		KUNIT_EXPECT_LE(test, n, NTRACE_ERROR_MSG_MAX);
		KUNIT_EXPECT_EQ_MSG(test, n, e.len, "%u SRC bits", widths[i]);
		KUNIT_EXPECT_MEMEQ_MSG(test, buf, e.buf, e.len, "%u SRC bits", widths[i]);
		KUNIT_EXPECT_EQ(test, buf[n], 0xaa);
		/* a whole message of its source, and no sync */
		memset(&o, 0, sizeof(o));
		KUNIT_EXPECT_EQ(test, ntrace_split_msgs(buf, n, widths[i], false,
							split_collect, &o), 0);
		KUNIT_ASSERT_EQ(test, o.n, 1);
		KUNIT_EXPECT_EQ(test, o.src[0], widths[i] ? src : 0);
		KUNIT_EXPECT_EQ(test, o.size[0], n);
		KUNIT_EXPECT_FALSE(test, ntrace_msg_is_sync(buf));
	}
}

/* Room for the runs of a 16 KiB AUX ring on the stack. */
struct test_map {
	struct ntrace_aux_map m;
	struct ntrace_aux_run runs[4];
};

static void map_init(struct test_map *t, unsigned int max_runs)
{
	memset(t, 0, sizeof(*t));
	t->m.max_runs = max_runs;
}

/* Pages join a run only when both the ring offset and phys follow on. */
static void ntrace_aux_map_test(struct kunit *test)
{
	struct test_map t;

	map_init(&t, 2);
	KUNIT_EXPECT_TRUE(test, ntrace_aux_map_add(&t.m, 0, 0x80000000, 4096));
	KUNIT_EXPECT_TRUE(test, ntrace_aux_map_add(&t.m, 4096, 0x80001000, 4096));
	KUNIT_EXPECT_TRUE(test, ntrace_aux_map_add(&t.m, 8192, 0x90000000, 4096));
	KUNIT_EXPECT_TRUE(test, ntrace_aux_map_add(&t.m, 12288, 0x90001000, 4096));
	KUNIT_EXPECT_EQ(test, t.m.nr_runs, 2);
	KUNIT_EXPECT_EQ(test, t.m.size, 16384);
	KUNIT_EXPECT_EQ(test, t.m.runs[0].len, 8192);
	KUNIT_EXPECT_EQ(test, t.m.runs[1].off, 8192);
	KUNIT_EXPECT_EQ(test, t.m.runs[1].phys, 0x90000000);
	KUNIT_EXPECT_EQ(test, ntrace_aux_map_longest(&t.m), 8192);
	/* a page before the last run's in memory: a third run, no room */
	KUNIT_EXPECT_FALSE(test, ntrace_aux_map_add(&t.m, 16384, 0x8ffff000, 4096));
	KUNIT_EXPECT_EQ(test, t.m.nr_runs, 2);
}

/* A 16 KiB ring of two 8 KiB runs at 0x80000000 and 0x90000000. */
static void two_runs(struct test_map *t)
{
	map_init(t, 4);
	ntrace_aux_map_add(&t->m, 0, 0x80000000, 8192);
	ntrace_aux_map_add(&t->m, 8192, 0x90000000, 8192);
}

static void ntrace_aux_window_test(struct kunit *test)
{
	const u64 lo = 0x80000000, hi = 0xfffffffc;
	struct ntrace_window w;
	struct test_map t;

	two_runs(&t);
	/* from the start: the first run ends the window before the room */
	KUNIT_ASSERT_EQ(test, ntrace_aux_window(&t.m, 0, 16384, false, lo, hi, &w), 0);
	KUNIT_EXPECT_EQ(test, w.start, 0x80000000);
	KUNIT_EXPECT_EQ(test, w.len, 8192);
	KUNIT_EXPECT_EQ(test, w.wp, w.start);
	KUNIT_EXPECT_EQ(test, w.pad, 0);
	KUNIT_EXPECT_FALSE(test, w.to_room);

	/* an unaligned head two bytes before the second run: pad into it */
	KUNIT_ASSERT_EQ(test, ntrace_aux_window(&t.m, 8190, 4096, false, lo, hi, &w), 0);
	KUNIT_EXPECT_EQ(test, w.pad, 2);
	KUNIT_EXPECT_EQ(test, w.off, 8192);
	KUNIT_EXPECT_EQ(test, w.start, 0x90000000);
	KUNIT_EXPECT_EQ(test, w.len, 4092);	/* the room less the pad, in words */
	KUNIT_EXPECT_TRUE(test, w.to_room);

	/* a free-running head three rings on, in the first run: room ends it */
	KUNIT_ASSERT_EQ(test, ntrace_aux_window(&t.m, 3 * 16384 + 0x100, 0x43,
						false, lo, hi, &w), 0);
	KUNIT_EXPECT_EQ(test, w.start, 0x80000100);
	KUNIT_EXPECT_EQ(test, w.len, 0x40);
	KUNIT_EXPECT_TRUE(test, w.to_room);

	/* the last word of the ring: pad wraps the window to the ring start */
	KUNIT_ASSERT_EQ(test, ntrace_aux_window(&t.m, 16383, 64, false, lo, hi, &w), 0);
	KUNIT_EXPECT_EQ(test, w.pad, 1);
	KUNIT_EXPECT_EQ(test, w.start, 0x80000000);
	KUNIT_EXPECT_EQ(test, w.len, 60);

	/* no room for a word after the pad */
	KUNIT_EXPECT_EQ(test, ntrace_aux_window(&t.m, 2, 6, false, lo, hi, &w), -ENOSPC);
	/* the sink cannot reach the second run */
	KUNIT_EXPECT_EQ(test, ntrace_aux_window(&t.m, 8192, 64, false, lo,
						0x8ffffffc, &w), -ERANGE);
	/* a snapshot ring must be one run */
	KUNIT_EXPECT_EQ(test, ntrace_aux_window(&t.m, 0, 0, true, lo, hi, &w), -EOPNOTSUPP);
}

/* A snapshot ring in one run: the sink wraps in all of it, from the head. */
static void ntrace_aux_window_snapshot_test(struct kunit *test)
{
	struct ntrace_window w;
	struct test_map t;

	map_init(&t, 1);
	ntrace_aux_map_add(&t.m, 0, 0x80000000, 8192);
	ntrace_aux_map_add(&t.m, 8192, 0x80002000, 8192);
	KUNIT_ASSERT_EQ(test, ntrace_aux_window(&t.m, 5 * 16384 + 0x1002, 0, true,
						0x80000000, 0xfffffffc, &w), 0);
	KUNIT_EXPECT_EQ(test, w.start, 0x80000000);
	KUNIT_EXPECT_EQ(test, w.len, 16384);
	KUNIT_EXPECT_EQ(test, w.pad, 2);
	KUNIT_EXPECT_EQ(test, w.off, 0x1004);
	KUNIT_EXPECT_EQ(test, w.wp, 0x80001004);
	KUNIT_EXPECT_TRUE(test, w.to_room);
}

/*
 * A window that a run's end cuts short moves to the next run, after idle
 * bytes up to that end; one whose next run is short too, or whose idle
 * bytes would take more than an eighth of the free space, is refused.
 */
static void ntrace_aux_window_min_test(struct kunit *test)
{
	const u64 lo = 0x80000000, hi = 0xfffffffc;
	struct ntrace_window w;
	struct test_map t;

	two_runs(&t);
	/* 0x100 bytes before the first run's end, 4 KiB free: the second run */
	KUNIT_ASSERT_EQ(test, ntrace_aux_window_min(&t.m, 8192 - 0x100, 4096, false,
						    lo, hi, 1024, &w), 0);
	KUNIT_EXPECT_EQ(test, w.pad, 0x100);
	KUNIT_EXPECT_EQ(test, w.start, 0x90000000);
	KUNIT_EXPECT_EQ(test, w.len, 4096 - 0x100);
	KUNIT_EXPECT_TRUE(test, w.to_room);
	/* unaligned: the pad counts the bytes to the word as well */
	KUNIT_ASSERT_EQ(test, ntrace_aux_window_min(&t.m, 8192 - 0x101, 4096, false,
						    lo, hi, 1024, &w), 0);
	KUNIT_EXPECT_EQ(test, w.pad, 0x101);
	KUNIT_EXPECT_EQ(test, w.start, 0x90000000);
	/* long enough where it is: unchanged */
	KUNIT_ASSERT_EQ(test, ntrace_aux_window_min(&t.m, 8192 - 0x100, 4096, false,
						    lo, hi, 0x100, &w), 0);
	KUNIT_EXPECT_EQ(test, w.pad, 0);
	KUNIT_EXPECT_EQ(test, w.start, 0x80001f00);
	KUNIT_EXPECT_EQ(test, w.len, 0x100);
	/* the second run ends the ring 0x40 on: wraps to the first run */
	KUNIT_ASSERT_EQ(test, ntrace_aux_window_min(&t.m, 16384 - 0x40, 16384, false,
						    lo, hi, 1024, &w), 0);
	KUNIT_EXPECT_EQ(test, w.pad, 0x40);
	KUNIT_EXPECT_EQ(test, w.start, 0x80000000);
	KUNIT_EXPECT_EQ(test, w.len, 8192);
	KUNIT_EXPECT_FALSE(test, w.to_room);
	/* no room past the run's end, or the next window short as well */
	KUNIT_EXPECT_EQ(test, ntrace_aux_window_min(&t.m, 8192 - 0x100, 0x100, false,
						    lo, hi, 1024, &w), 0);
	KUNIT_EXPECT_TRUE(test, w.to_room);
	KUNIT_EXPECT_EQ(test, ntrace_aux_window_min(&t.m, 8192 - 0x100, 0x100 + 4096, false,
						    lo, hi, 8192, &w), 0);
	KUNIT_EXPECT_EQ(test, ntrace_aux_window_min(&t.m, 16384 - 0x40, 16384, false,
						    lo, hi, 9000, &w), -ENOSPC);
	/* idle bytes for more than an eighth of the free space: refused */
	KUNIT_EXPECT_EQ(test, ntrace_aux_window_min(&t.m, 4096, 16384 - 4096, false,
						    lo, hi, 8192, &w), -ENOSPC);
	KUNIT_EXPECT_EQ(test, ntrace_aux_window_min(&t.m, 8192 - 0x200, 16384 - 4096, false,
						    lo, hi, 8192, &w), 0);
	KUNIT_EXPECT_EQ(test, w.pad, 0x200);
	/* an eighth of 12 KiB is 0x600 bytes */
	KUNIT_EXPECT_EQ(test, ntrace_aux_window_min(&t.m, 8192 - 0x600, 16384 - 4096, false,
						    lo, hi, 8192, &w), 0);
	KUNIT_EXPECT_EQ(test, ntrace_aux_window_min(&t.m, 8192 - 0x604, 16384 - 4096, false,
						    lo, hi, 8192, &w), -ENOSPC);
}

static struct kunit_case ntrace_cases[] = {
	KUNIT_CASE(ntrace_defaults_test),
	KUNIT_CASE(ntrace_options_test),
	KUNIT_CASE_PARAM(ntrace_bad_config_test, bad_config_gen_params),
	KUNIT_CASE(ntrace_ts_rate_test),
	KUNIT_CASE(ntrace_src_bits_test),
	KUNIT_CASE(ntrace_role_of_impl_test),
	KUNIT_CASE(ntrace_intersect_test),
	KUNIT_CASE(ntrace_info_layout_test),
	KUNIT_CASE(ntrace_info_pack_test),
	KUNIT_CASE(ntrace_sifive_v0_test),
	KUNIT_CASE(ntrace_split_spec_example_test),
	KUNIT_CASE(ntrace_split_sources_test),
	KUNIT_CASE(ntrace_split_src_bits_test),
	KUNIT_CASE(ntrace_split_cut_test),
	KUNIT_CASE(ntrace_split_malformed_test),
	KUNIT_CASE(ntrace_msgs_fit_test),
	KUNIT_CASE(ntrace_error_msg_test),
	KUNIT_CASE(ntrace_aux_map_test),
	KUNIT_CASE(ntrace_aux_window_test),
	KUNIT_CASE(ntrace_aux_window_snapshot_test),
	KUNIT_CASE(ntrace_aux_window_min_test),
	{ }
};

static struct kunit_suite ntrace_suite = {
	.name = "ntrace",
	.test_cases = ntrace_cases,
};

kunit_test_suite(ntrace_suite);

MODULE_DESCRIPTION("KUnit tests of the ntrace PMU configuration, AUXTRACE_INFO and message splitting");
MODULE_LICENSE("GPL");
