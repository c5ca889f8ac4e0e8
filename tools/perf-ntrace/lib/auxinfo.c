// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The ntrace AUXTRACE_INFO payload (include/uapi/linux/ntrace.h) ->
 * per-CPU decoder settings (ntrace/auxinfo.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../../include/uapi/linux/ntrace.h"
#include "err_internal.h"
#include "ntrace/encoder.h"
#include "ntrace/auxinfo.h"

_Static_assert(NTRACE_PROTO_VARIANT_1_0 == NTRACE_VARIANT_1_0 &&
	       NTRACE_PROTO_VARIANT_SIFIVE_V0 == NTRACE_VARIANT_SIFIVE_V0,
	       "ntrace_cpu_info.variant values are enum ntrace_variant's");

/* The header of the first recorders, and the one with the time conversion. */
#define AUXINFO_HDR_MIN		offsetof(struct ntrace_auxtrace_info, time_shift)
#define AUXINFO_HDR_TIME	(offsetof(struct ntrace_auxtrace_info, time_mask) + 8)

/*
 * Decoder settings from one CPU record: 0, or NTRACE_ECONFIG with *why
 * naming the setting that is unusable.
 */
static int cpu_cfg(const struct ntrace_cpu_info *c, struct ntrace_dec_cfg *cfg, const char **why)
{
	struct ntrace_enc_cfg *e = &cfg->enc;

	ntrace_dec_cfg_default(cfg);
	if (c->format != 1)
		*why = "trTeFormat is not N-Trace (1)";
	else if (c->variant >= NTRACE_VARIANT__COUNT)
		*why = "the protocol variant is not one this decoder knows";
	else if (c->variant == NTRACE_VARIANT_1_0 && c->te_impl && !c->te_ver_major)
		/* a driver that knows the variant says it: version 0 is pre-ratified */
		*why = "the encoder is pre-ratified (version 0) but no protocol variant is given";
	else if (c->variant == NTRACE_VARIANT_1_0 && c->proto_major > 1)
		*why = "N-Trace protocol major version is newer than 1";
	else if (c->mode != NTRACE_MODE_BTM && c->mode != NTRACE_MODE_HTM)
		*why = "trTeInstMode is neither BTM (3) nor HTM (6)";
	else
		*why = NULL;
	if (*why)
		return NTRACE_ECONFIG;
	e->mode = c->mode;
	e->codec.variant = c->variant;
	e->codec.src_bits = c->src_bits;
	e->codec.xlen = c->xlen ? c->xlen : 64;
	e->codec.ext_addr_msb = c->options & NTRACE_OPT_EXT_ADDR_MSB;
	e->codec.tstamp = c->options & NTRACE_OPT_TS;
	/* Without a SRC field the source ID is not in the messages. */
	e->src_id = c->src_bits ? c->src_id : 0;
	if (c->itype_bits)
		e->itype_bits = c->itype_bits;
	if (c->icnt_bits)
		e->icnt_bits = c->icnt_bits;
	if (c->hist_bits)
		e->hist_bits = c->hist_bits;
	if (c->hrepeat_bits)
		e->hrepeat_bits = c->hrepeat_bits;
	if (c->bcnt_bits)
		e->bcnt_bits = c->bcnt_bits;
	if (c->options & NTRACE_OPT_IRET) {
		/* 0 = "best the encoder has": the decoder's return stack covers all. */
		e->implicit_return = c->iret_mode ? c->iret_mode : NTRACE_IRET_FULL;
		if (c->return_depth)
			e->return_depth = c->return_depth;
		if (c->return_addr_bits)
			e->return_addr_bits = c->return_addr_bits;
	} else {
		e->implicit_return = NTRACE_IRET_OFF;
	}
	e->repeated_history = c->options & NTRACE_OPT_REPHIST;
	e->seq_jump = c->options & NTRACE_OPT_SEQJUMP;
	e->all_jumps = c->options & NTRACE_OPT_ALLJUMPS;
	e->context = c->options & NTRACE_OPT_CTX;
	e->sync_mode = c->sync_mode;
	e->sync_max = c->sync_max;
	/* the SiFive v0 call counter is deeper than return_depth holds */
	if (c->variant == NTRACE_VARIANT_SIFIVE_V0 && e->implicit_return)
		e->return_depth = NTRACE_V0_RETURN_DEPTH;
	/* a v0 encoder cannot filter by privilege: it traces firmware too */
	cfg->resume_at_targets = c->variant == NTRACE_VARIANT_SIFIVE_V0;
	ntrace_enc_cfg_effective(e);
	return ntrace_enc_cfg_check(e, why);
}

static int parse(const uint8_t *p, size_t size, struct ntrace_auxinfo *info,
		 struct ntrace_errbuf *err)
{
	struct ntrace_auxtrace_info h;
	const char *why;
	uint32_t i;

	memset(&h, 0, sizeof(h));
	if (size < AUXINFO_HDR_MIN)
		return ntrace_err_set(err, NTRACE_EINVAL,
				      "AUXTRACE_INFO payload of %zu bytes holds no N-Trace header",
				      size);
	/* older recorders wrote a shorter header: the rest reads as 0 */
	memcpy(&h, p, size < sizeof(h) ? size : sizeof(h));
	if (h.magic != NTRACE_AUXTRACE_MAGIC)
		return ntrace_err_set(err, NTRACE_EINVAL,
				      "AUXTRACE_INFO payload is not from the ntrace PMU");
	if (h.version != NTRACE_AUXTRACE_VERSION)
		return ntrace_err_set(err, NTRACE_EVERSION,
				      "ntrace AUXTRACE_INFO version %u is not supported (expected %u)",
				      h.version, NTRACE_AUXTRACE_VERSION);
	if (h.hdr_size < AUXINFO_HDR_MIN || h.hdr_size % 8 || h.rec_size < NTRACE_CPU_INFO_SIZE_V1 ||
	    h.rec_size % 8 || h.nr_cpus > 65536 ||
	    h.hdr_size + (uint64_t)h.nr_cpus * h.rec_size > size)
		return ntrace_err_set(err, NTRACE_ECORRUPT,
				      "ntrace AUXTRACE_INFO sizes are inconsistent (header %u, %u CPU records of %u bytes, %zu bytes present)",
				      h.hdr_size, h.nr_cpus, h.rec_size, size);
	if (!h.nr_cpus)
		return ntrace_err_set(err, NTRACE_ECORRUPT, "ntrace AUXTRACE_INFO describes no CPU");
	info->cpus = calloc(h.nr_cpus, sizeof(*info->cpus));
	if (!info->cpus)
		return ntrace_err_set(err, NTRACE_ENOMEM, "out of memory");
	info->version = h.version;
	info->pmu_type = h.pmu_type;
	info->flags = h.flags;
	info->config = h.config;
	info->config1 = h.config1;
	info->config2 = h.config2;
	info->nr_cpus = h.nr_cpus;
	/* the shifts of ntrace_auxinfo_perf_time() */
	if (h.hdr_size >= AUXINFO_HDR_TIME && h.time_mult && h.time_shift > 63)
		return ntrace_err_set(err, NTRACE_ECORRUPT,
				      "ntrace AUXTRACE_INFO time_shift %u is out of range (0..63)",
				      h.time_shift);
	if (h.hdr_size >= AUXINFO_HDR_TIME && h.time_mult) {
		info->time_mult = h.time_mult;
		info->time_shift = h.time_shift;
		info->time_flags = h.time_flags;
		info->time_zero = h.time_zero;
		info->time_cycles = h.time_cycles;
		info->time_mask = h.time_mask;
	}
	for (i = 0; i < h.nr_cpus; i++) {
		struct ntrace_cpu_info c;

		/* a shorter record (an older recorder): the rest reads as 0 */
		memset(&c, 0, sizeof(c));
		memcpy(&c, p + h.hdr_size + (size_t)i * h.rec_size,
		       h.rec_size < sizeof(c) ? h.rec_size : sizeof(c));
		info->cpus[i].cpu = c.cpu;
		info->cpus[i].hartid = c.hartid;
		info->cpus[i].ts_rate_hz = c.ts_rate_hz;
		info->cpus[i].ts_prescale = c.ts_prescale;
		/* trTsPrescale is a 2-bit field: the clock divided by 4^n */
		if (c.ts_prescale > 3)
			return ntrace_err_set(err, NTRACE_ECONFIG,
					      "ntrace AUXTRACE_INFO, CPU %u: trTsPrescale %u is above 3",
					      c.cpu, c.ts_prescale);
		info->cpus[i].ts_width = c.ts_width;
		info->cpus[i].ts_zero = c.ts_zero;
		if (cpu_cfg(&c, &info->cpus[i].cfg, &why))
			return ntrace_err_set(err, NTRACE_ECONFIG,
					      "ntrace AUXTRACE_INFO, CPU %u: unusable encoder settings: %s",
					      c.cpu, why);
	}
	return 0;
}

int ntrace_auxinfo_parse(const void *priv, size_t size, struct ntrace_auxinfo *info,
			 char *err, size_t errlen)
{
	struct ntrace_errbuf e = { 0 };
	int rc;

	memset(info, 0, sizeof(*info));
	rc = parse(priv, size, info, &e);
	if (!rc)
		return 0;
	ntrace_auxinfo_free(info);
	return ntrace_err_copy(&e, err, errlen);
}

void ntrace_auxinfo_free(struct ntrace_auxinfo *info)
{
	free(info->cpus);
	info->cpus = NULL;
	info->nr_cpus = 0;
}

const struct ntrace_auxinfo_cpu *ntrace_auxinfo_cpu(const struct ntrace_auxinfo *info,
						    int32_t cpu)
{
	uint32_t i;

	if (!info->nr_cpus)
		return NULL;
	for (i = 0; i < info->nr_cpus; i++)
		if ((int32_t)info->cpus[i].cpu == cpu)
			return &info->cpus[i];
	return &info->cpus[0];
}

/* perf time of a time CSR value: perf's tsc_to_perf_time() */
static uint64_t csr_perf_time(const struct ntrace_auxinfo *info, uint64_t cyc)
{
	uint64_t quot, rem;

	if (info->time_flags & NTRACE_TIME_CAP_SHORT)
		cyc = info->time_cycles + ((cyc - info->time_cycles) & info->time_mask);
	quot = cyc >> info->time_shift;
	rem = cyc & ((1ULL << info->time_shift) - 1);
	return info->time_zero + quot * info->time_mult +
	       ((rem * info->time_mult) >> info->time_shift);
}

uint64_t ntrace_auxinfo_perf_time(const struct ntrace_auxinfo *info,
				  const struct ntrace_auxinfo_cpu *cpu, uint64_t ts)
{
	uint64_t cyc;

	if (!info->time_mult)
		return 0;
	/* the include/uapi/linux/ntrace.h formulas */
	cyc = cpu ? ts << (2 * cpu->ts_prescale) : ts;
	if (!cpu || !cpu->ts_zero)
		return csr_perf_time(info, cyc);
	/* a unit with its own zero, counting at ts_rate_hz */
	if (!cpu->ts_rate_hz)
		return csr_perf_time(info, cpu->ts_zero + cyc);
	return csr_perf_time(info, cpu->ts_zero) +
	       (uint64_t)((unsigned __int128)cyc * 1000000000u / cpu->ts_rate_hz);
}
