// SPDX-License-Identifier: GPL-2.0-only
/* kmemleak helpers for kselftests (see kmemleak.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kmemleak.h"
#include "sysfs.h"

#define KMEMLEAK	"/sys/kernel/debug/kmemleak"
/* kmemleak leaves objects younger than this (MSECS_MIN_AGE) alone */
#define MIN_AGE_S	5
/* report lines printed per suspect, and suspects printed */
#define SHOW_LINES	16
#define SHOW_LEAKS	4

int kmemleak_forget(void)
{
	int err = sysfs_write(KMEMLEAK, "scan");

	return err ?: sysfs_write(KMEMLEAK, "clear");
}

int kmemleak_leaks(void)
{
	char line[512];
	int leaks = 0, shown = 0, err;
	FILE *f;

	sleep(MIN_AGE_S + 1);
	err = sysfs_write(KMEMLEAK, "scan");
	if (!err)
		err = sysfs_write(KMEMLEAK, "scan");
	if (err)
		return err;
	f = fopen(KMEMLEAK, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "unreferenced object", 19)) {
			leaks++;
			shown = 0;
		}
		if (leaks <= SHOW_LEAKS && shown++ < SHOW_LINES)
			printf("# kmemleak: %s", line);
	}
	fclose(f);
	return leaks;
}
