/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CPU helpers for kselftests: hotplug through sysfs and pinning. They
 * never call ksft_*; they return 0 or -errno.
 */
#ifndef NTRACE_SELFTEST_CPU_H
#define NTRACE_SELFTEST_CPU_H

#include <stdbool.h>

/*
 * Write /sys/devices/system/cpu/cpuN/online. Bringing a CPU online is
 * retried for up to 5 s while it fails with EINVAL: Linux 6.12 on RISC-V
 * asks SBI HSM once whether a hart it took down has stopped, and under a
 * loaded TCG the hart may still be STOP_PENDING ("CPUn may not have
 * stopped: 3"), so the next start fails ("CPUn: failed to start").
 */
int cpu_set_online(int cpu, bool on);

/*
 * The logical CPU of a hart ID (/proc/cpuinfo's "hart" lines), or -1:
 * the boot hart becomes CPU 0, and OpenSBI may boot from any hart.
 */
int cpu_of_hart(int hart);

/* The hart ID of a logical CPU (its /proc/cpuinfo "hart" line), or -1. */
long cpu_hart(int cpu);

/* sched_setaffinity() of the calling thread to one CPU. */
int cpu_pin(int cpu);

#endif
