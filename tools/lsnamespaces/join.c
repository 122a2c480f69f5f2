// SPDX-License-Identifier: GPL-2.0-only
/*
 * A child that joins a namespace to see what only a member sees (a host
 * name, IPC objects, devices, clock offsets). It is isolated from what the
 * namespace's users control: /proc is reached through a descriptor opened
 * here before the child joins (never through the joined namespace's
 * mounts, which are never joined), it gets a deadline, and it is killed
 * past it.
 */
#include "lsnamespaces.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int proc_dirfd(void)
{
	static int fd = -1;

	if (fd < 0) {
		fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			err(EXIT_FAILURE, "/proc");
	}
	return fd;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

bool join_run(int nsfd, int type, uint64_t inum, join_fn fn, void *arg,
	      char *out, size_t size)
{
	long long deadline = now_ms() + JOIN_TIMEOUT_MS;
	int procfd = proc_dirfd(), res[2];
	size_t len = 0;
	bool ok = false, late = false;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(res, O_CLOEXEC) < 0)
		return false;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(res[0]);
		close(res[1]);
		return false;
	}
	if (pid == 0) {
		char *buf = xzalloc(size + 1);

		close(res[0]);
		/* Dies with its parent, whatever the namespace holds. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (nsfd >= 0 && setns(nsfd, nstypes[type].flag) < 0)
			_exit(1);
		buf[0] = '+';
		fn(procfd, arg, buf + 1, size - 1);
		(void)!write(res[1], buf, strlen(buf));
		_exit(0);
	}
	close(res[1]);
	for (;;) {
		struct pollfd pfd = { .fd = res[0], .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0) {
			late = true;
			break;
		}
		n = poll(&pfd, 1, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			late = n == 0;
			break;
		}
		n = read(res[0], out + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == size - 1)
			break;
	}
	close(res[0]);
	if (late) {
		kill(pid, SIGKILL);
		warnx("%s namespace %llu: no answer within %d ms from the process that joined it; its detail is left out",
		      nstypes[type].name, (unsigned long long)inum,
		      JOIN_TIMEOUT_MS);
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	out[len] = '\0';
	ok = !late && len > 0 && out[0] == '+';
	memmove(out, out + (len > 0), len > 0 ? len : 1);
	if (!ok)
		out[0] = '\0';
	return ok;
}
