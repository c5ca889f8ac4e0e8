// SPDX-License-Identifier: GPL-2.0-only
/* Option helpers shared by the perf-ntrace subcommands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_opts.h"

bool opt_uint(const char *cmd, const char *opt, const char *text, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!text || !*text || *text == '-')
		goto bad;
	*v = strtoull(text, &end, 0);
	if (errno || *end || *v > max)
		goto bad;
	return true;
bad:
	fprintf(stderr, "perf-ntrace %s: bad value for --%s: '%s' (0..%llu)\n", cmd, opt,
		text ? text : "", (unsigned long long)max);
	return false;
}

bool opt_enum(const char *cmd, const char *opt, const char *text, const char *const *names,
	      unsigned int n, unsigned int *v)
{
	unsigned int i;
	uint64_t x;

	for (i = 0; i < n; i++) {
		if (names[i] && !strcmp(text, names[i])) {
			*v = i;
			return true;
		}
	}
	if (*text >= '0' && *text <= '9' && opt_uint(cmd, opt, text, n - 1, &x)) {
		*v = (unsigned int)x;
		return true;
	}
	fprintf(stderr, "perf-ntrace %s: bad value for --%s: '%s' (one of:", cmd, opt, text);
	for (i = 0; i < n; i++)
		if (names[i])
			fprintf(stderr, " %s", names[i]);
	fprintf(stderr, ")\n");
	return false;
}

int codec_opt(const char *cmd, int opt, const char *arg, struct ntrace_codec_cfg *cfg)
{
	uint64_t v;

	switch (opt) {
	case CODEC_OPT_SRC_BITS:
		if (!opt_uint(cmd, "src-bits", arg, NTRACE_MAX_SRC_BITS, &v))
			return -1;
		cfg->src_bits = (uint8_t)v;
		return 1;
	case CODEC_OPT_TS:
		cfg->tstamp = true;
		return 1;
	case CODEC_OPT_EXT_ADDR:
		cfg->ext_addr_msb = true;
		return 1;
	case CODEC_OPT_XLEN:
		if (!opt_uint(cmd, "xlen", arg, 64, &v) || (v != 32 && v != 64)) {
			fprintf(stderr, "perf-ntrace %s: --xlen must be 32 or 64\n", cmd);
			return -1;
		}
		cfg->xlen = (uint8_t)v;
		return 1;
	}
	return 0;
}

FILE *open_in(const char *cmd, const char *path, const char *mode)
{
	FILE *f;

	if (!strcmp(path, "-"))
		return stdin;
	f = fopen(path, mode);
	if (!f)
		fprintf(stderr, "perf-ntrace %s: cannot open '%s': %s\n", cmd, path,
			strerror(errno));
	return f;
}
