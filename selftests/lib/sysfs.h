/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sysfs (and debugfs) file helpers for kselftests. They never call
 * ksft_*; they return 0 or -errno.
 */
#ifndef NTRACE_SELFTEST_SYSFS_H
#define NTRACE_SELFTEST_SYSFS_H

#include <stddef.h>

/* One write() of the string s to path: what "echo -n s > path" does. */
int sysfs_write(const char *path, const char *s);

/* The file's first line, without its newline, in buf (-EIO: empty). */
int sysfs_read_line(const char *path, char *buf, size_t size);

#endif
