// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-ntrace dump: print the N-Trace messages of a raw trace, one line per
 * message with its byte offset, and every parse error with its offset.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ntrace/msg.h>

#include "cmd.h"
#include "cmd_opts.h"

static const char dump_help[] =
	"usage: perf-ntrace dump [OPTIONS] TRACE.bin|-\n"
	"Print every N-Trace message of a raw trace (bytes as stored by a RAM sink)\n"
	"with its byte offset and named fields; parse errors are printed with their\n"
	"offset and size, and parsing resumes at the next message.\n\n"
	"options:\n" CODEC_HELP
	"  --wrapped       trace may start mid-message (circular buffer wrapped):\n"
	"                  skip bytes up to the first end of message\n"
	"  --max-msg N     longest message accepted in bytes (default 64)\n"
	"  --addr          also print reconstructed addresses (U-ADDR XOR chain)\n"
	"  --abs-ts        also print absolute timestamps\n"
	"  --stats         print a summary line (messages, errors, bytes)\n"
	"  -h, --help      this help\n"
	"exit status: 0 ok, 1 the trace has errors, 2 usage or I/O error\n";

enum { OPT_WRAPPED = CODEC_OPT__END, OPT_MAX_MSG, OPT_ADDR, OPT_ABS_TS, OPT_STATS };

struct dump_state {
	bool addr, abs_ts;
	uint64_t last_addr, last_ts;
	bool have_addr, hinted;
	unsigned int xlen;
	unsigned int variant;	/* enum ntrace_variant: how TSTAMPs add up */
	uint64_t msgs, errors;
};

static void print_record(struct dump_state *s, const struct ntrace_msg *m)
{
	char line[512];

	ntrace_msg_format(m, line, sizeof(line));
	printf("%08" PRIx64 "  %s", m->offset, line);
	if (m->err) {
		s->errors++;
		printf("\n");
		if (!s->hinted && (m->err == NTRACE_MSG_ERR_FIELD_COUNT ||
				   m->err == NTRACE_MSG_ERR_EMPTY_FIELD)) {
			s->hinted = true;
			fprintf(stderr, "perf-ntrace dump: messages do not match the layout; "
					"check --ts and --src-bits against the encoder setup\n");
		}
		return;
	}
	s->msgs++;
	if (!s->hinted && (m->flags & NTRACE_MSGF_EMPTY_FIELD)) {
		s->hinted = true;
		fprintf(stderr, "perf-ntrace dump: a field of no bits (an encoder quirk, or "
				"--ts and --src-bits unlike the encoder setup)\n");
	}
	if (s->addr && (m->flags & NTRACE_MSGF_ADDR)) {
		if (ntrace_tcode_has_uaddr(m->tcode)) {
			if (s->have_addr) {
				s->last_addr = ntrace_addr_from_uaddr(m->addr, s->last_addr, s->xlen);
				printf("  -> 0x%" PRIx64, s->last_addr);
			} else {
				printf("  -> ? (no sync yet)");
			}
		} else {
			s->last_addr = ntrace_addr_from_faddr(m->addr, s->xlen);
			s->have_addr = true;
			printf("  -> 0x%" PRIx64, s->last_addr);
		}
	}
	if (s->abs_ts && (m->flags & NTRACE_MSGF_TSTAMP))
		printf("  @%" PRIu64, ntrace_tstamp_update_variant(&s->last_ts, m, s->variant));
	printf("\n");
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		CODEC_LONG_OPTIONS,
		{ "wrapped", no_argument, NULL, OPT_WRAPPED },
		{ "max-msg", required_argument, NULL, OPT_MAX_MSG },
		{ "addr", no_argument, NULL, OPT_ADDR },
		{ "abs-ts", no_argument, NULL, OPT_ABS_TS },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ntrace_codec_cfg cfg = { .xlen = 64 };
	struct dump_state s = { 0 };
	static uint8_t buf[1 << 16];
	static struct ntrace_msg out[4096];
	struct ntrace_parser p;
	bool stats = false;
	size_t n, k, i, pos, used;
	uint64_t v, total = 0;
	FILE *f;
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		r = codec_opt("dump", c, optarg, &cfg);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		switch (c) {
		case OPT_WRAPPED:
			cfg.wait_for_eom = true;
			break;
		case OPT_MAX_MSG:
			if (!opt_uint("dump", "max-msg", optarg, 65535, &v) || v < 2)
				return 2;
			cfg.max_msg_bytes = (uint16_t)v;
			break;
		case OPT_ADDR:
			s.addr = true;
			break;
		case OPT_ABS_TS:
			s.abs_ts = true;
			break;
		case OPT_STATS:
			stats = true;
			break;
		case 'h':
			fputs(dump_help, stdout);
			return 0;
		default:
			fputs(dump_help, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "perf-ntrace dump: expected one trace file\n%s", dump_help);
		return 2;
	}
	f = open_in("dump", argv[optind], "rb");
	if (!f)
		return 2;
	s.xlen = cfg.xlen;
	s.variant = cfg.variant;
	ntrace_parser_init(&p, &cfg, 0);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		total += n;
		for (pos = 0; pos < n; pos += used) {
			k = ntrace_parse(&p, buf + pos, n - pos, out, 4096, &used);
			for (i = 0; i < k; i++)
				print_record(&s, &out[i]);
		}
	}
	if (ferror(f)) {
		fprintf(stderr, "perf-ntrace dump: read error on '%s'\n", argv[optind]);
		if (f != stdin)
			fclose(f);
		return 2;
	}
	if (f != stdin)
		fclose(f);
	k = ntrace_parse_finish(&p, out);
	for (i = 0; i < k; i++)
		print_record(&s, &out[i]);
	if (stats)
		printf("# %" PRIu64 " messages, %" PRIu64 " errors, %" PRIu64 " bytes\n", s.msgs,
		       s.errors, total);
	return s.errors ? 1 : 0;
}
