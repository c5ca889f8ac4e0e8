// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The error convention (ntrace/error.h): every code has its own name, and
 * real failing calls return the documented code with a detail that names
 * the cause.
 */
#include <stdio.h>
#include <string.h>

#include "ntrace/ntrace.h"
#include "tap.h"

static void names(void)
{
	int c, d, distinct = 1, named = 1;

	for (c = NTRACE_ENOENT; c >= NTRACE_E__LAST; c--) {
		const char *s = ntrace_errstr(c);

		if (!s || !*s || !strcmp(s, "unknown error")) {
			tap_diag("code %d has no name", c);
			named = 0;
		}
		for (d = NTRACE_OK; d > c; d--)
			if (s && !strcmp(s, ntrace_errstr(d))) {
				tap_diag("codes %d and %d are both \"%s\"", c, d, s);
				distinct = 0;
			}
	}
	tap_ok(named, "every code from %d to %d has a name", NTRACE_ENOENT, NTRACE_E__LAST);
	tap_ok(distinct, "no two codes share a name");
	tap_ok(!strcmp(ntrace_errstr(NTRACE_OK), "success"), "0 is \"success\"");
	tap_ok(!strcmp(ntrace_errstr(NTRACE_E__LAST - 1), "unknown error") &&
	       !strcmp(ntrace_errstr(1), "unknown error"),
	       "values outside the enum are \"unknown error\"");
}

int main(void)
{
	names();
	return tap_done();
}
