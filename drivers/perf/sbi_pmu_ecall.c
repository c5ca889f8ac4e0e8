// SPDX-License-Identifier: GPL-2.0-only
/*
 * Exported SBI PMU counter calls for other ntrace modules (ntrace_sbi_pmu.h).
 * 64-bit arguments go in one register on RV64 and as lo/hi pairs on RV32,
 * as the SBI calling convention says.
 */

#include <linux/bitops.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <asm/sbi.h>

#include "ntrace_sbi_pmu.h"
#include "sbi_pmu_decode.h"
#include "sbi_pmu_info.h"

unsigned int ntrace_sbi_pmu_num_counters(void)
{
	return sbi_pmu.num_counters;
}
EXPORT_SYMBOL_GPL(ntrace_sbi_pmu_num_counters);

int ntrace_sbi_pmu_counter_desc(unsigned int idx, struct sbi_pmu_ctr_desc *desc)
{
	if (idx >= sbi_pmu.num_counters)
		return -EINVAL;
	if (!test_bit(idx, sbi_pmu.ctr_valid))
		return -ENOENT;
	sbi_pmu_decode_ctr_info(sbi_pmu.ctr_info[idx], desc);
	return 0;
}
EXPORT_SYMBOL_GPL(ntrace_sbi_pmu_counter_desc);

int ntrace_sbi_pmu_cfg_match(unsigned long base, unsigned long mask,
			     unsigned long flags, unsigned long event_idx,
			     u64 event_data)
{
	struct sbiret ret;

	/*
	 * OpenSBI up to 1.5 returns the bit position inside @mask instead of
	 * the counter index when it picks a firmware counter, and with
	 * SBI_PMU_CFG_FLAG_CLEAR_VALUE then writes outside its counter array
	 * (an M-mode store fault that stops the hart) unless the base is 0.
	 * Linux's own driver always asks with base 0, so do the same.
	 */
	if (base && mask && base + __fls(mask) < BITS_PER_LONG) {
		mask <<= base;
		base = 0;
	}

	if (IS_ENABLED(CONFIG_32BIT))
		ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_CFG_MATCH,
				base, mask, flags, event_idx,
				lower_32_bits(event_data),
				upper_32_bits(event_data));
	else
		ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_CFG_MATCH,
				base, mask, flags, event_idx, event_data, 0);
	if (ret.error)
		return sbi_pmu_err_to_errno(ret.error);
	if (ret.value < 0 || ret.value >= sbi_pmu.num_counters)
		return -EPROTO;
	return ret.value;
}
EXPORT_SYMBOL_GPL(ntrace_sbi_pmu_cfg_match);

int ntrace_sbi_pmu_start(unsigned long base, unsigned long mask,
			 unsigned long flags, u64 value)
{
	struct sbiret ret;

	if (IS_ENABLED(CONFIG_32BIT))
		ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_START,
				base, mask, flags, lower_32_bits(value),
				upper_32_bits(value), 0);
	else
		ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_START,
				base, mask, flags, value, 0, 0);
	return sbi_pmu_err_to_errno(ret.error);
}
EXPORT_SYMBOL_GPL(ntrace_sbi_pmu_start);

int ntrace_sbi_pmu_stop(unsigned long base, unsigned long mask,
			unsigned long flags)
{
	struct sbiret ret;

	ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_STOP,
			base, mask, flags, 0, 0, 0);
	return sbi_pmu_err_to_errno(ret.error);
}
EXPORT_SYMBOL_GPL(ntrace_sbi_pmu_stop);

int ntrace_sbi_pmu_fw_read(unsigned int idx, u64 *value)
{
	struct sbiret ret;
	u64 hi = 0;

	ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_FW_READ,
			idx, 0, 0, 0, 0, 0);
	if (ret.error)
		return sbi_pmu_err_to_errno(ret.error);
	*value = (unsigned long)ret.value;

	/* Before SBI 2.0 RV32 firmware counters are only 32 bits visible. */
	if (IS_ENABLED(CONFIG_32BIT) &&
	    sbi_pmu_version_at_least(sbi_pmu.spec_version, 2, 0)) {
		ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_FW_READ_HI,
				idx, 0, 0, 0, 0, 0);
		if (ret.error)
			return sbi_pmu_err_to_errno(ret.error);
		hi = (unsigned long)ret.value;
	}
	*value |= hi << 32;
	return 0;
}
EXPORT_SYMBOL_GPL(ntrace_sbi_pmu_fw_read);
