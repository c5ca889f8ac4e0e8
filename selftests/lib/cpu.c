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

int cpu_of_hart(int hart)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	int cpu = -1, found = -1, v;
	char line[256];

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "processor : %d", &v) == 1)
			cpu = v;
		else if (sscanf(line, "hart : %d", &v) == 1 && v == hart)
			found = cpu;
	}
	fclose(f);
	return found;
}

long cpu_hart(int cpu)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	int cur = -1, v;
	long hart = -1, h;
	char line[256];

	if (!f)
		return -1;
	while (hart < 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "processor : %d", &v) == 1)
			cur = v;
		else if (cur == cpu && sscanf(line, "hart : %ld", &h) == 1)
			hart = h;
	}
	fclose(f);
	return hart;
}

int cpu_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}
