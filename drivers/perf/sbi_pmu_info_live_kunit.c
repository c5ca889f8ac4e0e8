// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the ntrace_sbi_pmu.h counter calls against the running
 * SBI firmware (needs sbi_pmu_info.ko loaded). The truth they check against
 * is independent of the module: a firmware counter configured for
 * FENCE_I_SENT must count exactly the remote fence.i requests this hart
 * makes, and the CSR that counter_info names for the counter picked for
 * cycles must advance while the counter runs and freeze while it is stopped.
 * Every counter taken is released with SBI_PMU_STOP_FLAG_RESET. Run it
 * with no perf session counting cycles: OpenSBI hands out the fixed cycle
 * counter even when it is in use, so the two would disturb each other.
 */

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <asm/csr.h>
#include <asm/timex.h>
#include <asm/sbi.h>

#include "ntrace_sbi_pmu.h"
#include "sbi_pmu_decode.h"

/* base/mask over the first BITS_PER_LONG counters of one type from @base. */
static bool ctr_set(bool firmware, unsigned long *base, unsigned long *mask)
{
	unsigned int i, n = ntrace_sbi_pmu_num_counters();
	struct sbi_pmu_ctr_desc d;
	bool found = false;

	*mask = 0;
	for (i = 0; i < n; i++) {
		if (ntrace_sbi_pmu_counter_desc(i, &d) || d.firmware != firmware)
			continue;
		if (!found) {
			*base = i;
			found = true;
		}
		if (i - *base < BITS_PER_LONG)
			*mask |= BIT(i - *base);
	}
	return found;
}

static void fence_i_self(unsigned int times)
{
	while (times--)
		sbi_remote_fence_i(cpumask_of(smp_processor_id()));
}

static void fw_counter_counts_fence_i(struct kunit *test)
{
	const u32 ev = sbi_pmu_event_idx(SBI_PMU_EVENT_TYPE_FW,
					 SBI_PMU_FW_FENCE_I_SENT);
	unsigned long base, mask, one;
	struct sbi_pmu_ctr_desc d;
	u64 v0, v1, v2, v3;
	int idx, r[4];

	if (!ctr_set(true, &base, &mask))
		kunit_skip(test, "firmware has no firmware counters");

	/* Counters are per hart: stay on this one until released. */
	preempt_disable();
	idx = ntrace_sbi_pmu_cfg_match(base, mask, SBI_PMU_CFG_FLAG_CLEAR_VALUE,
				       ev, 0);
	if (idx < 0) {
		preempt_enable();
		KUNIT_FAIL(test, "cfg_match(FENCE_I_SENT): %d", idx);
		return;
	}
	one = 1;
	r[0] = ntrace_sbi_pmu_fw_read(idx, &v0);
	r[1] = ntrace_sbi_pmu_start(idx, one, 0, 0);
	fence_i_self(5);
	ntrace_sbi_pmu_fw_read(idx, &v1);
	r[2] = ntrace_sbi_pmu_stop(idx, one, 0);
	fence_i_self(3);
	ntrace_sbi_pmu_fw_read(idx, &v2);
	/* Restart from a chosen value, then release the counter. */
	ntrace_sbi_pmu_start(idx, one, SBI_PMU_START_FLAG_SET_INIT_VALUE, 100);
	fence_i_self(2);
	ntrace_sbi_pmu_fw_read(idx, &v3);
	r[3] = ntrace_sbi_pmu_stop(idx, one, SBI_PMU_STOP_FLAG_RESET);
	preempt_enable();

	KUNIT_EXPECT_EQ(test, ntrace_sbi_pmu_counter_desc(idx, &d), 0);
	KUNIT_EXPECT_TRUE(test, d.firmware);
	KUNIT_EXPECT_EQ(test, r[0], 0);
	KUNIT_EXPECT_EQ(test, v0, 0);	/* CLEAR_VALUE */
	KUNIT_EXPECT_EQ(test, r[1], 0);
	KUNIT_EXPECT_EQ(test, v1, 5);
	KUNIT_EXPECT_EQ(test, r[2], 0);
	KUNIT_EXPECT_EQ(test, v2, 5);	/* stopped: the 3 fences not seen */
	KUNIT_EXPECT_EQ(test, v3, 102);
	KUNIT_EXPECT_EQ(test, r[3], 0);
}

/* One reader per counter CSR: csrr takes the CSR number as an immediate. */
#define CTR_READER(n)						\
static unsigned long read_ctr_##n(void)				\
{								\
	return csr_read(CSR_CYCLE + (n));			\
}

CTR_READER(0) CTR_READER(1) CTR_READER(2) CTR_READER(3)
CTR_READER(4) CTR_READER(5) CTR_READER(6) CTR_READER(7)
CTR_READER(8) CTR_READER(9) CTR_READER(10) CTR_READER(11)
CTR_READER(12) CTR_READER(13) CTR_READER(14) CTR_READER(15)
CTR_READER(16) CTR_READER(17) CTR_READER(18) CTR_READER(19)
CTR_READER(20) CTR_READER(21) CTR_READER(22) CTR_READER(23)
CTR_READER(24) CTR_READER(25) CTR_READER(26) CTR_READER(27)
CTR_READER(28) CTR_READER(29) CTR_READER(30) CTR_READER(31)

static unsigned long (*const ctr_readers[32])(void) = {
	read_ctr_0, read_ctr_1, read_ctr_2, read_ctr_3,
	read_ctr_4, read_ctr_5, read_ctr_6, read_ctr_7,
	read_ctr_8, read_ctr_9, read_ctr_10, read_ctr_11,
	read_ctr_12, read_ctr_13, read_ctr_14, read_ctr_15,
	read_ctr_16, read_ctr_17, read_ctr_18, read_ctr_19,
	read_ctr_20, read_ctr_21, read_ctr_22, read_ctr_23,
	read_ctr_24, read_ctr_25, read_ctr_26, read_ctr_27,
	read_ctr_28, read_ctr_29, read_ctr_30, read_ctr_31,
};

/* Read counter CSR @csr (cycle .. hpmcounter31); 0 for anything else. */
static unsigned long read_counter_csr(unsigned int csr)
{
	if (csr < CSR_CYCLE || csr >= CSR_CYCLE + ARRAY_SIZE(ctr_readers))
		return 0;
	return ctr_readers[csr - CSR_CYCLE]();
}

/* Busy-wait (atomic context) for @ticks of the time CSR. */
static void wait_ticks(unsigned long ticks)
{
	cycles_t end = get_cycles() + ticks;

	while (get_cycles() < end)
		cpu_relax();
}

static void hw_counter_csr_follows_start_stop(struct kunit *test)
{
	const u32 ev = sbi_pmu_event_idx(SBI_PMU_EVENT_TYPE_HW,
					 SBI_PMU_HW_CPU_CYCLES);
	unsigned long base, mask, c[4];
	struct sbi_pmu_ctr_desc d;
	int idx, r[3];

	if (!ctr_set(false, &base, &mask))
		kunit_skip(test, "firmware has no hardware counters");

	preempt_disable();
	idx = ntrace_sbi_pmu_cfg_match(base, mask, SBI_PMU_CFG_FLAG_CLEAR_VALUE,
				       ev, 0);
	if (idx < 0) {
		preempt_enable();
		KUNIT_FAIL(test, "cfg_match(CPU_CYCLES): %d", idx);
		return;
	}
	ntrace_sbi_pmu_counter_desc(idx, &d);
	r[0] = ntrace_sbi_pmu_start(idx, 1, 0, 0);
	c[0] = read_counter_csr(d.csr);
	wait_ticks(1000);
	c[1] = read_counter_csr(d.csr);
	r[1] = ntrace_sbi_pmu_stop(idx, 1, 0);
	c[2] = read_counter_csr(d.csr);
	wait_ticks(1000);
	c[3] = read_counter_csr(d.csr);
	ntrace_sbi_pmu_start(idx, 1, 0, 0);
	r[2] = ntrace_sbi_pmu_stop(idx, 1, SBI_PMU_STOP_FLAG_RESET);
	preempt_enable();

	KUNIT_EXPECT_FALSE(test, d.firmware);
	KUNIT_ASSERT_TRUE_MSG(test, sbi_pmu_csr_is_counter(d.csr),
			      "counter %d CSR 0x%x", idx, d.csr);
	KUNIT_EXPECT_EQ(test, r[0], 0);
	KUNIT_EXPECT_GT_MSG(test, c[1], c[0], "CSR 0x%x did not advance", d.csr);
	KUNIT_EXPECT_EQ(test, r[1], 0);
	KUNIT_EXPECT_EQ_MSG(test, c[3], c[2], "CSR 0x%x moved while stopped", d.csr);
	KUNIT_EXPECT_EQ(test, r[2], 0);
}

static void bad_requests_map_to_errno(struct kunit *test)
{
	unsigned int n = ntrace_sbi_pmu_num_counters();
	struct sbi_pmu_ctr_desc d;
	u64 v;

	KUNIT_EXPECT_EQ(test, ntrace_sbi_pmu_counter_desc(n, &d), -EINVAL);
	/* A counter index past the end is SBI_ERR_INVALID_PARAM. */
	KUNIT_EXPECT_EQ(test, ntrace_sbi_pmu_fw_read(n + 64, &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, ntrace_sbi_pmu_stop(n + 64, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ntrace_sbi_pmu_start(n + 64, 1, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ntrace_sbi_pmu_cfg_match(n + 64, 1, 0,
						       SBI_PMU_HW_CPU_CYCLES, 0),
			-EINVAL);
}

static struct kunit_case sbi_pmu_live_cases[] = {
	KUNIT_CASE(fw_counter_counts_fence_i),
	KUNIT_CASE(hw_counter_csr_follows_start_stop),
	KUNIT_CASE(bad_requests_map_to_errno),
	{}
};

static struct kunit_suite sbi_pmu_live_suite = {
	.name = "sbi_pmu_live",
	.test_cases = sbi_pmu_live_cases,
};

kunit_test_suite(sbi_pmu_live_suite);

MODULE_DESCRIPTION("KUnit tests of the SBI PMU counter calls on live firmware");
MODULE_LICENSE("GPL");
