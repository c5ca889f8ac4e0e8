// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest's static perf (/usr/bin/perf, scripts/perf.sh) works on this
 * kernel: perf stat counts hardware cycles and instructions of a known
 * workload; perf record samples it on a software timer and on the cycles
 * counter overflow (needs Sscofpmf), and perf report / perf script read the
 * samples back.
 * The workload is this program run as "perf_tool_test spin".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "guest.h"
#include "run.h"

#define PERF "/usr/bin/perf"
#define DATA "/tmp/perf_tool_test.data"
#define SPIN_ITERS 20000000UL
#define TIMEOUT 120

static char self[4096];
static char out[1 << 16];

static void spin(void)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < SPIN_ITERS; i++)
		x += i;
}

static int run_ok(char *const argv[])
{
	int ret = run_capture(argv, out, sizeof(out), TIMEOUT);

	if (ret == -ETIMEDOUT) {
		ksft_print_msg("%s %s: timed out\n", argv[0], argv[1]);
		return 0;
	}
	if (ret < 0 || !WIFEXITED(ret) || WEXITSTATUS(ret)) {
		ksft_print_msg("%s %s failed (status %#x); output:\n%s\n",
			       argv[0], argv[1], ret, out);
		return 0;
	}
	return 1;
}

/* Value of a "perf stat -x," CSV line for @event, or 0. */
static unsigned long long csv_count(const char *event)
{
	char *line, *save, *copy = strdup(out);
	unsigned long long v = 0;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f1 = strchr(line, ','), *f2;

		if (!f1)
			continue;
		f2 = strchr(f1 + 1, ',');
		if (!f2 || strncmp(f2 + 1, event, strlen(event)) ||
		    (f2[1 + strlen(event)] != ',' && f2[1 + strlen(event)] != ':'))
			continue;
		v = strtoull(line, NULL, 10);
	}
	free(copy);
	return v;
}

static void test_stat(void)
{
	char *argv[] = { PERF, "stat", "-x,", "-e", "cycles,instructions", "--",
			 self, "spin", NULL };
	unsigned long long cycles, insns;

	if (!run_ok(argv)) {
		ksft_test_result_fail("perf stat cycles,instructions\n");
		return;
	}
	cycles = csv_count("cycles");
	insns = csv_count("instructions");
	ksft_print_msg("cycles %llu instructions %llu\n", cycles, insns);
	/* The loop alone retires a few instructions per iteration. */
	ksft_test_result(insns >= SPIN_ITERS && cycles > 0,
			 "perf stat cycles,instructions\n");
}

/*
 * perf record on @event, then perf report and perf script must show the
 * workload's samples. Three results.
 */
static void test_record_report(const char *event, const char *period)
{
	char *rec[] = { PERF, "record", "-q", "-o", DATA, "-e", (char *)event,
			"-c", (char *)period, "--", self, "spin", NULL };
	char *rep[] = { PERF, "report", "-i", DATA, "--stdio", "--sort", "comm", NULL };
	char *scr[] = { PERF, "script", "-i", DATA, "-F", "comm,ip", NULL };
	unsigned long samples = 0;
	const char *p;
	struct stat st;
	int ok;

	unlink(DATA);
	ok = run_ok(rec) && !stat(DATA, &st);
	ksft_test_result(ok, "perf record -e %s\n", event);
	if (!ok) {
		ksft_test_result_skip("perf report -e %s (nothing recorded)\n", event);
		ksft_test_result_skip("perf script -e %s (nothing recorded)\n", event);
		return;
	}

	ok = run_ok(rep);
	p = strstr(out, "# Samples: ");
	if (ok && p) {
		char *end;

		/* perf prints "1K" from 1000 samples on, "1M" from a million */
		samples = strtoul(p + strlen("# Samples: "), &end, 10);
		if (*end == 'K')
			samples *= 1000;
		else if (*end == 'M')
			samples *= 1000000;
	}
	/* The workload runs for far more than 10 sampling periods. */
	ok = ok && samples >= 10 && strstr(out, "perf_tool_test");
	if (!ok)
		ksft_print_msg("perf report output:\n%s\n", out);
	ksft_print_msg("perf report: %lu %s samples\n", samples, event);
	ksft_test_result(ok, "perf report --stdio (%s)\n", event);

	ok = run_ok(scr) && strstr(out, "perf_tool_test");
	ksft_test_result(ok, "perf script (%s)\n", event);
	unlink(DATA);
}

/*
 * The kernel lowers perf_event_max_sample_rate when sampling interrupts
 * take long, which they do under TCG on the KASAN + lockdep kernel, and
 * then throttles the cycles event to a sample or two. The test is about
 * the tool, not emulation speed: lift the limit while it samples cycles.
 */
#define CPU_TIME_PCT "/proc/sys/kernel/perf_cpu_time_max_percent"
#define MAX_RATE "/proc/sys/kernel/perf_event_max_sample_rate"

static int sysctl_swap(const char *path, int value)
{
	FILE *f = fopen(path, "r+");
	int old = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &old) != 1)
		old = -1;
	rewind(f);
	fprintf(f, "%d\n", value);
	fclose(f);
	return old;
}

int main(int argc, char **argv)
{
	int cpu_time_pct, max_rate;
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "spin")) {
		spin();
		return 0;
	}
	if (access(PERF, X_OK))
		ksft_exit_skip("%s not installed\n", PERF);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		ksft_exit_fail_msg("readlink /proc/self/exe: %s\n", strerror(errno));
	self[n] = '\0';

	ksft_print_header();
	ksft_set_plan(7);
	test_stat();
	/* The tool itself, on a software event (a 1 ms timer). */
	test_record_report("cpu-clock", "1000000");
	/* Sampling on the cycles counter's overflow interrupt (Sscofpmf). */
	if (guest_has_quirk("mttcg-lost-overflow")) {
		for (int i = 0; i < 3; i++)
			ksft_test_result_skip("perf record -e cycles: quirk mttcg-lost-overflow\n");
	} else {
		cpu_time_pct = sysctl_swap(CPU_TIME_PCT, 0);
		max_rate = sysctl_swap(MAX_RATE, 100000);
		test_record_report("cycles", "200000");
		if (max_rate > 0)
			sysctl_swap(MAX_RATE, max_rate);
		if (cpu_time_pct >= 0)
			sysctl_swap(CPU_TIME_PCT, cpu_time_pct);
	}
	ksft_finished();
}
