// SPDX-License-Identifier: GPL-2.0-only
/* Capture a program's output for kselftests (see run.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int run_capture(char *const argv[], char *out, size_t size, int timeout_s)
{
	long long deadline = now_ms() + timeout_s * 1000LL;
	size_t len = 0;
	int fds[2], status;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		setpgid(0, 0);
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		long long left = deadline - now_ms();
		char discard[4096];
		ssize_t n;

		if (left <= 0) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			close(fds[0]);
			if (size)
				out[len] = '\0';
			return -ETIMEDOUT;
		}
		if (poll(&pfd, 1, left > 1000 ? 1000 : (int)left) <= 0)
			continue;
		if (len + 1 < size)
			n = read(fds[0], out + len, size - 1 - len);
		else
			n = read(fds[0], discard, sizeof(discard));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len + 1 < size)
			len += n;
	}
	close(fds[0]);
	if (size)
		out[len] = '\0';
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return status;
}
