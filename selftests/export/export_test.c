// SPDX-License-Identifier: GPL-2.0-only
/*
 * Files written under /tmp/export leave the guest (guest/export.h). This test
 * writes files of known content there: a text file, a binary file holding
 * every byte value, and one under a path longer than ustar's 100-byte name
 * field. It checks them by reading them back; the host side
 * (scripts/autofdo.sh --test, which boots with scripts/guest.sh --export)
 * regenerates the same content and compares what arrived.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kselftest.h"

#define DIR_TOP		"/tmp/export/selftest"
#define LINES		20000
#define BIN_SIZE	16411	/* not a multiple of the 512-byte block */
#define DEEP_DIR	DIR_TOP "/a-directory-name-of-forty-characters-xx/" \
			"another-directory-name-of-forty-chars-x"
#define DEEP_FILE	DEEP_DIR "/file-with-a-long-name-beyond-the-ustar-name-field.txt"

/* Byte i of bytes.bin; the host computes the same in perl. */
static unsigned char bin_byte(unsigned int i)
{
	return (i * 7 + (i >> 8)) & 0xff;
}

static int write_files(void)
{
	FILE *f;

	if ((mkdir(DIR_TOP, 0755) && errno != EEXIST) ||
	    (mkdir(DIR_TOP "/a-directory-name-of-forty-characters-xx", 0755) && errno != EEXIST) ||
	    (mkdir(DEEP_DIR, 0755) && errno != EEXIST))
		return -1;
	f = fopen(DIR_TOP "/lines.txt", "w");
	if (!f)
		return -1;
	for (int i = 0; i < LINES; i++)
		fprintf(f, "ntrace export line %d\n", i);
	if (fclose(f))
		return -1;
	f = fopen(DIR_TOP "/bytes.bin", "wb");
	if (!f)
		return -1;
	for (unsigned int i = 0; i < BIN_SIZE; i++)
		fputc(bin_byte(i), f);
	if (fclose(f))
		return -1;
	f = fopen(DEEP_FILE, "w");
	if (!f)
		return -1;
	fprintf(f, "deep\n");
	return fclose(f);
}

static int check_lines(void)
{
	char line[64], want[64];
	int i = 0, bad = 0;
	FILE *f = fopen(DIR_TOP "/lines.txt", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		snprintf(want, sizeof(want), "ntrace export line %d\n", i++);
		bad |= strcmp(line, want) != 0;
	}
	fclose(f);
	return !bad && i == LINES;
}

static int check_bytes(void)
{
	unsigned int i = 0;
	int c, bad = 0;
	FILE *f = fopen(DIR_TOP "/bytes.bin", "rb");

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		bad |= c != bin_byte(i++);
	fclose(f);
	return !bad && i == BIN_SIZE;
}

int main(void)
{
	struct stat st;

	ksft_print_header();
	ksft_set_plan(3);
	if (write_files())
		ksft_exit_fail_msg("writing under " DIR_TOP ": %s\n", strerror(errno));
	ksft_test_result(check_lines(), "export: lines.txt has %d known lines\n", LINES);
	ksft_test_result(check_bytes(), "export: bytes.bin has %d known bytes\n", BIN_SIZE);
	ksft_test_result(!stat(DEEP_FILE, &st) && st.st_size == 5,
			 "export: file under a %zu-byte path written\n",
			 strlen(DEEP_FILE) - strlen("/tmp/export/"));
	ksft_finished();
}
