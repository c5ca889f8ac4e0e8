// SPDX-License-Identifier: GPL-2.0-only
/* Run mode: the commands of a run list, one after the other (runlist.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "console.h"
#include "kmsg_relay.h"
#include "runlist.h"

#define MAX_ARGS 64
#define LOG_PATH "/tmp/.runlist.log"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void relay_log(void)
{
	char line[2000];	/* console lines hold up to 2048 bytes */
	FILE *f = fopen(LOG_PATH, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		con_line("out", "%s", line);
	}
	fclose(f);
}

static pid_t spawn(char **argv, const char *out_path)
{
	static char *const envp[] = {
		"PATH=/usr/bin:/bin:/usr/sbin:/sbin", "HOME=/tmp", "TERM=dumb", NULL
	};
	int log_fd, out_fd;
	pid_t pid = fork();

	if (pid)
		return pid;
	setsid();
	log_fd = open(LOG_PATH, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	out_fd = out_path ? open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : log_fd;
	if (log_fd < 0 || out_fd < 0)
		_exit(126);
	dup2(out_fd, STDOUT_FILENO);
	dup2(log_fd, STDERR_FILENO);
	if (chdir("/tmp"))
		_exit(126);
	execve(argv[0], argv, envp);
	fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Built-in "write PATH VALUE" (sysctls and sysfs knobs; no shell to echo). */
static int write_value(int n, int argc, char **argv)
{
	int fd, ok;

	if (argc != 3) {
		marker("run end %d error=write wants PATH VALUE", n);
		return 1;
	}
	marker("run begin %d: write %s %s", n, argv[1], argv[2]);
	fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	ok = fd >= 0 && write(fd, argv[2], strlen(argv[2])) == (ssize_t)strlen(argv[2]);
	if (!ok)
		marker("run end %d error=%s", n, strerror(errno));
	else
		marker("run end %d exit=0 seconds=0", n);
	if (fd >= 0)
		close(fd);
	return !ok;
}

/* Runs one command line; returns 1 if it failed. */
static int run_line(int n, char *line, int timeout)
{
	char *argv[MAX_ARGS + 1], *out_path = NULL, *tok, *save, desc[1024] = "";
	int argc = 0, status = 0, exited = 0;
	double start = now();
	pid_t pid;

	for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		if (tok[0] == '>') {
			out_path = tok + 1;
			continue;
		}
		if (argc == MAX_ARGS) {
			marker("run end %d error=more than %d arguments", n, MAX_ARGS);
			return 1;
		}
		argv[argc++] = tok;
		strncat(desc, " ", sizeof(desc) - strlen(desc) - 1);
		strncat(desc, tok, sizeof(desc) - strlen(desc) - 1);
	}
	argv[argc] = NULL;
	if (!argc)
		return 0;
	if (!strcmp(argv[0], "write"))
		return write_value(n, argc, argv);
	marker("run begin %d:%s%s%s", n, desc, out_path ? " >" : "", out_path ? out_path : "");
	pid = spawn(argv, out_path);
	if (pid < 0) {
		marker("run end %d error=%s", n, strerror(errno));
		return 1;
	}
	while (now() < start + timeout) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			exited = 1;
			break;
		}
		usleep(20000);
	}
	kill(-pid, SIGKILL);
	if (!exited)
		waitpid(pid, &status, 0);
	relay_log();
	kmsg_relay_sync();
	if (!exited) {
		marker("run end %d timeout=%d seconds=%.3f", n, timeout, now() - start);
		return 1;
	}
	if (WIFSIGNALED(status)) {
		marker("run end %d signal=%d seconds=%.3f", n, WTERMSIG(status), now() - start);
		return 1;
	}
	marker("run end %d exit=%d seconds=%.3f", n, WEXITSTATUS(status), now() - start);
	return WEXITSTATUS(status) != 0;
}

int run_list(const char *path, int timeout)
{
	char line[4096];
	int n = 0, failures = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		marker("error run list %s: %s", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		failures += run_line(++n, line, timeout);
	}
	fclose(f);
	return failures;
}
