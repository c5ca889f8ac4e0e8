/* SPDX-License-Identifier: GPL-2.0-only */
/* Option helpers shared by the perf-ntrace subcommands. */
#ifndef PERF_NTRACE_CMD_OPTS_H
#define PERF_NTRACE_CMD_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ntrace/msg.h>

/*
 * Parse an unsigned number (C syntax) no larger than max; on error print
 * "perf-ntrace CMD: bad value for --OPT: TEXT" and return false.
 */
bool opt_uint(const char *cmd, const char *opt, const char *text, uint64_t max, uint64_t *v);

/* Match text against names[] (index = value) or a number < n. */
bool opt_enum(const char *cmd, const char *opt, const char *text, const char *const *names,
	      unsigned int n, unsigned int *v);

/*
 * Codec options common to all commands that read or write N-Trace bytes:
 * --src-bits N, --ts, --ext-addr, --xlen N. Returns 1 if opt (a getopt_long
 * value from CODEC_OPT_*) was one of them and was applied, -1 on a bad value,
 * 0 if it is not a codec option.
 */
enum {
	CODEC_OPT_SRC_BITS = 1000,
	CODEC_OPT_TS,
	CODEC_OPT_EXT_ADDR,
	CODEC_OPT_XLEN,
	CODEC_OPT__END,
};

#define CODEC_LONG_OPTIONS                                                       \
	{ "src-bits", required_argument, NULL, CODEC_OPT_SRC_BITS },             \
	{ "ts", no_argument, NULL, CODEC_OPT_TS },                               \
	{ "ext-addr", no_argument, NULL, CODEC_OPT_EXT_ADDR },                   \
	{ "xlen", required_argument, NULL, CODEC_OPT_XLEN }

#define CODEC_HELP                                                                         \
	"  --src-bits N    SRC field width (trTeSrcBits, 0..12; default 0)\n"             \
	"  --ts            messages may carry TSTAMP (trTsEnable)\n"                       \
	"  --ext-addr      addresses use MSB extension (trTeInstExtendAddrMSB)\n"          \
	"  --xlen N        address width, 32 or 64 (default 64)\n"

int codec_opt(const char *cmd, int opt, const char *arg, struct ntrace_codec_cfg *cfg);

/* Open a file for reading ("-" = stdin); prints the reason on failure. */
FILE *open_in(const char *cmd, const char *path, const char *mode);

#endif /* PERF_NTRACE_CMD_OPTS_H */
