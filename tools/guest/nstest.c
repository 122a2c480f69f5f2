// SPDX-License-Identifier: GPL-2.0-only
/*
 * nstest: small actions that the shell cannot do, for the guest tests.
 *
 *   nstest threads N
 *	Run N threads in all (the main one included), then wait for a
 *	signal. Prints "ready" once all threads run.
 *   nstest netns-cookie
 *	Print the cookie of the current network namespace (SO_NETNS_COOKIE).
 *   nstest mntns-id FILE
 *	Print NS_GET_MNTNS_ID of a mount namespace file (/proc/PID/ns/mnt).
 *   nstest mq NAME
 *	Create the POSIX message queue NAME ("/q") in the current ipc
 *	namespace, and leave it there.
 *   nstest open-tree DIR CMD...
 *	Clone the mount tree at DIR into an anonymous mount namespace
 *	(open_tree(OPEN_TREE_CLONE)) and run CMD while holding it.
 *   nstest watch SECONDS DIR...
 *	Watch DIRs with inotify for SECONDS and print one line an event:
 *	"TIME WHAT DIR NAME", WHAT one of CREATE, DELETE, DELETE_SELF,
 *	IGNORED or OVERFLOW, NAME "-" where the event has none, TIME in
 *	seconds since the epoch as bash's $EPOCHREALTIME shows it. Prints
 *	"ready" first, once the watches are in place.
 *   nstest mounts N DIR
 *	Mount namespacefs N times on DIR, one mount on top of the other;
 *	print "ready" and wait for a signal. Needs CAP_SYS_ADMIN over the
 *	current user and pid namespaces.
 *   nstest churn N
 *	Make N uts namespaces one after the other, each in place of the one
 *	before (unshare(CLONE_NEWUTS)), and print the inode number of each.
 *   nstest switch-while-read SECONDS FILE
 *	For SECONDS, two children make uts, cgroup and time namespaces one
 *	after the other (each unshare() frees the ones before, at once)
 *	while this process reads FILE (a members file) again and again.
 *	Prints "READS reads, SWITCHES switches"; the kernel's checkers tell
 *	whether a read touched a freed namespace.
 *   nstest hold TYPE N
 *	Make N namespaces of TYPE (uts, ipc, net, mnt, cgroup, time, user,
 *	pid) and hold each by an open nsfs file, with no process in it; print
 *	"ready" and wait for a signal. For measuring memory per namespace.
 *   nstest setown
 *	Drop the last reference to a pid namespace with interrupts disabled:
 *	a child in a new pid namespace makes itself the owner (F_SETOWN) of
 *	a pipe and exits; the parent then sets another owner, and the kernel
 *	puts the child's struct pid under the file's IRQ-safe owner lock.
 *	Needs CAP_SYS_ADMIN. Prints "done".
 *   nstest socket-in NSFILE
 *	Make a UDP socket in the network namespace NSFILE opens, go back to
 *	our own, print "ready" and wait for a signal: a socket that keeps a
 *	network namespace alive from outside it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mqueue.h>
#include <stdint.h>
#include <poll.h>
#include <sys/inotify.h>
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../include/nstypes.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif
#ifndef NS_GET_MNTNS_ID
#define NS_GET_MNTNS_ID _IOR(0xb7, 0x5, uint64_t)
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif

static int netns_cookie(void)
{
	socklen_t len = sizeof(uint64_t);
	uint64_t cookie;
	int fd;

	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len)) {
		perror("nstest: SO_NETNS_COOKIE");
		return 1;
	}
	printf("%llu\n", (unsigned long long)cookie);
	return 0;
}

static int mntns_id(const char *path)
{
	uint64_t id;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, NS_GET_MNTNS_ID, &id)) {
		perror("nstest: NS_GET_MNTNS_ID");
		return 1;
	}
	printf("%llu\n", (unsigned long long)id);
	return 0;
}

static int make_mq(const char *name)
{
	mqd_t q = mq_open(name, O_CREAT | O_RDWR, 0600, NULL);

	if (q == (mqd_t)-1) {
		perror("nstest: mq_open");
		return 1;
	}
	mq_close(q);
	return 0;
}

static int open_tree_run(char **argv)
{
	/* Not close-on-exec: CMD holds the anonymous namespace. */
	if (syscall(SYS_open_tree, AT_FDCWD, argv[0], OPEN_TREE_CLONE) < 0) {
		perror("nstest: open_tree");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror("nstest: exec");
	return 1;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void print_realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	printf("%lld.%06ld", (long long)ts.tv_sec, ts.tv_nsec / 1000);
}

static int watch(int seconds, int ndirs, char **dirs)
{
	char buf[64 * 1024] __attribute__((aligned(8)));
	long long deadline = now_ns() + seconds * 1000000000LL;
	struct pollfd pfd;
	int fd, i;

	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0) {
		perror("nstest: inotify_init1");
		return 1;
	}
	for (i = 0; i < ndirs; i++) {
		/* The watch descriptors are 1, 2, ... in the order of dirs. */
		if (inotify_add_watch(fd, dirs[i], IN_CREATE | IN_DELETE |
				      IN_DELETE_SELF) != i + 1) {
			perror("nstest: inotify_add_watch");
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (now_ns() < deadline) {
		ssize_t len, off;

		if (poll(&pfd, 1, (deadline - now_ns()) / 1000000 + 1) <= 0)
			continue;
		len = read(fd, buf, sizeof(buf));
		for (off = 0; len > 0 && off < len;) {
			struct inotify_event *ev = (void *)(buf + off);
			const char *what = ev->mask & IN_Q_OVERFLOW ? "OVERFLOW" :
					   ev->mask & IN_IGNORED ? "IGNORED" :
					   ev->mask & IN_DELETE_SELF ? "DELETE_SELF" :
					   ev->mask & IN_CREATE ? "CREATE" :
					   ev->mask & IN_DELETE ? "DELETE" : "OTHER";
			const char *dir = ev->wd > 0 && ev->wd <= ndirs ?
					  dirs[ev->wd - 1] : "-";

			print_realtime();
			printf(" %s %s %s\n", what, dir,
			       ev->len ? ev->name : "-");
			off += sizeof(*ev) + ev->len;
		}
		fflush(stdout);
	}
	return 0;
}

static int mounts(int n, const char *dir)
{
	int i;

	for (i = 0; i < n; i++) {
		if (mount("namespacefs", dir, "namespacefs", MS_RDONLY, NULL)) {
			fprintf(stderr, "nstest: mount %d of %d: %s\n", i + 1, n,
				strerror(errno));
			return 1;
		}
	}
	return ready_then_hold();
}

static int churn(int n)
{
	struct stat st;
	int i;

	for (i = 0; i < n; i++) {
		if (unshare(CLONE_NEWUTS) || stat("/proc/self/ns/uts", &st)) {
			fprintf(stderr, "nstest: churn %d of %d: %s\n", i + 1, n,
				strerror(errno));
			return 1;
		}
		printf("%lu\n", (unsigned long)st.st_ino);
	}
	return fflush(stdout) ? 1 : 0;
}

static int switch_while_read(int seconds, const char *file)
{
	static char buf[1 << 16];
	long long until = now_ns() + seconds * 1000000000LL;
	long reads = 0, switches = 0;
	int p[2], i, fd;
	pid_t kids[2];

	if (pipe(p))
		return 1;
	for (i = 0; i < 2; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			return 1;
		if (kids[i] == 0) {
			long n = 0;

			close(p[0]);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			do {
				if (unshare(CLONE_NEWUTS | CLONE_NEWCGROUP | CLONE_NEWTIME))
					_exit(1);
				n++;
			} while (now_ns() < until);
			_exit(write(p[1], &n, sizeof(n)) == sizeof(n) ? 0 : 1);
		}
	}
	close(p[1]);
	do {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror(file);
			return 1;
		}
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
		reads++;
	} while (now_ns() < until);
	for (i = 0; i < 2; i++) {
		long n;
		int status;

		if (read(p[0], &n, sizeof(n)) == sizeof(n))
			switches += n;
		if (waitpid(kids[i], &status, 0) != kids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "nstest: switch-while-read: a child failed to unshare\n");
			return 1;
		}
	}
	printf("%ld reads, %ld switches\n", reads, switches);
	return 0;
}

static const struct ns_type hold_types[] = { NS_TYPE_ROWS };

/* A child makes the namespace; the parent opens it through /proc. */
static int hold_one(int flag, const char *file)
{
	int ready[2], done[2], status, fd = -1;
	char path[64], c = 0;
	pid_t child;

	if (pipe(ready) || pipe(done))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		c = unshare(flag) ? 1 : 0;
		if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	if (read(ready[0], &c, 1) == 1 && c == 0) {
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", child, file);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (write(done[1], &c, 1) != 1)
		fd = -1;
	waitpid(child, &status, 0);
	close(ready[0]);
	close(ready[1]);
	close(done[0]);
	close(done[1]);
	return fd;
}

static int hold(const char *type, int n)
{
	struct rlimit rl = { .rlim_cur = n + 64, .rlim_max = n + 64 };
	size_t t, ntypes = sizeof(hold_types) / sizeof(hold_types[0]);
	int i;

	for (t = 0; t < ntypes; t++)
		if (!strcmp(type, hold_types[t].name))
			break;
	if (t == ntypes) {
		fprintf(stderr, "nstest: hold: unknown type %s\n", type);
		return 2;
	}
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("nstest: setrlimit");
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (hold_one(hold_types[t].flag, hold_types[t].file) < 0) {
			fprintf(stderr, "nstest: hold: namespace %d: %s\n", i,
				strerror(errno));
			return 1;
		}
	}
	return ready_then_hold();
}

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static int threads(int n)
{
	pthread_t t;
	int i;

	for (i = 1; i < n; i++) {
		if (pthread_create(&t, NULL, idle, NULL)) {
			perror("nstest: pthread_create");
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	idle(NULL);
	return 0;
}

/* Run @fn(@fd) in a child process; whether it exited with status 0. */
static int in_child(int (*fn)(int), int fd)
{
	int status;
	pid_t child;

	child = fork();
	if (child < 0) {
		perror("nstest: fork");
		return 0;
	}
	if (child == 0)
		_exit(fn(fd));
	return waitpid(child, &status, 0) == child && WIFEXITED(status) &&
	       !WEXITSTATUS(status);
}

/* As the init of the current pid namespace, become the owner of @fd. */
static int own_fd(int fd)
{
	return fcntl(fd, F_SETOWN, getpid()) ? 1 : 0;
}

/* In a new pid namespace, make its init the owner of @fd, then exit. */
static int setown_child(int fd)
{
	if (unshare(CLONE_NEWPID)) {
		perror("nstest: unshare");
		return 1;
	}
	/* Exiting drops pid_for_children: the pipe's owner keeps the rest. */
	return in_child(own_fd, fd) ? 0 : 1;
}

static int setown(void)
{
	int pipefd[2];

	if (pipe(pipefd)) {
		perror("nstest: pipe");
		return 1;
	}
	if (!in_child(setown_child, pipefd[0])) {
		fprintf(stderr, "nstest: the child failed\n");
		return 1;
	}
	/*
	 * The pipe's owner holds the last reference to the pid of the
	 * namespace's init, and so to the namespace: replacing the owner
	 * puts it under the IRQ-safe f_owner lock.
	 */
	if (fcntl(pipefd[0], F_SETOWN, getpid())) {
		perror("nstest: F_SETOWN");
		return 1;
	}
	printf("done\n");
	return 0;
}

/*
 * socket-in NSFILE: make a socket in the network namespace that NSFILE
 * opens, come back to our own, say "ready" and wait to be killed: a
 * process outside a network namespace that keeps it alive by a socket.
 */
static int socket_in(const char *nsfile)
{
	int ours = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	int theirs = open(nsfile, O_RDONLY | O_CLOEXEC);
	int sock;

	if (ours < 0 || theirs < 0) {
		perror("nstest: open");
		return 1;
	}
	if (setns(theirs, CLONE_NEWNET)) {
		perror("nstest: setns");
		return 1;
	}
	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || setns(ours, CLONE_NEWNET)) {
		perror("nstest: socket");
		return 1;
	}
	close(theirs);
	close(ours);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "threads"))
		return threads(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "setown"))
		return setown();
	if (argc == 2 && !strcmp(argv[1], "netns-cookie"))
		return netns_cookie();
	if (argc == 3 && !strcmp(argv[1], "mntns-id"))
		return mntns_id(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "mq"))
		return make_mq(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "hold"))
		return hold(argv[2], atoi(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "watch"))
		return watch(atoi(argv[2]), argc - 3, argv + 3);
	if (argc == 4 && !strcmp(argv[1], "mounts"))
		return mounts(atoi(argv[2]), argv[3]);
	if (argc == 3 && !strcmp(argv[1], "churn"))
		return churn(atoi(argv[2]));
	if (argc >= 4 && !strcmp(argv[1], "open-tree"))
		return open_tree_run(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "switch-while-read"))
		return switch_while_read(atoi(argv[2]), argv[3]);
	if (argc == 3 && !strcmp(argv[1], "socket-in"))
		return socket_in(argv[2]);
	fputs("usage: nstest threads N | setown | netns-cookie | mntns-id FILE"
	      " | mq NAME | open-tree DIR CMD... | watch SECONDS DIR..."
	      " | mounts N DIR | churn N | switch-while-read SECONDS FILE"
	      " | socket-in NSFILE\n",
	      stderr);
	return 2;
}
