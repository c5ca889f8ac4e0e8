/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Module helpers for kselftests: the project's modules live in
 * KMOD_DIR (/lib/modules/ntrace) of the test guest.
 * These helpers never call ksft_* (kselftest.h keeps its counters in static
 * variables per file); they return -errno and leave reporting to the test.
 */
#ifndef NTRACE_SELFTEST_KMOD_H
#define NTRACE_SELFTEST_KMOD_H

#include <stdbool.h>
#include <stddef.h>

#define KMOD_DIR "/lib/modules/ntrace"

/*
 * The "<name>.<param>=<value>" words of the kernel command line as the
 * module parameter string "<param>=<value> ..." in buf: what modprobe
 * passes to a module it loads. 0 or -errno (-E2BIG: buf too small).
 */
int kmod_cmdline_params(const char *name, char *buf, size_t size);
/*
 * finit_module() of KMOD_DIR/<name>.ko (name with '_' or '-') with the
 * command line's parameters for it (kmod_cmdline_params()), then params.
 */
int kmod_load(const char *name, const char *params);
/* delete_module(), non-blocking: -EWOULDBLOCK/-EBUSY while in use. */
int kmod_unload(const char *name);
bool kmod_is_loaded(const char *name);

/*
 * Names (without .ko, '-' turned into '_') of the modules in KMOD_DIR,
 * sorted; KUnit modules (*_kunit.ko) only if @with_kunit. Returns the count
 * (or -errno); free the list with kmod_free_list().
 */
int kmod_list(char ***names, bool with_kunit);
void kmod_free_list(char **names, int n);

#endif
