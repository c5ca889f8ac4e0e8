// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A set of program images: region bookkeeping, address lookup, reading,
 * decoding and the block fast path.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_internal.h"

const char *ntrace_images_errmsg(const struct ntrace_images *set)
{
	return ntrace_err_msg(&set->err);
}

struct ntrace_images *ntrace_images_new(const struct ntrace_isa_cfg *cfg)
{
	struct ntrace_images *set = calloc(1, sizeof(*set));

	if (!set)
		return NULL;
	set->cfg = cfg ? *cfg : NTRACE_ISA_CFG_RV64GC;
	return set;
}

void ntrace_img_destroy(struct ntrace_image *img)
{
	if (!img)
		return;
	free(img->name);
	free(img->data);
	free(img->syms);
	free(img);
}

void ntrace_images_clear(struct ntrace_images *set)
{
	size_t i;

	if (set->shared) {	/* the images are another set's */
		set->regs = NULL;
		set->imgs = NULL;
		set->nregs = 0;
		set->nimgs = 0;
		set->hit = 0;
		return;
	}
	for (i = 0; i < set->nregs; i++)
		free(set->regs[i].tab);
	for (i = 0; i < set->nimgs; i++)
		ntrace_img_destroy(set->imgs[i]);
	free(set->regs);
	free(set->imgs);
	set->regs = NULL;
	set->imgs = NULL;
	set->nregs = 0;
	set->nimgs = 0;
	set->hit = 0;
}

void ntrace_images_free(struct ntrace_images *set)
{
	if (!set)
		return;
	ntrace_images_clear(set);
	free(set);
}

void ntrace_images_set_fetch(struct ntrace_images *set, ntrace_images_fetch_fn fn,
			     void *ctx)
{
	set->fetch = fn;
	set->fetch_ctx = ctx;
}

size_t ntrace_images_count(const struct ntrace_images *set)
{
	return set->nimgs;
}

const struct ntrace_isa_cfg *ntrace_images_isa(const struct ntrace_images *set)
{
	return &set->cfg;
}

int ntrace_img_slurp(struct ntrace_images *set, const char *path,
		     uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return ntrace_err_set(&set->err, NTRACE_IMG_ENOENT, "%s: cannot open: %s",
				      path, strerror(errno));
	for (;;) {
		if (len == cap) {
			uint8_t *nb;

			cap = cap ? cap * 2 : 1 << 16;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return ntrace_err_set(&set->err, NTRACE_IMG_ENOMEM,
						      "%s: out of memory", path);
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return ntrace_err_set(&set->err, NTRACE_IMG_ENOENT, "%s: read error", path);
	}
	fclose(f);
	*data = buf;
	*size = len;
	return 0;
}

static int cmp_region(const void *a, const void *b)
{
	const struct ntrace_region *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int ntrace_img_commit(struct ntrace_images *set, struct ntrace_image *img,
		      struct ntrace_region *regs, size_t nregs)
{
	struct ntrace_image **ni;
	struct ntrace_region *nr;
	size_t i, j;

	if (set->shared)
		return ntrace_err_set(&set->err, NTRACE_IMG_EINVAL,
				      "%s: a shared view of images cannot take more", img->name);
	for (i = 0; i < nregs; i++) {
		regs[i].img = img;
		for (j = 0; j < set->nregs + i; j++) {
			const struct ntrace_region *o = j < set->nregs ?
				&set->regs[j] : &regs[j - set->nregs];

			if (regs[i].start < o->end && o->start < regs[i].end) {
				int rc = ntrace_err_set(&set->err, NTRACE_IMG_EOVERLAP,
					"%s: [0x%" PRIx64 ", 0x%" PRIx64 ") overlaps %s [0x%"
					PRIx64 ", 0x%" PRIx64 ")", img->name, regs[i].start,
					regs[i].end, j < set->nregs ? o->img->name : img->name,
					o->start, o->end);
				return rc;
			}
		}
	}
	ni = realloc(set->imgs, (set->nimgs + 1) * sizeof(*ni));
	if (ni)
		set->imgs = ni;
	nr = realloc(set->regs, (set->nregs + nregs + 1) * sizeof(*nr));
	if (nr)
		set->regs = nr;
	if (!ni || !nr)
		return ntrace_err_set(&set->err, NTRACE_IMG_ENOMEM, "out of memory");
	set->imgs[set->nimgs++] = img;
	memcpy(&set->regs[set->nregs], regs, nregs * sizeof(*regs));
	set->nregs += nregs;
	qsort(set->regs, set->nregs, sizeof(*set->regs), cmp_region);
	set->hit = 0;
	ntrace_err_clear(&set->err);
	return 0;
}

int ntrace_images_add_mem(struct ntrace_images *set, const char *name,
			  const void *buf, size_t len, uint64_t addr)
{
	struct ntrace_image *img = calloc(1, sizeof(*img));
	struct ntrace_region r = { 0 };
	int rc;

	if (!img || !(img->name = strdup(name)) || !(img->data = malloc(len ? len : 1))) {
		ntrace_img_destroy(img);
		return ntrace_err_set(&set->err, NTRACE_IMG_ENOMEM, "out of memory");
	}
	if (!len || addr + len < addr) {
		ntrace_img_destroy(img);
		return ntrace_err_set(&set->err, NTRACE_IMG_EINVAL,
			"%s: empty or wraps the address space", name);
	}
	memcpy(img->data, buf, len);
	img->size = len;
	img->text_base = addr;
	r.start = addr;
	r.end = addr + len;
	r.bytes = img->data;
	r.exec = 1;
	rc = ntrace_img_commit(set, img, &r, 1);
	if (rc)
		ntrace_img_destroy(img);
	return rc;
}

int ntrace_images_add_raw(struct ntrace_images *set, const char *path,
			  uint64_t addr)
{
	uint8_t *data;
	size_t size;
	int rc = ntrace_img_slurp(set, path, &data, &size);

	if (rc)
		return rc;
	rc = ntrace_images_add_mem(set, path, data, size, addr);
	free(data);
	return rc;
}

static int parse_addr(const char *s, uint64_t *v)
{
	char *end;

	if (!*s)
		return NTRACE_EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? NTRACE_EINVAL : 0;
}

int ntrace_images_add_spec(struct ntrace_images *set, const char *spec)
{
	const char *at = strrchr(spec, '@');
	int raw = !strncmp(spec, "raw:", 4);
	const char *file = raw ? spec + 4 : spec;
	char path[4096];
	uint64_t addr = 0;
	size_t n;

	if (at && at < file)
		at = NULL;
	n = at ? (size_t)(at - file) : strlen(file);
	if (!n || n >= sizeof(path))
		return ntrace_err_set(&set->err, NTRACE_IMG_EINVAL,
			"'%s': expected FILE, FILE@ADDR or raw:FILE@ADDR", spec);
	memcpy(path, file, n);
	path[n] = 0;
	if (at && parse_addr(at + 1, &addr))
		return ntrace_err_set(&set->err, NTRACE_IMG_EINVAL,
			"'%s': bad load address '%s'", spec, at + 1);
	if (raw) {
		if (!at)
			return ntrace_err_set(&set->err, NTRACE_IMG_EINVAL,
				"'%s': a raw image needs an address (raw:FILE@ADDR)", spec);
		return ntrace_images_add_raw(set, path, addr);
	}
	return ntrace_images_add_elf(set, path, addr, at != NULL);
}

static struct ntrace_region *find_region(struct ntrace_images *set, uint64_t addr)
{
	size_t lo = 0, hi = set->nregs;
	struct ntrace_region *r;

	if (!set->nregs)
		return NULL;
	r = &set->regs[set->hit];
	if (addr >= r->start && addr < r->end)
		return r;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		r = &set->regs[mid];
		if (addr < r->start) {
			hi = mid;
		} else if (addr >= r->end) {
			lo = mid + 1;
		} else {
			set->hit = mid;
			return r;
		}
	}
	return NULL;
}

struct ntrace_region *ntrace_img_region(struct ntrace_images *set,
					 uint64_t addr)
{
	struct ntrace_region *r = find_region(set, addr);

	if (r || !set->fetch || set->fetching)
		return r;
	set->fetching = 1;
	if (set->fetch(set->fetch_ctx, set, addr) == 0)
		r = find_region(set, addr);
	set->fetching = 0;
	return r;
}

static int nomap(struct ntrace_images *set, uint64_t addr)
{
	return ntrace_err_set(&set->err, NTRACE_IMG_ENOMAP,
		"address 0x%" PRIx64 " is outside every loaded image (%zu loaded)",
		addr, set->nimgs);
}

int ntrace_images_read(struct ntrace_images *set, uint64_t addr, void *buf,
		       size_t len)
{
	uint8_t *out = buf;

	while (len) {
		struct ntrace_region *r = ntrace_img_region(set, addr);
		size_t n;

		if (!r)
			return nomap(set, addr);
		n = r->end - addr < len ? (size_t)(r->end - addr) : len;
		memcpy(out, r->bytes + (addr - r->start), n);
		out += n;
		addr += n;
		len -= n;
	}
	return 0;
}

/* Executable region holding pc with its table built, or an error code. */
static int code_region(struct ntrace_images *set, uint64_t pc,
		       struct ntrace_region **rp)
{
	struct ntrace_region *r = ntrace_img_region(set, pc);
	int rc;

	if (!r)
		return nomap(set, pc);
	if (!r->exec)
		return ntrace_err_set(&set->err, NTRACE_IMG_ENOMAP,
			"address 0x%" PRIx64 " is in a non-executable segment of %s",
			pc, r->img->name);
	if (pc & 1)
		return ntrace_err_set(&set->err, NTRACE_IMG_EINVAL,
			"pc 0x%" PRIx64 " is not halfword aligned", pc);
	if (!r->tab) {
		rc = ntrace_img_build_table(set, r);
		if (rc)
			return rc;
	}
	if ((pc - r->start) >> 1 >= r->ntab)	/* the odd last byte of a region */
		return ntrace_err_set(&set->err, NTRACE_IMG_ENOMAP,
			"pc 0x%" PRIx64 " is the last byte of %s: no instruction fits",
			pc, r->img->name);
	*rp = r;
	return 0;
}

int ntrace_images_decode(struct ntrace_images *set, uint64_t pc,
			 struct ntrace_idec *d)
{
	struct ntrace_region *r;
	int rc = code_region(set, pc, &r);

	if (rc)
		return rc;
	*d = r->tab[(pc - r->start) >> 1].d;
	return 0;
}

int ntrace_images_insn_bits(struct ntrace_images *set, uint64_t pc,
			    uint32_t *bits)
{
	uint8_t b[4] = { 0 };
	int rc = ntrace_images_read(set, pc, b, 2);

	if (rc)
		return rc;
	if (ntrace_isa_len((uint16_t)(b[0] | b[1] << 8)) == 4) {
		rc = ntrace_images_read(set, pc + 2, b + 2, 2);
		if (rc)
			return rc;
	}
	*bits = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
		(uint32_t)b[3] << 24;
	return 0;
}

int ntrace_images_decode_ext(struct ntrace_images *set, uint64_t pc,
			     struct ntrace_iext *x)
{
	uint32_t bits;
	int rc = ntrace_images_insn_bits(set, pc, &bits);

	if (rc)
		return rc;
	ntrace_isa_decode_ext(bits, &set->cfg, x);
	return 0;
}

int ntrace_images_direct_target(struct ntrace_images *set, uint64_t pc,
				const struct ntrace_idec *d, uint64_t *target)
{
	uint8_t e[8];
	uint64_t v = 0, at;
	unsigned int w = set->cfg.xlen == 32 ? 4 : 8, i;
	int rc;

	switch (d->kind) {
	case NTRACE_IK_BRANCH:
	case NTRACE_IK_JUMP:
		*target = pc + (int64_t)d->off;
		return 0;
	case NTRACE_IK_TABLE_JUMP:
		at = set->cfg.jvt_base + (uint64_t)d->off * w;
		rc = ntrace_images_read(set, at, e, w);
		if (rc)
			return ntrace_err_set(&set->err, rc,
				"jump table entry %d at 0x%" PRIx64 " (JVT base 0x%" PRIx64
				") is not loaded", d->off, at, set->cfg.jvt_base);
		for (i = 0; i < w; i++)
			v |= (uint64_t)e[i] << (8 * i);
		*target = v & ~(uint64_t)1;
		return 0;
	default:
		return ntrace_err_set(&set->err, NTRACE_IMG_EINVAL,
			"instruction at 0x%" PRIx64 " (%s) has no direct target", pc,
			ntrace_ikind_name(d->kind));
	}
}

int ntrace_images_block(struct ntrace_images *set, uint64_t pc,
			struct ntrace_block *b)
{
	struct ntrace_region *r = &set->regs[set->hit];
	const struct ntrace_hw *e, *l;
	uint32_t h;
	int rc;

	/* hot path: same region as last time, table built, aligned pc */
	if (!set->nregs || pc < r->start || !r->tab || (pc & 1) ||
	    (pc - r->start) >> 1 >= r->ntab) {
		rc = code_region(set, pc, &r);
		if (rc)
			return rc;
	}
	h = (uint32_t)((pc - r->start) >> 1);
	e = &r->tab[h];
	l = &r->tab[e->last];
	b->start = pc;
	b->last = r->start + 2 * (uint64_t)e->last;
	b->ninsn = e->ninsn;
	b->end = l->d;
	b->nhalf = e->last - h + l->d.size / 2;
	switch (l->d.kind) {
	case NTRACE_IK_BRANCH:
	case NTRACE_IK_JUMP:
		b->target = b->last + (int64_t)l->d.off;
		break;
	case NTRACE_IK_TABLE_JUMP:
		if (ntrace_images_direct_target(set, b->last, &l->d, &b->target))
			b->target = 0;
		break;
	default:
		b->target = 0;
	}
	return 0;
}

const char *ntrace_images_symbol(struct ntrace_images *set, uint64_t addr,
				 uint64_t *off, const char **image)
{
	struct ntrace_region *r = ntrace_img_region(set, addr);
	const struct ntrace_image *img;
	size_t lo = 0, hi;

	if (image)
		*image = r ? r->img->name : NULL;
	if (!r || !r->img->nsyms)
		return NULL;
	img = r->img;
	hi = img->nsyms;
	/* last symbol with addr <= target */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (img->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (off)
		*off = addr - img->syms[lo - 1].addr;
	return img->syms[lo - 1].name;
}

int ntrace_images_where(struct ntrace_images *set, uint64_t addr,
			struct ntrace_image_place *where)
{
	struct ntrace_region *r = ntrace_img_region(set, addr);

	if (!r)
		return ntrace_err_set(&set->err, NTRACE_IMG_ENOMAP,
				      "no image at 0x%" PRIx64, addr);
	where->image = r->img->name;
	where->link = addr - r->img->bias;
	where->text_base = r->img->text_base;
	where->id = r->img;
	return 0;
}

int ntrace_images_lookup(struct ntrace_images *set, const char *name,
			 uint64_t *addr)
{
	size_t i, j;

	for (i = 0; i < set->nimgs; i++)
		for (j = 0; j < set->imgs[i]->nsyms; j++)
			if (!strcmp(set->imgs[i]->syms[j].name, name)) {
				*addr = set->imgs[i]->syms[j].addr;
				return 0;
			}
	return ntrace_err_set(&set->err, NTRACE_IMG_EINVAL, "no symbol '%s'", name);
}
