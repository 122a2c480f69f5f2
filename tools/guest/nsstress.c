// SPDX-License-Identifier: GPL-2.0-only
/*
 * nsstress: churn namespaces of every type while readers in several
 * namespacefs mounts at once list, read, seek, stat, readlink and watch
 * them, and check every record they read.
 *
 *   nsstress [-v] [-t SECONDS] [-s SEED] [-w WRITERS] [-r READERS] [-u UID] MOUNT
 *
 * MOUNT is the host's namespacefs mount. The readers (READERS in each
 * mount, default 3) work in three mounts: MOUNT; one made in a privileged
 * container (new mount and pid namespaces); and one made in an
 * unprivileged container (user UID, default 1000, in a user namespace of
 * its own with new mount and pid namespaces). The writers (default 6)
 * run as root in the host's namespaces, each in a mount namespace of its
 * own for the bind mounts it makes.
 *
 * Writers, each step one of: unshare flat namespaces over and over; a
 * chain of nested pid namespaces; a chain of nested user namespaces; all
 * eight types at once; a namespace held by a bind mount of its nsfs file,
 * or by an open nsfs file, released later; setns() into a namespace whose
 * last process is being killed (by pidfd, and by nsfs file); an anonymous
 * mount namespace (open_tree(OPEN_TREE_CLONE)).
 *
 * Readers keep up to 16 files and 8 directories open, opening new ones
 * and going back to old ones, whose namespaces may have died since. Each
 * step one of: getdents64 with a random buffer size, from the start or
 * after an lseek to a random or a returned position; a whole read with
 * random read sizes, checked to be a record of the file's format (and,
 * for a file that never changes, the same as its first read), and preads
 * at random offsets checked against it; a file whose namespace died reads
 * ENOENT; stat; readlink of an `owner` link; open a file and a directory
 * of a new namespace, wait for the namespace to die, then read (ENOENT)
 * and list ("." and ".." only); add and remove inotify watches and read their
 * events; in the unprivileged container, mount namespacefs on a directory
 * of its own, watch it and detach it while its events are on their way.
 * A user namespace's id map read empty and then written is the one change
 * a "stable" file may show. "File operations" counts the system calls on
 * namespacefs files.
 *
 * Decisions come from SEED (the time by default; printed first), one
 * stream a process: a failing run is replayed with -s SEED (the same
 * decisions, not the same interleaving). Every check that fails prints a
 * line "FAIL: ..."; at the end one line of figures:
 *
 *   nsstress: seed S, T s, N namespaces created, M file operations (...)
 *
 * With -v, also the seconds spent in each kind of step.
 *
 * Exits 0 when no check failed, 1 otherwise, 2 on a usage or setup error.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../include/digits.h"
#include "../include/nstypes.h"

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif

static const struct ns_type types[] = { NS_TYPE_ROWS };
#define NTYPES (sizeof(types) / sizeof(types[0]))
#define ALL_FLAGS (CLONE_NEWCGROUP | CLONE_NEWIPC | CLONE_NEWNS | CLONE_NEWNET | \
		   CLONE_NEWPID | CLONE_NEWTIME | CLONE_NEWUSER | CLONE_NEWUTS)

/* Counters shared by every process of the run. */
enum counter {
	C_CREATED,	/* namespaces created */
	/* file operations: system calls on namespacefs files */
	C_OPEN, C_GETDENTS, C_LSEEK, C_READ, C_PREAD, C_STAT, C_READLINK, C_WATCH,
	C_DEATH,	/* namespaces watched die under an open file */
	C_EVENTS,	/* inotify events read */
	C_SETNS, C_HELD, C_ANON,
	C_UMOUNT,	/* mounts of its own detached by an unprivileged reader */
	C_FAILED,	/* checks that failed */
	C_COUNT
};

static const char *const counter_names[C_COUNT] = {
	"created", "open", "getdents", "lseek", "read", "pread", "stat",
	"readlink", "inotify", "open-until-death", "events", "setns", "held",
	"anon-mnt", "detached", "failed",
};

static uint64_t *counters;

/* With -v: the time spent in each kind of step, to balance the run. */
enum step { S_FLAT, S_PID, S_USER, S_ALL, S_HOLD, S_UNHOLD, S_SETNS, S_ANON,
	    S_GETDENTS, S_READ, S_STAT, S_READLINK, S_WATCH, S_DEATH, S_UMOUNT, S_COUNT };
static const char *const step_names[S_COUNT] = {
	"flat", "pid-chain", "user-chain", "all", "hold", "unhold", "setns",
	"anon", "getdents", "read", "stat", "readlink", "watch", "death",
	"umount",
};
static uint64_t *step_us;
static long long deadline_ms;
static const char *current_mount = "?";

static void count(enum counter c, uint64_t n)
{
	__atomic_fetch_add(&counters[c], n, __ATOMIC_RELAXED);
}

static void fail(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = snprintf(line, sizeof(line), "FAIL: [%s] ", current_mount);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	/* One write a line: the processes' lines do not interleave. */
	dprintf(STDOUT_FILENO, "%s\n", line);
	count(C_FAILED, 1);
}

static void die(const char *what)
{
	dprintf(STDERR_FILENO, "nsstress: %s: %s\n", what, strerror(errno));
	exit(2);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* Run STEP's call, adding its time to step_us[STEP]. */
#define TIMED(step, call)						\
	do {								\
		long long t0_ = now_us();				\
		call;							\
		__atomic_fetch_add(&step_us[step], now_us() - t0_,	\
				   __ATOMIC_RELAXED);			\
	} while (0)

static bool time_left(void)
{
	return now_ms() < deadline_ms;
}

/* xorshift64*: one stream a process, from the seed and the process's role. */
static uint64_t rng;

static void seed_rng(uint64_t seed, uint64_t role)
{
	rng = seed ^ (0x9e3779b97f4a7c15ULL * (role + 1));
	if (!rng)
		rng = 1;
}

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static unsigned int below(unsigned int n)
{
	return n ? rnd() % n : 0;
}

/* ---- Checking records ---------------------------------------------- */

/* Lines of S, each matched by LINE_OK; S ends with a newline. */
static bool lines_ok(const char *s, bool empty_ok, bool (*line_ok)(const char *, size_t))
{
	if (!*s)
		return empty_ok;
	while (*s) {
		const char *nl = strchr(s, '\n');

		if (!nl || !line_ok(s, nl - s))
			return false;
		s = nl + 1;
	}
	return true;
}

/* A line of N space-separated fields, each a decimal number (leading spaces allowed when PAD). */
static bool numbers(const char *s, size_t len, int n, bool pad)
{
	size_t i = 0;

	for (int f = 0; f < n; f++) {
		if (f && (i >= len || s[i++] != ' '))
			return false;
		while (pad && i < len && s[i] == ' ')
			i++;
		if (i >= len || !isdigit((unsigned char)s[i]))
			return false;
		while (i < len && isdigit((unsigned char)s[i]))
			i++;
	}
	return i == len;
}

static bool one_number(const char *s, size_t len) { return numbers(s, len, 1, false); }
static bool map_line(const char *s, size_t len) { return numbers(s, len, 3, true); }
static bool members_line(const char *s, size_t len) { return numbers(s, len, 10, false); }

/* The refs file: "count N", "tasks N" and "nsfs 0|1", in that order. */
static bool refs_ok(const char *s)
{
	static const char *const keys[] = { "count ", "tasks ", "nsfs " };

	for (size_t i = 0; i < 3; i++) {
		size_t k = strlen(keys[i]), d;
		const char *nl;

		if (strncmp(s, keys[i], k))
			return false;
		s += k;
		nl = strchr(s, '\n');
		if (!nl || !numbers(s, nl - s, 1, false))
			return false;
		d = nl - s;
		if (i == 2 && (d != 1 || *s > '1'))
			return false;
		s = nl + 1;
	}
	return !*s;
}

/* A line of the stats file: "TYPE SHOWN", or "TYPE SHOWN CREATED DESTROYED". */
static bool stats_line(const char *s, size_t len)
{
	const char *sp = memchr(s, ' ', len);

	if (!sp || sp == s)
		return false;
	len -= sp + 1 - s;
	s = sp + 1;
	return numbers(s, len, 1, false) || numbers(s, len, 3, false);
}

static bool word(const char *s, size_t len)
{
	return len && !memchr(s, ' ', len);
}

static bool device_line(const char *s, size_t len)
{
	const char *sp1 = memchr(s, ' ', len), *sp2;

	if (!sp1 || !numbers(s, sp1 - s, 1, false))
		return false;
	sp2 = memrchr(s, ' ', len);
	if (sp2 == sp1)
		return false;
	return (s + len - sp2 - 1 == 2 && !memcmp(sp2 + 1, "up", 2)) ||
	       (s + len - sp2 - 1 == 4 && !memcmp(sp2 + 1, "down", 4));
}

static bool namespaces_line(const char *s, size_t len)
{
	const char *sp = memchr(s, ' ', len);
	bool known = false;

	if (!sp)
		return false;
	for (size_t i = 0; i < NTYPES; i++)
		known |= (size_t)(sp - s) == strlen(types[i].name) &&
			 !memcmp(s, types[i].name, sp - s);
	return known && numbers(sp + 1, s + len - sp - 1, 5, false);
}

static bool offsets_ok(const char *s)
{
	long long a, b;
	int n = -1;

	if (sscanf(s, "monotonic %lld %lld\nboottime %lld %lld\n%n", &a, &b, &a, &b, &n) != 4)
		return false;
	return n == (int)strlen(s);
}

/* Whole lines of ascending numbers. */
static bool ascending(const char *s)
{
	unsigned long long last = 0;
	bool first = true;

	if (!lines_ok(s, true, one_number))
		return false;
	for (; *s; s = strchr(s, '\n') + 1) {
		unsigned long long v = strtoull(s, NULL, 10);

		if (!first && v <= last)
			return false;
		last = v;
		first = false;
	}
	return true;
}

enum kind { K_NUMBER, K_ASCENDING, K_UNAME, K_WORD, K_SETGROUPS, K_MAP, K_OFFSETS,
	    K_DEVICES, K_ROOT, K_MEMBERS, K_NAMESPACES, K_REFS, K_STATS };

/* Every file namespacefs has: its format, and whether it changes while the namespace lives. */
static const struct file_kind {
	const char *name;
	enum kind kind;
	bool stable;
} files[] = {
	{ "id", K_NUMBER, true }, { "inum", K_NUMBER, true },
	{ "level", K_NUMBER, true }, { "reaper", K_NUMBER, false },
	{ "mounts", K_NUMBER, false }, { "mntns_id", K_NUMBER, true },
	{ "cookie", K_NUMBER, true }, { "creator", K_NUMBER, true },
	{ "msg_queues", K_NUMBER, false }, { "sem_arrays", K_NUMBER, false },
	{ "shm_segments", K_NUMBER, false }, { "mq_queues", K_NUMBER, false },
	{ "procs", K_ASCENDING, false }, { "tasks", K_ASCENDING, false },
	{ "uname", K_UNAME, true }, { "hostname", K_WORD, true },
	{ "domainname", K_WORD, true }, { "setgroups", K_SETGROUPS, true },
	{ "uid_map", K_MAP, true }, { "gid_map", K_MAP, true },
	{ "projid_map", K_MAP, true }, { "offsets", K_OFFSETS, true },
	{ "devices", K_DEVICES, false }, { "root", K_ROOT, true },
	{ "members", K_MEMBERS, false }, { "namespaces", K_NAMESPACES, false },
	{ "refs", K_REFS, false }, { "stats", K_STATS, false },
};

static const struct file_kind *file_kind(const char *name)
{
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (!strcmp(files[i].name, name))
			return &files[i];
	return NULL;
}

/* S (NUL-terminated, LEN bytes) is a whole record of a file of kind K. */
static bool record_ok(const struct file_kind *k, const char *s, size_t len)
{
	if (strlen(s) != len)
		return false;
	switch (k->kind) {
	case K_NUMBER:
		return lines_ok(s, false, one_number) && !strchr(s, '\n')[1];
	case K_ASCENDING:
		return ascending(s);
	case K_UNAME: {
		int spaces = 0;

		for (const char *p = s; *p; p++)
			spaces += *p == ' ';
		return len > 1 && s[len - 1] == '\n' && !memchr(s, '\n', len - 1) &&
		       spaces >= 5 && s[0] != ' ';
	}
	case K_WORD:
		return lines_ok(s, false, word) && !strchr(s, '\n')[1];
	case K_SETGROUPS:
		return !strcmp(s, "allow\n") || !strcmp(s, "deny\n");
	case K_MAP:
		return lines_ok(s, true, map_line);
	case K_OFFSETS:
		return offsets_ok(s);
	case K_DEVICES:
		return lines_ok(s, true, device_line);
	case K_ROOT:
		return s[0] == '/' && s[len - 1] == '\n' && !memchr(s, '\n', len - 1);
	case K_MEMBERS:
		return lines_ok(s, false, members_line);
	case K_NAMESPACES:
		return lines_ok(s, false, namespaces_line);
	case K_REFS:
		return refs_ok(s);
	case K_STATS:
		return lines_ok(s, false, stats_line);
	}
	return false;
}

/* An `owner` link: "../" at least once, then "user", then inode numbers. */
static bool owner_ok(const char *s)
{
	if (strncmp(s, "../", 3))
		return false;
	while (!strncmp(s, "../", 3))
		s += 3;
	if (strncmp(s, "user", 4))
		return false;
	for (s += 4; *s; ) {
		if (*s++ != '/' || !isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return true;
}

/* ---- Making namespaces ------------------------------------------- */

static int popcount(int flags)
{
	return __builtin_popcount((unsigned int)flags);
}

/* unshare(FLAGS), counted; a failure other than running out of room is reported. */
static bool make(int flags, const char *what)
{
	if (unshare(flags) == 0) {
		count(C_CREATED, popcount(flags));
		return true;
	}
	/* EUSERS/ENOSPC: a nesting or max_*_namespaces limit. */
	if (errno != EUSERS && errno != ENOSPC)
		fail("unshare(%s, %#x): %s", what, flags, strerrorname_np(errno));
	return false;
}

/*
 * A child in new namespaces (FLAGS), waiting until *RELEASE is closed;
 * -1 if it could not make them. *UTS_INUM, if asked for, is the inode
 * number of its uts namespace, which the child reads itself (in a
 * container, its PID is not the one the host's /proc shows).
 */
static pid_t spawn_ns(int flags, int *release, unsigned long long *uts_inum)
{
	unsigned long long inum = 0;
	int p[2], q[2];
	struct stat st;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0 || pipe2(q, O_CLOEXEC) < 0)
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char c;

		close(p[0]);
		close(q[1]);
		if (!make(flags, "held"))
			_exit(1);
		/* /proc shows pid_for_children once a process entered it. */
		if (flags & CLONE_NEWPID) {
			pid_t init = fork();

			if (init == 0)
				_exit(0);
			waitpid(init, NULL, 0);
		}
		if (!stat("/proc/self/ns/uts", &st))
			inum = st.st_ino;
		if (write(p[1], &inum, sizeof(inum)) != sizeof(inum) || read(q[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	close(q[0]);
	if (read(p[0], &inum, sizeof(inum)) != sizeof(inum)) {
		close(p[0]);
		close(q[1]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(p[0]);
	*release = q[1];
	if (uts_inum)
		*uts_inum = inum;
	return pid;
}

/* ---- Readers ------------------------------------------------------- */

/* Paths a reader has seen, relative to its mount; replaced at random when full. */
#define MAX_PATHS 2048
static char *paths[MAX_PATHS];
static unsigned int npaths;
static const char *mount_dir;
static bool unprivileged;

static void remember(const char *path)
{
	unsigned int i = npaths < MAX_PATHS ? npaths++ : below(MAX_PATHS);

	free(paths[i]);
	paths[i] = strdup(path);
	if (!paths[i])
		die("strdup");
}

static const char *random_path(void)
{
	return npaths ? paths[below(npaths)] : mount_dir;
}

/*
 * The errors a reader may meet: the namespace died (ENOENT), or, in the
 * unprivileged container, a file of a namespace it does not own (EACCES).
 */
static bool expected_error(int err)
{
	return err == ENOENT || (unprivileged && err == EACCES);
}

static void unexpected(const char *op, const char *path, int err)
{
	fail("%s %s: %s", op, path, strerrorname_np(err));
}

/* A directory entry's name and type agree with namespacefs's layout. */
static bool entry_ok(const char *dir, const char *name, unsigned char type)
{
	bool at_root = !strcmp(dir, mount_dir);

	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return type == DT_DIR;
	if (all_digits(name))
		return type == DT_DIR && !at_root;
	if (!strcmp(name, "owner"))
		return type == DT_LNK && !at_root;
	if (file_kind(name))
		return type == DT_REG;
	for (size_t i = 0; i < NTYPES; i++)
		if (!strcmp(name, types[i].name))
			return type == DT_DIR && at_root;
	return false;
}

/* getdents64 of a directory with a random buffer, from a random position. */
/* Directories a reader keeps open and lists again. */
#define MAX_DIRS 8
static struct held_dir {
	int fd;
	char *path;
} dirs[MAX_DIRS];
static unsigned int ndirs;

static void op_getdents(void)
{
	static uint64_t seen_off[64];
	static const unsigned int sizes[] = { 24, 40, 64, 100, 256, 1024, 4096, 32768 };
	char path[PATH_MAX], *buf;
	unsigned int size = sizes[below(8)];
	const char *dir;
	int fd;

	if (!ndirs || !below(4)) {
		dir = random_path();
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		count(C_OPEN, 1);
		if (fd < 0) {
			if (errno != ENOTDIR && !expected_error(errno))
				unexpected("open", dir, errno);
			return;
		}
		if (ndirs == MAX_DIRS) {
			unsigned int i = below(ndirs);

			close(dirs[i].fd);
			free(dirs[i].path);
			dirs[i] = dirs[--ndirs];
		}
		dirs[ndirs++] = (struct held_dir){ fd, strdup(dir) };
	}
	{
		unsigned int i = below(ndirs);

		fd = dirs[i].fd;
		dir = dirs[i].path;
	}
	/* From the start, unless a random position is chosen below. */
	lseek(fd, 0, SEEK_SET);
	count(C_LSEEK, 1);
	buf = malloc(size);
	if (!buf)
		die("malloc");
	switch (below(4)) {
	case 0:
		/* A position getdents64 returned, here or in another directory. */
		if (lseek(fd, seen_off[below(64)], SEEK_SET) < 0 && errno != EINVAL)
			unexpected("lseek", dir, errno);
		count(C_LSEEK, 1);
		break;
	case 1:
		if (lseek(fd, rnd() >> below(64), SEEK_SET) < 0 && errno != EINVAL)
			unexpected("lseek", dir, errno);
		count(C_LSEEK, 1);
		break;
	}
	for (int calls = 0; calls < 64; calls++) {
		ssize_t n = syscall(SYS_getdents64, fd, buf, size);

		count(C_GETDENTS, 1);
		if (n < 0) {
			/* A buffer too small for the next entry's name. */
			if (errno != EINVAL && !expected_error(errno))
				unexpected("getdents64", dir, errno);
			break;
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n;) {
			uint64_t d_off;
			unsigned short reclen;
			unsigned char type = buf[off + 18];
			const char *name = buf + off + 19;

			memcpy(&d_off, buf + off + 8, 8);
			memcpy(&reclen, buf + off + 16, 2);
			if (reclen < 20 || off + reclen > n) {
				fail("getdents64 %s: a record of %u bytes at %zd of %zd", dir, reclen, off, n);
				break;
			}
			seen_off[below(64)] = d_off;
			if (!entry_ok(dir, name, type))
				fail("getdents64 %s: entry \"%s\" of type %u", dir, name, type);
			else if (strcmp(name, ".") && strcmp(name, "..") &&
				 snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path))
				remember(path);
			off += reclen;
		}
	}
	free(buf);
}

/* Read PATH whole, in reads of random sizes, into BUF (NUL-terminated). */
static ssize_t read_random_sizes(int fd, char *buf, size_t cap)
{
	size_t len = 0;

	for (;;) {
		size_t want = 1 + below(below(2) ? 16 : 4096);
		ssize_t n;

		if (want > cap - 1 - len)
			want = cap - 1 - len;
		if (!want)
			break;
		n = read(fd, buf + len, want);
		count(C_READ, 1);
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	return len;
}

/*
 * Files a reader keeps open and reads again: a file of a namespace that
 * died reads ENOENT (and is then closed), a stable file reads the same as
 * the first time, whatever namespace came to have its inode number.
 */
#define MAX_OPEN 16
static struct held_file {
	int fd;
	char *path;
	const struct file_kind *kind;
	char *first;		/* a stable file's first content */
} held[MAX_OPEN];
static unsigned int nheld;

static void drop_file(unsigned int i)
{
	close(held[i].fd);
	free(held[i].path);
	free(held[i].first);
	held[i] = held[--nheld];
}

static void open_file(void)
{
	const char *path = random_path();
	const char *name = strrchr(path, '/');
	const struct file_kind *k = file_kind(name ? name + 1 : path);
	int fd;

	/* Directories (the mount's root is named after a root file) are listed, not read. */
	if (!k || !strcmp(path, mount_dir))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	count(C_OPEN, 1);
	if (fd < 0) {
		if (!expected_error(errno))
			unexpected("open", path, errno);
		return;
	}
	if (nheld == MAX_OPEN)
		drop_file(below(nheld));
	held[nheld++] = (struct held_file){ fd, strdup(path), k, NULL };
}

static void op_read(void)
{
	static char content[1 << 20], part[4096];
	struct held_file *h;
	unsigned int i;
	ssize_t len, n;
	size_t off, want;

	if (!nheld || !below(4))
		open_file();
	if (!nheld)
		return;
	i = below(nheld);
	h = &held[i];
	count(C_LSEEK, 1);
	if (lseek(h->fd, 0, SEEK_SET) < 0)
		unexpected("lseek", h->path, errno);
	len = read_random_sizes(h->fd, content, sizeof(content));
	if (len < 0) {
		/* The namespace died since the file was opened. */
		if (!expected_error(errno))
			unexpected("read", h->path, errno);
		drop_file(i);
		return;
	}
	if ((size_t)len == sizeof(content) - 1)
		return;	/* a members file too big to check here */
	if (!record_ok(h->kind, content, len)) {
		fail("read %s: not a whole record: \"%.200s\"", h->path, content);
		return;
	}
	if (h->kind->stable) {
		if (!h->first) {
			h->first = strdup(content);
		} else if (h->kind->kind == K_MAP && !*h->first && *content) {
			/* A user namespace's map is written once, after it is made. */
			free(h->first);
			h->first = strdup(content);
		} else if (strcmp(h->first, content)) {
			fail("read %s: \"%.100s\", first \"%.100s\"", h->path, content, h->first);
		}
	}
	for (int k = 0, preads = 1 + below(4); k < preads; k++) {
		off = below(len + 8);
		want = 1 + below(below(2) ? 16 : sizeof(part) - 1);
		n = pread(h->fd, part, want, off);
		count(C_PREAD, 1);
		if (n < 0) {
			if (!expected_error(errno))
				unexpected("pread", h->path, errno);
		} else if (h->kind->stable && (len || h->kind->kind != K_MAP)) {
			size_t have = off < (size_t)len ? len - off : 0;

			if ((size_t)n != (want < have ? want : have) || memcmp(part, content + off, n))
				fail("pread %s at %zu: %zd bytes, not the read's", h->path, off, n);
		}
	}
}

static void op_stat(void)
{
	const char *path = random_path(), *name;
	struct stat st;
	mode_t want;

	count(C_STAT, 1);
	if (lstat(path, &st) < 0) {
		if (!expected_error(errno))
			unexpected("stat", path, errno);
		return;
	}
	/* The namespaces and stats files tell what the directories do: anyone may read them. */
	name = strrchr(path, '/') + 1;
	want = S_ISDIR(st.st_mode) ? 0555 : S_ISLNK(st.st_mode) ? 0777 :
	       !strcmp(name, "namespaces") || !strcmp(name, "stats") ? 0444 : 0440;
	if ((st.st_mode & 07777) != want)
		fail("stat %s: mode %o", path, st.st_mode & 07777);
}

static void op_readlink(void)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *dir = random_path();
	ssize_t n;

	if (snprintf(path, sizeof(path), "%s/owner", dir) >= (int)sizeof(path))
		return;
	n = readlink(path, target, sizeof(target) - 1);
	count(C_READLINK, 1);
	if (n < 0) {
		/* Not a namespace's directory, or one without a visible owner. */
		if (errno != ENOTDIR && !expected_error(errno))
			unexpected("readlink", path, errno);
		return;
	}
	target[n] = '\0';
	if (!owner_ok(target))
		fail("readlink %s: \"%s\"", path, target);
}

/* The id in the file PATH, 0 if it cannot be read. */
static unsigned long long read_id(const char *path)
{
	char s[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, s, sizeof(s) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	s[n] = '\0';
	return strtoull(s, NULL, 10);
}

/* Open a namespace's file and directory, let it die, then read and list. */
static void op_death(void)
{
	char dir[PATH_MAX], file[PATH_MAX + 16], buf[4096];
	unsigned long long inum = 0, id, now;
	long long until;
	int hold, fd, dfd, n;
	pid_t pid;

	pid = spawn_ns(CLONE_NEWUTS, &hold, &inum);
	if (pid < 0)
		return;
	snprintf(dir, sizeof(dir), "%s/uts/%llu", mount_dir, inum);
	snprintf(file, sizeof(file), "%s/hostname", dir);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || dfd < 0)
		fail("death: open %s: %s", fd < 0 ? file : dir, strerrorname_np(errno));
	snprintf(file, sizeof(file), "%s/id", dir);
	id = read_id(file);
	close(hold);
	waitpid(pid, NULL, 0);
	/*
	 * The directory goes after a grace period. Inode numbers are reused
	 * (ids are not): the same name may soon stand for a new namespace.
	 */
	for (until = now_ms() + 10000; (now = read_id(file)) == id && now_ms() < until;)
		usleep(1000);
	if (now == id)
		fail("death: %s still there 10 s after its namespace's last process", dir);
	snprintf(file, sizeof(file), "%s/hostname", dir);
	count(C_DEATH, 1);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf));
		if (n >= 0 || errno != ENOENT)
			fail("death: read %s after the namespace died: %s", file,
			     n >= 0 ? "succeeded" : strerrorname_np(errno));
		close(fd);
	}
	if (dfd >= 0) {
		n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));
		for (int off = 0; n > 0 && off < n;) {
			unsigned short reclen;
			const char *name = buf + off + 19;

			memcpy(&reclen, buf + off + 16, 2);
			if (strcmp(name, ".") && strcmp(name, ".."))
				fail("death: %s lists \"%s\" after the namespace died", dir, name);
			off += reclen;
		}
		close(dfd);
	}
}

/* inotify: add or remove a watch, read what came. */
static int ifd = -1;
static int wds[32];
static unsigned int nwds;

static void op_watch(void)
{
	char buf[8192] __attribute__((aligned(8)));
	const char *dir = random_path();
	ssize_t n;

	if (ifd < 0) {
		ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (ifd < 0)
			die("inotify_init1");
	}
	count(C_WATCH, 1);
	if (nwds == 32 || (nwds && below(2))) {
		unsigned int i = below(nwds);

		/* EINVAL: the watch went with its directory. */
		if (inotify_rm_watch(ifd, wds[i]) < 0 && errno != EINVAL)
			unexpected("inotify_rm_watch", "", errno);
		wds[i] = wds[--nwds];
	} else {
		int wd = inotify_add_watch(ifd, dir, IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_ONLYDIR);

		if (wd >= 0)
			wds[nwds++] = wd;
		else if (errno != ENOTDIR && !expected_error(errno))
			unexpected("inotify_add_watch", dir, errno);
	}
	while ((n = read(ifd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			struct inotify_event *e = (struct inotify_event *)(buf + off);
			uint32_t what = e->mask & ~IN_ISDIR;

			count(C_EVENTS, 1);
			if (what == IN_IGNORED) {
				for (unsigned int i = 0; i < nwds; i++)
					if (wds[i] == e->wd)
						wds[i] = wds[--nwds];
			} else if (what != IN_CREATE && what != IN_DELETE &&
				   what != IN_DELETE_SELF && what != IN_Q_OVERFLOW) {
				fail("inotify: event %#x", e->mask);
			} else if ((what == IN_CREATE || what == IN_DELETE) &&
				   (!e->len || !all_digits(e->name))) {
				fail("inotify: event %#x for \"%s\"", e->mask, e->len ? e->name : "");
			}
			off += sizeof(*e) + e->len;
		}
	}
}

/*
 * An unprivileged reader's own mount: mount namespacefs, watch the flat
 * and nested directories while the writers churn, and detach the mount
 * while their events are on their way. The kernel must not post to a
 * super block that is going away.
 */
static char own_dir[64];

static void op_umount(void)
{
	const char *dir = own_dir;
	char path[128], buf[4096] __attribute__((aligned(8)));
	const char *subdirs[] = { "uts", "user", "pid", "net" };
	int fd;

	if (!own_dir[0]) {
		snprintf(own_dir, sizeof(own_dir), "/tmp/nsstress.own.XXXXXX");
		if (!mkdtemp(own_dir))
			die("mkdtemp");
	}
	if (mount("none", dir, "namespacefs", 0, NULL) < 0) {
		unexpected("mount namespacefs", dir, errno);
		return;
	}
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0)
		die("inotify_init1");
	for (unsigned int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, subdirs[i]);
		if (inotify_add_watch(fd, path, IN_CREATE | IN_DELETE | IN_ONLYDIR) < 0)
			unexpected("inotify_add_watch", path, errno);
	}
	/* Sometimes at once, sometimes once events have come. */
	for (int i = below(4) * 20; i > 0 && read(fd, buf, sizeof(buf)) <= 0; i--)
		usleep(500);
	if (umount2(dir, MNT_DETACH) < 0)
		unexpected("umount2", dir, errno);
	count(C_UMOUNT, 1);
	while (read(fd, buf, sizeof(buf)) > 0)
		count(C_EVENTS, 1);
	close(fd);
}

static void reader(void)
{
	remember(mount_dir);
	while (time_left()) {
		switch (below(16)) {
		case 0 ... 4:
			TIMED(S_GETDENTS, op_getdents());
			break;
		case 5 ... 10:
			TIMED(S_READ, op_read());
			break;
		case 11 ... 12:
			TIMED(S_STAT, op_stat());
			break;
		case 13:
			TIMED(S_READLINK, op_readlink());
			break;
		case 14:
			TIMED(S_WATCH, op_watch());
			break;
		case 15:
			/* It mostly waits, for the namespace to die. */
			if (!below(16))
				TIMED(S_DEATH, op_death());
			else if (unprivileged && below(2))
				TIMED(S_UMOUNT, op_umount());
			else
				TIMED(S_GETDENTS, op_getdents());
			break;
		}
	}
	if (own_dir[0])
		rmdir(own_dir);
}

/* ---- Writers ------------------------------------------------------- */

/* Make the calling process's user namespace map root to its parent's root. */
static bool map_root(void)
{
	static const char *const maps[][2] = {
		{ "/proc/self/setgroups", "deny" },
		{ "/proc/self/uid_map", "0 0 1" },
		{ "/proc/self/gid_map", "0 0 1" },
	};

	for (int i = 0; i < 3; i++) {
		int fd = open(maps[i][0], O_WRONLY | O_CLOEXEC);
		bool ok = fd >= 0 && write(fd, maps[i][1], strlen(maps[i][1])) > 0;

		if (fd >= 0)
			close(fd);
		if (!ok)
			return false;
	}
	return true;
}

/* Run FN in a child and wait for it. */
static void in_child(void (*fn)(void))
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		fn();
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

/* Flat namespaces made again and again, each replacing the one before. */
static void w_flat(void)
{
	int rounds = 20 + below(60);

	for (int i = 0; i < rounds; i++) {
		/* The cheap types most often, so that the run makes many. */
		int flags = CLONE_NEWUTS;

		if (below(2))
			flags |= CLONE_NEWCGROUP;
		if (!below(4))
			flags |= CLONE_NEWTIME;
		/*
		 * On the debug kernel a uts, cgroup or time namespace costs
		 * 0.3 ms, an ipc one (it mounts an mqueue file system) 3 ms,
		 * a mount namespace 6 ms, a network namespace 90 ms and as
		 * much again to tear down: the costly ones are rarer, and
		 * the network's have steps of their own (all, setns, hold).
		 */
		if (!below(32))
			flags |= CLONE_NEWIPC;
		if (!below(32))
			flags |= CLONE_NEWNS;
		if (!below(1024))
			flags |= CLONE_NEWNET;
		make(flags, "flat");
	}
}

/* A chain of nested pid namespaces, a process in each. */
static void w_pid_chain(void)
{
	int depth = 1 + below(6);

	for (int d = 0; d < depth; d++) {
		pid_t pid;

		if (!make(CLONE_NEWPID | (below(4) ? 0 : CLONE_NEWUTS), "pid chain"))
			return;
		pid = fork();
		if (pid < 0)
			return;
		if (pid > 0) {
			waitpid(pid, NULL, 0);
			return;
		}
	}
}

/* A chain of nested user namespaces, some with a uts namespace each. */
static void w_user_chain(void)
{
	int depth = 1 + below(8);

	for (int d = 0; d < depth; d++) {
		if (!make(CLONE_NEWUSER | (below(2) ? CLONE_NEWUTS : 0), "user chain"))
			return;
		if (!map_root()) {
			fail("user chain: mapping root at level %d: %s", d + 1, strerrorname_np(errno));
			return;
		}
	}
}

/* All eight types in one call, and a process in the new pid namespace. */
static void w_all(void)
{
	if (make(ALL_FLAGS, "all"))
		in_child(w_flat);
}

static void release(pid_t pid, int fd, bool kill_it)
{
	if (kill_it)
		kill(pid, SIGKILL);
	close(fd);
	waitpid(pid, NULL, 0);
}

/* What a writer holds: bind mounts of nsfs files, open nsfs files. */
#define MAX_HELD 16
static char holder_dir[256];
static char *held_mounts[MAX_HELD];
static int held_fds[MAX_HELD];
static unsigned int nmounts, nfds, mount_seq;

static const struct ns_type *random_type(void)
{
	return &types[below(NTYPES)];
}

static void w_hold(void)
{
	const struct ns_type *t = random_type();
	char src[64], dst[PATH_MAX];
	int rel, fd;
	pid_t pid;

	pid = spawn_ns(t->flag, &rel, NULL);
	if (pid < 0)
		return;
	snprintf(src, sizeof(src), "/proc/%d/ns/%s", pid, t->file);
	if (below(2) && nmounts < MAX_HELD) {
		snprintf(dst, sizeof(dst), "%s/%u", holder_dir, mount_seq++);
		fd = open(dst, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
		if (mount(src, dst, NULL, MS_BIND, NULL) == 0) {
			held_mounts[nmounts++] = strdup(dst);
			count(C_HELD, 1);
		} else if (errno != EINVAL) {	/* EINVAL: a mount namespace loop */
			fail("bind mount %s (%s): %s", src, t->name, strerrorname_np(errno));
		}
	} else if (nfds < MAX_HELD) {
		fd = open(src, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			held_fds[nfds++] = fd;
			count(C_HELD, 1);
		} else {
			fail("open %s: %s", src, strerrorname_np(errno));
		}
	}
	release(pid, rel, below(2));
}

static void w_unhold(bool all)
{
	while (nmounts && (all || below(2))) {
		unsigned int i = below(nmounts);

		if (umount2(held_mounts[i], MNT_DETACH) < 0)
			fail("umount %s: %s", held_mounts[i], strerrorname_np(errno));
		unlink(held_mounts[i]);
		free(held_mounts[i]);
		held_mounts[i] = held_mounts[--nmounts];
	}
	while (nfds && (all || below(2))) {
		unsigned int i = below(nfds);

		close(held_fds[i]);
		held_fds[i] = held_fds[--nfds];
	}
}

/* setns() into namespaces whose last process is being killed. */
static void w_setns_dying(void)
{
	int flags = CLONE_NEWUTS | CLONE_NEWIPC | (below(4) ? 0 : CLONE_NEWNET);
	int rel, pidfd, nsfd;
	char src[64];
	pid_t pid, helper;

	pid = spawn_ns(flags, &rel, NULL);
	if (pid < 0)
		return;
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	snprintf(src, sizeof(src), "/proc/%d/ns/uts", pid);
	nsfd = open(src, O_RDONLY | O_CLOEXEC);
	if (pidfd < 0 || nsfd < 0)
		fail("setns: pidfd_open or open %s: %s", src, strerrorname_np(errno));
	helper = fork();
	if (helper < 0)
		die("fork");
	if (helper == 0) {
		/* Races with the kill: ESRCH once the process is gone. */
		if (pidfd >= 0 && setns(pidfd, flags) < 0 && errno != ESRCH)
			fail("setns(pidfd of a dying process): %s", strerrorname_np(errno));
		count(C_SETNS, 1);
		/* An nsfs file holds its namespace: this one must succeed. */
		if (nsfd >= 0 && setns(nsfd, CLONE_NEWUTS) < 0)
			fail("setns(nsfs file of a dying process): %s", strerrorname_np(errno));
		count(C_SETNS, 1);
		_exit(0);
	}
	release(pid, rel, true);
	waitpid(helper, NULL, 0);
	if (pidfd >= 0)
		close(pidfd);
	if (nsfd >= 0)
		close(nsfd);
}

/* An anonymous mount namespace: a detached copy of a mount. */
static void w_anon(void)
{
	int fd = syscall(SYS_open_tree, AT_FDCWD, holder_dir, OPEN_TREE_CLONE | O_CLOEXEC);

	if (fd < 0) {
		fail("open_tree(%s, OPEN_TREE_CLONE): %s", holder_dir, strerrorname_np(errno));
		return;
	}
	count(C_ANON, 1);
	close(fd);
}

static void writer(void)
{
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("none", holder_dir, "tmpfs", 0, NULL) < 0)
		die("writer: a mount namespace with a tmpfs of its own");
	while (time_left()) {
		/* All eight types at once, a network namespace among them, cost the most. */
		switch (below(32)) {
		case 0 ... 12:
			TIMED(S_FLAT, in_child(w_flat));
			break;
		case 13 ... 16:
			TIMED(S_PID, in_child(w_pid_chain));
			break;
		case 17 ... 20:
			TIMED(S_USER, in_child(w_user_chain));
			break;
		case 21:
			TIMED(S_ALL, in_child(w_all));
			break;
		case 22 ... 24:
			TIMED(S_HOLD, w_hold());
			break;
		case 25 ... 26:
			TIMED(S_UNHOLD, w_unhold(false));
			break;
		case 27 ... 29:
			TIMED(S_SETNS, w_setns_dying());
			break;
		case 30 ... 31:
			TIMED(S_ANON, w_anon());
			break;
		}
	}
	w_unhold(true);
}

/* ---- The run ------------------------------------------------------- */

static uint64_t seed;

/* Fork a process that runs FN with its own random stream. */
static pid_t start(void (*fn)(void), uint64_t role)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		seed_rng(seed, role);
		fn();
		_exit(0);
	}
	return pid;
}

static void wait_all(void)
{
	while (wait(NULL) > 0 || errno == EINTR)
		;
}

static int nreaders = 3;
static uid_t container_uid = 1000;
static char container_dir[2][PATH_MAX];

static bool write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s);

	if (fd >= 0)
		close(fd);
	return ok;
}

/* A container (0: privileged, 1: unprivileged) whose readers use its own mount. */
static void container(int which)
{
	char map[64];
	pid_t init;

	unprivileged = which == 1;
	current_mount = unprivileged ? "unprivileged container" : "privileged container";
	mount_dir = container_dir[which];
	if (unprivileged) {
		if (setgroups(0, NULL) < 0 || setresgid(container_uid, container_uid, container_uid) < 0 ||
		    setresuid(container_uid, container_uid, container_uid) < 0)
			die("container: becoming the unprivileged user");
		/* Back to owning /proc/self after the change of user. */
		prctl(PR_SET_DUMPABLE, 1);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) < 0)
			die("container: unshare");
		snprintf(map, sizeof(map), "0 %u 1", container_uid);
		if (!write_file("/proc/self/setgroups", "deny") ||
		    !write_file("/proc/self/uid_map", map) || !write_file("/proc/self/gid_map", map))
			die("container: mapping root");
	} else if (unshare(CLONE_NEWNS | CLONE_NEWPID) < 0) {
		die("container: unshare");
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die("container: private mounts");
	init = fork();
	if (init < 0)
		die("fork");
	if (init == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (mount("none", mount_dir, "namespacefs", 0, NULL) < 0) {
			fail("mount namespacefs on %s: %s", mount_dir, strerrorname_np(errno));
			_exit(1);
		}
		for (int i = 0; i < nreaders; i++)
			start(reader, 10 + which * 10 + i);
		wait_all();
		_exit(0);
	}
	wait_all();
}

static void container_privileged(void) { container(0); }
static void container_unprivileged(void) { container(1); }

static int usage(void)
{
	fputs("usage: nsstress [-v] [-t SECONDS] [-s SEED] [-w WRITERS] [-r READERS] [-u UID] MOUNT\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	int seconds = 120, nwriters = 6, opt;
	bool verbose = false;
	uint64_t ops = 0;
	long long start_ms;
	bool seeded = false;

	while ((opt = getopt(argc, argv, "t:s:w:r:u:v")) != -1) {
		switch (opt) {
		case 'v':
			verbose = true;
			break;
		case 't':
			seconds = atoi(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			seeded = true;
			break;
		case 'w':
			nwriters = atoi(optarg);
			break;
		case 'r':
			nreaders = atoi(optarg);
			break;
		case 'u':
			container_uid = atoi(optarg);
			break;
		default:
			return usage();
		}
	}
	if (optind != argc - 1 || seconds <= 0)
		return usage();
	if (!seeded) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000000007ULL ^ ts.tv_nsec ^ getpid();
	}
	printf("nsstress: seed %llu (replay with -s %llu), %d s, %d writers, %d readers in each of 3 mounts\n",
	       (unsigned long long)seed, (unsigned long long)seed, seconds, nwriters, nreaders);
	fflush(stdout);

	counters = mmap(NULL, (C_COUNT + S_COUNT) * sizeof(*counters), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counters == MAP_FAILED)
		die("mmap");
	step_us = counters + C_COUNT;
	for (int i = 0; i < 2; i++) {
		snprintf(container_dir[i], PATH_MAX, "/tmp/nsstress.%d.XXXXXX", i);
		if (!mkdtemp(container_dir[i]) || chmod(container_dir[i], 0755) < 0)
			die("mkdtemp");
	}
	snprintf(holder_dir, sizeof(holder_dir), "/tmp/nsstress.held.XXXXXX");
	if (!mkdtemp(holder_dir))
		die("mkdtemp");

	start_ms = now_ms();
	deadline_ms = start_ms + seconds * 1000LL;
	mount_dir = argv[optind];
	current_mount = "host";
	for (int i = 0; i < nwriters; i++)
		start(writer, 100 + i);
	for (int i = 0; i < nreaders; i++)
		start(reader, i);
	start(container_privileged, 50);
	start(container_unprivileged, 60);
	wait_all();

	for (int i = 0; i < 2; i++)
		rmdir(container_dir[i]);
	rmdir(holder_dir);
	for (int c = C_OPEN; c <= C_WATCH; c++)
		ops += counters[c];
	printf("nsstress: seed %llu, %.1f s, %llu namespaces created, %llu file operations (",
	       (unsigned long long)seed, (now_ms() - start_ms) / 1000.0,
	       (unsigned long long)counters[C_CREATED], (unsigned long long)ops);
	for (int c = C_OPEN; c < C_COUNT; c++)
		printf("%s%s %llu", c == C_OPEN ? "" : ", ", counter_names[c],
		       (unsigned long long)counters[c]);
	printf(")\n");
	if (verbose) {
		printf("nsstress: seconds spent in");
		for (int i = 0; i < S_COUNT; i++)
			printf("%s %s %.1f", i ? "," : "", step_names[i], step_us[i] / 1e6);
		printf("\n");
	}
	return counters[C_FAILED] ? 1 : 0;
}
