/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The detail of a failure (ntrace/error.h): every object that can fail
 * keeps one struct ntrace_errbuf, and ntrace_err_set() is the only code
 * that formats into one. Functions without an object fill a local one and
 * copy it to the caller's err buffer. Not exported by libntrace.so.
 */
#ifndef NTRACE_ERR_INTERNAL_H
#define NTRACE_ERR_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

#include "ntrace/error.h"

/* Room for a path and a reason. */
#define NTRACE_ERRBUF_SIZE	1024

struct ntrace_errbuf {
	int code;			/* of the last failure; 0: none */
	char msg[NTRACE_ERRBUF_SIZE];	/* its detail, "" when none was given */
};

#pragma GCC visibility push(hidden)

/*
 * Record a failure: code and the detail formatted from fmt (NULL: none).
 * e may be NULL (the detail is dropped). Returns code, so that a failing
 * path can end in "return ntrace_err_set(...)".
 */
int ntrace_err_set(struct ntrace_errbuf *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same for callers that take a format themselves. */
int ntrace_err_vset(struct ntrace_errbuf *e, int code, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* Forget the last failure. */
void ntrace_err_clear(struct ntrace_errbuf *e);

/* The detail of the last failure, the code's name when it has none, or
 * "no error". */
const char *ntrace_err_msg(const struct ntrace_errbuf *e);

/* Copy ntrace_err_msg(e) to buf (size bytes; buf NULL or size 0: nothing)
 * and return e->code. */
int ntrace_err_copy(const struct ntrace_errbuf *e, char *buf, size_t size);

#pragma GCC visibility pop

#endif /* NTRACE_ERR_INTERNAL_H */
