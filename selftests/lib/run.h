/* SPDX-License-Identifier: GPL-2.0-only */
/* Run a program from a kselftest and capture its output, with a timeout. */
#ifndef NTRACE_SELFTEST_RUN_H
#define NTRACE_SELFTEST_RUN_H

#include <stddef.h>

/*
 * Run argv[0] (a path) with stdout and stderr captured into @out (NUL
 * terminated, truncated to @size). Returns the wait status (see
 * WIFEXITED()), -ETIMEDOUT if it ran longer than @timeout_s seconds (it is
 * killed), or another -errno.
 */
int run_capture(char *const argv[], char *out, size_t size, int timeout_s);

#endif
