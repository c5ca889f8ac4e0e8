/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel log helpers for kselftests: open /dev/kmsg at its end, then look
 * at what the kernel logged since, e.g. to fail on warnings and oopses.
 */
#ifndef NTRACE_SELFTEST_KMSG_H
#define NTRACE_SELFTEST_KMSG_H

#include <stdbool.h>

/* Descriptor positioned after every record logged so far, or -errno. */
int kmsg_open(void);

/*
 * True if a kernel message starts a splat: WARNING:, BUG:, Oops, an
 * "Unable to handle kernel" fault, a panic, UBSAN/KASAN (both BUG:),
 * lockdep reports (WARNING:), hung-task and RCU stall reports; not
 * Linux 6.12's sched_cpu_dying warning at CPU offline, which the host
 * judges from the whole log (guest/console-to-tap.awk).
 */
bool kmsg_is_splat(const char *msg);

/*
 * Read every record logged since the last call (without blocking); print
 * each splat line as a "# kmsg:" TAP comment. Returns the number of splat
 * lines, or -errno.
 */
int kmsg_count_splats(int fd);

#endif
