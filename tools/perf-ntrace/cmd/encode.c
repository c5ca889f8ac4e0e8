// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-ntrace encode: run the N-Trace encoder model on a text ingress trace
 * (one retired instruction per line, see --help) and write the raw N-Trace
 * bytes, or the messages as text with --text.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ntrace/encoder.h>

#include "cmd.h"
#include "cmd_opts.h"

static const char encode_help[] =
	"usage: perf-ntrace encode [OPTIONS] [-o OUT.bin] INGRESS.txt|-\n"
	"Run the N-Trace encoder model on retired-instruction records and write the\n"
	"N-Trace byte stream (default: stdout).\n\n"
	"Ingress text, one record per line ('#' comments):\n"
	"  ADDR SIZE ITYPE [PRIV [CONTEXT [TSTAMP [FLAGS]]]]\n"
	"  SIZE 2/4 (0 = trap-only record), ITYPE 0..6 or 8..15 (ingress.h),\n"
	"  PRIV 0=U 1=S 3=M 4=VU 5=VS, FLAGS a number or start|stop|cause|seq\n\n"
	"options (Trace Control Interface names in brackets):\n"
	"  -o, --output F  write bytes to F instead of stdout\n"
	"  --text          write one message per line as text instead of bytes\n"
	"  --mode M        btm or htm [trTeInstMode 3/6] (default btm)\n"
	"  --itype-bits N  ingress itype width, 3 or 4 (default 4)\n"
	"  --icnt-bits N   I-CNT counter width incl. overflow bit, 3..32 (default 16)\n"
	"  --hist-bits N   HIST register width incl. stop bit, 2..32 (default 32)\n"
	"  --hrepeat-bits N  HREPEAT counter width, 1..18 (default 18)\n"
	"  --bcnt-bits N   B-CNT counter width, 1..18 (default 18)\n"
	"  --implicit-return M  off|count|partial|full [trTeInstImplicitReturnMode]\n"
	"  --return-depth N     return stack depth / call counter limit, 1..32 (16)\n"
	"  --return-addr-bits N low address bits kept in partial mode (16)\n"
	"  --seq-jump      sequential jump optimisation [trTeInstEnSequentialJump]\n"
	"  --all-jumps     trace direct jumps too [trTeInstEnAllJumps]\n"
	"  --repeated-history  ResourceFull RCODE=2 [trTeInstEnRepeatedHistory]\n"
	"  --repeat-branch RepeatBranch messages for identical branch messages\n"
	"  --context       Ownership messages [trTeContext]\n"
	"  --trap-btype1   report traps as B-TYPE=1 instead of 2/3\n"
	"  --icnt-full-sync  BTM: SYNC=4 message when I-CNT is full\n"
	"  --htm-ib-no-hist  HTM: IndirectBranch when HIST is empty\n"
	"  --sync-mode M   off|msgs|cycles|hwords [trTeInstSyncMode] (default off)\n"
	"  --sync-max N    sync period 2^(N+4) units, 0..15 [trTeInstSyncMax]\n"
	"  --start-sync N  SYNC code at trace start, 0..15 (default 5)\n"
	"  --stop-evcode N EVCODE at trace stop/end, 0..15 (default 4)\n"
	"  --src-id N      SRC value [trTeSrcID]\n" CODEC_HELP
	"  -h, --help      this help\n";

enum {
	OPT_TEXT = CODEC_OPT__END, OPT_MODE, OPT_ITYPE_BITS, OPT_ICNT_BITS, OPT_HIST_BITS,
	OPT_HREPEAT_BITS, OPT_BCNT_BITS, OPT_IRET, OPT_RDEPTH, OPT_RBITS, OPT_SEQ, OPT_ALLJ,
	OPT_RHIST, OPT_RBRANCH, OPT_CONTEXT, OPT_BTYPE1, OPT_ICNT_SYNC, OPT_HTM_IB,
	OPT_SYNC_MODE, OPT_SYNC_MAX, OPT_START_SYNC, OPT_STOP_EVCODE, OPT_SRC_ID,
};

static int print_msg(void *ctx, const struct ntrace_msg *m)
{
	char line[512];

	ntrace_msg_format(m, line, sizeof(line));
	return fprintf(ctx, "%08" PRIx64 "  %s\n", m->offset, line) < 0 ? -1 : 0;
}

static int apply(int c, const char *arg, struct ntrace_enc_cfg *cfg)
{
	static const char *const modes[8] = { [3] = "btm", [6] = "htm" };
	static const char *const irets[] = { "off", "count", "partial", "full" };
	static const char *const syncs[] = { "off", "msgs", "cycles", "hwords" };
	unsigned int e;
	uint64_t v;

#define NUM(name, max, field)                                              \
	do {                                                               \
		if (!opt_uint("encode", name, arg, max, &v))               \
			return -1;                                         \
		cfg->field = (__typeof__(cfg->field))v;                    \
	} while (0)

	switch (c) {
	case OPT_MODE:
		if (!opt_enum("encode", "mode", arg, modes, 8, &e))
			return -1;
		if (e != 3 && e != 6) {
			fprintf(stderr, "perf-ntrace encode: --mode must be btm or htm\n");
			return -1;
		}
		cfg->mode = (uint8_t)e;
		break;
	case OPT_ITYPE_BITS: NUM("itype-bits", 4, itype_bits); break;
	case OPT_ICNT_BITS: NUM("icnt-bits", 32, icnt_bits); break;
	case OPT_HIST_BITS: NUM("hist-bits", 32, hist_bits); break;
	case OPT_HREPEAT_BITS: NUM("hrepeat-bits", 18, hrepeat_bits); break;
	case OPT_BCNT_BITS: NUM("bcnt-bits", 18, bcnt_bits); break;
	case OPT_RDEPTH: NUM("return-depth", 32, return_depth); break;
	case OPT_RBITS: NUM("return-addr-bits", 63, return_addr_bits); break;
	case OPT_SYNC_MAX: NUM("sync-max", 15, sync_max); break;
	case OPT_START_SYNC: NUM("start-sync", 15, start_sync); break;
	case OPT_STOP_EVCODE: NUM("stop-evcode", 15, stop_evcode); break;
	case OPT_SRC_ID: NUM("src-id", 4095, src_id); break;
	case OPT_IRET:
		if (!opt_enum("encode", "implicit-return", arg, irets, 4, &e))
			return -1;
		cfg->implicit_return = (uint8_t)e;
		break;
	case OPT_SYNC_MODE:
		if (!opt_enum("encode", "sync-mode", arg, syncs, 4, &e))
			return -1;
		cfg->sync_mode = (uint8_t)e;
		break;
	case OPT_SEQ: cfg->seq_jump = true; break;
	case OPT_ALLJ: cfg->all_jumps = true; break;
	case OPT_RHIST: cfg->repeated_history = true; break;
	case OPT_RBRANCH: cfg->repeat_branch = true; break;
	case OPT_CONTEXT: cfg->context = true; break;
	case OPT_BTYPE1: cfg->trap_btype1 = true; break;
	case OPT_ICNT_SYNC: cfg->icnt_full_sync = true; break;
	case OPT_HTM_IB: cfg->htm_ib_no_hist = true; break;
	default:
		return 0;
	}
#undef NUM
	return 1;
}

int cmd_encode(int argc, char **argv)
{
	static const struct option opts[] = {
		CODEC_LONG_OPTIONS,
		{ "output", required_argument, NULL, 'o' },
		{ "text", no_argument, NULL, OPT_TEXT },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "itype-bits", required_argument, NULL, OPT_ITYPE_BITS },
		{ "icnt-bits", required_argument, NULL, OPT_ICNT_BITS },
		{ "hist-bits", required_argument, NULL, OPT_HIST_BITS },
		{ "hrepeat-bits", required_argument, NULL, OPT_HREPEAT_BITS },
		{ "bcnt-bits", required_argument, NULL, OPT_BCNT_BITS },
		{ "implicit-return", required_argument, NULL, OPT_IRET },
		{ "return-depth", required_argument, NULL, OPT_RDEPTH },
		{ "return-addr-bits", required_argument, NULL, OPT_RBITS },
		{ "seq-jump", no_argument, NULL, OPT_SEQ },
		{ "all-jumps", no_argument, NULL, OPT_ALLJ },
		{ "repeated-history", no_argument, NULL, OPT_RHIST },
		{ "repeat-branch", no_argument, NULL, OPT_RBRANCH },
		{ "context", no_argument, NULL, OPT_CONTEXT },
		{ "trap-btype1", no_argument, NULL, OPT_BTYPE1 },
		{ "icnt-full-sync", no_argument, NULL, OPT_ICNT_SYNC },
		{ "htm-ib-no-hist", no_argument, NULL, OPT_HTM_IB },
		{ "sync-mode", required_argument, NULL, OPT_SYNC_MODE },
		{ "sync-max", required_argument, NULL, OPT_SYNC_MAX },
		{ "start-sync", required_argument, NULL, OPT_START_SYNC },
		{ "stop-evcode", required_argument, NULL, OPT_STOP_EVCODE },
		{ "src-id", required_argument, NULL, OPT_SRC_ID },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ntrace_enc_cfg cfg;
	struct ntrace_byte_sink sink = { 0 };
	struct ntrace_encoder enc;
	struct ntrace_insn batch[1024];
	const char *out_path = NULL, *err;
	bool text = false;
	char line[1024];
	unsigned long lineno = 0;
	size_t nb = 0;
	FILE *in, *out = stdout;
	int c, r, rc = 0;

	ntrace_enc_cfg_default(&cfg);
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		r = codec_opt("encode", c, optarg, &cfg.codec);
		if (!r)
			r = apply(c, optarg, &cfg);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		switch (c) {
		case 'o':
			out_path = optarg;
			break;
		case OPT_TEXT:
			text = true;
			break;
		case 'h':
			fputs(encode_help, stdout);
			return 0;
		default:
			fputs(encode_help, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "perf-ntrace encode: expected one ingress file\n%s", encode_help);
		return 2;
	}
	err = ntrace_enc_cfg_check(&cfg);
	if (err) {
		fprintf(stderr, "perf-ntrace encode: bad configuration: %s\n", err);
		return 2;
	}
	in = open_in("encode", argv[optind], "r");
	if (!in)
		return 2;
	if (out_path) {
		out = fopen(out_path, "wb");
		if (!out) {
			perror(out_path);
			if (in != stdin)
				fclose(in);
			return 2;
		}
	}
	sink.codec = &cfg.codec;
	sink.out = text ? NULL : out;
	if (text) {
		sink.next = print_msg;
		sink.next_ctx = out;
	}
	ntrace_encoder_init(&enc, &cfg, ntrace_byte_sink_emit, &sink);
	while (fgets(line, sizeof(line), in)) {
		lineno++;
		r = ntrace_insn_parse_text(line, &batch[nb], &err);
		if (r < 0) {
			fprintf(stderr, "perf-ntrace encode: %s:%lu: %s\n", argv[optind], lineno,
				err);
			rc = 2;
			break;
		}
		if (r > 0 && ++nb == sizeof(batch) / sizeof(batch[0])) {
			if (ntrace_encoder_put(&enc, batch, nb)) {
				rc = 2;
				break;
			}
			nb = 0;
		}
	}
	if (!rc && ferror(in)) {
		fprintf(stderr, "perf-ntrace encode: read error on '%s'\n", argv[optind]);
		rc = 2;
	}
	if (!rc && (ntrace_encoder_put(&enc, batch, nb) || ntrace_encoder_finish(&enc))) {
		fprintf(stderr, "perf-ntrace encode: write error\n");
		rc = 2;
	}
	if (in != stdin)
		fclose(in);
	if ((out_path && fclose(out)) || (!out_path && fflush(out))) {
		fprintf(stderr, "perf-ntrace encode: write error\n");
		rc = 2;
	}
	return rc;
}
