/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pure decoding helpers for the RISC-V SBI PMU extension: the counter_info
 * word, the spec version word, SBI error codes and the SBI 3.0 event_info
 * shared-memory entries. No SBI calls here, so the KUnit module can test
 * every function without firmware.
 */
#ifndef NTRACE_SBI_PMU_DECODE_H
#define NTRACE_SBI_PMU_DECODE_H

#include <linux/array_size.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/types.h>
#include <asm/byteorder.h>
#include <asm/sbi.h>

/* Error codes added after SBI 2.0 that 6.12's asm/sbi.h does not know yet. */
#ifndef SBI_ERR_INVALID_STATE
#define SBI_ERR_INVALID_STATE	-10
#endif
#ifndef SBI_ERR_BAD_RANGE
#define SBI_ERR_BAD_RANGE	-11
#endif
#ifndef SBI_ERR_TIMEOUT
#define SBI_ERR_TIMEOUT		-12
#endif
#ifndef SBI_ERR_IO
#define SBI_ERR_IO		-13
#endif
#ifndef SBI_ERR_DENIED_LOCKED
#define SBI_ERR_DENIED_LOCKED	-14
#endif

/* SBI 3.0 function, absent from 6.12's enum sbi_ext_pmu_fid. */
#define NTRACE_SBI_PMU_EVENT_GET_INFO	8

/* counter_info word: csr[11:0], width[17:12] (bits - 1), type[XLEN-1]. */
#define SBI_PMU_CTR_INFO_CSR		GENMASK(11, 0)
#define SBI_PMU_CTR_INFO_WIDTH		GENMASK(17, 12)
#define SBI_PMU_CTR_INFO_TYPE_FW	BIT(BITS_PER_LONG - 1)
#define SBI_PMU_CTR_INFO_RESERVED	GENMASK(BITS_PER_LONG - 2, 18)

/* User-readable counter CSRs that S-mode can read: cycle .. hpmcounter31. */
#define SBI_PMU_CSR_CYCLE		0xc00
#define SBI_PMU_CSR_HPMCOUNTER31	0xc1f
#define SBI_PMU_CSR_CYCLEH		0xc80
#define SBI_PMU_CSR_HPMCOUNTER31H	0xc9f

struct sbi_pmu_ctr_desc {
	bool firmware;
	u16 csr;	/* hardware counters only */
	u8 width;	/* bits (1..64), hardware counters only */
	bool reserved_set;	/* firmware set bits the spec reserves */
};

/**
 * sbi_pmu_decode_ctr_info() - split an SBI counter_info word into its fields
 * @info: sbiret.value of SBI_EXT_PMU_COUNTER_GET_INFO
 * @desc: filled in; csr and width are zero for firmware counters, as the
 *	  spec says to ignore them there
 */
static inline void sbi_pmu_decode_ctr_info(unsigned long info,
					   struct sbi_pmu_ctr_desc *desc)
{
	desc->firmware = !!(info & SBI_PMU_CTR_INFO_TYPE_FW);
	desc->reserved_set = !!(info & SBI_PMU_CTR_INFO_RESERVED);
	if (desc->firmware) {
		desc->csr = 0;
		desc->width = 0;
	} else {
		desc->csr = info & SBI_PMU_CTR_INFO_CSR;
		desc->width = ((info & SBI_PMU_CTR_INFO_WIDTH) >> 12) + 1;
	}
}

/*
 * True if @csr is one of the counter CSRs S-mode reads a hardware counter
 * through (cycle, time, instret, hpmcounter3..31, and their RV32 high halves).
 */
static inline bool sbi_pmu_csr_is_counter(unsigned int csr)
{
	return (csr >= SBI_PMU_CSR_CYCLE && csr <= SBI_PMU_CSR_HPMCOUNTER31) ||
	       (csr >= SBI_PMU_CSR_CYCLEH && csr <= SBI_PMU_CSR_HPMCOUNTER31H);
}

/* Spec version word: major[30:24], minor[23:0], bit 31 reserved. */
static inline unsigned long sbi_pmu_version_major(unsigned long version)
{
	return (version >> SBI_SPEC_VERSION_MAJOR_SHIFT) &
	       SBI_SPEC_VERSION_MAJOR_MASK;
}

static inline unsigned long sbi_pmu_version_minor(unsigned long version)
{
	return version & SBI_SPEC_VERSION_MINOR_MASK;
}

/* True if @version is at least @major.@minor. */
static inline bool sbi_pmu_version_at_least(unsigned long version,
					    unsigned long major,
					    unsigned long minor)
{
	unsigned long vmaj = sbi_pmu_version_major(version);

	return vmaj > major ||
	       (vmaj == major && sbi_pmu_version_minor(version) >= minor);
}

/**
 * sbi_pmu_err_to_errno() - map an SBI error code to a Linux errno
 * @err: sbiret.error
 *
 * Unlike 6.12's sbi_err_map_linux_errno() this keeps the codes distinct
 * (a counter that is already started is -EBUSY, not -ENOTSUPP), and never
 * returns the kernel-internal -ENOTSUPP, so callers can pass the result to
 * user space. A code the spec does not define is a firmware bug: -EPROTO.
 */
static inline int sbi_pmu_err_to_errno(long err)
{
	switch (err) {
	case SBI_SUCCESS:
		return 0;
	case SBI_ERR_FAILURE:
	case SBI_ERR_IO:
		return -EIO;
	case SBI_ERR_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	case SBI_ERR_INVALID_PARAM:
	case SBI_ERR_INVALID_STATE:
		return -EINVAL;
	case SBI_ERR_DENIED:
	case SBI_ERR_DENIED_LOCKED:
		return -EPERM;
	case SBI_ERR_INVALID_ADDRESS:
		return -EFAULT;
	case SBI_ERR_ALREADY_AVAILABLE:
		return -EEXIST;
	case SBI_ERR_ALREADY_STARTED:
		return -EBUSY;
	case SBI_ERR_ALREADY_STOPPED:
		return -EALREADY;
	case SBI_ERR_NO_SHMEM:
		return -ENXIO;
	case SBI_ERR_BAD_RANGE:
		return -ERANGE;
	case SBI_ERR_TIMEOUT:
		return -ETIMEDOUT;
	default:
		return -EPROTO;
	}
}

/* Name of an SBI implementation ID from the SBI base extension's table. */
static inline const char *sbi_pmu_impl_name(unsigned long impl_id)
{
	static const char * const names[] = {
		"BBL", "OpenSBI", "Xvisor", "KVM", "RustSBI", "Diosix",
		"Coffer", "Xen", "PolarFire HSS", "coreboot", "oreboot",
		"bhyve",
	};

	return impl_id < ARRAY_SIZE(names) ? names[impl_id] : "unknown";
}

/* event_idx: type[19:16], code[15:0]. */
static inline u32 sbi_pmu_event_idx(unsigned int type, unsigned int code)
{
	return ((type & 0xf) << 16) | (code & 0xffff);
}

/*
 * One SBI 3.0 event_info entry in shared memory (16 bytes, little endian):
 * word 0 event_idx, word 1 output (bit 0: event supported), words 2-3
 * event_data.
 */
struct sbi_pmu_event_info_entry {
	__le32 event_idx;
	__le32 output;
	__le64 event_data;
};

static inline void sbi_pmu_event_info_fill(struct sbi_pmu_event_info_entry *e,
					   u32 event_idx, u64 event_data)
{
	e->event_idx = cpu_to_le32(event_idx);
	e->output = 0;
	e->event_data = cpu_to_le64(event_data);
}

static inline bool sbi_pmu_event_info_supported(const struct sbi_pmu_event_info_entry *e)
{
	return le32_to_cpu(e->output) & BIT(0);
}

#endif /* NTRACE_SBI_PMU_DECODE_H */
