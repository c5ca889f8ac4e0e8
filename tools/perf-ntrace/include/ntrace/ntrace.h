/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libntrace: the whole public API in one include, and the library version.
 *
 * Layers, lowest first (each usable alone): msg.h (bytes <-> N-Trace
 * messages), encoder.h (retired instructions -> messages), image.h and
 * isa.h (program code), decoder.h (messages + code -> instruction flow),
 * auxinfo.h (the ntrace PMU's AUXTRACE_INFO -> decoder settings); error.h
 * holds the error codes every layer returns. ingress*.h are the encoder's
 * input formats.
 */
#ifndef NTRACE_NTRACE_H
#define NTRACE_NTRACE_H

/* Version of these headers; ntrace_version() gives the library's. */
#define NTRACE_VERSION_MAJOR	0
#define NTRACE_VERSION_MINOR	8
#define NTRACE_VERSION_NUM	(NTRACE_VERSION_MAJOR << 16 | NTRACE_VERSION_MINOR << 8)

#include <ntrace/auxinfo.h>
#include <ntrace/decoder.h>
#include <ntrace/encoder.h>
#include <ntrace/error.h>
#include <ntrace/image.h>
#include <ntrace/ingress.h>
#include <ntrace/ingress_build.h>
#include <ntrace/isa.h>
#include <ntrace/msg.h>
#include <ntrace/pardec.h>

#ifdef __cplusplus
extern "C" {
#endif

/* NTRACE_VERSION_NUM of the library linked in. */
unsigned int ntrace_version(void);

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_NTRACE_H */
