/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kmemleak helpers for kselftests, on a kernel built with
 * CONFIG_DEBUG_KMEMLEAK (configs/debug.config). Like the other helpers
 * they never call ksft_*; they return -errno (-ENOENT: no kmemleak).
 */
#ifndef NTRACE_SELFTEST_KMEMLEAK_H
#define NTRACE_SELFTEST_KMEMLEAK_H

/*
 * Forget what is suspected so far (a scan, then "clear"), so that a later
 * kmemleak_leaks() counts only what was leaked after it.
 */
int kmemleak_forget(void);

/*
 * Scan for leaks, as kmemleak needs it for an object allocated up to now:
 * after its minimum age and in two scans (the first only records the
 * object's checksum). Prints each report's first lines as "# kmemleak:"
 * TAP comments. Returns the number of suspected leaks, or -errno.
 */
int kmemleak_leaks(void);

#endif
