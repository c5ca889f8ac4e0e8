// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-ntrace encode inputs: PC lists (.pcs or text) and seed-002 tandem-
 * verification traces, turned into ingress records by the library builders.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_opts.h"
#include "ingress_load.h"

#define PFX "perf-ntrace encode: "

/* Append a word to the in-memory ground truth. */
/* Text PC list: the words and the line each came from. */
struct text_list {
	struct ntrace_gt gt;
	unsigned long *line;
	size_t cap;
};

/* Append a word to the in-memory ground truth. */
static int gt_push(struct text_list *t, uint64_t w, unsigned long lineno)
{
	if (t->gt.n == t->cap) {
		size_t ncap = t->cap ? 2 * t->cap : 4096;
		uint64_t *nw = realloc(t->gt.w, ncap * sizeof(*nw));
		unsigned long *nl;

		if (!nw)
			return -1;
		t->gt.w = nw;
		nl = realloc(t->line, ncap * sizeof(*nl));
		if (!nl)
			return -1;
		t->line = nl;
		t->cap = ncap;
	}
	t->line[t->gt.n] = lineno;
	t->gt.w[t->gt.n++] = w;
	return 0;
}

static int hex_field(char **p, uint64_t *v)
{
	char *end;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (!isxdigit((unsigned char)**p))
		return -1;
	errno = 0;
	*v = strtoull(*p, &end, 16);
	if (errno || (*end && !isspace((unsigned char)*end) && *end != '#'))
		return -1;
	*p = end;
	return 0;
}

/* Text PC list -> the same words a .pcs file holds. */
static int load_text(const char *path, FILE *f, struct text_list *t)
{
	char line[512];
	unsigned long lineno = 0;

	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		uint64_t pc, cause;
		int trap = 0;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			fprintf(stderr, PFX "%s:%lu: line too long\n", path, lineno);
			return -1;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		if (!strncmp(p, "trap", 4) && isspace((unsigned char)p[4])) {
			trap = 1;
			p += 4;
		}
		if (hex_field(&p, &pc) || (trap && hex_field(&p, &cause))) {
			fprintf(stderr, PFX "%s:%lu: expected %s, got '%.*s'\n", path, lineno,
				trap ? "'trap EPC CAUSE' (hex)" : "a hex PC or 'trap EPC CAUSE'",
				(int)strcspn(line, "\n"), line);
			return -1;
		}
		end = p + strspn(p, " \t\r\n");
		if (*end && *end != '#') {
			fprintf(stderr, PFX "%s:%lu: trailing text '%.*s'\n", path, lineno,
				(int)strcspn(end, "\n"), end);
			return -1;
		}
		if (pc & 1) {
			fprintf(stderr, PFX "%s:%lu: odd address 0x%" PRIx64 "\n", path, lineno,
				pc);
			return -1;
		}
		if (gt_push(t, pc | (trap ? NTRACE_GT_TRAP : 0), lineno) ||
		    (trap && gt_push(t, cause, lineno))) {
			fprintf(stderr, PFX "%s: out of memory\n", path);
			return -1;
		}
		if (trap)
			t->gt.ntrap++;
		else
			t->gt.ninsn++;
	}
	if (ferror(f)) {
		fprintf(stderr, PFX "%s: read error\n", path);
		return -1;
	}
	return 0;
}

int ingress_load_pcs(const char *path, struct ntrace_images *img,
		     const struct ntrace_ingress_opts *o, int strict,
		     struct ntrace_insn_vec *out, size_t *unmarked)
{
	struct text_list t = { 0 };
	struct ntrace_gt *gt = &t.gt;
	char magic[8], err[512];
	size_t i, word, first = SIZE_MAX;
	int rc, at = 0;
	FILE *f;

	f = open_in("encode", path, "rb");
	if (!f)
		return -1;
	if (f != stdin && fread(magic, 1, 8, f) == 8 && !memcmp(magic, NTRACE_GT_MAGIC, 8)) {
		fclose(f);
		if (ntrace_gt_load(path, gt, err, sizeof(err))) {
			fprintf(stderr, PFX "%s\n", err);
			return -1;
		}
	} else {
		if (f != stdin)
			rewind(f);
		rc = load_text(path, f, &t);
		if (f != stdin)
			fclose(f);
		if (rc) {
			ntrace_gt_free(gt);
			free(t.line);
			return -1;
		}
	}
	if (!gt->ninsn) {
		fprintf(stderr, PFX "%s: no retired instruction in the PC list\n", path);
		ntrace_gt_free(gt);
		free(t.line);
		return -1;
	}
	rc = ntrace_ingress_from_gt(gt, img, o, strict, out, err, sizeof(err));
	if (rc) {
		/* name the text line rather than the word index */
		if (t.line && sscanf(err, "ground-truth word %zu: %n", &word, &at) == 1 && at &&
		    word < gt->n)
			fprintf(stderr, PFX "%s:%lu: %s\n", path, t.line[word], err + at);
		else
			fprintf(stderr, PFX "%s: %s\n", path, err);
	}
	ntrace_gt_free(gt);
	free(t.line);
	if (rc)
		return -1;
	/* the builder reports an unexplained successor as a cause-less exception */
	*unmarked = 0;
	for (i = 0; i < out->n; i++) {
		if (out->v[i].itype == NTRACE_ITYPE_EXCEPTION &&
		    !(out->v[i].flags & NTRACE_INSN_CAUSE_VALID)) {
			if (first == SIZE_MAX)
				first = i;
			(*unmarked)++;
		}
	}
	if (*unmarked)
		fprintf(stderr, PFX "%s: warning: %zu successor(s) that no instruction "
			"explains (first after 0x%" PRIx64 "), encoded as exceptions; --strict rejects them\n",
			path, *unmarked, out->v[first].addr);
	return 0;
}

int ingress_load_tv(const char *path, const struct ntrace_isa_cfg *isa,
		    const struct ntrace_ingress_opts *o, struct ntrace_insn_vec *out)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got;
	char err[512];
	FILE *f;
	int rc;

	f = open_in("encode", path, "rb");
	if (!f)
		return -1;
	do {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap ? 2 * cap : 1 << 16);

			if (!nb) {
				fprintf(stderr, PFX "%s: out of memory\n", path);
				free(buf);
				if (f != stdin)
					fclose(f);
				return -1;
			}
			buf = nb;
			cap = cap ? 2 * cap : 1 << 16;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	rc = ferror(f);
	if (f != stdin)
		fclose(f);
	if (rc) {
		fprintf(stderr, PFX "%s: read error\n", path);
		free(buf);
		return -1;
	}
	rc = ntrace_tv_parse(buf, len, isa, o, out, err, sizeof(err));
	free(buf);
	if (rc) {
		fprintf(stderr, PFX "%s: bad tandem-verification trace: %s\n", path, err);
		return -1;
	}
	if (!out->n) {
		fprintf(stderr, PFX "%s: no retired instruction in the tandem-verification "
			"trace\n", path);
		return -1;
	}
	return 0;
}
