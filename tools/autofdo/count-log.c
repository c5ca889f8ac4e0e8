// SPDX-License-Identifier: GPL-2.0-only
/*
 * The truth of an AutoFDO comparison: exact counts of every executed
 * instruction range and every taken control transfer of one statically
 * linked program, from QEMU user mode's log, written as llvm-profgen's
 * unsymbolized profile (the format perf-ntrace decode --format=autofdo
 * writes from a trace). Debian's qemu-user has no plugin support, so the
 * log is the source:
 *
 *   mkfifo L; count-log LO HI BASE OUT [SUM] <L &
 *   qemu-riscv64 -d in_asm,exec,nochain -D L PROG ARGS...
 *
 * LO, HI: the program's executable link addresses [LO, HI); BASE: its
 * text base (the lowest executable segment's address, page-aligned), which
 * offsets are counted from. SUM: also write "instructions N" and "taken N"
 * for the whole process (the effect of a rebuild).
 *
 * in_asm lists each translation block's instructions once ("IN:" and then
 * "0xADDR:  WORD  insn" lines); exec logs each execution of a block
 * ("Trace N: HOST [FLAGS/PC/...]"; nochain makes QEMU log every one). A
 * block executes as a whole (no instruction of these programs faults), so
 * its count is its range's, and a block that does not start where the
 * previous one ended was reached by a taken transfer from the previous
 * block's last instruction, and so was every block after one that ends in
 * a jump (glibc has jumps to the next instruction). As in N-Trace, ECALL
 * and EBREAK do not retire: a range stops before one. A conditional branch
 * taken to the next instruction looks like falling through; compilers do
 * not emit one. The few encodings needed are decoded here, not with
 * libntrace: this is the truth the library is tested against.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One translated block. */
struct tb {
	uint64_t start, last, next;	/* first and last counted insn, end */
	uint64_t count;
	uint32_t ninsn;			/* counted instructions */
	bool jump;			/* ends in an unconditional jump */
	struct tb *link;		/* all blocks, for the report */
};

struct pair {
	uint64_t a, b, count;
};

/* Open-addressing table of (a, b) -> count; a = 0 marks an empty slot
 * (no program code lives at address 0). */
struct pairs {
	struct pair *e;
	size_t n, cap;
};

static struct tb *blocks;
static struct pairs branches;
static uint64_t lo, hi, base, n_insn, n_taken;

static size_t slot(uint64_t a, uint64_t b, size_t cap)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ b * 0xc2b2ae3d27d4eb4full;

	return (size_t)(h ^ (h >> 31)) & (cap - 1);
}

static void pairs_add(struct pairs *t, uint64_t a, uint64_t b, uint64_t n)
{
	size_t j;

	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024, i;
		struct pair *e = calloc(cap, sizeof(*e));

		if (!e)
			abort();
		for (i = 0; i < t->cap; i++) {
			if (!t->e[i].a)
				continue;
			j = slot(t->e[i].a, t->e[i].b, cap);
			while (e[j].a)
				j = (j + 1) & (cap - 1);
			e[j] = t->e[i];
		}
		free(t->e);
		t->e = e;
		t->cap = cap;
	}
	for (j = slot(a, b, t->cap); t->e[j].a; j = (j + 1) & (t->cap - 1))
		if (t->e[j].a == a && t->e[j].b == b) {
			t->e[j].count += n;
			return;
		}
	t->e[j] = (struct pair){ a, b, n };
	t->n++;
}

static bool mine(uint64_t pc)
{
	return pc >= lo && pc < hi;
}

/* Blocks by start address (a retranslation keeps the first listing). */
static struct tb **bytab;
static size_t nby, bycap;

static struct tb **by_start(uint64_t pc)
{
	size_t j;

	if (2 * (nby + 1) > bycap) {
		size_t cap = bycap ? 2 * bycap : 4096, i;
		struct tb **t = calloc(cap, sizeof(*t));

		if (!t)
			abort();
		for (i = 0; i < bycap; i++) {
			if (!bytab[i])
				continue;
			j = slot(bytab[i]->start, 0, cap);
			while (t[j])
				j = (j + 1) & (cap - 1);
			t[j] = bytab[i];
		}
		free(bytab);
		bytab = t;
		bycap = cap;
	}
	for (j = slot(pc, 0, bycap); bytab[j]; j = (j + 1) & (bycap - 1))
		if (bytab[j]->start == pc)
			break;
	return &bytab[j];
}

static void tb_exec(struct tb *b, const struct tb **prev)
{
	const struct tb *p = *prev;

	b->count++;
	if (p && (p->next != b->start || p->jump)) {
		n_taken++;
		if (p->ninsn && mine(p->last) && mine(b->start))
			pairs_add(&branches, p->last, b->start, 1);
	}
	*prev = b;
}

/* ECALL, EBREAK, C.EBREAK: they trap instead of retiring. */
static bool traps(uint32_t w, unsigned int bytes)
{
	if (bytes == 2)
		return w == 0x9002;
	return w == 0x00000073 || w == 0x00100073;
}

/* JAL, JALR, C.J, C.JR, C.JALR (RV64: no C.JAL). */
static bool jumps(uint32_t w, unsigned int bytes)
{
	if (bytes == 4)
		return (w & 0x7f) == 0x6f || (w & 0x707f) == 0x67;
	if ((w & 0xe003) == 0xa001)
		return true;
	return (w & 0xe07f) == 0x8002 && (w & 0x0f80);	/* rs2 = 0, rs1 != 0 */
}

/* Read the log; the block being listed is cur (NULL: none). */
static void read_log(FILE *in)
{
	char line[512], word[16];
	struct tb *cur = NULL;
	const struct tb *prev = NULL;
	bool stopped = false;	/* cur's range ended at an ECALL */
	uint64_t a;
	uint32_t w;

	while (fgets(line, sizeof(line), in)) {
		if (!strncmp(line, "IN:", 3)) {
			cur = calloc(1, sizeof(*cur));
			if (!cur)
				abort();
			cur->start = UINT64_MAX;
			stopped = false;
			continue;
		}
		if (cur && sscanf(line, "0x%" SCNx64 ": %15s", &a, word) == 2) {
			unsigned int bytes = (unsigned int)strlen(word) / 2;

			if (cur->start == UINT64_MAX)
				cur->start = a;
			w = (uint32_t)strtoul(word, NULL, 16);
			if (!stopped && traps(w, bytes))
				stopped = true;
			cur->jump = jumps(w, bytes);
			if (!stopped) {
				cur->last = a;
				cur->ninsn++;
			}
			cur->next = a + bytes;
			continue;
		}
		if (cur) {	/* the listing ended */
			struct tb **s = cur->start == UINT64_MAX ? NULL : by_start(cur->start);

			if (s && !*s) {
				*s = cur;
				nby++;
				cur->link = blocks;
				blocks = cur;
			} else {
				free(cur);
			}
			cur = NULL;
		}
		if (!strncmp(line, "Trace ", 6)) {
			char *p = strchr(line, '[');
			struct tb **s;

			if (!p || !(p = strchr(p, '/')))
				continue;
			a = strtoull(p + 1, NULL, 16);
			s = by_start(a);
			if (*s)
				tb_exec(*s, &prev);
			else
				fprintf(stderr, "count-log: block 0x%" PRIx64 " ran unlisted\n", a);
		}
	}
}

static int cmp_pair(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

static void write_pairs(FILE *f, const struct pairs *t, const char *sep)
{
	struct pair *v = malloc((t->n ? t->n : 1) * sizeof(*v));
	size_t i, m = 0;

	if (!v)
		abort();
	for (i = 0; i < t->cap; i++)
		if (t->e[i].a)
			v[m++] = t->e[i];
	qsort(v, m, sizeof(*v), cmp_pair);
	fprintf(f, "%zu\n", m);
	for (i = 0; i < m; i++)
		fprintf(f, "%" PRIx64 "%s%" PRIx64 ":%" PRIu64 "\n", v[i].a - base, sep,
			v[i].b - base, v[i].count);
	free(v);
}

static uint64_t arg_u64(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (!*s || *end) {
		fprintf(stderr, "count-log: '%s' is not a number\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct pairs ranges = { 0 };
	const struct tb *b;
	FILE *f;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: count-log LO HI BASE OUT [SUM] <QEMU-LOG\n");
		return 2;
	}
	lo = arg_u64(argv[1]);
	hi = arg_u64(argv[2]);
	base = arg_u64(argv[3]);
	if (lo >= hi || base > lo) {
		fprintf(stderr, "count-log: wants BASE <= LO < HI\n");
		return 2;
	}
	read_log(stdin);
	for (b = blocks; b; b = b->link) {
		n_insn += b->count * b->ninsn;
		if (b->count && b->ninsn && mine(b->start))
			pairs_add(&ranges, b->start, b->last, b->count);
	}
	f = fopen(argv[4], "w");
	if (!f) {
		perror(argv[4]);
		return 1;
	}
	write_pairs(f, &ranges, "-");
	write_pairs(f, &branches, "->");
	if (fclose(f)) {
		perror(argv[4]);
		return 1;
	}
	if (argc == 6) {
		f = fopen(argv[5], "w");
		if (!f || fprintf(f, "instructions %" PRIu64 "\ntaken %" PRIu64 "\n", n_insn,
				  n_taken) < 0 || fclose(f)) {
			perror(argv[5]);
			return 1;
		}
	}
	return 0;
}
