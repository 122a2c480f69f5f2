// SPDX-License-Identifier: GPL-2.0-only
/*
 * nstest: small actions that the shell cannot do, for the guest tests.
 *
 *   nstest threads N
 *	Run N threads in all (the main one included), then wait for a
 *	signal. Prints "ready" once all threads run.
 *   nstest setown
 *	Drop the last reference to a pid namespace with interrupts disabled:
 *	a child in a new pid namespace makes itself the owner (F_SETOWN) of
 *	a pipe and exits; the parent then sets another owner, and the kernel
 *	puts the child's struct pid under the file's IRQ-safe owner lock.
 *	Needs CAP_SYS_ADMIN. Prints "done".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
	fputs("usage: nstest threads N | nstest setown\n", stderr);
	return 2;
}
