// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest helper of scripts/soak.sh (static riscv64 program; the guest has
 * no shell): the work and the disturbances of one phase of the soak, run
 * under "perf record -a -e ntrace//u -- ntsoak PHASE ...".
 *
 *   ntsoak [-w ITERS,SLEEP_US] PHASE ...  the workers' bursts (default
 *                                      1000,50000)
 *   ntsoak steady SECS                 workers for SECS seconds
 *   ntsoak hotplug SECS N CPU          workers; CPU taken offline and
 *                                      brought back N times meanwhile
 *   ntsoak unbind SECS CPU encoder|sink
 *                                      workers; CPU's encoder (or sink)
 *                                      unbound at SECS/3, bound again at
 *                                      2*SECS/3 (names from the PMU's
 *                                      topology file)
 *   ntsoak overflow SECS ITERS SLEEP_US
 *                                      workers; drain_us 1000000 for the
 *                                      first half with bursts of ITERS
 *                                      iterations every SLEEP_US, then
 *                                      drain_us 4000 and the usual load
 *   ntsoak burst N ITERS SLEEP_US SEED the work itself (see below)
 *
 * Workers: two processes, not pinned (a CPU goes away), each repeating
 * bursts of a small loop (4 instructions, a taken branch each) of a
 * pseudo-random number of iterations (so that no two bursts are likely to
 * retire the same instruction sequence, which the host's alignment
 * against the ground truth relies on), each followed by a sleep; every
 * 20 bursts a worker forks and execs "ntsoak burst" for a few bursts
 * (fork, exec and exit while traced).
 * Prints one "soak ..." line per event to stdout; exit 1 if a step failed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "loop.h"

#define TOPOLOGY "/sys/bus/event_source/devices/ntrace/topology"
#define PARAM "/sys/module/ntrace/parameters/"
#define DRV "/sys/bus/platform/drivers/"

static long iters_base = 1000, sleep_us = 50000;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	if (s > 0)
		usleep((useconds_t)(s * 1e6));
}

/* n bursts (n < 0: until killed) of about iters iterations each */
static int burst(long n, long iters, long sleep, unsigned int seed)
{
	unsigned long acc = 0;
	long i;

	for (i = 0; n < 0 || i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		acc = branch_loop(iters / 2 + 1 + (seed >> 8) % (unsigned long)iters, acc);
		if (sleep)
			usleep(sleep);
	}
	printf("soak burst %ld %ld %lu\n", n, iters, acc);
	return 0;
}

/* a worker: bursts, and every 20 a short child program */
static void worker(int id, long iters, long sleep)
{
	unsigned int seed = 0x5eed0000u + id * 7919u + getpid();
	unsigned long acc = 0;
	char a[32], b[32], c[32], d[32];
	long i;

	for (i = 0;; i++) {
		seed = seed * 1103515245u + 12345u;
		acc = branch_loop(iters / 2 + 1 + (seed >> 8) % (unsigned long)iters, acc);
		usleep(sleep);
		if (i % 20 == 19) {
			pid_t p = fork();

			if (!p) {
				snprintf(a, sizeof(a), "%d", 3);
				snprintf(b, sizeof(b), "%ld", iters);
				snprintf(c, sizeof(c), "%ld", sleep / 4);
				snprintf(d, sizeof(d), "%u", seed);
				execl("/usr/bin/ntsoak", "ntsoak", "burst", a, b, c, d, (char *)NULL);
				_exit(127);
			}
			if (p > 0)
				waitpid(p, NULL, 0);
		}
		if (acc == 1)	/* keep acc live */
			printf("soak %lu\n", acc);
	}
}

static pid_t workers[2];

static void start_workers(long iters, long sleep)
{
	int i;

	for (i = 0; i < 2; i++) {
		workers[i] = fork();
		if (!workers[i]) {
			worker(i, iters, sleep);
			_exit(0);
		}
	}
}

static void stop_workers(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (workers[i] > 0) {
			kill(workers[i], SIGTERM);
			waitpid(workers[i], NULL, 0);
		}
	}
	/* the last child burst, if one was running, was reparented: wait */
	while (wait(NULL) > 0)
		;
}

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = errno ? -errno : -EIO;
	close(fd);
	return err;
}

/* the device name of CPU cpu's "encoder" or "sink" in the topology file */
static int topology_dev(int cpu, const char *what, char *dev, size_t size)
{
	char line[512], key[32], *p, *e;
	FILE *f = fopen(TOPOLOGY, "r");
	int found = 0;

	if (!f)
		return -errno;
	snprintf(key, sizeof(key), "cpu%d ", cpu);
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, strlen(key)))
			continue;
		p = strstr(line, what);
		if (!p || p[strlen(what)] != '=')
			continue;
		p += strlen(what) + 1;
		e = p + strcspn(p, " \n");
		if ((size_t)(e - p) >= size)
			break;
		memcpy(dev, p, e - p);
		dev[e - p] = '\0';
		found = 1;
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

static int hotplug(double secs, int n, int cpu)
{
	double t0 = now(), slot = secs / (n + 1);
	int i, err, bad = 0;

	for (i = 0; i < n; i++) {
		sleep_s(t0 + slot * (i + 0.5) - now());
		err = cpu_set_online(cpu, false);
		printf("soak hotplug %d cpu%d offline at %.3f (monotonic %.6f): %s\n", i, cpu,
		       now() - t0, now(), err ? strerror(-err) : "ok");
		bad |= !!err;
		sleep_s(t0 + slot * (i + 1) - now());
		err = cpu_set_online(cpu, true);
		printf("soak hotplug %d cpu%d online at %.3f: %s\n", i, cpu, now() - t0,
		       err ? strerror(-err) : "ok");
		bad |= !!err;
		fflush(stdout);
	}
	sleep_s(t0 + secs - now());
	return bad;
}

static int unbind(double secs, int cpu, const char *what)
{
	const char *drv = !strcmp(what, "sink") ? "ntrace-ramsink" : "ntrace-encoder";
	char dev[128], path[192];
	double t0 = now();
	int err, bad = 0;

	err = topology_dev(cpu, what, dev, sizeof(dev));
	if (err) {
		printf("soak unbind: no %s of cpu%d in " TOPOLOGY ": %s\n", what, cpu,
		       strerror(-err));
		sleep_s(secs);
		return 1;
	}
	sleep_s(t0 + secs / 3 - now());
	snprintf(path, sizeof(path), DRV "%s/unbind", drv);
	err = write_str(path, dev);
	printf("soak unbind %s %s at %.3f (monotonic %.6f): %s\n", drv, dev, now() - t0, now(),
	       err ? strerror(-err) : "ok");
	bad |= !!err;
	sleep_s(t0 + 2 * secs / 3 - now());
	snprintf(path, sizeof(path), DRV "%s/bind", drv);
	err = write_str(path, dev);
	printf("soak bind %s %s at %.3f: %s\n", drv, dev, now() - t0, err ? strerror(-err) : "ok");
	bad |= !!err;
	sleep_s(t0 + secs - now());
	return bad;
}

static int overflow(double secs, long iters, long sleep)
{
	int err, bad = 0;

	stop_workers();
	start_workers(iters, sleep);
	err = write_str(PARAM "drain_us", "1000000");
	printf("soak overflow drain_us 1000000: %s\n", err ? strerror(-err) : "ok");
	bad |= !!err;
	sleep_s(secs / 2);
	stop_workers();
	err = write_str(PARAM "drain_us", "4000");
	printf("soak overflow drain_us 4000 (monotonic %.6f): %s\n", now(),
	       err ? strerror(-err) : "ok");
	bad |= !!err;
	start_workers(iters_base, sleep_us);
	sleep_s(secs / 2);
	return bad;
}

int main(int argc, char **argv)
{
	double secs, t0 = now();
	int bad = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 5 && !strcmp(argv[1], "burst"))
		return burst(atol(argv[2]), atol(argv[3]), atol(argv[4]),
			     strtoul(argv[5], NULL, 0));
	if (argc > 2 && !strcmp(argv[1], "-w")) {
		if (sscanf(argv[2], "%ld,%ld", &iters_base, &sleep_us) != 2 ||
		    iters_base < 1 || sleep_us < 0)
			goto usage;
		argv += 2;
		argc -= 2;
	}
	if (argc < 3)
		goto usage;
	secs = atof(argv[2]);
	start_workers(iters_base, sleep_us);
	if (!strcmp(argv[1], "steady")) {
		sleep_s(secs);
		bad = 0;
	} else if (!strcmp(argv[1], "hotplug") && argc > 4) {
		bad = hotplug(secs, atoi(argv[3]), atoi(argv[4]));
	} else if (!strcmp(argv[1], "unbind") && argc > 4) {
		bad = unbind(secs, atoi(argv[3]), argv[4]);
	} else if (!strcmp(argv[1], "overflow") && argc > 4) {
		bad = overflow(secs, atol(argv[3]), atol(argv[4]));
	}
	stop_workers();
	if (bad == 2)
		goto usage;
	printf("soak %s done in %.3f s\n", argv[1], now() - t0);
	return bad;
usage:
	stop_workers();
	fprintf(stderr, "usage: ntsoak [-w ITERS,SLEEP_US] steady SECS | hotplug SECS N CPU | unbind SECS CPU encoder|sink | overflow SECS ITERS SLEEP_US | burst N ITERS SLEEP_US SEED\n");
	return 2;
}
