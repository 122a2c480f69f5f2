/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The eight namespace types for the tools that make namespaces: the name
 * namespacefs and lsns use, the clone flag, and the file of /proc/PID/ns/
 * that shows a namespace the process made with unshare(flag) (for pid
 * and time, the one its children get); and how they tell a test that the
 * namespaces it asked for are there.
 */
#ifndef NSTYPES_H
#define NSTYPES_H

#include <sched.h>
#include <stdio.h>
#include <unistd.h>

struct ns_type {
	const char *name;
	int flag;
	const char *file;
	int nested;	/* pid and user namespaces nest by parent */
};

/*
 * The initializers of a struct ns_type array, one a type, in the order of
 * namespacefs's root directory and of its members file's columns.
 */
#define NS_TYPE_ROWS							\
	{ "cgroup", CLONE_NEWCGROUP, "cgroup", 0 },			\
	{ "ipc", CLONE_NEWIPC, "ipc", 0 },				\
	{ "mnt", CLONE_NEWNS, "mnt", 0 },				\
	{ "net", CLONE_NEWNET, "net", 0 },				\
	{ "pid", CLONE_NEWPID, "pid_for_children", 1 },			\
	{ "time", CLONE_NEWTIME, "time_for_children", 0 },		\
	{ "user", CLONE_NEWUSER, "user", 1 },				\
	{ "uts", CLONE_NEWUTS, "uts", 0 }

/*
 * Say "ready" on standard output, for the test that waits for the
 * namespaces to be made, and hold them until a signal ends the program.
 */
static inline int ready_then_hold(void)
{
	printf("ready\n");
	fflush(stdout);
	pause();
	return 0;
}

#endif
