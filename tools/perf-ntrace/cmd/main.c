// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-ntrace: entry point and subcommand dispatch.
 *
 * A subcommand is a function "int cmd_NAME(int argc, char **argv)" in its own
 * cmd/NAME.c; argv[0] is the subcommand name. Adding one is one line in the
 * table below. Entries are weak references, so a subcommand whose file is not
 * there yet is reported as unavailable instead of breaking the link.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

struct subcmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct subcmd subcmds[] = {
	{ "dump", cmd_dump, "print the N-Trace messages of a raw trace, one per line" },
	{ "encode", cmd_encode, "run the encoder model on retired instructions (text, PC list, tandem trace)" },
	{ "decode", cmd_decode, "decode N-Trace messages with program images into instruction flow" },
	{ "info", cmd_info, "print what the ntrace driver discovered (sysfs)" },
	{ "disasm", cmd_disasm, "append the RISC-V disassembly to perf script's insn: bytes" },
	{ "trigger", cmd_trigger, "record a program in a ring and keep its trace when it reaches a function" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: perf-ntrace COMMAND [OPTIONS] [ARGS]\n"
		   "       perf-ntrace COMMAND --help\n\ncommands:\n");
	for (i = 0; i < sizeof(subcmds) / sizeof(subcmds[0]); i++)
		if (subcmds[i].fn)
			fprintf(f, "  %-10s %s\n", subcmds[i].name, subcmds[i].summary);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(subcmds) / sizeof(subcmds[0]); i++) {
		if (strcmp(argv[1], subcmds[i].name))
			continue;
		if (!subcmds[i].fn) {
			fprintf(stderr, "perf-ntrace: '%s' is not built into this binary\n",
				argv[1]);
			return 2;
		}
		return subcmds[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "perf-ntrace: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
