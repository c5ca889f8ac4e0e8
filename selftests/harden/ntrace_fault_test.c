// SPDX-License-Identifier: GPL-2.0-only
/*
 * The driver against hardware that misbehaves: the QEMU model injects one
 * fault per boot (plugin argument fault=NAME, qemu/ntrace-model/plugin/
 * fault.c) into the last hart's encoder, the last sink or the first
 * funnel's last input, all on the last hart's path (its CPU need not be
 * the last: the boot hart is CPU 0); ntguest.fault=NAME tells this test
 * which. The
 * driver must say so in one kernel log line naming the component, give up
 * on it within a bounded time, flag the recording (TRUNCATED or PARTIAL:
 * perf reports the loss), hang nothing, and trace the other CPU cleanly.
 * Skips without ntguest.fault.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "guest.h"
#include "kselftest.h"
#include "ntrace_util.h"

static const struct {
	const char *fault;
	const char *log;	/* what the driver's one line says */
	bool at_probe;		/* the component is refused when it binds */
} faults[] = {
	{ "te_no_active", "does not leave reset", true },
	{ "te_bad_impl", "version 2.0 unsupported", true },
	{ "te_never_empty", "trTeEmpty stays 0", false },
	{ "ram_never_empty", "trRamEmpty stays 0", false },
	{ "ram_wp_stuck", "trRamWP does not move", false },
	{ "ram_wp_wild", "trRamWP outside the buffer", false },
	{ "funnel_input_stuck", "stays disabled", false },
};

static volatile unsigned long spin_sink;

static void spin(void *arg)
{
	unsigned long acc = 0;

	for (unsigned long i = 0; i < (unsigned long)arg; i++) {
		if ((i * 2654435761u) & 8)
			acc ^= i;
		if (!(i & 0xffff))
			acc += getppid();
	}
	spin_sink = acc;
}

/* Lines of the whole kernel log so far that contain text. */
static int log_lines(const char *text)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK), n = 0;
	char rec[8192];

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t len = read(fd, rec, sizeof(rec) - 1);

		if (len < 0 && errno == EPIPE)
			continue;
		if (len <= 0)
			break;
		rec[len] = '\0';
		if (strstr(rec, text)) {
			n++;
			printf("# kmsg: %s", strchr(rec, ';') ? strchr(rec, ';') + 1 : rec);
		}
	}
	close(fd);
	return n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct outcome {
	int err;
	unsigned int records, flagged, truncated;
	size_t bytes;
	struct nt_frame_stats st;	/* of the first record with data */
	double seconds;
};

/* This task, pinned to cpu, traced while it works (iterations of spin). */
static void record_on(int cpu, unsigned long work, struct outcome *o)
{
	static struct nt_rec rec;
	struct perf_event_attr attr;
	double t0 = now();

	memset(o, 0, sizeof(*o));
	o->st.first_tcode = o->st.last_tcode = -1;
	o->err = cpu_pin(cpu);
	if (o->err)
		return;
	nt_attr(&attr, nt_pmu_type(), 0);
	o->err = nt_record(&attr, -1, 256, spin, (void *)work, &rec);
	o->seconds = now() - t0;
	for (unsigned int i = 0; !o->err && i < rec.nr_aux; i++) {
		o->records++;
		o->flagged += !!(rec.aux[i].flags & (PERF_AUX_FLAG_TRUNCATED |
						     PERF_AUX_FLAG_PARTIAL));
		o->truncated += !!(rec.aux[i].flags & PERF_AUX_FLAG_TRUNCATED);
		o->bytes += rec.aux[i].len;
		if (rec.aux[i].len && o->st.first_tcode < 0)
			nt_frame_check(rec.data + rec.aux[i].off, rec.aux[i].len,
				       nt_src_bits(0), &o->st);
	}
	nt_rec_free(&rec);
}

static bool in_cpumask(int cpu)
{
	char buf[64];
	int lo, hi;

	if (nt_read_sysfs("cpumask", buf, sizeof(buf)))
		return false;
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
		if ((sscanf(tok, "%d-%d", &lo, &hi) == 2 && cpu >= lo && cpu <= hi) ||
		    (sscanf(tok, "%d", &lo) == 1 && !strchr(tok, '-') && cpu == lo))
			return true;
	return false;
}

/*
 * The other CPU's trace: data, whole messages from a sync, nothing
 * flagged; behind a shared sink a PARTIAL record is the sink's own loss
 * under load (a slow kernel drains late), not the fault's, and is let
 * through; a TRUNCATED one (the event ended) never.
 */
static void check_other(int cpu)
{
	char buf[16] = "0";
	bool shared = !nt_read_sysfs("caps/src_required", buf, sizeof(buf)) && atoi(buf);
	unsigned int bad_flags;
	struct outcome o;

	record_on(cpu, 300000, &o);	/* well inside the 1 MiB AUX area */
	bad_flags = shared ? o.truncated : o.flagged;
	ksft_test_result(!o.err && o.bytes && !bad_flags && !o.st.bad &&
			 nt_tcode_is_sync(o.st.first_tcode),
			 "CPU %d, not on the faulty path, records cleanly: %zu bytes in %u records, %u flagged (%u TRUNCATED%s), first message TCODE %d, %lu framing errors (%s)\n",
			 cpu, o.bytes, o.records, o.flagged, o.truncated,
			 shared ? "; a shared sink's PARTIAL let through" : "",
			 o.st.first_tcode, o.st.bad, o.err ? strerror(-o.err) : "ok");
}

int main(void)
{
	char name[64];
	int harts, victim, other, n, i;
	struct outcome o;

	ksft_print_header();
	if (guest_param("fault", name, sizeof(name)))
		ksft_exit_skip("no injected fault (ntguest.fault=NAME)\n");
	for (i = 0; i < (int)ARRAY_SIZE(faults) && strcmp(faults[i].fault, name); i++)
		;
	if (i == (int)ARRAY_SIZE(faults))
		ksft_exit_fail_msg("unknown fault '%s'\n", name);
	if (nt_pmu_type() < 0)
		ksft_exit_skip("no ntrace PMU\n");
	/* the model's faults hit the last hart's path */
	harts = sysconf(_SC_NPROCESSORS_CONF);
	if (harts < 2)
		ksft_exit_skip("needs 2 CPUs: one faulty, one to show the rest works\n");
	victim = cpu_of_hart(harts - 1);
	other = !victim;
	if (victim < 0)
		ksft_exit_fail_msg("no CPU of hart %d in /proc/cpuinfo\n", harts - 1);
	printf("# fault %s on the path of CPU %d (hart %d)\n", name, victim, harts - 1);

	if (faults[i].at_probe) {
		struct perf_event_attr attr;
		int fd;

		ksft_set_plan(4);
		n = log_lines(faults[i].log);
		ksft_test_result(n == 1, "%s: one kernel log line \"... %s\" (%d)\n",
				 name, faults[i].log, n);
		ksft_test_result(!in_cpumask(victim), "%s: CPU %d is not in the PMU's cpumask\n",
				 name, victim);
		nt_attr(&attr, nt_pmu_type(), 0);
		fd = nt_open(&attr, -1, victim);
		if (fd >= 0)
			close(fd);
		ksft_test_result(fd == -ENOENT, "%s: an event on CPU %d is refused with ENOENT (%s)\n",
				 name, victim, fd >= 0 ? "opened" : strerror(-fd));
		check_other(other);
		ksft_finished();
	}

	ksft_set_plan(6);
	n = log_lines(faults[i].log);
	record_on(victim, 3000000, &o);	/* several drains */
	ksft_test_result(!o.err && o.flagged && o.seconds < 30,
			 "%s: a recording on CPU %d ends, its loss flagged: %u of %u records flagged, %u TRUNCATED, %zu bytes, %.1f s (%s)\n",
			 name, victim, o.flagged, o.records, o.truncated, o.bytes, o.seconds,
			 o.err ? strerror(-o.err) : "ok");
	ksft_test_result(n == 0 && log_lines(faults[i].log) == 1,
			 "%s: one kernel log line \"... %s\", at the fault (%d before)\n",
			 name, faults[i].log, n);
	record_on(victim, 300000, &o);
	ksft_test_result(!o.err && o.truncated && !o.bytes && o.seconds < 30,
			 "%s: the next recording on CPU %d leaves the component alone: %u records, %u TRUNCATED, %zu bytes, %.1f s\n",
			 name, victim, o.records, o.truncated, o.bytes, o.seconds);
	ksft_test_result(log_lines(faults[i].log) == 1,
			 "%s: still one kernel log line\n", name);
	check_other(other);
	ksft_test_result(in_cpumask(victim), "%s: CPU %d stays in the PMU's cpumask (the component is bound)\n",
			 name, victim);
	ksft_finished();
}
