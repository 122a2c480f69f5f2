// SPDX-License-Identifier: GPL-2.0-only
/*
 * nsfault: make the 1st, the 2nd, ... allocation of an operation fail
 * (/proc/thread-self/fail-nth, CONFIG_FAULT_INJECTION with FAILSLAB and
 * FAIL_PAGE_ALLOC) until the operation needs no more, and check after each
 * step that a failure left nothing behind.
 *
 *   nsfault [-r ROOT] [-m MAX] create TYPE   unshare(2) a namespace of TYPE
 *   nsfault [-r ROOT] [-m MAX] mount DIR     mount namespacefs on DIR, in a
 *                                            mount namespace of its own
 *   nsfault [-r ROOT] [-m MAX] read PATH...  open and read each file, list
 *                                            each directory, readlink each
 *                                            symbolic link
 *
 * ROOT is a namespacefs mount of the initial namespaces (default
 * /sys/fs/namespaces): its `namespaces` file is the registry as the tests
 * see it. MAX bounds the steps of one operation (default 10000).
 *
 * After each step:
 *   create: a failed unshare() left the registry exactly as it was, and an
 *           unshare() that succeeded shows its namespace in ROOT; either
 *           way, once the process that made it is gone, the registry is
 *           back to what it was;
 *   mount:  a failed mount() left DIR unmounted; one that succeeded lists;
 *   read:   a failed call failed with ENOMEM; one that succeeded returned
 *           the content of a read without faults.
 *
 * The debugfs knobs are set by the caller (bats-tests/fault.bats): the
 * kernel ignores failures it may not inject (GFP_KERNEL allocations, by
 * default) and prints a stack trace for each one it does.
 *
 * Prints one line an operation, "OP ARG: N failures injected (ERRNO K,
 * ...), done at step N+1", and "FAIL: ..." for each check that failed.
 * Exits 0 when every check passed, 1 otherwise, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../include/nstypes.h"

static const struct ns_type types[] = { NS_TYPE_ROWS };

static const char *root = "/sys/fs/namespaces";
static unsigned long max_steps = 10000;
static int failures;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("FAIL: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
	failures++;
}

static void die(const char *what)
{
	fprintf(stderr, "nsfault: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* A growing buffer. */
struct buf {
	char *p;
	size_t len, cap;
};

static void buf_add(struct buf *b, const void *data, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("realloc");
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static bool buf_eq(const struct buf *a, const struct buf *b)
{
	return a->len == b->len && !memcmp(a->p, b->p, a->len);
}

/*
 * read_all: the content of PATH into B (emptied first): a file read whole,
 * a directory as its entries' names a line each in getdents64's order, a
 * symbolic link as its target. Returns 0 or an errno.
 */
static int read_all(const char *path, struct buf *b)
{
	char chunk[4096];
	struct stat st;
	ssize_t n;
	int fd, err = 0;

	b->len = 0;
	buf_add(b, "", 0);
	if (lstat(path, &st) < 0)
		return errno;
	if (S_ISLNK(st.st_mode)) {
		n = readlink(path, chunk, sizeof(chunk));
		if (n < 0)
			return errno;
		buf_add(b, chunk, n);
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
	if (fd < 0)
		return errno;
	for (;;) {
		if (S_ISDIR(st.st_mode))
			n = syscall(SYS_getdents64, fd, chunk, sizeof(chunk));
		else
			n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			err = errno;
			break;
		}
		if (n == 0)
			break;
		if (!S_ISDIR(st.st_mode)) {
			buf_add(b, chunk, n);
			continue;
		}
		for (ssize_t off = 0; off < n;) {
			/* struct linux_dirent64: ino, off, reclen, type, name */
			unsigned short reclen;
			const char *name = chunk + off + 19;

			memcpy(&reclen, chunk + off + 16, sizeof(reclen));
			buf_add(b, name, strlen(name));
			buf_add(b, "\n", 1);
			off += reclen;
		}
	}
	close(fd);
	return err;
}

/*
 * The registry as ROOT shows it: its namespaces file without the UID
 * column, which depends on the reader's user namespace (a step that made
 * a user namespace reads from inside it).
 */
static void registry(struct buf *b)
{
	char path[PATH_MAX];
	size_t out = 0;
	int err;

	snprintf(path, sizeof(path), "%s/namespaces", root);
	err = read_all(path, b);
	if (err) {
		errno = err;
		die(path);
	}
	for (char *line = b->p; *line;) {
		char *nl = strchr(line, '\n'), *end;

		if (!nl)
			break;
		end = memrchr(line, ' ', nl - line);
		if (!end)
			end = nl;
		memmove(b->p + out, line, end - line);
		out += end - line;
		b->p[out++] = '\n';
		line = nl + 1;
	}
	b->len = out;
	b->p[out] = '\0';
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * The registry equals WANT within SECONDS (polled every 10 ms): network
 * namespaces are torn down by a work item, others after a grace period.
 */
static bool registry_back(const struct buf *want, int seconds)
{
	struct buf now = { 0 };
	long long deadline = now_ms() + seconds * 1000LL;
	bool same;

	for (;;) {
		registry(&now);
		same = buf_eq(&now, want);
		if (same || now_ms() > deadline)
			break;
		usleep(10000);
	}
	free(now.p);
	return same;
}

/* A settled registry: the same in two reads 200 ms apart, within 60 s. */
static void settled_registry(struct buf *b)
{
	struct buf again = { 0 };
	long long deadline = now_ms() + 60000;

	registry(b);
	for (;;) {
		usleep(200000);
		registry(&again);
		if (buf_eq(b, &again))
			break;
		if (now_ms() > deadline) {
			fail("the registry does not settle: it changes without us");
			break;
		}
		registry(b);
	}
	free(again.p);
}

/*
 * fail-nth of the calling thread: arm(N) makes its Nth fault-injection
 * point fail; disarm() says whether that happened (the file reads 0) and
 * turns it off.
 */
static int nth_fd = -1;

static void arm(unsigned long n)
{
	char s[32];
	int len = snprintf(s, sizeof(s), "%lu", n);

	if (nth_fd < 0) {
		nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
		if (nth_fd < 0)
			die("/proc/thread-self/fail-nth (is the kernel built with CONFIG_FAULT_INJECTION?)");
	}
	if (pwrite(nth_fd, s, len, 0) != len)
		die("write /proc/thread-self/fail-nth");
}

static bool disarm(void)
{
	char s[32] = "";
	ssize_t n = pread(nth_fd, s, sizeof(s) - 1, 0);

	if (n <= 0)
		die("read /proc/thread-self/fail-nth");
	if (pwrite(nth_fd, "0", 1, 0) != 1)
		die("write /proc/thread-self/fail-nth");
	return strtoul(s, NULL, 10) == 0;
}

/* What the errors of one operation were. */
struct tally {
	unsigned long injected;
	int err[8];
	unsigned long count[8];
};

static void tally_err(struct tally *t, int err)
{
	int i;

	for (i = 0; i < 8 && t->count[i]; i++)
		if (t->err[i] == err)
			break;
	if (i == 8)
		return;
	t->err[i] = err;
	t->count[i]++;
}

static void tally_print(const char *op, const char *arg, const struct tally *t,
			unsigned long steps, bool done)
{
	printf("%s %s: %lu failures injected (", op, arg, t->injected);
	for (int i = 0; i < 8 && t->count[i]; i++)
		printf("%s%s %lu", i ? ", " : "",
		       t->err[i] ? strerrorname_np(t->err[i]) : "succeeded anyway",
		       t->count[i]);
	if (done)
		printf("), done at step %lu\n", steps);
	else
		printf("), not done after %lu steps\n", steps);
	fflush(stdout);
}

/* What a child that made a namespace tells its parent. */
struct report {
	int err;		/* unshare()'s errno, 0 if it succeeded */
	bool injected;		/* the armed failure happened */
	bool same;		/* after a failure: the registry is unchanged */
	bool listed;		/* after a success: the namespace is in ROOT */
};

static unsigned long long ns_inum(const struct ns_type *t)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", t->file);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = '\0';
	return strtoull(strchr(target, '[') ? strchr(target, '[') + 1 : target, NULL, 10);
}

/* Whether line LINE (LEN bytes, newline included) is one of B's. */
static bool has_line(const struct buf *b, const char *line, size_t len)
{
	for (const char *p = b->p; *p; p = strchr(p, '\n') + 1)
		if (!strncmp(p, line, len))
			return true;
	return false;
}

/* The registry B has a line for the namespace TYPE INUM. */
static bool listed(const struct buf *b, const char *type, unsigned long long inum)
{
	char line[64];
	size_t len = snprintf(line, sizeof(line), "%s %llu ", type, inum);

	return has_line(b, line, len);
}

/*
 * The registry AFTER holds the lines of BEFORE, and one more, of a
 * namespace of TYPE (the one the step made).
 */
static bool one_more(const struct buf *before, const struct buf *after, const char *type)
{
	size_t tlen = strlen(type);
	int new = 0, ours = 0, lines = 0, lines_before = 0;

	for (const char *p = before->p; *p; p = strchr(p, '\n') + 1)
		lines_before++;
	for (const char *p = after->p; *p; p = strchr(p, '\n') + 1) {
		size_t len = strchr(p, '\n') + 1 - p;

		lines++;
		if (has_line(before, p, len))
			continue;
		new++;
		ours += !strncmp(p, type, tlen) && p[tlen] == ' ';
	}
	/* Lines are unique: one new line and one more line, none gone. */
	return new == 1 && ours == 1 && lines == lines_before + 1;
}

/*
 * In a child: step N of creating a namespace of type T. A failed unshare
 * may have made the namespace and dropped it again on a later error: it
 * then leaves by the usual path (a work item for user and network
 * namespaces), so the registry is polled until it is back.
 */
static void create_step(const struct ns_type *t, unsigned long n,
			const struct buf *before, struct report *r)
{
	struct buf after = { 0 };

	arm(n);
	r->err = unshare(t->flag) ? errno : 0;
	r->injected = disarm();
	if (r->err) {
		r->same = registry_back(before, 30);
	} else {
		/* A pid namespace shows in /proc only with a process in it. */
		if (t->flag == CLONE_NEWPID) {
			pid_t pid = fork();

			if (pid == 0)
				_exit(0);
			waitpid(pid, NULL, 0);
		}
		registry(&after);
		r->listed = one_more(before, &after, t->name) &&
			    listed(&after, t->name, ns_inum(t));
	}
	free(after.p);
}

/* Memory a child writes its report to. */
static struct report *shared_report(void)
{
	static struct report *r;

	if (!r) {
		r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (r == MAP_FAILED)
			die("mmap");
	}
	memset(r, 0, sizeof(*r));
	return r;
}

static void do_create(const char *name)
{
	const struct ns_type *t = NULL;
	struct buf before = { 0 };
	struct tally tally = { 0 };
	unsigned long n;
	bool done = false;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(types[i].name, name))
			t = &types[i];
	if (!t) {
		fprintf(stderr, "nsfault: %s: not a namespace type\n", name);
		exit(2);
	}
	settled_registry(&before);

	for (n = 1; n <= max_steps && !done; n++) {
		struct report *r = shared_report();
		int status;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			create_step(t, n, &before, r);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			fail("create %s, step %lu: the child ended with status %#x", name, n, status);
		if (r->injected) {
			tally.injected++;
			tally_err(&tally, r->err);
		} else if (r->err) {
			fail("create %s, step %lu: unshare failed with %s, no failure injected",
			     name, n, strerrorname_np(r->err));
		} else {
			done = true;
		}
		if (r->err && !r->same)
			fail("create %s, step %lu: unshare failed with %s and the registry is not back to what it was within 30 s",
			     name, n, strerrorname_np(r->err));
		if (!r->err && !r->listed)
			fail("create %s, step %lu: unshare succeeded, and %s/namespaces does not show its namespace, alone, as new",
			     name, n, root);
		if (!registry_back(&before, 30))
			fail("create %s, step %lu: the registry is not back to what it was 30 s after the child exited",
			     name, n);
	}
	tally_print("create", name, &tally, n - 1, done);
	if (!done)
		fail("create %s: still injecting after %lu steps", name, max_steps);
	free(before.p);
}

/* DIR is a mount point: its device is not its parent's. */
static bool mounted(const char *dir)
{
	char parent[PATH_MAX];
	struct stat a, b;

	snprintf(parent, sizeof(parent), "%s/..", dir);
	return !stat(dir, &a) && !stat(parent, &b) && a.st_dev != b.st_dev;
}

static void do_mount(const char *dir)
{
	struct buf before = { 0 }, list = { 0 };
	struct tally tally = { 0 };
	char pid_dir[PATH_MAX];
	unsigned long n;
	bool done = false;
	int err;

	/* The mounts of the steps stay out of the caller's mount namespace. */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die("a mount namespace of our own");
	settled_registry(&before);
	if (mounted(dir)) {
		fprintf(stderr, "nsfault: %s is a mount point already\n", dir);
		exit(2);
	}
	snprintf(pid_dir, sizeof(pid_dir), "%s/pid", dir);
	for (n = 1; n <= max_steps && !done; n++) {
		bool injected;

		arm(n);
		err = mount("none", dir, "namespacefs", MS_RDONLY, NULL) ? errno : 0;
		injected = disarm();
		if (injected) {
			tally.injected++;
			tally_err(&tally, err);
		} else if (err) {
			fail("mount, step %lu: failed with %s, no failure injected", n, strerrorname_np(err));
		} else {
			done = true;
		}
		if (err && mounted(dir))
			fail("mount, step %lu: failed with %s, and %s is a mount point", n,
			     strerrorname_np(err), dir);
		if (!err) {
			int e = read_all(pid_dir, &list);

			if (e || !strstr(list.p, "procs\n"))
				fail("mount, step %lu: succeeded, and %s does not list (%s)", n,
				     pid_dir, e ? strerrorname_np(e) : "no procs");
			if (umount2(dir, 0) < 0)
				die("umount");
		}
		if (!registry_back(&before, 30))
			fail("mount, step %lu: the registry changed", n);
	}
	tally_print("mount", dir, &tally, n - 1, done);
	if (!done)
		fail("mount: still injecting after %lu steps", max_steps);
	free(before.p);
	free(list.p);
}

/*
 * The content of PATH without faults, settled: two reads in a row that
 * agree (files of one line a task change as tasks come and go).
 */
static int settled_read(const char *path, struct buf *b)
{
	struct buf again = { 0 };
	int err = 0;

	for (int i = 0; i < 100; i++) {
		err = read_all(path, b);
		if (!err)
			err = read_all(path, &again);
		if (err || buf_eq(b, &again))
			break;
	}
	free(again.p);
	return err;
}

static void do_read(const char *path)
{
	struct buf want = { 0 }, got = { 0 };
	struct tally tally = { 0 };
	unsigned long n;
	bool done = false;
	int err;

	err = settled_read(path, &want);
	if (err) {
		fail("read %s: %s without a fault", path, strerrorname_np(err));
		return;
	}
	for (n = 1; n <= max_steps && !done; n++) {
		bool injected;

		arm(n);
		err = read_all(path, &got);
		injected = disarm();
		if (injected) {
			tally.injected++;
			tally_err(&tally, err);
		} else if (err) {
			fail("read %s, step %lu: %s, no failure injected", path, n, strerrorname_np(err));
		} else {
			done = true;
		}
		if (err && err != ENOMEM)
			fail("read %s, step %lu: failed with %s, not ENOMEM", path, n,
			     strerrorname_np(err));
		/* A task may have come or gone since: compare with a new read too. */
		if (!err && !buf_eq(&got, &want) &&
		    (settled_read(path, &want) || !buf_eq(&got, &want)))
			fail("read %s, step %lu: succeeded with other content:\n%s\ninstead of:\n%s",
			     path, n, got.p, want.p);
	}
	tally_print("read", path, &tally, n - 1, done);
	if (!done)
		fail("read %s: still injecting after %lu steps", path, max_steps);
	free(want.p);
	free(got.p);
}

static int usage(void)
{
	fputs("usage: nsfault [-r ROOT] [-m MAX] create TYPE | mount DIR | read PATH...\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "+r:m:")) != -1) {
		switch (opt) {
		case 'r':
			root = optarg;
			break;
		case 'm':
			max_steps = strtoul(optarg, NULL, 10);
			break;
		default:
			return usage();
		}
	}
	if (argc - optind < 2)
		return usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[optind], "create") && argc - optind == 2)
		do_create(argv[optind + 1]);
	else if (!strcmp(argv[optind], "mount") && argc - optind == 2)
		do_mount(argv[optind + 1]);
	else if (!strcmp(argv[optind], "read"))
		for (int i = optind + 1; i < argc; i++)
			do_read(argv[i]);
	else
		return usage();
	return failures ? 1 : 0;
}
