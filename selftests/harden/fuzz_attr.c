// SPDX-License-Identifier: GPL-2.0-only
/*
 * Random perf_event_attr and filter strings for the kernel-interface
 * fuzzer (see fuzz.h). Mostly values a tool would pass, with edge cases
 * and garbage mixed in, so that the deep paths (AUX setup, branch stacks,
 * groups) are reached as well as the argument checks.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <linux/ntrace.h>

#include "fuzz.h"

uint64_t fz_edge_u64(struct fz_rng *r)
{
	static const uint64_t edges[] = {
		0, 1, 2, 3, 7, 8, 63, 64, 4095, 4096, 4097, 65536,
		0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
		0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL,
	};

	switch (fz_below(r, 4)) {
	case 0:
		return edges[fz_below(r, ARRAY_SIZE(edges))];
	case 1:
		return 1ULL << fz_below(r, 64);
	case 2:
		return fz_below(r, 1 << 16);
	default:
		return fz_u64(r);
	}
}

/* Random bits from mask, each with probability 1/ratio. */
static uint64_t some_bits(struct fz_rng *r, uint64_t mask, unsigned int ratio)
{
	uint64_t v = 0;

	for (int i = 0; i < 64; i++)
		if ((mask >> i & 1) && fz_one_in(r, ratio))
			v |= 1ULL << i;
	return v;
}

/* A config the format allows: each field within its rules. */
static uint64_t plausible_config(struct fz_rng *r)
{
	bool htm = fz_one_in(r, 2), iret = fz_one_in(r, 2), ts = fz_one_in(r, 2);
	uint64_t cfg = NTRACE_CFG_SET(HTM, htm) | NTRACE_CFG_SET(IRET, iret) |
		       NTRACE_CFG_SET(TS, ts) |
		       NTRACE_CFG_SET(CTX, fz_one_in(r, 2)) |
		       NTRACE_CFG_SET(SRC, fz_one_in(r, 3)) |
		       NTRACE_CFG_SET(SEQJUMP, fz_one_in(r, 4)) |
		       NTRACE_CFG_SET(ALLJUMPS, fz_one_in(r, 4)) |
		       NTRACE_CFG_SET(SYNC, fz_below(r, 4)) |
		       NTRACE_CFG_SET(SYNC_PERIOD, fz_below(r, 17));

	if (htm)
		cfg |= NTRACE_CFG_SET(REPHIST, fz_one_in(r, 2));
	if (iret)
		cfg |= NTRACE_CFG_SET(IRET_MODE, fz_below(r, 4));
	if (ts)
		cfg |= NTRACE_CFG_SET(TS_PRESCALE, fz_below(r, 4));
	return cfg;
}

/* A config that breaks the format's rules, or not. */
static uint64_t ntrace_config(struct fz_rng *r)
{
	uint64_t cfg = fz_one_in(r, 2) ? plausible_config(r) :
		       some_bits(r, NTRACE_CFG_VALID_MASK, 3);

	switch (fz_below(r, 8)) {
	case 0:		/* one bit outside the format */
		return cfg | (~NTRACE_CFG_VALID_MASK & (1ULL << fz_below(r, 64)));
	case 1:
		return fz_edge_u64(r);
	default:
		return cfg;
	}
}

static void ctr_event(struct fz_rng *r, const struct fz_pmus *p,
		      struct perf_event_attr *a, bool wild)
{
	a->type = PERF_TYPE_HARDWARE;
	a->config = fz_one_in(r, 2) ? PERF_COUNT_HW_CPU_CYCLES :
				      PERF_COUNT_HW_INSTRUCTIONS;
	a->sample_period = 1000 + fz_below(r, 200000);
	if (!fz_one_in(r, 4)) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		/* a privilege level and some branch types, as perf -j gives */
		a->branch_sample_type = some_bits(r, 7, 2) |
			some_bits(r, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_ANY_CALL |
				  PERF_SAMPLE_BRANCH_ANY_RETURN | PERF_SAMPLE_BRANCH_IND_CALL |
				  PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_CALL_STACK |
				  PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES |
				  PERF_SAMPLE_BRANCH_TYPE_SAVE | PERF_SAMPLE_BRANCH_HW_INDEX, 4);
	}
	if (!wild)
		return;
	if (fz_one_in(r, 8))
		a->config = fz_below(r, PERF_COUNT_HW_MAX + 2);
	if (fz_one_in(r, 10) && p->cpu >= 0) {	/* the PMU's raw events */
		a->type = p->cpu;
		a->config = fz_edge_u64(r);
	}
	if (fz_one_in(r, 4))
		a->branch_sample_type = some_bits(r, (1ULL << PERF_SAMPLE_BRANCH_MAX_SHIFT) - 1, 4);
	if (fz_one_in(r, 12))
		a->branch_sample_type = fz_edge_u64(r);
	if (fz_one_in(r, 6))
		a->sample_period = fz_edge_u64(r);
}

/* What a tool such as perf asks for: every combination is valid. */
static void plausible_flags(struct fz_rng *r, struct perf_event_attr *a)
{
	static const uint64_t samples[] = {
		0, PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
	};

	a->sample_type |= samples[fz_below(r, ARRAY_SIZE(samples))];
	a->read_format = fz_one_in(r, 2) ? PERF_FORMAT_ID : 0;
	a->disabled = !fz_one_in(r, 4);
	a->inherit = fz_one_in(r, 3);
	a->exclude_kernel = !fz_one_in(r, 3);
	a->exclude_hv = fz_one_in(r, 2);
	a->mmap = a->comm = a->task = fz_one_in(r, 2);
	a->mmap2 = a->mmap && fz_one_in(r, 2);
	a->comm_exec = a->comm && fz_one_in(r, 2);
	a->sample_id_all = fz_one_in(r, 2);
	a->context_switch = fz_one_in(r, 3);
	a->enable_on_exec = a->disabled && fz_one_in(r, 6);
	a->watermark = fz_one_in(r, 4);
	if (a->watermark)
		a->wakeup_watermark = 4096u << fz_below(r, 4);
	if (fz_one_in(r, 3))
		a->aux_watermark = 4096u << fz_below(r, 6);
}

/* Anything the ABI can express, most of it wrong. */
static void wild_flags(struct fz_rng *r, struct perf_event_attr *a)
{
	static const uint32_t sizes[] = {
		PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER5, PERF_ATTR_SIZE_VER7,
		sizeof(struct perf_event_attr) + 8, 4096, 4097, 1,
	};
	uint64_t flags;

	if (fz_one_in(r, 10))
		a->size = sizes[fz_below(r, ARRAY_SIZE(sizes))];
	a->sample_type |= some_bits(r, PERF_SAMPLE_MAX - 1, 5);
	if (fz_one_in(r, 30))
		a->sample_type = fz_edge_u64(r);
	a->read_format = some_bits(r, 0x1f, 4);
	a->branch_sample_type |= fz_one_in(r, 20) ? fz_edge_u64(r) : 0;
	a->disabled = !fz_one_in(r, 4);
	a->inherit = fz_one_in(r, 3);
	a->pinned = fz_one_in(r, 8);
	a->exclusive = fz_one_in(r, 8);
	a->exclude_user = fz_one_in(r, 8);
	a->exclude_kernel = !fz_one_in(r, 3);
	a->exclude_hv = fz_one_in(r, 2);
	a->exclude_idle = fz_one_in(r, 8);
	a->mmap = fz_one_in(r, 3);
	a->comm = fz_one_in(r, 3);
	a->freq = fz_one_in(r, 8);
	a->inherit_stat = fz_one_in(r, 10);
	a->enable_on_exec = fz_one_in(r, 6);
	a->task = fz_one_in(r, 4);
	a->watermark = fz_one_in(r, 4);
	a->precise_ip = fz_one_in(r, 4) ? fz_below(r, 4) : 0;
	a->sample_id_all = fz_one_in(r, 2);
	a->mmap2 = fz_one_in(r, 4);
	a->comm_exec = fz_one_in(r, 4);
	a->context_switch = fz_one_in(r, 3);
	a->write_backward = fz_one_in(r, 12);
	a->namespaces = fz_one_in(r, 12);
	a->ksymbol = fz_one_in(r, 12);
	a->text_poke = fz_one_in(r, 12);
	a->build_id = fz_one_in(r, 12);
	a->inherit_thread = fz_one_in(r, 10);
	a->remove_on_exec = fz_one_in(r, 10);
	a->sigtrap = fz_one_in(r, 20);
	a->exclude_callchain_kernel = fz_one_in(r, 8);
	a->exclude_callchain_user = fz_one_in(r, 8);
	if (fz_one_in(r, 8)) {
		static const int clocks[] = {
			CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME,
			CLOCK_BOOTTIME, CLOCK_TAI, 99,
		};

		a->use_clockid = 1;
		a->clockid = clocks[fz_below(r, ARRAY_SIZE(clocks))];
	}
	if (a->watermark)
		a->wakeup_watermark = (uint32_t)fz_edge_u64(r);
	else
		a->wakeup_events = fz_below(r, 4);
	if (a->freq)
		a->sample_freq = fz_one_in(r, 4) ? fz_edge_u64(r) : 1 + fz_below(r, 10000);
	if (a->sample_type & PERF_SAMPLE_REGS_USER)
		a->sample_regs_user = fz_edge_u64(r);
	if (a->sample_type & PERF_SAMPLE_STACK_USER)
		a->sample_stack_user = (uint32_t)fz_edge_u64(r);
	if (fz_one_in(r, 3))
		a->aux_watermark = (uint32_t)fz_edge_u64(r);
	if (fz_one_in(r, 40)) {	/* a bit of __reserved_1, after sigtrap */
		memcpy(&flags, &a->read_format + 1, sizeof(flags));
		flags |= 1ULL << (40 + fz_below(r, 24));
		memcpy(&a->read_format + 1, &flags, sizeof(flags));
	}
}

void fz_attr(struct fz_rng *r, const struct fz_pmus *p, enum fz_kind kind,
	     struct perf_event_attr *a, bool wild)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	switch (kind) {
	case FZ_NTRACE:
		a->type = p->ntrace;
		a->config = wild ? ntrace_config(r) : plausible_config(r);
		if (wild && fz_one_in(r, 5))
			a->config1 = fz_edge_u64(r);
		if (wild && fz_one_in(r, 5))
			a->config2 = fz_edge_u64(r);
		if (wild && fz_one_in(r, 4))
			a->sample_period = fz_edge_u64(r);
		break;
	case FZ_CTR:
		ctr_event(r, p, a, wild);
		break;
	default:
		a->type = PERF_TYPE_SOFTWARE;
		a->config = fz_below(r, PERF_COUNT_SW_MAX);
		a->sample_period = 1 + fz_below(r, 100000);
		a->aux_output = fz_one_in(r, 2);
		if (fz_one_in(r, 2)) {	/* sample the trace of an AUX leader */
			a->sample_type |= PERF_SAMPLE_AUX;
			a->aux_sample_size = wild && fz_one_in(r, 3) ?
				(uint32_t)fz_edge_u64(r) : 4096u << fz_below(r, 6);
		}
		break;
	}
	if (wild)
		wild_flags(r, a);
	else
		plausible_flags(r, a);
}

void fz_filter(struct fz_rng *r, char *buf, size_t size)
{
	static const char *const actions[] = {
		"filter", "start", "stop", "tracestop", "FILTER", "", "filterx",
	};
	static const char *const files[] = {
		"", "@/proc/self/exe", "@/init", "@/nonexistent", "@", "@/",
		"@/proc/self/exe@x",
	};
	size_t len = 0;
	unsigned int i, n;

	buf[0] = '\0';
	if (fz_one_in(r, 8)) {		/* printable garbage, any length */
		n = fz_below(r, size);
		for (i = 0; i < n; i++)
			buf[i] = 32 + fz_below(r, 95);
		buf[n] = '\0';
		return;
	}
	n = 1 + fz_below(r, fz_one_in(r, 4) ? 40 : 4);
	for (i = 0; i < n && len + 96 < size; i++) {
		uint64_t start = fz_one_in(r, 2) ? 0x10000 + fz_below(r, 1 << 20) :
						   fz_edge_u64(r);
		uint64_t span = fz_one_in(r, 2) ? fz_below(r, 1 << 16) : fz_edge_u64(r);

		if (fz_one_in(r, 6))	/* a kernel range */
			start = 0xffffffff80000000ULL + fz_below(r, 1 << 24);
		len += snprintf(buf + len, size - len, "%s%s 0x%llx%s%llx%s",
				i ? (fz_one_in(r, 2) ? "," : " ") : "",
				actions[fz_below(r, ARRAY_SIZE(actions))],
				(unsigned long long)start,
				fz_one_in(r, 10) ? "" : "/",
				(unsigned long long)span,
				files[fz_below(r, ARRAY_SIZE(files))]);
	}
}
