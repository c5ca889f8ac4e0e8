/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Minimal TAP helpers for the unit tests: each check prints one flat line
 * "ok - name" or "not ok - name"; tap_done() prints the summary and returns
 * the exit status (non-zero when anything failed).
 */
#ifndef NTRACE_TAP_H
#define NTRACE_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_failed, tap_passed;

__attribute__((format(printf, 2, 3)))
static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf(cond ? "ok - " : "not ok - ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (cond)
		tap_passed++;
	else
		tap_failed++;
	return cond;
}

/* Diagnostic line (not a result). */
__attribute__((format(printf, 1, 2)))
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline int tap_done(void)
{
	printf("# %d passed, %d failed\n", tap_passed, tap_failed);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#endif /* NTRACE_TAP_H */
