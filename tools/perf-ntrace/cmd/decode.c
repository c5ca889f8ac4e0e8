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
#include <ntrace/pardec.h>
#include "perfdata.h"

#include "cmd.h"
#include "cmd_opts.h"
#include "view.h"

static const char decode_help[] =
	"usage: perf-ntrace decode [OPTIONS] --elf PROG.elf [--elf LIB.so@ADDR]... TRACE.bin|-\n"
	"       perf-ntrace decode [OPTIONS] [--root DIR | --elf-dir DIR] perf.data\n"
	"Decode a raw N-Trace byte stream (no header) into the retired instruction flow.\n"
	"BTM or HTM and the field widths come from the messages; the other encoder\n"
	"settings below must match the ones the trace was recorded with.\n"
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
	"  --show-task     task mode, --format=pc or branches: prefix each line with\n"
	"                  \"CPU PID TID TIME \"\n"
	"  --no-task-mode  decode per AUX stream with one image set for every process\n"
	"  In task mode (per-CPU AUX data whose AUX records name cpu, tid and time,\n"
	"  e.g. perf record -a or -C) each AUX record is one task's trace: records are\n"
	"  decoded in time order across CPUs with the images of their process;\n"
	"  --format=stats adds a \"process PID COMM ...\" line per process.\n"
	"images:\n"
	IMG_HELP
	"output:\n"
	"  --format F      pc (default): one instruction address per line (hex)\n"
	"                  branches: \"FROM TO KIND TSTAMP\" per control transfer\n"
	"                  stats: counts;  tv: seed-002 tandem-verification partial trace\n"
	"                  autofdo: exact range and branch counts of one image, as\n"
	"                  llvm-profgen reads them (--unsymbolized-profile=FILE)\n"
	"                  autofdo-text: the same for create_gcov/create_llvm_prof\n"
	"                  --profiler=text (AutoFDO's text format; gcc's route)\n"
	"                  timeline: Chrome/Perfetto trace event JSON, a slice per\n"
	"                  call on a track per task (and per CPU), traps and lost or\n"
	"                  undecoded stretches marked\n"
	"                  folded: \"a;b;c COUNT\" stacks weighted by retired instructions\n"
	"                  flame-html: one offline HTML page, hottest functions and a\n"
	"                  flame graph of the same counts\n"
	"  --max-depth N   timeline, folded, flame-html: frames deeper than N are not\n"
	"                  drawn / folded into the deepest kept (default 256)\n"
	"  --min-slice N   timeline: calls of fewer than N instructions are merged\n"
	"                  with their small neighbours into one slice (default 8; 0 off)\n"
	"  --time T        timeline: auto (default: timestamps when the trace has\n"
	"                  them), ts, or insn (the retired-instruction count)\n"
	"  --dso NAME      autofdo*: the image (its path, in the traced system too,\n"
	"                  or base name; default: the one\n"
	"                  with the most instructions)\n"
	"  --max-count N   autofdo*: scale the counts down to at most N (rounding up;\n"
	"                  default exact). gcc -fauto-profile wants about 65536\n"
	"  -o, --output FILE   write there instead of stdout\n"
	"  --symbols       branches: append \"FROM-SYM+OFF -> TO-SYM+OFF\"\n"
	"  --until SYM     end the output at the first instruction of SYM (a symbol\n"
	"                  or an address), the first time a call or jump reaches it:\n"
	"                  the trigger of a snapshot (perf-ntrace trigger)\n"
	"  -q, --quiet     no warnings on stderr;  --max-warnings N  (default 20)\n"
	"  --src N|all     decode only messages with this SRC (default all: each\n"
	"                  source is decoded with its own state, output interleaved)\n"
	"  --wrapped       trace may start mid-message (circular buffer wrapped)\n"
	"  -j, --jobs N    raw traces, --format=pc, branches or stats: decode in N\n"
	"                  threads at most (default: the online CPUs; 1: one\n"
	"                  decoder). The output is the same. The trace is split\n"
	"                  at its sync messages (trTeInstSyncMode): one whose\n"
	"                  first 256 KiB hold fewer than two places to split 16 KiB\n"
	"                  apart is decoded by one decoder, with no thread.\n"
	"                  perf.data and --format=tv use one thread.\n"
	"  --piece-size N  with --jobs: trace bytes per piece (default: about 2 MiB\n"
	"                  of output each, 16 KiB..8 MiB of trace); splits whatever\n"
	"                  the trace holds (for tests)\n"
	"  --check-widths  report I-CNT, HREPEAT and B-CNT values wider than the\n"
	"                  counters below (by default a field's width is its own)\n"
	"  --strict        N-Trace 1.0 to the letter: a stray end-of-message byte, a\n"
	"                  field of no bits or SYNC=4 in HTM is an error (the source\n"
	"                  waits for a sync) and each unexpected message a warning;\n"
	"                  by default these quirks of real encoders are decoded\n"
	"                  through, reported once per source and counted\n"
	"                  (--format=stats: quirk.NAME)\n"
	"  --resume-at-targets  where the flow leaves the images (code nobody has,\n"
	"                  such as firmware) with no message missed, resume at the\n"
	"                  first indirect branch target back in one instead of the\n"
	"                  next sync (a damaged trace may resume wrongly); on for\n"
	"                  a perf.data file of a SiFive v0 encoder, which traces\n"
	"                  firmware whatever the event excluded\n"
	"encoder settings (the decoder needs those that change the messages' meaning;\n"
	"BTM or HTM, return depth, repeated history, repeat branch and the sync\n"
	"settings it reads from the messages alone; --mode only decides for a source\n"
	"whose messages do not tell):\n"
	ENC_HELP
	"  defaults: --implicit-return full (return-stack decoding; the stack depth\n"
	"  need not be known), --icnt-bits 22\n"
	"exit status: 0 decoded (warnings may have been printed), 1 nothing decoded,\n"
	"2 usage, image or I/O error\n";

enum {
	OPT_FORMAT = IMG_OPT__END, OPT_MAXW, OPT_SRC, OPT_WRAPPED, OPT_SYMBOLS, OPT_PERF_DATA,
	OPT_ROOT, OPT_ELF_DIR, OPT_CPU, OPT_VDSO, OPT_PID, OPT_SHOW_TASK, OPT_NO_TASK,
	OPT_CHECK_WIDTHS, OPT_STRICT, OPT_DSO, OPT_MAX_COUNT, OPT_PIECE, OPT_MAX_DEPTH, OPT_MIN_SLICE,
	OPT_TIME, OPT_UNTIL, OPT_RESUME,
};

struct decode_ctx {
	struct ntrace_sink *sink;
	struct view *view;		/* timeline, folded, flame-html */
	FILE *out;
	bool quiet, stats_only, show_task;
	unsigned int max_warn, nwarn;
	uint64_t errors;
	int werr;			/* output failed (2: and that was said) */
	struct ntrace_decoder *dec;	/* the one decoding now */
	struct {			/* --until */
		const char *arg;	/* a symbol or an address */
		const struct ntrace_images *img;	/* where addr was looked up */
		uint64_t addr;
		bool have_addr, numeric, reached;
	} until;
};

/* A sink stop value: --until's address was reached (not an error). */
#define UNTIL_REACHED 1

/* Is text an address (C syntax) rather than a symbol? */
static bool until_number(const char *text, uint64_t *v)
{
	char *end;

	if (*text < '0' || *text > '9')
		return false;
	errno = 0;
	*v = strtoull(text, &end, 0);
	return !errno && !*end;
}

/* --until's address in the images decoded now; false if they lack it. */
static bool until_addr(struct decode_ctx *c)
{
	const struct ntrace_images *img = c->dec ? ntrace_decoder_images(c->dec) : NULL;

	if (c->until.numeric || (img && img == c->until.img))
		return c->until.have_addr;
	c->until.img = img;
	c->until.have_addr = img && !ntrace_images_lookup((struct ntrace_images *)img,
							  c->until.arg, &c->until.addr);
	return c->until.have_addr;
}

/*
 * --until: pass on the runs up to the transfer to the address (or the run
 * that starts there, after a sync), then that instruction alone, and stop
 * decoding. A uprobe's breakpoint at the address traps before it retires
 * and its instruction runs out of line: the transfer is all there is.
 */
static int until_runs(struct decode_ctx *c, const struct ntrace_dec_run *r, size_t n,
		      int (*put)(struct decode_ctx *, const struct ntrace_dec_run *, size_t))
{
	struct ntrace_dec_run hit;
	bool found = false;
	size_t i;
	int rc;

	if (!until_addr(c))
		return put(c, r, n);
	for (i = 0; i < n && !found; i++) {
		if (r[i].start == c->until.addr) {
			found = true;
			break;
		}
		found = r[i].to == c->until.addr && r[i].kind != NTRACE_DK_FALL &&
			r[i].kind != NTRACE_DK_NOT_TAKEN;
	}
	if (!found)
		return put(c, r, n);
	rc = put(c, r, i);
	if (rc)
		return rc;
	hit = (struct ntrace_dec_run){ .start = c->until.addr, .last = c->until.addr,
				       .ninsn = 1, .kind = NTRACE_DK_STOP };
	hit.tstamp = i ? r[i - 1].tstamp : r[0].tstamp;
	hit.priv = i ? r[i - 1].priv : r[0].priv;
	hit.src = i ? r[i - 1].src : r[0].src;
	rc = put(c, &hit, 1);
	if (!rc && c->view)
		rc = view_trigger(c->view, hit.start, c->until.arg);
	c->until.reached = true;
	return rc ? rc : UNTIL_REACHED;
}

static int put_runs(struct decode_ctx *c, const struct ntrace_dec_run *r, size_t n)
{
	if (!n)
		return 0;
	if (c->view)
		return view_runs(c->view, r, n);
	return ntrace_sink_runs(c->sink, r, n);
}

static int on_runs(void *ctx, const struct ntrace_dec_run *r, size_t n)
{
	struct decode_ctx *c = ctx;

	if (c->until.arg)
		return until_runs(c, r, n, put_runs);
	return put_runs(c, r, n);
}

static int on_event(void *ctx, const struct ntrace_dec_event *ev)
{
	struct decode_ctx *c = ctx;

	if (ev->type == NTRACE_DEV_ERROR || ev->type == NTRACE_DEV_LOST)
		c->errors++;
	if (c->view && view_event(c->view, ev))
		return NTRACE_ENOMEM;
	if (ev->type != NTRACE_DEV_ERROR && ev->type != NTRACE_DEV_WARN &&
	    ev->type != NTRACE_DEV_LOST && ev->type != NTRACE_DEV_QUIRK)
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
	for (i = 0; i < NTRACE_QUIRK__COUNT; i++)
		if (s->quirks[i])
			fprintf(f, "quirk.%s: %" PRIu64 "\n", ntrace_quirk_name(i), s->quirks[i]);
	return ferror(f) ? -1 : 0;
}

static void pd_on_decoder(void *ctx, struct ntrace_decoder *d)
{
	struct decode_ctx *c = ctx;

	c->dec = d;
	c->until.img = NULL;	/* image sets come and go: look --until up again */
	ntrace_sink_set_decoder(c->sink, d);
	if (c->view)
		view_set_decoder(c->view, d);
}

/* Flush the sink; a failure is said once, with the sink's reason. */
static int sink_flush(struct decode_ctx *c)
{
	if (!ntrace_sink_flush(c->sink))
		return 0;
	if (c->werr != 2)
		fprintf(stderr, "perf-ntrace decode: %s\n", ntrace_sink_errmsg(c->sink));
	c->werr = 2;
	return -1;
}

/* Task mode with --show-task: the lines say whose trace they are. */
static void pd_on_chunk(void *ctx, const struct ntrace_pd_chunk *ch)
{
	struct decode_ctx *c = ctx;
	char prefix[96];

	if (c->view)
		view_task(c->view, ch->task ? ch->cpu : -1, ch->task ? ch->pid : 0,
			  ch->task ? ch->tid : 0, ch->resync);
	if (!c->show_task || !ch->task) {
		ntrace_sink_set_prefix(c->sink, NULL);
		return;
	}
	snprintf(prefix, sizeof(prefix), "%d %u %u %" PRIu64 " ", ch->cpu, ch->pid, ch->tid,
		 ch->time);
	ntrace_sink_set_prefix(c->sink, prefix);
}

/* Task mode: write what the sink holds before the image sets go. */
static void pd_on_end(void *ctx)
{
	struct decode_ctx *c = ctx;

	if (c->view)
		view_images_gone(c->view);
	sink_flush(ctx);
}

static void pd_on_task(void *ctx, const struct ntrace_pd_task *t)
{
	struct decode_ctx *c = ctx;

	if (c->view && t->comm[0])
		view_comm(c->view, t->pid, t->comm);
	if (c->stats_only &&
	    fprintf(c->out, "process %u %s records %" PRIu64 " bytes %" PRIu64 " instructions %"
		    PRIu64 " errors %" PRIu64 " lost %" PRIu64 " exec_splits %" PRIu64
		    " flagged %" PRIu64 "\n",
		    t->pid, t->comm[0] ? t->comm : "-", t->records, t->bytes, t->insns,
		    t->errors, t->lost, t->exec_splits, t->flagged) < 0)
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
	rc = ntrace_pd_decode(pd, img, opts, &ops, c, &st);
	if (rc == UNTIL_REACHED)
		rc = 0;
	/* a failing sink stops decoding too: its reason says more */
	if (rc && !sink_flush(c) && c->werr != 2)
		fprintf(stderr, "perf-ntrace decode: %s: %s\n", path, ntrace_pd_errmsg(pd));
	ntrace_pd_close(pd);
	if (rc)
		return 2;
	if (c->werr) {
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
		      "\nmissing_bytes: %" PRIu64 "\nreaped_records: %" PRIu64 "\n", st.tasks,
		      st.image_sets, st.exec_splits, st.unattributed_bytes, st.missing_bytes,
		      st.reaped_records) < 0))) {
		fprintf(stderr, "perf-ntrace decode: write error: %s\n", strerror(errno));
		return 2;
	}
	if (sink_flush(c))
		return 2;
	if (c->view && view_finish(c->view))
		return 2;
	if (!st.dec.insns && !c->until.reached) {
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

/* What the command line asks for. */
struct decode_args {
	struct img_opts img;
	struct ntrace_dec_cfg cfg;
	struct ntrace_pd_decode_opts pdo;
	const char *path, *outpath, *dso;
	uint64_t max_count;	/* autofdo: 0 or the largest count written */
	unsigned int fmt;	/* index in formats[] */
	bool symbols, is_pd;
	struct view_opts view;
	unsigned int jobs;	/* 0: the online CPUs */
	size_t piece;		/* 0: adaptive */
};

static const char *const formats[] = {
	"pc", "branches", "tv", "stats", "autofdo", "autofdo-text", "timeline", "folded",
	"flame-html",
};
static const enum ntrace_sink_format sink_formats[] = {
	NTRACE_SINK_PC, NTRACE_SINK_BRANCHES, NTRACE_SINK_TV, NTRACE_SINK_PC, NTRACE_SINK_AUTOFDO,
	NTRACE_SINK_AUTOFDO_TEXT, NTRACE_SINK_PC, NTRACE_SINK_PC, NTRACE_SINK_PC,
};
#define FMT_AUTOFDO 4	/* and 5, autofdo-text */
#define FMT_VIEW 6	/* timeline, folded, flame-html (enum view_kind order) */

/* Returns 0 to go on, else the exit status (0 after --help). */
static int parse_args(int argc, char **argv, struct decode_args *a, struct decode_ctx *c)
{
	static const struct option longopts[] = {
		ENC_LONG_OPTIONS,
		IMG_LONG_OPTIONS,
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "max-warnings", required_argument, NULL, OPT_MAXW },
		{ "src", required_argument, NULL, OPT_SRC },
		{ "wrapped", no_argument, NULL, OPT_WRAPPED },
		{ "check-widths", no_argument, NULL, OPT_CHECK_WIDTHS },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "resume-at-targets", no_argument, NULL, OPT_RESUME },
		{ "jobs", required_argument, NULL, 'j' },
		{ "piece-size", required_argument, NULL, OPT_PIECE },
		{ "symbols", no_argument, NULL, OPT_SYMBOLS },
		{ "dso", required_argument, NULL, OPT_DSO },
		{ "max-count", required_argument, NULL, OPT_MAX_COUNT },
		{ "perf-data", no_argument, NULL, OPT_PERF_DATA },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "elf-dir", required_argument, NULL, OPT_ELF_DIR },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "vdso", required_argument, NULL, OPT_VDSO },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "show-task", no_argument, NULL, OPT_SHOW_TASK },
		{ "no-task-mode", no_argument, NULL, OPT_NO_TASK },
		{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
		{ "min-slice", required_argument, NULL, OPT_MIN_SLICE },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const times[] = { "auto", "ts", "insn" };
	const char *err, *srcarg = NULL;
	unsigned int u;
	uint64_t x;
	int opt, r;

	ntrace_dec_cfg_default(&a->cfg);
	a->view.min_slice = VIEW_DEFAULT_MIN_SLICE;
	img_opts_init(&a->img);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:qhj:", longopts, NULL)) != -1) {
		r = enc_opt("decode", opt, optarg, &a->cfg.enc);
		if (!r)
			r = img_opt("decode", opt, optarg, &a->img);
		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		switch (opt) {
		case OPT_FORMAT:
			if (!opt_enum("decode", "format", optarg, formats, 9, &a->fmt))
				return 2;
			break;
		case 'o':
			a->outpath = optarg;
			break;
		case 'q':
			c->quiet = true;
			break;
		case OPT_MAXW:
			if (!opt_uint("decode", "max-warnings", optarg, 1u << 30, &x))
				return 2;
			c->max_warn = (unsigned int)x;
			break;
		case OPT_SRC:
			srcarg = optarg;
			break;
		case OPT_WRAPPED:
			a->cfg.enc.codec.wait_for_eom = true;
			break;
		case OPT_CHECK_WIDTHS:
			a->cfg.check_widths = true;
			break;
		case OPT_STRICT:
			a->cfg.enc.codec.strict = true;
			a->pdo.strict = true;
			break;
		case OPT_RESUME:
			a->cfg.resume_at_targets = true;
			break;
		case 'j':
			if (!opt_uint("decode", "jobs", optarg, 1024, &x) || !x) {
				fprintf(stderr, "perf-ntrace decode: --jobs wants 1..1024\n");
				return 2;
			}
			a->jobs = (unsigned int)x;
			break;
		case OPT_PIECE:
			if (!opt_uint("decode", "piece-size", optarg, 1ull << 30, &x) || x < 64) {
				fprintf(stderr, "perf-ntrace decode: --piece-size wants 64..2^30\n");
				return 2;
			}
			a->piece = (size_t)x;
			break;
		case OPT_SYMBOLS:
			a->symbols = true;
			break;
		case OPT_DSO:
			a->dso = optarg;
			break;
		case OPT_MAX_COUNT:
			if (!opt_uint("decode", "max-count", optarg, UINT64_MAX, &a->max_count))
				return 2;
			break;
		case OPT_PERF_DATA:
			a->is_pd = true;
			break;
		case OPT_ROOT:
			a->pdo.root = optarg;
			break;
		case OPT_ELF_DIR:
			a->pdo.elf_dir = optarg;
			break;
		case OPT_CPU:
			if (!opt_uint("decode", "cpu", optarg, INT32_MAX, &x))
				return 2;
			a->pdo.cpu = (int32_t)x;
			break;
		case OPT_VDSO:
			a->pdo.vdso = optarg;
			break;
		case OPT_PID:
			if (!opt_uint("decode", "pid", optarg, INT32_MAX, &x) || !x) {
				fprintf(stderr, "perf-ntrace decode: --pid wants a process id > 0\n");
				return 2;
			}
			a->pdo.pid = (uint32_t)x;
			break;
		case OPT_SHOW_TASK:
			c->show_task = true;
			break;
		case OPT_NO_TASK:
			a->pdo.no_task_mode = true;
			break;
		case OPT_MAX_DEPTH:
			if (!opt_uint("decode", "max-depth", optarg, 1u << 20, &x) || !x) {
				fprintf(stderr, "perf-ntrace decode: --max-depth wants 1..2^20\n");
				return 2;
			}
			a->view.max_depth = (unsigned int)x;
			break;
		case OPT_MIN_SLICE:
			if (!opt_uint("decode", "min-slice", optarg, UINT32_MAX, &a->view.min_slice))
				return 2;
			break;
		case OPT_TIME:
			if (!opt_enum("decode", "time", optarg, times, 3, &u))
				return 2;
			a->view.time = (enum view_time)u;
			break;
		case OPT_UNTIL:
			c->until.arg = optarg;
			c->until.numeric = until_number(optarg, &c->until.addr);
			c->until.have_addr = c->until.numeric;
			break;
		case 'h':
			fputs(decode_help, stdout);
			return -1;
		default:
			fputs(decode_help, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "perf-ntrace decode: expected one trace file (see --help)\n");
		return 2;
	}
	a->path = argv[optind];
	a->is_pd = a->is_pd || sniff_perf_data(a->path);
	a->pdo.no_mmap_images = a->img.n > 0;
	a->pdo.isa = &a->img.isa;
	if (!a->img.n && !a->is_pd) {
		fprintf(stderr, "perf-ntrace decode: no program image: give --elf or --bin\n");
		return 2;
	}
	if ((a->dso || a->max_count) && (a->fmt < FMT_AUTOFDO || a->fmt >= FMT_VIEW)) {
		fprintf(stderr, "perf-ntrace decode: --dso and --max-count need --format=autofdo or "
			"autofdo-text\n");
		return 2;
	}
	if (a->fmt >= FMT_VIEW) {
		a->jobs = 1;	/* one decoder: the call stacks follow the flow */
		a->view.title = a->img.n ? a->img.arg[0] : NULL;
		if (a->is_pd)
			view_pd_clock(a->path, &a->view);
		else
			a->view.have_ts = a->cfg.enc.codec.tstamp;
	}
	if (c->until.arg && (a->fmt == 2 || a->fmt == 3)) {
		fprintf(stderr, "perf-ntrace decode: --until does not go with --format=%s\n",
			formats[a->fmt]);
		return 2;
	}
	if (c->until.arg)
		a->jobs = 1;	/* the first time in the flow: one decoder */
	if (c->show_task && a->fmt != 0 && a->fmt != 1) {
		fprintf(stderr, "perf-ntrace decode: --show-task needs --format=pc or branches\n");
		return 2;
	}
	if (srcarg && strcmp(srcarg, "all")) {
		if (!opt_uint("decode", "src", srcarg, (1u << NTRACE_MAX_SRC_BITS) - 1, &x))
			return 2;
		a->cfg.src = (int32_t)x;
		a->pdo.src = a->cfg.src;
	}
	if (a->cfg.src < 0 && a->cfg.enc.codec.src_bits && a->fmt == 0)
		fprintf(stderr, "perf-ntrace decode: note: several sources may be interleaved in "
				"the pc list; use --src N to pick one\n");
	ntrace_enc_cfg_effective(&a->cfg.enc);
	if (ntrace_enc_cfg_check(&a->cfg.enc, &err)) {
		fprintf(stderr, "perf-ntrace decode: bad encoder settings: %s\n", err);
		return 2;
	}
	c->stats_only = a->fmt == 3;
	return 0;
}

/* A raw decode's exit status from its counters, said on stderr. */
static int raw_result(const struct decode_ctx *c, const struct ntrace_dec_stats *st)
{
	if (!st->insns) {
		fprintf(stderr, "perf-ntrace decode: nothing decoded (%" PRIu64 " bytes, %" PRIu64
			" messages, %" PRIu64 " errors%s)\n", st->bytes, st->messages, c->errors,
			st->syncs ? "" : ", no synchronizing message");
		return 1;
	}
	if (c->errors && !c->quiet)
		fprintf(stderr, "perf-ntrace decode: %" PRIu64 " instructions decoded, %"
			PRIu64 " problems reported\n", st->insns, c->errors);
	return 0;
}

/* Decode a raw trace through c's sink; returns the exit status. */
static int decode_raw(struct decode_ctx *c, const struct ntrace_dec_cfg *cfg,
		      struct ntrace_images *img, FILE *in, const char *path)
{
	struct ntrace_dec_ops ops = { c->stats_only ? NULL : on_runs, on_event };
	struct ntrace_dec_stats st;
	struct ntrace_decoder *d;
	const char *err;
	uint8_t *buf = malloc(1 << 20);
	int rc = 2;

	d = buf ? ntrace_decoder_new(cfg, img, &ops, c, &err) : NULL;
	if (!d) {
		fprintf(stderr, "perf-ntrace decode: %s\n", buf ? err : "out of memory");
		goto out;
	}
	c->dec = d;
	ntrace_sink_set_decoder(c->sink, d);
	if (c->view)
		view_set_decoder(c->view, d);
	for (;;) {
		size_t n = fread(buf, 1, 1 << 20, in);

		if (n && ntrace_decoder_feed(d, buf, n))
			break;
		if (n < (1 << 20))
			break;
	}
	if (ferror(in)) {
		fprintf(stderr, "perf-ntrace decode: cannot read '%s': %s\n", path, strerror(errno));
		goto out;
	}
	ntrace_decoder_finish(d);
	ntrace_decoder_stats(d, &st);
	if (c->stats_only && print_stats(c->out, &st)) {
		fprintf(stderr, "perf-ntrace decode: write error: %s\n", strerror(errno));
		goto out;
	}
	if (sink_flush(c))	/* says why */
		goto out;
	if (c->view && view_finish(c->view))
		goto out;
	rc = raw_result(c, &st);
out:
	ntrace_decoder_free(d);
	free(buf);
	return rc;
}

/* Which image the AutoFDO counts are for: the busiest unless --dso said. */
static void afdo_note(const struct ntrace_sink *s)
{
	uint64_t n = 0;
	const char *name = ntrace_sink_dso(s, &n);

	if (name)
		fprintf(stderr, "perf-ntrace decode: autofdo: counts of %s (%" PRIu64
			" instructions)\n", name, n);
}

/* Decode a raw trace with ntrace_pardec (same output); returns the exit status. */
static int decode_raw_jobs(struct decode_ctx *c, const struct decode_args *a,
			   struct ntrace_images *img, FILE *in, const char *path)
{
	struct ntrace_pardec_cfg pc;
	struct ntrace_dec_stats st;
	struct ntrace_pardec *p;
	const char *err;
	uint8_t *buf = malloc(1 << 20);
	int rc = 2, stop = 0;

	ntrace_pardec_cfg_default(&pc);
	pc.jobs = a->jobs;
	pc.piece_bytes = a->piece;
	pc.runs = !c->stats_only;
	pc.fmt = sink_formats[a->fmt];
	pc.symbols = a->symbols;
	pc.events = 1u << NTRACE_DEV_ERROR | 1u << NTRACE_DEV_WARN | 1u << NTRACE_DEV_LOST |
		    1u << NTRACE_DEV_QUIRK;
	p = buf ? ntrace_pardec_new(&a->cfg, img, &pc, c->out, on_event, c, &err) : NULL;
	if (!p) {
		fprintf(stderr, "perf-ntrace decode: %s\n", buf ? err : "out of memory");
		goto out;
	}
	for (;;) {
		size_t n = fread(buf, 1, 1 << 20, in);

		if (n && (stop = ntrace_pardec_feed(p, buf, n)))
			break;
		if (n < (1 << 20))
			break;
	}
	if (ferror(in)) {
		fprintf(stderr, "perf-ntrace decode: cannot read '%s': %s\n", path, strerror(errno));
		goto out;
	}
	if (!stop)
		stop = ntrace_pardec_finish(p);
	ntrace_pardec_stats(p, &st);
	if (c->stats_only && print_stats(c->out, &st)) {
		fprintf(stderr, "perf-ntrace decode: write error: %s\n", strerror(errno));
		goto out;
	}
	if (stop || fflush(c->out)) {	/* the library says why */
		fprintf(stderr, "perf-ntrace decode: %s\n", stop ? ntrace_pardec_errmsg(p) :
			strerror(errno));
		goto out;
	}
	rc = raw_result(c, &st);
	if (getenv("NTRACE_JOBS_INFO")) {	/* how the work was split, for tests */
		struct ntrace_pardec_info i;

		ntrace_pardec_info(p, &i);
		fprintf(stderr, "jobs: pieces %" PRIu64 " joined %" PRIu64 " redecoded %" PRIu64
			" overlap_bytes %" PRIu64 " threads %" PRIu64 "\n", i.pieces, i.joined,
			i.redecoded, i.overlap_bytes, i.threads);
	}
out:
	ntrace_pardec_free(p);
	free(buf);
	return rc;
}

int cmd_decode(int argc, char **argv)
{
	struct decode_args a = { .pdo = { .src = -1, .cpu = -1 } };
	struct decode_ctx c = { .max_warn = 20, .out = stdout };
	struct ntrace_images *img;
	FILE *in = NULL;
	int rc = parse_args(argc, argv, &a, &c);

	if (rc)
		return rc < 0 ? 0 : rc;
	img = img_opts_load("decode", &a.img, &a.cfg.enc.codec);
	if (!img)
		return 2;
	rc = 2;
	/* the input must open before the output is created */
	if (!a.is_pd) {
		in = open_in("decode", a.path, "rb");
		if (!in)
			goto out;
	}
	if (a.outpath && strcmp(a.outpath, "-")) {
		c.out = fopen(a.outpath, a.fmt == 2 ? "wb" : "w");
		if (!c.out) {
			fprintf(stderr, "perf-ntrace decode: cannot create '%s': %s\n", a.outpath,
				strerror(errno));
			goto out;
		}
	}
	/* no images given: the sink follows the decoder's, which change per task */
	c.sink = ntrace_sink_new(sink_formats[a.fmt], c.out, NULL, NULL);
	if (!c.sink) {
		fprintf(stderr, "perf-ntrace decode: out of memory\n");
		goto out;
	}
	if (a.fmt >= FMT_VIEW) {
		c.view = view_new((enum view_kind)(a.fmt - FMT_VIEW), c.out, &a.view);
		if (!c.view) {
			fprintf(stderr, "perf-ntrace decode: out of memory\n");
			goto out;
		}
	}
	ntrace_sink_set_symbols(c.sink, a.symbols);
	ntrace_sink_set_max_count(c.sink, a.max_count);
	if (a.dso && ntrace_sink_set_dso(c.sink, a.dso)) {
		fprintf(stderr, "perf-ntrace decode: out of memory\n");
		goto out;
	}
	if (a.is_pd)
		rc = decode_perf_data(&c, img, a.path, &a.pdo);
	else if (a.jobs != 1 && a.fmt != 2 && a.fmt < FMT_AUTOFDO)
		rc = decode_raw_jobs(&c, &a, img, in, a.path);
	else
		rc = decode_raw(&c, &a.cfg, img, in, a.path);
	if (a.fmt >= FMT_AUTOFDO && a.fmt < FMT_VIEW && rc != 2 && !c.quiet)
		afdo_note(c.sink);
	if (c.until.arg && !c.until.reached && rc != 2)
		fprintf(stderr, "perf-ntrace decode: --until %s: not reached%s: the whole trace "
			"was decoded\n", c.until.arg,
			c.until.have_addr ? "" : " (no image has that symbol)");
out:
	if (in && in != stdin)
		fclose(in);
	if (c.out && c.out != stdout && fclose(c.out) && rc != 2) {
		fprintf(stderr, "perf-ntrace decode: write error: %s\n", strerror(errno));
		rc = 2;
	}
	ntrace_sink_free(c.sink);
	view_free(c.view);
	view_pd_clock_free(&a.view);
	ntrace_images_free(img);
	return rc;
}
