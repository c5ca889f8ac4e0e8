// SPDX-License-Identifier: GPL-2.0-only
/*
 * CTR branch stacks across context switches and CPU hotplug.
 *  - Two tasks on one hart, each sampling itself with a branch stack and
 *    running its own copy of the workload: neither may ever see a record
 *    of the other's code (the driver clears CTR when an event is scheduled
 *    in).
 *  - An event on hart 1 survives taking hart 1 offline and online again,
 *    and its records still form one path of the workload afterwards.
 * Skips when the hart has no Ssctr (and the hotplug case with one hart).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "cpu.h"
#include "ctr_sample.h"
#include "guest.h"

#define BST		(PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER)
/* short period: samples soon after a switch are the ones that could leak */
#define SHORT_PERIOD	20011
#define PERIOD		100003
#define ITERS		20000
#define MAX_BLOCK	256

struct foreign {
	const struct ctr_workload *mine, *other;
	uint64_t samples, records, own, leaked;
};

static bool check_foreign(const struct ctr_sample *s, void *ctx)
{
	struct foreign *f = ctx;
	uint64_t i;

	f->samples++;
	for (i = 0; i < s->nr; i++) {
		const struct perf_branch_entry *e = &s->e[i];

		f->records++;
		if (ctr_in(e->from, f->mine->start, f->mine->end))
			f->own++;
		if (ctr_in(e->from, f->other->start, f->other->end) ||
		    ctr_in(e->to, f->other->start, f->other->end)) {
			f->leaked++;
			printf("# %s sees a branch of %s at [%llu]\n",
			       f->mine->name, f->other->name,
			       (unsigned long long)i);
			ctr_dump(s, i, i);
			return false;
		}
	}
	return true;
}

/* Sample @f->mine on this task for a fixed amount of work; -1 on a leak. */
static int run_isolated(struct foreign *f)
{
	struct perf_event_attr attr;
	struct ctr_ring r;
	int ret;

	ctr_cycles_attr(&attr, BST, SHORT_PERIOD);
	ret = ctr_ring_open(&r, &attr);
	if (ret) {
		printf("# %s: perf_event_open: %s\n", f->mine->name,
		       strerror(-ret));
		return ret;
	}
	ret = ctr_collect(&r, f->mine, ITERS, INT_MAX, 150, check_foreign, f);
	ctr_ring_close(&r);
	return ret < 0 ? ret : 0;
}

static void test_context_switch(void)
{
	struct foreign mine = { .mine = &ctr_work, .other = &ctr_other_work };
	struct foreign child = { .mine = &ctr_other_work, .other = &ctr_work };
	struct rusage before, after;
	int status, ret;
	long switches;
	pid_t pid;

	if (cpu_pin(0)) {
		ksft_test_result_fail("context switch: pin to cpu0: %s\n",
				      strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		ksft_test_result_fail("context switch: fork: %s\n",
				      strerror(errno));
		return;
	}
	if (!pid)
		_exit(run_isolated(&child) ? 1 : 0);

	getrusage(RUSAGE_SELF, &before);
	ret = run_isolated(&mine);
	getrusage(RUSAGE_SELF, &after);
	waitpid(pid, &status, 0);
	switches = after.ru_nivcsw - before.ru_nivcsw;
	ksft_print_msg("context switch: %llu samples, %llu records (%llu of own code), %ld preemptions\n",
		       (unsigned long long)mine.samples,
		       (unsigned long long)mine.records,
		       (unsigned long long)mine.own, switches);
	if (!ret && !mine.own && guest_has_quirk("mttcg-lost-overflow"))
		ksft_test_result_skip("context switch: no samples (quirk mttcg-lost-overflow)\n");
	else
		ksft_test_result(!ret && WIFEXITED(status) &&
				 !WEXITSTATUS(status) && mine.own > 0 &&
				 switches > 0,
				 "no branches of another task after a context switch\n");
}

/*
 * A CPU-wide branch-stack event keeps CTR recording on the hart whatever
 * runs there; a task event scheduled in beside it must still see only its
 * own task's branches, not those recorded for the CPU-wide event before.
 */
static void test_beside_cpu_wide(void)
{
	struct foreign mine = { .mine = &ctr_work, .other = &ctr_other_work };
	struct perf_event_attr attr;
	int status, ret, cpu_fd, i;
	pid_t pid;

	if (cpu_pin(0)) {
		ksft_test_result_fail("beside cpu-wide: pin to cpu0: %s\n",
				      strerror(errno));
		return;
	}
	ctr_cycles_attr(&attr, BST, SHORT_PERIOD);
	/* cycles has one counter (mcycle); the task event needs it */
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.disabled = 0;
	cpu_fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, 0);
	if (cpu_fd < 0) {
		ksft_test_result_skip("beside cpu-wide: CPU-wide event: %s\n",
				      strerror(errno));
		return;
	}
	pid = fork();
	if (!pid) {
		/* no event of its own: only the CPU-wide one records it */
		for (i = 0; i < 150; i++)
			ctr_other_work.run(ITERS);
		_exit(0);
	}
	ret = pid < 0 ? -errno : run_isolated(&mine);
	if (pid > 0)
		waitpid(pid, &status, 0);
	close(cpu_fd);
	ksft_print_msg("beside cpu-wide: %llu samples, %llu records (%llu of own code)\n",
		       (unsigned long long)mine.samples,
		       (unsigned long long)mine.records,
		       (unsigned long long)mine.own);
	if (!ret && !mine.own && guest_has_quirk("mttcg-lost-overflow"))
		ksft_test_result_skip("beside cpu-wide: no samples (quirk mttcg-lost-overflow)\n");
	else
		ksft_test_result(!ret && mine.own > 0,
				 "a task event beside a CPU-wide one sees only its task\n");
}

struct threads {
	pid_t tid_work, tid_other;
	uint64_t samples[2], empty, leaked;
};

static bool check_threads(const struct ctr_sample *s, void *ctx)
{
	struct threads *t = ctx;
	const struct ctr_workload *other;
	uint64_t i;
	int who;

	if (s->tid == (uint32_t)t->tid_work) {
		who = 0;
		other = &ctr_other_work;
	} else if (s->tid == (uint32_t)t->tid_other) {
		who = 1;
		other = &ctr_work;
	} else {
		return true;
	}
	t->samples[who]++;
	if (!s->nr)
		t->empty++;
	for (i = 0; i < s->nr; i++) {
		if (ctr_in(s->e[i].from, other->start, other->end) ||
		    ctr_in(s->e[i].to, other->start, other->end)) {
			t->leaked++;
			printf("# thread %u sees a branch of %s at [%llu]\n",
			       s->tid, other->name, (unsigned long long)i);
			ctr_dump(s, i, i);
			return false;
		}
	}
	return true;
}

struct worker {
	const struct ctr_workload *w;
	pid_t tid;
};

static void *work(void *arg)
{
	struct worker *k = arg;
	int i;

	k->tid = gettid();
	for (i = 0; i < 100; i++)
		k->w->run(ITERS);
	return NULL;
}

/*
 * Threads of one process share an inherited event (perf record on a
 * threaded program). Their task contexts are clones of one parent, and
 * the perf core switches between such contexts without removing and
 * adding the events; the driver must still not hand one thread's branches
 * to another's samples.
 */
static void test_threads(void)
{
	struct worker a = { .w = &ctr_work }, b = { .w = &ctr_other_work };
	struct threads t = { 0 };
	struct perf_event_attr attr;
	pthread_t ta, tb;
	struct ctr_ring r;
	int ret, got;

	if (cpu_pin(0)) {
		ksft_test_result_fail("threads: pin to cpu0: %s\n", strerror(errno));
		return;
	}
	ctr_cycles_attr(&attr, BST, PERIOD);
	attr.sample_type |= PERF_SAMPLE_TID;
	attr.inherit = 1;
	/* inherited events map only per CPU, as perf record opens them */
	ret = ctr_ring_open_cpu(&r, &attr, 0);
	if (ret) {
		ksft_test_result_fail("threads: perf_event_open: %s\n",
				      strerror(-ret));
		return;
	}
	ioctl(r.fd, PERF_EVENT_IOC_ENABLE, 0);
	if (pthread_create(&ta, NULL, work, &a) ||
	    pthread_create(&tb, NULL, work, &b)) {
		ksft_test_result_fail("threads: pthread_create failed\n");
		ctr_ring_close(&r);
		return;
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	ioctl(r.fd, PERF_EVENT_IOC_DISABLE, 0);
	t.tid_work = a.tid;
	t.tid_other = b.tid;
	got = ctr_drain(&r, check_threads, &t);
	ctr_ring_close(&r);
	ksft_print_msg("threads: %d samples, %llu of the ctr thread, %llu of the ctr_other thread, %llu without branches\n",
		       got, (unsigned long long)t.samples[0],
		       (unsigned long long)t.samples[1],
		       (unsigned long long)t.empty);
	if (got >= 0 && (!t.samples[0] || !t.samples[1]) &&
	    guest_has_quirk("mttcg-lost-overflow"))
		ksft_test_result_skip("threads: too few samples (quirk mttcg-lost-overflow)\n");
	else
		ksft_test_result(got > 0 && t.samples[0] && t.samples[1],
				 "no branches of another thread of the process\n");
}

struct path {
	uint64_t samples, leaf_calls, max_nr, empty;
};

static bool check_path(const struct ctr_sample *s, void *ctx)
{
	struct path *p = ctx;
	uint64_t i;

	if (!ctr_in(s->ip, ctr_work.start, ctr_work.end))
		return true;
	p->samples++;
	if (!s->nr)
		p->empty++;
	if (s->nr > p->max_nr)
		p->max_nr = s->nr;
	for (i = 0; i < s->nr; i++) {
		if (s->e[i].to == ctr_work.leaf)
			p->leaf_calls++;
		if (i + 1 < s->nr &&
		    !ctr_follows(&s->e[i + 1], &s->e[i], MAX_BLOCK)) {
			printf("# records %llu and %llu are not one path\n",
			       (unsigned long long)i, (unsigned long long)i + 1);
			ctr_dump(s, i, i + 1);
			return false;
		}
	}
	return true;
}

/* Sample until a few samples are in the workload (slow kernels). */
static int collect_in_workload(struct ctr_ring *r, struct path *p)
{
	int got = 0, n, tries;

	for (tries = 0; got >= 0 && tries < 5 && p->samples < 3; tries++) {
		n = ctr_collect(r, &ctr_work, ITERS, 10, 200, check_path, p);
		got = n < 0 ? n : got + n;
	}
	return got;
}

static void test_hotplug(void)
{
	struct perf_event_attr attr;
	struct path before = { 0 }, after = { 0 };
	const char *step = "";
	struct ctr_ring r;
	int ret, got1, got2;

	if (sysconf(_SC_NPROCESSORS_CONF) < 2 ||
	    access("/sys/devices/system/cpu/cpu1/online", W_OK)) {
		ksft_test_result_skip("hotplug: needs a second hart that can go offline\n");
		return;
	}
	if (cpu_pin(1)) {
		ksft_test_result_fail("hotplug: pin to cpu1: %s\n", strerror(errno));
		return;
	}
	ctr_cycles_attr(&attr, BST, PERIOD);
	ret = ctr_ring_open(&r, &attr);
	if (ret) {
		ksft_test_result_fail("hotplug: perf_event_open: %s\n",
				      strerror(-ret));
		return;
	}
	got1 = collect_in_workload(&r, &before);

	/* cpu1 goes away under the running event, this task moves to cpu0 */
	step = "offline";
	ret = cpu_set_online(1, false);
	if (!ret) {
		step = "online";
		ret = cpu_set_online(1, true);	/* retries while the hart stops */
	}
	if (!ret) {
		step = "pin to cpu1";
		ret = cpu_pin(1);
	}
	got2 = ret ? -1 : collect_in_workload(&r, &after);
	ctr_ring_close(&r);
	cpu_pin(0);
	ksft_print_msg("hotplug: before %d samples (%llu in the workload, %llu empty, max %llu records), after %d samples (%llu, %llu, %llu), %s%s%s\n",
		       got1, (unsigned long long)before.samples,
		       (unsigned long long)before.empty,
		       (unsigned long long)before.max_nr, got2,
		       (unsigned long long)after.samples,
		       (unsigned long long)after.empty,
		       (unsigned long long)after.max_nr, ret ? step : "",
		       ret ? ": " : "",
		       ret ? strerror(-ret) : "cpu1 offline and online");
	if (!ret && got1 >= 0 && got2 >= 0 && (!before.samples || !after.samples) &&
	    guest_has_quirk("mttcg-lost-overflow"))
		ksft_test_result_skip("hotplug: too few samples (quirk mttcg-lost-overflow)\n");
	else
		ksft_test_result(!ret && got1 > 0 && got2 > 0 &&
				 after.samples > 0 && after.leaf_calls > 0 &&
				 after.max_nr == before.max_nr,
				 "branch stacks on a hart after offline/online\n");
}

int main(void)
{
	ksft_print_header();
	ctr_require();
	ksft_set_plan(4);
	test_context_switch();
	test_threads();
	test_beside_cpu_wide();
	test_hotplug();
	ksft_finished();
}
