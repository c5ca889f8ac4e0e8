// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Minimal ELF loader for program images, ELF64 (RV64) and ELF32 (RV32):
 * each header is read into its Elf64 form. PT_LOAD segments become
 * regions (executable ones get decoded), .symtab (or .dynsym) gives
 * function names. Every header offset is bounds-checked, so a truncated or
 * corrupt file gets an error, never a wild read. Headers are copied out
 * with memcpy (no alignment assumption); the host must be little-endian,
 * like every RISC-V and x86 host.
 */
#include <elf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "image_internal.h"

#define MAX_SEGS 64

static int in_file(const struct ntrace_image *img, uint64_t off, uint64_t len)
{
	return off <= img->size && len <= img->size - off;
}

/*
 * The headers in their Elf64 form, read from either class (the fields are
 * the same, the sizes and the Phdr order are not). The caller checked that
 * the whole header lies in the file.
 */
static void read_ehdr(const struct ntrace_image *img, bool elf32, Elf64_Ehdr *e)
{
	Elf32_Ehdr h;

	if (!elf32) {
		memcpy(e, img->data, sizeof(*e));
		return;
	}
	memcpy(&h, img->data, sizeof(h));
	memcpy(e->e_ident, h.e_ident, EI_NIDENT);
	e->e_type = h.e_type;
	e->e_machine = h.e_machine;
	e->e_version = h.e_version;
	e->e_entry = h.e_entry;
	e->e_phoff = h.e_phoff;
	e->e_shoff = h.e_shoff;
	e->e_flags = h.e_flags;
	e->e_ehsize = h.e_ehsize;
	e->e_phentsize = h.e_phentsize;
	e->e_phnum = h.e_phnum;
	e->e_shentsize = h.e_shentsize;
	e->e_shnum = h.e_shnum;
	e->e_shstrndx = h.e_shstrndx;
}

static void read_phdr(const uint8_t *p, bool elf32, Elf64_Phdr *ph)
{
	Elf32_Phdr h;

	if (!elf32) {
		memcpy(ph, p, sizeof(*ph));
		return;
	}
	memcpy(&h, p, sizeof(h));
	ph->p_type = h.p_type;
	ph->p_flags = h.p_flags;
	ph->p_offset = h.p_offset;
	ph->p_vaddr = h.p_vaddr;
	ph->p_paddr = h.p_paddr;
	ph->p_filesz = h.p_filesz;
	ph->p_memsz = h.p_memsz;
	ph->p_align = h.p_align;
}

static void read_shdr(const uint8_t *p, bool elf32, Elf64_Shdr *sh)
{
	Elf32_Shdr h;

	if (!elf32) {
		memcpy(sh, p, sizeof(*sh));
		return;
	}
	memcpy(&h, p, sizeof(h));
	sh->sh_name = h.sh_name;
	sh->sh_type = h.sh_type;
	sh->sh_flags = h.sh_flags;
	sh->sh_addr = h.sh_addr;
	sh->sh_offset = h.sh_offset;
	sh->sh_size = h.sh_size;
	sh->sh_link = h.sh_link;
	sh->sh_info = h.sh_info;
	sh->sh_addralign = h.sh_addralign;
	sh->sh_entsize = h.sh_entsize;
}

static void read_sym(const uint8_t *p, bool elf32, Elf64_Sym *s)
{
	Elf32_Sym h;

	if (!elf32) {
		memcpy(s, p, sizeof(*s));
		return;
	}
	memcpy(&h, p, sizeof(h));
	s->st_name = h.st_name;
	s->st_info = h.st_info;
	s->st_other = h.st_other;
	s->st_shndx = h.st_shndx;
	s->st_value = h.st_value;
	s->st_size = h.st_size;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ntrace_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Function and label symbols of one symbol table section, biased. */
static int load_symbols(struct ntrace_images *set, struct ntrace_image *img,
			const Elf64_Ehdr *eh, bool elf32, unsigned int type, uint64_t bias)
{
	size_t symsz = elf32 ? sizeof(Elf32_Sym) : sizeof(Elf64_Sym);
	Elf64_Shdr sh, strsh;
	unsigned int i;
	uint64_t j, n;

	for (i = 0; i < eh->e_shnum; i++) {
		read_shdr(img->data + eh->e_shoff + (uint64_t)i * eh->e_shentsize, elf32, &sh);
		if (sh.sh_type == type)
			break;
	}
	if (i == eh->e_shnum)
		return 0;
	if (sh.sh_link >= eh->e_shnum || sh.sh_entsize < symsz ||
	    !in_file(img, sh.sh_offset, sh.sh_size))
		return ntrace_err_set(&set->err, NTRACE_IMG_ECORRUPT,
			"%s: symbol table header is corrupt", img->name);
	read_shdr(img->data + eh->e_shoff + (uint64_t)sh.sh_link * eh->e_shentsize, elf32,
		  &strsh);
	if (!in_file(img, strsh.sh_offset, strsh.sh_size) || !strsh.sh_size ||
	    img->data[strsh.sh_offset + strsh.sh_size - 1] != 0)
		return ntrace_err_set(&set->err, NTRACE_IMG_ECORRUPT,
			"%s: symbol string table is corrupt", img->name);
	n = sh.sh_size / sh.sh_entsize;
	img->syms = calloc(n ? n : 1, sizeof(*img->syms));
	if (!img->syms)
		return ntrace_err_set(&set->err, NTRACE_IMG_ENOMEM, "out of memory");
	for (j = 0; j < n; j++) {
		Elf64_Sym s;
		const char *name;
		unsigned int st;

		read_sym(img->data + sh.sh_offset + j * sh.sh_entsize, elf32, &s);
		st = ELF64_ST_TYPE(s.st_info);
		if (s.st_shndx == SHN_UNDEF || s.st_name >= strsh.sh_size ||
		    (st != STT_FUNC && st != STT_NOTYPE))
			continue;
		name = (const char *)img->data + strsh.sh_offset + s.st_name;
		/* skip mapping symbols ($x, $d) and local labels */
		if (!name[0] || name[0] == '$' || !strncmp(name, ".L", 2))
			continue;
		img->syms[img->nsyms].addr = s.st_value + bias;
		img->syms[img->nsyms].size = s.st_size;
		img->syms[img->nsyms].name = name;
		img->nsyms++;
	}
	qsort(img->syms, img->nsyms, sizeof(*img->syms), cmp_sym);
	return 0;
}

static int parse(struct ntrace_images *set, struct ntrace_image *img,
		 uint64_t load_addr, int has_addr)
{
	struct ntrace_region regs[MAX_SEGS];
	size_t nregs = 0;
	uint64_t lo = UINT64_MAX, lo_x = UINT64_MAX, bias = 0;
	const char *path = img->name;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned int i, xlen;
	bool elf32;
	int rc;

	if (img->size < EI_NIDENT || memcmp(img->data, ELFMAG, SELFMAG))
		return ntrace_err_set(&set->err, NTRACE_IMG_ENOTELF,
				      "%s: not an ELF file", path);
	if (img->data[EI_CLASS] != ELFCLASS64 && img->data[EI_CLASS] != ELFCLASS32)
		return ntrace_err_set(&set->err, NTRACE_IMG_EFORMAT,
			"%s: ELF class %u is neither ELF32 (RV32) nor ELF64 (RV64)", path,
			img->data[EI_CLASS]);
	elf32 = img->data[EI_CLASS] == ELFCLASS32;
	xlen = elf32 ? 32 : 64;
	if (img->data[EI_DATA] != ELFDATA2LSB)
		return ntrace_err_set(&set->err, NTRACE_IMG_EFORMAT,
				      "%s: big-endian ELF, RISC-V is little-endian", path);
	if (img->size < (elf32 ? sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr)))
		return ntrace_err_set(&set->err, NTRACE_IMG_ECORRUPT,
				      "%s: truncated ELF header", path);
	read_ehdr(img, elf32, &eh);
	if (eh.e_machine != EM_RISCV)
		return ntrace_err_set(&set->err, NTRACE_IMG_EMACHINE,
			"%s: ELF machine %u is not RISC-V (%u)", path, eh.e_machine,
			EM_RISCV);
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return ntrace_err_set(&set->err, NTRACE_IMG_EFORMAT,
			"%s: ELF type %u is neither an executable nor a shared object",
			path, eh.e_type);
	/* an image set decodes one XLEN: the first image decides it */
	if (xlen != set->cfg.xlen) {
		if (set->nimgs)
			return ntrace_err_set(&set->err, NTRACE_IMG_EFORMAT,
				"%s: an RV%u image among RV%u ones", path, xlen, set->cfg.xlen);
		set->cfg.xlen = (uint8_t)xlen;
	}
	if (eh.e_phentsize < (elf32 ? sizeof(Elf32_Phdr) : sizeof(Elf64_Phdr)) ||
	    !in_file(img, eh.e_phoff, (uint64_t)eh.e_phnum * eh.e_phentsize))
		return ntrace_err_set(&set->err, NTRACE_IMG_ECORRUPT,
				      "%s: program headers outside the file", path);
	if (eh.e_shnum && (eh.e_shentsize < (elf32 ? sizeof(Elf32_Shdr) : sizeof(Elf64_Shdr)) ||
	    !in_file(img, eh.e_shoff, (uint64_t)eh.e_shnum * eh.e_shentsize)))
		return ntrace_err_set(&set->err, NTRACE_IMG_ECORRUPT,
				      "%s: section headers outside the file", path);

	for (i = 0; i < eh.e_phnum; i++) {
		read_phdr(img->data + eh.e_phoff + (uint64_t)i * eh.e_phentsize, elf32, &ph);
		if (ph.p_type == PT_LOAD && ph.p_filesz && ph.p_vaddr < lo)
			lo = ph.p_vaddr;
		if (ph.p_type == PT_LOAD && ph.p_filesz && (ph.p_flags & PF_X) &&
		    ph.p_vaddr < lo_x)
			lo_x = ph.p_vaddr;
	}
	if (lo == UINT64_MAX)
		return ntrace_err_set(&set->err, NTRACE_IMG_EFORMAT,
				      "%s: no loadable segment", path);
	if (has_addr)
		bias = load_addr - (lo & ~(uint64_t)0xfff);
	img->bias = bias;
	img->text_base = (lo_x == UINT64_MAX ? lo : lo_x) & ~(uint64_t)0xfff;

	for (i = 0; i < eh.e_phnum; i++) {
		read_phdr(img->data + eh.e_phoff + (uint64_t)i * eh.e_phentsize, elf32, &ph);
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		if (!in_file(img, ph.p_offset, ph.p_filesz) || ph.p_memsz < ph.p_filesz ||
		    ph.p_vaddr + bias + ph.p_filesz < ph.p_vaddr + bias)
			return ntrace_err_set(&set->err, NTRACE_IMG_ECORRUPT,
				"%s: segment %u lies outside the file", path, i);
		if (nregs == MAX_SEGS)
			return ntrace_err_set(&set->err, NTRACE_IMG_EFORMAT,
				"%s: more than %d loadable segments", path, MAX_SEGS);
		regs[nregs].start = ph.p_vaddr + bias;
		regs[nregs].end = ph.p_vaddr + bias + ph.p_filesz;
		regs[nregs].bytes = img->data + ph.p_offset;
		regs[nregs].exec = !!(ph.p_flags & PF_X);
		regs[nregs].tab = NULL;
		nregs++;
	}
	if (eh.e_shnum) {
		rc = load_symbols(set, img, &eh, elf32, SHT_SYMTAB, bias);
		if (!rc && !img->nsyms)
			rc = load_symbols(set, img, &eh, elf32, SHT_DYNSYM, bias);
		if (rc)
			return rc;
	}
	return ntrace_img_commit(set, img, regs, nregs);
}

int ntrace_images_add_elf(struct ntrace_images *set, const char *path,
			  uint64_t load_addr, int has_addr)
{
	struct ntrace_image *img = calloc(1, sizeof(*img));
	int rc;

	if (!img || !(img->name = strdup(path))) {
		ntrace_img_destroy(img);
		return ntrace_err_set(&set->err, NTRACE_IMG_ENOMEM, "out of memory");
	}
	rc = ntrace_img_slurp(set, path, &img->data, &img->size);
	if (rc) {
		ntrace_img_destroy(img);
		return rc;
	}
	rc = parse(set, img, load_addr, has_addr);
	if (rc)		/* on success the set owns img */
		ntrace_img_destroy(img);
	return rc;
}
