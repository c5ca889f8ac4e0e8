/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Run every kselftest program SELFTEST_DIR/<area>/<name>_test, one at a time,
 * with a wall-clock timeout; relay its output as "out|" lines between
 * "test begin" and "test end" markers. An area may hold a kselftest-style
 * "settings" file with "timeout=<seconds>".
 */
#ifndef NTGUEST_SELFTESTS_H
#define NTGUEST_SELFTESTS_H

#define SELFTEST_DIR "/selftests"

/*
 * @filter: NULL, or comma-separated substrings; a test runs if its name
 * contains one of them. Returns the number of tests that did not pass or skip.
 */
int run_selftests(const char *filter, int default_timeout);
/* True if @filter is NULL/empty or @name contains one of its substrings. */
int name_matches(const char *name, const char *filter);

#endif
