// SPDX-License-Identifier: GPL-2.0-only
/*
 * CTR branch stacks through perf_event_open(), as "perf record -b -e cycles"
 * and "-j any_call,u" ask for them: PERF_TYPE_HARDWARE cycles with
 * PERF_SAMPLE_BRANCH_STACK, served by the SBI PMU "cpu" PMU that riscv_ctr.ko
 * extends. The workload has a known shape (ctr_workload.h), so the records
 * can be checked against it:
 *  - with every branch type recorded, consecutive records form one path
 *    (each record's source follows the previous record's target by a few
 *    straight-line instructions), and the newest target precedes the
 *    sampled instruction (freeze on counter overflow kept the history);
 *  - calls into the leaf are recorded as direct calls from its caller;
 *  - filters record only their types; unsupported ones fail at open time;
 *  - events without a branch stack still sample.
 * Skips when the hart has no Ssctr.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "ctr_sample.h"
#include "guest.h"

#define PERIOD		100003
#define ITERS		20000
#define WANT_SAMPLES	40
#define WANT_IN_WORKLOAD	2
#define MAX_ROUNDS	400
/* Straight-line bytes allowed between two records: user code, kernel. */
#define MAX_BLOCK		256
#define MAX_BLOCK_KERNEL	4096

/*
 * Multi-threaded TCG with several harts loses counter overflow interrupts
 * (scripts/guest.sh); too few samples are then QEMU's fault, not ours.
 */
static bool lost_overflows(void)
{
	return guest_has_quirk("mttcg-lost-overflow");
}

static const struct ctr_workload *w = &ctr_work;

struct path_stats {
	uint64_t max_block;
	uint64_t samples_in_workload, entries, leaf_calls, max_nr, empty;
};

/*
 * The driver clears CTR whenever the event is scheduled in (context switch,
 * or another event's turn on the hart), and the counter resumes with what
 * was left of its period: an overflow can come before the task has taken a
 * branch. Such an empty sample is legitimate but must stay rare.
 */
static bool few_empty(const struct path_stats *st)
{
	return st->empty * 4 <= st->samples_in_workload;
}

/* Every branch recorded: the records must chain into one path. */
static bool check_path(const struct ctr_sample *s, void *ctx)
{
	struct path_stats *st = ctx;
	uint64_t i;

	if (!ctr_in(s->ip, w->start, w->end))
		return true;	/* sampled elsewhere (libc, exit path) */
	st->samples_in_workload++;
	st->entries += s->nr;
	if (s->nr > st->max_nr)
		st->max_nr = s->nr;
	if (!s->nr) {
		st->empty++;
		return true;
	}
	/* the newest record's target is where the sampled block started */
	if (s->ip < s->e[0].to || s->ip - s->e[0].to > st->max_block) {
		ksft_print_msg("newest branch does not lead to the sample\n");
		ctr_dump(s, 0, 3);
		return false;
	}
	for (i = 0; i < s->nr; i++) {
		const struct perf_branch_entry *e = &s->e[i];

		/* an interrupt may also return to the leaf's first instruction */
		if (e->to == w->leaf && e->type != PERF_BR_ERET) {
			st->leaf_calls++;
			if (!ctr_in(e->from, w->mid, w->mid_end) ||
			    e->type != PERF_BR_CALL) {
				ksft_print_msg("bad call into the leaf at [%llu]\n",
					       (unsigned long long)i);
				ctr_dump(s, 0, i + 1);
				return false;
			}
		}
		if (i + 1 < s->nr && !ctr_follows(&s->e[i + 1], e, st->max_block)) {
			ksft_print_msg("records %llu and %llu are not one path\n",
				       (unsigned long long)i,
				       (unsigned long long)i + 1);
			ctr_dump(s, i ? i - 1 : 0, i + 2);
			return false;
		}
	}
	return true;
}

/* Only calls recorded. */
static bool check_calls(const struct ctr_sample *s, void *ctx)
{
	uint64_t *leaf_calls = ctx, i;

	for (i = 0; i < s->nr; i++) {
		unsigned int t = s->e[i].type;

		if (t != PERF_BR_CALL && t != PERF_BR_IND_CALL &&
		    t != PERF_BR_SYSCALL && t != PERF_BR_IRQ) {
			ksft_print_msg("type %u recorded with any_call\n", t);
			ctr_dump(s, 0, i);
			return false;
		}
		if (s->e[i].to == w->leaf)
			(*leaf_calls)++;
	}
	return true;
}

/* Only returns recorded. */
static bool check_returns(const struct ctr_sample *s, void *ctx)
{
	uint64_t *leaf_rets = ctx, i;

	for (i = 0; i < s->nr; i++) {
		unsigned int t = s->e[i].type;

		if (t != PERF_BR_RET && t != PERF_BR_ERET) {
			ksft_print_msg("type %u recorded with any_ret\n", t);
			ctr_dump(s, 0, i);
			return false;
		}
		if (ctr_in(s->e[i].from, w->leaf, w->leaf_end))
			(*leaf_rets)++;
	}
	return true;
}

static void test_any(uint64_t plm, uint64_t freq, const char *name)
{
	struct perf_event_attr attr;
	struct path_stats st = {
		.max_block = plm & PERF_SAMPLE_BRANCH_KERNEL ?
			     MAX_BLOCK_KERNEL : MAX_BLOCK,
	};
	struct ctr_ring r;
	int ret, got, n, tries;

	ctr_cycles_attr(&attr, PERF_SAMPLE_BRANCH_ANY | plm |
			PERF_SAMPLE_BRANCH_TYPE_SAVE, PERIOD);
	if (freq) {
		/*
		 * As perf record does: the kernel adapts the period each tick.
		 * Slow sampling lowers perf_event_max_sample_rate; stay below.
		 */
		attr.freq = 1;
		attr.sample_freq = freq < ctr_max_sample_rate() ? freq :
				   ctr_max_sample_rate();
	}
	ret = ctr_ring_open(&r, &attr);
	if (ret) {
		ksft_test_result_fail("%s: perf_event_open: %s\n", name,
				      strerror(-ret));
		return;
	}
	/*
	 * Samples may land in the kernel, most of them on a slow (debug)
	 * kernel: collect again until some are in the workload.
	 */
	for (got = 0, tries = 0; got >= 0 && tries < 5 &&
	     st.samples_in_workload < WANT_IN_WORKLOAD; tries++) {
		n = ctr_collect(&r, w, ITERS, WANT_SAMPLES, MAX_ROUNDS,
				check_path, &st);
		got = n < 0 ? n : got + n;
	}
	ctr_ring_close(&r);
	ksft_print_msg("%s: %d samples, %llu in the workload (%llu empty), %llu branches (max %llu per sample), %llu calls into the leaf\n",
		       name, got, (unsigned long long)st.samples_in_workload,
		       (unsigned long long)st.empty,
		       (unsigned long long)st.entries,
		       (unsigned long long)st.max_nr,
		       (unsigned long long)st.leaf_calls);
	if (got >= 0 && st.samples_in_workload < WANT_IN_WORKLOAD &&
	    lost_overflows())
		ksft_test_result_skip("%s: too few samples (quirk mttcg-lost-overflow)\n",
				      name);
	else
		ksft_test_result(got > 0 &&
				 st.samples_in_workload >= WANT_IN_WORKLOAD &&
				 few_empty(&st) && st.leaf_calls > 0, "%s\n", name);
}

static void test_filter(uint64_t bst, const char *name, ctr_check_fn check)
{
	struct perf_event_attr attr;
	uint64_t hits = 0;
	struct ctr_ring r;
	int ret, got;

	ctr_cycles_attr(&attr, bst | PERF_SAMPLE_BRANCH_USER |
			PERF_SAMPLE_BRANCH_TYPE_SAVE, PERIOD);
	ret = ctr_ring_open(&r, &attr);
	if (ret) {
		ksft_test_result_fail("%s: perf_event_open: %s\n", name,
				      strerror(-ret));
		return;
	}
	got = ctr_collect(&r, w, ITERS, WANT_SAMPLES, MAX_ROUNDS, check, &hits);
	ctr_ring_close(&r);
	ksft_print_msg("%s: %d samples, %llu records of the leaf\n", name, got,
		       (unsigned long long)hits);
	if (got >= 0 && !hits && lost_overflows())
		ksft_test_result_skip("%s: too few samples (quirk mttcg-lost-overflow)\n",
				      name);
	else
		ksft_test_result(got > 0 && hits > 0, "%s\n", name);
}

static void test_refused(uint64_t bst, const char *name)
{
	struct perf_event_attr attr;
	struct ctr_ring r;
	int ret;

	ctr_cycles_attr(&attr, bst | PERF_SAMPLE_BRANCH_USER, PERIOD);
	ret = ctr_ring_open(&r, &attr);
	if (!ret)
		ctr_ring_close(&r);
	ksft_test_result(ret == -EOPNOTSUPP,
			 "%s refused with EOPNOTSUPP (got %s)\n", name,
			 ret ? strerror(-ret) : "success");
}

struct stack_stats {
	uint64_t in_leaf, complete, bad_hw_idx;
};

/* Start of the workload function that holds @pc, or 0. */
static uintptr_t func_of(uint64_t pc)
{
	if (ctr_in(pc, w->leaf, w->leaf_end))
		return w->leaf;
	if (ctr_in(pc, w->mid, w->mid_end))
		return w->mid;
	if (ctr_in(pc, w->start, w->leaf))
		return w->start;
	return 0;
}

/*
 * RAS emulation: the records are the open calls, innermost first. Each
 * record calls the function the previous (inner) one was called from, and
 * a sample in the leaf sits under leaf <- mid <- main <- the C caller.
 */
static bool check_call_stack(const struct ctr_sample *s, void *ctx)
{
	struct stack_stats *st = ctx;
	uintptr_t f = func_of(s->ip);
	uint64_t i;

	if (s->hw_idx != -1ULL)
		st->bad_hw_idx++;
	for (i = 0; i < s->nr; i++) {
		unsigned int t = s->e[i].type;

		if (t != PERF_BR_CALL && t != PERF_BR_IND_CALL) {
			ksft_print_msg("type %u in a call stack\n", t);
			ctr_dump(s, 0, i);
			return false;
		}
	}
	if (f != w->leaf)
		return true;
	st->in_leaf++;
	for (i = 0; f && i < s->nr; i++) {
		if (s->e[i].to != f) {
			ksft_print_msg("record %llu calls %#llx, not %#lx\n",
				       (unsigned long long)i,
				       (unsigned long long)s->e[i].to,
				       (unsigned long)f);
			ctr_dump(s, 0, i + 1);
			return false;
		}
		f = func_of(s->e[i].from);
	}
	if (s->nr >= 3 && s->e[2].to == w->start)
		st->complete++;
	return true;
}

static void test_call_stack(bool compete, const char *name)
{
	struct perf_event_attr attr;
	struct stack_stats st = { 0 };
	struct ctr_ring r;
	int ret, got, status;
	pid_t pid = 0;

	/* as perf record --call-graph lbr asks */
	ctr_cycles_attr(&attr, PERF_SAMPLE_BRANCH_CALL_STACK |
			PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_NO_CYCLES |
			PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_HW_INDEX |
			PERF_SAMPLE_BRANCH_TYPE_SAVE, PERIOD);
	ret = ctr_ring_open(&r, &attr);
	if (ret) {
		ksft_test_result_fail("%s: perf_event_open: %s\n", name,
				      strerror(-ret));
		return;
	}
	if (compete) {
		/* a busy task on the same hart: the stack is switched out */
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		sched_setaffinity(0, sizeof(set), &set);
		pid = fork();
		if (!pid) {
			for (;;)
				ctr_other_work.run(ITERS);
		}
	}
	got = ctr_collect(&r, w, ITERS, WANT_SAMPLES, MAX_ROUNDS,
			  check_call_stack, &st);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	ctr_ring_close(&r);
	ksft_print_msg("%s: %d samples, %llu in the leaf, %llu with leaf <- mid <- main <- caller\n",
		       name, got, (unsigned long long)st.in_leaf,
		       (unsigned long long)st.complete);
	if (got >= 0 && !st.in_leaf && lost_overflows())
		ksft_test_result_skip("%s: too few samples (quirk mttcg-lost-overflow)\n",
				      name);
	else
		ksft_test_result(got > 0 && st.in_leaf > 0 && !st.bad_hw_idx &&
				 st.complete == st.in_leaf, "%s\n", name);
}

/*
 * Two events of one task with different filters: one hart's CTR holds one
 * configuration, so the perf core has to take turns (the driver refuses
 * the second in add); neither may see the other's branch types.
 */
static void test_two_filters(void)
{
	struct perf_event_attr a_any, a_call;
	struct path_stats st = { .max_block = MAX_BLOCK };
	struct ctr_ring any, call;
	uint64_t calls = 0;
	int ret, got_any = 0, got_call = 0, n, round;

	ctr_cycles_attr(&a_any, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
			PERF_SAMPLE_BRANCH_TYPE_SAVE, PERIOD);
	ctr_cycles_attr(&a_call, PERF_SAMPLE_BRANCH_ANY_CALL |
			PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_TYPE_SAVE,
			PERIOD);
	ret = ctr_ring_open(&any, &a_any);
	if (ret) {
		ksft_test_result_fail("two filters: perf_event_open: %s\n",
				      strerror(-ret));
		return;
	}
	ret = ctr_ring_open(&call, &a_call);
	if (ret) {
		ctr_ring_close(&any);
		ksft_test_result_fail("two filters: second perf_event_open: %s\n",
				      strerror(-ret));
		return;
	}
	ioctl(any.fd, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(call.fd, PERF_EVENT_IOC_ENABLE, 0);
	ret = 0;
	for (round = 0; !ret && round < MAX_ROUNDS &&
	     (got_any < WANT_SAMPLES || got_call < WANT_SAMPLES); round++) {
		w->run(ITERS);
		n = ctr_drain(&any, check_path, &st);
		ret = n < 0;
		got_any += n > 0 ? n : 0;
		n = ctr_drain(&call, check_calls, &calls);
		ret |= n < 0;
		got_call += n > 0 ? n : 0;
	}
	ctr_ring_close(&call);
	ctr_ring_close(&any);
	ksft_print_msg("two filters: %d any samples (%llu calls into the leaf, %llu empty), %d any_call samples (%llu leaf calls)\n",
		       got_any, (unsigned long long)st.leaf_calls,
		       (unsigned long long)st.empty, got_call,
		       (unsigned long long)calls);
	if (!ret && (!got_any || !got_call) && lost_overflows())
		ksft_test_result_skip("two filters: too few samples (quirk mttcg-lost-overflow)\n");
	else
		ksft_test_result(!ret && got_any && got_call && st.leaf_calls &&
				 few_empty(&st) &&
				 calls, "two filters on one task take turns\n");
}

/* The SBI PMU keeps serving events without branch stacks. */
static void test_plain_cycles(void)
{
	struct perf_event_attr attr;
	struct ctr_ring r;
	int ret, got;

	ctr_cycles_attr(&attr, 0, PERIOD);
	ret = ctr_ring_open(&r, &attr);
	if (ret) {
		ksft_test_result_fail("plain cycles: %s\n", strerror(-ret));
		return;
	}
	got = ctr_collect(&r, w, ITERS, WANT_SAMPLES, MAX_ROUNDS, NULL, NULL);
	ctr_ring_close(&r);
	if (got < WANT_SAMPLES && lost_overflows())
		ksft_test_result_skip("plain cycles sampling: %d samples (quirk mttcg-lost-overflow)\n",
				      got);
	else
		ksft_test_result(got >= WANT_SAMPLES,
				 "plain cycles sampling (%d samples)\n", got);
}

int main(void)
{
	ksft_print_header();
	ctr_require();
	ksft_set_plan(12);

	test_any(PERF_SAMPLE_BRANCH_USER, 0, "any,u");
	test_any(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL, 0,
		 "any,u,k (freeze on overflow)");
	/* frequency mode: periods change and events throttle */
	test_any(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL, 1000,
		 "any,u,k at 1 kHz");
	test_filter(PERF_SAMPLE_BRANCH_ANY_CALL, "any_call,u", check_calls);
	test_filter(PERF_SAMPLE_BRANCH_ANY_RETURN, "any_ret,u", check_returns);
	test_refused(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_IN_TX, "in_tx");
	test_refused(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_ABORT_TX,
		     "abort_tx");
	test_refused(PERF_SAMPLE_BRANCH_ANY | CTR_BRANCH_COUNTERS, "counters");
	test_two_filters();
	test_call_stack(false, "call_stack,u");
	test_call_stack(true, "call_stack,u across context switches");
	test_plain_cycles();
	ksft_finished();
}
