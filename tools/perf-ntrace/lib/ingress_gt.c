// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Ground-truth PC files (.pcs, format in ingress_build.h) and the
 * conversion of one into ingress records using the program images.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err_internal.h"
#include "ntrace/ingress_build.h"

static int gt_load(const char *path, struct ntrace_gt *gt, struct ntrace_errbuf *e)
{
	FILE *f = fopen(path, "rb");
	char magic[8];
	long size;
	size_t i;

	if (!f)
		return ntrace_err_set(e, NTRACE_ENOENT, "%s: cannot open: %s", path,
				      strerror(errno));
	if (fread(magic, 1, 8, f) != 8 || memcmp(magic, NTRACE_GT_MAGIC, 8)) {
		fclose(f);
		return ntrace_err_set(e, NTRACE_EBADINPUT,
				      "%s: not a ground-truth PC file (no %s magic)", path,
				      NTRACE_GT_MAGIC);
	}
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 8 || (size - 8) % 8 ||
	    fseek(f, 8, SEEK_SET)) {
		fclose(f);
		return ntrace_err_set(e, NTRACE_EBADINPUT,
				      "%s: size is not 8 + a multiple of 8 bytes", path);
	}
	gt->n = (size_t)(size - 8) / 8;
	gt->w = malloc(gt->n ? gt->n * 8 : 1);
	if (!gt->w) {
		fclose(f);
		return ntrace_err_set(e, NTRACE_ENOMEM, "%s: out of memory for %zu words", path,
				      gt->n);
	}
	if (fread(gt->w, 8, gt->n, f) != gt->n) {
		fclose(f);
		return ntrace_err_set(e, NTRACE_ENOENT, "%s: read failed", path);
	}
	fclose(f);
	for (i = 0; i < gt->n; i++) {
		if (gt->w[i] & NTRACE_GT_TRAP) {
			if (i + 1 == gt->n)
				return ntrace_err_set(e, NTRACE_EBADINPUT,
						      "%s: trap mark without a cause at the end",
						      path);
			gt->ntrap++;
			i++;
		} else {
			gt->ninsn++;
		}
	}
	return 0;
}

int ntrace_gt_load(const char *path, struct ntrace_gt *gt, char *err,
		   size_t errlen)
{
	struct ntrace_errbuf e = { 0 };
	int rc;

	memset(gt, 0, sizeof(*gt));
	rc = gt_load(path, gt, &e);
	if (rc)
		ntrace_gt_free(gt);
	return rc ? ntrace_err_copy(&e, err, errlen) : 0;
}

void ntrace_gt_free(struct ntrace_gt *gt)
{
	free(gt->w);
	memset(gt, 0, sizeof(*gt));
}

struct ntrace_gt_writer {
	FILE *f;
	int err;
	uint64_t buf[4096];
	size_t n;
};

struct ntrace_gt_writer *ntrace_gt_create(const char *path)
{
	struct ntrace_gt_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->f = fopen(path, "wb");
	if (!w->f || fwrite(NTRACE_GT_MAGIC, 1, 8, w->f) != 8) {
		if (w->f)
			fclose(w->f);
		free(w);
		return NULL;
	}
	return w;
}

static void put(struct ntrace_gt_writer *w, uint64_t v)
{
	if (w->n == sizeof(w->buf) / sizeof(w->buf[0])) {
		if (fwrite(w->buf, 8, w->n, w->f) != w->n)
			w->err = errno ? errno : EIO;
		w->n = 0;
	}
	w->buf[w->n++] = v;
}

void ntrace_gt_pc(struct ntrace_gt_writer *w, uint64_t pc)
{
	put(w, pc & ~NTRACE_GT_TRAP);
}

void ntrace_gt_trap(struct ntrace_gt_writer *w, uint64_t epc, uint64_t cause)
{
	put(w, epc | NTRACE_GT_TRAP);
	put(w, cause);
}

int ntrace_gt_close(struct ntrace_gt_writer *w)
{
	int err;

	if (w->n && fwrite(w->buf, 8, w->n, w->f) != w->n)
		w->err = errno ? errno : EIO;
	if (fclose(w->f) && !w->err)
		w->err = errno ? errno : EIO;
	err = w->err;
	free(w);
	if (!err)
		return 0;
	errno = err;	/* the first write error's, for the caller's message */
	return NTRACE_EWRITE;
}

static int from_gt(const struct ntrace_gt *gt, struct ntrace_images *img,
		   const struct ntrace_ingress_opts *o, int strict, struct ntrace_builder *b,
		   struct ntrace_errbuf *e)
{
	uint8_t priv = o ? o->priv : NTRACE_PRIV_U;
	struct ntrace_idec d;
	uint64_t prev_pc = 0, t;
	int prev_table = 0, rc;
	size_t i;

	for (i = 0; i < gt->n; i++) {
		uint64_t w = gt->w[i];

		if (w & NTRACE_GT_TRAP) {
			rc = ntrace_builder_trap(b, w & ~NTRACE_GT_TRAP, gt->w[i + 1], 0,
						 1, priv);
			if (rc)
				return ntrace_err_set(e, rc, "ground-truth word %zu: %s", i,
						      ntrace_builder_errmsg(b));
			prev_table = 0;
			i++;
			continue;
		}
		/* a Zcmt table jump must land where its table entry says */
		if (prev_table && ntrace_images_direct_target(img, prev_pc, &d, &t) == 0 &&
		    t != w)
			return ntrace_err_set(e, NTRACE_EBADINPUT,
					      "ground-truth word %zu: table jump at 0x%" PRIx64
					      " went to 0x%" PRIx64 ", its JVT entry says 0x%"
					      PRIx64, i, prev_pc, w, t);
		rc = ntrace_images_decode(img, w, &d);
		if (rc)
			return ntrace_err_set(e, rc, "ground-truth word %zu: %s", i,
					      ntrace_images_errmsg(img));
		prev_table = d.kind == NTRACE_IK_TABLE_JUMP;
		prev_pc = w;
		rc = ntrace_builder_insn(b, w, &d, priv);
		if (rc)
			return ntrace_err_set(e, rc, "ground-truth word %zu: %s", i,
					      ntrace_builder_errmsg(b));
	}
	rc = ntrace_builder_finish(b);
	if (rc)
		return ntrace_err_set(e, rc, "%s", ntrace_builder_errmsg(b));
	if (strict && ntrace_builder_unmarked(b))
		return ntrace_err_set(e, NTRACE_EBADINPUT,
				      "%zu unmarked discontinuities, first: %s",
				      ntrace_builder_unmarked(b), ntrace_builder_errmsg(b));
	return 0;
}

int ntrace_ingress_from_gt(const struct ntrace_gt *gt, struct ntrace_images *img,
			   const struct ntrace_ingress_opts *o, int strict,
			   struct ntrace_insn_vec *out, char *err, size_t errlen)
{
	struct ntrace_builder *b = ntrace_builder_new(o, ntrace_insn_vec_push, out);
	struct ntrace_errbuf e = { 0 };
	int rc;

	if (!b)
		rc = ntrace_err_set(&e, NTRACE_ENOMEM, "out of memory");
	else
		rc = from_gt(gt, img, o, strict, b, &e);
	ntrace_builder_free(b);
	return rc ? ntrace_err_copy(&e, err, errlen) : 0;
}
