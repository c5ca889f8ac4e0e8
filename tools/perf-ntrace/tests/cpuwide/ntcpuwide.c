// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest helper of scripts/perf-e2e-cpuwide.sh (static riscv64 program; the
 * guest has no shell).
 *   ntcpuwide spawn [-p CPU] PROG...   start every PROG at once (fork +
 *                                      exec, optionally all pinned to CPU),
 *                                      wait for all; exit 1 if one failed.
 *                                      PROG is PATH[,ARG...][@CPU]: its
 *                                      arguments, the CPU it is pinned to
 *   ntcpuwide burst N ITERS SLEEP_US   N times: a loop of ITERS iterations
 *                                      (4 instructions, a taken branch
 *                                      each), then sleep SLEEP_US
 *   ntcpuwide pingpong N [CPU]         N round trips over two pipes between
 *                                      two processes on one CPU (default 0);
 *                                      prints "pingpong N ROUNDS NS_PER_SWITCH"
 *   ntcpuwide harts                    "CPU HART" for every processor of
 *                                      /proc/cpuinfo (its "hart" line)
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

static int spawn(int argc, char **argv)
{
	int cpu = -1, i, st, bad = 0;

	if (argc > 2 && !strcmp(argv[0], "-p")) {
		cpu = atoi(argv[1]);
		argv += 2;
		argc -= 2;
	}
	pin(cpu);
	for (i = 0; i < argc; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("fork");
			return 1;
		}
		if (!p) {
			char *args[16], *at = strrchr(argv[i], '@');
			int n = 0;

			if (at) {
				*at = 0;
				pin(atoi(at + 1));
			}
			for (args[n] = strtok(argv[i], ","); args[n] && n < 15;)
				args[++n] = strtok(NULL, ",");
			args[n] = NULL;
			execv(args[0], args);
			perror(args[0]);
			_exit(127);
		}
	}
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	return bad;
}

static int pingpong(long n, int cpu)
{
	int ab[2], ba[2];
	struct timespec t0, t1;
	char c = 0;
	long i;
	pid_t p;
	double ns;

	if (pipe(ab) || pipe(ba)) {
		perror("pipe");
		return 1;
	}
	pin(cpu);
	p = fork();
	if (p < 0) {
		perror("fork");
		return 1;
	}
	if (!p) {
		for (i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waitpid(p, NULL, 0);
	ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
	/* two context switches per round trip */
	printf("pingpong %ld %.0f\n", n, ns / (2.0 * n));
	return 0;
}

/*
 * Trace load for the shared-sink overflow test: bursts of a small loop
 * (one taken branch every 4 instructions, so a message every iteration),
 * each followed by a sleep, which is a context switch on this CPU.
 */
static int burst(long n, long iters, long sleep_us)
{
	unsigned long acc = 0;
	long i;

	for (i = 0; i < n; i++) {
		acc = branch_loop(iters, acc);
		if (sleep_us)
			usleep(sleep_us);
	}
	printf("burst %ld %ld %lu\n", n, iters, acc);
	return 0;
}

/* The kernel's hart ID of each logical CPU, the truth the e2e maps by. */
static int harts(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	long cpu = -1, v, n = 0;
	char line[256];

	if (!f) {
		perror("/proc/cpuinfo");
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "processor : %ld", &v) == 1)
			cpu = v;
		else if (cpu >= 0 && sscanf(line, "hart : %ld", &v) == 1) {
			printf("%ld %ld\n", cpu, v);
			cpu = -1;
			n++;
		}
	}
	fclose(f);
	return !n;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "harts"))
		return harts();
	if (argc > 2 && !strcmp(argv[1], "spawn"))
		return spawn(argc - 2, argv + 2);
	if (argc > 2 && !strcmp(argv[1], "pingpong"))
		return pingpong(atol(argv[2]), argc > 3 ? atoi(argv[3]) : 0);
	if (argc > 4 && !strcmp(argv[1], "burst"))
		return burst(atol(argv[2]), atol(argv[3]), atol(argv[4]));
	fprintf(stderr, "usage: ntcpuwide spawn [-p CPU] PROG... | pingpong N [CPU] | burst N ITERS SLEEP_US | harts\n");
	return 2;
}
