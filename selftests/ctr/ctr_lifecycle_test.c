// SPDX-License-Identifier: GPL-2.0-only
/*
 * CTR around the edges, on every boot configuration:
 *  - a hart without Ssctr refuses branch-stack events with EOPNOTSUPP at
 *    perf_event_open() (riscv_ctr.ko then stays absent), while plain cycles
 *    counting and sampling keep working;
 *  - with Ssctr, riscv_ctr.ko cannot be unloaded while a branch-stack event
 *    exists, and unloads and reloads cleanly once it is closed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest.h"
#include "ctr_sample.h"
#include "guest.h"
#include "kmod.h"

#define PERIOD		100003
#define ITERS		20000
#define WANT_SAMPLES	5
#define MAX_ROUNDS	400

static bool count_any(const struct ctr_sample *s, void *ctx)
{
	return true;
}

static void test_refused_without_ctr(bool have_ctr)
{
	struct perf_event_attr attr;
	struct ctr_ring r;
	int ret;

	if (have_ctr) {
		ksft_test_result_skip("no Ssctr: branch stacks refused (this hart has Ssctr)\n");
		return;
	}
	ctr_cycles_attr(&attr, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER,
			PERIOD);
	ret = ctr_ring_open(&r, &attr);
	if (!ret)
		ctr_ring_close(&r);
	ksft_print_msg("branch-stack event without Ssctr: %s\n",
		       ret ? strerror(-ret) : "opened");
	ksft_test_result(ret == -EOPNOTSUPP,
			 "no Ssctr: branch stacks refused with EOPNOTSUPP\n");
}

static void test_counting(void)
{
	struct perf_event_attr attr;
	uint64_t before = 0, after = 0;
	int fd;

	ctr_cycles_attr(&attr, 0, 0);
	attr.sample_type = 0;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		ksft_test_result_fail("cycles counting: perf_event_open: %s\n",
				      strerror(errno));
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	ctr_work.run(ITERS);
	if (read(fd, &before, sizeof(before)) != sizeof(before))
		before = 0;
	ctr_work.run(ITERS);
	if (read(fd, &after, sizeof(after)) != sizeof(after))
		after = 0;
	close(fd);
	ksft_print_msg("cycles: %llu, then %llu\n", (unsigned long long)before,
		       (unsigned long long)after);
	ksft_test_result(before > 0 && after > before,
			 "plain cycles counting counts\n");
}

static void test_sampling(void)
{
	struct perf_event_attr attr;
	struct ctr_ring r;
	int ret, got;

	ctr_cycles_attr(&attr, 0, PERIOD);
	ret = ctr_ring_open(&r, &attr);
	if (ret) {
		ksft_test_result_fail("cycles sampling: perf_event_open: %s\n",
				      strerror(-ret));
		return;
	}
	got = ctr_collect(&r, &ctr_work, ITERS, WANT_SAMPLES, MAX_ROUNDS,
			  count_any, NULL);
	ctr_ring_close(&r);
	ksft_print_msg("cycles sampling: %d samples\n", got);
	if (got == 0 && guest_has_quirk("mttcg-lost-overflow"))
		ksft_test_result_skip("plain cycles sampling: no samples (quirk mttcg-lost-overflow)\n");
	else
		ksft_test_result(got >= WANT_SAMPLES, "plain cycles sampling samples\n");
}

/* The module must stay while an event it serves exists. */
static void test_unload_with_event(bool have_ctr)
{
	struct perf_event_attr attr;
	int ret, busy, unload, reload;
	struct ctr_ring r;

	if (!have_ctr) {
		ksft_test_result_skip("unload while a branch event exists (no Ssctr)\n");
		return;
	}
	ret = ctr_load_module();
	if (ret) {
		ksft_test_result_fail("unload with event: riscv_ctr load: %s\n",
				      strerror(-ret));
		return;
	}
	ctr_cycles_attr(&attr, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER,
			PERIOD);
	ret = ctr_ring_open(&r, &attr);
	if (ret) {
		ksft_test_result_fail("unload with event: perf_event_open: %s\n",
				      strerror(-ret));
		return;
	}
	busy = kmod_unload("riscv_ctr");
	/* the event still works after the refused unload */
	ret = ctr_collect(&r, &ctr_work, ITERS, 1, MAX_ROUNDS, count_any, NULL);
	ctr_ring_close(&r);
	unload = kmod_unload("riscv_ctr");
	reload = kmod_load("riscv_ctr", NULL);
	ksft_print_msg("unload with event open: %s; samples after it: %d; unload after close: %s; reload: %s\n",
		       busy ? strerror(-busy) : "unloaded", ret,
		       unload ? strerror(-unload) : "ok",
		       reload ? strerror(-reload) : "ok");
	ksft_test_result((busy == -EWOULDBLOCK || busy == -EBUSY) && ret >= 0 &&
			 !unload && !reload,
			 "riscv_ctr stays while a branch event exists, unloads after\n");
}

int main(void)
{
	bool have_ctr = ctr_have_ssctr();

	ksft_print_header();
	ksft_set_plan(4);
	test_refused_without_ctr(have_ctr);
	test_counting();
	test_sampling();
	test_unload_with_event(have_ctr);
	ksft_finished();
}
