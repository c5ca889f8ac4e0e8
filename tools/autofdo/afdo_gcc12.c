// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rewrites an AutoFDO gcov profile from create_gcov (autofdo 0.19,
 * --gcov_version=2) into the layout GCC 12 reads.
 *
 * GCC 12 reads gcov strings with their length in bytes (gcov_read_string()
 * uses gcov_read_bytes(); the change came with AUTO_PROFILE_VERSION 2),
 * while autofdo 0.19 still writes the older form: the length in 4-byte
 * words, the string NUL-padded to a word boundary. Fed such a file, GCC 12
 * misreads the string table and crashes. Only the string table holds
 * strings; everything after it is copied as it is.
 *
 * Layout (32-bit little-endian words): magic "gcda", version, a zero word,
 * tag 0xaa000000 (file names), section length, string count, the strings;
 * then the function section.
 * Usage: afdo_gcc12 IN OUT
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GCOV_DATA_MAGIC		0x67636461u
#define TAG_FILE_NAMES		0xaa000000u
#define AFDO_VERSION		2u

static unsigned char *buf;
static size_t len, pos;

static int get_u32(uint32_t *v)
{
	if (len - pos < 4)
		return -1;
	*v = buf[pos] | buf[pos + 1] << 8 | buf[pos + 2] << 16 | (uint32_t)buf[pos + 3] << 24;
	pos += 4;
	return 0;
}

static void put_u32(FILE *f, uint32_t v)
{
	unsigned char b[4] = { v, v >> 8, v >> 16, v >> 24 };

	fwrite(b, 1, 4, f);
}

static int fail(const char *what)
{
	fprintf(stderr, "afdo_gcc12: %s\n", what);
	return 1;
}

int main(int argc, char **argv)
{
	uint32_t magic, version, zero, tag, seclen, n, words;
	size_t strings_start, out_bytes = 4;
	FILE *in, *out;
	long size;

	if (argc != 3)
		return fail("usage: afdo_gcc12 IN OUT");
	in = fopen(argv[1], "rb");
	if (!in || fseek(in, 0, SEEK_END) || (size = ftell(in)) < 0 || fseek(in, 0, SEEK_SET)) {
		fprintf(stderr, "afdo_gcc12: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	buf = malloc(size ? size : 1);
	len = fread(buf, 1, size, in);
	fclose(in);
	if (!buf || len != (size_t)size)
		return fail("cannot read the input");
	if (get_u32(&magic) || magic != GCOV_DATA_MAGIC)
		return fail("not a gcov data file (bad magic)");
	if (get_u32(&version) || version != AFDO_VERSION)
		return fail("not an AutoFDO version 2 profile (run create_gcov --gcov_version=2)");
	if (get_u32(&zero) || get_u32(&tag) || tag != TAG_FILE_NAMES || get_u32(&seclen) ||
	    get_u32(&n))
		return fail("no string table after the header");
	strings_start = pos;
	/* First pass: validate, and size the rewritten section. */
	for (uint32_t i = 0; i < n; i++) {
		if (get_u32(&words) || words > (len - pos) / 4)
			return fail("string table runs past the end of the file");
		out_bytes += 4 + (words ? strnlen((char *)buf + pos, 4 * words) + 1 : 0);
		pos += 4 * words;
	}
	out = fopen(argv[2], "wb");
	if (!out) {
		fprintf(stderr, "afdo_gcc12: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	put_u32(out, magic);
	put_u32(out, version);
	put_u32(out, zero);
	put_u32(out, tag);
	/* GCC skips the section length; keep it meaningful: payload bytes. */
	put_u32(out, out_bytes);
	put_u32(out, n);
	pos = strings_start;
	for (uint32_t i = 0; i < n; i++) {
		size_t slen;

		get_u32(&words);
		if (!words) {
			put_u32(out, 0);
			continue;
		}
		slen = strnlen((char *)buf + pos, 4 * words);
		put_u32(out, slen + 1);
		fwrite(buf + pos, 1, slen, out);
		fputc(0, out);
		pos += 4 * words;
	}
	fwrite(buf + pos, 1, len - pos, out);
	if (fclose(out))
		return fail("cannot write the output");
	free(buf);
	return 0;
}
