/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Console output of the guest init. Every line the init writes has the form
 * "<tag>| <text>" and is written whole under one lock, so the host can parse
 * the serial console even though several threads write to it.
 * Tags: "ntrace" (init markers), "kmsg" (relayed kernel log),
 * "out" (test program output), "demo" (demo mode report).
 */
#ifndef NTGUEST_CONSOLE_H
#define NTGUEST_CONSOLE_H

#include <stdarg.h>

void con_line(const char *tag, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void con_vline(const char *tag, const char *fmt, va_list ap);

#define marker(...) con_line("ntrace", __VA_ARGS__)

#endif
