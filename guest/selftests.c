// SPDX-License-Identifier: GPL-2.0-only
/* kselftest runner for the guest init (see selftests.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "console.h"
#include "kmsg_relay.h"
#include "selftests.h"

#define MAX_TESTS 256
#define KSFT_SKIP 4

static char *tests[MAX_TESTS];
static int ntests;

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int name_matches(const char *name, const char *filter)
{
	char buf[512], *tok, *save;

	if (!filter || !*filter)
		return 1;
	snprintf(buf, sizeof(buf), "%s", filter);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (strstr(name, tok))
			return 1;
	return 0;
}

/* KEY=N from the kselftest "settings" file of dir, else @def. */
static int area_setting(const char *dir, const char *key, int def)
{
	char path[1024], line[128];
	size_t n = strlen(key);
	FILE *f;
	int v = def;

	snprintf(path, sizeof(path), "%s/settings", dir);
	f = fopen(path, "r");
	if (!f)
		return def;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == '=' && atoi(line + n + 1) > 0)
			v = atoi(line + n + 1);
	fclose(f);
	return v;
}

static void scan_area(const char *area, const char *filter)
{
	char dir[512], path[1024];
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", SELFTEST_DIR, area);
	/* on_request=1: long or disruptive tests run only when named */
	if ((!filter || !*filter) && area_setting(dir, "on_request", 0))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) && ntests < MAX_TESTS) {
		if (!ends_with(de->d_name, "_test") || !name_matches(de->d_name, filter))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode) || !(st.st_mode & 0111))
			continue;
		tests[ntests++] = strdup(path);
	}
	closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* timeout=N of the test's area, else @def. */
static int area_timeout(const char *test_path, int def)
{
	char dir[1024];

	snprintf(dir, sizeof(dir), "%s", test_path);
	*strrchr(dir, '/') = '\0';
	return area_setting(dir, "timeout", def);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Relay complete lines from @buf; keep a partial last line. */
static void relay_lines(char *buf, size_t *len, int flush)
{
	char *start = buf, *nl;

	while ((nl = memchr(start, '\n', buf + *len - start))) {
		*nl = '\0';
		con_line("out", "%s", start);
		start = nl + 1;
	}
	*len = buf + *len - start;
	memmove(buf, start, *len);
	if (*len && (flush || *len > 1024)) {
		buf[*len] = '\0';
		con_line("out", "%s", buf);
		*len = 0;
	}
}

static pid_t spawn(const char *path, int out_fd)
{
	static char *const envp[] = {
		"PATH=/usr/bin:/bin:/usr/sbin:/sbin", "HOME=/tmp", "TERM=dumb", NULL
	};
	char dir[1024], *slash;
	pid_t pid = fork();

	if (pid)
		return pid;
	setsid();
	dup2(out_fd, STDOUT_FILENO);
	dup2(out_fd, STDERR_FILENO);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (chdir(dir))
		_exit(127);
	execle(path, path, (char *)NULL, envp);
	fprintf(stderr, "exec %s: %s\n", path, strerror(errno));
	_exit(127);
}

/* Runs one test; returns 1 if it failed (not pass, not skip). */
static int run_one(const char *path, int timeout)
{
	const char *name = strrchr(path, '/') + 1;
	char buf[4096];
	size_t len = 0;
	int pipefd[2], status = 0, exited = 0, timed_out = 0;
	double start = now(), deadline = start + timeout;
	pid_t pid;

	marker("test begin %s path=%s timeout=%d", name, path, timeout);
	if (pipe2(pipefd, O_CLOEXEC)) {
		marker("test end %s error=%s", name, strerror(errno));
		return 1;
	}
	pid = spawn(path, pipefd[1]);
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		marker("test end %s error=%s", name, strerror(errno));
		return 1;
	}
	for (;;) {
		struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
		int r;

		if (now() > deadline) {
			timed_out = 1;
			break;
		}
		r = poll(&pfd, 1, 200);
		if (r > 0) {
			ssize_t n = read(pipefd[0], buf + len, sizeof(buf) - 1 - len);

			if (n <= 0) {
				if (n < 0 && errno == EINTR)
					continue;
				break; /* EOF: every writer is gone */
			}
			len += n;
			relay_lines(buf, &len, 0);
			continue;
		}
		if (!exited && waitpid(pid, &status, WNOHANG) == pid)
			exited = 1;
		if (exited && r == 0)
			break; /* exited, and no more output pending */
	}
	relay_lines(buf, &len, 1);
	/* Kill whatever is left of the test's session (a hung test or a
	 * background child still holding the pipe).
	 */
	kill(-pid, SIGKILL);
	if (!exited)
		waitpid(pid, &status, 0);
	close(pipefd[0]);
	kmsg_relay_sync();
	if (timed_out) {
		marker("test end %s timeout=%d seconds=%.1f", name, timeout, now() - start);
		return 1;
	}
	if (WIFSIGNALED(status)) {
		marker("test end %s signal=%d seconds=%.1f", name, WTERMSIG(status),
		       now() - start);
		return 1;
	}
	marker("test end %s exit=%d seconds=%.1f", name, WEXITSTATUS(status),
	       now() - start);
	return WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != KSFT_SKIP;
}

int run_selftests(const char *filter, int default_timeout)
{
	struct dirent *de;
	int failures = 0;
	DIR *d = opendir(SELFTEST_DIR);

	if (d) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.')
				scan_area(de->d_name, filter);
		closedir(d);
	}
	qsort(tests, ntests, sizeof(*tests), cmp_str);
	marker("selftests begin count=%d", ntests);
	for (int i = 0; i < ntests; i++)
		failures += run_one(tests[i], area_timeout(tests[i], default_timeout));
	marker("selftests end failures=%d", failures);
	return failures;
}
