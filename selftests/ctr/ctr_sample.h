/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Sampling helpers for the CTR tests: open PERF_TYPE_HARDWARE cycles as
 * "perf record -b / -j" does, run a workload and hand every sample with its
 * branch stack to a checker. Like the other selftest helpers these never
 * call ksft_* result functions; they print "# " lines and return -errno.
 */
#ifndef CTR_SAMPLE_H
#define CTR_SAMPLE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kselftest.h"

#include "ctr_workload.h"

/* Not in older UAPI headers; the bit is ABI since Linux 6.8. */
#define CTR_BRANCH_COUNTERS	(1ULL << 19)

#define CTR_MAX_ENTRIES	256

struct ctr_sample {
	uint64_t ip;
	uint32_t pid, tid;	/* with PERF_SAMPLE_TID */
	uint64_t nr;
	uint64_t hw_idx;	/* with PERF_SAMPLE_BRANCH_HW_INDEX */
	struct perf_branch_entry e[CTR_MAX_ENTRIES];
};

/* Return false to stop collecting and fail. */
typedef bool (*ctr_check_fn)(const struct ctr_sample *s, void *ctx);

struct ctr_ring {
	int fd;
	bool branches, tid, hw_index;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	size_t size;
};

/* cycles on the calling thread, branch stack if @bst is not 0, disabled */
void ctr_cycles_attr(struct perf_event_attr *attr, uint64_t bst,
		     uint64_t period);
int ctr_ring_open(struct ctr_ring *r, struct perf_event_attr *attr);
/* The same, counting the calling thread only while it runs on @cpu. */
int ctr_ring_open_cpu(struct ctr_ring *r, struct perf_event_attr *attr,
		      int cpu);
void ctr_ring_close(struct ctr_ring *r);

/*
 * Enable the event, run @w in rounds of @iters iterations until @want
 * samples arrived (at most @max_rounds rounds), disable it. Calls @check
 * on every sample. Returns the number of samples or -1 if @check failed.
 */
int ctr_collect(struct ctr_ring *r, const struct ctr_workload *w,
		uint64_t iters, int want, int max_rounds,
		ctr_check_fn check, void *ctx);

/*
 * Hand every sample now in the ring to @check and consume it. Returns the
 * number of samples or -1 if @check failed.
 */
int ctr_drain(struct ctr_ring *r, ctr_check_fn check, void *ctx);

/* Print the sample and its records first..last. */
void ctr_dump(const struct ctr_sample *s, unsigned int first,
	      unsigned int last);

static inline bool ctr_is_kernel(uint64_t pc)
{
	return pc >> 63;
}

/*
 * Does record @newer follow record @older on one path? Its source must be
 * a few straight-line instructions past @older's target. One gap is
 * legitimate: a counter overflow interrupt freezes CTR on entry (from user
 * or kernel code), so that entry goes unrecorded and the next record may
 * already be a kernel branch taken after the overflow handler unfroze CTR.
 * So a record starting in the kernel may follow anything; user code must
 * chain.
 */
bool ctr_follows(const struct perf_branch_entry *older,
		 const struct perf_branch_entry *newer, uint64_t max_block);

/* Does the boot hart list Ssctr in the devicetree? */
bool ctr_have_ssctr(void);
/* Load riscv_ctr from the module directory unless loaded; 0 or -errno. */
int ctr_load_module(void);
/* /proc/sys/kernel/perf_event_max_sample_rate (lowered by slow samples) */
uint64_t ctr_max_sample_rate(void);

/*
 * Start of a CTR test: skip it when the hart has no Ssctr, fail it when
 * riscv_ctr.ko does not load. Inline, because kselftest.h keeps its
 * counters in the file that calls it.
 */
static inline void ctr_require(void)
{
	int ret;

	if (!ctr_have_ssctr())
		ksft_exit_skip("no Ssctr in the devicetree (QEMU -cpu ...,ssctr=true)\n");
	ret = ctr_load_module();
	if (ret)
		ksft_exit_fail_msg("Ssctr present but riscv_ctr does not load: %s\n",
				   strerror(-ret));
}

#endif
