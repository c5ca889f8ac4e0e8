// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace on more than one hart:
 *  - a per-task event of a task that moves between CPU 0 and CPU 1, with
 *    src=1: its AUX data holds messages with SRC 0 and SRC 1 (each CPU's
 *    encoder programmed with trTeSrcID = its CPU), and still frames;
 *  - a per-CPU event on CPU 1 when CPU 1 goes offline (perf stops the
 *    event; 6.12 does not restart it when the CPU returns): the trace
 *    recorded before is drained into the AUX area, frames and lies in
 *    this program, and the CPU goes offline and online cleanly (bringing
 *    it back retries while the hart is still stopping, lib/cpu.h).
 * Skips with fewer than two CPUs or without the PMU.
 */
#include <errno.h>
#include <linux/ntrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest.h"
#include "cpu.h"
#include "ntrace_util.h"

extern char __executable_start[], etext[];

static volatile unsigned long sink;

static __attribute__((noinline)) unsigned long step(unsigned long x)
{
	return (x * 2654435761u) >> 3;
}

static void spin(unsigned long n)
{
	unsigned long i, acc = 0;

	for (i = 0; i < n; i++)
		if (step(i) & 1)
			acc += step(acc);
	sink = acc;
}

/* Alternate between CPU 0 and CPU 1. */
static void migrate_work(void *arg)
{
	int i;

	for (i = 0; i < 6; i++) {
		cpu_pin(i & 1);
		spin(5000);
	}
}

/* Work on CPU 1, then take it offline and online with the event enabled. */
static void hotplug_work(void *arg)
{
	int *err = arg;

	cpu_pin(1);
	spin(20000);
	cpu_pin(0);
	*err = cpu_set_online(1, false);
	if (!*err)
		*err = cpu_set_online(1, true);
}

static void frame_all(const struct nt_rec *rec, unsigned int src_bits,
		      struct nt_frame_stats *sum)
{
	struct nt_frame_stats st;
	unsigned int i;

	memset(sum, 0, sizeof(*sum));
	sum->addr_min = UINT64_MAX;
	for (i = 0; i < rec->nr_aux; i++) {
		if (!rec->aux[i].len)
			continue;
		nt_frame_check(rec->data + rec->aux[i].off, rec->aux[i].len,
			       src_bits, &st);
		sum->msgs += st.msgs;
		sum->bad += st.bad;
		sum->sync_msgs += st.sync_msgs;
		sum->src_seen |= st.src_seen;
		if (st.sync_msgs && st.addr_min < sum->addr_min)
			sum->addr_min = st.addr_min;
		if (st.addr_max > sum->addr_max)
			sum->addr_max = st.addr_max;
		if (st.bad && !sum->why[0])
			memcpy(sum->why, st.why, sizeof(sum->why));
	}
}

static bool in_text(const struct nt_frame_stats *st)
{
	return st->sync_msgs && st->addr_min >= (uintptr_t)__executable_start &&
	       st->addr_max < (uintptr_t)etext;
}

int main(void)
{
	static struct nt_rec rec;
	struct perf_event_attr attr;
	struct nt_frame_stats st;
	char buf[32];
	int err, src_bits, hp_err = 0;

	ksft_print_header();
	if (nt_pmu_type() < 0)
		ksft_exit_skip("no ntrace PMU (no N-Trace components in this machine)\n");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		ksft_exit_skip("needs two CPUs (boot configuration ntrace-smp2)\n");
	ksft_set_plan(4);
	src_bits = nt_read_sysfs("caps/src_bits", buf, sizeof(buf)) ? 0 : atoi(buf);

	nt_attr(&attr, nt_pmu_type(), NTRACE_CFG_SET(SRC, 1));
	err = nt_record(&attr, -1, 256, migrate_work, NULL, &rec);
	frame_all(&rec, src_bits, &st);
	ksft_test_result(!err && st.msgs && !st.bad && (st.src_seen & 3) == 3,
			 "task moving between CPUs 0 and 1: SRC 0 and 1 seen (%#llx), %lu messages frame (%s)\n",
			 (unsigned long long)st.src_seen, st.msgs,
			 err ? strerror(-err) : st.bad ? st.why : "ok");
	ksft_test_result(!err && in_text(&st),
			 "task moving between CPUs: sync addresses in this program\n");
	nt_rec_free(&rec);

	nt_attr(&attr, nt_pmu_type(), 0);
	err = nt_record(&attr, 1, 256, hotplug_work, &hp_err, &rec);
	frame_all(&rec, 0, &st);
	ksft_test_result(!err && !hp_err && st.msgs > 1000 && !st.bad,
			 "event on CPU 1, CPU 1 offline and online: trace before it drained, %lu messages frame (%s)\n",
			 st.msgs, err ? strerror(-err) : hp_err ? strerror(-hp_err) :
			 st.bad ? st.why : "ok");
	ksft_test_result(!err && in_text(&st),
			 "event on CPU 1, CPU 1 offline and online: trace of this program\n");
	nt_rec_free(&rec);
	cpu_set_online(1, true);
	ksft_finished();
}
