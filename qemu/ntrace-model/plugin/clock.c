// SPDX-License-Identifier: GPL-2.0-only
/*
 * The platform timer as the timestamp units read it, with or without
 * QEMU's -icount.
 *
 * Under -icount the time CSR reads QEMU's virtual clock, which QEMU lets a
 * vCPU read only where it may do I/O: generated code clears that right
 * before a block's first instruction and sets it again before its last
 * one, so a read from the callback of any other instruction (a store to
 * the register region) ends QEMU with "Bad icount read". A block callback
 * runs before that clear and may read. So under -icount the model reads
 * the timer only in block callbacks; a read anywhere else gets the value
 * of the latest block callback's read, and the vCPU's next block callback
 * publishes trTsCounter again (regs_service). The clock then counts
 * instructions, so a value read at the block's start (QEMU has counted the
 * whole block by then) is at most a block away while a trace with
 * timestamps reads it at every block; before that, older.
 * Without -icount every callback reads the timer.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"

bool clock_icount_on;
static uint64_t latest;			/* the last block callback's read (atomic) */
/* initial-exec: no __tls_get_addr call per block */
static __thread bool in_block_cb __attribute__((tls_model("initial-exec")));
/* a read got the latest value, not the timer's */
static __thread bool stale_read __attribute__((tls_model("initial-exec")));

/* QEMU has no plugin call for it: look for -icount among its arguments. */
void clock_init(void)
{
	FILE *f = fopen("/proc/self/cmdline", "r");
	char *arg = NULL;
	size_t cap = 0;

	if (!f)
		return;
	while (getdelim(&arg, &cap, 0, f) > 0)
		if (!strcmp(arg, "-icount") || !strcmp(arg, "--icount"))
			clock_icount_on = true;
	free(arg);
	fclose(f);
}

void clock_block_mark(bool entering)
{
	in_block_cb = entering;
}

uint64_t clock_read(void)
{
	uint64_t t;

	if (!clock_icount_on)
		return ingress_read_time();
	if (!in_block_cb) {
		stale_read = true;
		return __atomic_load_n(&latest, __ATOMIC_RELAXED);
	}
	t = ingress_read_time();
	__atomic_store_n(&latest, t, __ATOMIC_RELAXED);
	return t;
}

/* Did a read on this thread since the last call get the latest value? */
bool clock_take_stale(void)
{
	bool s = stale_read;

	stale_read = false;
	return s;
}
