// SPDX-License-Identifier: GPL-2.0-only
/*
 * CTR branch stacks through perf_event_open(), as "perf record -b -e cycles"
 * and "-j any_call,u" ask for them: PERF_TYPE_HARDWARE cycles with
 * PERF_SAMPLE_BRANCH_STACK, served by the SBI PMU "cpu" PMU that riscv_ctr.ko
 * extends. The workload has a known shape (a loop calling mid(), which calls
 * leaf() twice), so the recorded branches can be checked against it:
 *  - with every branch type recorded, consecutive records form one path
 *    (each record's source follows the previous record's target by a few
 *    straight-line instructions), and the newest target precedes the
 *    sampled instruction (freeze on counter overflow kept the history);
 *  - calls into leaf() are recorded as direct calls from inside mid();
 *  - filters record only their types; unsupported ones fail at open time.
 * Skips when the hart has no Ssctr.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest.h"
#include "kmod.h"

#define DATA_PAGES	256
#define WANT_SAMPLES	40
#define MAX_ROUNDS	400
/* Straight-line bytes allowed between two records: user code, kernel. */
#define MAX_BLOCK	256
#define MAX_BLOCK_KERNEL	4096

/* Not in older UAPI headers; the bit is ABI since Linux 6.8. */
#define BRANCH_COUNTERS	(1ULL << 19)

#define BR_TYPE(e)	((unsigned int)(e)->type)

/* Function ranges of the workload, from the linker symbols below. */
extern char ctr_leaf_start[], ctr_leaf_end[], ctr_mid_start[], ctr_mid_end[];

/*
 * Workload in assembly, so the instructions and thus the branch types are
 * fixed whatever the compiler does: jal ra = direct call, ret = return,
 * bnez = taken conditional branch.
 */
asm(".text\n"
    ".balign 4\n"
    ".globl ctr_leaf_start\n"
    "ctr_leaf_start:\n"
    "	addi a0, a0, 3\n"
    "	andi t1, a0, 1\n"
    "	beqz t1, 1f\n"
    "	addi a0, a0, 1\n"
    "1:	ret\n"
    ".globl ctr_leaf_end\n"
    "ctr_leaf_end:\n"
    ".balign 4\n"
    ".globl ctr_mid_start\n"
    "ctr_mid_start:\n"
    "	addi sp, sp, -16\n"
    "	sd ra, 8(sp)\n"
    "	jal ra, ctr_leaf_start\n"
    "	jal ra, ctr_leaf_start\n"
    "	ld ra, 8(sp)\n"
    "	addi sp, sp, 16\n"
    "	ret\n"
    ".globl ctr_mid_end\n"
    "ctr_mid_end:\n");

static uint64_t workload(uint64_t n)
{
	uint64_t acc = 0;

	while (n--) {
		register uint64_t a0 asm("a0") = n;

		asm volatile("jal ra, ctr_mid_start"
			     : "+r" (a0) : : "ra", "t1", "memory");
		acc += a0;
	}
	return acc;
}

static bool in(uint64_t pc, const char *start, const char *end)
{
	return pc >= (uintptr_t)start && pc < (uintptr_t)end;
}

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	size_t size;
};

struct sample {
	uint64_t ip;
	uint64_t nr;
	struct perf_branch_entry e[256];
};

static long perf_open(struct perf_event_attr *attr)
{
	return syscall(__NR_perf_event_open, attr, 0, -1, -1, 0);
}

static void cycles_attr(struct perf_event_attr *attr, uint64_t bst)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_HARDWARE;
	attr->config = PERF_COUNT_HW_CPU_CYCLES;
	attr->sample_period = 100003;
	attr->sample_type = PERF_SAMPLE_IP;
	if (bst) {
		attr->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		attr->branch_sample_type = bst;
	}
	attr->disabled = 1;
	attr->exclude_hv = 1;
	attr->exclude_kernel = !(bst & PERF_SAMPLE_BRANCH_KERNEL);
}

static int ring_open(struct ring *r, struct perf_event_attr *attr)
{
	long page = sysconf(_SC_PAGESIZE);
	void *m;

	r->fd = perf_open(attr);
	if (r->fd < 0)
		return -errno;
	r->size = DATA_PAGES * page;
	m = mmap(NULL, r->size + page, PROT_READ | PROT_WRITE, MAP_SHARED,
		 r->fd, 0);
	if (m == MAP_FAILED) {
		close(r->fd);
		return -errno;
	}
	r->meta = m;
	r->data = (uint8_t *)m + page;
	return 0;
}

static void ring_close(struct ring *r)
{
	munmap(r->meta, r->size + sysconf(_SC_PAGESIZE));
	close(r->fd);
}

static void ring_copy(struct ring *r, uint64_t off, void *dst, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		((uint8_t *)dst)[i] = r->data[(off + i) % r->size];
}

/*
 * Run the workload until @want samples arrived; call @check on each.
 * Returns the number of samples seen, or -1 if @check failed.
 */
static int collect(struct ring *r, bool branches, int want,
		   bool (*check)(const struct sample *s, void *ctx), void *ctx)
{
	static struct sample s;
	int got = 0, round;

	ioctl(r->fd, PERF_EVENT_IOC_ENABLE, 0);
	for (round = 0; round < MAX_ROUNDS && got < want; round++) {
		uint64_t head, tail;

		workload(20000);
		head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
		tail = r->meta->data_tail;
		while (tail < head) {
			struct perf_event_header h;
			uint64_t off = tail + sizeof(h);

			ring_copy(r, tail, &h, sizeof(h));
			if (h.type == PERF_RECORD_SAMPLE) {
				ring_copy(r, off, &s.ip, 8);
				off += 8;
				s.nr = 0;
				if (branches) {
					ring_copy(r, off, &s.nr, 8);
					off += 8;
					if (s.nr > 256) {
						ksft_print_msg("sample with %llu branches\n",
							       (unsigned long long)s.nr);
						return -1;
					}
					ring_copy(r, off, s.e, s.nr * sizeof(s.e[0]));
				}
				got++;
				if (check && !check(&s, ctx))
					return -1;
			}
			tail += h.size;
		}
		__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	}
	ioctl(r->fd, PERF_EVENT_IOC_DISABLE, 0);
	return got;
}

/* Print the sample and its records [first, last]. */
static void dump_range(const struct sample *s, unsigned int first,
		       unsigned int last)
{
	unsigned int i;

	ksft_print_msg("ip %#llx, %llu branches\n", (unsigned long long)s->ip,
		       (unsigned long long)s->nr);
	for (i = first; i < s->nr && i <= last; i++)
		ksft_print_msg("  [%u] %#llx -> %#llx type %llu\n", i,
			       (unsigned long long)s->e[i].from,
			       (unsigned long long)s->e[i].to,
			       (unsigned long long)BR_TYPE(&s->e[i]));
}

static void dump(const struct sample *s, unsigned int max)
{
	if (max)
		dump_range(s, 0, max - 1);
}

struct path_stats {
	uint64_t max_block;	/* straight-line bytes allowed between records */
	uint64_t samples_in_workload, entries, leaf_calls, max_nr;
};

static bool is_kernel(uint64_t pc)
{
	return pc >> 63;
}

/*
 * Does record @newer follow record @older on one path? Its source must be
 * a few straight-line instructions past @older's target. One gap is
 * legitimate: counter overflow interrupts freeze CTR on entry, so an entry
 * into the kernel goes unrecorded and the next record may already be a
 * kernel branch taken after the overflow handler unfroze CTR.
 */
static bool follows(const struct perf_branch_entry *older,
		    const struct perf_branch_entry *newer, uint64_t max_block)
{
	if (!is_kernel(older->to) && is_kernel(newer->from))
		return true;
	return newer->from >= older->to && newer->from - older->to <= max_block;
}

/* Every branch recorded: the records must chain into one path. */
static bool check_path(const struct sample *s, void *ctx)
{
	struct path_stats *st = ctx;
	uint64_t i;

	if (!in(s->ip, ctr_leaf_start, ctr_mid_end) &&
	    !in(s->ip, (char *)workload, (char *)workload + 128))
		return true;	/* sampled elsewhere (libc, exit path) */
	st->samples_in_workload++;
	st->entries += s->nr;
	if (s->nr > st->max_nr)
		st->max_nr = s->nr;
	if (!s->nr) {
		ksft_print_msg("sample in the workload without branches\n");
		return false;
	}
	/* the newest record's target is where the sampled block started */
	if (s->ip < s->e[0].to || s->ip - s->e[0].to > st->max_block) {
		ksft_print_msg("newest branch does not lead to the sample\n");
		dump(s, 4);
		return false;
	}
	for (i = 0; i < s->nr; i++) {
		const struct perf_branch_entry *e = &s->e[i];

		/* an interrupt may also return to leaf's first instruction */
		if (e->to == (uintptr_t)ctr_leaf_start &&
		    BR_TYPE(e) != PERF_BR_ERET) {
			st->leaf_calls++;
			if (!in(e->from, ctr_mid_start, ctr_mid_end) ||
			    BR_TYPE(e) != PERF_BR_CALL) {
				ksft_print_msg("bad call into leaf at [%llu]\n",
					       (unsigned long long)i);
				dump(s, i + 2);
				return false;
			}
		}
		if (i + 1 < s->nr && !follows(&s->e[i + 1], e, st->max_block)) {
			ksft_print_msg("records %llu and %llu are not one path\n",
				       (unsigned long long)i,
				       (unsigned long long)i + 1);
			dump_range(s, i ? i - 1 : 0, i + 2);
			return false;
		}
	}
	return true;
}

/* Only calls recorded. */
static bool check_calls(const struct sample *s, void *ctx)
{
	uint64_t *leaf_calls = ctx, i;

	for (i = 0; i < s->nr; i++) {
		unsigned int t = BR_TYPE(&s->e[i]);

		if (t != PERF_BR_CALL && t != PERF_BR_IND_CALL &&
		    t != PERF_BR_SYSCALL && t != PERF_BR_IRQ) {
			ksft_print_msg("type %u recorded with any_call\n", t);
			dump(s, i + 1);
			return false;
		}
		if (s->e[i].to == (uintptr_t)ctr_leaf_start)
			(*leaf_calls)++;
	}
	return true;
}

/* Only returns recorded. */
static bool check_returns(const struct sample *s, void *ctx)
{
	uint64_t *leaf_rets = ctx, i;

	for (i = 0; i < s->nr; i++) {
		unsigned int t = BR_TYPE(&s->e[i]);

		if (t != PERF_BR_RET && t != PERF_BR_ERET) {
			ksft_print_msg("type %u recorded with any_ret\n", t);
			dump(s, i + 1);
			return false;
		}
		if (in(s->e[i].from, ctr_leaf_start, ctr_leaf_end))
			(*leaf_rets)++;
	}
	return true;
}

static bool have_ctr(void)
{
	char buf[4096];
	FILE *f = fopen("/proc/device-tree/cpus/cpu@0/riscv,isa-extensions", "r");
	size_t n, i;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	/* a list of NUL-terminated strings */
	for (i = 0; i < n; i += strlen(buf + i) + 1) {
		buf[n] = 0;
		if (!strcmp(buf + i, "ssctr"))
			return true;
	}
	return false;
}

static uint64_t max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	unsigned long long rate = 100;

	if (f) {
		if (fscanf(f, "%llu", &rate) != 1)
			rate = 100;
		fclose(f);
	}
	return rate;
}

static void test_any(uint64_t plm, uint64_t freq, const char *name)
{
	struct perf_event_attr attr;
	struct path_stats st = {
		.max_block = plm & PERF_SAMPLE_BRANCH_KERNEL ?
			     MAX_BLOCK_KERNEL : MAX_BLOCK,
	};
	struct ring r;
	int ret, got;

	cycles_attr(&attr, PERF_SAMPLE_BRANCH_ANY | plm |
		    PERF_SAMPLE_BRANCH_TYPE_SAVE);
	if (freq) {
		/*
		 * As perf record does: the kernel adapts the period each tick.
		 * Slow sampling lowers perf_event_max_sample_rate; stay below.
		 */
		attr.freq = 1;
		attr.sample_freq = freq < max_sample_rate() ? freq :
				   max_sample_rate();
	}
	ret = ring_open(&r, &attr);
	if (ret) {
		ksft_test_result_fail("%s: perf_event_open: %s\n", name,
				      strerror(-ret));
		return;
	}
	got = collect(&r, true, WANT_SAMPLES, check_path, &st);
	ring_close(&r);
	ksft_print_msg("%s: %d samples, %llu in the workload, %llu branches (max %llu per sample), %llu calls into leaf\n",
		       name, got, (unsigned long long)st.samples_in_workload,
		       (unsigned long long)st.entries,
		       (unsigned long long)st.max_nr,
		       (unsigned long long)st.leaf_calls);
	ksft_test_result(got > 0 && st.samples_in_workload >= 2 &&
			 st.leaf_calls > 0, "%s\n", name);
}

static void test_filter(uint64_t bst, const char *name,
			bool (*check)(const struct sample *, void *))
{
	struct perf_event_attr attr;
	uint64_t hits = 0;
	struct ring r;
	int ret, got;

	cycles_attr(&attr, bst | PERF_SAMPLE_BRANCH_USER |
		    PERF_SAMPLE_BRANCH_TYPE_SAVE);
	ret = ring_open(&r, &attr);
	if (ret) {
		ksft_test_result_fail("%s: perf_event_open: %s\n", name,
				      strerror(-ret));
		return;
	}
	got = collect(&r, true, WANT_SAMPLES, check, &hits);
	ring_close(&r);
	ksft_print_msg("%s: %d samples, %llu records of the leaf\n", name, got,
		       (unsigned long long)hits);
	ksft_test_result(got > 0 && hits > 0, "%s\n", name);
}

static void test_refused(uint64_t bst, const char *name)
{
	struct perf_event_attr attr;
	long fd;

	cycles_attr(&attr, bst | PERF_SAMPLE_BRANCH_USER);
	fd = perf_open(&attr);
	if (fd >= 0)
		close(fd);
	ksft_test_result(fd < 0 && errno == EOPNOTSUPP,
			 "%s refused with EOPNOTSUPP (got %s)\n", name,
			 fd < 0 ? strerror(errno) : "success");
}

/* The SBI PMU keeps serving events without branch stacks. */
static void test_plain_cycles(void)
{
	struct perf_event_attr attr;
	struct ring r;
	int ret, got;

	cycles_attr(&attr, 0);
	ret = ring_open(&r, &attr);
	if (ret) {
		ksft_test_result_fail("plain cycles: %s\n", strerror(-ret));
		return;
	}
	got = collect(&r, false, WANT_SAMPLES, NULL, NULL);
	ring_close(&r);
	ksft_test_result(got >= WANT_SAMPLES, "plain cycles sampling (%d samples)\n",
			 got);
}

int main(void)
{
	ksft_print_header();
	if (!have_ctr())
		ksft_exit_skip("no Ssctr in the devicetree (QEMU -cpu ...,ssctr=true)\n");
	if (!kmod_is_loaded("riscv_ctr")) {
		int ret = kmod_load("riscv_ctr", NULL);

		if (ret)
			ksft_exit_fail_msg("Ssctr present but riscv_ctr does not load: %s\n",
					   strerror(-ret));
	}
	ksft_set_plan(9);

	test_any(PERF_SAMPLE_BRANCH_USER, 0, "any,u");
	test_any(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL, 0,
		 "any,u,k (freeze on overflow)");
	/* frequency mode throttles: overflows the handler never sees */
	test_any(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL, 1000,
		 "any,u,k at 1 kHz");
	test_filter(PERF_SAMPLE_BRANCH_ANY_CALL, "any_call,u", check_calls);
	test_filter(PERF_SAMPLE_BRANCH_ANY_RETURN, "any_ret,u", check_returns);
	test_refused(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_IN_TX, "in_tx");
	test_refused(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_ABORT_TX,
		     "abort_tx");
	test_refused(PERF_SAMPLE_BRANCH_ANY | BRANCH_COUNTERS,
		     "counters");
	test_plain_cycles();
	ksft_finished();
}
