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
 *   nstest setown
 *	Drop the last reference to a pid namespace with interrupts disabled:
 *	a child in a new pid namespace makes itself the owner (F_SETOWN) of
 *	a pipe and exits; the parent then sets another owner, and the kernel
 *	puts the child's struct pid under the file's IRQ-safe owner lock.
 *	Needs CAP_SYS_ADMIN. Prints "done".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mqueue.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* In a new pid namespace, make its init the owner of @fd, then exit. */
static int setown_child(int fd)
{
	int status;
	pid_t init;

	if (unshare(CLONE_NEWPID)) {
		perror("nstest: unshare");
		return 1;
	}
	init = fork();
	if (init < 0) {
		perror("nstest: fork");
		return 1;
	}
	if (init == 0)
		_exit(fcntl(fd, F_SETOWN, getpid()) ? 1 : 0);
	if (waitpid(init, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 1;
	/* Exiting drops pid_for_children: the pipe's owner keeps the rest. */
	return 0;
}

static int setown(void)
{
	int pipefd[2], status;
	pid_t child;

	if (pipe(pipefd)) {
		perror("nstest: pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("nstest: fork");
		return 1;
	}
	if (child == 0)
		_exit(setown_child(pipefd[0]));
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
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
	if (argc >= 4 && !strcmp(argv[1], "open-tree"))
		return open_tree_run(argv + 2);
	fputs("usage: nstest threads N | setown | netns-cookie | mntns-id FILE"
	      " | mq NAME | open-tree DIR CMD...\n", stderr);
	return 2;
}
