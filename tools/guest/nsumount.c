// SPDX-License-Identifier: GPL-2.0-only
/*
 * nsumount: what any user can do to namespacefs's deferred work. Each of
 * LOOPS processes makes a user, pid and mount namespace of its own (so
 * that an unprivileged user may mount) and, until SECONDS have passed,
 * over and over: mounts namespacefs on a directory of its own, watches
 * `uts/` and `user/` with inotify, starts a child that makes and drops uts
 * and user namespaces as fast as it can, and detaches the mount
 * (umount2(MNT_DETACH)) while the child still churns and the events are
 * on their way. Then it stops the child and closes the watch.
 *
 *   nsumount [-t SECONDS] [-l LOOPS] [-c CHURN]
 *
 * CHURN (default 64) is how many namespaces each child makes. Run it as
 * an unprivileged user: it needs only what a rootless container has. The
 * kernel's checkers, on the console, tell whether a work item touched a
 * super block that was going away; this program only reports
 *
 *   nsumount: N mounts, E events, S s
 *
 * and exits 0, or 1 when a system call that must work failed (with the
 * call and its error on standard error).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long deadline_ms;
static uint64_t *totals; /* mounts, events: shared by the loops */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void die(const char *what)
{
	fprintf(stderr, "nsumount: %s: %s\n", what, strerror(errno));
	_exit(1);
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die(path);
	close(fd);
}

/* Root of a new user namespace, mapped to the caller's ids. */
static void own_namespaces(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) < 0)
		die("unshare(user, mnt, pid)");
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", uid);
	write_file("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "0 %u 1", gid);
	write_file("/proc/self/gid_map", map);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die("making the mounts private");
}

/* Make and drop namespaces: each unshare() frees the one before it. */
static void churn(int n)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (int i = 0; i < n; i++) {
		if (unshare(CLONE_NEWUTS) < 0)
			die("unshare(uts)");
		/* A user namespace in a child, which drops it as it exits. */
		if (!(i % 8)) {
			pid_t pid = fork();

			if (pid == 0)
				_exit(unshare(CLONE_NEWUSER) < 0);
			if (pid > 0)
				waitpid(pid, NULL, 0);
		}
	}
	_exit(0);
}

/* Read what has come, without waiting. */
static uint64_t drain(int ifd)
{
	char buf[4096] __attribute__((aligned(8)));
	uint64_t events = 0;
	ssize_t n;

	while ((n = read(ifd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *e = (const void *)(buf + off);

			events++;
			off += sizeof(*e) + e->len;
		}
	}
	return events;
}

static void loop(const char *dir, int nchurn)
{
	char path[4200];
	uint64_t mounts = 0, events = 0;
	unsigned int round = 0;

	while (now_ms() < deadline_ms) {
		struct pollfd pfd;
		pid_t child;
		int ifd;

		if (mount("namespacefs", dir, "namespacefs", 0, NULL) < 0)
			die("mount namespacefs");
		mounts++;
		ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (ifd < 0)
			die("inotify_init1");
		snprintf(path, sizeof(path), "%s/uts", dir);
		if (inotify_add_watch(ifd, path, IN_CREATE | IN_DELETE) < 0)
			die("inotify_add_watch uts");
		snprintf(path, sizeof(path), "%s/user", dir);
		if (inotify_add_watch(ifd, path, IN_CREATE | IN_DELETE) < 0)
			die("inotify_add_watch user");
		child = fork();
		if (child < 0)
			die("fork");
		if (child == 0)
			churn(nchurn);
		/*
		 * Detach while events are queued: at once, after the first
		 * event, or after a few, by turns.
		 */
		pfd = (struct pollfd){ .fd = ifd, .events = POLLIN };
		if (round % 3 && poll(&pfd, 1, 1000) > 0)
			events += drain(ifd);
		if (round % 3 == 2 && poll(&pfd, 1, 5) > 0)
			events += drain(ifd);
		if (umount2(dir, MNT_DETACH) < 0)
			die("umount2(MNT_DETACH)");
		round++;
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		events += drain(ifd);
		close(ifd);
	}
	__atomic_add_fetch(&totals[0], mounts, __ATOMIC_RELAXED);
	__atomic_add_fetch(&totals[1], events, __ATOMIC_RELAXED);
}

/* One loop: its own namespaces, and an init in the new pid namespace. */
static void one(const char *dir, int nchurn)
{
	int status;
	pid_t init;

	own_namespaces();
	init = fork();
	if (init < 0)
		die("fork");
	if (init == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		loop(dir, nchurn);
		_exit(0);
	}
	if (waitpid(init, &status, 0) < 0)
		die("waitpid");
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

int main(int argc, char **argv)
{
	int seconds = 60, nloops = 4, nchurn = 64, opt, failed = 0;
	char dir[] = "/tmp/nsumount.XXXXXX";
	long long start;
	pid_t *pids;

	while ((opt = getopt(argc, argv, "t:l:c:")) != -1) {
		switch (opt) {
		case 't':
			seconds = atoi(optarg);
			break;
		case 'l':
			nloops = atoi(optarg);
			break;
		case 'c':
			nchurn = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc || seconds <= 0 || nloops <= 0 || nchurn <= 0)
		goto usage;
	totals = mmap(NULL, 2 * sizeof(*totals), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(nloops, sizeof(*pids));
	if (totals == MAP_FAILED || !pids)
		die("memory");
	if (!mkdtemp(dir))
		die("mkdtemp");
	start = now_ms();
	deadline_ms = start + seconds * 1000LL;
	for (int i = 0; i < nloops; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (pids[i] == 0)
			one(dir, nchurn);
	}
	for (int i = 0; i < nloops; i++) {
		int status;

		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed = 1;
	}
	rmdir(dir);
	printf("nsumount: %llu mounts, %llu events, %.1f s\n",
	       (unsigned long long)totals[0], (unsigned long long)totals[1],
	       (now_ms() - start) / 1000.0);
	return failed;
usage:
	fputs("usage: nsumount [-t SECONDS] [-l LOOPS] [-c CHURN]\n", stderr);
	return 2;
}
