// SPDX-License-Identifier: GPL-2.0-only
/*
 * "perf-ntrace info" (and "perf ntrace info") in the guest against the
 * sysfs it reads: every caps/ file appears with its exact value, every
 * bound component is listed with the hart its device-tree node names, and
 * the E-Trace discovery attributes are derived from caps/ as seed 000's
 * Tables 42-44 encode them ("parameter - 1" where the table says so). A
 * missing sysfs gives exit status 1 and a message naming the module.
 * caps/ts_zero_cpu<N> is measured at each read (the time CSR against a
 * SiFive v0 timestamp unit): two reads agree within 50 ms of time CSR
 * ticks, not to the tick (ntrace_time_test checks its accuracy).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "ntrace_util.h"
#include "run.h"

#define PERF_NTRACE "/usr/bin/perf-ntrace"

static char out[65536];

/* The output line "  NAME  VALUE ..." for a caps or E-Trace name, or NULL. */
static const char *find_line(const char *name)
{
	size_t n = strlen(name);
	const char *p = out;

	while ((p = strstr(p, name))) {
		if (p >= out + 2 && p[-1] == ' ' && p[-2] == ' ' && p[n] == ' ' &&
		    (p == out + 2 || p[-3] == '\n'))
			return p;
		p += n;
	}
	return NULL;
}

/* Value column of that line (second word) into buf. */
static int line_value(const char *name, char *buf, size_t size)
{
	const char *p = find_line(name);

	if (!p || sscanf(p + strlen(name), " %63s", buf) != 1 || size < 64)
		return -1;
	return 0;
}

static long cap_num(const char *name)
{
	char v[64], rel[128];

	snprintf(rel, sizeof(rel), "caps/%s", name);
	if (nt_read_sysfs(rel, v, sizeof(v)))
		return -1;
	return strtol(v, NULL, 0);
}

/* Time CSR ticks in 50 ms (the DT's timebase-frequency; 10 MHz if none). */
static unsigned long long ticks_50ms(void)
{
	FILE *f = fopen("/proc/device-tree/cpus/timebase-frequency", "rb");
	uint32_t be = 0;

	if (f && fread(&be, sizeof(be), 1, f) == 1 && ntohl(be))
		be = ntohl(be);
	else
		be = 10000000;
	if (f)
		fclose(f);
	return be / 20;
}

/* A caps/ value read again: equal, or a measurement within 50 ms. */
static bool same_cap(const char *name, const char *want, const char *got)
{
	unsigned long long a, b;

	if (!strcmp(want, got))
		return true;
	if (strncmp(name, "ts_zero_cpu", 11))
		return false;
	a = strtoull(want, NULL, 0);
	b = strtoull(got, NULL, 0);
	return (a > b ? a - b : b - a) <= ticks_50ms();
}

/* text without its ts_zero lines (measured at each read) */
static void drop_measured(char *text)
{
	char *p = text;

	while (*p) {
		char *nl = strchr(p, '\n'), *z = strstr(p, "ts_zero");
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);

		if (z && z < p + len)
			memmove(p, p + len, strlen(p + len) + 1);
		else
			p += len;
	}
}

static void check_caps(void)
{
	char path[512], want[64], got[64];
	unsigned int n = 0, bad = 0;
	struct dirent *de;
	DIR *d = opendir(NTRACE_SYSFS "/caps");

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "caps/%s", de->d_name);
		if (nt_read_sysfs(path, want, sizeof(want)))
			continue;
		n++;
		if (line_value(de->d_name, got, sizeof(got)) ||
		    !same_cap(de->d_name, want, got)) {
			if (bad++ < 3)
				ksft_print_msg("caps/%s is '%s', info shows '%s'\n", de->d_name,
					       want, find_line(de->d_name) ? got : "(no line)");
		}
	}
	if (d)
		closedir(d);
	ksft_test_result(n >= 25 && !bad, "info shows all %u caps/ files with their values\n", n);
}

static void check_etrace(void)
{
	static const struct {
		const char *etrace, *cap;
		long minus;	/* attribute = cap - minus; -1: attribute = !cap */
	} map[] = {
		{ "comparators", "nr_comparators", 1 },
		{ "filters", "nr_filters", 1 },
		{ "itype_width", "itype_bits", 1 },
		{ "time_width", "ts_width", 1 },
		{ "sijump", "seqjump", 0 },
		{ "filter_privilege", "priv_filter", 0 },
		{ "nocontext", "ctx", -1 },
		{ "notime", "ts_width", -1 },
	};
	char got[64];
	unsigned int i, bad = 0;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		long c = cap_num(map[i].cap), want = map[i].minus < 0 ? !c : c - map[i].minus;

		/*
		 * "count - 1" cannot say 0 (SiFive v0 has no filters and no
		 * comparators): then the attribute must be absent.
		 */
		if (!c && map[i].minus > 0) {
			if (find_line(map[i].etrace)) {
				bad++;
				ksft_print_msg("E-Trace %s: shown, but caps/%s is 0\n",
					       map[i].etrace, map[i].cap);
			}
			continue;
		}
		if (c < 0 || line_value(map[i].etrace, got, sizeof(got)) || atol(got) != want) {
			bad++;
			ksft_print_msg("E-Trace %s: want %ld from caps/%s\n", map[i].etrace, want,
				       map[i].cap);
		}
	}
	ksft_test_result(!bad, "E-Trace attributes follow seed 000's encoding of caps/\n");
}

/* Every bound encoder appears, with a hart that is in cpumask. */
static void check_components(void)
{
	unsigned int devs = 0, listed = 0;
	struct dirent *de;
	const char *p = out;
	DIR *d = opendir("/sys/bus/platform/drivers/ntrace-encoder");

	while (d && (de = readdir(d)))
		if (strchr(de->d_name, '.') && de->d_name[0] != '.')
			devs++;
	if (d)
		closedir(d);
	while ((p = strstr(p, "  encoder  "))) {
		const char *h = strstr(p, "    hart        ");

		if (h && h[16] >= '0' && h[16] <= '9')
			listed++;
		p += 11;
	}
	ksft_test_result(devs > 0 && listed == devs,
			 "info lists the %u bound encoders, each with its hart (%u listed)\n",
			 devs, listed);
}

int main(void)
{
	char *info[] = { PERF_NTRACE, "info", NULL };
	char *perf_info[] = { "/usr/bin/perf", "ntrace", "info", NULL };
	char *absent[] = { PERF_NTRACE, "info", "--sysfs", "/nonexistent", NULL };
	static char again[65536];
	int st;

	ksft_print_header();
	if (nt_pmu_type() < 0)
		ksft_exit_skip("no ntrace PMU in this boot configuration\n");
	ksft_set_plan(6);
	st = run_capture(info, out, sizeof(out), 60);
	if (!(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		ksft_print_msg("%s", out);
		ksft_exit_fail_msg("perf-ntrace info failed (status %d)\n", st);
	}
	ksft_test_result_pass("perf-ntrace info exits 0\n");
	check_caps();
	check_etrace();
	check_components();
	st = run_capture(perf_info, again, sizeof(again), 60);
	drop_measured(again);
	drop_measured(out);
	ksft_test_result(st >= 0 && WIFEXITED(st) && !WEXITSTATUS(st) && !strcmp(again, out),
			 "perf ntrace info runs perf-ntrace and prints the same\n");
	st = run_capture(absent, again, sizeof(again), 60);
	ksft_test_result(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 1 &&
			 strstr(again, "no ntrace PMU") && strstr(again, "ntrace.ko"),
			 "a missing PMU gives status 1 and names the module\n");
	ksft_finished();
}
