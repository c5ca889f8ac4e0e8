// SPDX-License-Identifier: GPL-2.0-only
/*
 * gt-tool: ground-truth helper for the ntrace tests.
 *
 *   gt-tool execlog LOG OUT.pcs [--start A] IMAGE...
 *                                          QEMU "-d exec,nochain -one-insn-per-tb"
 *                                          log -> .pcs (ECALL/EBREAK/illegal become
 *                                          traps; --start: skip lines before pc A)
 *   gt-tool ingress PCS [opts] IMAGE...    .pcs -> ingress records; summary line,
 *                                          --print: one line per record
 *   gt-tool tv-roundtrip PCS [opts] TV IMAGE...
 *                                          records -> tandem trace file TV -> records,
 *                                          and compare
 *   gt-tool tv-dump TV [--priv P]          tandem trace -> records (text)
 *   gt-tool decode IMAGE... < ADDRS        classify the instruction at each address
 *   gt-tool stats PCS                      instruction and trap counts
 *   gt-tool walk PCS IMAGE...              check the image block table against the
 *                                          ground truth, then time block lookups
 *   gt-tool dump PCS                       one line per word: "pc A" / "trap A CAUSE"
 * opts: --priv u|s|m (privilege of every record), --strict (fail on any
 * unmarked discontinuity), --zc (Zcmp/Zcmt in the C.FSDSP space),
 * --jvt ADDR (Zcmt jump table base). IMAGE is an image spec (FILE, FILE@ADDR,
 * raw:FILE@ADDR).
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "ntrace/image.h"
#include "ntrace/ingress_build.h"

static int die(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "gt-tool: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return 1;
}

struct opts {
	struct ntrace_ingress_opts io;
	int strict, print;
	uint64_t start;
	struct ntrace_images *img;
	const char *pos[4];
	int npos;
};

static int parse_opts(int argc, char **argv, int npos, struct opts *o)
{
	int i;

	struct ntrace_isa_cfg cfg = NTRACE_ISA_CFG_RV64GC;

	memset(o, 0, sizeof(*o));
	o->io.priv = NTRACE_PRIV_U;
	/* the ISA first: images decode with it */
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--zc"))
			cfg.ext |= NTRACE_ISA_ZCMP | NTRACE_ISA_ZCMT;
		else if (!strcmp(argv[i], "--jvt") && i + 1 < argc)
			cfg.jvt_base = strtoull(argv[i + 1], NULL, 0);
	}
	o->img = ntrace_images_new(&cfg);
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--strict")) {
			o->strict = 1;
		} else if (!strcmp(a, "--zc")) {
			continue;
		} else if (!strcmp(a, "--jvt") && i + 1 < argc) {
			i++;
		} else if (!strcmp(a, "--print")) {
			o->print = 1;
		} else if (!strcmp(a, "--start") && i + 1 < argc) {
			o->start = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(a, "--priv") && i + 1 < argc) {
			const char *p = argv[++i];

			o->io.priv = *p == 'm' ? NTRACE_PRIV_M : *p == 's' ?
				NTRACE_PRIV_S : NTRACE_PRIV_U;
		} else if (o->npos < npos) {
			o->pos[o->npos++] = a;
		} else if (ntrace_images_add_spec(o->img, a)) {
			return die("%s%s", ntrace_images_errmsg(o->img), "");
		}
	}
	if (o->npos < npos)
		return die("missing arguments%s%s", "", "");
	return 0;
}

static int cmd_execlog(int argc, char **argv)
{
	struct opts o;
	struct ntrace_gt_writer *w;
	char line[512];
	FILE *f;
	struct ntrace_idec d;
	uint64_t pending = 0;
	int have = 0, rc, on;

	if (parse_opts(argc, argv, 2, &o))
		return 1;
	f = fopen(o.pos[0], "r");
	if (!f)
		return die("cannot open %s%s", o.pos[0], "");
	w = ntrace_gt_create(o.pos[1]);
	if (!w)
		return die("cannot create %s%s", o.pos[1], "");
	on = !o.start;
	while (fgets(line, sizeof(line), f)) {
		char *br = strchr(line, '[');
		uint64_t pc;

		if (strncmp(line, "Trace ", 6) || !br || !(br = strchr(br, '/')))
			continue;
		pc = strtoull(br + 1, NULL, 16);
		on |= pc == o.start;
		if (!on)
			continue;
		if (have)
			ntrace_gt_pc(w, pending);
		have = 0;
		if (ntrace_images_decode(o.img, pc, &d)) {
			fclose(f);
			ntrace_gt_close(w);
			return die("%s%s", ntrace_images_errmsg(o.img), "");
		}
		if (d.kind == NTRACE_IK_TRAP || d.kind == NTRACE_IK_INVALID) {
			uint32_t bits = 0;

			/*
			 * These never retire. Causes as in user mode: ECALL is a
			 * U-mode environment call (8), EBREAK a breakpoint (3).
			 */
			ntrace_images_insn_bits(o.img, pc, &bits);
			ntrace_gt_trap(w, pc, d.kind == NTRACE_IK_INVALID ? 2 :
				       bits == 0x73 ? 8 : 3);
		} else {
			pending = pc;
			have = 1;
		}
	}
	if (have)
		ntrace_gt_pc(w, pending);
	fclose(f);
	rc = ntrace_gt_close(w);
	ntrace_images_free(o.img);
	return rc ? die("write error on %s%s", o.pos[1], "") : 0;
}

static int build(struct opts *o, const char *pcs, struct ntrace_insn_vec *v,
		 struct ntrace_gt *gt)
{
	char err[512];

	if (ntrace_gt_load(pcs, gt, err, sizeof(err)))
		return die("%s%s", err, "");
	if (ntrace_ingress_from_gt(gt, o->img, &o->io, o->strict, v, err, sizeof(err)))
		return die("%s: %s", pcs, err);
	return 0;
}

static void summary(const char *what, const struct ntrace_insn_vec *v)
{
	size_t i, ins = 0, traps = 0, half = 0, cf = 0;

	for (i = 0; i < v->n; i++) {
		const struct ntrace_insn *r = &v->v[i];

		ins += r->size != 0;
		half += r->size / 2;
		traps += r->itype == NTRACE_ITYPE_EXCEPTION ||
			 r->itype == NTRACE_ITYPE_INTERRUPT;
		cf += r->itype != NTRACE_ITYPE_NONE;
	}
	printf("%s: %zu records, %zu instructions, %zu halfwords, %zu control "
	       "transfers, %zu traps\n", what, v->n, ins, half, cf, traps);
}

static int cmd_ingress(int argc, char **argv)
{
	struct opts o;
	struct ntrace_insn_vec v = { 0 };
	struct ntrace_gt gt;
	size_t i;

	if (parse_opts(argc, argv, 1, &o) || build(&o, o.pos[0], &v, &gt))
		return 1;
	if (o.print)
		for (i = 0; i < v.n; i++)
			ntrace_insn_print(stdout, &v.v[i]);
	else
		summary(o.pos[0], &v);
	ntrace_insn_vec_free(&v);
	ntrace_gt_free(&gt);
	ntrace_images_free(o.img);
	return 0;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc(n ? n : 1);
		if (buf && fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = n;
	}
	fclose(f);
	return buf;
}

static int cmd_tv_roundtrip(int argc, char **argv)
{
	struct opts o;
	struct ntrace_insn_vec v = { 0 }, back = { 0 };
	struct ntrace_gt gt;
	char err[512];
	uint8_t *buf;
	size_t len;
	FILE *f;
	int rc;

	if (parse_opts(argc, argv, 2, &o) || build(&o, o.pos[0], &v, &gt))
		return 1;
	f = fopen(o.pos[1], "wb");
	if (!f)
		return die("cannot create %s%s", o.pos[1], "");
	rc = ntrace_tv_export(v.v, v.n, o.img, f, err, sizeof(err));
	if (fclose(f) || rc)
		return die("export to %s: %s", o.pos[1], err);
	buf = slurp(o.pos[1], &len);
	if (!buf)
		return die("cannot read %s%s", o.pos[1], "");
	if (ntrace_tv_parse(buf, len, ntrace_images_isa(o.img), &o.io, &back, err,
			    sizeof(err)))
		return die("parse %s: %s", o.pos[1], err);
	rc = ntrace_insn_compare(v.v, v.n, back.v, back.n, err, sizeof(err));
	if (rc)
		return die("round trip through %s: %s", o.pos[1], err);
	printf("%s: %zu records, %zu bytes of tandem trace, parsed back identical\n",
	       o.pos[0], v.n, len);
	free(buf);
	ntrace_insn_vec_free(&v);
	ntrace_insn_vec_free(&back);
	ntrace_gt_free(&gt);
	ntrace_images_free(o.img);
	return 0;
}

static int cmd_tv_dump(int argc, char **argv)
{
	struct opts o;
	struct ntrace_insn_vec v = { 0 };
	char err[512];
	uint8_t *buf;
	size_t len, i;

	if (parse_opts(argc, argv, 1, &o))
		return 1;
	buf = slurp(o.pos[0], &len);
	if (!buf)
		return die("cannot read %s%s", o.pos[0], "");
	if (ntrace_tv_parse(buf, len, NULL, &o.io, &v, err, sizeof(err)))
		return die("%s: %s", o.pos[0], err);
	for (i = 0; i < v.n; i++)
		ntrace_insn_print(stdout, &v.v[i]);
	free(buf);
	ntrace_insn_vec_free(&v);
	ntrace_images_free(o.img);
	return 0;
}

static int cmd_decode(int argc, char **argv)
{
	struct opts o;
	char line[128];

	if (parse_opts(argc, argv, 0, &o))
		return 1;
	while (fgets(line, sizeof(line), stdin)) {
		uint64_t pc = strtoull(line, NULL, 16), t = 0;
		struct ntrace_idec d;

		if (ntrace_images_decode(o.img, pc, &d))
			return die("%s%s", ntrace_images_errmsg(o.img), "");
		if (ntrace_isa_is_direct(&d))
			ntrace_images_direct_target(o.img, pc, &d, &t);
		printf("%" PRIx64 " %u %s %s %" PRIx64 "\n", pc, d.size,
		       ntrace_ikind_name(d.kind), ntrace_itype_name(d.itype), t);
	}
	ntrace_images_free(o.img);
	return 0;
}

static int cmd_stats(int argc, char **argv)
{
	struct ntrace_gt gt;
	char err[512];

	if (argc < 1)
		return die("stats: missing file%s%s", "", "");
	if (ntrace_gt_load(argv[0], &gt, err, sizeof(err)))
		return die("%s%s", err, "");
	printf("%s: %zu retired, %zu traps\n", argv[0], gt.ninsn, gt.ntrap);
	ntrace_gt_free(&gt);
	return 0;
}

/*
 * Follow the ground truth block by block, as a flow decoder would: every
 * block must run for exactly ninsn retired instructions and end at its
 * 'last' instruction, unless a trap cuts it short.
 */
static int cmd_walk(int argc, char **argv)
{
	struct opts o;
	struct ntrace_gt gt;
	struct ntrace_block b = { 0 };
	uint64_t *starts, insns = 0, sum = 0;
	size_t i, nstarts = 0, left = 0, rounds, r;
	struct timespec t0, t1;
	char err[512];
	double sec;

	if (parse_opts(argc, argv, 1, &o))
		return 1;
	if (ntrace_gt_load(o.pos[0], &gt, err, sizeof(err)))
		return die("%s%s", err, "");
	starts = malloc((gt.n + 1) * sizeof(*starts));
	if (!starts)
		return die("out of memory%s%s", "", "");
	for (i = 0; i < gt.n; i++) {
		uint64_t pc = gt.w[i];

		if (pc & NTRACE_GT_TRAP) {
			left = 0;	/* a trap cuts the block short */
			i++;
			continue;
		}
		if (!left) {
			if (ntrace_images_block(o.img, pc, &b))
				return die("%s%s", ntrace_images_errmsg(o.img), "");
			starts[nstarts++] = pc;
			left = b.ninsn;
		}
		if (--left == 0 && pc != b.last) {
			fprintf(stderr, "gt-tool: block at 0x%" PRIx64 " should end at 0x%" PRIx64
				" after %u instructions, ground truth is at 0x%" PRIx64 "\n",
				b.start, b.last, b.ninsn, pc);
			return 1;
		}
		if (left && pc == b.last) {
			fprintf(stderr, "gt-tool: block at 0x%" PRIx64 " reached its end 0x%" PRIx64
				" early\n", b.start, b.last);
			return 1;
		}
	}
	/* lookup speed: replay the block starts until about 50M instructions */
	rounds = nstarts ? 50000000 / gt.ninsn + 1 : 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < nstarts; i++) {
			ntrace_images_block(o.img, starts[i], &b);
			insns += b.ninsn;
			sum += b.last;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sec = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%s: %zu blocks agree with the ground truth; lookups: %.1f M blocks/s, "
	       "%.0f M instructions/s (check %" PRIx64 ")\n", o.pos[0], nstarts,
	       sec > 0 ? rounds * nstarts / sec / 1e6 : 0.0,
	       sec > 0 ? insns / sec / 1e6 : 0.0, sum & 0xf);
	free(starts);
	ntrace_gt_free(&gt);
	ntrace_images_free(o.img);
	return 0;
}

static int cmd_dump(int argc, char **argv)
{
	struct ntrace_gt gt;
	char err[512];
	size_t i;

	if (argc < 1)
		return die("dump: missing file%s%s", "", "");
	if (ntrace_gt_load(argv[0], &gt, err, sizeof(err)))
		return die("%s%s", err, "");
	for (i = 0; i < gt.n; i++) {
		if (gt.w[i] & NTRACE_GT_TRAP) {
			printf("trap %" PRIx64 " %" PRIx64 "\n", gt.w[i] & ~NTRACE_GT_TRAP,
			       gt.w[i + 1]);
			i++;
		} else {
			printf("pc %" PRIx64 "\n", gt.w[i]);
		}
	}
	ntrace_gt_free(&gt);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{ "execlog", cmd_execlog }, { "ingress", cmd_ingress },
		{ "tv-roundtrip", cmd_tv_roundtrip }, { "tv-dump", cmd_tv_dump },
		{ "decode", cmd_decode }, { "stats", cmd_stats }, { "dump", cmd_dump },
		{ "walk", cmd_walk },
	};
	size_t i;

	for (i = 0; argc > 1 && i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 2, argv + 2);
	fprintf(stderr, "usage: gt-tool execlog|ingress|tv-roundtrip|tv-dump|decode|stats|dump|walk ...\n");
	return 2;
}
