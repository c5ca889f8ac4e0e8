// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-ntrace decode: a raw N-Trace byte stream + program images -> the
 * retired instruction flow (PC list, branch records, statistics or the
 * seed-002 tandem-verification partial trace).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <ntrace/decoder.h>
#include "perfdata.h"

#include "cmd.h"
#include "cmd_opts.h"

static const char decode_help[] =
	"usage: perf-ntrace decode [OPTIONS] --elf PROG.elf [--elf LIB.so@ADDR]... TRACE.bin|-\n"
	"       perf-ntrace decode [OPTIONS] [--root DIR | --elf-dir DIR] perf.data\n"
	"Decode a raw N-Trace byte stream (no header) into the retired instruction flow.\n"
	"The encoder settings below must match the ones the trace was recorded with.\n"
	"A perf.data file (perf record -e ntrace//) is recognised by its magic: the\n"
	"encoder settings come from its AUXTRACE_INFO, the program images from its\n"
	"MMAP records (or only from --elf/--bin when given), each AUX chunk is decoded\n"
	"in order and decoding restarts where the AUX records report lost data.\n\n"
	"perf.data:\n"
	"  --perf-data     the input is a perf.data file (default: by its magic)\n"
	"  --root DIR      find mapped files under DIR (a copy of the traced system)\n"
	"  --elf-dir DIR   find mapped files by their base name in DIR\n"
	"  --cpu N         decode only the AUX data of CPU N\n"
	"  --vdso FILE     the guest kernel's vdso.so, for code run in the [vdso] mapping\n"
	"  --pid PID       task mode: decode only process PID\n"
	"  --show-task     task mode, --format=pc: prefix each line with \"CPU PID TID TIME \"\n"
	"  --no-task-mode  decode per AUX stream with one image set for every process\n"
	"  In task mode (per-CPU AUX data whose AUX records name cpu, tid and time,\n"
	"  e.g. perf record -a or -C) each AUX record is one task's trace: records are\n"
	"  decoded in time order across CPUs with the images of their process;\n"
	"  --format=stats adds a \"process PID COMM ...\" line per process.\n"
	"images:\n"
	"  --elf FILE[@ADDR]   RISC-V ELF64 executable or shared object (at ADDR)\n"
	"  --bin FILE@ADDR     raw binary code (bare metal) loaded at ADDR\n"
	"  --zcmp, --zcmt      the code uses Zcmp / Zcmt;  --jvt ADDR  Zcmt table base\n"
	"output:\n"
	"  --format F      pc (default): one instruction address per line (hex)\n"
	"                  branches: \"FROM TO KIND TSTAMP\" per control transfer\n"
	"                  stats: counts;  tv: seed-002 tandem-verification partial trace\n"
	"  -o, --output FILE   write there instead of stdout\n"
	"  --symbols       branches: append \"FROM-SYM+OFF -> TO-SYM+OFF\"\n"
	"  -q, --quiet     no warnings on stderr;  --max-warnings N  (default 20)\n"
	"encoder settings:\n"
	"  --mode M        btm or htm [trTeInstMode 3/6] (default btm)\n"
	"  --implicit-return M  off|count|partial|full [trTeInstImplicitReturnMode]\n"
	"                  (default full: return-stack decoding; the stack depth need\n"
	"                  not be known, --return-depth is accepted for symmetry)\n"
	"  --return-depth N, --return-addr-bits N, --repeated-history, --repeat-branch\n"
	"                  accepted for symmetry with encode; the decoder handles them\n"
	"                  from the messages alone\n"
	"  --itype-bits N  ingress itype width 3 or 4 (3 disables implicit return)\n"
	"  --seq-jump      sequential jump optimisation [trTeInstEnSequentialJump]\n"
	"  --all-jumps     direct jumps are traced too [trTeInstEnAllJumps]\n"
	"  --icnt-bits N   I-CNT counter width; larger I-CNT fields are errors (22)\n"
	"  --hist-bits N, --hrepeat-bits N (18), --bcnt-bits N (18)  field widths\n"
	"  --src N|all     decode only messages with this SRC (default all: each\n"
	"                  source is decoded with its own state, output interleaved)\n"
	"  --wrapped       trace may start mid-message (circular buffer wrapped)\n"
	CODEC_HELP
	"exit status: 0 decoded (warnings may have been printed), 1 nothing decoded,\n"
	"2 usage, image or I/O error\n";

enum {
	OPT_ELF = CODEC_OPT__END, OPT_BIN, OPT_ZCMP, OPT_ZCMT, OPT_JVT, OPT_FORMAT, OPT_MAXW,
	OPT_MODE, OPT_IRET, OPT_RDEPTH, OPT_RBITS, OPT_RHIST, OPT_RBRANCH, OPT_ITYPE_BITS,
	OPT_SEQ, OPT_ALLJ, OPT_ICNT_BITS, OPT_HIST_BITS, OPT_HREPEAT_BITS, OPT_BCNT_BITS,
	OPT_SRC, OPT_WRAPPED, OPT_SYMBOLS, OPT_PERF_DATA, OPT_ROOT, OPT_ELF_DIR, OPT_CPU,
	OPT_VDSO, OPT_PID, OPT_SHOW_TASK, OPT_NO_TASK,
};

/* Task mode: one sink per image set (a sink reads symbols from its set). */
struct task_sink {
	struct ntrace_images *img;
	struct ntrace_sink *sink;
};

struct decode_ctx {
	struct ntrace_sink *sink;
	FILE *out;
	bool quiet, stats_only, prefix_src;
	unsigned int max_warn, nwarn;
	uint64_t errors;
	/* task mode */
	enum ntrace_sink_format fmt;
	bool symbols, show_task;
	struct ntrace_decoder *dec;	/* the decoder being fed */
	struct ntrace_pd_chunk chunk;	/* the record being decoded */
	struct task_sink *sinks;
	size_t nsinks;
	struct ntrace_sink *first;	/* the sink of the caller's images */
	int werr;			/* output failed (2: and that was said) */
};

static int pc_prefixed(void *ctx, const uint64_t *pcs, size_t n)
{
	struct decode_ctx *c = ctx;
	size_t i;

	for (i = 0; i < n; i++)
		if (fprintf(c->out, "%d %u %u %" PRIu64 " 0x%" PRIx64 "\n", c->chunk.cpu,
			    c->chunk.pid, c->chunk.tid, c->chunk.time, pcs[i]) < 0)
			return NTRACE_EWRITE;
	return 0;
}

static int on_runs(void *ctx, const struct ntrace_dec_run *r, size_t n)
{
	struct decode_ctx *c = ctx;
	size_t i;
	int rc;

	if (!c->show_task || !c->chunk.task)
		return ntrace_sink_runs(c->sink, r, n);
	for (i = 0; i < n; i++) {
		rc = r[i].ninsn ? ntrace_decoder_run_pcs(c->dec, &r[i], pc_prefixed, c) : 0;
		if (rc) {
			c->werr = 1;
			return rc;
		}
	}
	return 0;
}

static int on_event(void *ctx, const struct ntrace_dec_event *ev)
{
	struct decode_ctx *c = ctx;

	if (ev->type == NTRACE_DEV_ERROR || ev->type == NTRACE_DEV_LOST)
		c->errors++;
	if (ev->type != NTRACE_DEV_ERROR && ev->type != NTRACE_DEV_WARN &&
	    ev->type != NTRACE_DEV_LOST)
		return 0;
	if (c->quiet)
		return 0;
	if (c->nwarn++ < c->max_warn)
		fprintf(stderr, "perf-ntrace decode: %s at offset %" PRIu64 " (src %u): %s\n",
			ntrace_dec_ev_name(ev->type), ev->offset, ev->src, ev->text);
	else if (c->nwarn == c->max_warn + 1)
		fprintf(stderr, "perf-ntrace decode: more problems follow (see --format=stats)\n");
	return 0;
}

static int print_stats(FILE *f, const struct ntrace_dec_stats *s)
{
	unsigned int i;

	fprintf(f, "bytes: %" PRIu64 "\nmessages: %" PRIu64 "\ninstructions: %" PRIu64
		"\nruns: %" PRIu64 "\ntaken: %" PRIu64 "\nindirect: %" PRIu64
		"\nimplicit_returns: %" PRIu64 "\ntraps: %" PRIu64 "\nsyncs: %" PRIu64
		"\nerrors: %" PRIu64 "\nparse_errors: %" PRIu64 "\nskipped: %" PRIu64
		"\nlost: %" PRIu64 "\n", s->bytes, s->messages, s->insns, s->runs, s->taken,
		s->indirect, s->implicit_returns, s->traps, s->syncs, s->errors,
		s->parse_errors, s->skipped, s->lost);
	if (s->insns)
		fprintf(f, "bits_per_instruction: %.4f\n", 8.0 * (double)s->bytes / (double)s->insns);
	for (i = 0; i < 64; i++)
		if (s->tcode[i])
			fprintf(f, "tcode.%s(%u): %" PRIu64 "\n", ntrace_tcode_name(i), i, s->tcode[i]);
	return ferror(f) ? -1 : 0;
}

static void pd_on_decoder(void *ctx, struct ntrace_decoder *d)
{
	struct decode_ctx *c = ctx;

	c->dec = d;
	ntrace_sink_set_decoder(c->sink, d);
}

/* Flush sink s; a failure is said once, with the sink's reason. */
static int sink_flush(struct decode_ctx *c, struct ntrace_sink *s)
{
	if (!ntrace_sink_flush(s))
		return 0;
	if (c->werr != 2)
		fprintf(stderr, "perf-ntrace decode: %s\n", ntrace_sink_errmsg(s));
	c->werr = 2;
	return -1;
}

/* Task mode: switch to the sink of the record's image set. */
static void pd_on_chunk(void *ctx, const struct ntrace_pd_chunk *ch)
{
	struct decode_ctx *c = ctx;
	struct task_sink *ts;
	size_t i;

	c->chunk = *ch;
	if (!ch->task || c->stats_only)
		return;
	for (i = 0; i < c->nsinks; i++)
		if (c->sinks[i].img == ch->img)
			break;
	if (i == c->nsinks) {
		ts = realloc(c->sinks, (c->nsinks + 1) * sizeof(*ts));
		if (!ts) {
			c->werr = 1;
			return;
		}
		c->sinks = ts;
		ts[i].img = ch->img;
		ts[i].sink = ntrace_sink_new(c->fmt, c->out, NULL, ch->img);
		if (!ts[i].sink) {
			c->werr = 1;
			return;
		}
		ntrace_sink_set_symbols(ts[i].sink, c->symbols);
		c->nsinks++;
	}
	if (c->sink != c->sinks[i].sink)
		sink_flush(c, c->sink);
	c->sink = c->sinks[i].sink;
}

/* Task mode: flush and free the record sinks before their image sets go. */
static void pd_on_end(void *ctx)
{
	struct decode_ctx *c = ctx;
	size_t i;

	for (i = 0; i < c->nsinks; i++) {
		sink_flush(c, c->sinks[i].sink);
		ntrace_sink_free(c->sinks[i].sink);
	}
	free(c->sinks);
	c->sinks = NULL;
	c->nsinks = 0;
	c->sink = c->first;
}

static void pd_on_task(void *ctx, const struct ntrace_pd_task *t)
{
	struct decode_ctx *c = ctx;

	if (c->stats_only &&
	    fprintf(c->out, "process %u %s records %" PRIu64 " bytes %" PRIu64 " instructions %"
		    PRIu64 " errors %" PRIu64 " lost %" PRIu64 " exec_splits %" PRIu64 "\n",
		    t->pid, t->comm[0] ? t->comm : "-", t->records, t->bytes, t->insns,
		    t->errors, t->lost, t->exec_splits) < 0)
		c->werr = 1;
}

static void pd_on_notice(void *ctx, const char *text)
{
	struct decode_ctx *c = ctx;

	if (!c->quiet)
		fprintf(stderr, "perf-ntrace decode: %s\n", text);
}

/* Is path a perf.data file or directory? (stdin is never one: it is not seekable) */
static bool sniff_perf_data(const char *path)
{
	unsigned char m[8];
	char buf[PATH_MAX];
	FILE *f;
	size_t n;

	if (!strcmp(path, "-"))
		return false;
	f = fopen(ntrace_pd_data_path(path, buf, sizeof(buf)), "rb");
	if (!f)
		return false;
	n = fread(m, 1, sizeof(m), f);
	fclose(f);
	return ntrace_pd_is_perfdata(m, n);
}

/* Decode a perf.data file through c's sink; returns the exit status. */
static int decode_perf_data(struct decode_ctx *c, struct ntrace_images *img, const char *path,
			    const struct ntrace_pd_decode_opts *opts)
{
	struct ntrace_pd_decode_ops ops = {
		.dec = { c->stats_only ? NULL : on_runs, on_event },
		.on_decoder = pd_on_decoder, .on_notice = pd_on_notice,
		.on_chunk = pd_on_chunk, .on_task = pd_on_task, .on_end = pd_on_end,
	};
	struct ntrace_pd_decode_stats st;
	struct ntrace_perfdata *pd;
	char err[512];
	int rc;

	pd = ntrace_pd_open(path, err, sizeof(err));
	if (!pd) {
		fprintf(stderr, "perf-ntrace decode: %s\n", err);
		return 2;
	}
	c->first = c->sink;
	rc = ntrace_pd_decode(pd, img, opts, &ops, c, &st);
	pd_on_end(c);	/* if the library did not call it (an error, or not task mode) */
	/* a failing sink stops decoding too: its reason says more */
	if (rc && !sink_flush(c, c->sink) && c->werr != 2)
		fprintf(stderr, "perf-ntrace decode: %s: %s\n", path, ntrace_pd_errmsg(pd));
	ntrace_pd_close(pd);
	if (rc)
		return 2;
	if (c->werr || (c->show_task && fflush(c->out))) {
		if (c->werr != 2)
			fprintf(stderr, "perf-ntrace decode: write error: %s\n", strerror(errno));
		return 2;
	}
	if (c->stats_only &&
	    (print_stats(c->out, &st.dec) ||
	     fprintf(c->out, "chunks: %" PRIu64 "\nchunk_bytes: %" PRIu64 "\nresyncs: %" PRIu64
		     "\naux_truncated: %" PRIu64 "\naux_partial: %" PRIu64 "\naux_collisions: %"
		     PRIu64 "\nlost_records: %" PRIu64 "\nauxtrace_errors: %" PRIu64
		     "\nitrace_starts: %" PRIu64 "\nimages: %" PRIu64 "\nimages_missing: %"
		     PRIu64 "\n", st.chunks, st.chunk_bytes, st.resyncs, st.truncated, st.partial,
		     st.collisions, st.lost_records, st.auxtrace_errors, st.itrace_starts,
		     st.images, st.images_missing) < 0 ||
	     (st.task_mode &&
	      fprintf(c->out, "task_mode: 1\ntasks: %" PRIu64 "\nimage_sets: %" PRIu64
		      "\nexec_splits: %" PRIu64 "\nunattributed_bytes: %" PRIu64
		      "\nmissing_bytes: %" PRIu64 "\n", st.tasks, st.image_sets, st.exec_splits,
		      st.unattributed_bytes, st.missing_bytes) < 0))) {
		fprintf(stderr, "perf-ntrace decode: write error: %s\n", strerror(errno));
		return 2;
	}
	if (sink_flush(c, c->sink))
		return 2;
	if (!st.dec.insns) {
		fprintf(stderr, "perf-ntrace decode: nothing decoded (%" PRIu64 " AUX chunks, %"
			PRIu64 " bytes, %" PRIu64 " messages, %" PRIu64 " errors)\n", st.chunks,
			st.dec.bytes, st.dec.messages, c->errors);
		return 1;
	}
	if (c->errors && !c->quiet)
		fprintf(stderr, "perf-ntrace decode: %" PRIu64 " instructions decoded, %" PRIu64
			" problems reported\n", st.dec.insns, c->errors);
	return 0;
}

static int add_image(struct ntrace_images *img, const char *kind, const char *arg)
{
	char spec[4200];
	int rc;

	if (!strcmp(kind, "bin")) {
		if (!strchr(arg, '@')) {
			fprintf(stderr, "perf-ntrace decode: --bin needs FILE@ADDR\n");
			return -1;
		}
		snprintf(spec, sizeof(spec), "raw:%s", arg);
	} else {
		snprintf(spec, sizeof(spec), "%s", arg);
	}
	rc = ntrace_images_add_spec(img, spec);
	if (rc)
		fprintf(stderr, "perf-ntrace decode: %s\n", ntrace_images_errmsg(img));
	return rc;
}

int cmd_decode(int argc, char **argv)
{
	static const char *const modes[] = { [NTRACE_MODE_BTM] = "btm", [NTRACE_MODE_HTM] = "htm" };
	static const char *const irets[] = { "off", "count", "partial", "full" };
	static const char *const formats[] = { "pc", "branches", "tv", "stats" };
	static const struct option longopts[] = {
		{ "elf", required_argument, NULL, OPT_ELF },
		{ "bin", required_argument, NULL, OPT_BIN },
		{ "zcmp", no_argument, NULL, OPT_ZCMP },
		{ "zcmt", no_argument, NULL, OPT_ZCMT },
		{ "jvt", required_argument, NULL, OPT_JVT },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "max-warnings", required_argument, NULL, OPT_MAXW },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "implicit-return", required_argument, NULL, OPT_IRET },
		{ "return-depth", required_argument, NULL, OPT_RDEPTH },
		{ "return-addr-bits", required_argument, NULL, OPT_RBITS },
		{ "repeated-history", no_argument, NULL, OPT_RHIST },
		{ "repeat-branch", no_argument, NULL, OPT_RBRANCH },
		{ "itype-bits", required_argument, NULL, OPT_ITYPE_BITS },
		{ "seq-jump", no_argument, NULL, OPT_SEQ },
		{ "all-jumps", no_argument, NULL, OPT_ALLJ },
		{ "icnt-bits", required_argument, NULL, OPT_ICNT_BITS },
		{ "hist-bits", required_argument, NULL, OPT_HIST_BITS },
		{ "hrepeat-bits", required_argument, NULL, OPT_HREPEAT_BITS },
		{ "bcnt-bits", required_argument, NULL, OPT_BCNT_BITS },
		{ "src", required_argument, NULL, OPT_SRC },
		{ "wrapped", no_argument, NULL, OPT_WRAPPED },
		{ "symbols", no_argument, NULL, OPT_SYMBOLS },
		{ "perf-data", no_argument, NULL, OPT_PERF_DATA },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "elf-dir", required_argument, NULL, OPT_ELF_DIR },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "vdso", required_argument, NULL, OPT_VDSO },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "show-task", no_argument, NULL, OPT_SHOW_TASK },
		{ "no-task-mode", no_argument, NULL, OPT_NO_TASK },
		{ "help", no_argument, NULL, 'h' },
		CODEC_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct ntrace_isa_cfg isa = NTRACE_ISA_CFG_RV64GC;
	struct ntrace_dec_ops ops = { on_runs, on_event };
	struct decode_ctx c = { .max_warn = 20 };
	struct ntrace_dec_cfg cfg;
	struct ntrace_dec_stats st;
	struct ntrace_images *img = NULL;
	struct ntrace_decoder *d = NULL;
	const char *outpath = NULL, *err, *srcarg = NULL;
	const char *imgs[256], *kinds[256];
	unsigned int nimg = 0, fmt = 0, v, i;
	uint8_t *buf = NULL;
	FILE *in = NULL;
	uint64_t x;
	int opt, rc = 2;
	bool symbols = false, is_pd = false;
	struct ntrace_pd_decode_opts pdo = { .src = -1, .cpu = -1 };

	ntrace_dec_cfg_default(&cfg);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		int r = codec_opt("decode", opt, optarg, &cfg.enc.codec);

		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		switch (opt) {
		case OPT_ELF:
		case OPT_BIN:
			if (nimg == 256) {
				fprintf(stderr, "perf-ntrace decode: too many images\n");
				return 2;
			}
			kinds[nimg] = opt == OPT_BIN ? "bin" : "elf";
			imgs[nimg++] = optarg;
			break;
		case OPT_ZCMP:
			isa.ext |= NTRACE_ISA_ZCMP;
			break;
		case OPT_ZCMT:
			isa.ext |= NTRACE_ISA_ZCMT;
			break;
		case OPT_JVT:
			if (!opt_uint("decode", "jvt", optarg, UINT64_MAX, &isa.jvt_base))
				return 2;
			break;
		case OPT_FORMAT:
			if (!opt_enum("decode", "format", optarg, formats, 4, &fmt))
				return 2;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'q':
			c.quiet = true;
			break;
		case OPT_MAXW:
			if (!opt_uint("decode", "max-warnings", optarg, 1u << 30, &x))
				return 2;
			c.max_warn = (unsigned int)x;
			break;
		case OPT_MODE:
			if (!opt_enum("decode", "mode", optarg, modes, 7, &v) ||
			    (v != NTRACE_MODE_BTM && v != NTRACE_MODE_HTM)) {
				fprintf(stderr, "perf-ntrace decode: --mode is btm or htm\n");
				return 2;
			}
			cfg.enc.mode = (uint8_t)v;
			break;
		case OPT_IRET:
			if (!opt_enum("decode", "implicit-return", optarg, irets, 4, &v))
				return 2;
			cfg.enc.implicit_return = (uint8_t)v;
			break;
		case OPT_RDEPTH:
			if (!opt_uint("decode", "return-depth", optarg, NTRACE_IRET_MAX_DEPTH, &x))
				return 2;
			cfg.enc.return_depth = (uint8_t)(x ? x : 1);
			break;
		case OPT_RBITS:
			if (!opt_uint("decode", "return-addr-bits", optarg, 63, &x))
				return 2;
			cfg.enc.return_addr_bits = (uint8_t)x;
			break;
		case OPT_RHIST:
			cfg.enc.repeated_history = true;
			break;
		case OPT_RBRANCH:
			cfg.enc.repeat_branch = true;
			break;
		case OPT_ITYPE_BITS:
			if (!opt_uint("decode", "itype-bits", optarg, 4, &x) || x < 3)
				return 2;
			cfg.enc.itype_bits = (uint8_t)x;
			if (x == 3)
				cfg.enc.implicit_return = NTRACE_IRET_OFF;
			break;
		case OPT_SEQ:
			cfg.enc.seq_jump = true;
			break;
		case OPT_ALLJ:
			cfg.enc.all_jumps = true;
			break;
		case OPT_ICNT_BITS:
			if (!opt_uint("decode", "icnt-bits", optarg, 32, &x))
				return 2;
			cfg.enc.icnt_bits = (uint8_t)x;
			break;
		case OPT_HIST_BITS:
			if (!opt_uint("decode", "hist-bits", optarg, 32, &x))
				return 2;
			cfg.enc.hist_bits = (uint8_t)x;
			break;
		case OPT_HREPEAT_BITS:
			if (!opt_uint("decode", "hrepeat-bits", optarg, 18, &x))
				return 2;
			cfg.enc.hrepeat_bits = (uint8_t)x;
			break;
		case OPT_BCNT_BITS:
			if (!opt_uint("decode", "bcnt-bits", optarg, 18, &x))
				return 2;
			cfg.enc.bcnt_bits = (uint8_t)x;
			break;
		case OPT_SRC:
			srcarg = optarg;
			break;
		case OPT_WRAPPED:
			cfg.enc.codec.wait_for_eom = true;
			break;
		case OPT_SYMBOLS:
			symbols = true;
			break;
		case OPT_PERF_DATA:
			is_pd = true;
			break;
		case OPT_ROOT:
			pdo.root = optarg;
			break;
		case OPT_ELF_DIR:
			pdo.elf_dir = optarg;
			break;
		case OPT_CPU:
			if (!opt_uint("decode", "cpu", optarg, INT32_MAX, &x))
				return 2;
			pdo.cpu = (int32_t)x;
			break;
		case OPT_VDSO:
			pdo.vdso = optarg;
			break;
		case OPT_PID:
			if (!opt_uint("decode", "pid", optarg, INT32_MAX, &x) || !x) {
				fprintf(stderr, "perf-ntrace decode: --pid wants a process id > 0\n");
				return 2;
			}
			pdo.pid = (uint32_t)x;
			break;
		case OPT_SHOW_TASK:
			c.show_task = true;
			break;
		case OPT_NO_TASK:
			pdo.no_task_mode = true;
			break;
		case 'h':
			fputs(decode_help, stdout);
			return 0;
		default:
			fputs(decode_help, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "perf-ntrace decode: expected one trace file (see --help)\n");
		return 2;
	}
	is_pd = is_pd || sniff_perf_data(argv[optind]);
	pdo.no_mmap_images = nimg > 0;
	if (!nimg && !is_pd) {
		fprintf(stderr, "perf-ntrace decode: no program image: give --elf or --bin\n");
		return 2;
	}
	if (srcarg && strcmp(srcarg, "all")) {
		if (!opt_uint("decode", "src", srcarg, (1u << NTRACE_MAX_SRC_BITS) - 1, &x))
			return 2;
		cfg.src = (int32_t)x;
		pdo.src = cfg.src;
	}
	c.prefix_src = cfg.src < 0 && cfg.enc.codec.src_bits;
	if (c.prefix_src && fmt == 0)
		fprintf(stderr, "perf-ntrace decode: note: several sources may be interleaved in "
				"the pc list; use --src N to pick one\n");
	if (cfg.enc.implicit_return && cfg.enc.itype_bits == 3)
		cfg.enc.implicit_return = NTRACE_IRET_OFF;
	if (ntrace_enc_cfg_check(&cfg.enc, &err)) {
		fprintf(stderr, "perf-ntrace decode: bad encoder settings: %s\n", err);
		return 2;
	}

	img = ntrace_images_new(&isa);
	if (!img) {
		fprintf(stderr, "perf-ntrace decode: out of memory\n");
		return 2;
	}
	for (i = 0; i < nimg; i++)
		if (add_image(img, kinds[i], imgs[i]))
			goto out;
	in = is_pd ? NULL : open_in("decode", argv[optind], "rb");
	if (!in && !is_pd)
		goto out;
	c.out = stdout;
	if (outpath && strcmp(outpath, "-")) {
		c.out = fopen(outpath, fmt == 2 ? "wb" : "w");
		if (!c.out) {
			fprintf(stderr, "perf-ntrace decode: cannot create '%s': %s\n", outpath,
				strerror(errno));
			c.out = NULL;
			goto out;
		}
	}
	c.stats_only = fmt == 3;
	c.sink = ntrace_sink_new(fmt == 1 ? NTRACE_SINK_BRANCHES : fmt == 2 ? NTRACE_SINK_TV
				 : NTRACE_SINK_PC, c.out, NULL, img);
	if (c.stats_only)
		ops.runs = NULL;
	if (c.sink && is_pd) {
		if (c.show_task && fmt != 0) {
			fprintf(stderr, "perf-ntrace decode: --show-task needs --format=pc\n");
			goto out;
		}
		c.fmt = fmt == 1 ? NTRACE_SINK_BRANCHES : fmt == 2 ? NTRACE_SINK_TV : NTRACE_SINK_PC;
		c.symbols = symbols;
		pdo.isa = &isa;
		ntrace_sink_set_symbols(c.sink, symbols);
		rc = decode_perf_data(&c, img, argv[optind], &pdo);
		goto out;
	}
	d = c.sink ? ntrace_decoder_new(&cfg, img, &ops, &c, &err) : NULL;
	if (!d) {
		fprintf(stderr, "perf-ntrace decode: %s\n", c.sink ? err : "out of memory");
		goto out;
	}
	ntrace_sink_set_decoder(c.sink, d);
	ntrace_sink_set_symbols(c.sink, symbols);
	buf = malloc(1 << 20);
	if (!buf) {
		fprintf(stderr, "perf-ntrace decode: out of memory\n");
		goto out;
	}
	for (;;) {
		size_t n = fread(buf, 1, 1 << 20, in);

		if (n && ntrace_decoder_feed(d, buf, n))
			break;
		if (n < (1 << 20))
			break;
	}
	if (ferror(in)) {
		fprintf(stderr, "perf-ntrace decode: cannot read '%s': %s\n", argv[optind],
			strerror(errno));
		goto out;
	}
	ntrace_decoder_finish(d);
	ntrace_decoder_stats(d, &st);
	if (c.stats_only && print_stats(c.out, &st)) {
		fprintf(stderr, "perf-ntrace decode: write error: %s\n", strerror(errno));
		goto out;
	}
	if (sink_flush(&c, c.sink))	/* says why */
		goto out;
	if (c.out != stdout && fclose(c.out)) {
		c.out = NULL;
		fprintf(stderr, "perf-ntrace decode: write error: %s\n", strerror(errno));
		goto out;
	}
	if (c.out != stdout)
		c.out = NULL;
	if (!st.insns) {
		fprintf(stderr, "perf-ntrace decode: nothing decoded (%" PRIu64 " bytes, %" PRIu64
			" messages, %" PRIu64 " errors%s)\n", st.bytes, st.messages, c.errors,
			st.syncs ? "" : ", no synchronizing message");
		rc = 1;
	} else {
		if (c.errors && !c.quiet)
			fprintf(stderr, "perf-ntrace decode: %" PRIu64 " instructions decoded, %"
				PRIu64 " problems reported\n", st.insns, c.errors);
		rc = 0;
	}
out:
	free(buf);
	ntrace_decoder_free(d);
	if (c.out && c.out != stdout)
		fclose(c.out);
	if (in && in != stdin)
		fclose(in);
	ntrace_sink_free(c.sink);
	ntrace_images_free(img);
	return rc;
}
