/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel-interface fuzzer of the harden suite: a seeded generator and
 * the pieces that choose what to throw at the kernel. One seed gives one
 * sequence of operations, so a failure is reproduced by its seed and
 * operation count (ntguest.fuzz=SEED,OPS).
 */
#ifndef NTRACE_FUZZ_H
#define NTRACE_FUZZ_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* splitmix64: small, and every seed (0 too) gives a good sequence */
struct fz_rng {
	uint64_t s;
};

static inline uint64_t fz_u64(struct fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, n), n > 0 */
static inline unsigned int fz_below(struct fz_rng *r, unsigned int n)
{
	return (unsigned int)(fz_u64(r) % n);
}

/* true with probability 1/n */
static inline bool fz_one_in(struct fz_rng *r, unsigned int n)
{
	return fz_below(r, n) == 0;
}

/* An edge value more often than chance would give one. */
uint64_t fz_edge_u64(struct fz_rng *r);

/* The PMUs under test, from sysfs; type -1 where absent. */
struct fz_pmus {
	int ntrace;		/* the N-Trace AUX PMU */
	int cpu;		/* the SBI PMU's PERF_TYPE_HARDWARE PMU */
	bool ctr;		/* riscv_ctr is loaded: branch stacks */
	int ncpus;		/* configured CPUs */
};

enum fz_kind {
	FZ_NTRACE,		/* an N-Trace AUX event */
	FZ_CTR,			/* a counter, often with a branch stack */
	FZ_SIDE,		/* a software event (group member, aux_output) */
	FZ_NR_KINDS,
};

/*
 * Fill attr with a random event of kind (fuzz_attr.c): wild, anything the
 * ABI can express; else what a tool would ask for, to reach deep paths.
 */
void fz_attr(struct fz_rng *r, const struct fz_pmus *p, enum fz_kind kind,
	     struct perf_event_attr *attr, bool wild);
/*
 * A filter string for PERF_EVENT_IOC_SET_FILTER: well-formed address
 * filters, edge cases and garbage, into buf (NUL-terminated).
 */
void fz_filter(struct fz_rng *r, char *buf, size_t size);

/* The system around the events (fuzz_sys.c); each returns 0 or -errno. */

/* One trace component device and the platform driver it binds to. */
struct fz_component {
	char drv[32];		/* ntrace-encoder, ntrace-ramsink, ntrace-funnel */
	char dev[64];
	bool unbound;		/* by the fuzzer */
};

int fz_pmus_probe(struct fz_pmus *p);
/* Every device bound to an ntrace-* driver now; returns the count. */
int fz_components(struct fz_component *c, int max);
int fz_component_bind(struct fz_component *c, bool bind);
/* Write /sys/module/ntrace/parameters/<name>. */
int fz_param_write(const char *name, const char *value);
/* Read it into buf (newline cut). */
int fz_param_read(const char *name, char *buf, size_t size);
/* Unload the module (retrying while its last references go away), load it. */
int fz_module_reload(const char *name, int *unload_err);

#endif
