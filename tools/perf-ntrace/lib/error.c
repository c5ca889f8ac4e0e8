// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Names of the library's error codes (ntrace/error.h), the one formatter
 * of failure details (err_internal.h), and the library version.
 */
#include <stdarg.h>
#include <stdio.h>

#include <ntrace/error.h>
#include <ntrace/ntrace.h>

#include "err_internal.h"

const char *ntrace_errstr(int code)
{
	static const char *const names[] = {
		[-NTRACE_OK] = "success",
		[-NTRACE_ENOENT] = "cannot open or read the file",
		[-NTRACE_ENOTELF] = "not an ELF file",
		[-NTRACE_EFORMAT] = "unsupported file class, byte order or type",
		[-NTRACE_EMACHINE] = "ELF file for another machine than RISC-V",
		[-NTRACE_ECORRUPT] = "corrupt structure",
		[-NTRACE_EOVERLAP] = "overlaps an image already loaded",
		[-NTRACE_ENOMAP] = "address outside every image",
		[-NTRACE_ENOMEM] = "out of memory",
		[-NTRACE_EINVAL] = "invalid argument",
		[-NTRACE_EVERSION] = "unknown layout version",
		[-NTRACE_ECONFIG] = "unusable encoder settings",
		[-NTRACE_EBADINPUT] = "malformed or inconsistent input",
		[-NTRACE_EWRITE] = "cannot write the output",
	};

	if (code > 0 || code < NTRACE_E__LAST)
		return "unknown error";
	return names[-code];
}

int ntrace_err_vset(struct ntrace_errbuf *e, int code, const char *fmt, va_list ap)
{
	if (!e)
		return code;
	e->code = code;
	e->msg[0] = 0;
	if (fmt)
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return code;
}

int ntrace_err_set(struct ntrace_errbuf *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ntrace_err_vset(e, code, fmt, ap);
	va_end(ap);
	return code;
}

void ntrace_err_clear(struct ntrace_errbuf *e)
{
	e->code = 0;
	e->msg[0] = 0;
}

const char *ntrace_err_msg(const struct ntrace_errbuf *e)
{
	if (e->msg[0])
		return e->msg;
	return e->code ? ntrace_errstr(e->code) : "no error";
}

int ntrace_err_copy(const struct ntrace_errbuf *e, char *buf, size_t size)
{
	if (buf && size)
		snprintf(buf, size, "%s", ntrace_err_msg(e));
	return e->code;
}

unsigned int ntrace_version(void)
{
	return NTRACE_VERSION_NUM;
}
