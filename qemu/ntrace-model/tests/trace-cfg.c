// SPDX-License-Identifier: GPL-2.0-only
/*
 * Register words of a trace.c configuration, for tests/run.sh, from the
 * options it writes configurations as. The fields come from
 * include/uapi/linux/ntrace_tci.h and the layout from baremetal/
 * trace_cfg.h, so no bit position is written down a second time.
 *
 *   trace-cfg OPTIONS...            the struct trace_cfg words, in hex
 *   trace-cfg --hart H OPTIONS...   "trTeControl,trTeInstFeatures,trTsControl"
 *                                   as hart H's encoder holds them once
 *                                   trace.c has programmed it (for
 *                                   "perf-ntrace decode --regs")
 *
 * OPTIONS: the encoder's (--mode btm|htm, --context, --inhibit-src,
 * --sync-mode off|msgs|cycles|hwords, --sync-max N, --seq-jump,
 * --implicit-return off|count|partial|full, --repeated-history,
 * --all-jumps, --ext-addr, --src-id N, --src-bits N), the timestamp
 * unit's (--ts: External, Count, Enable; --ts-prescale N; --ts-mode-none:
 * Enable with trTsMode 0) and the program's (--filter-range, -priv, -out,
 * -latch, -mask, -two, --toggle-inst, --toggle-enable, --harts N).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../include/uapi/linux/ntrace_tci.h"
#include "../baremetal/trace_cfg.h"

static const char *prog = "trace-cfg";

static void usage(const char *why, const char *arg)
{
	fprintf(stderr, "%s: %s%s%s\n", prog, why, arg ? " " : "", arg ? arg : "");
	exit(1);
}

static unsigned int number(const char *opt, const char *arg, unsigned int max)
{
	char *end;
	unsigned long v;

	if (!arg)
		usage("missing value for", opt);
	v = strtoul(arg, &end, 0);
	if (!*arg || *arg == '-' || *end || v > max)
		usage("bad value for", opt);
	return (unsigned int)v;
}

static unsigned int choice(const char *opt, const char *arg, const char *const *names,
			   unsigned int n)
{
	unsigned int i;

	for (i = 0; arg && i < n; i++)
		if (names[i] && !strcmp(arg, names[i]))
			return i;
	usage("bad value for", opt);
	return 0;
}

/* An option without a value: applies it and returns 1, else 0. */
static int switch_option(const char *o, struct trace_cfg *c, int *ts, int *ts_none)
{
	enum { CONTROL, FEATURES, FLAGS };
	static const struct {
		const char *name;
		int word;
		uint32_t bits;
	} sw[] = {
		{ "--context", CONTROL, TCI_TE_CONTEXT },
		{ "--inhibit-src", CONTROL, TCI_TE_INHIBIT_SRC },
		{ "--seq-jump", FEATURES, TCI_TE_F_SEQ_JUMP },
		{ "--repeated-history", FEATURES, TCI_TE_F_REPEATED_HISTORY },
		{ "--all-jumps", FEATURES, TCI_TE_F_ALL_JUMPS },
		{ "--ext-addr", FEATURES, TCI_TE_F_EXTEND_ADDR_MSB },
		{ "--filter-range", FLAGS, CFG_FILTER_RANGE },
		{ "--toggle-inst", FLAGS, CFG_TOGGLE_INST },
		{ "--toggle-enable", FLAGS, CFG_TOGGLE_ENABLE },
		{ "--filter-priv", FLAGS, CFG_FILTER_PRIV },
		{ "--filter-out", FLAGS, CFG_FILTER_OUT },
		{ "--filter-latch", FLAGS, CFG_FILTER_LATCH },
		{ "--filter-mask", FLAGS, CFG_FILTER_MASK },
		{ "--filter-two", FLAGS, CFG_FILTER_TWO },
	};
	uint32_t *word[] = { [CONTROL] = &c->control, [FEATURES] = &c->features,
			     [FLAGS] = &c->flags };
	unsigned int i;

	if (!strcmp(o, "--ts"))
		return *ts = 1;
	if (!strcmp(o, "--ts-mode-none"))
		return *ts_none = 1;
	for (i = 0; i < sizeof(sw) / sizeof(sw[0]); i++) {
		if (!strcmp(o, sw[i].name)) {
			*word[sw[i].word] |= sw[i].bits;
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = {
		[TCI_TE_INST_MODE_BTM] = "btm", [TCI_TE_INST_MODE_HTM] = "htm",
	};
	static const char *const syncs[] = {
		[TCI_TE_SYNC_MODE_OFF] = "off", [TCI_TE_SYNC_MODE_MSGS] = "msgs",
		[TCI_TE_SYNC_MODE_CYCLES] = "cycles", [TCI_TE_SYNC_MODE_HWORDS] = "hwords",
	};
	static const char *const irets[] = {
		[TCI_TE_IRET_MODE_UNKNOWN] = "off", [TCI_TE_IRET_MODE_COUNT] = "count",
		[TCI_TE_IRET_MODE_PARTIAL] = "partial", [TCI_TE_IRET_MODE_FULL] = "full",
	};
	struct trace_cfg c = { .magic = TRACE_CFG_MAGIC, .harts = 1 };
	unsigned int prescale = 0, src_id = 0, v;
	int i, hart = -1, ts = 0, ts_none = 0;
	const char *o, *arg;

	for (i = 1; i < argc; i++) {
		o = argv[i];
		if (switch_option(o, &c, &ts, &ts_none))
			continue;
		arg = ++i < argc ? argv[i] : NULL;	/* the others take a value */
		if (!strcmp(o, "--hart")) {
			hart = (int)number(o, arg, MAX_HARTS - 1);
		} else if (!strcmp(o, "--mode")) {
			v = choice(o, arg, modes, sizeof(modes) / sizeof(modes[0]));
			c.control |= TCI_SET(TE_INST_MODE, v);
		} else if (!strcmp(o, "--sync-mode")) {
			v = choice(o, arg, syncs, sizeof(syncs) / sizeof(syncs[0]));
			c.control |= TCI_SET(TE_SYNC_MODE, v);
		} else if (!strcmp(o, "--sync-max")) {
			c.control |= TCI_SET(TE_SYNC_MAX, number(o, arg, 15));
		} else if (!strcmp(o, "--implicit-return")) {
			v = choice(o, arg, irets, sizeof(irets) / sizeof(irets[0]));
			if (v)
				c.features |= TCI_TE_F_IMPLICIT_RETURN | TCI_SET(TE_F_IRET_MODE, v);
		} else if (!strcmp(o, "--src-id")) {
			src_id = number(o, arg, TCI_GET(TCI_TE_F_SRC_ID_MASK, TE_F_SRC_ID));
		} else if (!strcmp(o, "--src-bits")) {
			c.features |= TCI_SET(TE_F_SRC_BITS, number(o, arg, TCI_TE_SRC_BITS_MAX));
		} else if (!strcmp(o, "--ts-prescale")) {
			prescale = number(o, arg, TCI_GET(TCI_TS_PRESCALE_MASK, TS_PRESCALE));
		} else if (!strcmp(o, "--harts")) {
			c.harts = number(o, arg, MAX_HARTS);
			if (!c.harts)
				usage("bad value for", o);
		} else {
			usage("unknown option", o);
		}
	}
	c.features |= TCI_SET(TE_F_SRC_ID, src_id);
	/* --ts: the platform timer (External); Count and Reset do nothing to it */
	if (ts)
		c.ts_control = TCI_TS_ACTIVE | TCI_TS_COUNT | TCI_TS_RESET | TCI_TS_ENABLE |
			       TCI_SET(TS_MODE, TCI_TS_MODE_EXTERNAL) | TCI_SET(TS_PRESCALE, prescale);
	else if (ts_none)
		c.ts_control = TCI_TS_ACTIVE | TCI_TS_COUNT | TCI_TS_ENABLE;

	if (hart < 0) {
		printf("0x%x 0x%x 0x%x 0x%x 0x%x 0x%x\n", c.magic, c.control, c.features,
		       c.ts_control, c.flags, c.harts);
		return 0;
	}
	if ((unsigned int)hart >= c.harts)
		usage("--hart beyond --harts", NULL);
	/* what trace.c adds: Active, the N-Trace format, trTeSrcID + hart */
	printf("0x%x,0x%x,0x%x\n",
	       TCI_ACTIVE | c.control | TCI_SET(TE_FORMAT, TCI_TE_FORMAT_NTRACE),
	       c.features + TCI_SET(TE_F_SRC_ID, hart), c.ts_control);
	return 0;
}
