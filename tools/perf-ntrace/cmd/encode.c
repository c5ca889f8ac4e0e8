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
	IMG_HELP
	"  --priv P        privilege of every PC-list record: u, s, m, vu, vs (u)\n"
	"  --strict        reject a PC list with a successor that no instruction\n"
	"                  explains (default: warn, encode it as an exception)\n"
	"  --tv F          seed-002 tandem-verification trace (Bluespec trace\n"
	"                  protocol) with traps; --priv is the privilege until the\n"
	"                  trace sets one (default m)\n\n"
	"options (Trace Control Interface names in brackets):\n"
	"  -o, --output F  write bytes to F instead of stdout\n"
	"  --text          write one message per line as text instead of bytes\n"
	ENC_HELP
	"  defaults: --implicit-return off, --return-depth 16, --icnt-bits 16\n"
	"  -h, --help      this help\n"
	"exit status: 0 encoded, 2 usage, input, image or I/O error\n";

enum {
	OPT_TEXT = IMG_OPT__END, OPT_PCS, OPT_TV, OPT_PRIV, OPT_STRICT,
};

/* Where the retired instructions come from, and how to read them. */
struct encode_input {
	const char *text, *pcs, *tv;
	struct img_opts img;
	struct ntrace_ingress_opts io;
	bool has_priv, strict;
};

static int print_msg(void *ctx, const struct ntrace_msg *m)
{
	char line[512];

	ntrace_msg_format(m, line, sizeof(line));
	return fprintf(ctx, "%08" PRIx64 "  %s\n", m->offset, line) < 0 ? -1 : 0;
}

/* Input options; 1 if applied, -1 on a bad value, 0 if not one of them. */
static int input_opt(int c, const char *arg, struct encode_input *in)
{
	static const char *const privs[6] = { "u", "s", NULL, "m", "vu", "vs" };
	unsigned int e;

	int r = img_opt("encode", c, arg, &in->img);

	if (r)
		return r;
	switch (c) {
	case OPT_PCS:
		in->pcs = arg;
		return 1;
	case OPT_TV:
		in->tv = arg;
		return 1;
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
static int load_records(struct encode_input *in, struct ntrace_codec_cfg *codec,
			struct ntrace_insn_vec *v)
{
	struct ntrace_images *img;
	size_t unmarked;
	int rc;

	if (in->tv) {
		if (!in->has_priv)
			in->io.priv = NTRACE_PRIV_M;
		return ingress_load_tv(in->tv, &in->img.isa, &in->io, v);
	}
	img = img_opts_load("encode", &in->img, codec);
	if (!img)
		return -1;
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
	if (in->pcs && !in->img.n) {
		fprintf(stderr, "perf-ntrace encode: --pcs needs the program images: give --elf "
				"or --bin\n");
		return -1;
	}
	if (!in->pcs && in->img.n) {
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
		ENC_LONG_OPTIONS,
		IMG_LONG_OPTIONS,
		{ "output", required_argument, NULL, 'o' },
		{ "text", no_argument, NULL, OPT_TEXT },
		{ "pcs", required_argument, NULL, OPT_PCS },
		{ "tv", required_argument, NULL, OPT_TV },
		{ "priv", required_argument, NULL, OPT_PRIV },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct encode_input in = { 0 };
	struct ntrace_insn_vec recs = { 0 };
	struct ntrace_enc_cfg cfg;
	struct ntrace_byte_sink sink = { 0 };
	struct ntrace_encoder enc;
	const char *out_path = NULL, *err;
	bool text = false;
	FILE *out = stdout;
	int c, r, rc = 0;

	ntrace_enc_cfg_default(&cfg);
	img_opts_init(&in.img);
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		r = enc_opt("encode", c, optarg, &cfg);
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
	if (!in.text && load_records(&in, &cfg.codec, &recs)) {
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
