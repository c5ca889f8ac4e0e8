// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-ntrace encode: run the N-Trace encoder model on retired instructions
 * and write the raw N-Trace bytes, or the messages as text with --text. The
 * instructions come from the ingress text form (one record per line), a PC
 * list plus program images (--pcs), or a seed-002 tandem-verification trace
 * (--tv).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ntrace/encoder.h>
#include <ntrace/ingress_build.h>

#include "cmd.h"
#include "cmd_opts.h"
#include "ingress_load.h"

static const char encode_help[] =
	"usage: perf-ntrace encode [OPTIONS] [-o OUT.bin] INGRESS.txt|-\n"
	"       perf-ntrace encode [OPTIONS] --pcs PCS --elf PROG[@ADDR]|--bin RAW@ADDR...\n"
	"       perf-ntrace encode [OPTIONS] --tv TRACE.tv\n"
	"Run the N-Trace encoder model on retired instructions and write the\n"
	"N-Trace byte stream (default: stdout).\n\n"
	"Ingress text, one record per line ('#' comments):\n"
	"  ADDR SIZE ITYPE [PRIV [CONTEXT [TSTAMP [FLAGS]]]]\n"
	"  SIZE 2/4 (0 = trap-only record), ITYPE 0..6 or 8..15 (ingress.h),\n"
	"  PRIV 0=U 1=S 3=M 4=VU 5=VS, FLAGS a number or start|stop|cause|seq\n\n"
	"other inputs (size and itype derived from the instructions):\n"
	"  --pcs F         retired PCs: a ground-truth .pcs file (tests/gt), or text\n"
	"                  with one hex PC per line and 'trap EPC CAUSE' lines for\n"
	"                  traps; needs the program images:\n"
	"  --elf F[@ADDR]  RISC-V ELF64 executable or shared object (at ADDR)\n"
	"  --bin F@ADDR    raw binary code (bare metal) loaded at ADDR\n"
	"  --zcmp, --zcmt  the code uses Zcmp / Zcmt;  --jvt ADDR  Zcmt table base\n"
	"  --priv P        privilege of every PC-list record: u, s, m, vu, vs (u)\n"
	"  --strict        reject a PC list with a successor that no instruction\n"
	"                  explains (default: warn, encode it as an exception)\n"
	"  --tv F          seed-002 tandem-verification trace (Bluespec trace\n"
	"                  protocol) with traps; --priv is the privilege until the\n"
	"                  trace sets one (default m)\n\n"
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
	"  -h, --help      this help\n"
	"exit status: 0 encoded, 2 usage, input, image or I/O error\n";

enum {
	OPT_TEXT = CODEC_OPT__END, OPT_MODE, OPT_ITYPE_BITS, OPT_ICNT_BITS, OPT_HIST_BITS,
	OPT_HREPEAT_BITS, OPT_BCNT_BITS, OPT_IRET, OPT_RDEPTH, OPT_RBITS, OPT_SEQ, OPT_ALLJ,
	OPT_RHIST, OPT_RBRANCH, OPT_CONTEXT, OPT_BTYPE1, OPT_ICNT_SYNC, OPT_HTM_IB,
	OPT_SYNC_MODE, OPT_SYNC_MAX, OPT_START_SYNC, OPT_STOP_EVCODE, OPT_SRC_ID,
	OPT_PCS, OPT_TV, OPT_ELF, OPT_BIN, OPT_ZCMP, OPT_ZCMT, OPT_JVT, OPT_PRIV, OPT_STRICT,
};

#define MAX_IMAGES 64

/* Where the retired instructions come from, and how to read them. */
struct encode_input {
	const char *text, *pcs, *tv;
	const char *imgs[MAX_IMAGES];
	bool is_bin[MAX_IMAGES];
	unsigned int nimg;
	struct ntrace_isa_cfg isa;
	struct ntrace_ingress_opts io;
	bool has_priv, strict;
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

/* Input options; 1 if applied, -1 on a bad value, 0 if not one of them. */
static int input_opt(int c, const char *arg, struct encode_input *in)
{
	static const char *const privs[6] = { "u", "s", NULL, "m", "vu", "vs" };
	unsigned int e;

	switch (c) {
	case OPT_PCS:
		in->pcs = arg;
		return 1;
	case OPT_TV:
		in->tv = arg;
		return 1;
	case OPT_ELF:
	case OPT_BIN:
		if (in->nimg == MAX_IMAGES) {
			fprintf(stderr, "perf-ntrace encode: more than %d images\n", MAX_IMAGES);
			return -1;
		}
		if (c == OPT_BIN && !strchr(arg, '@')) {
			fprintf(stderr, "perf-ntrace encode: --bin needs FILE@ADDR\n");
			return -1;
		}
		in->is_bin[in->nimg] = c == OPT_BIN;
		in->imgs[in->nimg++] = arg;
		return 1;
	case OPT_ZCMP:
		in->isa.ext |= NTRACE_ISA_ZCMP;
		return 1;
	case OPT_ZCMT:
		in->isa.ext |= NTRACE_ISA_ZCMT;
		return 1;
	case OPT_JVT:
		return opt_uint("encode", "jvt", arg, UINT64_MAX, &in->isa.jvt_base) ? 1 : -1;
	case OPT_PRIV:
		if (!opt_enum("encode", "priv", arg, privs, 6, &e))
			return -1;
		if (e == 2) {
			fprintf(stderr, "perf-ntrace encode: --priv 2 is reserved\n");
			return -1;
		}
		in->io.priv = (uint8_t)e;
		in->has_priv = true;
		return 1;
	case OPT_STRICT:
		in->strict = true;
		return 1;
	}
	return 0;
}

/* PC list + images or a tandem-verification trace -> records in v. */
static int load_records(struct encode_input *in, struct ntrace_insn_vec *v)
{
	struct ntrace_images *img;
	char spec[4200];
	size_t unmarked;
	unsigned int i;
	int rc;

	if (in->tv) {
		if (!in->has_priv)
			in->io.priv = NTRACE_PRIV_M;
		return ingress_load_tv(in->tv, &in->isa, &in->io, v);
	}
	img = ntrace_images_new(&in->isa);
	if (!img) {
		fprintf(stderr, "perf-ntrace encode: out of memory\n");
		return -1;
	}
	for (i = 0; i < in->nimg; i++) {
		snprintf(spec, sizeof(spec), "%s%s", in->is_bin[i] ? "raw:" : "", in->imgs[i]);
		if (ntrace_images_add_spec(img, spec)) {
			fprintf(stderr, "perf-ntrace encode: %s\n", ntrace_images_errmsg(img));
			ntrace_images_free(img);
			return -1;
		}
	}
	rc = ingress_load_pcs(in->pcs, img, &in->io, in->strict, v, &unmarked);
	ntrace_images_free(img);
	return rc;
}

/* Check that exactly one input was named and the options fit it. */
static int check_input(const struct encode_input *in)
{
	int n = !!in->text + !!in->pcs + !!in->tv;

	if (n != 1) {
		fprintf(stderr, "perf-ntrace encode: %s\n%s",
			n ? "give only one of INGRESS.txt, --pcs and --tv"
			  : "expected one ingress file, --pcs or --tv", encode_help);
		return -1;
	}
	if (in->pcs && !in->nimg) {
		fprintf(stderr, "perf-ntrace encode: --pcs needs the program images: give --elf "
				"or --bin\n");
		return -1;
	}
	if (!in->pcs && in->nimg) {
		fprintf(stderr, "perf-ntrace encode: --elf/--bin only apply to --pcs\n");
		return -1;
	}
	if (in->text && (in->has_priv || in->strict)) {
		fprintf(stderr, "perf-ntrace encode: --priv/--strict do not apply to ingress "
				"text (it has a PRIV column)\n");
		return -1;
	}
	return 0;
}

/* Encode the ingress text form, streaming. Returns 0 or 2. */
static int encode_text(struct ntrace_encoder *enc, const char *path)
{
	struct ntrace_insn batch[1024];
	const char *err;
	char line[1024];
	unsigned long lineno = 0;
	size_t nb = 0;
	FILE *in;
	int r, rc = 0;

	in = open_in("encode", path, "r");
	if (!in)
		return 2;
	while (fgets(line, sizeof(line), in)) {
		lineno++;
		r = ntrace_insn_parse_text(line, &batch[nb], &err);
		if (r < 0) {
			fprintf(stderr, "perf-ntrace encode: %s:%lu: %s\n", path, lineno, err);
			rc = 2;
			break;
		}
		if (r > 0 && ++nb == sizeof(batch) / sizeof(batch[0])) {
			if (ntrace_encoder_put(enc, batch, nb)) {
				fprintf(stderr, "perf-ntrace encode: write error\n");
				rc = 2;
				break;
			}
			nb = 0;
		}
	}
	if (!rc && ferror(in)) {
		fprintf(stderr, "perf-ntrace encode: read error on '%s'\n", path);
		rc = 2;
	}
	if (!rc && (ntrace_encoder_put(enc, batch, nb) || ntrace_encoder_finish(enc))) {
		fprintf(stderr, "perf-ntrace encode: write error\n");
		rc = 2;
	}
	if (in != stdin)
		fclose(in);
	return rc;
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
		{ "pcs", required_argument, NULL, OPT_PCS },
		{ "tv", required_argument, NULL, OPT_TV },
		{ "elf", required_argument, NULL, OPT_ELF },
		{ "bin", required_argument, NULL, OPT_BIN },
		{ "zcmp", no_argument, NULL, OPT_ZCMP },
		{ "zcmt", no_argument, NULL, OPT_ZCMT },
		{ "jvt", required_argument, NULL, OPT_JVT },
		{ "priv", required_argument, NULL, OPT_PRIV },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct encode_input in = { .isa = NTRACE_ISA_CFG_RV64GC };
	struct ntrace_insn_vec recs = { 0 };
	struct ntrace_enc_cfg cfg;
	struct ntrace_byte_sink sink = { 0 };
	struct ntrace_encoder enc;
	const char *out_path = NULL, *err;
	bool text = false;
	FILE *out = stdout;
	int c, r, rc = 0;

	ntrace_enc_cfg_default(&cfg);
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		r = codec_opt("encode", c, optarg, &cfg.codec);
		if (!r)
			r = apply(c, optarg, &cfg);
		if (!r)
			r = input_opt(c, optarg, &in);
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
	if (optind < argc - 1) {
		fprintf(stderr, "perf-ntrace encode: expected one ingress file\n%s", encode_help);
		return 2;
	}
	if (optind == argc - 1)
		in.text = argv[optind];
	if (check_input(&in))
		return 2;
	if (ntrace_enc_cfg_check(&cfg, &err)) {
		fprintf(stderr, "perf-ntrace encode: bad configuration: %s\n", err);
		return 2;
	}
	/* read PC lists and tandem traces before creating the output */
	if (!in.text && load_records(&in, &recs)) {
		ntrace_insn_vec_free(&recs);
		return 2;
	}
	if (out_path) {
		out = fopen(out_path, "wb");
		if (!out) {
			fprintf(stderr, "perf-ntrace encode: cannot create '%s': %s\n", out_path,
				strerror(errno));
			ntrace_insn_vec_free(&recs);
			return 2;
		}
	}
	sink.codec = &cfg.codec;
	sink.out = text ? NULL : out;
	if (text) {
		sink.next = print_msg;
		sink.next_ctx = out;
	}
	ntrace_encoder_init(&enc, &cfg, ntrace_byte_sink_emit, &sink, NULL);
	if (in.text) {
		rc = encode_text(&enc, in.text);
	} else if (ntrace_encoder_put(&enc, recs.v, recs.n) || ntrace_encoder_finish(&enc)) {
		fprintf(stderr, "perf-ntrace encode: write error\n");
		rc = 2;
	}
	ntrace_insn_vec_free(&recs);
	if ((out_path && fclose(out)) || (!out_path && fflush(out))) {
		fprintf(stderr, "perf-ntrace encode: write error\n");
		rc = 2;
	}
	return rc;
}
