// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-ntrace disasm: the RISC-V disassembly of the instruction bytes in
 * perf script output ("insn: 13 05 00 00", from -F +insn or
 * --insn-trace), as Intel PT users pipe it through xed: perf's -F +disasm
 * needs capstone with RISC-V, which Debian 12 does not have.
 *
 * The input is kept in a temporary file while the distinct encodings are
 * collected; objdump disassembles them all at once, each in a 4-byte slot
 * of a flat binary (a 2-byte one padded with c.nop), and every line is then
 * written out with its instruction's text appended. A pc-relative target
 * (branches, jumps) is printed relative to the instruction, ".+0x22": the
 * bytes alone do not say where it ran.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_opts.h"

static const char disasm_help[] =
	"usage: perf-ntrace disasm [--objdump PROG] [FILE]\n"
	"Copy perf script output (FILE or stdin) to stdout with the RISC-V\n"
	"disassembly of each \"insn: BYTES\" appended, e.g.\n"
	"  perf script --insn-trace -F +insn | perf-ntrace disasm\n"
	"Pc-relative targets are shown relative to the instruction (.+0x22).\n\n"
	"options:\n"
	"  --objdump PROG  a RISC-V objdump (default riscv64-linux-gnu-objdump if\n"
	"                  it is in PATH, else objdump)\n"
	"  -h, --help      this help\n"
	"exit status: 0 ok, 2 usage, I/O or objdump error\n";

#define LINE_MAX_LEN 65536

/* The distinct encodings, in first-seen order, and an index by value. */
struct encs {
	uint32_t *val;		/* encodings, as line_insn() gives them */
	char **text;		/* objdump's text per slot */
	size_t n, cap;
	uint32_t *slot;		/* hash table of index + 1 (0: empty) */
	size_t nslot;
};

static size_t enc_hash(uint32_t v, size_t nslot)
{
	return (size_t)((v * 0x9e3779b1u) >> 7) & (nslot - 1);
}

static int enc_grow(struct encs *e)
{
	size_t ncap = e->cap ? 2 * e->cap : 1024, i, h;
	uint32_t *nv = realloc(e->val, ncap * sizeof(*nv));
	uint32_t *ns;

	if (!nv)
		return -1;
	e->val = nv;
	ns = calloc(2 * ncap, sizeof(*ns));
	if (!ns)
		return -1;
	for (i = 0; i < e->n; i++) {
		for (h = enc_hash(e->val[i], 2 * ncap); ns[h]; h = (h + 1) & (2 * ncap - 1))
			;
		ns[h] = (uint32_t)i + 1;
	}
	free(e->slot);
	e->slot = ns;
	e->nslot = 2 * ncap;
	e->cap = ncap;
	return 0;
}

/* The index of v, added if new; -1 if out of memory. */
static long enc_index(struct encs *e, uint32_t v)
{
	size_t h;

	if (e->n == e->cap && enc_grow(e))
		return -1;
	for (h = enc_hash(v, e->nslot); e->slot[h]; h = (h + 1) & (e->nslot - 1))
		if (e->val[e->slot[h] - 1] == v)
			return (long)e->slot[h] - 1;
	e->val[e->n] = v;
	e->slot[h] = (uint32_t)++e->n;
	return (long)e->n - 1;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * The encoding of the bytes after "insn:" in line: 2 or 4 bytes, little
 * endian; a 2-byte one (low bits not 11) marked with bit 31, which a
 * 4-byte one can have too but never with those low bits. False if none.
 */
static bool line_insn(const char *line, uint32_t *v)
{
	const char *p = strstr(line, "insn:");
	uint32_t b[4];
	unsigned int n = 0;

	if (!p)
		return false;
	for (p += 5; n < 4; p += 2) {
		while (*p == ' ')
			p++;
		if (hexval(p[0]) < 0 || hexval(p[1]) < 0 ||
		    (p[2] && p[2] != ' ' && p[2] != '\t' && p[2] != '\n'))
			break;
		b[n++] = (uint32_t)(hexval(p[0]) << 4 | hexval(p[1]));
	}
	if (n >= 2 && (b[0] & 3) != 3) {
		*v = 0x80000000u | b[0] | b[1] << 8;
		return true;
	}
	if (n < 4)
		return false;
	*v = b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24;
	return true;
}

static bool is_pcrel(const char *mn)
{
	static const char *const names[] = {
		"j", "jal", "beq", "bne", "blt", "bge", "bltu", "bgeu", "beqz", "bnez",
		"blez", "bgez", "bltz", "bgtz", "bgt", "ble", "bgtu", "bleu",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(mn, names[i]))
			return true;
	return false;
}

/*
 * One objdump line "  OFF:\tBYTES \tMNEMONIC\tOPERANDS[ # comment]" into
 * the text of its slot (only offsets that start a slot).
 */
static int take_line(struct encs *e, char *l)
{
	char *tab1, *tab2, *mn, *ops, *c, *t, *last;
	unsigned long off;
	size_t len;

	if (sscanf(l, " %lx:", &off) != 1 || off % 4 || off / 4 >= e->n ||
	    !(tab1 = strchr(l, '\t')) || !(tab2 = strchr(tab1 + 1, '\t')))
		return 0;
	mn = tab2 + 1;
	mn[strcspn(mn, "\n")] = 0;
	c = strstr(mn, " #");
	if (c)
		*c = 0;
	ops = strchr(mn, '\t');
	if (ops)
		*ops++ = 0;
	len = strlen(mn) + (ops ? strlen(ops) : 0) + 32;
	t = malloc(len);
	if (!t)
		return -1;
	last = ops ? strrchr(ops, ',') : NULL;
	last = last ? last + 1 : ops;
	if (ops && is_pcrel(mn) && !strncmp(last, "0x", 2)) {
		long long rel = (long long)strtoull(last, NULL, 16) - (long long)off;

		snprintf(t, len, "%s\t%.*s.%c0x%llx", mn, (int)(last - ops), ops,
			 rel < 0 ? '-' : '+', rel < 0 ? -rel : rel);
	} else {
		snprintf(t, len, "%s%s%s", mn, ops ? "\t" : "", ops ? ops : "");
	}
	free(e->text[off / 4]);
	e->text[off / 4] = t;
	return 0;
}

static const char *default_objdump(void)
{
	char buf[4096];

	return opt_find_program("riscv64-linux-gnu-objdump", buf, sizeof(buf)) ?
	       "riscv64-linux-gnu-objdump" : "objdump";
}

/* Disassemble every encoding into e->text; 0 or -1 (said). */
static int run_objdump(struct encs *e, const char *objdump)
{
	const char *dir = getenv("TMPDIR");
	char path[4096], cmd[4400], line[4096];
	size_t i;
	FILE *f, *p;
	int fd = -1, rc = 0;

	e->text = calloc(e->n ? e->n : 1, sizeof(*e->text));
	if ((size_t)snprintf(path, sizeof(path), "%s/perf-ntrace-disasm.XXXXXX",
			     dir && *dir ? dir : "/tmp") < sizeof(path))
		fd = mkstemp(path);
	if (!e->text || fd < 0 || !(f = fdopen(fd, "wb"))) {
		fprintf(stderr, "perf-ntrace disasm: cannot make a temporary file: %s\n",
			strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return -1;
	}
	for (i = 0; i < e->n; i++) {
		uint32_t v = e->val[i];
		uint8_t b[4] = { v, v >> 8, v >> 16, v >> 24 };

		if ((v & 3) != 3) {	/* 2 bytes: c.nop after it */
			b[2] = 0x01;
			b[3] = 0x00;
		}
		fwrite(b, 1, 4, f);
	}
	if (fclose(f)) {
		unlink(path);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "%s -D -b binary -m riscv:rv64 '%s' 2>/dev/null", objdump,
		 path);
	p = popen(cmd, "r");
	if (!p) {
		unlink(path);
		return -1;
	}
	while (!rc && fgets(line, sizeof(line), p))
		rc = take_line(e, line);
	if (pclose(p) || rc) {
		fprintf(stderr, "perf-ntrace disasm: %s failed (a RISC-V objdump is needed: "
			"binutils-riscv64-linux-gnu, or --objdump)\n", objdump);
		rc = -1;
	}
	unlink(path);
	return rc;
}

int cmd_disasm(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "objdump", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *objdump = NULL;
	struct encs e = { 0 };
	char *line = malloc(LINE_MAX_LEN);
	FILE *in = stdin, *tmp = tmpfile();
	int opt, rc = 2;
	size_t i;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'O':
			objdump = optarg;
			break;
		case 'h':
			fputs(disasm_help, stdout);
			rc = 0;
			goto out;
		default:
			fputs(disasm_help, stderr);
			goto out;
		}
	}
	if (optind < argc - 1) {
		fputs(disasm_help, stderr);
		goto out;
	}
	if (optind == argc - 1 && strcmp(argv[optind], "-") && !(in = fopen(argv[optind], "r"))) {
		fprintf(stderr, "perf-ntrace disasm: cannot open '%s': %s\n", argv[optind],
			strerror(errno));
		goto out;
	}
	if (!line || !tmp) {
		fprintf(stderr, "perf-ntrace disasm: out of memory or no temporary file\n");
		goto out;
	}
	/* pass 1: keep the lines, collect the encodings */
	while (fgets(line, LINE_MAX_LEN, in)) {
		uint32_t v;

		if (line_insn(line, &v) && enc_index(&e, v) < 0) {
			fprintf(stderr, "perf-ntrace disasm: out of memory\n");
			goto out;
		}
		fputs(line, tmp);
	}
	if (ferror(in) || fflush(tmp) || ferror(tmp)) {
		fprintf(stderr, "perf-ntrace disasm: read error: %s\n", strerror(errno));
		goto out;
	}
	if (e.n && run_objdump(&e, objdump ? objdump : default_objdump()))
		goto out;
	/* pass 2: each line with its instruction's text */
	rewind(tmp);
	while (fgets(line, LINE_MAX_LEN, tmp)) {
		size_t len = strcspn(line, "\n");
		uint32_t v;
		long k;

		if (line_insn(line, &v) && (k = enc_index(&e, v)) >= 0 && e.text[k])
			printf("%.*s\t%s\n", (int)len, line, e.text[k]);
		else
			fputs(line, stdout);
	}
	rc = fflush(stdout) || ferror(stdout) ? 2 : 0;
	if (rc)
		fprintf(stderr, "perf-ntrace disasm: write error: %s\n", strerror(errno));
out:
	for (i = 0; e.text && i < e.n; i++)
		free(e.text[i]);
	free(e.text);
	free(e.val);
	free(e.slot);
	free(line);
	if (in && in != stdin)
		fclose(in);
	if (tmp)
		fclose(tmp);
	return rc;
}
