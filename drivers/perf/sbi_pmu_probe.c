// SPDX-License-Identifier: GPL-2.0-only
/*
 * Discovery: ask the SBI firmware what its PMU extension offers, without
 * changing any state the in-kernel riscv_pmu_sbi driver relies on.
 */

#define pr_fmt(fmt) "sbi_pmu_info: " fmt

#include <linux/bitmap.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <asm/sbi.h>

#include "sbi_pmu_decode.h"
#include "sbi_pmu_info.h"

/* Far more than any PMU has; bounds what we allocate on firmware's word. */
#define SBI_PMU_MAX_COUNTERS	1024

struct sbi_pmu_info sbi_pmu;

#define HW_EVENT(n, c)	{ n, SBI_PMU_EVENT_TYPE_HW << 16 | (c) }
#define FW_EVENT(n, c)	{ n, SBI_PMU_EVENT_TYPE_FW << 16 | (c) }

/* The generic hardware and the firmware events the SBI PMU spec defines. */
const struct sbi_pmu_std_event sbi_pmu_std_events[] = {
	HW_EVENT("cpu_cycles", SBI_PMU_HW_CPU_CYCLES),
	HW_EVENT("instructions", SBI_PMU_HW_INSTRUCTIONS),
	HW_EVENT("cache_references", SBI_PMU_HW_CACHE_REFERENCES),
	HW_EVENT("cache_misses", SBI_PMU_HW_CACHE_MISSES),
	HW_EVENT("branch_instructions", SBI_PMU_HW_BRANCH_INSTRUCTIONS),
	HW_EVENT("branch_misses", SBI_PMU_HW_BRANCH_MISSES),
	HW_EVENT("bus_cycles", SBI_PMU_HW_BUS_CYCLES),
	HW_EVENT("stalled_cycles_frontend", SBI_PMU_HW_STALLED_CYCLES_FRONTEND),
	HW_EVENT("stalled_cycles_backend", SBI_PMU_HW_STALLED_CYCLES_BACKEND),
	HW_EVENT("ref_cpu_cycles", SBI_PMU_HW_REF_CPU_CYCLES),
	FW_EVENT("fw_misaligned_load", SBI_PMU_FW_MISALIGNED_LOAD),
	FW_EVENT("fw_misaligned_store", SBI_PMU_FW_MISALIGNED_STORE),
	FW_EVENT("fw_access_load", SBI_PMU_FW_ACCESS_LOAD),
	FW_EVENT("fw_access_store", SBI_PMU_FW_ACCESS_STORE),
	FW_EVENT("fw_illegal_insn", SBI_PMU_FW_ILLEGAL_INSN),
	FW_EVENT("fw_set_timer", SBI_PMU_FW_SET_TIMER),
	FW_EVENT("fw_ipi_sent", SBI_PMU_FW_IPI_SENT),
	FW_EVENT("fw_ipi_received", SBI_PMU_FW_IPI_RCVD),
	FW_EVENT("fw_fence_i_sent", SBI_PMU_FW_FENCE_I_SENT),
	FW_EVENT("fw_fence_i_received", SBI_PMU_FW_FENCE_I_RCVD),
	FW_EVENT("fw_sfence_vma_sent", SBI_PMU_FW_SFENCE_VMA_SENT),
	FW_EVENT("fw_sfence_vma_received", SBI_PMU_FW_SFENCE_VMA_RCVD),
	FW_EVENT("fw_sfence_vma_asid_sent", SBI_PMU_FW_SFENCE_VMA_ASID_SENT),
	FW_EVENT("fw_sfence_vma_asid_received", SBI_PMU_FW_SFENCE_VMA_ASID_RCVD),
	FW_EVENT("fw_hfence_gvma_sent", SBI_PMU_FW_HFENCE_GVMA_SENT),
	FW_EVENT("fw_hfence_gvma_received", SBI_PMU_FW_HFENCE_GVMA_RCVD),
	FW_EVENT("fw_hfence_gvma_vmid_sent", SBI_PMU_FW_HFENCE_GVMA_VMID_SENT),
	FW_EVENT("fw_hfence_gvma_vmid_received", SBI_PMU_FW_HFENCE_GVMA_VMID_RCVD),
	FW_EVENT("fw_hfence_vvma_sent", SBI_PMU_FW_HFENCE_VVMA_SENT),
	FW_EVENT("fw_hfence_vvma_received", SBI_PMU_FW_HFENCE_VVMA_RCVD),
	FW_EVENT("fw_hfence_vvma_asid_sent", SBI_PMU_FW_HFENCE_VVMA_ASID_SENT),
	FW_EVENT("fw_hfence_vvma_asid_received", SBI_PMU_FW_HFENCE_VVMA_ASID_RCVD),
};

const unsigned int sbi_pmu_num_std_events = ARRAY_SIZE(sbi_pmu_std_events);

const char *sbi_pmu_feature_name(enum sbi_pmu_feature feat)
{
	switch (feat) {
	case SBI_PMU_FEAT_NOT_PROBED:
		return "not_probed";
	case SBI_PMU_FEAT_SUPPORTED:
		return "supported";
	case SBI_PMU_FEAT_NOT_SUPPORTED:
		return "not_supported";
	default:
		return "error";
	}
}

static unsigned long sbi_base_call(int fid)
{
	struct sbiret ret = sbi_ecall(SBI_EXT_BASE, fid, 0, 0, 0, 0, 0, 0);

	/* The base extension's getters cannot fail on a conforming SBI. */
	return ret.error ? 0 : ret.value;
}

static int sbi_pmu_probe_counters(void)
{
	struct sbi_pmu_ctr_desc desc;
	struct sbiret ret;
	unsigned int i, n;

	ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_NUM_COUNTERS, 0, 0, 0, 0, 0, 0);
	/* The spec says this call cannot fail: treat a failure as no PMU. */
	if (ret.error) {
		pr_err("num_counters failed: SBI error %ld\n", ret.error);
		return -ENODEV;
	}
	if (ret.value <= 0) {
		pr_err("firmware reports no PMU counters\n");
		return -ENODEV;
	}
	n = ret.value;
	if (n > SBI_PMU_MAX_COUNTERS) {
		pr_warn("firmware reports %u counters, using the first %u\n",
			n, SBI_PMU_MAX_COUNTERS);
		n = SBI_PMU_MAX_COUNTERS;
	}

	sbi_pmu.ctr_info = kcalloc(n, sizeof(*sbi_pmu.ctr_info), GFP_KERNEL);
	sbi_pmu.ctr_valid = bitmap_zalloc(n, GFP_KERNEL);
	if (!sbi_pmu.ctr_info || !sbi_pmu.ctr_valid)
		return -ENOMEM;
	sbi_pmu.num_counters = n;

	for (i = 0; i < n; i++) {
		ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_COUNTER_GET_INFO, i,
				0, 0, 0, 0, 0);
		/* Counter indices need not be contiguous: skip the holes. */
		if (ret.error) {
			pr_info("counter %u: no info (SBI error %ld), skipped\n",
				i, ret.error);
			continue;
		}
		sbi_pmu.ctr_info[i] = ret.value;
		set_bit(i, sbi_pmu.ctr_valid);
		sbi_pmu_decode_ctr_info(ret.value, &desc);
		if (desc.reserved_set)
			pr_warn("counter %u: reserved bits set in info 0x%lx\n",
				i, (unsigned long)ret.value);
		if (desc.firmware) {
			sbi_pmu.num_fw_counters++;
		} else {
			sbi_pmu.num_hw_counters++;
			if (!sbi_pmu_csr_is_counter(desc.csr))
				pr_warn("counter %u: CSR 0x%x is not a counter CSR\n",
					i, desc.csr);
		}
	}
	return 0;
}

/*
 * The snapshot shared memory is per hart and set once at boot; on SBI >= 2.0
 * the riscv_pmu_sbi driver has already given the firmware its own page (if
 * the firmware took it, the boot log says "SBI PMU snapshot detected").
 * Setting or disabling the area here would pull it from under that driver,
 * so ask with a request every conforming implementation must reject
 * (address not page aligned, reserved flag bit set): the function exists
 * iff the answer is something other than SBI_ERR_NOT_SUPPORTED.
 */
static void sbi_pmu_probe_snapshot(void)
{
	struct sbiret ret;

	if (!sbi_pmu_version_at_least(sbi_pmu.spec_version, 2, 0)) {
		sbi_pmu.snapshot = SBI_PMU_FEAT_NOT_PROBED;
		return;
	}
	ret = sbi_ecall(SBI_EXT_PMU, SBI_EXT_PMU_SNAPSHOT_SET_SHMEM,
			1, 0, BIT(0), 0, 0, 0);
	switch (ret.error) {
	case SBI_ERR_NOT_SUPPORTED:
		sbi_pmu.snapshot = SBI_PMU_FEAT_NOT_SUPPORTED;
		pr_info("counter snapshot: not supported by the firmware\n");
		break;
	case SBI_ERR_INVALID_PARAM:
	case SBI_ERR_INVALID_ADDRESS:
		sbi_pmu.snapshot = SBI_PMU_FEAT_SUPPORTED;
		break;
	case SBI_SUCCESS:
		/* Nothing to restore: the driver's page address is private. */
		sbi_pmu.snapshot = SBI_PMU_FEAT_ERROR;
		pr_err("counter snapshot: firmware accepted an invalid shared memory address; snapshots on this hart are unreliable\n");
		break;
	default:
		sbi_pmu.snapshot = SBI_PMU_FEAT_ERROR;
		pr_warn("counter snapshot: unexpected SBI error %ld\n",
			ret.error);
		break;
	}
}

/*
 * SBI 3.0 event_get_info: which standard events can be counted at all.
 * Older firmware must answer SBI_ERR_NOT_SUPPORTED for an unknown function,
 * so this is asked on every version; the answer decides.
 */
static int sbi_pmu_probe_event_info(void)
{
	struct sbi_pmu_event_info_entry *ent;
	unsigned int i, n = sbi_pmu_num_std_events;
	struct sbiret ret;
	phys_addr_t pa;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ent) != 16);
	BUILD_BUG_ON(ARRAY_SIZE(sbi_pmu_std_events) * sizeof(*ent) > PAGE_SIZE);

	sbi_pmu.ev_supported = bitmap_zalloc(n, GFP_KERNEL);
	/* A zeroed page: 16-byte aligned and physically contiguous. */
	ent = (void *)get_zeroed_page(GFP_KERNEL);
	if (!sbi_pmu.ev_supported || !ent) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		sbi_pmu_event_info_fill(&ent[i], sbi_pmu_std_events[i].event_idx, 0);

	pa = virt_to_phys(ent);
	ret = sbi_ecall(SBI_EXT_PMU, NTRACE_SBI_PMU_EVENT_GET_INFO,
			IS_ENABLED(CONFIG_32BIT) ? lower_32_bits(pa) : pa,
			IS_ENABLED(CONFIG_32BIT) ? upper_32_bits(pa) : 0,
			n, 0, 0, 0);
	switch (ret.error) {
	case SBI_SUCCESS:
		sbi_pmu.event_info = SBI_PMU_FEAT_SUPPORTED;
		for (i = 0; i < n; i++)
			if (sbi_pmu_event_info_supported(&ent[i]))
				set_bit(i, sbi_pmu.ev_supported);
		break;
	case SBI_ERR_NOT_SUPPORTED:
		sbi_pmu.event_info = SBI_PMU_FEAT_NOT_SUPPORTED;
		pr_info("event_get_info: not supported by the firmware (SBI 3.0 function), no events/ directory\n");
		break;
	default:
		sbi_pmu.event_info = SBI_PMU_FEAT_ERROR;
		pr_warn("event_get_info: SBI error %ld, no events/ directory\n",
			ret.error);
		break;
	}
out:
	free_page((unsigned long)ent);
	return err;
}

void sbi_pmu_release(void)
{
	bitmap_free(sbi_pmu.ev_supported);
	bitmap_free(sbi_pmu.ctr_valid);
	kfree(sbi_pmu.ctr_info);
	memset(&sbi_pmu, 0, sizeof(sbi_pmu));
}

/* Fill sbi_pmu from the firmware. On error the caller calls sbi_pmu_release(). */
int sbi_pmu_probe(void)
{
	unsigned long kver = sbi_spec_version;
	int err;

	/* SBI 0.1 has no base extension to ask; it has no PMU either. */
	if (sbi_spec_is_0_1()) {
		pr_err("no SBI PMU extension (legacy SBI 0.1 firmware)\n");
		return -ENODEV;
	}
	sbi_pmu.spec_version = sbi_base_call(SBI_EXT_BASE_GET_SPEC_VERSION);
	if (!sbi_pmu.spec_version)
		sbi_pmu.spec_version = kver;
	else if (sbi_pmu.spec_version != kver)
		pr_warn("firmware reports SBI 0x%lx, the kernel recorded 0x%lx\n",
			sbi_pmu.spec_version, kver);

	if (!sbi_pmu_version_at_least(sbi_pmu.spec_version, 0, 3) ||
	    sbi_probe_extension(SBI_EXT_PMU) <= 0) {
		pr_err("no SBI PMU extension (SBI %lu.%lu)\n",
		       sbi_pmu_version_major(sbi_pmu.spec_version),
		       sbi_pmu_version_minor(sbi_pmu.spec_version));
		return -ENODEV;
	}
	sbi_pmu.impl_id = sbi_base_call(SBI_EXT_BASE_GET_IMP_ID);
	sbi_pmu.impl_version = sbi_base_call(SBI_EXT_BASE_GET_IMP_VERSION);

	err = sbi_pmu_probe_counters();
	if (err)
		return err;
	sbi_pmu_probe_snapshot();
	err = sbi_pmu_probe_event_info();
	if (err)
		return err;

	pr_info("SBI %lu.%lu %s: %u counters (%u hardware, %u firmware), snapshot %s, event_info %s\n",
		sbi_pmu_version_major(sbi_pmu.spec_version),
		sbi_pmu_version_minor(sbi_pmu.spec_version),
		sbi_pmu_impl_name(sbi_pmu.impl_id), sbi_pmu.num_counters,
		sbi_pmu.num_hw_counters, sbi_pmu.num_fw_counters,
		sbi_pmu_feature_name(sbi_pmu.snapshot),
		sbi_pmu_feature_name(sbi_pmu.event_info));
	return 0;
}
