/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ntrace: RISC-V N-Trace perf PMU ABI shared by the kernel driver
 * (drivers/hwtracing/ntrace) and the perf tool side (tools/perf-ntrace).
 *
 * 1. perf_event_attr.config bit layout of the "ntrace" PMU. The same
 *    layout is published in /sys/bus/event_source/devices/ntrace/format/.
 *    A field value of 0 always means "driver default", so
 *    "perf record -e ntrace//u" works with no terms.
 * 2. The private payload of PERF_RECORD_AUXTRACE_INFO written by the
 *    perf recorder: a versioned header with the conversion of trace time
 *    to perf time, and one record per CPU with the encoder settings as
 *    actually programmed (read back from the WARL registers), so a
 *    decoder needs nothing but the perf.data file.
 *
 * Field names follow the RISC-V Trace Control Interface 1.0 register
 * fields they map to (trTeInstMode, trTeInstFeatures, trTsControl, ...).
 */
#ifndef _UAPI_LINUX_NTRACE_H
#define _UAPI_LINUX_NTRACE_H

#include <linux/types.h>

/* Name of the PMU under /sys/bus/event_source/devices/. */
#define NTRACE_PMU_NAME			"ntrace"

/* ---- perf_event_attr.config ------------------------------------------- */

/*
 * Each field: NTRACE_CFG_<NAME>_SHIFT, NTRACE_CFG_<NAME>_MASK (mask of the
 * field in place, i.e. already shifted). Bits not listed here are reserved
 * and must be 0 (the driver rejects them with -EINVAL).
 */

/* htm: 0 = branch trace messaging (trTeInstMode 3), 1 = history trace (6) */
#define NTRACE_CFG_HTM_SHIFT		0
#define NTRACE_CFG_HTM_MASK		(1ULL << 0)

/* iret: trTeInstEnImplicitReturn (returns to a recent call are inferred) */
#define NTRACE_CFG_IRET_SHIFT		1
#define NTRACE_CFG_IRET_MASK		(1ULL << 1)

/*
 * iret_mode: trTeInstImplicitReturnMode wanted when iret=1:
 * 0 = the best the encoder supports (full > partial > counting),
 * 1 = simple call counting, 2 = partial return address compare,
 * 3 = full return address compare. -EOPNOTSUPP when the encoder cannot do
 * the requested mode; -EINVAL when non-zero without iret=1.
 */
#define NTRACE_CFG_IRET_MODE_SHIFT	2
#define NTRACE_CFG_IRET_MODE_MASK	(3ULL << 2)

/* rephist: trTeInstEnRepeatedHistory (HTM only: -EINVAL with BTM) */
#define NTRACE_CFG_REPHIST_SHIFT	4
#define NTRACE_CFG_REPHIST_MASK		(1ULL << 4)

/* seqjump: trTeInstEnSequentialJump */
#define NTRACE_CFG_SEQJUMP_SHIFT	5
#define NTRACE_CFG_SEQJUMP_MASK		(1ULL << 5)

/* alljumps: trTeInstEnAllJumps (messages for direct jumps and calls too) */
#define NTRACE_CFG_ALLJUMPS_SHIFT	6
#define NTRACE_CFG_ALLJUMPS_MASK	(1ULL << 6)

/* ts: timestamps in messages (trTsEnable, timestamp unit running) */
#define NTRACE_CFG_TS_SHIFT		7
#define NTRACE_CFG_TS_MASK		(1ULL << 7)

/* ctx: trTeContext, Ownership messages with privilege and context (ASID) */
#define NTRACE_CFG_CTX_SHIFT		8
#define NTRACE_CFG_CTX_MASK		(1ULL << 8)

/*
 * sync: trTeInstSyncMode, periodic synchronisation:
 * 0 = driver default (count messages), 1 = count messages,
 * 2 = count cycles (timestamp clock), 3 = count instruction half-words.
 * Periodic sync cannot be turned off: a decoder of a wrapped or truncated
 * buffer needs it to find its way in.
 */
#define NTRACE_CFG_SYNC_SHIFT		10
#define NTRACE_CFG_SYNC_MASK		(3ULL << 10)

/*
 * sync_period: 0 = the encoder's reset value of trTeInstSyncMax, else
 * n (1..16) programs trTeInstSyncMax = n - 1: a sync message at least every
 * 2^(n + 3) units of the sync mode.
 */
#define NTRACE_CFG_SYNC_PERIOD_SHIFT	12
#define NTRACE_CFG_SYNC_PERIOD_MASK	(0x1fULL << 12)

/* ts_prescale: trTsPrescale, timestamp clock divided by 4^n (needs ts=1) */
#define NTRACE_CFG_TS_PRESCALE_SHIFT	17
#define NTRACE_CFG_TS_PRESCALE_MASK	(3ULL << 17)

/*
 * src: 1 = messages carry a SRC field (trTeSrcBits = the width the
 * driver reports in caps/src_bits, trTeSrcID = the CPU's source ID);
 * 0 = no SRC field (trTeSrcBits 0). Needed when encoders share a sink
 * through a funnel; the driver forces it on then.
 */
#define NTRACE_CFG_SRC_SHIFT		19
#define NTRACE_CFG_SRC_MASK		(1ULL << 19)

/* Every defined bit of config. */
#define NTRACE_CFG_VALID_MASK						\
	(NTRACE_CFG_HTM_MASK | NTRACE_CFG_IRET_MASK |			\
	 NTRACE_CFG_IRET_MODE_MASK | NTRACE_CFG_REPHIST_MASK |		\
	 NTRACE_CFG_SEQJUMP_MASK | NTRACE_CFG_ALLJUMPS_MASK |		\
	 NTRACE_CFG_TS_MASK | NTRACE_CFG_CTX_MASK |			\
	 NTRACE_CFG_SYNC_MASK | NTRACE_CFG_SYNC_PERIOD_MASK |		\
	 NTRACE_CFG_TS_PRESCALE_MASK | NTRACE_CFG_SRC_MASK)

/* Extract / build a field: NTRACE_CFG_GET(config, SYNC) */
#define NTRACE_CFG_GET(cfg, name)					\
	(((cfg) & NTRACE_CFG_##name##_MASK) >> NTRACE_CFG_##name##_SHIFT)
#define NTRACE_CFG_SET(name, val)					\
	(((__u64)(val) << NTRACE_CFG_##name##_SHIFT) & NTRACE_CFG_##name##_MASK)

/*
 * config1 and config2 are reserved and must be 0. Address range filters
 * are given through perf's own filter interface (perf record --filter
 * 'filter 0x1000/0x200@/bin/app'), up to caps/nr_addr_filters ranges.
 */
#define NTRACE_CFG1_VALID_MASK		0ULL
#define NTRACE_CFG2_VALID_MASK		0ULL

/* ---- PERF_RECORD_AUXTRACE_INFO private data ---------------------------- */

/*
 * perf_record_auxtrace_info.type is perf's auxtrace type for N-Trace (the
 * tool's PERF_AUXTRACE_RISCV_NTRACE); the PMU type is pmu_type below. Its
 * priv[] holds a struct ntrace_auxtrace_info followed by nr_cpus struct
 * ntrace_cpu_info records of rec_size bytes each. A reader must use
 * hdr_size and rec_size to step (later minor versions may append fields)
 * and must reject a version it does not know. Fields are only appended:
 * a reader accepts any hdr_size >= NTRACE_AUXTRACE_INFO_SIZE_V1 (the
 * first layout) and takes a field that lies beyond hdr_size as absent
 * (files recorded before it was added). The time conversion was appended
 * that way, so the version stayed 1.
 */
#define NTRACE_AUXTRACE_MAGIC		0x314543415254544eULL /* "NTTRACE1" LE */
#define NTRACE_AUXTRACE_VERSION		1

/* hdr_size of the first layout (up to config2, no time conversion) */
#define NTRACE_AUXTRACE_INFO_SIZE_V1	56

/*
 * PERF_RECORD_AUX flags of the ntrace PMU, in the bits perf leaves to the
 * PMU (PERF_AUX_FLAG_PMU_FORMAT_TYPE_MASK). CONT: the record continues the
 * previous record of the same AUX area: the sink went on writing while
 * the driver published what it had written, so the record may start
 * inside a message and holds no synchronisation message of its own. A
 * decoder goes on from where that record ended, unless trace was lost in
 * between (a flag of that record, or missing bytes).
 */
#define NTRACE_AUX_FLAG_CONT		0x0100

/* ntrace_auxtrace_info.flags */
#define NTRACE_INFO_SNAPSHOT		(1U << 0) /* recorded in snapshot mode */

/* ntrace_auxtrace_info.time_flags: what the perf mmap page said */
#define NTRACE_TIME_CAP_ZERO		(1U << 0) /* cap_user_time_zero was set */
#define NTRACE_TIME_CAP_SHORT		(1U << 1) /* cap_user_time_short was set */

/*
 * Trace time to perf time.
 *
 * An encoder whose timestamp unit is fed by the platform timer (the RISC-V
 * time CSR: trTsMode External, the ntrace_cpu_info.ts_mode
 * NTRACE_TS_MODE_EXTERNAL the driver reports for the QEMU model and for
 * SoCs that distribute mtime to their trace encoders) puts time CSR ticks,
 * divided by 4^ts_prescale and cut to ts_width bits, into every TSTAMP
 * (ts_rate_hz is then the timebase-frequency). perf's clock on RISC-V is
 * sched_clock, which counts the same CSR, and the kernel publishes the
 * conversion in every perf event's mmap page (arch_perf_update_userpage()
 * from sched_clock's mult, shift and epoch, with cap_user_time_zero and
 * cap_user_time_short set). The recorder copies it into
 * ntrace_auxtrace_info (time_*), read under the page's seqlock, as Intel
 * PT's recorder does for the TSC. A decoder converts a full timestamp T
 * (upper bits above ts_width restored from a nearby reference such as the
 * AUXTRACE record's "reference", which the recorder reads from the time
 * CSR) like perf's tsc_to_perf_time():
 *
 *	cyc = T << (2 * ts_prescale);
 *	if (time_flags & NTRACE_TIME_CAP_SHORT)
 *		cyc = time_cycles + ((cyc - time_cycles) & time_mask);
 *	quot = cyc >> time_shift;
 *	rem = cyc & ((1ULL << time_shift) - 1);
 *	perf_ns = time_zero + quot * time_mult +
 *		  ((rem * time_mult) >> time_shift);
 *
 * The conversion is present when hdr_size covers time_mask and time_mult
 * is not 0; the recorder stores it only when the page had
 * cap_user_time_zero set (NTRACE_TIME_CAP_ZERO). The result is on perf's
 * default clock; for an event with another clock (use_clockid, perf
 * record -k) the page still describes sched_clock, so the recorder leaves
 * the conversion out (time_mult 0).
 *
 * A unit with its own zero. Some units count from their own reset, not
 * from the time CSR's zero (SiFive's pre-ratified units: the funnel's
 * system counter, which the encoders' slave units follow, or an encoder's
 * own). The driver reads such a unit against the time CSR and gives the
 * time CSR value at which it read 0 (caps/ts_zero_cpu<N>), which the
 * recorder copies into ntrace_cpu_info.ts_zero; the unit's own rate is
 * ts_rate_hz. Then, with ts_zero not 0, a full timestamp T is
 *
 *	perf_ns = conv(ts_zero) + (T << (2 * ts_prescale)) * 10^9 / ts_rate_hz
 *
 * where conv() is the conversion above of a time CSR value (the unit's
 * clock need not be the time CSR's). ts_zero 0 (a unit that counts the
 * time CSR, or a record without the field): the formula above.
 */

struct ntrace_auxtrace_info {
	__u64 magic;		/* NTRACE_AUXTRACE_MAGIC */
	__u32 version;		/* NTRACE_AUXTRACE_VERSION */
	__u32 hdr_size;		/* sizeof(struct ntrace_auxtrace_info) */
	__u32 nr_cpus;		/* number of per-CPU records that follow */
	__u32 rec_size;		/* sizeof(struct ntrace_cpu_info) */
	__u32 pmu_type;		/* perf_event_attr.type of the ntrace PMU */
	__u32 flags;		/* NTRACE_INFO_* */
	__u64 config;		/* perf_event_attr.config as requested */
	__u64 config1;		/* perf_event_attr.config1 */
	__u64 config2;		/* perf_event_attr.config2 */
	/* hdr_size >= 88: perf time conversion (see "Trace time" above) */
	__u16 time_shift;	/* perf_event_mmap_page.time_shift */
	__u16 time_flags;	/* NTRACE_TIME_* */
	__u32 time_mult;	/* .time_mult; 0: no conversion */
	__u64 time_zero;	/* .time_zero */
	__u64 time_cycles;	/* .time_cycles (with NTRACE_TIME_CAP_SHORT) */
	__u64 time_mask;	/* .time_mask (with NTRACE_TIME_CAP_SHORT) */
};

/* ntrace_cpu_info.options: what the encoder was programmed with */
#define NTRACE_OPT_IRET			(1U << 0) /* trTeInstEnImplicitReturn */
#define NTRACE_OPT_REPHIST		(1U << 1) /* trTeInstEnRepeatedHistory */
#define NTRACE_OPT_SEQJUMP		(1U << 2) /* trTeInstEnSequentialJump */
#define NTRACE_OPT_ALLJUMPS		(1U << 3) /* trTeInstEnAllJumps */
#define NTRACE_OPT_TS			(1U << 4) /* trTsEnable: TSTAMP fields */
#define NTRACE_OPT_CTX			(1U << 5) /* trTeContext: Ownership msgs */
#define NTRACE_OPT_EXT_ADDR_MSB		(1U << 6) /* trTeInstExtendAddrMSB */
#define NTRACE_OPT_NO_ADDR_DIFF		(1U << 7) /* trTeInstNoAddrDiff */
#define NTRACE_OPT_NO_TRAP_ADDR		(1U << 8) /* trTeInstNoTrapAddr */
#define NTRACE_OPT_INHIBIT_SRC		(1U << 9) /* trTeInhibitSrc */

/*
 * ntrace_cpu_info.variant: the protocol the encoder speaks. N-Trace 1.0 is
 * 0, which is what every file written before the field existed holds (the
 * byte was reserved and 0). SIFIVE_V0 is SiFive's pre-ratified encoder
 * (implementation register version field 0, as on the HiFive Premier
 * P550): timestamps XOR-compressed, ResourceFull RCODE 8/9 for runs of
 * not-taken/taken branches, implicit return a call counter of 1023 (more
 * than return_depth holds: the variant implies it). A decoder must reject
 * a variant it does not know.
 */
#define NTRACE_PROTO_VARIANT_1_0	0
#define NTRACE_PROTO_VARIANT_SIFIVE_V0	1

/* ntrace_cpu_info.ts_mode: trTsMode values */
#define NTRACE_TS_MODE_NONE		0
#define NTRACE_TS_MODE_EXTERNAL		1
#define NTRACE_TS_MODE_INTERNAL_SYSTEM	2
#define NTRACE_TS_MODE_INTERNAL_CORE	3
#define NTRACE_TS_MODE_SHARED		4

/*
 * One record per CPU that has a trace encoder. All sizes are in bits
 * unless the name says otherwise. u64-aligned: 64 bytes in the first
 * layout, 72 with ts_zero; a reader takes a field beyond rec_size as 0.
 */
#define NTRACE_CPU_INFO_SIZE_V1		64
struct ntrace_cpu_info {
	__u32 cpu;		/* logical CPU number (perf's cpu field) */
	__u32 hartid;		/* RISC-V hart ID of that CPU */

	__u16 src_id;		/* trTeSrcID of this CPU's encoder */
	__u8 src_bits;		/* trTeSrcBits (0: messages carry no SRC) */
	__u8 format;		/* trTeFormat: 1 = N-Trace */
	__u8 proto_major;	/* trTeProtocolMajor (N-Trace 1.0: 1) */
	__u8 proto_minor;	/* trTeProtocolMinor */
	__u8 te_ver_major;	/* trTeVerMajor of the encoder */
	__u8 te_ver_minor;	/* trTeVerMinor */

	__u8 mode;		/* trTeInstMode: 3 BTM, 6 HTM */
	__u8 iret_mode;		/* trTeInstImplicitReturnMode (0 when iret off) */
	__u8 return_depth;	/* return stack / call counter depth (entries) */
	__u8 return_addr_bits;	/* partial return address compare: low bits kept */
	__u8 icnt_bits;		/* I-CNT counter width incl. overflow bit */
	__u8 hist_bits;		/* HIST register width incl. stop bit */
	__u8 hrepeat_bits;	/* HREPEAT counter width */
	__u8 bcnt_bits;		/* B-CNT counter width */

	__u32 options;		/* NTRACE_OPT_* as programmed */
	__u8 itype_bits;	/* ingress itype width: 3 or 4 */
	__u8 xlen;		/* 32 or 64: address width for MSB extension */
	__u8 va_bits;		/* virtual address bits in use (e.g. 39, 48) */
	__u8 sync_mode;		/* trTeInstSyncMode as programmed */

	__u8 sync_max;		/* trTeInstSyncMax as programmed */
	__u8 ts_mode;		/* NTRACE_TS_MODE_* (trTsMode) */
	__u8 ts_width;		/* trTsWidth: timestamp counter width */
	__u8 ts_prescale;	/* trTsPrescale: clock divided by 4^n */
	__u8 variant;		/* NTRACE_PROTO_VARIANT_* (was reserved, 0) */
	__u8 reserved0;		/* 0 */
	__u16 reserved1;	/* 0 */

	/* timestamp input clock in Hz before ts_prescale, 0 if unknown */
	__u64 ts_rate_hz;

	__u32 te_control;	/* trTeControl as read back after programming */
	__u32 te_features;	/* trTeInstFeatures as read back */
	__u32 te_impl;		/* trTeImpl */
	__u32 ts_control;	/* trTsControl as read back */

	/* rec_size >= 72: see "A unit with its own zero" above */
	__u64 ts_zero;		/* time CSR value at which the unit read 0 */
};

#endif /* _UAPI_LINUX_NTRACE_H */
