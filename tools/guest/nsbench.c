// SPDX-License-Identifier: GPL-2.0-only
/*
 * nsbench: the guest side of `make bench` that the shell is too slow for.
 *
 *   nsbench scenario
 *	Build and change a scenario of containers on commands read from
 *	standard input, one a line, each answered by a line "ok N" (N
 *	containers now) or "error ..." on standard output:
 *	  add C P   start C containers, each a process that made new pid,
 *		    user, uts, ipc, net, mnt, cgroup and time namespaces
 *		    (the init of the pid namespace) with P - 1 children
 *	  grow K    have the init of every container start K more children
 *	  drop C    kill the C newest containers and wait for them
 *	  chain D   a chain of D nested user and pid namespaces, one
 *		    process in each
 *	At the end of the input every process is killed.
 *   nsbench rate TYPE N
 *	Create and destroy N namespaces of TYPE (uts, ipc, net, mnt, cgroup,
 *	time, pid: unshare in a loop, which drops the previous one; user and
 *	all, the eight together: unshare in a child that exits; pid-init: a
 *	new pid namespace whose init, our child, exits; fork: the child
 *	alone) and print "TYPE N SECONDS BEST": BEST is the rate, per
 *	second, of the quickest of RATE_BLOCKS equal blocks of the loop. Under
 *	TCG the guest runs slower whenever the host is busy, never faster:
 *	the quickest block is the figure that the host's load changes least.
 *   nsbench hold TYPE N
 *	Make N namespaces of TYPE and hold each by an open nsfs file with no
 *	process in it (quicker than nstest hold: unshare in a loop, or for
 *	user and pid a child that shares our memory and files); print
 *	"ready" and wait for a signal.
 *   nsbench readdir DIR REPS
 *	List DIR REPS times (opendir, readdir to the end) and print "ENTRIES
 *	SECONDS" with the median time of the listings.
 *   nsbench read FILE REPS
 *	Read FILE REPS times (open, read to the end in 64 KiB reads, close)
 *	and print "BYTES SECONDS" with the median time of the reads.
 *   nsbench sleepers N
 *	Start N processes that sleep and die with this one, print "ready"
 *	and wait for a signal.
 *   nsbench tree ROOT
 *	Walk a namespacefs mount and print one line a namespace, "TYPE INUM
 *	PARENT OWNER" (0 where there is none): the tree of all namespaces
 *	with type, parent and owner, reading nothing but the directories and
 *	the owner links.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../include/digits.h"
#include "../include/nstypes.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define ALL_NS (CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC | \
		CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWTIME)

static const struct ns_type types[] = {
	NS_TYPE_ROWS,
	{ "all", ALL_NS, NULL, 0 },
	{ "pid-init", CLONE_NEWPID, NULL, 0 },
	{ "fork", 0, NULL, 0 },
};

#define NTYPES (sizeof(types) / sizeof(types[0]))

static int type_index(const char *name)
{
	size_t i;

	for (i = 0; i < NTYPES; i++)
		if (!strcmp(name, types[i].name))
			return i;
	fprintf(stderr, "nsbench: unknown type %s\n", name);
	return -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Raise the open file limit to @n + 64 (root may go up to fs.nr_open). */
static void want_files(long n)
{
	struct rlimit rl = { .rlim_cur = n + 64, .rlim_max = n + 64 };

	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("nsbench: setrlimit");
}

/* ---- scenario ---- */

struct scenario {
	pid_t *inits;		/* the containers' inits, oldest first */
	int n, cap;
	pid_t *chain;		/* the first process of each chain */
	int nchain;
	int ack[2];		/* every process that is ready writes a byte */
	int pids[2];		/* each container's parent sends its init */
};

static void __attribute__((noreturn)) sleep_forever(void)
{
	for (;;)
		pause();
}

/* Start @k children that sleep, then tell the manager. */
static void spawn_sleepers(int k, int ack)
{
	char c = 0;
	int i;

	for (i = 0; i < k; i++) {
		pid_t p = fork();

		if (p < 0)
			c = 1;
		if (p == 0)
			sleep_forever();
	}
	if (write(ack, &c, 1) != 1)
		_exit(1);
}

static void on_grow(int sig)
{
	(void)sig;
}

/* The init of a container: P - 1 children, then more on SIGRTMIN. */
static void container_init(int p, int ack)
{
	struct sigaction sa = { .sa_handler = on_grow };
	sigset_t set;
	siginfo_t si;

	/* An init gets no signal from outside unless it has a handler. */
	sigaction(SIGRTMIN, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &set, NULL);
	spawn_sleepers(p - 1, ack);
	for (;;)
		if (sigwaitinfo(&set, &si) == SIGRTMIN)
			spawn_sleepers(si.si_value.sival_int, ack);
}

/* The parent of a container: new namespaces, then the init. */
static void container_parent(struct scenario *s, int p)
{
	pid_t init;
	char c = 1;

	init = unshare(ALL_NS) ? -1 : fork();
	if (init == 0)
		container_init(p, s->ack[1]);
	if (init < 0) {
		perror("nsbench: container");
		init = 0;
		if (write(s->ack[1], &c, 1) != 1)
			_exit(1);
	}
	if (write(s->pids[1], &init, sizeof(init)) != sizeof(init))
		_exit(1);
	_exit(0);
}

/* Wait for @n processes to be ready; false if one of them failed. */
static bool wait_acks(struct scenario *s, int n)
{
	bool ok = true;
	char buf[256];

	while (n > 0) {
		ssize_t len = read(s->ack[0], buf,
				   n < (int)sizeof(buf) ? n : (int)sizeof(buf));

		if (len <= 0)
			return false;
		for (ssize_t i = 0; i < len; i++)
			ok &= !buf[i];
		n -= len;
	}
	return ok;
}

static bool add(struct scenario *s, int c, int p)
{
	bool ok = true;
	int i, started = 0;

	if (s->n + c > s->cap) {
		s->cap = (s->n + c) * 2;
		s->inits = realloc(s->inits, s->cap * sizeof(pid_t));
		if (!s->inits)
			die("nsbench: realloc");
	}
	for (i = 0; i < c; i++) {
		pid_t pp = fork();

		if (pp < 0) {
			ok = false;
			break;
		}
		if (pp == 0)
			container_parent(s, p);
		started++;
	}
	for (i = 0; i < started; i++) {
		pid_t init;

		if (read(s->pids[0], &init, sizeof(init)) != sizeof(init))
			return false;
		if (init > 0)
			s->inits[s->n++] = init;
	}
	/* The parents exit; their inits are ours (a subreaper). */
	for (i = 0; i < started; i++)
		wait(NULL);
	return wait_acks(s, started) && ok;
}

static bool grow(struct scenario *s, int k)
{
	union sigval v = { .sival_int = k };
	int i;

	for (i = 0; i < s->n; i++)
		if (sigqueue(s->inits[i], SIGRTMIN, v))
			return false;
	return wait_acks(s, s->n);
}

static bool drop(struct scenario *s, int c)
{
	int i;

	if (c > s->n)
		c = s->n;
	for (i = s->n - c; i < s->n; i++)
		kill(s->inits[i], SIGKILL);
	/* An init is reaped once the rest of its pid namespace is gone. */
	for (i = s->n - c; i < s->n; i++)
		waitpid(s->inits[i], NULL, 0);
	s->n -= c;
	return true;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* Map root to root in a new user namespace, to make the next one in it. */
static int map_root(void)
{
	if (write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/gid_map", "0 0 1") ||
	    write_file("/proc/self/uid_map", "0 0 1"))
		return -1;
	return 0;
}

/*
 * A chain: each level makes new user and pid namespaces and forks the init
 * of the next; the process at the bottom says it is ready.
 */
static void chain_levels(int d, int ack)
{
	char c = 0;

	for (; d > 0; d--) {
		pid_t next;

		if (unshare(CLONE_NEWUSER | CLONE_NEWPID) || map_root()) {
			c = 1;
			break;
		}
		next = fork();
		if (next < 0) {
			c = 1;
			break;
		}
		/* The init of the level below dies with us: stay. */
		if (next > 0)
			sleep_forever();
	}
	if (write(ack, &c, 1) != 1)
		_exit(1);
	sleep_forever();
}

static bool chain(struct scenario *s, int d)
{
	pid_t p = fork();

	if (p < 0)
		return false;
	if (p == 0)
		chain_levels(d, s->ack[1]);
	s->chain = realloc(s->chain, (s->nchain + 1) * sizeof(pid_t));
	if (!s->chain)
		die("nsbench: realloc");
	s->chain[s->nchain++] = p;
	return wait_acks(s, 1);
}

static int scenario(void)
{
	struct scenario s = { 0 };
	char line[256];
	int a, b, i;

	if (pipe(s.ack) || pipe(s.pids))
		die("nsbench: pipe");
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		die("nsbench: PR_SET_CHILD_SUBREAPER");
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		bool ok;

		if (sscanf(line, "add %d %d", &a, &b) == 2 && a >= 0 && b >= 1)
			ok = add(&s, a, b);
		else if (sscanf(line, "grow %d", &a) == 1 && a >= 0)
			ok = grow(&s, a);
		else if (sscanf(line, "drop %d", &a) == 1 && a >= 0)
			ok = drop(&s, a);
		else if (sscanf(line, "chain %d", &a) == 1 && a >= 1)
			ok = chain(&s, a);
		else {
			printf("error: unknown command %s", line);
			continue;
		}
		if (ok)
			printf("ok %d\n", s.n);
		else
			printf("error: %s failed (%s)\n", strtok(line, " \n"),
			       strerror(errno));
	}
	drop(&s, s.n);
	for (i = 0; i < s.nchain; i++) {
		kill(s.chain[i], SIGKILL);
		waitpid(s.chain[i], NULL, 0);
	}
	return 0;
}

/* ---- rate ---- */

static int child_unshare(int flags)
{
	int status;
	pid_t p = fork();

	if (p < 0)
		return -1;
	if (p == 0)
		_exit(flags && unshare(flags) ? 1 : 0);
	if (waitpid(p, &status, 0) != p || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

#define RATE_BLOCKS	20

static int rate(const char *type, long n)
{
	int t = type_index(type), self = -1;
	bool with_init = !strcmp(type, "pid-init");
	long i, block = (n + RATE_BLOCKS - 1) / RATE_BLOCKS;
	double start, mark, best = 0;

	if (t < 0)
		return 2;
	if (types[t].flag == CLONE_NEWPID) {
		self = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
		if (self < 0)
			die("nsbench: /proc/self/ns/pid");
	}
	start = mark = now();
	for (i = 0; i < n; i++) {
		int flag = types[t].flag, err;

		switch (flag) {
		case CLONE_NEWUSER:
		case ALL_NS:
		case 0:
			err = child_unshare(flag);
			break;
		case CLONE_NEWPID:
			/*
			 * pid-init: our next child is the new namespace's init
			 * and exits. Then back to our own (unshare refuses a
			 * second new one before).
			 */
			err = unshare(flag) || (with_init && child_unshare(0)) ||
			      setns(self, CLONE_NEWPID);
			break;
		default:
			err = unshare(flag);
		}
		if (err) {
			fprintf(stderr, "nsbench: rate %s: namespace %ld: %s\n",
				type, i, strerror(errno));
			return 1;
		}
		if ((i + 1) % block == 0) {
			double end = now();

			if (block / (end - mark) > best)
				best = block / (end - mark);
			mark = end;
		}
	}
	printf("%s %ld %.6f %.1f\n", type, n, now() - start, best);
	return 0;
}

/* ---- hold ---- */

static char clone_stack[64 * 1024] __attribute__((aligned(16)));
static const char *clone_file;
static int clone_fd;

static int open_own_ns(void *arg)
{
	char path[64];

	(void)arg;
	snprintf(path, sizeof(path), "/proc/self/ns/%s", clone_file);
	clone_fd = open(path, O_RDONLY | O_CLOEXEC);
	return 0;
}

/*
 * A user or pid namespace: a child that shares our memory and files is
 * made in it, opens it and exits; we are suspended until then
 * (CLONE_VFORK). A pid namespace cannot be opened before it has an init.
 */
static int hold_clone(int flag, const char *file)
{
	pid_t child;

	clone_fd = -1;
	clone_file = file;
	child = clone(open_own_ns, clone_stack + sizeof(clone_stack),
		      CLONE_VM | CLONE_FILES | CLONE_VFORK | flag | SIGCHLD,
		      NULL);
	if (child < 0)
		return -1;
	waitpid(child, NULL, 0);
	return clone_fd;
}

static int hold(const char *type, long n)
{
	int t = type_index(type);
	char path[64];
	long i;

	if (t < 0)
		return 2;
	if (!types[t].file) {
		fprintf(stderr, "nsbench: hold: %s is not one type\n", type);
		return 2;
	}
	want_files(n);
	snprintf(path, sizeof(path), "/proc/self/ns/%s", types[t].file);
	for (i = 0; i < n; i++) {
		int fd;

		if (types[t].flag == CLONE_NEWPID)
			fd = hold_clone(CLONE_NEWPID, "pid");
		else if (types[t].flag == CLONE_NEWUSER)
			fd = hold_clone(CLONE_NEWUSER, "user");
		else if (unshare(types[t].flag))
			fd = -1;
		else
			fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "nsbench: hold: namespace %ld: %s\n", i,
				strerror(errno));
			return 1;
		}
	}
	return ready_then_hold();
}

/* ---- readdir ---- */

static int cmp_double(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

static int list_dir(const char *path, int reps)
{
	double *t = calloc(reps, sizeof(double));
	long entries = 0;
	int i;

	if (!t)
		die("nsbench: calloc");
	for (i = 0; i < reps; i++) {
		double start = now();
		DIR *dir = opendir(path);

		if (!dir)
			die("nsbench: opendir");
		entries = 0;
		while (readdir(dir))
			entries++;
		closedir(dir);
		t[i] = now() - start;
	}
	qsort(t, reps, sizeof(double), cmp_double);
	printf("%ld %.6f\n", entries, t[reps / 2]);
	free(t);
	return 0;
}

static int read_file(const char *path, int reps)
{
	static char buf[65536];
	double *t = calloc(reps, sizeof(double));
	long long bytes = 0;
	int i;

	if (!t)
		die("nsbench: calloc");
	for (i = 0; i < reps; i++) {
		double start = now();
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n;

		if (fd < 0)
			die("nsbench: read: open");
		bytes = 0;
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			bytes += n;
		if (n < 0)
			die("nsbench: read");
		close(fd);
		t[i] = now() - start;
	}
	qsort(t, reps, sizeof(double), cmp_double);
	printf("%lld %.6f\n", bytes, t[reps / 2]);
	free(t);
	return 0;
}

static int sleepers(long n)
{
	pid_t me = getpid();
	long i;

	for (i = 0; i < n; i++) {
		pid_t p = fork();

		if (p < 0)
			die("nsbench: sleepers: fork");
		if (p == 0) {
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != me)
				_exit(1);
			sleep_forever();
		}
	}
	return ready_then_hold();
}

/* ---- tree ---- */

/*
 * The inode number of the directory that the owner link in @dir points to
 * (a type's directory is named by type, not number), or 0 if it has none.
 */
static unsigned long long owner_of(int dir)
{
	struct stat st;

	return fstatat(dir, "owner", &st, 0) ? 0 : st.st_ino;
}

/* Print the namespaces in @dir, the directory of namespace @inum. */
static void walk(const char *type, int dir, unsigned long long inum,
		 unsigned long long parent, bool nested)
{
	struct dirent *de;
	DIR *d;

	printf("%s %llu %llu %llu\n", type, inum, parent,
	       strcmp(type, "user") ? owner_of(dir) : parent);
	d = fdopendir(dir);
	if (!d) {
		close(dir);
		return;
	}
	while ((de = readdir(d))) {
		int sub;

		if (!all_digits(de->d_name))
			continue;
		sub = openat(dir, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub < 0)
			continue;	/* gone meanwhile */
		if (nested) {
			walk(type, sub, strtoull(de->d_name, NULL, 10), inum,
			     true);
		} else {
			printf("%s %s 0 %llu\n", type, de->d_name,
			       owner_of(sub));
			close(sub);
		}
	}
	closedir(d);
}

static int tree(const char *root)
{
	static const char * const names[] = {
		"cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts",
	};
	int top, i;

	top = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0)
		die("nsbench: tree");
	for (i = 0; i < 8; i++) {
		bool nested = !strcmp(names[i], "pid") ||
			      !strcmp(names[i], "user");
		int dir = openat(top, names[i], O_RDONLY | O_DIRECTORY |
						O_CLOEXEC);
		struct stat st;

		if (dir < 0 || fstat(dir, &st))
			continue;
		walk(names[i], dir, st.st_ino, 0, nested);
	}
	close(top);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "scenario"))
		return scenario();
	if (argc == 4 && !strcmp(argv[1], "rate"))
		return rate(argv[2], atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "hold"))
		return hold(argv[2], atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "readdir"))
		return list_dir(argv[2], atoi(argv[3]) > 0 ? atoi(argv[3]) : 1);
	if (argc == 4 && !strcmp(argv[1], "read"))
		return read_file(argv[2], atoi(argv[3]) > 0 ? atoi(argv[3]) : 1);
	if (argc == 3 && !strcmp(argv[1], "sleepers"))
		return sleepers(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "tree"))
		return tree(argv[2]);
	fputs("usage: nsbench scenario | rate TYPE N | hold TYPE N"
	      " | readdir DIR REPS | read FILE REPS | sleepers N"
	      " | tree ROOT\n", stderr);
	return 2;
}
