// SPDX-License-Identifier: GPL-2.0-only
/*
 * ntrace on more than one hart:
 *  - a per-task event of a task that moves between CPU 0 and CPU 1, with
 *    src=1: its AUX data holds messages with CPU 0's and CPU 1's SRC
 *    (caps/src_id_cpu<N>: trTeSrcID = the CPU, or an encoder's fixed ID
 *    on SiFive v0), and still frames; encoders without a SRC field
 *    (caps/src_bits 0: v0 encoders with sinks of their own) refuse src=1
 *    (EOPNOTSUPP), and the recording is made without it;
 *  - a per-CPU event on CPU 1 when CPU 1 goes offline (perf stops the
 *    event; 6.12 does not restart it when the CPU returns): the trace
 *    recorded before is drained into the AUX area, frames and lies in
 *    this program, and the CPU goes offline and online cleanly (bringing
 *    it back retries while the hart is still stopping, lib/cpu.h).
 *  - hart IDs that differ from Linux CPU numbers (Linux makes the boot
 *    hart CPU 0; boot configuration ntrace-p550-hartmap: CPU 0 is hart 2,
 *    as on the P550): caps/hartid_cpu<N> is the hart /proc/cpuinfo gives
 *    processor N, for every online CPU;
 *  - a per-CPU event on each CPU N while this task runs pinned to N (src=1
 *    where there is a SRC field): its trace is this program's, so the
 *    encoder of hart(N) was enabled, not the one of hart N, and every
 *    message carries caps/src_id_cpu<N> alone; with this task pinned to
 *    the next CPU instead, the same event holds fewer sync addresses in
 *    this program (the trace is the CPU's, not every hart's).
 * Sync addresses lie in this program, or in the kernel where the encoders
 * have no privilege filter (the events then trace both, ntrace_util.h).
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
		nt_frame_check_in(rec->data + rec->aux[i].off, rec->aux[i].len,
				  src_bits, (uintptr_t)__executable_start,
				  (uintptr_t)etext, &st);
		sum->in_syncs += st.in_syncs;
		sum->kernel_syncs += st.kernel_syncs;
		sum->fw_syncs += st.fw_syncs;
		if (st.other_syncs && !sum->other_syncs)
			sum->other_addr = st.other_addr;
		sum->other_syncs += st.other_syncs;
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
	if (st->other_syncs ||
	    ((st->kernel_syncs + st->fw_syncs) && !nt_traces_kernel()))
		ksft_print_msg("sync addresses: %lu in this program, %lu kernel, %lu firmware, %lu elsewhere (first %#llx)\n",
			       st->in_syncs, st->kernel_syncs, st->fw_syncs,
			       st->other_syncs,
			       (unsigned long long)st->other_addr);
	return st->sync_msgs && nt_syncs_in(st);
}

/* SRC of cpu's messages: caps/src_id_cpu<N>, else the CPU number. */
static long src_id(int cpu)
{
	char name[32];

	snprintf(name, sizeof(name), "src_id_cpu%d", cpu);
	return nt_cap(name, cpu);
}

/* Run on one CPU (the per-CPU event's). */
static void pinned_work(void *arg)
{
	cpu_pin(*(int *)arg);
	spin(20000);
}

/* caps/hartid_cpu<N> against /proc/cpuinfo for every online CPU. */
static void check_hartids(int ncpu)
{
	char map[256] = "", name[32];
	int cpu, bad = 0, moved = 0, len = 0;

	for (cpu = 0; cpu < ncpu; cpu++) {
		long truth = cpu_hart(cpu), cap;

		snprintf(name, sizeof(name), "hartid_cpu%d", cpu);
		cap = nt_cap(name, -1);
		if (cap != truth || truth < 0)
			bad++;
		if (truth != cpu)
			moved++;
		len += snprintf(map + len, sizeof(map) - len, " cpu%d=%ld/%ld",
				cpu, cap, truth);
		if (len >= (int)sizeof(map))
			len = sizeof(map) - 1;
	}
	ksft_test_result(!bad,
			 "caps/hartid_cpu<N> = /proc/cpuinfo's hart of processor N for %d CPUs (caps/cpuinfo:%s; %s)\n",
			 ncpu, map, moved ? "hart IDs differ from CPU numbers" :
			 "every hart ID is its CPU number");
}

static void spin_work(void *arg)
{
	spin(20000);
}

/*
 * A per-CPU event on each CPU with this task there: its hart's trace.
 * Static programs (the guest's init too) share the text addresses, so the
 * control (this task on the next CPU) may see a few of init's syncs there;
 * the busy loop gives the event of its own CPU far more: at least 1000
 * messages and more sync addresses in this program than the control.
 */
static void check_per_cpu(int ncpu, int src_bits, struct nt_rec *rec)
{
	struct perf_event_attr attr;
	struct nt_frame_stats st;
	char why[320] = "", counts[256] = "";
	int cpu, bad = 0, err, len = 0;

	nt_attr(&attr, nt_pmu_type(), src_bits ? NTRACE_CFG_SET(SRC, 1) : 0);
	for (cpu = 0; cpu < ncpu; cpu++) {
		long id = src_id(cpu);
		unsigned int bits = nt_src_bits(attr.config);
		unsigned long msgs, in;
		bool src_ok, ok;

		err = nt_record(&attr, cpu, 256, pinned_work, &cpu, rec);
		frame_all(rec, bits, &st);
		nt_rec_free(rec);
		src_ok = !bits || (id >= 0 && id < 64 &&
				   st.src_seen == 1ull << id);
		ok = !err && st.msgs > 1000 && !st.bad && in_text(&st) && src_ok;
		msgs = st.msgs;
		in = st.in_syncs;
		if (!ok && !bad++)
			snprintf(why, sizeof(why),
				 "CPU %d (hart %ld, SRC %ld): %s, %lu messages, %lu syncs in this program, SRC seen %#llx",
				 cpu, cpu_hart(cpu), id,
				 err ? strerror(-err) : st.bad ? st.why : "frames",
				 st.msgs, st.in_syncs,
				 (unsigned long long)st.src_seen);

		/* the control: this task on another CPU all along */
		cpu_pin((cpu + 1) % ncpu);
		err = nt_record(&attr, cpu, 256, spin_work, NULL, rec);
		frame_all(rec, bits, &st);
		nt_rec_free(rec);
		if ((err || st.bad || st.in_syncs >= in) && ok && !bad++)
			snprintf(why, sizeof(why),
				 "CPU %d while this task ran on CPU %d: %s, %lu sync addresses in this program (%lu with it there)",
				 cpu, (cpu + 1) % ncpu,
				 err ? strerror(-err) : st.bad ? st.why : "frames",
				 st.in_syncs, in);
		len += snprintf(counts + len, sizeof(counts) - len,
				" cpu%d %lu/%lu %lu/%lu;", cpu, msgs, in,
				st.msgs, st.in_syncs);
		if (len >= (int)sizeof(counts))
			len = sizeof(counts) - 1;
	}
	cpu_pin(0);
	ksft_print_msg("per-CPU events: messages/syncs in this program, this task on the CPU and on the next:%s\n",
		       counts);
	ksft_test_result(!bad,
			 "per-CPU event on each of %d CPUs, this task pinned there: this program's trace%s, more of it than with the task on the next CPU (%s)\n",
			 ncpu, src_bits ? ", SRC caps/src_id_cpu<N> alone" : "",
			 bad ? why : "ok");
}

int main(void)
{
	static struct nt_rec rec;
	struct perf_event_attr attr;
	struct nt_frame_stats st;
	char buf[32];
	int err, src_bits, hp_err = 0, fd;
	long id0, id1;
	uint64_t want;

	ksft_print_header();
	if (nt_pmu_type() < 0)
		ksft_exit_skip("no ntrace PMU (no N-Trace components in this machine)\n");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		ksft_exit_skip("needs two CPUs (boot configuration ntrace-smp2)\n");
	ksft_set_plan(6);
	src_bits = nt_read_sysfs("caps/src_bits", buf, sizeof(buf)) ? 0 : atoi(buf);

	id0 = src_id(0);
	id1 = src_id(1);
	want = (id0 >= 0 && id0 < 64 ? 1ull << id0 : 0) |
	       (id1 >= 0 && id1 < 64 ? 1ull << id1 : 0);
	nt_attr(&attr, nt_pmu_type(), NTRACE_CFG_SET(SRC, 1));
	if (!src_bits) {
		/* no SRC field to put an ID in: refused, record without */
		fd = nt_open(&attr, 0, -1);
		if (fd >= 0)
			close(fd);
		nt_attr(&attr, nt_pmu_type(), 0);
		err = nt_record(&attr, -1, 256, migrate_work, NULL, &rec);
		frame_all(&rec, nt_src_bits(0), &st);
		ksft_test_result(fd == -EOPNOTSUPP && !err && st.msgs && !st.bad,
				 "task moving between CPUs 0 and 1: src=1 refused, caps/src_bits 0: EOPNOTSUPP (got %s); without it %lu messages frame (%s)\n",
				 fd >= 0 ? "success" : strerror(-fd), st.msgs,
				 err ? strerror(-err) : st.bad ? st.why : "ok");
	} else {
		err = nt_record(&attr, -1, 256, migrate_work, NULL, &rec);
		frame_all(&rec, src_bits, &st);
		ksft_test_result(!err && st.msgs && !st.bad && id0 != id1 &&
				 (st.src_seen & want) == want,
				 "task moving between CPUs 0 and 1: their SRC %ld and %ld seen (%#llx), %lu messages frame (%s)\n",
				 id0, id1, (unsigned long long)st.src_seen, st.msgs,
				 err ? strerror(-err) : st.bad ? st.why : "ok");
	}
	ksft_test_result(!err && in_text(&st),
			 "task moving between CPUs: sync addresses in this program%s\n",
			 nt_traces_kernel() ?
			 " (and the kernel and firmware: no privilege filter)" : "");
	nt_rec_free(&rec);

	nt_attr(&attr, nt_pmu_type(), 0);
	err = nt_record(&attr, 1, 256, hotplug_work, &hp_err, &rec);
	frame_all(&rec, nt_src_bits(0), &st);
	ksft_test_result(!err && !hp_err && st.msgs > 1000 && !st.bad,
			 "event on CPU 1, CPU 1 offline and online: trace before it drained, %lu messages frame (%s)\n",
			 st.msgs, err ? strerror(-err) : hp_err ? strerror(-hp_err) :
			 st.bad ? st.why : "ok");
	ksft_test_result(!err && in_text(&st),
			 "event on CPU 1, CPU 1 offline and online: trace of this program%s\n",
			 nt_traces_kernel() ?
			 " (and the kernel and firmware: no privilege filter)" : "");
	nt_rec_free(&rec);
	cpu_set_online(1, true);

	check_hartids(sysconf(_SC_NPROCESSORS_ONLN));
	check_per_cpu(sysconf(_SC_NPROCESSORS_ONLN), src_bits, &rec);
	ksft_finished();
}
