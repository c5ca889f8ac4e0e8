// SPDX-License-Identifier: GPL-2.0-only
/* CPU hotplug and pinning helpers for kselftests (see cpu.h). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "cpu.h"
#include "sysfs.h"

static int write_online(int cpu, bool on)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return sysfs_write(path, on ? "1" : "0");
}

int cpu_set_online(int cpu, bool on)
{
	int i, err = write_online(cpu, on);

	for (i = 0; on && err == -EINVAL && i < 50; i++) {
		usleep(100000);
		err = write_online(cpu, on);
	}
	if (on && !err && i)
		printf("# CPU %d came online after %d retries (still stopping)\n",
		       cpu, i);
	return err;
}

/*
 * The first /proc/cpuinfo processor whose number is cpu or whose hart is
 * hart (the other -1): its number and hart, or -1 and -1.
 */
static void cpuinfo_find(int cpu, long hart, int *cpu_out, long *hart_out)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	int cur = -1, v;
	char line[256];
	long h;

	*cpu_out = -1;
	*hart_out = -1;
	while (f && *cpu_out < 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "processor : %d", &v) == 1)
			cur = v;
		else if (sscanf(line, "hart : %ld", &h) == 1 &&
			 (cur == cpu || h == hart)) {
			*cpu_out = cur;
			*hart_out = h;
		}
	}
	if (f)
		fclose(f);
}

int cpu_of_hart(int hart)
{
	long h;
	int cpu;

	cpuinfo_find(-1, hart, &cpu, &h);
	return cpu;
}

long cpu_hart(int cpu)
{
	long hart;
	int c;

	cpuinfo_find(cpu, -1, &c, &hart);
	return hart;
}

int cpu_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}
