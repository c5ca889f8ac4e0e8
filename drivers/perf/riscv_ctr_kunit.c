// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the CTR translations in riscv_ctr.h: perf branch filters
 * to sctrctl, CTR records to perf_branch_entry, and the CC cycle-count
 * encoding. Expected values come from the ratified CTR 1.0 specification
 * (field layout, the cycle counter size table, the encoding rule).
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "riscv_ctr.h"

/* A CTR that implements every optional sctrctl bit this driver uses. */
#define ALL_IMPL	CTRCTL_PROBE_MASK

static u64 ctl_of(struct kunit *test, u64 bst, u64 impl)
{
	u64 ctl = 0xdeadbeef;

	KUNIT_ASSERT_EQ(test, riscv_ctr_filter_to_ctl(bst, impl, &ctl), 0);
	return ctl;
}

static void filter_any_user(struct kunit *test)
{
	u64 bst = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;

	/* everything recorded in U-mode: no inhibit bit, no S, no RASEMU */
	KUNIT_EXPECT_EQ(test, ctl_of(test, bst, ALL_IMPL), CTRCTL_U);
	/* needs no inhibit bit, so works on a CTR without type filtering */
	KUNIT_EXPECT_EQ(test, ctl_of(test, bst, CTRCTL_U | CTRCTL_S), CTRCTL_U);
}

static void filter_any_call_user(struct kunit *test)
{
	u64 bst = PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_USER;
	u64 ctl = ctl_of(test, bst, ALL_IMPL);

	KUNIT_EXPECT_EQ(test, ctl & (CTRCTL_U | CTRCTL_S), CTRCTL_U);
	/* calls, co-routine swaps and traps stay recorded */
	KUNIT_EXPECT_EQ(test, ctl & (CTRCTL_DIRCALLINH | CTRCTL_INDCALLINH |
				     CTRCTL_CORSWAPINH | CTRCTL_EXCINH |
				     CTRCTL_INTRINH), 0);
	/* everything else is inhibited, bits 37, 42, 43, 45, 46, 47 and 35 */
	KUNIT_EXPECT_EQ(test, ctl, CTRCTL_U | BIT_ULL(35) | BIT_ULL(37) |
			BIT_ULL(42) | BIT_ULL(43) | BIT_ULL(45) |
			BIT_ULL(46) | BIT_ULL(47));
	/* never the not-taken enable, never RAS emulation */
	KUNIT_EXPECT_EQ(test, ctl & (CTRCTL_NTBREN | CTRCTL_RASEMU), 0);
}

static void filter_single_types(struct kunit *test)
{
	u64 k = PERF_SAMPLE_BRANCH_KERNEL;

	KUNIT_EXPECT_EQ(test, ctl_of(test, PERF_SAMPLE_BRANCH_CALL | k, ALL_IMPL),
			CTRCTL_S | (CTRCTL_ALL_INH & ~CTRCTL_DIRCALLINH));
	KUNIT_EXPECT_EQ(test,
			ctl_of(test, PERF_SAMPLE_BRANCH_IND_CALL | k, ALL_IMPL),
			CTRCTL_S | (CTRCTL_ALL_INH & ~CTRCTL_INDCALLINH));
	KUNIT_EXPECT_EQ(test, ctl_of(test, PERF_SAMPLE_BRANCH_COND | k, ALL_IMPL),
			CTRCTL_S | (CTRCTL_ALL_INH & ~CTRCTL_TKBRINH));
	KUNIT_EXPECT_EQ(test,
			ctl_of(test, PERF_SAMPLE_BRANCH_ANY_RETURN | k, ALL_IMPL),
			CTRCTL_S | (CTRCTL_ALL_INH & ~(CTRCTL_RETINH |
				CTRCTL_TRETINH | CTRCTL_CORSWAPINH)));
	KUNIT_EXPECT_EQ(test,
			ctl_of(test, PERF_SAMPLE_BRANCH_IND_JUMP | k, ALL_IMPL),
			CTRCTL_S | (CTRCTL_ALL_INH & ~(CTRCTL_INDJMPINH |
				CTRCTL_INDLJMPINH)));
	/* both privilege modes, and output-only bits change nothing */
	KUNIT_EXPECT_EQ(test, ctl_of(test, PERF_SAMPLE_BRANCH_ANY | k |
				     PERF_SAMPLE_BRANCH_USER |
				     PERF_SAMPLE_BRANCH_NO_TX |
				     PERF_SAMPLE_BRANCH_HV |
				     PERF_SAMPLE_BRANCH_TYPE_SAVE |
				     PERF_SAMPLE_BRANCH_NO_CYCLES |
				     PERF_SAMPLE_BRANCH_NO_FLAGS |
				     PERF_SAMPLE_BRANCH_PRIV_SAVE |
				     PERF_SAMPLE_BRANCH_HW_INDEX, ALL_IMPL),
			CTRCTL_U | CTRCTL_S);
}

static void filter_call_stack(struct kunit *test)
{
	/* as perf record --call-graph lbr asks: RASEMU, no inhibit bits */
	u64 bst = PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_USER |
		  PERF_SAMPLE_BRANCH_NO_CYCLES | PERF_SAMPLE_BRANCH_NO_FLAGS |
		  PERF_SAMPLE_BRANCH_HW_INDEX;

	KUNIT_EXPECT_EQ(test, ctl_of(test, bst, ALL_IMPL),
			CTRCTL_U | CTRCTL_RASEMU);
	KUNIT_EXPECT_EQ(test, ctl_of(test, PERF_SAMPLE_BRANCH_CALL_STACK |
				     PERF_SAMPLE_BRANCH_KERNEL, ALL_IMPL),
			CTRCTL_S | CTRCTL_RASEMU);
}

static void filter_refused(struct kunit *test)
{
	u64 u = PERF_SAMPLE_BRANCH_USER, ctl;
	static const u64 bad[] = {
		PERF_SAMPLE_BRANCH_ANY,				/* no mode */
		PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HV,	/* only HV */
		PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_NO_TX, /* no type */
		PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
			PERF_SAMPLE_BRANCH_IN_TX,
		PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
			PERF_SAMPLE_BRANCH_ABORT_TX,
		PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
			PERF_SAMPLE_BRANCH_COUNTERS,
		/* RAS emulation ignores type filters: no mixing */
		PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_USER |
			PERF_SAMPLE_BRANCH_ANY_CALL,
		PERF_SAMPLE_BRANCH_CALL_STACK,			/* no mode */
		PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
			PERF_SAMPLE_BRANCH_MAX,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    riscv_ctr_filter_to_ctl(bad[i], ALL_IMPL, &ctl),
				    -EOPNOTSUPP, "branch_sample_type %#llx",
				    bad[i]);

	/* a filter needing an inhibit bit the CTR lacks is not widened */
	KUNIT_EXPECT_EQ(test,
			riscv_ctr_filter_to_ctl(PERF_SAMPLE_BRANCH_CALL | u,
						ALL_IMPL & ~CTRCTL_RETINH, &ctl),
			-EOPNOTSUPP);
	/* call stack without RAS emulation */
	KUNIT_EXPECT_EQ(test,
			riscv_ctr_filter_to_ctl(PERF_SAMPLE_BRANCH_CALL_STACK | u,
						ALL_IMPL & ~CTRCTL_RASEMU, &ctl),
			-EOPNOTSUPP);
	/* U-mode not implemented */
	KUNIT_EXPECT_EQ(test,
			riscv_ctr_filter_to_ctl(PERF_SAMPLE_BRANCH_ANY | u,
						CTRCTL_S, &ctl),
			-EOPNOTSUPP);
}

/* ctrdata with cycle count fields */
static u64 cc_data(bool ccv, u32 cce, u32 ccm)
{
	return (ccv ? CTRDATA_CCV : 0) | ((u64)cce << 28) | ((u64)ccm << 16);
}

/* Maximum values from the spec's "Cycle Counter Size Options" table. */
static void cycles_spec_table(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, riscv_ctr_cycles(cc_data(true, 0, 4095)), 4095);
	KUNIT_EXPECT_EQ(test, riscv_ctr_cycles(cc_data(true, 1, 4095)), 8191);
	KUNIT_EXPECT_EQ(test, riscv_ctr_cycles(cc_data(true, 3, 4095)), 32764);
	KUNIT_EXPECT_EQ(test, riscv_ctr_cycles(cc_data(true, 7, 4095)), 524224);
	KUNIT_EXPECT_EQ(test, riscv_ctr_cycles(cc_data(true, 15, 4095)),
			134201344);
	KUNIT_EXPECT_EQ(test, riscv_ctr_cycles(cc_data(true, 0, 0)), 0);
	KUNIT_EXPECT_EQ(test, riscv_ctr_cycles(cc_data(true, 1, 0)), 4096);
}

static void cycles_invalid(struct kunit *test)
{
	/* CCV = 0: the count is not trustworthy, perf gets 0 ("unknown") */
	KUNIT_EXPECT_EQ(test, riscv_ctr_cycles(cc_data(false, 0, 123)), 0);
	KUNIT_EXPECT_EQ(test, riscv_ctr_cycles(cc_data(false, 5, 4095)), 0);
	/* the type and reserved bits do not leak into the count */
	KUNIT_EXPECT_EQ(test, riscv_ctr_cycles(cc_data(true, 0, 7) | 0xf |
					       GENMASK_ULL(63, 32)), 7);
}

/*
 * Encoder written from the spec's prose: CCE is 0 below 4096, else the
 * index of the most significant one minus 11; CCM holds counter bits
 * CCE+10..CCE-1. Decoding must give the counter with the bits below
 * CCE-1 dropped.
 */
static void cycles_roundtrip(struct kunit *test)
{
	u32 x, cce, ccm, want;

	for (x = 0; x < (1U << 27); x = x * 3 + 1) {
		cce = x < 4096 ? 0 : fls(x) - 1 - 11;
		ccm = cce ? (x >> (cce - 1)) & 0xfff : x;
		want = cce ? x & ~((1U << (cce - 1)) - 1) : x;
		KUNIT_EXPECT_EQ_MSG(test,
				    riscv_ctr_cycles(cc_data(true, cce, ccm)),
				    want, "counter %u", x);
	}
}

static void decode_entry(struct kunit *test)
{
	struct riscv_ctr_record rec = {
		.source = 0x10a2e | CTRSOURCE_V,
		.target = 0x10b00 | CTRTARGET_MISP,
		.data = CTR_TYPE_DIRCALL | cc_data(true, 2, 1),
	};
	struct perf_branch_entry e;
	unsigned int all = riscv_ctr_out_flags(PERF_SAMPLE_BRANCH_TYPE_SAVE |
					       PERF_SAMPLE_BRANCH_PRIV_SAVE) |
			   RISCV_CTR_OUT_MISP;
	unsigned int out;

	KUNIT_ASSERT_TRUE(test, riscv_ctr_decode(&rec, all, &e));
	KUNIT_EXPECT_EQ(test, e.from, 0x10a2e);
	KUNIT_EXPECT_EQ(test, e.to, 0x10b00);
	KUNIT_EXPECT_EQ(test, (u32)e.mispred, 1);
	KUNIT_EXPECT_EQ(test, (u32)e.predicted, 0);
	KUNIT_EXPECT_EQ(test, (u32)e.cycles, (4096 + 1) << 1);
	KUNIT_EXPECT_EQ(test, (u32)e.type, PERF_BR_CALL);
	KUNIT_EXPECT_EQ(test, (u32)e.priv, PERF_BR_PRIV_USER);
	KUNIT_EXPECT_EQ(test, (u32)e.in_tx, 0);
	KUNIT_EXPECT_EQ(test, (u32)e.abort, 0);

	/* without MISP in the hardware neither flag is claimed */
	KUNIT_ASSERT_TRUE(test, riscv_ctr_decode(&rec, all & ~RISCV_CTR_OUT_MISP,
						 &e));
	KUNIT_EXPECT_EQ(test, (u32)e.mispred, 0);
	KUNIT_EXPECT_EQ(test, (u32)e.predicted, 0);
	/* MISP implemented and clear: predicted */
	rec.target &= ~CTRTARGET_MISP;
	KUNIT_ASSERT_TRUE(test, riscv_ctr_decode(&rec, all, &e));
	KUNIT_EXPECT_EQ(test, (u32)e.mispred, 0);
	KUNIT_EXPECT_EQ(test, (u32)e.predicted, 1);
	KUNIT_EXPECT_EQ(test, e.to, 0x10b00);

	/* NO_FLAGS, NO_CYCLES and no TYPE_SAVE leave those fields zero */
	rec.target |= CTRTARGET_MISP;
	out = riscv_ctr_out_flags(PERF_SAMPLE_BRANCH_NO_FLAGS |
				  PERF_SAMPLE_BRANCH_NO_CYCLES) | RISCV_CTR_OUT_MISP;
	KUNIT_ASSERT_TRUE(test, riscv_ctr_decode(&rec, out, &e));
	KUNIT_EXPECT_EQ(test, (u32)e.mispred, 0);
	KUNIT_EXPECT_EQ(test, (u32)e.cycles, 0);
	KUNIT_EXPECT_EQ(test, (u32)e.type, PERF_BR_UNKNOWN);
	KUNIT_EXPECT_EQ(test, e.from, 0x10a2e);

	/* a count beyond perf's 16 bits saturates */
	rec.data = cc_data(true, 15, 4095);
	KUNIT_ASSERT_TRUE(test, riscv_ctr_decode(&rec, all, &e));
	KUNIT_EXPECT_EQ(test, (u32)e.cycles, 0xffff);

	/* kernel addresses; a trap from a disabled mode has source 0 */
	rec.source = 0xffffffff80001234ULL | CTRSOURCE_V;
	KUNIT_ASSERT_TRUE(test, riscv_ctr_decode(&rec, all, &e));
	KUNIT_EXPECT_EQ(test, (u32)e.priv, PERF_BR_PRIV_KERNEL);
	rec.source = CTRSOURCE_V;
	rec.target = 0xffffffff80002000ULL;
	KUNIT_ASSERT_TRUE(test, riscv_ctr_decode(&rec, all, &e));
	KUNIT_EXPECT_EQ(test, e.from, 0);
	KUNIT_EXPECT_EQ(test, (u32)e.priv, PERF_BR_PRIV_KERNEL);

	/* V clear: no record, whatever the other registers hold */
	rec.source = 0x10a2e;
	KUNIT_EXPECT_FALSE(test, riscv_ctr_decode(&rec, all, &e));
}

static void decode_types(struct kunit *test)
{
	static const u8 want[16] = {
		PERF_BR_UNKNOWN, PERF_BR_SYSCALL, PERF_BR_IRQ, PERF_BR_ERET,
		PERF_BR_COND, PERF_BR_COND, PERF_BR_UNKNOWN, PERF_BR_UNKNOWN,
		PERF_BR_IND_CALL, PERF_BR_CALL, PERF_BR_IND, PERF_BR_UNCOND,
		PERF_BR_IND_CALL, PERF_BR_RET, PERF_BR_IND, PERF_BR_UNCOND,
	};
	struct perf_branch_entry e;
	unsigned int t;

	for (t = 0; t < 16; t++) {
		e.type = 0x7;
		riscv_ctr_perf_type(t, &e);
		KUNIT_EXPECT_EQ_MSG(test, (u32)e.type, want[t], "ctr type %u", t);
	}
}

static void depth_encoding(struct kunit *test)
{
	/* sctrdepth.DEPTH: 0 = 16, 1 = 32, 2 = 64, 3 = 128, 4 = 256 entries */
	KUNIT_EXPECT_EQ(test, riscv_ctr_depth_enc(0), 4);
	KUNIT_EXPECT_EQ(test, riscv_ctr_depth_enc(1), 0);
	KUNIT_EXPECT_EQ(test, riscv_ctr_depth_enc(16), 0);
	KUNIT_EXPECT_EQ(test, riscv_ctr_depth_enc(31), 0);
	KUNIT_EXPECT_EQ(test, riscv_ctr_depth_enc(32), 1);
	KUNIT_EXPECT_EQ(test, riscv_ctr_depth_enc(64), 2);
	KUNIT_EXPECT_EQ(test, riscv_ctr_depth_enc(127), 2);
	KUNIT_EXPECT_EQ(test, riscv_ctr_depth_enc(128), 3);
	KUNIT_EXPECT_EQ(test, riscv_ctr_depth_enc(256), 4);
	KUNIT_EXPECT_EQ(test, riscv_ctr_depth_enc(100000), 4);
}

static struct kunit_case riscv_ctr_cases[] = {
	KUNIT_CASE(filter_any_user),
	KUNIT_CASE(filter_any_call_user),
	KUNIT_CASE(filter_single_types),
	KUNIT_CASE(filter_call_stack),
	KUNIT_CASE(filter_refused),
	KUNIT_CASE(cycles_spec_table),
	KUNIT_CASE(cycles_invalid),
	KUNIT_CASE(cycles_roundtrip),
	KUNIT_CASE(decode_entry),
	KUNIT_CASE(decode_types),
	KUNIT_CASE(depth_encoding),
	{}
};

static struct kunit_suite riscv_ctr_suite = {
	.name = "riscv_ctr",
	.test_cases = riscv_ctr_cases,
};

kunit_test_suite(riscv_ctr_suite);

MODULE_DESCRIPTION("KUnit tests for RISC-V CTR branch stack decoding");
MODULE_LICENSE("GPL");
