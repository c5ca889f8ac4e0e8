// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Names of the library's error codes (ntrace/error.h) and its version. */
#include <ntrace/error.h>
#include <ntrace/ntrace.h>

const char *ntrace_errstr(int code)
{
	static const char *const names[] = {
		[-NTRACE_OK] = "success",
		[-NTRACE_ENOENT] = "cannot open or read the file",
		[-NTRACE_ENOTELF] = "not an ELF file",
		[-NTRACE_EFORMAT] = "unsupported ELF class, byte order or type",
		[-NTRACE_EMACHINE] = "ELF file for another machine than RISC-V",
		[-NTRACE_ECORRUPT] = "corrupt structure",
		[-NTRACE_EOVERLAP] = "overlaps an image already loaded",
		[-NTRACE_ENOMAP] = "address outside every image",
		[-NTRACE_ENOMEM] = "out of memory",
		[-NTRACE_EINVAL] = "invalid argument",
		[-NTRACE_EVERSION] = "unknown layout version",
		[-NTRACE_ECONFIG] = "unusable encoder settings",
	};

	if (code > 0 || code < NTRACE_E__LAST)
		return "unknown error";
	return names[-code];
}

unsigned int ntrace_version(void)
{
	return NTRACE_VERSION_NUM;
}
