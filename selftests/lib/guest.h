/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the test guest's host side says about the platform, from the kernel
 * command line (scripts/guest.sh): ntguest.quirks=a,b names known defects
 * of the emulator that a test must not mistake for a driver bug.
 *   mttcg-lost-overflow   counter-overflow interrupts may be lost (QEMU
 *                         multi-threaded TCG with several harts): tests
 *                         that need hardware-counter sampling skip.
 * ntguest.fuzz=SEED,OPS sets the kernel-interface fuzzer's run
 * (selftests/harden/).
 */
#ifndef NTRACE_SELFTEST_GUEST_H
#define NTRACE_SELFTEST_GUEST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The value of ntguest.<name>=VALUE on the kernel command line into buf;
 * 0, or -1 if the word is absent.
 */
int guest_param(const char *name, char *buf, size_t size);
bool guest_has_quirk(const char *quirk);

#endif
