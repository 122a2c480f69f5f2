// SPDX-License-Identifier: GPL-2.0-only
/*
 * nsfs: show the namespaces of the machine, from namespacefs or from /proc.
 *
 *   nsfs [tree] [options]     every namespace as a tree (or a list)
 *   nsfs containers [options] the pid namespaces that have processes
 *   nsfs watch [options]      namespaces appearing and disappearing
 *
 * Tables, trees and JSON are drawn by libsmartcols, as lsns does. See
 * nsfs(1) and `nsfs --help`. Exit status: 0 success, 1 error, 2 usage.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libsmartcols.h>
#include <limits.h>
#include <linux/nsfs.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef NS_GET_ID
#define NS_GET_ID _IOR(NSIO, 13, uint64_t)
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif

#define NAMESPACEFS_MAGIC 0x4e534653
#define DEFAULT_ROOT "/sys/fs/namespaces"

#define EXIT_USAGE 2

/* ---------------------------------------------------------------- utils */

static const char *prog = "nsfs";

static void die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_FAILURE);
}

static void warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warnx(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		die("out of memory");
	return p;
}

static void *xzalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	return s;
}

/* Reads a whole file. Returns 0 and a NUL-terminated *out, or -errno. */
static int read_text(const char *path, char **out)
{
	size_t len = 0, cap = 4096;
	char *buf;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = xrealloc(NULL, cap);
	for (;;) {
		if (cap - len < 2) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			close(fd);
			free(buf);
			return err;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* Removes trailing newlines and blanks. */
static char *chomp(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return false;
	*v = x;
	return true;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	bool text = false;

	for (; *s; s++) {
		if (*s == '\n') {
			n += text;
			text = false;
		} else {
			text = true;
		}
	}
	return n + text;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* ------------------------------------------------------- namespace types */

enum nstype { T_CGROUP, T_IPC, T_MNT, T_NET, T_PID, T_TIME, T_USER, T_UTS, NTYPES };

static const struct {
	const char *name;
	int flag;
	bool nested;
} types[NTYPES] = {
	[T_CGROUP] = { "cgroup", CLONE_NEWCGROUP, false },
	[T_IPC] = { "ipc", CLONE_NEWIPC, false },
	[T_MNT] = { "mnt", CLONE_NEWNS, false },
	[T_NET] = { "net", CLONE_NEWNET, false },
	[T_PID] = { "pid", CLONE_NEWPID, true },
	[T_TIME] = { "time", CLONE_NEWTIME, false },
	[T_USER] = { "user", CLONE_NEWUSER, true },
	[T_UTS] = { "uts", CLONE_NEWUTS, false },
};

static int type_by_name(const char *name)
{
	for (int t = 0; t < NTYPES; t++)
		if (!strcmp(types[t].name, name))
			return t;
	return -1;
}

static int type_by_flag(int flag)
{
	for (int t = 0; t < NTYPES; t++)
		if (types[t].flag == flag)
			return t;
	return -1;
}

/* ------------------------------------------------------------ the model */

struct ns {
	int type;
	uint64_t inum, id;
	bool has_inum, has_id;
	bool is_root;		/* the type's root: the viewer's own namespace */
	char *path;		/* namespacefs directory, or a /proc path */
	int fd;			/* --proc: an nsfs file descriptor, or -1 */

	struct ns *parent;	/* pid and user: the parent namespace */
	uint64_t parent_inum;
	bool has_parent;
	struct ns *owner;	/* the owning user namespace */
	uint64_t owner_inum;
	bool has_owner, owner_is_user_root;

	uid_t uid;		/* creator of the owning user namespace */
	bool has_uid;
	int level;
	bool has_level;

	pid_t *procs;
	size_t nprocs;
	bool procs_known;

	char *hostname;		/* uts */
	char *detail;

	bool enoent;		/* a file read gave ENOENT */
	bool shown, needed;

	struct ns **kids;	/* nested children, sorted by inum */
	size_t nkids;
	struct ns **owned;	/* user: the other namespaces it owns */
	size_t nowned;
};

struct nsset {
	struct ns **v;
	size_t n;
	struct ns **hash;	/* open addressing on (type, inum) */
	size_t hcap, hn;
	struct ns *root[NTYPES];
	const char *rootdir;
	bool is_nsfs;		/* rootdir is a real namespacefs mount */
	bool proc;
	unsigned int denied_files;
	unsigned int denied_procs;
	bool no_nsid;
	bool members;		/* process lists came from the members file */
	/* What no column asked for is not read. */
	bool skip_procs, skip_uid, skip_detail;
};

static size_t ns_hash(int type, uint64_t inum, size_t cap)
{
	uint64_t h = (inum * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)type;

	return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static struct ns *ns_find(struct nsset *s, int type, uint64_t inum)
{
	size_t i;

	if (!s->hcap)
		return NULL;
	for (i = ns_hash(type, inum, s->hcap); s->hash[i];
	     i = (i + 1) & (s->hcap - 1))
		if (s->hash[i]->type == type && s->hash[i]->inum == inum)
			return s->hash[i];
	return NULL;
}

static void hash_put(struct nsset *s, struct ns *ns)
{
	size_t i;

	if ((s->hn + 1) * 2 > s->hcap) {
		struct ns **old = s->hash;
		size_t oldcap = s->hcap;

		s->hcap = s->hcap ? s->hcap * 2 : 64;
		s->hash = xzalloc(s->hcap * sizeof(*s->hash));
		s->hn = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i])
				hash_put(s, old[i]);
		free(old);
	}
	for (i = ns_hash(ns->type, ns->inum, s->hcap); s->hash[i];
	     i = (i + 1) & (s->hcap - 1))
		;
	s->hash[i] = ns;
	s->hn++;
}

static struct ns *ns_new(int type)
{
	struct ns *ns = xzalloc(sizeof(*ns));

	ns->type = type;
	ns->fd = -1;
	return ns;
}

static void ns_free(struct ns *ns)
{
	if (ns->fd >= 0)
		close(ns->fd);
	free(ns->path);
	free(ns->procs);
	free(ns->hostname);
	free(ns->detail);
	free(ns->kids);
	free(ns->owned);
	free(ns);
}

static void ns_add(struct nsset *s, struct ns *ns)
{
	if (!(s->n & (s->n + 1)) || !s->n)
		s->v = xrealloc(s->v, (s->n * 2 + 2) * sizeof(*s->v));
	s->v[s->n++] = ns;
	if (ns->has_inum)
		hash_put(s, ns);
}

static void add_ptr(struct ns ***v, size_t *n, struct ns *ns)
{
	/* Room for twice as many at each power of two: O(1) amortized. */
	if (!(*n & (*n - 1)))
		*v = xrealloc(*v, (*n ? 2 * *n : 1) * sizeof(**v));
	(*v)[(*n)++] = ns;
}

static int cmp_ns(const void *a, const void *b)
{
	const struct ns *x = *(struct ns *const *)a, *y = *(struct ns *const *)b;

	if (x->type != y->type)
		return x->type - y->type;
	if (x->is_root != y->is_root)
		return x->is_root ? -1 : 1;
	return (x->inum > y->inum) - (x->inum < y->inum);
}

static bool has_pid(const struct ns *ns, pid_t pid)
{
	return ns->nprocs &&
	       bsearch(&pid, ns->procs, ns->nprocs, sizeof(pid_t), cmp_pid);
}

static void parse_pids(struct ns *ns, const char *text)
{
	const char *p = text;
	size_t cap = 0;

	ns->nprocs = 0;
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p) {
			p++;
			continue;
		}
		if (ns->nprocs == cap) {
			cap = cap ? cap * 2 : 16;
			ns->procs = xrealloc(ns->procs, cap * sizeof(pid_t));
		}
		ns->procs[ns->nprocs++] = (pid_t)v;
		p = end;
	}
	if (ns->nprocs > 1)
		qsort(ns->procs, ns->nprocs, sizeof(pid_t), cmp_pid);
	ns->procs_known = true;
}

static void add_pid(struct ns *ns, pid_t pid)
{
	if (!(ns->nprocs & (ns->nprocs + 1)) || !ns->nprocs)
		ns->procs = xrealloc(ns->procs,
				     (ns->nprocs * 2 + 2) * sizeof(pid_t));
	ns->procs[ns->nprocs++] = pid;
	ns->procs_known = true;
}

/* ------------------------------------------------------ detail formats */

/* "0 1000 1" -> "0->1000+1"; more lines add ",...". */
static char *compact_idmap(const char *map)
{
	unsigned long long in, out, count;
	size_t lines = count_lines(map);

	if (!lines)
		return xstrdup("unmapped");
	if (sscanf(map, "%llu %llu %llu", &in, &out, &count) != 3)
		return NULL;
	return xasprintf("%llu->%llu+%llu%s", in, out, count,
			 lines > 1 ? ",..." : "");
}

static void format_offset(char *buf, size_t size, long long sec, long nsec)
{
	char frac[16] = "";
	int n;

	if (nsec > 0 && nsec < 1000000000L) {
		const char *sign = "";

		if (sec < 0) {
			sign = "-";
			sec = -sec - 1;
			nsec = 1000000000L - nsec;
		}
		snprintf(frac, sizeof(frac), ".%09ld", nsec);
		for (n = (int)strlen(frac); n > 1 && frac[n - 1] == '0'; n--)
			frac[n - 1] = '\0';
		snprintf(buf, size, "%s%lld%ss", sign, sec, frac);
		return;
	}
	snprintf(buf, size, "%llds", sec);
}

/* The timens_offsets format -> "monotonic 5s boottime 0s". */
static char *compact_offsets(const char *text)
{
	char *copy = xstrdup(text), *line, *save = NULL, *out = NULL;

	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char clock[32], val[48], *next;
		long long sec;
		long nsec;

		if (sscanf(line, "%31s %lld %ld", clock, &sec, &nsec) != 3)
			continue;
		format_offset(val, sizeof(val), sec, nsec);
		next = xasprintf("%s%s%s %s", out ? out : "", out ? " " : "",
				 clock, val);
		free(out);
		out = next;
	}
	free(copy);
	return out;
}

static char *plural(size_t n, const char *what)
{
	return xasprintf("%zu %s%s", n, what, n == 1 ? "" : "s");
}

static char *ipc_detail(char *const vals[4])
{
	return xasprintf("msg %s sem %s shm %s mq %s",
			 vals[0] ? vals[0] : "?", vals[1] ? vals[1] : "?",
			 vals[2] ? vals[2] : "?", vals[3] ? vals[3] : "?");
}

/* ------------------------------------------------ namespacefs as source */

static char *fs_read(struct nsset *s, struct ns *ns, const char *file)
{
	char *path = xasprintf("%s/%s", ns->path, file), *text = NULL;
	int err = read_text(path, &text);

	free(path);
	if (err == -EACCES || err == -EPERM)
		s->denied_files++;
	else if (err == -ENOENT)
		ns->enoent = true;
	return err ? NULL : chomp(text);
}

static bool fs_read_u64(struct nsset *s, struct ns *ns, const char *file,
			uint64_t *v)
{
	char *t = fs_read(s, ns, file);
	bool ok = t && parse_u64(t, v);

	free(t);
	return ok;
}

static void fs_read_owner(struct ns *ns)
{
	char *path = xasprintf("%s/owner", ns->path);
	char link[PATH_MAX];
	const char *last;
	ssize_t n;

	n = readlink(path, link, sizeof(link) - 1);
	free(path);
	if (n <= 0)
		return;
	link[n] = '\0';
	while (n > 1 && link[n - 1] == '/')
		link[--n] = '\0';
	last = strrchr(link, '/');
	last = last ? last + 1 : link;
	if (all_digits(last)) {
		ns->has_owner = parse_u64(last, &ns->owner_inum);
	} else if (!strcmp(last, types[T_USER].name)) {
		ns->has_owner = true;
		ns->owner_is_user_root = true;
	}
}

static void fs_read_detail(struct nsset *s, struct ns *ns)
{
	static const char *const ipc_files[4] = {
		"msg_queues", "sem_arrays", "shm_segments", "mq_queues"
	};
	char *t = NULL, *vals[4];
	uint64_t v;

	switch (ns->type) {
	case T_PID:
	case T_USER:
		if (fs_read_u64(s, ns, "level", &v)) {
			ns->level = (int)v;
			ns->has_level = true;
		}
		if (ns->type == T_USER && (t = fs_read(s, ns, "uid_map")))
			ns->detail = compact_idmap(t);
		break;
	case T_UTS:
		ns->hostname = fs_read(s, ns, "hostname");
		if (ns->hostname)
			ns->detail = xstrdup(ns->hostname);
		break;
	case T_IPC:
		for (int i = 0; i < 4; i++)
			vals[i] = fs_read(s, ns, ipc_files[i]);
		ns->detail = ipc_detail(vals);
		for (int i = 0; i < 4; i++)
			free(vals[i]);
		break;
	case T_NET:
		if ((t = fs_read(s, ns, "devices")))
			ns->detail = plural(count_lines(t), "device");
		break;
	case T_MNT:
		if (fs_read_u64(s, ns, "mounts", &v))
			ns->detail = plural(v, "mount");
		break;
	case T_CGROUP:
		ns->detail = fs_read(s, ns, "root");
		break;
	case T_TIME:
		if ((t = fs_read(s, ns, "offsets")))
			ns->detail = compact_offsets(t);
		break;
	}
	free(t);
}

/* A namespace's processes from its procs file, unless members gives them. */
static void fs_read_procs(struct nsset *s, struct ns *ns)
{
	char *text;

	if (s->members || s->skip_procs)
		return;
	text = fs_read(s, ns, "procs");
	if (text) {
		parse_pids(ns, text);
		free(text);
	}
}

/* The UID that owns a namespace's files: the creator of its owner. */
static void fs_read_uid(struct nsset *s, struct ns *ns)
{
	struct stat st;
	char *path;

	if (s->skip_uid)
		return;
	path = xasprintf("%s/id", ns->path);
	if (stat(path, &st) == 0 || stat(ns->path, &st) == 0) {
		ns->uid = st.st_uid;
		ns->has_uid = true;
	}
	free(path);
}

/* Whether a namespace whose file was missing is gone altogether. */
static bool fs_gone(const struct ns *ns)
{
	struct stat st;

	return ns->enoent && stat(ns->path, &st) < 0 && errno == ENOENT;
}

/* Reads a namespace's files. Returns false if the namespace is gone. */
static bool fs_read_ns(struct nsset *s, struct ns *ns)
{
	struct stat st;

	ns->has_id = fs_read_u64(s, ns, "id", &ns->id);
	if (ns->is_root) {
		ns->has_inum = fs_read_u64(s, ns, "inum", &ns->inum);
		/* A directory's inode number is the namespace's. */
		if (!ns->has_inum && s->is_nsfs && stat(ns->path, &st) == 0) {
			ns->inum = st.st_ino;
			ns->has_inum = true;
		}
	}
	fs_read_procs(s, ns);
	fs_read_uid(s, ns);
	if (ns->type != T_USER)
		fs_read_owner(ns);
	if (!s->skip_detail)
		fs_read_detail(s, ns);
	return !fs_gone(ns);
}

/*
 * Builds the model from the namespaces file at the root of the mount, which
 * lists every namespace with its id, parent, owner and UID in one read, and
 * reads from each namespace's directory only what a column needs. False if
 * there is no such file (an older kernel, a copy).
 */
static bool fs_load_list(struct nsset *s)
{
	char *path = xasprintf("%s/namespaces", s->rootdir), *line = NULL;
	FILE *f = fopen(path, "re");
	bool seen[NTYPES] = { false };
	unsigned long lineno = 0;
	size_t cap = 0;

	free(path);
	if (!f)
		return false;
	while (getline(&line, &cap, f) > 0) {
		char *field, *save = NULL;
		uint64_t v[5];
		struct ns *ns, *parent;
		int t = -1, n = 0;

		lineno++;
		/* TYPE INUM ID PARENT OWNER UID */
		for (field = strtok_r(line, " \n", &save); field;
		     field = strtok_r(NULL, " \n", &save), n++) {
			if (!n)
				t = type_by_name(field);
			else if (n > 5 || !all_digits(field) ||
				 !parse_u64(field, &v[n - 1]))
				break;
		}
		if (field || n != 6 || t < 0 || !v[0] || !v[1] ||
		    v[0] > UINT32_MAX || v[2] > UINT32_MAX || v[3] > UINT32_MAX ||
		    v[4] > UINT32_MAX || (v[2] && !types[t].nested))
			die("%s/namespaces:%lu: not a line of the namespaces file",
			    s->rootdir, lineno);
		ns = ns_new(t);
		ns->inum = v[0];
		ns->has_inum = true;
		ns->id = v[1];
		ns->has_id = true;
		/* A type's directory first, then what it holds. */
		ns->is_root = !seen[t];
		seen[t] = true;
		if (types[t].nested && ns->is_root != !v[2])
			die("%s/namespaces:%lu: not a line of the namespaces file",
			    s->rootdir, lineno);
		if (v[2]) {
			/* Listed before it, unless it went meanwhile. */
			parent = ns_find(s, t, v[2]);
			if (!parent) {
				ns_free(ns);
				continue;
			}
			ns->parent = parent;
			ns->has_parent = true;
			ns->parent_inum = v[2];
			ns->path = xasprintf("%s/%llu", parent->path,
					     (unsigned long long)v[0]);
		} else if (ns->is_root) {
			ns->path = xasprintf("%s/%s", s->rootdir, types[t].name);
		} else {
			ns->path = xasprintf("%s/%s/%llu", s->rootdir,
					     types[t].name,
					     (unsigned long long)v[0]);
		}
		if (v[3] && t != T_USER) {
			ns->has_owner = true;
			ns->owner_inum = v[3];
		}
		/* What stat() of its directory would say. */
		ns->uid = (uid_t)v[4];
		ns->has_uid = true;
		fs_read_procs(s, ns);
		/* Levels below a type's directory follow from its own. */
		if (!s->skip_detail && (ns->is_root || !types[t].nested ||
					t == T_USER))
			fs_read_detail(s, ns);
		if (fs_gone(ns)) {
			ns_free(ns);
			continue;
		}
		ns_add(s, ns);
		if (ns->is_root)
			s->root[t] = ns;
	}
	if (ferror(f))
		die("%s/namespaces: %s", s->rootdir, strerror(errno));
	free(line);
	fclose(f);
	return true;
}

struct dirent_num {
	uint64_t inum;
	char *name;
};

static int cmp_dirent_num(const void *a, const void *b)
{
	const struct dirent_num *x = a, *y = b;

	return (x->inum > y->inum) - (x->inum < y->inum);
}

/* The subdirectories of @path named by a number, sorted. */
static size_t list_ns_dirs(const char *path, struct dirent_num **out)
{
	struct dirent_num *v = NULL;
	struct dirent *de;
	size_t n = 0;
	DIR *dir;

	*out = NULL;
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		uint64_t inum;

		if (!all_digits(de->d_name) || !parse_u64(de->d_name, &inum))
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			if (fstatat(dirfd(dir), de->d_name, &st, 0) < 0 ||
			    !S_ISDIR(st.st_mode))
				continue;
		}
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n].inum = inum;
		v[n].name = xstrdup(de->d_name);
		n++;
	}
	closedir(dir);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_dirent_num);
	*out = v;
	return n;
}

static void fs_load_dir(struct nsset *s, int type, const char *path,
			struct ns *parent, bool is_root, uint64_t inum)
{
	struct dirent_num *sub;
	struct ns *ns = ns_new(type);
	size_t n;

	ns->path = xstrdup(path);
	ns->is_root = is_root;
	if (!is_root) {
		ns->inum = inum;
		ns->has_inum = true;
	}
	if (!fs_read_ns(s, ns)) {
		ns_free(ns);
		return;
	}
	if (types[type].nested && parent) {
		ns->parent = parent;
		ns->has_parent = parent->has_inum;
		ns->parent_inum = parent->inum;
	}
	ns_add(s, ns);
	if (is_root)
		s->root[type] = ns;
	if (!is_root && !types[type].nested)
		return;
	n = list_ns_dirs(path, &sub);
	for (size_t i = 0; i < n; i++) {
		char *child = xasprintf("%s/%s", path, sub[i].name);

		fs_load_dir(s, type, child, types[type].nested ? ns : NULL,
			    false, sub[i].inum);
		free(child);
		free(sub[i].name);
	}
	free(sub);
}

/*
 * A line of the members file: "PID TGID" and the inode number of the task's
 * namespace of each type, in the order of enum nstype (the root directory's
 * order), 0 where the mount does not show it.
 */
struct member {
	pid_t pid, tgid;
	uint64_t inum[NTYPES];
};

/* Parses a line of the members file; false unless it is well formed. */
static bool parse_member(char *line, struct member *m)
{
	char *field, *save = NULL;
	uint64_t v[NTYPES + 2];
	int n = 0;

	for (field = strtok_r(line, " \n", &save); field;
	     field = strtok_r(NULL, " \n", &save)) {
		if (n == NTYPES + 2 || !all_digits(field) ||
		    !parse_u64(field, &v[n]))
			return false;
		n++;
	}
	if (n != NTYPES + 2 || !v[0] || v[0] > INT_MAX || !v[1] ||
	    v[1] > INT_MAX)
		return false;
	m->pid = (pid_t)v[0];
	m->tgid = (pid_t)v[1];
	for (int t = 0; t < NTYPES; t++)
		m->inum[t] = v[t + 2];
	return true;
}

/*
 * Opens the members file at the root of the mount, which lists every task
 * with its namespaces in one read: much cheaper than a procs file per
 * namespace, each of which may walk every process. NULL if there is none
 * (an older kernel, a copy) or it may not be read.
 */
static FILE *fs_open_members(struct nsset *s)
{
	char *path = xasprintf("%s/members", s->rootdir);
	FILE *f = fopen(path, "re");

	if (!f && (errno == EACCES || errno == EPERM))
		s->denied_files++;
	free(path);
	return f;
}

/* Gives each namespace its processes from the members file. */
static void fs_read_members(struct nsset *s, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	struct member m;
	unsigned long lineno = 0;

	while (getline(&line, &cap, f) > 0) {
		lineno++;
		if (!parse_member(line, &m))
			die("%s/members:%lu: not a line of the members file",
			    s->rootdir, lineno);
		if (m.pid != m.tgid)
			continue;
		for (int t = 0; t < NTYPES; t++) {
			struct ns *ns = m.inum[t] ? ns_find(s, t, m.inum[t]) :
						    NULL;

			/* The file is in PID order: each list stays sorted. */
			if (ns)
				add_pid(ns, m.pid);
		}
	}
	if (ferror(f))
		die("%s/members: %s", s->rootdir, strerror(errno));
	free(line);
	for (size_t i = 0; i < s->n; i++)
		s->v[i]->procs_known = true;
}

static void fs_load(struct nsset *s)
{
	FILE *members = s->skip_procs ? NULL : fs_open_members(s);

	s->members = members;
	if (fs_load_list(s))
		goto procs;
	for (int t = 0; t < NTYPES; t++) {
		char *path = xasprintf("%s/%s", s->rootdir, types[t].name);
		struct stat st;

		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			fs_load_dir(s, t, path, NULL, true, 0);
		free(path);
	}
procs:
	if (members) {
		fs_read_members(s, members);
		fclose(members);
	}
}

/* Whether @dir has a namespacefs layout: a type directory with an id. */
static bool looks_like_namespacefs(const char *dir)
{
	for (int t = 0; t < NTYPES; t++) {
		char *path = xasprintf("%s/%s/id", dir, types[t].name);
		bool ok = access(path, F_OK) == 0;

		free(path);
		if (ok)
			return true;
	}
	return false;
}

/*
 * Checks the namespacefs mount to read. The default must be a real
 * namespacefs; a directory given with --root may also be a copy of one.
 */
static void check_root(struct nsset *s, bool explicit)
{
	struct statfs sfs;

	if (statfs(s->rootdir, &sfs) < 0) {
		if (!explicit && errno == ENOENT)
			die("%s does not exist: this kernel has no namespacefs",
			    s->rootdir);
		die("%s: %s", s->rootdir, strerror(errno));
	}
	if ((unsigned long)sfs.f_type == NAMESPACEFS_MAGIC) {
		s->is_nsfs = true;
		return;
	}
	if (explicit && looks_like_namespacefs(s->rootdir))
		return;
	die("%s is not a namespacefs mount; mount it with: "
	    "mount -t namespacefs namespacefs %s", s->rootdir,
	    explicit ? s->rootdir : DEFAULT_ROOT);
}

/* ------------------------------------------------------- /proc as source */

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (1 << 20))
		rl.rlim_max = 1 << 20;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * Each namespace found through /proc is kept open (for its ioctls, and so
 * that its inode number stays its own): running out of descriptors would
 * silently drop namespaces, so it is an error.
 */
static void check_nofile(int err)
{
	struct rlimit rl;

	if (err != EMFILE && err != ENFILE)
		return;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		rl.rlim_cur = 0;
	die("--proc: out of file descriptors (%s; limit %llu): there are more namespaces than open files allowed; raise the limit (ulimit -n)",
	    strerror(err), (unsigned long long)rl.rlim_cur);
}

static struct ns *proc_add_fd(struct nsset *s, int type, int fd,
			      const char *path);

/* Adds the namespace an ioctl returned as @fd, and closes @fd. */
static struct ns *proc_add_related(struct nsset *s, int type, int fd)
{
	struct ns *ns = proc_add_fd(s, type, fd, NULL);

	if (!ns || ns->fd != fd)
		close(fd);
	return ns;
}

/*
 * Adds the namespace open as @fd, if it is new: asks the nsfs ioctls for
 * its id, owner, creator and parent, and adds those too. The new namespace
 * keeps @fd; the caller keeps it otherwise.
 */
static struct ns *proc_add_fd(struct nsset *s, int type, int fd,
			      const char *path)
{
	struct ns *ns, *rel;
	struct stat st;
	uint64_t id;
	uid_t uid;
	int ufd, pfd;

	if (fstat(fd, &st) < 0)
		return NULL;
	ns = ns_find(s, type, st.st_ino);
	if (ns) {
		if (!ns->path && path)
			ns->path = xstrdup(path);
		return ns;
	}
	ns = ns_new(type);
	ns->inum = st.st_ino;
	ns->has_inum = true;
	ns->fd = fd;
	ns->path = path ? xstrdup(path) : NULL;
	ns_add(s, ns);

	if (ioctl(fd, NS_GET_ID, &id) == 0) {
		ns->id = id;
		ns->has_id = true;
	} else {
		s->no_nsid = true;
	}
	if (type == T_USER) {
		if (ioctl(fd, NS_GET_OWNER_UID, &uid) == 0) {
			ns->uid = uid;
			ns->has_uid = true;
		}
	} else {
		ufd = ioctl(fd, NS_GET_USERNS);
		if (ufd < 0)
			check_nofile(errno);
		if (ufd >= 0) {
			if (ioctl(ufd, NS_GET_OWNER_UID, &uid) == 0) {
				ns->uid = uid;
				ns->has_uid = true;
			}
			rel = proc_add_related(s, T_USER, ufd);
			if (rel) {
				ns->has_owner = true;
				ns->owner_inum = rel->inum;
			}
		}
	}
	if (types[type].nested) {
		pfd = ioctl(fd, NS_GET_PARENT);
		if (pfd < 0)
			check_nofile(errno);
		if (pfd >= 0) {
			rel = proc_add_related(s, type, pfd);
			if (rel) {
				ns->has_parent = true;
				ns->parent_inum = rel->inum;
				if (type == T_USER) {
					ns->has_owner = true;
					ns->owner_inum = rel->inum;
				}
			}
		}
	}
	return ns;
}

/* Adds the namespace at @path ("/proc/PID/ns/TYPE" or a bind mount). */
static struct ns *proc_add_path(struct nsset *s, int type, const char *path,
				int *err)
{
	struct ns *ns;
	struct stat st;
	int fd;

	*err = 0;
	if (stat(path, &st) < 0) {
		*err = errno;
		return NULL;
	}
	ns = ns_find(s, type, st.st_ino);
	if (ns)
		return ns;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*err = errno;
		check_nofile(errno);
		return NULL;
	}
	ns = proc_add_fd(s, type, fd, path);
	if (!ns || ns->fd != fd)
		close(fd);
	return ns;
}

/* "net:[4026531840]" -> T_NET. */
static int type_of_link(const char *link)
{
	const char *colon = strchr(link, ':');
	char name[32];
	size_t n;

	if (!colon || colon[1] != '[')
		return -1;
	n = colon - link;
	if (n >= sizeof(name))
		return -1;
	memcpy(name, link, n);
	name[n] = '\0';
	return type_by_name(name);
}

/* Namespaces held by an open file descriptor of process @pid. */
static void proc_scan_fds(struct nsset *s, const char *pid)
{
	char *dirpath = xasprintf("/proc/%s/fd", pid);
	struct dirent *de;
	DIR *dir;

	dir = opendir(dirpath);
	if (!dir) {
		free(dirpath);
		return;
	}
	while ((de = readdir(dir))) {
		char link[64], *path;
		ssize_t n;
		int type, err;

		if (!all_digits(de->d_name))
			continue;
		n = readlinkat(dirfd(dir), de->d_name, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		type = type_of_link(link);
		if (type < 0)
			continue;
		path = xasprintf("%s/%s", dirpath, de->d_name);
		proc_add_path(s, type, path, &err);
		free(path);
	}
	closedir(dir);
	free(dirpath);
}

/* Undoes the octal escapes of /proc/self/mountinfo. */
static void unescape_mountinfo(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
					(s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/* Namespaces held by a bind mount visible in our mount namespace. */
static void proc_scan_mounts(struct nsset *s)
{
	char *text, *line, *save = NULL;

	if (read_text("/proc/self/mountinfo", &text) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sep = strstr(line, " - "), *f[5], *p = line, *q;
		struct ns *ns;
		int i, fd, type;

		if (!sep || strncmp(sep + 3, "nsfs ", 5))
			continue;
		for (i = 0; i < 5; i++) {
			f[i] = p;
			q = strchr(p, ' ');
			if (!q)
				break;
			*q = '\0';
			p = q + 1;
		}
		if (i < 5)
			continue;
		unescape_mountinfo(f[4]);
		fd = open(f[4], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			check_nofile(errno);
			continue;
		}
		type = type_by_flag(ioctl(fd, NS_GET_NSTYPE));
		ns = type >= 0 ? proc_add_fd(s, type, fd, f[4]) : NULL;
		if (!ns || ns->fd != fd)
			close(fd);
	}
	free(text);
}

static void proc_load(struct nsset *s)
{
	static const char *const extra[] = { "pid_for_children",
					     "time_for_children" };
	struct dirent *de;
	DIR *dir;

	raise_nofile();
	dir = opendir("/proc");
	if (!dir)
		die("/proc: %s", strerror(errno));
	while ((de = readdir(dir))) {
		bool denied = false;

		if (!all_digits(de->d_name))
			continue;
		for (int t = 0; t < NTYPES; t++) {
			char *path = xasprintf("/proc/%s/ns/%s", de->d_name,
					       types[t].name);
			struct ns *ns;
			int err;

			ns = proc_add_path(s, t, path, &err);
			if (ns)
				add_pid(ns, (pid_t)atol(de->d_name));
			else if (err == EACCES || err == EPERM)
				denied = true;
			free(path);
		}
		for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
			char *path = xasprintf("/proc/%s/ns/%s", de->d_name,
					       extra[i]);
			int err;

			proc_add_path(s, i ? T_TIME : T_PID, path, &err);
			free(path);
		}
		proc_scan_fds(s, de->d_name);
		s->denied_procs += denied;
	}
	closedir(dir);
	proc_scan_mounts(s);

	for (int t = 0; t < NTYPES; t++) {
		char *path = xasprintf("/proc/self/ns/%s", types[t].name);
		struct stat st;

		if (stat(path, &st) == 0) {
			s->root[t] = ns_find(s, t, st.st_ino);
			if (s->root[t])
				s->root[t]->is_root = true;
		}
		free(path);
	}
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i]->nprocs > 1)
			qsort(s->v[i]->procs, s->v[i]->nprocs, sizeof(pid_t),
			      cmp_pid);
	for (size_t i = 0; i < s->n; i++)
		s->v[i]->procs_known = true;
}

/* The work of a child that joins a namespace to read its detail. */
struct child_job {
	struct ns *ns;
	pid_t member;
	char out[4096];
};

static void child_work(struct child_job *job)
{
	struct ns *ns = job->ns;
	char *t = NULL, *path;
	struct utsname u;
	const char *sysv[3] = { "/proc/sysvipc/msg", "/proc/sysvipc/sem",
				"/proc/sysvipc/shm" };
	char *vals[4] = { NULL, NULL, NULL, NULL };
	int i;

	switch (ns->type) {
	case T_UTS:
		if (uname(&u) == 0)
			snprintf(job->out, sizeof(job->out), "%s", u.nodename);
		break;
	case T_IPC:
		for (i = 0; i < 3; i++) {
			if (read_text(sysv[i], &t) == 0) {
				size_t n = count_lines(t);

				vals[i] = xasprintf("%zu", n ? n - 1 : 0);
				free(t);
			}
		}
		/* POSIX queues: mount this namespace's mqueue privately. */
		if (unshare(CLONE_NEWNS) == 0 &&
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
		    mount("mqueue", "/tmp", "mqueue", 0, NULL) == 0) {
			DIR *dir = opendir("/tmp");
			struct dirent *de;
			size_t n = 0;

			if (dir) {
				while ((de = readdir(dir)))
					n += de->d_name[0] != '.';
				closedir(dir);
				vals[3] = xasprintf("%zu", n);
			}
		}
		t = ipc_detail(vals);
		snprintf(job->out, sizeof(job->out), "%s", t);
		free(t);
		for (i = 0; i < 4; i++)
			free(vals[i]);
		break;
	case T_NET:
		if (read_text("/proc/self/net/dev", &t) == 0) {
			size_t n = count_lines(t);

			free(t);
			t = plural(n > 2 ? n - 2 : 0, "device");
			snprintf(job->out, sizeof(job->out), "%s", t);
			free(t);
		}
		break;
	case T_TIME:
		if (read_text("/proc/self/timens_offsets", &t) == 0) {
			char *c = compact_offsets(t);

			snprintf(job->out, sizeof(job->out), "%s", c ? c : "");
			free(c);
			free(t);
		}
		break;
	case T_MNT:
		if (read_text("/proc/self/mountinfo", &t) == 0) {
			char *c = plural(count_lines(t), "mount");

			snprintf(job->out, sizeof(job->out), "%s", c);
			free(c);
			free(t);
		}
		break;
	case T_CGROUP:
		path = job->member ? xasprintf("/proc/%d/cgroup", (int)job->member)
				   : xstrdup("/proc/self/cgroup");
		if (read_text(path, &t) == 0) {
			char *line = strstr(t, "0::");

			if (line && (line == t || line[-1] == '\n'))
				snprintf(job->out, sizeof(job->out), "%s",
					 chomp(strtok(line + 3, "\n")));
			free(t);
		}
		free(path);
		break;
	}
}

/*
 * Forks a child that joins @job->ns and computes its detail into
 * @job->out. For a user namespace, the parent reads the child's uid_map
 * (the child stays in the namespace until then) into *uid_map.
 */
static bool in_ns_child(struct child_job *job, char **uid_map)
{
	int res[2], hold[2];
	size_t len = 0;
	pid_t pid;
	ssize_t n;
	bool ok;

	job->out[0] = '\0';
	if (pipe2(res, O_CLOEXEC) < 0)
		return false;
	if (pipe2(hold, O_CLOEXEC) < 0) {
		close(res[0]);
		close(res[1]);
		return false;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(res[0]);
		close(res[1]);
		close(hold[0]);
		close(hold[1]);
		return false;
	}
	if (pid == 0) {
		char c = '\0';

		close(res[0]);
		close(hold[1]);
		if (job->ns->is_root ||
		    setns(job->ns->fd, types[job->ns->type].flag) == 0) {
			c = '+';
			child_work(job);
		}
		if (write(res[1], &c, 1) == 1 && job->out[0])
			while (write(res[1], job->out, strlen(job->out)) < 0 &&
			       errno == EINTR)
				;
		close(res[1]);
		while (read(hold[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(res[1]);
	close(hold[0]);
	while ((n = read(res[0], job->out + len,
			 sizeof(job->out) - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += n;
		if (len == sizeof(job->out) - 1)
			break;
	}
	job->out[len] = '\0';
	close(res[0]);
	ok = len > 0 && job->out[0] == '+';
	memmove(job->out, job->out + (len > 0), len > 0 ? len : 1);
	if (ok && uid_map) {
		char *path = xasprintf("/proc/%d/uid_map", (int)pid);

		if (read_text(path, uid_map) < 0)
			*uid_map = NULL;
		free(path);
	}
	close(hold[1]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return ok;
}

/* The cgroup v2 path of @pid as this process sees it. */
static char *cgroup_of(pid_t pid)
{
	char *path = xasprintf("/proc/%d/cgroup", (int)pid), *t, *line;
	char *ret = NULL;

	if (read_text(path, &t) == 0) {
		line = strstr(t, "0::");
		if (line && (line == t || line[-1] == '\n'))
			ret = xstrdup(chomp(strtok(line + 3, "\n")));
		free(t);
	}
	free(path);
	return ret;
}

static void proc_detail(struct ns *ns)
{
	struct child_job job = { .ns = ns };
	pid_t member = ns->nprocs ? ns->procs[0] : 0;
	char *t = NULL, *path;

	switch (ns->type) {
	case T_PID:
		return;
	case T_USER:
		if (member) {
			path = xasprintf("/proc/%d/uid_map", (int)member);
			if (read_text(path, &t) < 0)
				t = NULL;
			free(path);
		}
		if (!t && ns->fd >= 0 && !ns->is_root)
			in_ns_child(&job, &t);
		if (t)
			ns->detail = compact_idmap(t);
		free(t);
		return;
	case T_MNT:
		if (member) {
			path = xasprintf("/proc/%d/mountinfo", (int)member);
			if (read_text(path, &t) == 0)
				ns->detail = plural(count_lines(t), "mount");
			free(t);
			free(path);
			return;
		}
		break;
	case T_CGROUP:
		if (!member)
			return;
		job.member = member;
		break;
	}
	if (ns->fd < 0 && !ns->is_root)
		return;
	if (!in_ns_child(&job, NULL) || !job.out[0])
		return;
	if (ns->type == T_CGROUP) {
		/* Our view of the member's cgroup, less the view from inside. */
		char *outer = cgroup_of(member);
		size_t lo, li = strlen(job.out);

		if (!outer)
			return;
		lo = strlen(outer);
		if (!strstr(job.out, "/..") && lo >= li &&
		    !strcmp(outer + lo - li, job.out)) {
			if (!strcmp(job.out, "/"))
				li = 0;
			outer[lo - li] = '\0';
			ns->detail = xstrdup(outer[0] ? outer : "/");
		}
		free(outer);
		return;
	}
	ns->detail = xstrdup(job.out);
	if (ns->type == T_UTS)
		ns->hostname = xstrdup(job.out);
}

/* ----------------------------------------------------- after the load */

static void link_all(struct nsset *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), cmp_ns);
	for (size_t i = 0; i < s->n; i++) {
		struct ns *ns = s->v[i];

		if (ns->has_parent && !ns->parent)
			ns->parent = ns_find(s, ns->type, ns->parent_inum);
		if (ns->parent) {
			ns->has_parent = ns->parent->has_inum;
			ns->parent_inum = ns->parent->inum;
			add_ptr(&ns->parent->kids, &ns->parent->nkids, ns);
		}
		if (ns->type == T_USER && ns->parent) {
			ns->has_owner = ns->has_parent;
			ns->owner_inum = ns->parent_inum;
		}
		if (ns->owner_is_user_root && s->root[T_USER]) {
			ns->owner_inum = s->root[T_USER]->inum;
			ns->has_owner = s->root[T_USER]->has_inum;
		}
		if (ns->has_owner)
			ns->owner = ns_find(s, T_USER, ns->owner_inum);
		if (ns->type != T_USER && ns->owner)
			add_ptr(&ns->owner->owned, &ns->owner->nowned, ns);
	}
}

/* Levels where the level file could not be read: one more than the parent. */
static void fill_levels(struct nsset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct ns *ns = s->v[i];
		int depth = 0;
		struct ns *p;

		if (!types[ns->type].nested || ns->has_level)
			continue;
		for (p = ns; p && !p->has_level; p = p->parent)
			depth++;
		if (p) {
			ns->level = p->level + depth;
			ns->has_level = true;
		} else if (s->proc) {
			/* --proc: the depth below the top we can see. */
			ns->level = depth - 1;
			ns->has_level = true;
		}
	}
	for (size_t i = 0; i < s->n; i++) {
		struct ns *ns = s->v[i];

		if (ns->type == T_PID && ns->has_level && !ns->detail)
			ns->detail = xasprintf("level %d", ns->level);
	}
}

static void load(struct nsset *s)
{
	if (s->proc) {
		proc_load(s);
		link_all(s);
		for (size_t i = 0; i < s->n; i++)
			proc_detail(s->v[i]);
	} else {
		fs_load(s);
		link_all(s);
	}
	fill_levels(s);
}

static void report_denied(struct nsset *s)
{
	if (s->denied_files)
		warnx("%u file%s could not be read (permission denied); "
		      "run as root to see everything", s->denied_files,
		      s->denied_files == 1 ? "" : "s");
	if (s->denied_procs)
		warnx("%u process%s could not be inspected (permission "
		      "denied); run as root to see everything",
		      s->denied_procs, s->denied_procs == 1 ? "" : "es");
}

static void free_set(struct nsset *s)
{
	for (size_t i = 0; i < s->n; i++)
		ns_free(s->v[i]);
	free(s->v);
	free(s->hash);
}

/* ------------------------------------------------------- users, commands */

static char *user_name(uid_t uid)
{
	static struct cache {
		uid_t uid;
		char *name;
	} *cache;
	static size_t n;
	struct passwd *pw;

	for (size_t i = 0; i < n; i++)
		if (cache[i].uid == uid)
			return xstrdup(cache[i].name);
	pw = getpwuid(uid);
	cache = xrealloc(cache, (n + 1) * sizeof(*cache));
	cache[n].uid = uid;
	cache[n].name = pw ? xstrdup(pw->pw_name)
			   : xasprintf("%lu", (unsigned long)uid);
	return xstrdup(cache[n++].name);
}

/* The command line of @pid, or its name in /proc/PID/comm. */
static char *command_of(pid_t pid)
{
	char *path = xasprintf("/proc/%d/cmdline", (int)pid), *t = NULL;
	char buf[4096];
	ssize_t n = -1;
	size_t len;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n > 0) {
		/* The arguments are NUL-separated. */
		len = (size_t)n;
		while (len && buf[len - 1] == '\0')
			len--;
		buf[len] = '\0';
		for (size_t i = 0; i < len; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		if (len)
			return xstrdup(buf);
	}
	path = xasprintf("/proc/%d/comm", (int)pid);
	err = read_text(path, &t);
	free(path);
	return err ? NULL : chomp(t);
}

/*
 * command_of(), read once per PID: the namespaces of a container share its
 * processes, and the lowest PID of each is often the same.
 */
static char *command_cached(pid_t pid)
{
	static struct {
		pid_t pid;
		char *cmd;
	} *tab;
	static size_t cap, used;
	size_t i;

	if (2 * (used + 1) > cap) {
		size_t ocap = cap;
		__typeof__(tab) old = tab;

		cap = cap ? 2 * cap : 256;
		tab = xzalloc(cap * sizeof(*tab));
		for (size_t j = 0; j < ocap; j++) {
			if (!old[j].pid)
				continue;
			for (i = (size_t)old[j].pid % cap; tab[i].pid;
			     i = (i + 1) % cap)
				;
			tab[i] = old[j];
		}
		free(old);
	}
	for (i = (size_t)pid % cap; tab[i].pid; i = (i + 1) % cap)
		if (tab[i].pid == pid)
			return tab[i].cmd ? xstrdup(tab[i].cmd) : NULL;
	tab[i].pid = pid;
	tab[i].cmd = command_of(pid);
	used++;
	return tab[i].cmd ? xstrdup(tab[i].cmd) : NULL;
}

/* ---------------------------------------------------------------- columns */

struct coldesc {
	const char *name;
	double whint;
	int flags;
	int json;
	const char *help;
};

enum { C_NS, C_TYPE, C_ID, C_PATH, C_NPROCS, C_PID, C_UID, C_USER, C_COMMAND,
       C_PARENT, C_OWNER, C_LEVEL, C_DETAIL, NCOLS };

static const struct coldesc ns_cols[NCOLS] = {
	[C_NS] = { "NS", 10, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		   "namespace identifier (inode number)" },
	[C_TYPE] = { "TYPE", 5, 0, SCOLS_JSON_STRING, "kind of namespace" },
	[C_ID] = { "ID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		   "namespace id (never reused; NS_GET_ID)" },
	[C_PATH] = { "PATH", 0.3, 0, SCOLS_JSON_STRING,
		     "directory in namespacefs, or the /proc path" },
	[C_NPROCS] = { "NPROCS", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		       "number of processes in the namespace" },
	[C_PID] = { "PID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		    "lowest PID in the namespace" },
	[C_UID] = { "UID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		    "UID of the creator of the owning user namespace" },
	[C_USER] = { "USER", 8, 0, SCOLS_JSON_STRING,
		     "user name of that UID" },
	[C_COMMAND] = { "COMMAND", 0, SCOLS_FL_TRUNC, SCOLS_JSON_STRING,
			"command line of the lowest PID" },
	[C_PARENT] = { "PARENT", 10, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		       "parent namespace (pid, user; inode number)" },
	[C_OWNER] = { "OWNER", 10, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		      "owning user namespace (inode number)" },
	[C_LEVEL] = { "LEVEL", 2, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		      "nesting depth (pid, user)" },
	[C_DETAIL] = { "DETAIL", 0.2, SCOLS_FL_TRUNC, SCOLS_JSON_STRING,
		       "per type: host name, maps, counts, offsets" },
};

static const int ns_default_cols[] = { C_NS, C_TYPE, C_ID, C_NPROCS, C_PID,
				       C_USER, C_DETAIL, C_COMMAND };

enum { K_NAME, K_NS, K_ID, K_LEVEL, K_NPROCS, K_PIDS, K_PID, K_UID, K_USER,
       K_COMMAND, K_UTS, K_PARENT, NKCOLS };

static const struct coldesc ct_cols[NKCOLS] = {
	[K_NAME] = { "NAME", 10, 0, SCOLS_JSON_STRING,
		     "host name of the uts namespace of the lowest PID" },
	[K_NS] = { "NS", 10, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		   "pid namespace (inode number)" },
	[K_ID] = { "ID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		   "pid namespace id" },
	[K_LEVEL] = { "LEVEL", 2, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		      "nesting depth of the pid namespace" },
	[K_NPROCS] = { "NPROCS", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		       "number of processes" },
	[K_PIDS] = { "PIDS", 0.3, SCOLS_FL_TRUNC, SCOLS_JSON_ARRAY_NUMBER,
		     "the PIDs, ascending" },
	[K_PID] = { "PID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		    "lowest PID" },
	[K_UID] = { "UID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		    "UID of the user that owns it" },
	[K_USER] = { "USER", 8, 0, SCOLS_JSON_STRING,
		     "the user that owns it" },
	[K_COMMAND] = { "COMMAND", 0, SCOLS_FL_TRUNC, SCOLS_JSON_STRING,
			"command line of the lowest PID" },
	[K_UTS] = { "UTS", 10, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		    "uts namespace of the lowest PID (inode number)" },
	[K_PARENT] = { "PARENT", 10, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		       "parent pid namespace (inode number)" },
};

static const int ct_default_cols[] = { K_NAME, K_NS, K_NPROCS, K_PIDS, K_USER,
				       K_COMMAND };

/* lsns's names for the same columns. */
static const struct {
	const char *alias;
	const char *name;
} col_aliases[] = { { "PNS", "PARENT" }, { "ONS", "OWNER" } };

static int col_by_name(const struct coldesc *cols, int ncols, const char *name,
		       size_t len)
{
	for (size_t a = 0; a < sizeof(col_aliases) / sizeof(col_aliases[0]); a++)
		if (strlen(col_aliases[a].alias) == len &&
		    !strncasecmp(col_aliases[a].alias, name, len)) {
			name = col_aliases[a].name;
			len = strlen(name);
		}
	for (int i = 0; i < ncols; i++)
		if (strlen(cols[i].name) == len &&
		    !strncasecmp(cols[i].name, name, len))
			return i;
	return -1;
}

struct opts {
	const char *cmd;
	const char *root;
	const char *columns;
	unsigned int types;	/* bit per type; 0 is all */
	bool proc, json, raw, list, noheadings, owner, all_cols;
};

static void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
	exit(EXIT_USAGE);
}

/* Parses -o: a comma-separated list; a leading '+' adds to the defaults. */
static size_t parse_columns(const struct opts *o, const struct coldesc *cols,
			    int ncols, const int *defaults, size_t ndefaults,
			    int *out)
{
	const char *p = o->columns;
	size_t n = 0;

	if (o->all_cols) {
		for (int i = 0; i < ncols; i++)
			out[n++] = i;
		return n;
	}
	if (!p || *p == '+') {
		memcpy(out, defaults, ndefaults * sizeof(int));
		n = ndefaults;
		if (!p)
			return n;
		p++;
	}
	while (*p) {
		size_t len = strcspn(p, ",");
		int c;

		if (len) {
			c = col_by_name(cols, ncols, p, len);
			if (c < 0)
				usage_error("unknown column: %.*s", (int)len, p);
			if (n < 64)
				out[n++] = c;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (!n)
		usage_error("no columns given to --output");
	return n;
}

static struct libscols_table *new_table(const struct opts *o, const char *name,
					const struct coldesc *cols,
					const int *which, size_t n, int tree_col)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		die("cannot create a table");
	scols_table_set_name(tb, name);
	/* The last format enabled wins: JSON over raw. */
	scols_table_enable_raw(tb, o->raw);
	scols_table_enable_json(tb, o->json);
	scols_table_enable_noheadings(tb, o->noheadings);
	for (size_t i = 0; i < n; i++) {
		const struct coldesc *c = &cols[which[i]];
		int flags = c->flags;
		struct libscols_column *cl;

		if (which[i] == tree_col)
			flags = (flags & ~SCOLS_FL_RIGHT) | SCOLS_FL_TREE;
		if (o->json && c->json == SCOLS_JSON_ARRAY_NUMBER)
			flags |= SCOLS_FL_WRAP;
		cl = scols_table_new_column(tb, c->name, c->whint, flags);
		if (!cl)
			die("cannot create a table column");
		if (o->json) {
			scols_column_set_json_type(cl, c->json);
			if (c->json == SCOLS_JSON_ARRAY_NUMBER)
				scols_column_set_wrapfunc(cl,
							  scols_wrapnl_chunksize,
							  scols_wrapnl_nextchunk,
							  NULL);
		}
	}
	return tb;
}

static char *u64_cell(bool known, uint64_t v)
{
	return known ? xasprintf("%llu", (unsigned long long)v) : NULL;
}

static char *ns_cell(const struct nsset *s, const struct ns *ns, int col)
{
	switch (col) {
	case C_NS:
		return u64_cell(ns->has_inum, ns->inum);
	case C_TYPE:
		return xstrdup(types[ns->type].name);
	case C_ID:
		return u64_cell(ns->has_id, ns->id);
	case C_PATH:
		return ns->path ? xstrdup(ns->path) : NULL;
	case C_NPROCS:
		return u64_cell(ns->procs_known, ns->nprocs);
	case C_PID:
		return u64_cell(ns->nprocs, ns->nprocs ? ns->procs[0] : 0);
	case C_UID:
		return u64_cell(ns->has_uid, ns->uid);
	case C_USER:
		return ns->has_uid ? user_name(ns->uid) : NULL;
	case C_COMMAND:
		return ns->nprocs ? command_cached(ns->procs[0]) : NULL;
	case C_PARENT:
		return u64_cell(ns->has_parent, ns->parent_inum);
	case C_OWNER:
		return u64_cell(ns->has_owner, ns->owner_inum);
	case C_LEVEL:
		return u64_cell(ns->has_level, (uint64_t)ns->level);
	case C_DETAIL:
		return ns->detail ? xstrdup(ns->detail) : NULL;
	}
	(void)s;
	return NULL;
}

/* ------------------------------------------------------------------ tree */

struct printer {
	const struct opts *o;
	struct nsset *s;
	struct libscols_table *tb;
	int cols[64];
	size_t ncols;
	bool flat;
};

static struct libscols_line *emit(struct printer *pr, struct ns *ns,
				  struct libscols_line *parent)
{
	struct libscols_line *ln;

	ln = scols_table_new_line(pr->tb, pr->flat ? NULL : parent);
	if (!ln)
		die("cannot create a table line");
	for (size_t i = 0; i < pr->ncols; i++) {
		char *data = ns_cell(pr->s, ns, pr->cols[i]);

		if (data && scols_line_refer_data(ln, i, data))
			die("cannot fill a table cell");
	}
	return ln;
}

static void emit_nested(struct printer *pr, struct ns *ns,
			struct libscols_line *parent)
{
	struct libscols_line *ln = emit(pr, ns, parent);

	for (size_t i = 0; i < ns->nkids; i++)
		emit_nested(pr, ns->kids[i], ln);
}

static bool type_wanted(const struct opts *o, int type)
{
	return !o->types || (o->types & (1u << type));
}

static void emit_by_parent(struct printer *pr)
{
	struct nsset *s = pr->s;

	for (int t = 0; t < NTYPES; t++) {
		if (!type_wanted(pr->o, t))
			continue;
		for (size_t i = 0; i < s->n; i++) {
			struct ns *ns = s->v[i];

			if (ns->type != t)
				continue;
			if (types[t].nested) {
				if (!ns->parent)
					emit_nested(pr, ns, NULL);
			} else {
				emit(pr, ns, NULL);
			}
		}
	}
}

static void emit_owner_tree(struct printer *pr, struct ns *user,
			    struct libscols_line *parent)
{
	struct libscols_line *ln = parent;

	if (user->needed)
		ln = emit(pr, user, parent);
	for (int t = 0; t < NTYPES; t++)
		for (size_t i = 0; i < user->nowned; i++)
			if (user->owned[i]->type == t && user->owned[i]->shown)
				emit(pr, user->owned[i], ln);
	for (size_t i = 0; i < user->nkids; i++)
		emit_owner_tree(pr, user->kids[i], ln);
}

/* --owner: the user namespaces by parent, each with what it owns. */
static void emit_by_owner(struct printer *pr)
{
	struct nsset *s = pr->s;

	for (size_t i = 0; i < s->n; i++) {
		struct ns *ns = s->v[i];

		ns->shown = type_wanted(pr->o, ns->type);
		if (!ns->shown)
			continue;
		/* A shown namespace needs the user namespaces above it. */
		for (struct ns *u = ns->type == T_USER ? ns : ns->owner; u;
		     u = u->parent)
			u->needed = true;
	}
	for (size_t i = 0; i < s->n; i++) {
		struct ns *ns = s->v[i];

		if (ns->type == T_USER && !ns->parent)
			emit_owner_tree(pr, ns, NULL);
	}
	for (int t = 0; t < NTYPES; t++)
		for (size_t i = 0; i < s->n; i++) {
			struct ns *ns = s->v[i];

			if (ns->type == t && t != T_USER && ns->shown &&
			    !ns->owner)
				emit(pr, ns, NULL);
		}
}

static int cmd_tree(const struct opts *o, struct nsset *s)
{
	struct printer pr = { .o = o, .s = s, .flat = true };
	int tree_col = -1;

	pr.ncols = parse_columns(o, ns_cols, NCOLS, ns_default_cols,
				 sizeof(ns_default_cols) / sizeof(int), pr.cols);
	s->skip_procs = s->skip_uid = s->skip_detail = true;
	for (size_t i = 0; i < pr.ncols; i++) {
		int c = pr.cols[i];

		if (c == C_NPROCS || c == C_PID || c == C_COMMAND)
			s->skip_procs = false;
		if (c == C_UID || c == C_USER)
			s->skip_uid = false;
		if (c == C_DETAIL || c == C_LEVEL)
			s->skip_detail = false;
	}
	load(s);
	/* Raw output is for scripts: a list, without tree drawing. */
	if (!o->list && !(o->raw && !o->json)) {
		tree_col = pr.cols[0];
		pr.flat = false;
		for (size_t i = 0; i < pr.ncols; i++)
			if (pr.cols[i] == C_NS)
				tree_col = C_NS;
	}
	pr.tb = new_table(o, "namespaces", ns_cols, pr.cols, pr.ncols, tree_col);
	if (o->owner)
		emit_by_owner(&pr);
	else
		emit_by_parent(&pr);
	scols_print_table(pr.tb);
	scols_unref_table(pr.tb);
	report_denied(s);
	free_set(s);
	return 0;
}

/* ------------------------------------------------------------ containers */

static struct ns *uts_of(struct nsset *s, pid_t pid)
{
	char *path;
	struct stat st;
	struct ns *uts = NULL;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i]->type == T_UTS && has_pid(s->v[i], pid))
			return s->v[i];
	/* The uts procs file could not be read: ask /proc. */
	path = xasprintf("/proc/%d/ns/uts", (int)pid);
	if (stat(path, &st) == 0)
		uts = ns_find(s, T_UTS, st.st_ino);
	free(path);
	return uts;
}

static char *pid_list(const struct ns *ns, char sep)
{
	size_t cap = ns->nprocs * 12 + 1, len = 0;
	char *out = xrealloc(NULL, cap);

	out[0] = '\0';
	for (size_t i = 0; i < ns->nprocs; i++)
		len += snprintf(out + len, cap - len, "%s%d", i ? (char[]){ sep, 0 } : "",
				(int)ns->procs[i]);
	return out;
}

static char *ct_cell(const struct opts *o, struct nsset *s, struct ns *ns,
		     struct ns *uts, int col)
{
	switch (col) {
	case K_NAME:
		return uts && uts->hostname ? xstrdup(uts->hostname) : NULL;
	case K_NS:
		return ns_cell(s, ns, C_NS);
	case K_ID:
		return ns_cell(s, ns, C_ID);
	case K_LEVEL:
		return ns_cell(s, ns, C_LEVEL);
	case K_NPROCS:
		return ns_cell(s, ns, C_NPROCS);
	case K_PIDS:
		return pid_list(ns, o->json ? '\n' : ',');
	case K_PID:
		return ns_cell(s, ns, C_PID);
	case K_UID:
		return ns_cell(s, ns, C_UID);
	case K_USER:
		return ns_cell(s, ns, C_USER);
	case K_COMMAND:
		return ns_cell(s, ns, C_COMMAND);
	case K_UTS:
		return uts ? u64_cell(uts->has_inum, uts->inum) : NULL;
	case K_PARENT:
		return ns_cell(s, ns, C_PARENT);
	}
	return NULL;
}

static void emit_containers(const struct opts *o, struct nsset *s,
			    struct libscols_table *tb, const int *cols,
			    size_t ncols, struct ns *ns)
{
	if (!ns->is_root && ns->nprocs) {
		struct ns *uts = uts_of(s, ns->procs[0]);
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			die("cannot create a table line");
		for (size_t i = 0; i < ncols; i++) {
			char *data = ct_cell(o, s, ns, uts, cols[i]);

			if (data && scols_line_refer_data(ln, i, data))
				die("cannot fill a table cell");
		}
	}
	for (size_t i = 0; i < ns->nkids; i++)
		emit_containers(o, s, tb, cols, ncols, ns->kids[i]);
}

static int cmd_containers(const struct opts *o, struct nsset *s)
{
	struct libscols_table *tb;
	int cols[64];
	size_t ncols;

	ncols = parse_columns(o, ct_cols, NKCOLS, ct_default_cols,
			      sizeof(ct_default_cols) / sizeof(int), cols);
	load(s);
	tb = new_table(o, "containers", ct_cols, cols, ncols, -1);
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i]->type == T_PID && !s->v[i]->parent)
			emit_containers(o, s, tb, cols, ncols, s->v[i]);
	scols_print_table(tb);
	scols_unref_table(tb);
	report_denied(s);
	free_set(s);
	return 0;
}

/* ------------------------------------------------------------------ watch */

struct wdir {
	int type;
	char *path;
	uint64_t inum;
	bool has_inum, is_root;
};

struct known {
	int type;
	uint64_t inum, parent;
	bool has_parent, seen;
	char *path;
};

struct watcher {
	const struct opts *o;
	const char *rootdir;
	bool is_nsfs;
	int fd;
	struct wdir **wd;	/* by watch descriptor */
	size_t nwd;
	size_t nwatches, nroots;
	struct known *k;
	size_t nk;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void print_event(struct watcher *w, char what, int type, uint64_t inum,
			bool has_parent, uint64_t parent)
{
	const char *name = types[type].name;

	if (w->o->json) {
		printf("{\"event\": \"%s\", \"type\": \"%s\", \"ns\": %llu",
		       what == '+' ? "add" : "remove", name,
		       (unsigned long long)inum);
		if (types[type].nested && has_parent)
			printf(", \"parent\": %llu", (unsigned long long)parent);
		else if (types[type].nested)
			printf(", \"parent\": null");
		puts("}");
	} else if (types[type].nested) {
		if (has_parent)
			printf("%c %s %llu (parent %llu)\n", what, name,
			       (unsigned long long)inum,
			       (unsigned long long)parent);
		else
			printf("%c %s %llu (parent ?)\n", what, name,
			       (unsigned long long)inum);
	} else {
		printf("%c %s %llu\n", what, name, (unsigned long long)inum);
	}
}

static struct known *known_find(struct watcher *w, int type, uint64_t inum)
{
	for (size_t i = 0; i < w->nk; i++)
		if (w->k[i].type == type && w->k[i].inum == inum)
			return &w->k[i];
	return NULL;
}

static void add_watch(struct watcher *w, int type, const char *path,
		      bool has_inum, uint64_t inum, bool is_root)
{
	struct wdir *d;
	int wd;

	wd = inotify_add_watch(w->fd, path,
			       IN_CREATE | IN_DELETE | IN_MOVED_FROM |
			       IN_MOVED_TO | IN_ONLYDIR);
	if (wd < 0) {
		if (errno != ENOENT)
			warnx("%s: cannot watch: %s", path, strerror(errno));
		return;
	}
	if ((size_t)wd >= w->nwd) {
		size_t n = (size_t)wd * 2 + 8;

		w->wd = xrealloc(w->wd, n * sizeof(*w->wd));
		memset(w->wd + w->nwd, 0, (n - w->nwd) * sizeof(*w->wd));
		w->nwd = n;
	}
	if (w->wd[wd])
		return;
	d = xzalloc(sizeof(*d));
	d->type = type;
	d->path = xstrdup(path);
	d->inum = inum;
	d->has_inum = has_inum;
	d->is_root = is_root;
	w->wd[wd] = d;
	w->nwatches++;
	w->nroots += is_root;
}

/* A namespace directory appeared (or was found by a scan). */
static void appeared(struct watcher *w, int type, const char *dirpath,
		     const char *name, const struct wdir *in, bool report);

/* Adds what is in @path that is not known yet; reports it if @report. */
static void scan(struct watcher *w, int type, const char *path,
		 const struct wdir *in, bool report)
{
	struct dirent_num *sub;
	size_t n = list_ns_dirs(path, &sub);

	for (size_t i = 0; i < n; i++) {
		appeared(w, type, path, sub[i].name, in, report);
		free(sub[i].name);
	}
	free(sub);
}

static void appeared(struct watcher *w, int type, const char *dirpath,
		     const char *name, const struct wdir *in, bool report)
{
	struct known *k;
	uint64_t inum;
	char *path;

	if (!all_digits(name) || !parse_u64(name, &inum))
		return;
	path = xasprintf("%s/%s", dirpath, name);
	k = known_find(w, type, inum);
	if (!k) {
		w->k = xrealloc(w->k, (w->nk + 1) * sizeof(*w->k));
		k = &w->k[w->nk++];
		k->type = type;
		k->inum = inum;
		k->has_parent = types[type].nested && in->has_inum;
		k->parent = in->inum;
		k->path = xstrdup(path);
		if (report)
			print_event(w, '+', type, inum, k->has_parent,
				    k->parent);
	}
	k->seen = true;
	if (types[type].nested) {
		struct wdir here = { .type = type, .inum = inum,
				     .has_inum = true };

		add_watch(w, type, path, true, inum, false);
		scan(w, type, path, &here, report);
	}
	free(path);
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/';
}

static void forget(struct watcher *w, size_t i, bool report)
{
	struct known *k = &w->k[i];

	if (report)
		print_event(w, '-', k->type, k->inum, k->has_parent, k->parent);
	/*
	 * The watch on a gone directory may outlive it; drop it. Its
	 * IN_IGNORED event frees the entry.
	 */
	for (size_t wd = 0; types[k->type].nested && wd < w->nwd; wd++)
		if (w->wd[wd] && !strcmp(w->wd[wd]->path, k->path))
			inotify_rm_watch(w->fd, (int)wd);
	free(k->path);
	w->k[i] = w->k[--w->nk];
}

/* A namespace directory went away: it and what was below it. */
static void vanished(struct watcher *w, int type, uint64_t inum)
{
	struct known *k = known_find(w, type, inum);
	char *path;
	bool again = true;

	if (!k)
		return;
	path = xstrdup(k->path);
	/* Deepest first, as the kernel removes them. */
	while (again) {
		size_t best = 0, depth = 0;

		again = false;
		for (size_t i = 0; i < w->nk; i++) {
			size_t d = 0;

			if (!under(w->k[i].path, path))
				continue;
			for (const char *p = w->k[i].path; *p; p++)
				d += *p == '/';
			if (!again || d > depth) {
				best = i;
				depth = d;
				again = true;
			}
		}
		if (again)
			forget(w, best, true);
	}
	k = known_find(w, type, inum);
	if (k)
		forget(w, (size_t)(k - w->k), true);
	free(path);
}

static struct wdir root_wdir(struct watcher *w, int type, const char *path)
{
	struct wdir d = { .type = type, .is_root = true };
	char *file = xasprintf("%s/inum", path), *t;
	struct stat st;

	if (read_text(file, &t) == 0) {
		d.has_inum = parse_u64(chomp(t), &d.inum);
		free(t);
	}
	free(file);
	if (!d.has_inum && w->is_nsfs && stat(path, &st) == 0) {
		d.inum = st.st_ino;
		d.has_inum = true;
	}
	return d;
}

/* Walks everything again: reports what came and went unseen. */
static void rescan(struct watcher *w, bool report)
{
	for (size_t i = 0; i < w->nk; i++)
		w->k[i].seen = false;
	for (int t = 0; t < NTYPES; t++) {
		char *path;
		struct stat st;
		struct wdir d;

		if (!type_wanted(w->o, t))
			continue;
		path = xasprintf("%s/%s", w->rootdir, types[t].name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			d = root_wdir(w, t, path);
			add_watch(w, t, path, d.has_inum, d.inum, true);
			scan(w, t, path, &d, report);
		}
		free(path);
	}
	for (size_t i = 0; i < w->nk;) {
		if (!w->k[i].seen)
			vanished(w, w->k[i].type, w->k[i].inum);
		else
			i++;
	}
}

static void handle_event(struct watcher *w, const struct inotify_event *ev)
{
	struct wdir *d = ev->wd >= 0 && (size_t)ev->wd < w->nwd ? w->wd[ev->wd]
								: NULL;
	uint64_t inum;

	if (ev->mask & IN_Q_OVERFLOW) {
		if (w->o->json)
			puts("{\"event\": \"lost\"}");
		else
			puts("! events were lost; rescanning");
		rescan(w, true);
		return;
	}
	if (!d)
		return;
	if (ev->mask & IN_IGNORED) {
		w->nwatches--;
		w->nroots -= d->is_root;
		free(d->path);
		free(d);
		w->wd[ev->wd] = NULL;
		return;
	}
	if (!(ev->mask & IN_ISDIR) || !ev->len || !all_digits(ev->name))
		return;
	if (ev->mask & (IN_CREATE | IN_MOVED_TO)) {
		appeared(w, d->type, d->path, ev->name, d, true);
	} else if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
		if (parse_u64(ev->name, &inum))
			vanished(w, d->type, inum);
	}
}

static int cmd_watch(const struct opts *o, struct nsset *s)
{
	struct watcher w = { .o = o, .rootdir = s->rootdir,
			     .is_nsfs = s->is_nsfs };
	struct sigaction sa = { .sa_handler = on_signal };
	char buf[64 * 1024]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	if (o->proc)
		usage_error("watch needs namespacefs; it cannot use --proc");
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	w.fd = inotify_init1(IN_CLOEXEC);
	if (w.fd < 0)
		die("inotify: %s", strerror(errno));
	rescan(&w, false);
	if (!w.nroots)
		die("%s: nothing to watch", w.rootdir);
	fprintf(stderr, "%s: watching %zu director%s in %s\n", prog,
		w.nwatches, w.nwatches == 1 ? "y" : "ies", w.rootdir);
	while (!stop) {
		n = read(w.fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("inotify: %s", strerror(errno));
		}
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const void *)p;

			handle_event(&w, ev);
			p += sizeof(*ev) + ev->len;
		}
		if (!w.nroots)
			die("%s: the namespacefs mount went away", w.rootdir);
	}
	close(w.fd);
	for (size_t i = 0; i < w.nwd; i++) {
		if (w.wd[i])
			free(w.wd[i]->path);
		free(w.wd[i]);
	}
	free(w.wd);
	for (size_t i = 0; i < w.nk; i++)
		free(w.k[i].path);
	free(w.k);
	return 0;
}

/* ------------------------------------------------------------------ main */

static void help(void)
{
	printf("Usage:\n"
	       " %1$s [tree] [options]\n"
	       " %1$s containers [options]\n"
	       " %1$s watch [options]\n"
	       "\n"
	       "Show the namespaces of the machine from namespacefs (mounted at\n"
	       "%2$s), or from /proc with --proc.\n"
	       "\n"
	       "Commands:\n"
	       " tree          every namespace: pid and user ones nested by parent\n"
	       "               (the default)\n"
	       " containers    the pid namespaces with processes, named by host name\n"
	       " watch         print namespaces as they appear (+) and go (-)\n"
	       "\n"
	       "Options:\n"
	       " -t, --type <type>      only this type (cgroup, ipc, mnt, net, pid, time,\n"
	       "                        user, uts); may be repeated\n"
	       " -o, --output <list>    the columns to show; +<list> adds to the default\n"
	       "     --output-all       show every column\n"
	       " -J, --json             JSON output (one object a line with watch)\n"
	       " -r, --raw              raw output\n"
	       " -l, --list             a flat list instead of a tree\n"
	       " -n, --noheadings       no column headings\n"
	       " -T, --owner            nest namespaces under their owning user namespace\n"
	       " -R, --root <dir>       read this namespacefs mount (or a copy of one)\n"
	       " -p, --proc             read /proc and the nsfs ioctls, not namespacefs\n"
	       " -h, --help             show this help\n"
	       " -V, --version          show the version\n"
	       "\n"
	       "Columns of tree:\n", prog, DEFAULT_ROOT);
	for (int i = 0; i < NCOLS; i++)
		printf(" %10s  %s\n", ns_cols[i].name, ns_cols[i].help);
	printf("\nColumns of containers:\n");
	for (int i = 0; i < NKCOLS; i++)
		printf(" %10s  %s\n", ct_cols[i].name, ct_cols[i].help);
	printf("\nExit status:\n"
	       " 0  success (files that could not be read are counted in a warning)\n"
	       " 1  error, e.g. namespacefs is not mounted\n"
	       " 2  wrong usage\n"
	       "\nSee nsfs(1).\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "type", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "output-all", no_argument, NULL, 'A' },
		{ "json", no_argument, NULL, 'J' },
		{ "raw", no_argument, NULL, 'r' },
		{ "list", no_argument, NULL, 'l' },
		{ "noheadings", no_argument, NULL, 'n' },
		{ "owner", no_argument, NULL, 'T' },
		{ "root", required_argument, NULL, 'R' },
		{ "proc", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .cmd = "tree" };
	struct nsset s = { .rootdir = DEFAULT_ROOT };
	int c, t;

	while ((c = getopt_long(argc, argv, "t:o:JrlnTR:phV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 't':
			t = type_by_name(optarg);
			if (t < 0)
				usage_error("unknown namespace type: %s", optarg);
			o.types |= 1u << t;
			break;
		case 'o':
			o.columns = optarg;
			break;
		case 'A':
			o.all_cols = true;
			break;
		case 'J':
			o.json = true;
			break;
		case 'r':
			o.raw = true;
			break;
		case 'l':
			o.list = true;
			break;
		case 'n':
			o.noheadings = true;
			break;
		case 'T':
			o.owner = true;
			break;
		case 'R':
			o.root = optarg;
			break;
		case 'p':
			o.proc = true;
			break;
		case 'h':
			help();
			return 0;
		case 'V':
			puts("nsfs 1.0");
			return 0;
		default:
			fprintf(stderr, "Try '%s --help' for more information.\n",
				prog);
			return EXIT_USAGE;
		}
	}
	/* The command may stand anywhere: getopt moved it to the end. */
	if (optind < argc)
		o.cmd = argv[optind++];
	if (optind < argc)
		usage_error("unexpected argument: %s", argv[optind]);
	if (strcmp(o.cmd, "tree") && strcmp(o.cmd, "containers") &&
	    strcmp(o.cmd, "watch"))
		usage_error("unknown command: %s", o.cmd);
	if (o.proc && o.root)
		usage_error("--proc and --root exclude each other");

	s.proc = o.proc;
	if (o.root)
		s.rootdir = o.root;
	if (!o.proc)
		check_root(&s, o.root != NULL);
	if (!strcmp(o.cmd, "watch"))
		return cmd_watch(&o, &s);
	if (!strcmp(o.cmd, "containers"))
		return cmd_containers(&o, &s);
	return cmd_tree(&o, &s);
}
