// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Program images: ELF loading (good and bad files), load bias, raw blobs,
 * overlaps, lookups outside every image, symbols, and the block table.
 * Instruction words are the cross assembler's (see isa_cases.h).
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ntrace/image.h"

#define ADD	0x00c58533u	/* add a0, a1, a2 */
#define C_ADD	0x952eu		/* c.add a0, a1 */
#define BEQ8	0x00b50463u	/* beq a0, a1, .+8 */
#define RET	0x8082u		/* c.jr ra */
#define JAL8	0x008000efu	/* jal ra, .+8 */
#define CM_JT1	0xa006u		/* cm.jt 1 */

static int failed;
static char dir[] = "/tmp/ntrace-image-test-XXXXXX";

static void check(int cond, const char *name)
{
	printf("%sok - %s\n", cond ? "" : "not ", name);
	if (!cond)
		failed++;
}

static size_t put16(uint8_t *p, size_t at, uint32_t v)
{
	p[at] = v & 0xff;
	p[at + 1] = (v >> 8) & 0xff;
	return at + 2;
}

static size_t put32(uint8_t *p, size_t at, uint32_t v)
{
	put16(p, at, v & 0xffff);
	return put16(p, at + 2, v >> 16);
}

/* Code: add, c.add, add, beq +8 | c.add, ret | add (block runs off the end) */
static size_t code(uint8_t *p)
{
	size_t at = 0;

	at = put32(p, at, ADD);
	at = put16(p, at, C_ADD);
	at = put32(p, at, ADD);
	at = put32(p, at, BEQ8);
	at = put16(p, at, C_ADD);
	at = put16(p, at, RET);
	at = put32(p, at, ADD);
	return at;
}

static const char *path(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static void write_file(const char *name, const void *buf, size_t len)
{
	FILE *f = fopen(path(name), "wb");

	if (!f || fwrite(buf, 1, len, f) != len) {
		perror(name);
		exit(2);
	}
	fclose(f);
}

/* A small ELF64 with one PT_LOAD (code at vaddr) and two function symbols. */
static void write_elf(const char *name, unsigned int machine, unsigned int type,
		      uint64_t vaddr, int truncate)
{
	uint8_t f[0x400] = { 0 };
	Elf64_Ehdr *eh = (Elf64_Ehdr *)f;
	Elf64_Phdr *ph = (Elf64_Phdr *)(f + sizeof(*eh));
	Elf64_Shdr *sh = (Elf64_Shdr *)(f + 0x200);
	Elf64_Sym *sym = (Elf64_Sym *)(f + 0x140);
	char *str = (char *)(f + 0x1a0);
	size_t n = code(f + 0x100);

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = type;
	eh->e_machine = machine;
	eh->e_version = EV_CURRENT;
	eh->e_entry = vaddr;
	eh->e_phoff = truncate ? 0x10000 : sizeof(*eh);
	eh->e_shoff = 0x200;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 4;
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | PF_X;
	ph->p_offset = 0x100;
	ph->p_vaddr = vaddr;
	ph->p_filesz = ph->p_memsz = n;
	/* symbols: func_a at +0, func_b at +14 (the c.add before ret) */
	memcpy(str, "\0func_a\0func_b\0$x\0", 18);
	sym[1].st_name = 1;
	sym[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[1].st_shndx = 1;
	sym[1].st_value = vaddr;
	sym[2].st_name = 8;
	sym[2].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[2].st_shndx = 1;
	sym[2].st_value = vaddr + 14;
	sym[3].st_name = 15;	/* mapping symbol: skipped */
	sym[3].st_shndx = 1;
	sym[3].st_value = vaddr + 2;
	sh[1].sh_type = SHT_PROGBITS;
	sh[1].sh_offset = 0x100;
	sh[1].sh_size = n;
	sh[2].sh_type = SHT_SYMTAB;
	sh[2].sh_offset = 0x140;
	sh[2].sh_size = 4 * sizeof(Elf64_Sym);
	sh[2].sh_entsize = sizeof(Elf64_Sym);
	sh[2].sh_link = 3;
	sh[3].sh_type = SHT_STRTAB;
	sh[3].sh_offset = 0x1a0;
	sh[3].sh_size = 18;
	write_file(name, f, sizeof(f));
}

static void test_errors(void)
{
	struct ntrace_images *s = ntrace_images_new(NULL);
	uint8_t elf32[64] = { 0x7f, 'E', 'L', 'F', ELFCLASS32, ELFDATA2LSB, 1 };
	struct ntrace_idec d;
	int rc;

	rc = ntrace_images_add_elf(s, path("missing"), 0, 0);
	check(rc == NTRACE_IMG_ENOENT && strstr(ntrace_images_errmsg(s), "missing") &&
	      strstr(ntrace_images_errmsg(s), "cannot open"), "image: missing file");
	write_file("text", "hello, world\n", 13);
	rc = ntrace_images_add_elf(s, path("text"), 0, 0);
	check(rc == NTRACE_IMG_ENOTELF && strstr(ntrace_images_errmsg(s), "not an ELF"),
	      "image: non-ELF file");
	/* ELF32 is read (RV32; tests/rv32.sh decodes real ones): this one has no machine */
	write_file("elf32", elf32, sizeof(elf32));
	rc = ntrace_images_add_elf(s, path("elf32"), 0, 0);
	check(rc == NTRACE_IMG_EMACHINE && strstr(ntrace_images_errmsg(s), "not RISC-V"),
	      "image: an ELF32 header is read, up to its machine");
	elf32[EI_CLASS] = 3;
	write_file("elf32", elf32, sizeof(elf32));
	rc = ntrace_images_add_elf(s, path("elf32"), 0, 0);
	check(rc == NTRACE_IMG_EFORMAT && strstr(ntrace_images_errmsg(s), "ELF class 3"),
	      "image: an unknown ELF class is refused");
	write_elf("x86", EM_X86_64, ET_EXEC, 0x10000, 0);
	rc = ntrace_images_add_elf(s, path("x86"), 0, 0);
	check(rc == NTRACE_IMG_EMACHINE && strstr(ntrace_images_errmsg(s), "not RISC-V"),
	      "image: non-RISC-V ELF");
	write_elf("trunc", EM_RISCV, ET_EXEC, 0x10000, 1);
	rc = ntrace_images_add_elf(s, path("trunc"), 0, 0);
	check(rc == NTRACE_IMG_ECORRUPT && strstr(ntrace_images_errmsg(s), "outside the file"),
	      "image: program headers outside the file");
	check(ntrace_images_add_spec(s, "raw:blob") == NTRACE_IMG_EINVAL &&
	      strstr(ntrace_images_errmsg(s), "needs an address"),
	      "image: raw spec without address");
	check(ntrace_images_add_spec(s, "prog@0x12zz") == NTRACE_IMG_EINVAL &&
	      strstr(ntrace_images_errmsg(s), "bad load address"),
	      "image: spec with a bad address");
	check(ntrace_images_count(s) == 0, "image: failed loads leave the set empty");
	rc = ntrace_images_decode(s, 0x1000, &d);
	check(rc == NTRACE_IMG_ENOMAP && strstr(ntrace_images_errmsg(s), "outside every"),
	      "image: pc outside every image (empty set)");
	ntrace_images_free(s);
}

static void test_elf(void)
{
	struct ntrace_images *s = ntrace_images_new(NULL);
	struct ntrace_block b;
	struct ntrace_idec d;
	const char *img;
	uint64_t off = 99, a = 0;
	const char *sym;
	char spec[300];
	int rc;

	write_elf("prog", EM_RISCV, ET_EXEC, 0x10000, 0);
	write_elf("lib.so", EM_RISCV, ET_DYN, 0, 0);
	check(ntrace_images_add_elf(s, path("prog"), 0, 0) == 0, "image: load executable");
	snprintf(spec, sizeof(spec), "%s@0x7f000000", path("lib.so"));
	check(ntrace_images_add_spec(s, spec) == 0 && ntrace_images_count(s) == 2,
	      "image: load shared object at an address");
	sym = ntrace_images_symbol(s, 0x10004, &off, &img);
	check(sym && !strcmp(sym, "func_a") && off == 4 && img && strstr(img, "prog"),
	      "image: symbol and offset (mapping symbols skipped)");
	sym = ntrace_images_symbol(s, 0x7f000010, &off, &img);
	check(sym && !strcmp(sym, "func_b") && off == 2 && strstr(img, "lib.so"),
	      "image: symbols of a biased image");
	check(ntrace_images_lookup(s, "func_b", &a) == 0 && a == 0x1000e,
	      "image: symbol address by name");
	check(ntrace_images_decode(s, 0x7f00000a, &d) == 0 && d.kind == NTRACE_IK_BRANCH &&
	      d.off == 8, "image: decode in a biased image");
	rc = ntrace_images_decode(s, 0x20000, &d);
	check(rc == NTRACE_IMG_ENOMAP && strstr(ntrace_images_errmsg(s), "0x20000"),
	      "image: pc outside every image names the pc");
	rc = ntrace_images_add_elf(s, path("lib.so"), 0x10000, 1);
	check(rc == NTRACE_IMG_EOVERLAP && strstr(ntrace_images_errmsg(s), "overlaps") &&
	      strstr(ntrace_images_errmsg(s), "prog"), "image: overlapping images refused");
	check(ntrace_images_count(s) == 2, "image: the refused image is not added");

	/* block from the start: add, c.add, add, beq */
	rc = ntrace_images_block(s, 0x10000, &b);
	check(!rc && b.ninsn == 4 && b.nhalf == 7 && b.last == 0x1000a &&
	      b.end.kind == NTRACE_IK_BRANCH && b.target == 0x10012,
	      "image: block to a branch (count, halfwords, target)");
	rc = ntrace_images_block(s, 0x10004, &b);
	check(!rc && b.ninsn == 3 && b.nhalf == 5 && b.last == 0x1000a,
	      "image: block from the middle");
	rc = ntrace_images_block(s, 0x1000e, &b);
	check(!rc && b.ninsn == 2 && b.last == 0x10010 && b.end.kind == NTRACE_IK_INDIRECT &&
	      b.end.itype == 13, "image: block ending in a return");
	rc = ntrace_images_block(s, 0x10012, &b);
	check(!rc && b.ninsn == 1 && b.end.kind == NTRACE_IK_NONE && b.nhalf == 2,
	      "image: block running off the end of the code");
	check(ntrace_images_block(s, 0x10001, &b) == NTRACE_IMG_EINVAL,
	      "image: odd pc refused");
	ntrace_images_free(s);
}

static void test_raw_and_jvt(void)
{
	struct ntrace_isa_cfg cfg = NTRACE_ISA_CFG_RV64GC;
	struct ntrace_images *s;
	uint8_t buf[64] = { 0 }, table[16] = { 0 };
	struct ntrace_block b;
	size_t n;

	cfg.ext |= NTRACE_ISA_ZCMT;
	cfg.jvt_base = 0x9000;
	s = ntrace_images_new(&cfg);
	n = put32(buf, 0, JAL8);
	n = put16(buf, n, CM_JT1);
	write_file("blob", buf, n);
	check(ntrace_images_add_raw(s, path("blob"), 0x8000) == 0, "image: raw blob");
	/* JVT entry 1 = 0x8123 (bit 0 is ignored) */
	put32(table, 8, 0x8123);
	check(ntrace_images_add_mem(s, "jvt", table, sizeof(table), 0x9000) == 0,
	      "image: memory buffer");
	check(ntrace_images_block(s, 0x8000, &b) == 0 && b.end.kind == NTRACE_IK_JUMP &&
	      b.end.itype == 9 && b.target == 0x8008, "image: raw blob block (jal)");
	check(ntrace_images_block(s, 0x8004, &b) == 0 &&
	      b.end.kind == NTRACE_IK_TABLE_JUMP && b.target == 0x8122,
	      "image: CM.JT target read from the JVT table");
	ntrace_images_free(s);
}

/* Corrupted copies of a good ELF must load or fail cleanly, never crash. */
static void test_corrupt(void)
{
	uint8_t good[0x400], bad[0x400];
	unsigned int seed = 42, i, j, loaded = 0, refused = 0;
	FILE *f;

	write_elf("good", EM_RISCV, ET_EXEC, 0x10000, 0);
	f = fopen(path("good"), "rb");
	if (!f || fread(good, 1, sizeof(good), f) != sizeof(good)) {
		check(0, "image: read back the test ELF");
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	for (i = 0; i < 3000; i++) {
		struct ntrace_images *s = ntrace_images_new(NULL);
		size_t len = sizeof(bad);
		struct ntrace_block b;
		uint64_t a;

		memcpy(bad, good, sizeof(bad));
		for (j = 0; j < 1 + i % 8; j++)	/* flip bytes, mostly in headers */
			bad[rand_r(&seed) % (j & 1 ? sizeof(bad) : 0x80)] = rand_r(&seed);
		if (i % 5 == 0)
			len = rand_r(&seed) % sizeof(bad);	/* truncate */
		write_file("bad", bad, len);
		if (ntrace_images_add_elf(s, path("bad"), 0, 0) == 0) {
			loaded++;
			for (a = 0xff00; a < 0x10100; a += 2)
				ntrace_images_block(s, a, &b);
			ntrace_images_symbol(s, 0x10004, NULL, NULL);
		} else {
			refused++;
		}
		ntrace_images_free(s);
	}
	printf("# %u corrupted files loaded, %u refused\n", loaded, refused);
	check(loaded > 0 && refused > 0, "image: corrupted ELF files load or fail cleanly");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	test_errors();
	test_elf();
	test_raw_and_jvt();
	test_corrupt();
	{
		const char *names[] = { "missing", "text", "elf32", "x86", "trunc", "prog",
					"lib.so", "blob", "good", "bad" };
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			unlink(path(names[i]));
		rmdir(dir);
	}
	printf("# image_load_test: %d failed\n", failed);
	return failed != 0;
}
