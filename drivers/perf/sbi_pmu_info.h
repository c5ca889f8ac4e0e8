/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * State shared by the parts of sbi_pmu_info.ko: what the firmware reported
 * at load time. Written once by sbi_pmu_probe() before sysfs exists, read
 * only afterwards, so no locking.
 */
#ifndef NTRACE_SBI_PMU_INFO_H
#define NTRACE_SBI_PMU_INFO_H

#include <linux/types.h>

/* Outcome of probing an optional SBI PMU function. */
enum sbi_pmu_feature {
	SBI_PMU_FEAT_NOT_PROBED,	/* SBI version too old to have it */
	SBI_PMU_FEAT_SUPPORTED,
	SBI_PMU_FEAT_NOT_SUPPORTED,	/* firmware said SBI_ERR_NOT_SUPPORTED */
	SBI_PMU_FEAT_ERROR,		/* any other answer; see the kernel log */
};

struct sbi_pmu_std_event {
	const char *name;	/* sysfs file name under events/ */
	u32 event_idx;
};

extern const struct sbi_pmu_std_event sbi_pmu_std_events[];
extern const unsigned int sbi_pmu_num_std_events;

struct sbi_pmu_info {
	unsigned long spec_version;
	unsigned long impl_id;
	unsigned long impl_version;
	unsigned int num_counters;
	unsigned int num_hw_counters;
	unsigned int num_fw_counters;
	unsigned long *ctr_info;	/* counter_info word per counter */
	unsigned long *ctr_valid;	/* bitmap: GET_INFO succeeded */
	enum sbi_pmu_feature snapshot;
	enum sbi_pmu_feature event_info;
	unsigned long *ev_supported;	/* bitmap over sbi_pmu_std_events */
};

extern struct sbi_pmu_info sbi_pmu;

const char *sbi_pmu_feature_name(enum sbi_pmu_feature feat);
int sbi_pmu_probe(void);
void sbi_pmu_release(void);
int sbi_pmu_sysfs_init(void);
void sbi_pmu_sysfs_exit(void);

#endif /* NTRACE_SBI_PMU_INFO_H */
