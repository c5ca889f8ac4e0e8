// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-ntrace trigger: keep the trace of a program in a ring (perf record
 * -S) and take it when the program reaches a function: the "flight
 * recorder" of magic-trace, with perf's own parts.
 *
 *  1. perf probe puts a uprobe on the function's entry (its file offset
 *     comes from the ELF symbol table; no debug information needed);
 *  2. perf record -S records the program, with the uprobe's tracepoint as
 *     --switch-output-event: its side-band thread sees the hit and sends
 *     SIGUSR2, which takes the AUX snapshot and starts a new output file;
 *  3. the probe is removed, and the files are renamed: OUT for the first
 *     trigger, OUT.2 ... for later ones; the last file perf writes holds
 *     only side band (no snapshot at the end without -Se) and goes.
 * The program runs on between the hit and the snapshot (microseconds to
 * milliseconds), so the snapshot ends a little after the trigger: decode
 * --until FUNCTION cuts it there. The uprobe's breakpoint traps at the
 * function's entry and its first instruction runs out of line (in the
 * [uprobes] page, whose code no decoder has): --until stops before.
 *
 * The tracepoint is named by its id (tracepoint/config=ID,period=1/), which
 * a perf built without libtraceevent (ours, in the guest) understands as
 * well; perf applies the period of a side-band event since our patch 0016.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_opts.h"

static const char trigger_help[] =
	"usage: perf-ntrace trigger [OPTIONS] FUNCTION -- COMMAND [ARGS]\n"
	"Record COMMAND's N-Trace in a ring buffer and take a snapshot of it when\n"
	"COMMAND first calls FUNCTION (a symbol of COMMAND's ELF file): the trace of\n"
	"what led there. Needs root (or CAP_PERFMON and tracefs access) for the\n"
	"uprobe.\n\n"
	"options:\n"
	"  -e EVENT        the ntrace event (default ntrace/htm=1,iret=1/u)\n"
	"  -m SIZE         the ring (perf's AUX area): how much trace before the\n"
	"                  trigger is kept (default 1M; a power of two pages)\n"
	"  -o FILE         the snapshot at the trigger (default ntrace-trigger.data);\n"
	"                  later triggers go to FILE.2 ...\n"
	"  --perf PATH     the perf to run (default perf, from PATH)\n"
	"  --tracefs DIR   where tracefs is mounted (default /sys/kernel/tracing,\n"
	"                  then /sys/kernel/debug/tracing)\n"
	"  -v, --verbose   print the commands run; perf record -v\n"
	"  -h, --help      this help\n"
	"Then: perf-ntrace decode --until FUNCTION --format=timeline FILE\n"
	"exit status: 0 a snapshot was taken at FUNCTION, 1 FUNCTION was not\n"
	"reached (or the probe could not be set), 2 usage or perf error\n";

#define GROUP "ntrace_trigger"
#define PATH_LEN 4096

struct trigger_args {
	const char *event, *size, *out, *perf, *func, *tracefs;
	char **cmd;
	char path[PATH_LEN];	/* COMMAND's file, for the uprobe */
	char probe[64];		/* GROUP:NAME */
};

static bool verbose;

/*
 * Run argv and wait; its exit status, or -1 if it could not run. shield:
 * ^C goes to the command (perf and its program), not to this process,
 * which still has to remove the probe.
 */
static int run(char **argv, bool shield)
{
	void (*old)(int) = SIG_DFL;
	pid_t pid;
	int st, i;

	if (verbose) {
		fputs("perf-ntrace trigger: running", stderr);
		for (i = 0; argv[i]; i++)
			fprintf(stderr, " %s", argv[i]);
		fputc('\n', stderr);
	}
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		execvp(argv[0], argv);
		fprintf(stderr, "perf-ntrace trigger: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (shield)
		old = signal(SIGINT, SIG_IGN);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			st = -1;
			break;
		}
	if (shield)
		signal(SIGINT, old);
	return st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The tracepoint id of the probe, from tracefs; 0 if not found. */
static unsigned long probe_id(const char *tracefs, const char *name)
{
	const char *roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[PATH_LEN];
	unsigned long id = 0;
	unsigned int i, n = 2;
	FILE *f;

	if (tracefs) {
		roots[0] = tracefs;
		n = 1;
	}
	for (i = 0; i < n && !id; i++) {
		snprintf(path, sizeof(path), "%s/events/" GROUP "/%s/id", roots[i], name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%lu", &id) != 1)
			id = 0;
		fclose(f);
	}
	return id;
}

static int parse_args(int argc, char **argv, struct trigger_args *a)
{
	static const struct option longopts[] = {
		{ "perf", required_argument, NULL, 'P' },
		{ "tracefs", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	a->event = "ntrace/htm=1,iret=1/u";
	a->size = "1M";
	a->out = "ntrace-trigger.data";
	a->perf = "perf";
	a->tracefs = NULL;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:m:o:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			a->event = optarg;
			break;
		case 'm':
			a->size = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'P':
			a->perf = optarg;
			break;
		case 'T':
			a->tracefs = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			fputs(trigger_help, stdout);
			return -1;
		default:
			fputs(trigger_help, stderr);
			return 2;
		}
	}
	if (optind + 2 > argc || strcmp(argv[optind + 1], "--") || optind + 3 > argc) {
		fprintf(stderr, "perf-ntrace trigger: expected FUNCTION -- COMMAND (see --help)\n");
		return 2;
	}
	a->func = argv[optind];
	a->cmd = argv + optind + 2;
	if (!opt_find_program(a->cmd[0], a->path, sizeof(a->path))) {
		fprintf(stderr, "perf-ntrace trigger: cannot find the program '%s'\n", a->cmd[0]);
		return 2;
	}
	snprintf(a->probe, sizeof(a->probe), GROUP ":f%ld", (long)getpid());
	return 0;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/*
 * The files perf wrote: tmp.<time>, one per trigger and the last at the
 * program's end (side band only), in time order (the names sort so); with
 * out, the triggers' renamed as the help says, else all removed (stale
 * ones from an earlier run). Returns the number of triggers.
 */
static int outputs(const char *out, const char *tmp)
{
	const char *slash = strrchr(tmp, '/'), *base = slash ? slash + 1 : tmp;
	char dir[PATH_LEN], from[PATH_LEN], to[PATH_LEN];
	char **names = NULL;
	size_t n = 0, i, len = strlen(base);
	struct dirent *de;
	DIR *d;

	if (!slash)
		strcpy(dir, ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == tmp ? 1 : (int)(slash - tmp), tmp);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char **nn;

		if (strncmp(de->d_name, base, len) || de->d_name[len] != '.')
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn || !(nn[n] = strdup(de->d_name))) {
			names = nn ? nn : names;
			break;
		}
		names = nn;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		snprintf(from, sizeof(from), "%s/%s", dir, names[i]);
		free(names[i]);
		if (!out || i + 1 == n) {
			unlink(from);
			continue;
		}
		if (i)
			snprintf(to, sizeof(to), "%s.%zu", out, i + 1);
		else
			snprintf(to, sizeof(to), "%s", out);
		if (rename(from, to))
			fprintf(stderr, "perf-ntrace trigger: cannot rename %s to %s: %s\n",
				from, to, strerror(errno));
	}
	free(names);
	return n ? (int)n - 1 : 0;
}

int cmd_trigger(int argc, char **argv)
{
	struct trigger_args a;
	char spec[PATH_LEN + 128], sb[64], tmp[PATH_LEN], msize[64];
	const char *name;
	unsigned long id;
	int rc = parse_args(argc, argv, &a), st = 0, ntrig;

	if (rc)
		return rc < 0 ? 0 : rc;
	name = strchr(a.probe, ':') + 1;
	snprintf(spec, sizeof(spec), "%s=%s", a.probe, a.func);
	{
		char *probe[] = { (char *)a.perf, "probe", "-q", "-x", a.path, "-a", spec, NULL };

		if (run(probe, false)) {
			fprintf(stderr, "perf-ntrace trigger: perf probe could not put a uprobe on "
				"%s in %s\n", a.func, a.path);
			return 1;
		}
	}
	id = probe_id(a.tracefs, name);
	if (!id) {
		fprintf(stderr, "perf-ntrace trigger: no tracefs id for %s\n", a.probe);
		rc = 1;
		goto out;
	}
	snprintf(sb, sizeof(sb), "tracepoint/config=%lu,period=1/", id);
	snprintf(msize, sizeof(msize), ",%s", a.size);
	if (snprintf(tmp, sizeof(tmp), "%s.trigger", a.out) >= (int)sizeof(tmp)) {
		rc = 2;
		goto out;
	}
	outputs(NULL, tmp);
	{
		char *fixed[] = { (char *)a.perf, "record", "-S", "-m", msize, "-e",
				  (char *)a.event, "--switch-output-event", sb, "-o", tmp };
		size_t nf = sizeof(fixed) / sizeof(fixed[0]), nc = 0, k;
		char **rec;

		while (a.cmd[nc])
			nc++;
		rec = calloc(nf + nc + 3, sizeof(*rec));
		if (!rec) {
			rc = 2;
			goto out;
		}
		memcpy(rec, fixed, sizeof(fixed));
		k = nf;
		if (verbose)
			rec[k++] = "-v";
		rec[k++] = "--";
		memcpy(rec + k, a.cmd, nc * sizeof(*rec));
		st = run(rec, true);
		free(rec);
	}
	ntrig = outputs(a.out, tmp);
	if (st) {
		fprintf(stderr, "perf-ntrace trigger: perf record exited with %d\n", st);
		rc = 2;
	} else if (!ntrig) {
		fprintf(stderr, "perf-ntrace trigger: %s was not reached: no snapshot\n",
			a.func);
		rc = 1;
	} else {
		fprintf(stderr, "perf-ntrace trigger: %s reached: the trace before it is in %s%s\n"
			"  perf-ntrace decode --until %s --format=timeline -o trace.json %s\n",
			a.func, a.out, ntrig > 1 ? " (later triggers: .2 ...)" : "", a.func, a.out);
	}
out:
	{
		char *del[] = { (char *)a.perf, "probe", "-q", "-d", a.probe, NULL };

		if (run(del, false))
			fprintf(stderr, "perf-ntrace trigger: could not remove the uprobe %s\n",
				a.probe);
	}
	return rc;
}
