/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Program images: the code the traced hart ran, for the flow decoder and
 * the ingress builders. A set holds any number of non-overlapping images:
 * ELF64 RISC-V executables or shared objects (optionally loaded at an
 * address), raw binary blobs at an address, or memory buffers.
 *
 * Fast path for the flow decoder: ntrace_images_block() answers "from pc,
 * how many instructions/halfwords until the next control-flow instruction,
 * and what is it" with two array reads. Each executable region keeps a
 * table with one entry per halfword (16 bytes each), built on first use
 * by one backward pass: the decode of an instruction starting at that
 * halfword, the index of the block-ending instruction reached by falling
 * through from it, and the instruction count up to there. A region lookup
 * remembers the last hit, so sequential decoding does no search.
 */
#ifndef NTRACE_IMAGE_H
#define NTRACE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "ntrace/error.h"
#include "ntrace/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The functions below return 0 or a negative code of ntrace/error.h;
 * ntrace_images_errmsg() has the details. The NTRACE_IMG_* names are the
 * same codes under the names this header used first.
 */
#define NTRACE_IMG_ENOENT	NTRACE_ENOENT
#define NTRACE_IMG_ENOTELF	NTRACE_ENOTELF
#define NTRACE_IMG_EFORMAT	NTRACE_EFORMAT
#define NTRACE_IMG_EMACHINE	NTRACE_EMACHINE
#define NTRACE_IMG_ECORRUPT	NTRACE_ECORRUPT
#define NTRACE_IMG_EOVERLAP	NTRACE_EOVERLAP
#define NTRACE_IMG_ENOMAP	NTRACE_ENOMAP
#define NTRACE_IMG_ENOMEM	NTRACE_ENOMEM
#define NTRACE_IMG_EINVAL	NTRACE_EINVAL

/*
 * Opaque set of images. Not thread-safe (lookups cache the last region and
 * build block tables lazily); use one set per thread.
 */
struct ntrace_images;

/* A run of instructions ending at a control-flow instruction. */
struct ntrace_block {
	uint64_t start;		/* first instruction */
	uint64_t last;		/* the instruction that ends the block */
	uint32_t ninsn;		/* instructions, including last */
	uint32_t nhalf;		/* halfwords (N-Trace I-CNT units), including last */
	struct ntrace_idec end;	/* decode of last; kind NONE if the executable
				 * region ends without a control-flow instruction */
	uint64_t target;	/* direct target of last (BRANCH, JUMP, TABLE_JUMP
				 * when the table entry is readable), else 0 */
};

/* An empty set. cfg (copied): ISA for decoding (NULL: RV64GC). NULL if out
 * of memory. */
struct ntrace_images *ntrace_images_new(const struct ntrace_isa_cfg *cfg);
/* Free the set and every image copy it holds (NULL allowed). */
void ntrace_images_free(struct ntrace_images *set);

/*
 * Load an ELF64 RISC-V file (its loadable segments and symbols are copied;
 * the file is closed again). With has_addr, the lowest PT_LOAD segment
 * (page-aligned) is placed at load_addr and the rest follows at the same
 * bias (shared objects, PIE); without, at its link addresses. Returns 0 or
 * ENOENT, ENOTELF, EFORMAT, EMACHINE, ECORRUPT, EOVERLAP, ENOMEM.
 */
int ntrace_images_add_elf(struct ntrace_images *set, const char *path,
			  uint64_t load_addr, int has_addr);
/* A raw binary file (bare-metal code) at addr, all executable; copied.
 * Returns 0 or ENOENT, EOVERLAP, ENOMEM, EINVAL (empty file). */
int ntrace_images_add_raw(struct ntrace_images *set, const char *path,
			  uint64_t addr);
/* A memory buffer at addr, copied, all executable; name (copied) is for
 * messages. Returns 0 or EOVERLAP, ENOMEM, EINVAL (empty or wrapping). */
int ntrace_images_add_mem(struct ntrace_images *set, const char *name,
			  const void *buf, size_t len, uint64_t addr);
/*
 * Command-line form: "FILE" (ELF at link address), "FILE@ADDR" (ELF at
 * ADDR), "raw:FILE@ADDR" (binary blob). ADDR is C syntax (0x... allowed).
 * Returns 0, EINVAL for a bad spec, or the error of the loader called.
 */
int ntrace_images_add_spec(struct ntrace_images *set, const char *spec);

/*
 * Code on demand, for callers that own the program's memory map (perf's
 * maps and dso cache, a debugger): when a lookup finds no image at addr,
 * fetch(ctx, set, addr) is called once to add one that holds it, usually
 * with ntrace_images_add_mem() of the whole mapping (blocks stop at the
 * end of an image, so smaller pieces decode less). It returns 0 when it
 * added code at addr, or a negative code (ntrace/error.h) when there is
 * none; the lookup then fails with ENOMAP. The fetch may not call
 * ntrace_images_clear() or ntrace_images_free(). NULL fn turns it off.
 */
typedef int (*ntrace_images_fetch_fn)(void *ctx, struct ntrace_images *set,
				       uint64_t addr);
void ntrace_images_set_fetch(struct ntrace_images *set, ntrace_images_fetch_fn fn,
			     void *ctx);

/*
 * Drop every image (the program's memory map changed: exec, munmap). The
 * fetch callback stays. A decoder using the set must be told with
 * ntrace_decoder_set_images(), which drops its cached blocks.
 */
void ntrace_images_clear(struct ntrace_images *set);

/* Why the last failing call on set failed (a string owned by set, valid
 * until the next call on it); "no error" if none failed. */
const char *ntrace_images_errmsg(const struct ntrace_images *set);

/* Copy len loaded bytes at addr (any segment) to buf. Returns 0, or ENOMAP
 * if any byte is not loaded. */
int ntrace_images_read(struct ntrace_images *set, uint64_t addr, void *buf,
		       size_t len);

/*
 * Decode the instruction at pc into *d. An illegal encoding is not an
 * error: it decodes with kind NTRACE_IK_INVALID. Returns 0,
 * ENOMAP (pc not in executable code), EINVAL (odd pc, or a region too
 * odd to table) or ENOMEM (the region's block table).
 */
int ntrace_images_decode(struct ntrace_images *set, uint64_t pc,
			 struct ntrace_idec *d);

/*
 * Raw bits of the instruction at pc (low 16 bits for a compressed one). Returns 0,
 * ENOMAP (pc not in executable code), EINVAL (odd pc, or a region too
 * odd to table) or ENOMEM (the region's block table).
 */
int ntrace_images_insn_bits(struct ntrace_images *set, uint64_t pc,
			    uint32_t *bits);

/* The instruction at pc with its operands (isa.h). Returns as ntrace_images_insn_bits(). */
int ntrace_images_decode_ext(struct ntrace_images *set, uint64_t pc,
			     struct ntrace_iext *x);

/*
 * The block starting at pc (fast path, see top of file) into *b. Returns 0,
 * ENOMAP (pc not in executable code), EINVAL (odd pc, or a region too
 * odd to table) or ENOMEM (the region's block table).
 */
int ntrace_images_block(struct ntrace_images *set, uint64_t pc,
			struct ntrace_block *b);

/*
 * Resolve the target of a direct instruction at pc decoded as d. Returns
 * 0 and sets *target, ENOMAP (a JVT entry that is not loaded) or EINVAL
 * (d has no direct target).
 */
int ntrace_images_direct_target(struct ntrace_images *set, uint64_t pc,
				const struct ntrace_idec *d, uint64_t *target);

/*
 * Symbol for addr: the name of the closest function/label at or below
 * addr, with *off = addr - symbol. NULL if none. *image (optional) gets
 * the file name of the image holding addr, or NULL. The strings belong to
 * the set and live as long as it does.
 */
const char *ntrace_images_symbol(struct ntrace_images *set, uint64_t addr,
				 uint64_t *off, const char **image);

/*
 * Where a loaded address lies in its image: the file it comes from and its
 * address there, as a profile of that file names it (AutoFDO tools count
 * from the file's text base, whatever address it ran at).
 */
struct ntrace_image_place {
	const char *image;	/* file name (owned by the set) */
	uint64_t link;		/* the ELF's own (link-time) address of addr */
	uint64_t text_base;	/* the lowest executable segment's link address,
				 * page-aligned (raw and memory images: their
				 * lowest address) */
	const void *id;		/* the same for every address of one image
				 * while the set holds it */
};

/* Fill *where for addr. Returns 0 or ENOMAP (no image holds addr). */
int ntrace_images_where(struct ntrace_images *set, uint64_t addr,
			struct ntrace_image_place *where);

/* Address of a symbol by name (first match, images in load order) into
 * *addr. Returns 0, or EINVAL when no image has it. */
int ntrace_images_lookup(struct ntrace_images *set, const char *name,
			 uint64_t *addr);

/* Number of images, and the ISA configuration in use (owned by set). */
size_t ntrace_images_count(const struct ntrace_images *set);
const struct ntrace_isa_cfg *ntrace_images_isa(const struct ntrace_images *set);

#ifdef __cplusplus
}
#endif

#endif /* NTRACE_IMAGE_H */
