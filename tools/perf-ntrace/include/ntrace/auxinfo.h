/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The ntrace PMU's AUXTRACE_INFO payload (include/uapi/linux/ntrace.h,
 * struct ntrace_auxtrace_info and one struct ntrace_cpu_info per CPU)
 * turned into decoder settings: the encoder registers as the driver
 * programmed and read them back, mapped onto struct ntrace_dec_cfg, the
 * way OpenCSD derives its decoder settings from captured ETM registers.
 * Callers hand over the payload bytes (perf's priv[] array); this layer
 * knows nothing else of perf.data.
 */
#ifndef NTRACE_AUXINFO_H
#define NTRACE_AUXINFO_H

#include <stddef.h>
#include <stdint.h>

#include <ntrace/decoder.h>
#include <ntrace/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One CPU's encoder. */
struct ntrace_auxinfo_cpu {
	uint32_t cpu, hartid;		/* Linux CPU number and its hart id */
	uint64_t ts_rate_hz;		/* timestamp clock, 0 if unknown */
	uint8_t ts_prescale;		/* trTsPrescale: clock divided by 4^n */
	uint8_t ts_width;		/* trTsWidth */
	uint64_t ts_zero;		/* time CSR value at the unit's 0; 0: none */
	struct ntrace_dec_cfg cfg;	/* decoder settings of this CPU's encoder */
};

/* ntrace_auxinfo.flags (NTRACE_INFO_* of the UAPI header) */
#define NTRACE_AUXINFO_SNAPSHOT	0x1	/* recorded in snapshot mode */

/* A parsed payload; the caller owns it (ntrace_auxinfo_free()). */
struct ntrace_auxinfo {
	uint32_t version, pmu_type, flags;	/* layout version, PMU type, NTRACE_AUXINFO_* */
	uint64_t config, config1, config2;	/* the event's perf config words */
	uint32_t nr_cpus;
	struct ntrace_auxinfo_cpu *cpus;	/* nr_cpus entries, malloc'ed */
	/* perf's time conversion from the event's mmap page; time_mult 0: none */
	uint32_t time_mult;
	uint16_t time_shift, time_flags;
	uint64_t time_zero, time_cycles, time_mask;
};

/*
 * Parse size bytes of payload. Returns 0, or NTRACE_EINVAL (not an ntrace
 * payload), NTRACE_EVERSION, NTRACE_ECORRUPT (sizes do not add up),
 * NTRACE_ECONFIG (settings the decoder cannot handle) or NTRACE_ENOMEM,
 * with the reason in err (errlen bytes, may be 0).
 */
int ntrace_auxinfo_parse(const void *priv, size_t size, struct ntrace_auxinfo *info,
			 char *err, size_t errlen);
/* Free info->cpus and zero the count (safe to call twice). */
void ntrace_auxinfo_free(struct ntrace_auxinfo *info);
/* The settings for cpu (or the first CPU's when cpu is unknown / -1);
 * NULL when info has no CPU. Points into info. */
const struct ntrace_auxinfo_cpu *ntrace_auxinfo_cpu(const struct ntrace_auxinfo *info,
						    int32_t cpu);

/*
 * perf time (ns) of a trace timestamp of cpu's encoder (TSTAMP units, full
 * width), or 0 when the recording has no conversion.
 */
uint64_t ntrace_auxinfo_perf_time(const struct ntrace_auxinfo *info,
				  const struct ntrace_auxinfo_cpu *cpu, uint64_t ts);

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_AUXINFO_H */
