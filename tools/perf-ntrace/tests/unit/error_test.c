// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The error convention (ntrace/error.h): every code has its own name, and
 * real failing calls return the documented negative code with a detail
 * that names the cause (the file, the word, the byte offset, the setting).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../../../include/uapi/linux/ntrace.h"
#include "ntrace/ntrace.h"
#include "tap.h"

#define ADD	0x00c58533u	/* add a0, a1, a2 */
#define ECALL	0x00000073u
#define N(a)	(sizeof(a) / sizeof((a)[0]))

static char dir[] = "/tmp/ntrace-error-test-XXXXXX";

static const char *tmp_path(const char *name)
{
	static char p[4][256];
	static unsigned int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void put_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static int has(const char *s, const char *part)
{
	return s && strstr(s, part) != NULL;
}

static void names(void)
{
	int c, d, distinct = 1, named = 1;

	for (c = NTRACE_ENOENT; c >= NTRACE_E__LAST; c--) {
		const char *s = ntrace_errstr(c);

		if (!s || !*s || !strcmp(s, "unknown error")) {
			tap_diag("code %d has no name", c);
			named = 0;
		}
		for (d = NTRACE_OK; d > c; d--)
			if (s && !strcmp(s, ntrace_errstr(d))) {
				tap_diag("codes %d and %d are both \"%s\"", c, d, s);
				distinct = 0;
			}
	}
	tap_ok(named, "every code from %d to %d has a name", NTRACE_ENOENT, NTRACE_E__LAST);
	tap_ok(distinct, "no two codes share a name");
	tap_ok(!strcmp(ntrace_errstr(NTRACE_OK), "success"), "0 is \"success\"");
	tap_ok(!strcmp(ntrace_errstr(NTRACE_E__LAST - 1), "unknown error") &&
	       !strcmp(ntrace_errstr(1), "unknown error"),
	       "values outside the enum are \"unknown error\"");
}

static void images(void)
{
	struct ntrace_images *set = ntrace_images_new(NULL);
	const char *txt = tmp_path("not-elf.txt");
	uint8_t code[8];
	struct ntrace_idec d;
	int rc;

	tap_ok(!strcmp(ntrace_images_errmsg(set), "no error"), "images: \"no error\" before a failure");
	rc = ntrace_images_add_elf(set, "/nonexistent/prog", 0, 0);
	tap_ok(rc == NTRACE_ENOENT && has(ntrace_images_errmsg(set), "/nonexistent/prog") &&
	       has(ntrace_images_errmsg(set), "cannot open"),
	       "images: a missing ELF is NTRACE_ENOENT naming the path (%s)",
	       ntrace_images_errmsg(set));
	put_file(txt, "hello, world\n", 13);
	rc = ntrace_images_add_elf(set, txt, 0, 0);
	tap_ok(rc == NTRACE_ENOTELF && has(ntrace_images_errmsg(set), txt),
	       "images: a text file is NTRACE_ENOTELF naming the path (%s)",
	       ntrace_images_errmsg(set));
	memset(code, 0x13, sizeof(code));	/* nops */
	rc = ntrace_images_add_mem(set, "a", code, sizeof(code), 0x1000);
	tap_ok(rc == 0 && !strcmp(ntrace_images_errmsg(set), "no error"),
	       "images: a success clears the detail");
	rc = ntrace_images_add_mem(set, "b", code, sizeof(code), 0x1004);
	tap_ok(rc == NTRACE_EOVERLAP && has(ntrace_images_errmsg(set), "overlaps a"),
	       "images: an overlap is NTRACE_EOVERLAP naming both (%s)", ntrace_images_errmsg(set));
	rc = ntrace_images_decode(set, 0x2000, &d);
	tap_ok(rc == NTRACE_ENOMAP && has(ntrace_images_errmsg(set), "0x2000"),
	       "images: decoding outside is NTRACE_ENOMAP naming the address (%s)",
	       ntrace_images_errmsg(set));
	rc = ntrace_images_add_spec(set, "raw:blob");
	tap_ok(rc == NTRACE_EINVAL && has(ntrace_images_errmsg(set), "raw:FILE@ADDR"),
	       "images: a raw spec without address is NTRACE_EINVAL (%s)",
	       ntrace_images_errmsg(set));
	ntrace_images_free(set);
}

/* An AUXTRACE_INFO payload with one BTM CPU, as the recorder writes it. */
static size_t payload(uint8_t *buf)
{
	struct ntrace_auxtrace_info h = {
		.magic = NTRACE_AUXTRACE_MAGIC, .version = NTRACE_AUXTRACE_VERSION,
		.hdr_size = sizeof(h), .nr_cpus = 1, .rec_size = sizeof(struct ntrace_cpu_info),
	};
	struct ntrace_cpu_info c = {
		.format = 1, .proto_major = 1, .mode = NTRACE_MODE_BTM, .itype_bits = 4,
		.xlen = 64,
	};

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &c, sizeof(c));
	return sizeof(h) + sizeof(c);
}

/* The calls perf makes, with its own buffer size. */
static void auxinfo(void)
{
	uint8_t buf[sizeof(struct ntrace_auxtrace_info) + sizeof(struct ntrace_cpu_info)];
	size_t len = payload(buf);
	struct ntrace_auxinfo info;
	char why[256], tiny[8];
	int rc;

	rc = ntrace_auxinfo_parse(buf, len, &info, why, sizeof(why));
	tap_ok(rc == 0 && info.nr_cpus == 1, "auxinfo: the whole payload parses");
	ntrace_auxinfo_free(&info);
	rc = ntrace_auxinfo_parse(buf, len - 16, &info, why, sizeof(why));
	tap_ok(rc == NTRACE_ECORRUPT && has(why, "inconsistent") && !info.nr_cpus && !info.cpus,
	       "auxinfo: a payload cut in its CPU record is NTRACE_ECORRUPT (%s: %s)",
	       ntrace_errstr(rc), why);
	rc = ntrace_auxinfo_parse(buf, 12, &info, why, sizeof(why));
	tap_ok(rc == NTRACE_EINVAL && has(why, "12 bytes"),
	       "auxinfo: a payload cut in its header is NTRACE_EINVAL naming its size (%s)", why);
	rc = ntrace_auxinfo_parse(buf, len - 16, &info, NULL, 0);
	tap_ok(rc == NTRACE_ECORRUPT, "auxinfo: the code comes without an err buffer too");
	rc = ntrace_auxinfo_parse(buf, len - 16, &info, tiny, sizeof(tiny));
	tap_ok(rc == NTRACE_ECORRUPT && strlen(tiny) == sizeof(tiny) - 1,
	       "auxinfo: a short err buffer is filled and terminated (\"%s\")", tiny);
	((struct ntrace_cpu_info *)(buf + sizeof(struct ntrace_auxtrace_info)))->mode = 5;
	rc = ntrace_auxinfo_parse(buf, len, &info, why, sizeof(why));
	tap_ok(rc == NTRACE_ECONFIG && has(why, "CPU 0") && has(why, "trTeInstMode"),
	       "auxinfo: unusable settings are NTRACE_ECONFIG naming CPU and field (%s)", why);
}

/* Images with add, add, ecall at 0x1000. */
static struct ntrace_images *code_images(void)
{
	uint32_t w[] = { ADD, ADD, ECALL, ADD };
	struct ntrace_images *set = ntrace_images_new(NULL);

	if (!set || ntrace_images_add_mem(set, "code", w, sizeof(w), 0x1000)) {
		fprintf(stderr, "cannot set up the image\n");
		exit(2);
	}
	return set;
}

static void ground_truth(void)
{
	struct ntrace_images *set = code_images();
	uint64_t outside[] = { 0x1000, 0x1004, 0x9000 }, ecall[] = { 0x1000, 0x1004, 0x1008 };
	uint8_t file[8 + 8] = "NTGTPCS1";
	struct ntrace_gt gt = { 0 };
	struct ntrace_insn_vec v = { 0 };
	char err[256];
	int rc;

	rc = ntrace_gt_load("/nonexistent/x.pcs", &gt, err, sizeof(err));
	tap_ok(rc == NTRACE_ENOENT && has(err, "/nonexistent/x.pcs"),
	       "gt: a missing file is NTRACE_ENOENT naming it (%s)", err);
	put_file(tmp_path("bad.pcs"), "NTGTPCS2\0\0\0\0\0\0\0\0", 16);
	rc = ntrace_gt_load(tmp_path("bad.pcs"), &gt, err, sizeof(err));
	tap_ok(rc == NTRACE_EBADINPUT && has(err, "magic") && !gt.w,
	       "gt: a wrong magic is NTRACE_EBADINPUT (%s)", err);
	file[8] = 0x01;	/* a trap mark with no cause word after it */
	put_file(tmp_path("trap.pcs"), file, sizeof(file));
	rc = ntrace_gt_load(tmp_path("trap.pcs"), &gt, err, sizeof(err));
	tap_ok(rc == NTRACE_EBADINPUT && has(err, "trap mark"),
	       "gt: a trap mark at the end is NTRACE_EBADINPUT (%s)", err);

	gt.w = outside;
	gt.n = N(outside);
	rc = ntrace_ingress_from_gt(&gt, set, NULL, 0, &v, err, sizeof(err));
	tap_ok(rc == NTRACE_ENOMAP && has(err, "ground-truth word 2") && has(err, "0x9000"),
	       "gt: a PC outside the images is NTRACE_ENOMAP naming word and address (%s)", err);
	ntrace_insn_vec_free(&v);
	gt.w = ecall;
	gt.n = N(ecall);
	rc = ntrace_ingress_from_gt(&gt, set, NULL, 0, &v, err, sizeof(err));
	tap_ok(rc == NTRACE_EBADINPUT && has(err, "ground-truth word 2") && has(err, "ECALL"),
	       "gt: a retired ECALL is NTRACE_EBADINPUT naming the word (%s)", err);
	ntrace_insn_vec_free(&v);
	ntrace_images_free(set);
}

static int consume_fail(void *arg, const struct ntrace_insn *in)
{
	(void)arg;
	(void)in;
	return NTRACE_ENOMEM;
}

static void builder(void)
{
	const struct ntrace_isa_cfg cfg = NTRACE_ISA_CFG_RV64GC;
	struct ntrace_builder *b = ntrace_builder_new(NULL, consume_fail, NULL);
	struct ntrace_idec add, ecall;
	int rc;

	ntrace_isa_decode(ADD, &cfg, &add);
	ntrace_isa_decode(ECALL, &cfg, &ecall);
	rc = ntrace_builder_insn(b, 0x1000, &ecall, 0);
	tap_ok(rc == NTRACE_EBADINPUT && has(ntrace_builder_errmsg(b), "0x1000"),
	       "builder: a retired ECALL is NTRACE_EBADINPUT (%s)", ntrace_builder_errmsg(b));
	/* records are handed on two late: the third instruction delivers the first */
	rc = ntrace_builder_insn(b, 0x1000, &add, 0);
	if (!rc)
		rc = ntrace_builder_insn(b, 0x1004, &add, 0);
	if (!rc)
		rc = ntrace_builder_insn(b, 0x1008, &add, 0);
	tap_ok(rc == NTRACE_ENOMEM && has(ntrace_builder_errmsg(b), "record consumer"),
	       "builder: the consumer's failure is returned as it is (%s)",
	       ntrace_builder_errmsg(b));
	ntrace_builder_free(b);
}

static void text_and_tv(void)
{
	static const uint8_t unknown[] = { 3, 42 }, cut[] = { 17, 0x13, 0x00 };
	struct ntrace_insn_vec v = { 0 };
	struct ntrace_insn in;
	const char *why = "unset";
	char err[256];
	int rc;

	rc = ntrace_insn_parse_text("0x1000 3 0\n", &in, &why);
	tap_ok(rc == NTRACE_EBADINPUT && has(why, "size"),
	       "text: a bad record line is NTRACE_EBADINPUT naming the field (%s)", why);
	rc = ntrace_insn_parse_text("0x1000 4 0 # ok\n", &in, &why);
	tap_ok(rc == 1 && !why, "text: a good line is a record, *why NULL");
	rc = ntrace_tv_parse(unknown, sizeof(unknown), NULL, NULL, &v, err, sizeof(err));
	tap_ok(rc == NTRACE_EBADINPUT && has(err, "offset 1") && has(err, "unknown opcode"),
	       "tv: an unknown opcode is NTRACE_EBADINPUT at its offset (%s)", err);
	ntrace_insn_vec_free(&v);
	rc = ntrace_tv_parse(cut, sizeof(cut), NULL, NULL, &v, err, sizeof(err));
	tap_ok(rc == NTRACE_EBADINPUT && has(err, "offset 1") && has(err, "truncated"),
	       "tv: a cut field is NTRACE_EBADINPUT at its offset (%s)", err);
	ntrace_insn_vec_free(&v);
}

static int ev_none(void *ctx, const struct ntrace_dec_event *ev)
{
	(void)ctx;
	(void)ev;
	return 0;
}

static int pcs_none(void *ctx, const uint64_t *pcs, size_t n)
{
	(void)ctx;
	(void)pcs;
	(void)n;
	return 0;
}

static void settings_and_decoder(void)
{
	struct ntrace_enc_cfg bad = { .mode = 4 };
	struct ntrace_dec_ops ops = { NULL, ev_none };
	struct ntrace_images *set = ntrace_images_new(NULL);
	struct ntrace_dec_run run = { .start = 0x4000, .last = 0x4002, .ninsn = 2 };
	struct ntrace_dec_cfg dc;
	struct ntrace_decoder *d;
	struct ntrace_encoder e;
	const char *why = NULL;
	int rc;

	rc = ntrace_enc_cfg_check(&bad, &why);
	tap_ok(rc == NTRACE_ECONFIG && has(why, "trTeInstMode"),
	       "settings: a bad mode is NTRACE_ECONFIG naming trTeInstMode (%s)", why);
	why = NULL;
	rc = ntrace_encoder_init(&e, &bad, NULL, NULL, &why);
	tap_ok(rc == NTRACE_ECONFIG && has(why, "trTeInstMode"),
	       "settings: the encoder refuses it the same way (%s)", why);
	ntrace_dec_cfg_default(&dc);
	dc.bcache_bits = 30;
	why = NULL;
	d = ntrace_decoder_new(&dc, set, &ops, NULL, &why);
	tap_ok(!d && has(why, "block cache"), "decoder: a too large cache is refused (%s)", why);
	ntrace_dec_cfg_default(&dc);
	d = ntrace_decoder_new(&dc, set, &ops, NULL, &why);
	rc = d ? ntrace_decoder_run_pcs(d, &run, pcs_none, NULL) : -100;
	tap_ok(rc == NTRACE_ENOMAP && has(ntrace_images_errmsg(set), "0x4000"),
	       "decoder: listing a run the images do not hold is NTRACE_ENOMAP (%s)",
	       ntrace_images_errmsg(set));
	ntrace_decoder_free(d);
	ntrace_images_free(set);
}

static void writes(void)
{
	struct ntrace_dec_run run = { .start = 0x1000, .last = 0x1000, .to = 0x2000, .ninsn = 1,
				      .kind = NTRACE_DK_TAKEN };
	struct ntrace_msg m = { .tcode = NTRACE_TC_PROG_TRACE_SYNC, .sync = 5,
				.flags = NTRACE_MSGF_ICNT | NTRACE_MSGF_ADDR };
	struct ntrace_codec_cfg codec = { .xlen = 64 };
	struct ntrace_byte_sink bs = { .codec = &codec };
	struct ntrace_images *set = ntrace_images_new(NULL);
	struct ntrace_gt_writer *gw;
	struct ntrace_sink *s;
	FILE *full = fopen("/dev/full", "w");
	int rc;

	if (!full) {
		tap_ok(1, "writes # SKIP no /dev/full");
		return;
	}
	s = ntrace_sink_new(NTRACE_SINK_BRANCHES, full, NULL, set);
	rc = ntrace_sink_runs(s, &run, 1);
	if (!rc)
		rc = ntrace_sink_flush(s);
	tap_ok(rc == NTRACE_EWRITE && has(ntrace_sink_errmsg(s), strerror(ENOSPC)) &&
	       ntrace_sink_flush(s) == NTRACE_EWRITE,
	       "sink: a full disk is NTRACE_EWRITE, kept, and named (%s)", ntrace_sink_errmsg(s));
	ntrace_sink_free(s);
	fclose(full);

	full = fopen("/dev/full", "w");
	setvbuf(full, NULL, _IONBF, 0);
	bs.out = full;
	rc = ntrace_byte_sink_emit(&bs, &m);
	tap_ok(rc == NTRACE_EWRITE, "byte sink: a failed write is NTRACE_EWRITE");
	m.sync = 20;	/* does not fit its 4 bits */
	rc = ntrace_byte_sink_emit(&bs, &m);
	tap_ok(rc == NTRACE_EINVAL, "byte sink: a message that cannot be encoded is NTRACE_EINVAL");
	fclose(full);

	gw = ntrace_gt_create("/dev/full");
	if (gw) {
		ntrace_gt_pc(gw, 0x1000);
		errno = 0;
		rc = ntrace_gt_close(gw);
	}
	tap_ok(gw && rc == NTRACE_EWRITE && errno == ENOSPC,
	       "gt writer: a failed write is NTRACE_EWRITE, errno kept (%s)", strerror(errno));
	ntrace_images_free(set);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	names();
	images();
	auxinfo();
	ground_truth();
	builder();
	text_and_tv();
	settings_and_decoder();
	writes();
	unlink(tmp_path("not-elf.txt"));
	unlink(tmp_path("bad.pcs"));
	unlink(tmp_path("trap.pcs"));
	rmdir(dir);
	return tap_done();
}
