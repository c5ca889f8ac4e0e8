// SPDX-License-Identifier: GPL-2.0-only
/*
 * Generic module test: unload and reload every non-test module in
 * /lib/modules/ntrace 100 times (or as many as fit in 30 s, at least 10:
 * on two harts under multi-threaded TCG each cycle waits for RCU grace
 * periods that need the other vCPU thread, which on a loaded host, or
 * with the debug kernel, makes a cycle take 1 to 10 s), then require
 * that the kernel logged no
 * warning, BUG, oops, KASAN or lockdep report meanwhile. Modules that
 * depend on each other are handled by unloading and loading in rounds
 * until nothing changes (dependents unload first, dependencies load first).
 * The modules are left loaded, as the init had them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kselftest.h"
#include "kmod.h"
#include "kmsg.h"

#define CYCLES 100
#define MIN_CYCLES 10
#define BUDGET_S 30

struct mod_state {
	int load_err;	/* first failure, as -errno; 0 if none */
	int unload_err;
	int loads;
	bool absent;	/* refused with ENODEV: no such hardware in this boot */
};

static int unload_all(char **names, int n, struct mod_state *st)
{
	int progress = 1, left;

	do {
		progress = 0;
		left = 0;
		for (int i = 0; i < n; i++) {
			if (!kmod_is_loaded(names[i]))
				continue;
			if (kmod_unload(names[i]) == 0)
				progress = 1;
			else
				left++;
		}
	} while (left && progress);
	for (int i = 0; i < n && left; i++) {
		int ret;

		if (!kmod_is_loaded(names[i]))
			continue;
		ret = kmod_unload(names[i]);
		if (ret && !st[i].unload_err) {
			st[i].unload_err = ret;
			ksft_print_msg("unload %s: %s\n", names[i], strerror(-ret));
		}
	}
	return left;
}

static int load_all(char **names, int n, struct mod_state *st)
{
	int progress, left, last_err[n];

	memset(last_err, 0, sizeof(last_err));
	do {
		progress = 0;
		left = 0;
		for (int i = 0; i < n; i++) {
			int ret;

			if (st[i].absent || kmod_is_loaded(names[i]))
				continue;
			ret = kmod_load(names[i], NULL);
			if (ret == 0) {
				st[i].loads++;
				progress = 1;
			} else if (ret == -ENODEV && !st[i].loads) {
				st[i].absent = true;
			} else {
				last_err[i] = ret;
				left++;
			}
		}
	} while (left && progress);
	for (int i = 0; i < n; i++) {
		if (st[i].absent || kmod_is_loaded(names[i]) || st[i].load_err)
			continue;
		st[i].load_err = last_err[i] ? last_err[i] : -EIO;
		ksft_print_msg("load %s: %s\n", names[i], strerror(-st[i].load_err));
	}
	return left;
}

int main(void)
{
	struct mod_state *st;
	char **names;
	int n, kmsg, splats, cycles;
	time_t t0;

	n = kmod_list(&names, false);
	if (n < 0)
		ksft_exit_skip("cannot list %s: %s\n", KMOD_DIR, strerror(-n));
	if (n == 0)
		ksft_exit_skip("no modules in %s\n", KMOD_DIR);
	kmsg = kmsg_open();
	if (kmsg < 0)
		ksft_exit_fail_msg("open /dev/kmsg: %s\n", strerror(-kmsg));

	ksft_print_header();
	ksft_set_plan(n + 1);
	st = calloc(n, sizeof(*st));
	t0 = time(NULL);
	for (cycles = 0; cycles < CYCLES; cycles++) {
		if (cycles >= MIN_CYCLES && time(NULL) - t0 >= BUDGET_S)
			break;
		unload_all(names, n, st);
		load_all(names, n, st);
	}
	ksft_print_msg("%d cycles in %ld s\n", cycles, (long)(time(NULL) - t0));
	for (int i = 0; i < n; i++) {
		if (st[i].absent)
			ksft_test_result_skip("%s: no such device in this machine\n",
					      names[i]);
		else
			ksft_test_result(!st[i].load_err && !st[i].unload_err &&
					 st[i].loads == cycles,
					 "%s: %d unload/load cycles (%d loads)\n",
					 names[i], cycles, st[i].loads);
	}
	splats = kmsg_count_splats(kmsg);
	if (splats < 0)
		ksft_print_msg("read /dev/kmsg: %s\n", strerror(-splats));
	ksft_test_result(splats == 0, "kernel log clean after %d cycles\n", cycles);
	kmod_free_list(names, n);
	free(st);
	ksft_finished();
}
