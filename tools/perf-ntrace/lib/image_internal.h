/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* Private structures of the program-image layer (image_*.c). */
#ifndef NTRACE_IMAGE_INTERNAL_H
#define NTRACE_IMAGE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "err_internal.h"
#include "ntrace/image.h"

/* Per-halfword entry of an executable region's pre-decoded table. */
struct ntrace_hw {
	struct ntrace_idec d;	/* instruction starting at this halfword */
	uint32_t last;		/* halfword index of the block-ending instruction */
	uint32_t ninsn;		/* instructions from here to last, inclusive */
};

struct ntrace_sym {
	uint64_t addr, size;
	const char *name;	/* points into the image's data */
};

struct ntrace_image {
	char *name;
	uint8_t *data;		/* file contents (owned) */
	size_t size;
	struct ntrace_sym *syms;	/* sorted by addr */
	size_t nsyms;
	uint64_t bias;		/* loaded address - link address */
	uint64_t text_base;	/* lowest executable segment's link address,
				 * page-aligned (ELF); the lowest loaded address
				 * (raw and memory images) */
};

/* A contiguous loaded address range of one image. */
struct ntrace_region {
	uint64_t start, end;	/* [start, end) */
	const uint8_t *bytes;
	struct ntrace_image *img;
	int exec;
	struct ntrace_hw *tab;	/* built on first block/decode lookup */
	uint64_t ntab;		/* entries: whole halfwords in the region */
};

struct ntrace_images {
	struct ntrace_isa_cfg cfg;
	struct ntrace_image **imgs;
	size_t nimgs;
	struct ntrace_region *regs;	/* sorted by start */
	size_t nregs;
	size_t hit;			/* index of the last region found */
	ntrace_images_fetch_fn fetch;	/* code on demand, or NULL */
	void *fetch_ctx;
	int fetching;			/* inside fetch: no recursion */
	struct ntrace_errbuf err;	/* why the last call failed */
	int shared;			/* a view: imgs and regs belong to another set */
};

/* Shared between image_*.c, not exported by libntrace.so. */
#pragma GCC visibility push(hidden)

/* Add a parsed image and its regions (checks overlap); owns img on success. */
int ntrace_img_commit(struct ntrace_images *set, struct ntrace_image *img,
		      struct ntrace_region *regs, size_t nregs);
void ntrace_img_destroy(struct ntrace_image *img);

/* Region holding addr, or NULL. */
struct ntrace_region *ntrace_img_region(struct ntrace_images *set,
					 uint64_t addr);
/* Build the halfword table of an executable region. */
int ntrace_img_build_table(struct ntrace_images *set, struct ntrace_region *r);

/*
 * A view of set for another thread: it reads the same images (set must
 * neither change nor go before the view) with its own lookup hint and
 * error text. The code tables are built first, so no lookup writes to
 * what the views share. NULL with *rc: out of memory, or set fetches code
 * on demand (that changes the set). Free with ntrace_images_free().
 */
struct ntrace_images *ntrace_img_share(struct ntrace_images *set, int *rc);

/* Read a whole file into memory. */
int ntrace_img_slurp(struct ntrace_images *set, const char *path,
		     uint8_t **data, size_t *size);

#pragma GCC visibility pop

#endif /* NTRACE_IMAGE_INTERNAL_H */
