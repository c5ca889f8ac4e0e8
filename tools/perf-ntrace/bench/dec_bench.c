// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Flow decoder throughput on the largest recorded ground-truth program:
 * the recorded flow is encoded (HTM, 8-deep return stack, repeated
 * history) and decoded repeatedly into branch records, and into PC text
 * written to /dev/null. Also encoder throughput, and bits per instruction
 * for every round-trip configuration. Numbers only, never pass/fail.
 *
 * Ground truth: $NTRACE_GT_DIR, build/gt or build/perf-ntrace/roundtrip/gt
 * (NAME.pcs + NAME.elf or NAME; tests/roundtrip.sh records them when missing).
 *
 * dec_bench TRACE ELF: only the decoder, on a raw trace made elsewhere (the
 * stream scripts/nexrv-dec-bench.sh gives NexRv's decoder too), best of
 * three rounds of at least a CPU second each, one line per output.
 *
 * dec_bench --once N TRACE ELF: N decodes into branch records, each in
 * decode_pass(), for instruction counts that do not depend on the load:
 *   valgrind --tool=callgrind --toggle-collect=decode_pass dec_bench --once N ...
 * (two runs, N = 1 and 3: half the difference is one warm decode).
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include <ntrace/decoder.h>
#include <ntrace/ingress_build.h>

#include "../tests/roundtrip/rt_configs.h"

/* CPU time of this process: the machine is shared, wall time is noisy. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct mem {
	const struct ntrace_codec_cfg *codec;
	uint8_t *buf;
	size_t len, cap;
};

static int to_mem(void *ctx, const struct ntrace_msg *m)
{
	struct mem *b = ctx;

	if (b->len + NTRACE_MSG_MAX_BYTES > b->cap) {
		b->cap = b->cap * 2 + 4096;
		b->buf = realloc(b->buf, b->cap);
		if (!b->buf)
			return -1;
	}
	b->len += ntrace_msg_encode(b->codec, m, b->buf + b->len);
	return 0;
}

static int encode(const struct ntrace_enc_cfg *cfg, const struct ntrace_insn *in, size_t n,
		  struct mem *out)
{
	struct ntrace_encoder e;

	out->codec = &cfg->codec;
	out->len = 0;
	if (ntrace_encoder_init(&e, cfg, to_mem, out, NULL))
		return -1;
	return ntrace_encoder_put(&e, in, n) || ntrace_encoder_finish(&e) ? -1 : 0;
}

/* The branch-record consumer: what perf samples or AutoFDO would take. */
struct brec {
	uint64_t from, to, ts;
	uint32_t kind;
};

struct bsink {
	struct brec rec[4096];
	size_t n;
	uint64_t total;
};

static int branches(void *ctx, const struct ntrace_dec_run *r, size_t n)
{
	struct bsink *s = ctx;
	size_t i;

	for (i = 0; i < n; i++) {
		if (r[i].kind == NTRACE_DK_FALL || r[i].kind == NTRACE_DK_NOT_TAKEN)
			continue;
		if (s->n == 4096) {
			s->total += s->n;
			s->n = 0;
		}
		s->rec[s->n].from = r[i].ninsn ? r[i].last : r[i].start;
		s->rec[s->n].to = r[i].to;
		s->rec[s->n].ts = r[i].tstamp;
		s->rec[s->n].kind = r[i].kind;
		s->n++;
	}
	return 0;
}

static int find_gt(char *pcs, char *elf, size_t len)
{
	const char *dirs[] = { getenv("NTRACE_GT_DIR"), "build/gt", "build/perf-ntrace/roundtrip/gt",
			       "../../build/gt", "../../build/perf-ntrace/roundtrip/gt" };
	off_t best = 0;
	unsigned int i, ndirs = dirs[0] ? 1 : sizeof(dirs) / sizeof(dirs[0]);

	for (i = 0; i < ndirs; i++) {	/* $NTRACE_GT_DIR alone when set */
		DIR *d = dirs[i] ? opendir(dirs[i]) : NULL;
		struct dirent *de;

		while (d && (de = readdir(d))) {
			size_t l = strlen(de->d_name);
			struct stat st;
			char p[1024], e[1024];

			if (l < 5 || strcmp(de->d_name + l - 4, ".pcs"))
				continue;
			snprintf(p, sizeof(p), "%s/%s", dirs[i], de->d_name);
			snprintf(e, sizeof(e), "%s/%.*s.elf", dirs[i], (int)(l - 4), de->d_name);
			if (access(e, R_OK))	/* build/gt names the ELF without .elf */
				snprintf(e, sizeof(e), "%s/%.*s", dirs[i], (int)(l - 4), de->d_name);
			if (stat(p, &st) || access(e, R_OK) || st.st_size <= best)
				continue;
			best = st.st_size;
			snprintf(pcs, len, "%s", p);
			snprintf(elf, len, "%s", e);
		}
		if (d)
			closedir(d);
	}
	return best ? 0 : -1;
}

/*
 * Decode buf (len bytes) over and over for at least a CPU second, into
 * branch records (pc == NULL) or PC text written to pc; instructions per
 * CPU second, *insns the instructions of one pass (0 on a decode error).
 */
static double dec_rate(const struct ntrace_dec_cfg *dc, struct ntrace_images *img,
		       const uint8_t *buf, size_t len, FILE *pc, uint64_t *insns)
{
	static struct bsink bs;
	struct ntrace_dec_ops ops = { branches, NULL };
	struct ntrace_sink *s = NULL;
	struct ntrace_decoder *d;
	struct ntrace_dec_stats st;
	uint64_t rounds;
	double t0, t;

	if (pc) {
		s = ntrace_sink_new(NTRACE_SINK_PC, pc, NULL, img);
		ops.runs = ntrace_sink_runs;
	}
	d = ntrace_decoder_new(dc, img, &ops, s ? (void *)s : (void *)&bs, NULL);
	if (!d || (pc && !s))
		return 0;
	if (s)
		ntrace_sink_set_decoder(s, d);
	ntrace_decoder_feed(d, buf, len);	/* warm the block cache */
	ntrace_decoder_finish(d);
	ntrace_decoder_stats(d, &st);
	*insns = st.errors ? 0 : st.insns;
	t0 = now();
	for (rounds = 0; now() - t0 < 1.0; rounds++) {
		ntrace_decoder_feed(d, buf, len);
		ntrace_decoder_finish(d);
	}
	if (s)
		ntrace_sink_flush(s);
	t = now() - t0;
	ntrace_decoder_free(d);
	ntrace_sink_free(s);
	return (double)*insns * (double)rounds / t;
}

/* One decode of buf into branch records (the unit --once counts). */
__attribute__((noinline)) void decode_pass(struct ntrace_decoder *d, const uint8_t *buf,
					    size_t len)
{
	ntrace_decoder_feed(d, buf, len);
	ntrace_decoder_finish(d);
}

static uint8_t *read_all(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, k;

	if (!f)
		return NULL;
	do {
		if (len == cap && !(buf = realloc(buf, cap = cap * 2 + (1 << 20))))
			break;
		k = fread(buf + len, 1, cap - len, f);
		len += k;
	} while (k);
	fclose(f);
	*lenp = len;
	return buf;
}

static int once(unsigned int n, const char *trace, const char *elf)
{
	struct ntrace_images *img = ntrace_images_new(NULL);
	struct ntrace_dec_ops ops = { branches, NULL };
	static struct bsink bs;
	struct ntrace_decoder *d;
	struct ntrace_dec_stats st;
	struct ntrace_dec_cfg dc;
	size_t len = 0;
	uint8_t *buf = read_all(trace, &len);
	unsigned int i;

	if (!buf || !img || ntrace_images_add_spec(img, elf)) {
		fprintf(stderr, "dec_bench: cannot read %s or %s\n", trace, elf);
		return 1;
	}
	ntrace_dec_cfg_default(&dc);
	d = ntrace_decoder_new(&dc, img, &ops, &bs, NULL);
	if (!d)
		return 1;
	for (i = 0; i < n; i++)
		decode_pass(d, buf, len);
	ntrace_decoder_stats(d, &st);
	printf("decode %s %u times: %" PRIu64 " instructions, %" PRIu64 " errors\n", trace, n,
	       st.insns, st.errors);
	ntrace_decoder_free(d);
	ntrace_images_free(img);
	free(buf);
	return 0;
}

static int trace_only(const char *trace, const char *elf)
{
	struct ntrace_images *img = ntrace_images_new(NULL);
	struct ntrace_dec_cfg dc;
	double best[2] = { 0, 0 };
	uint64_t insns = 0;
	size_t len = 0;
	uint8_t *buf = read_all(trace, &len);
	FILE *null = fopen("/dev/null", "w");
	int i, j;

	if (!buf || !null || !img || ntrace_images_add_spec(img, elf)) {
		fprintf(stderr, "dec_bench: cannot read %s or %s\n", trace, elf);
		return 1;
	}
	ntrace_dec_cfg_default(&dc);	/* HTM, BTM and widths come from the messages */
	for (i = 0; i < 3; i++)
		for (j = 0; j < 2; j++) {
			double r = dec_rate(&dc, img, buf, len, j ? null : NULL, &insns);

			if (!insns) {
				fprintf(stderr, "dec_bench: %s does not decode cleanly\n", trace);
				return 1;
			}
			best[j] = r > best[j] ? r : best[j];
		}
	printf("decode %s: %" PRIu64 " instructions, %zu bytes\n", trace, insns, len);
	printf("  decode -> branch records: %.0f M instructions/s\n", best[0] / 1e6);
	printf("  decode -> PC text to /dev/null: %.0f M instructions/s\n", best[1] / 1e6);
	fclose(null);
	free(buf);
	ntrace_images_free(img);
	return 0;
}

int main(int argc, char **argv)
{
	char pcs[1024], elf[1024], err[512];
	struct ntrace_images *img = ntrace_images_new(NULL);
	struct ntrace_ingress_opts io = { .priv = NTRACE_PRIV_U };
	struct ntrace_insn_vec rec = { 0 };
	struct ntrace_gt gt;
	struct ntrace_enc_cfg cfg;
	struct ntrace_dec_cfg dc;
	struct mem m = { 0 };
	static struct bsink bs;
	struct ntrace_dec_stats st;
	struct ntrace_decoder *d;
	struct ntrace_dec_ops ops = { branches, NULL };
	uint64_t ninsn = 0, rounds;
	double t0, t;
	size_t i;
	FILE *null;

	if (argc == 5 && !strcmp(argv[1], "--once"))
		return once((unsigned int)atoi(argv[2]), argv[3], argv[4]);
	if (argc == 3)
		return trace_only(argv[1], argv[2]);
	if (find_gt(pcs, elf, sizeof(pcs))) {
		printf("dec_bench: no ground truth found (run make test first); skipped\n");
		return 0;
	}
	if (ntrace_images_add_spec(img, elf) || ntrace_gt_load(pcs, &gt, err, sizeof(err)) < 0 ||
	    ntrace_ingress_from_gt(&gt, img, &io, 0, &rec, err, sizeof(err)) < 0) {
		printf("dec_bench: %s: %s\n", pcs, err);
		return 1;
	}
	for (i = 0; i < rec.n; i++)
		ninsn += rec.v[i].size != 0;
	printf("decoder benchmark on %s: %" PRIu64 " instructions (rates per CPU second)\n", pcs,
	       ninsn);

	/* encoder throughput, HTM + return stack 8 + repeated history */
	ntrace_enc_cfg_default(&cfg);
	rt_config_find("htm-ret8-rh")->apply(&cfg);
	t0 = now();
	for (rounds = 0; now() - t0 < 0.5; rounds++)
		if (encode(&cfg, rec.v, rec.n, &m))
			return 1;
	t = now() - t0;
	printf("  encoder (htm-ret8-rh): %.1f M records/s, %zu bytes, %.3f bits/instruction\n",
	       (double)rec.n * (double)rounds / t / 1e6, m.len, 8.0 * (double)m.len / (double)ninsn);

	ntrace_dec_cfg_default(&dc);
	dc.enc = cfg;
	d = ntrace_decoder_new(&dc, img, &ops, &bs, NULL);
	if (!d)
		return 1;
	ntrace_decoder_feed(d, m.buf, m.len);	/* warm the block cache */
	ntrace_decoder_finish(d);
	ntrace_decoder_free(d);
	d = ntrace_decoder_new(&dc, img, &ops, &bs, NULL);
	t0 = now();
	for (rounds = 0; now() - t0 < 1.0; rounds++) {
		ntrace_decoder_feed(d, m.buf, m.len);
		ntrace_decoder_finish(d);
	}
	t = now() - t0;
	ntrace_decoder_stats(d, &st);
	printf("  decode -> branch records: %.0f M instructions/s, %.1f MB/s of trace, "
	       "%.1f M branch records/s\n", (double)st.insns / t / 1e6,
	       (double)st.bytes / t / 1e6, (double)(bs.total + bs.n) / t / 1e6);
	if (st.insns != ninsn * rounds || st.errors)
		printf("  WARNING: decoded %" PRIu64 " instructions with %" PRIu64
		       " errors, expected %" PRIu64 "\n", st.insns, st.errors, ninsn * rounds);
	ntrace_decoder_free(d);

	null = fopen("/dev/null", "w");
	{
		struct ntrace_sink *s = ntrace_sink_new(NTRACE_SINK_PC, null, NULL, img);
		struct ntrace_dec_ops pops = { ntrace_sink_runs, NULL };

		d = ntrace_decoder_new(&dc, img, &pops, s, NULL);
		ntrace_sink_set_decoder(s, d);
		t0 = now();
		for (rounds = 0; now() - t0 < 1.0; rounds++) {
			ntrace_decoder_feed(d, m.buf, m.len);
			ntrace_decoder_finish(d);
		}
		ntrace_sink_flush(s);
		t = now() - t0;
		ntrace_decoder_stats(d, &st);
		printf("  decode -> PC text to /dev/null: %.0f M instructions/s\n",
		       (double)st.insns / t / 1e6);
		ntrace_decoder_free(d);
		ntrace_sink_free(s);
	}
	fclose(null);

	printf("  bits per instruction by encoder configuration:\n");
	for (i = 0; i < RT_NCONFIGS; i++) {
		ntrace_enc_cfg_default(&cfg);
		rt_configs[i].apply(&cfg);
		if (encode(&cfg, rec.v, rec.n, &m))
			continue;
		printf("    %-20s %8zu bytes  %.3f bits/instruction\n", rt_configs[i].name, m.len,
		       8.0 * (double)m.len / (double)ninsn);
	}
	free(m.buf);
	ntrace_insn_vec_free(&rec);
	ntrace_gt_free(&gt);
	ntrace_images_free(img);
	return 0;
}
