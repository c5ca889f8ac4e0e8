// SPDX-License-Identifier: GPL-2.0-only
/*
 * CTR through the perf tool the project builds from the kernel source, as
 * users type it: perf record -b, -j any_call,u and -j stack,u on cycles,
 * then perf script -F ip,brstack and perf report --branch-history. The
 * workload (ctr_workload.h, run by this program in a child) has a known
 * shape; the binary is static and not position independent, so the
 * addresses perf reports are the ones this process sees:
 *  - -b: some record is a call into the leaf function;
 *  - -j any_call,u: calls into the leaf are recorded and no record leaves
 *    the leaf (it makes no calls, so only its returns could);
 *  - -j stack,u: records exist, none leaving the leaf;
 *  - perf report --branch-history reads the -b recording.
 * Skips when the hart has no Ssctr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "ctr_sample.h"
#include "guest.h"
#include "run.h"

#define PERF "/usr/bin/perf"
#define DATA "/tmp/ctr_perf_tool_test.data"
#define WORK_ITERS 400000
#define TIMEOUT 180

static char self[4096];
static char out[1 << 20];

static int run_ok(char *const argv[])
{
	int ret = run_capture(argv, out, sizeof(out), TIMEOUT);

	if (ret < 0 || !WIFEXITED(ret) || WEXITSTATUS(ret)) {
		ksft_print_msg("%s %s failed (status %d); output:\n%.2000s\n",
			       argv[0], argv[1], ret, out);
		return 0;
	}
	return 1;
}

struct brstack_stats {
	unsigned long samples, records, into_leaf, from_leaf;
};

/* Count the "FROM/TO/..." records of perf script -F ip,brstack output. */
static void scan_brstack(struct brstack_stats *st)
{
	char *line, *tok, *save_line, *save_tok;

	memset(st, 0, sizeof(*st));
	for (line = strtok_r(out, "\n", &save_line); line;
	     line = strtok_r(NULL, "\n", &save_line)) {
		st->samples++;
		for (tok = strtok_r(line, " \t", &save_tok); tok;
		     tok = strtok_r(NULL, " \t", &save_tok)) {
			unsigned long long from, to;
			char *end;

			if (!strchr(tok, '/'))
				continue;
			from = strtoull(tok, &end, 16);
			if (*end != '/')
				continue;
			to = strtoull(end + 1, &end, 16);
			st->records++;
			if (to == ctr_work.leaf)
				st->into_leaf++;
			if (ctr_in(from, ctr_work.leaf, ctr_work.leaf_end))
				st->from_leaf++;
		}
	}
}

/*
 * Multi-threaded TCG with several harts loses overflow interrupts
 * (scripts/guest.sh): no samples at all is then QEMU's fault, not ours.
 */
/*
 * A run that should give hundreds of samples and gave fewer than this lost
 * its overflow interrupts (quirk mttcg-lost-overflow: two harts under
 * multi-threaded TCG); it is recorded again, and skipped if that goes on.
 */
#define FEW_SAMPLES 20

static bool samples_lost(const struct brstack_stats *st, const char *what)
{
	if (st->samples >= FEW_SAMPLES || !guest_has_quirk("mttcg-lost-overflow"))
		return false;
	ksft_test_result_skip("%s: %lu samples (quirk mttcg-lost-overflow)\n", what,
			      st->samples);
	return true;
}

/* perf record with @branch_opts, then perf script; false on failure. */
static bool record_and_script(char *const branch_opts[], struct brstack_stats *st)
{
	char iters[32];
	char *rec[16] = { PERF, "record", "-q", "-o", DATA, "-e", "cycles:u",
			  "-c", "100003" };
	char *scr[] = { PERF, "script", "-i", DATA, "-F", "ip,brstack", NULL };
	int n = 9;

	for (int i = 0; branch_opts[i]; i++)
		rec[n++] = branch_opts[i];
	snprintf(iters, sizeof(iters), "%d", WORK_ITERS);
	rec[n++] = "--";
	rec[n++] = self;
	rec[n++] = "work";
	rec[n++] = iters;
	rec[n] = NULL;
	for (int tries = 0; tries < 3; tries++) {
		unlink(DATA);
		if (!run_ok(rec) || !run_ok(scr))
			return false;
		scan_brstack(st);
		if (st->samples >= FEW_SAMPLES || !guest_has_quirk("mttcg-lost-overflow"))
			break;
	}
	ksft_print_msg("%s %s: %lu samples, %lu records, %lu into the leaf, %lu leaving it\n",
		       branch_opts[0], branch_opts[1] ? branch_opts[1] : "",
		       st->samples, st->records, st->into_leaf, st->from_leaf);
	return true;
}

static void test_any_history(void)
{
	char *opts[] = { "-b", NULL };
	char *rep[] = { PERF, "report", "-i", DATA, "--branch-history", "--stdio",
			NULL };
	struct brstack_stats st;
	bool ok = record_and_script(opts, &st);

	if (ok && samples_lost(&st, "perf record -b")) {
		ksft_test_result_skip("perf report --branch-history (no samples)\n");
		return;
	}
	ksft_test_result(ok && st.records > st.samples && st.into_leaf > 0,
			 "perf record -b: branch stacks with calls into the leaf\n");
	ok = ok && run_ok(rep) && strstr(out, "ctr_perf_tool");
	ksft_test_result(ok, "perf report --branch-history reads them\n");
}

static void test_any_call(void)
{
	char *opts[] = { "-j", "any_call,u", NULL };
	struct brstack_stats st;
	bool ok = record_and_script(opts, &st);

	if (ok && samples_lost(&st, "perf record -j any_call,u"))
		return;
	ksft_test_result(ok && st.into_leaf > 0 && !st.from_leaf,
			 "perf record -j any_call,u: calls only\n");
}

static void test_call_stack(void)
{
	char *opts[] = { "-j", "stack,u", NULL };
	struct brstack_stats st;
	bool ok = record_and_script(opts, &st);

	if (ok && samples_lost(&st, "perf record -j stack,u")) {
		unlink(DATA);
		return;
	}
	/* a call stack holds calls still open: the leaf's are popped by its return */
	ksft_test_result(ok && st.records > 0 && !st.from_leaf,
			 "perf record -j stack,u: call stacks recorded\n");
	unlink(DATA);
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc > 2 && !strcmp(argv[1], "work")) {
		ctr_work.run(strtoull(argv[2], NULL, 0));
		return 0;
	}
	ksft_print_header();
	if (access(PERF, X_OK))
		ksft_exit_skip("%s not installed\n", PERF);
	ctr_require();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		ksft_exit_fail_msg("readlink /proc/self/exe: %s\n", strerror(errno));
	self[n] = '\0';

	ksft_set_plan(4);
	test_any_history();
	test_any_call();
	test_call_stack();
	ksft_finished();
}
