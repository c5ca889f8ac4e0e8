/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Interface of sbi_pmu_info.ko for other ntrace modules (CTR sampling):
 * counter discovery cached at load time, and thin wrappers around the SBI
 * PMU counter functions that return Linux errnos.
 *
 * Counters are per hart: config_match, start, stop and fw_read act on the
 * calling hart, so callers must stay on one CPU (preemption or migration
 * disabled) between the calls that belong together. The in-kernel
 * riscv_pmu_sbi driver configures counters through the same firmware; a
 * caller must only touch counters it obtained itself (see
 * Documentation/admin-guide/perf/sbi-pmu-info.rst).
 */
#ifndef NTRACE_SBI_PMU_H
#define NTRACE_SBI_PMU_H

#include <linux/types.h>

struct sbi_pmu_ctr_desc;

/* Number of counters the firmware reports (valid or not). */
unsigned int ntrace_sbi_pmu_num_counters(void);

/*
 * Decoded counter_info of counter @idx as read at load time.
 * Returns 0, or -ENOENT if the firmware rejected GET_INFO for @idx,
 * -EINVAL if @idx is out of range.
 */
int ntrace_sbi_pmu_counter_desc(unsigned int idx, struct sbi_pmu_ctr_desc *desc);

/*
 * SBI_EXT_PMU_COUNTER_CFG_MATCH: pick and configure a counter from
 * @base/@mask for @event_idx. Returns the counter index or a negative errno
 * (-EOPNOTSUPP: no counter in the set can count the event). The request is
 * sent with base 0 whenever the mask allows, to avoid an OpenSBI <= 1.5 bug
 * with firmware counters. Release the counter with ntrace_sbi_pmu_stop()
 * and SBI_PMU_STOP_FLAG_RESET. OpenSBI 1.5 accepts reserved flag bits and
 * does not report already started/stopped counters: do not rely on either.
 */
int ntrace_sbi_pmu_cfg_match(unsigned long base, unsigned long mask,
			     unsigned long flags, unsigned long event_idx,
			     u64 event_data);

/* SBI_EXT_PMU_COUNTER_START; @value is used with SBI_PMU_START_FLAG_SET_INIT_VALUE. */
int ntrace_sbi_pmu_start(unsigned long base, unsigned long mask,
			 unsigned long flags, u64 value);

/* SBI_EXT_PMU_COUNTER_STOP. */
int ntrace_sbi_pmu_stop(unsigned long base, unsigned long mask,
			unsigned long flags);

/*
 * Full 64-bit value of firmware counter @idx (SBI_EXT_PMU_COUNTER_FW_READ,
 * plus FW_READ_HI on RV32 with SBI >= 2.0).
 */
int ntrace_sbi_pmu_fw_read(unsigned int idx, u64 *value);

#endif /* NTRACE_SBI_PMU_H */
