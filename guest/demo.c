// SPDX-License-Identifier: GPL-2.0-only
/*
 * Demo report: every file under /sys/firmware/sbi_pmu as "path: value",
 * then every registered perf PMU with its type number, format fields and,
 * where it has them, its discovered capabilities (caps/) and cpumask.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "console.h"
#include "demo.h"

#define SBI_PMU_DIR "/sys/firmware/sbi_pmu"
#define PMU_DIR "/sys/bus/event_source/devices"

static int cmp_str(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entry names of @dir (caller frees); returns the count or -1. */
static int list_dir(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	*out = names;
	return n;
}

static void free_list(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Print "label: line" for each line of the file (one line if empty). */
static void print_file(const char *path, const char *label)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	int lines = 0;

	if (!f) {
		con_line("demo", "%s: (unreadable)", label);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		con_line("demo", "%s: %s", label, line);
		lines++;
	}
	if (!lines)
		con_line("demo", "%s:", label);
	fclose(f);
}

static void print_tree(const char *dir)
{
	char path[1024], **names;
	struct stat st;
	int n = list_dir(dir, &names);

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			print_tree(path);
		else if (S_ISREG(st.st_mode))
			print_file(path, path);
	}
	if (n >= 0)
		free_list(names, n);
}

static void print_pmus(void)
{
	char path[1024], label[512], **pmus, **fmts;
	int n = list_dir(PMU_DIR, &pmus);

	if (n < 0) {
		con_line("demo", "%s: missing", PMU_DIR);
		return;
	}
	con_line("demo", "registered PMUs: %d", n);
	for (int i = 0; i < n; i++) {
		int m;

		snprintf(path, sizeof(path), "%s/%s/type", PMU_DIR, pmus[i]);
		snprintf(label, sizeof(label), "pmu %s type", pmus[i]);
		print_file(path, label);
		snprintf(path, sizeof(path), "%s/%s/format", PMU_DIR, pmus[i]);
		m = list_dir(path, &fmts);
		for (int j = 0; j < m; j++) {
			char fpath[1536];

			snprintf(fpath, sizeof(fpath), "%s/%s", path, fmts[j]);
			snprintf(label, sizeof(label), "pmu %s format %s", pmus[i], fmts[j]);
			print_file(fpath, label);
		}
		if (m >= 0)
			free_list(fmts, m);
		/* what an AUX PMU discovered in its hardware (ntrace) */
		snprintf(path, sizeof(path), "%s/%s/caps", PMU_DIR, pmus[i]);
		print_tree(path);
		snprintf(path, sizeof(path), "%s/%s/cpumask", PMU_DIR, pmus[i]);
		if (!access(path, R_OK)) {
			snprintf(label, sizeof(label), "pmu %s cpumask", pmus[i]);
			print_file(path, label);
		}
	}
	free_list(pmus, n);
}

void demo_report(void)
{
	struct stat st;

	con_line("demo", "== SBI PMU information (%s)", SBI_PMU_DIR);
	if (stat(SBI_PMU_DIR, &st))
		con_line("demo", "%s: missing (is the sbi_pmu module loaded?)", SBI_PMU_DIR);
	else
		print_tree(SBI_PMU_DIR);
	con_line("demo", "== perf PMUs (%s)", PMU_DIR);
	print_pmus();
}
