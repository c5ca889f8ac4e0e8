// SPDX-License-Identifier: GPL-2.0-only
/*
 * sbi_pmu_info: discover the RISC-V SBI PMU extension through direct SBI
 * calls, show it read-only under /sys/firmware/sbi_pmu, and give other
 * ntrace modules counter discovery and configuration (ntrace_sbi_pmu.h).
 * It coexists with the in-kernel riscv_pmu_sbi driver: it changes no
 * counter and no firmware state on its own.
 */

#define pr_fmt(fmt) "sbi_pmu_info: " fmt

#include <linux/init.h>
#include <linux/module.h>

#include "sbi_pmu_info.h"

static int __init sbi_pmu_info_init(void)
{
	int err;

	err = sbi_pmu_probe();
	if (!err)
		err = sbi_pmu_sysfs_init();
	if (err) {
		pr_err("not loaded: error %d\n", err);
		sbi_pmu_release();
	}
	return err;
}

static void __exit sbi_pmu_info_exit(void)
{
	sbi_pmu_sysfs_exit();
	sbi_pmu_release();
}

module_init(sbi_pmu_info_init);
module_exit(sbi_pmu_info_exit);

MODULE_DESCRIPTION("RISC-V SBI PMU extension discovery and counter interface");
MODULE_LICENSE("GPL");
