// SPDX-License-Identifier: GPL-2.0-only
/*
 * A namespacefs mount as the source: its root files "namespaces" (every
 * namespace with its id, parent, owner and creator, in one read) and
 * "members" (every task with its namespaces, in one read), and of each
 * namespace's directory only the files that a column needs. On a kernel
 * without the root files, or a copy given to --root, the directories are
 * walked instead, with a loop check.
 */
#include "lsnamespaces.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

/* Deeper than pid and user namespaces nest (32 levels each). */
#define MAX_DEPTH 40

/*
 * A namespace's directory, made when first asked for: a listing that reads
 * no file of a namespace does not pay for its path.
 */
const char *ns_dir(const struct nsset *s, const struct ns *cns)
{
	struct ns *ns = (struct ns *)cns;	/* a cache, filled in once */

	if (ns->dir || s->proc)
		return ns->dir;
	if (ns->parent && nstypes[ns->type].nested)
		ns->dir = xasprintf("%s/%llu", ns_dir(s, ns->parent),
				    (unsigned long long)ns->inum);
	else if (ns->is_root)
		ns->dir = xasprintf("%s/%s", s->rootdir, nstypes[ns->type].name);
	else
		ns->dir = xasprintf("%s/%s/%llu", s->rootdir,
				    nstypes[ns->type].name,
				    (unsigned long long)ns->inum);
	return ns->dir;
}

/* Reads a file of @ns; NULL if it is unreadable or gone (counted). */
static char *fs_read(struct nsset *s, struct ns *ns, const char *file)
{
	char *path = xasprintf("%s/%s", ns_dir(s, ns), file), *text = NULL;
	int err = read_small(AT_FDCWD, path, SMALL_FILE_MAX, &text);

	if (err == -EACCES || err == -EPERM)
		s->denied_files++;
	else if (err == -ENOENT)
		ns->enoent = true;
	else if (err == -EINVAL)
		errx(EXIT_FAILURE, "%s: not a regular file", path);
	else if (err == -EILSEQ)
		errx(EXIT_FAILURE, "%s: holds a NUL byte", path);
	else if (err == -EFBIG)
		errx(EXIT_FAILURE, "%s: larger than %d bytes", path,
		     SMALL_FILE_MAX);
	free(path);
	return err ? NULL : chomp(text);
}

static bool fs_read_u64(struct nsset *s, struct ns *ns, const char *file,
			uint64_t max, uint64_t *v)
{
	char *t = fs_read(s, ns, file);

	if (!t)
		return false;
	if (!parse_u64(t, max, v)) {
		char *path = xasprintf("%s/%s", ns_dir(s, ns), file);

		bad_input(path, 0, "number", t);
	}
	free(t);
	return true;
}

/* The first line, which must have three numbers; more lines add ",...". */
char *compact_idmap(const char *path, const char *map)
{
	uint64_t v[3];
	char *first, *copy, *f, *save = NULL;
	size_t lines = count_lines(map);
	int n = 0;

	if (!lines)
		return xstrdup("unmapped");
	first = xstrdup(map);
	first[strcspn(first, "\n")] = '\0';
	copy = xstrdup(first);
	for (f = strtok_r(copy, " \t", &save); f;
	     f = strtok_r(NULL, " \t", &save), n++)
		if (n == 3 || !parse_u64(f, UINT32_MAX, &v[n]))
			bad_input(path, 1, "id map", first);
	if (n < 3)
		bad_input(path, 1, "id map", first);
	free(copy);
	free(first);
	return xasprintf("%llu->%llu+%llu%s", (unsigned long long)v[0],
			 (unsigned long long)v[1], (unsigned long long)v[2],
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

char *compact_offsets(const char *path, const char *text)
{
	char *copy = chomp(xstrdup(text)), *line, *eol, *out = NULL;
	unsigned long lineno = 0;

	/* Every line counts, an empty one too: it is an error at its place. */
	for (line = *copy ? copy : NULL; line; line = eol) {
		char clock[32], val[48], *next;
		long long sec;
		long nsec;
		int end = 0;

		eol = strchr(line, '\n');
		if (eol)
			*eol++ = '\0';
		lineno++;
		if (sscanf(line, "%31s %lld %ld%n", clock, &sec, &nsec, &end) != 3 ||
		    line[end] || nsec < 0 || nsec >= 1000000000L)
			bad_input(path, lineno, "clock offset", line);
		format_offset(val, sizeof(val), sec, nsec);
		next = xasprintf("%s%s%s %s", out ? out : "", out ? " " : "",
				 clock, val);
		free(out);
		out = next;
	}
	free(copy);
	return out;
}

char *plural(size_t n, const char *what)
{
	return xasprintf("%zu %s%s", n, what, n == 1 ? "" : "s");
}

char *ipc_detail(char *const vals[4])
{
	return xasprintf("msg %s sem %s shm %s mq %s",
			 vals[0] ? vals[0] : "?", vals[1] ? vals[1] : "?",
			 vals[2] ? vals[2] : "?", vals[3] ? vals[3] : "?");
}

/* A file that holds one count; NULL if unreadable. */
static char *fs_count(struct nsset *s, struct ns *ns, const char *file)
{
	uint64_t v;

	return fs_read_u64(s, ns, file, UINT32_MAX, &v) ?
		       xasprintf("%llu", (unsigned long long)v) : NULL;
}

/*
 * Opens a file of lines: an unreadable one is counted, a missing one marks
 * @ns (if any) as maybe gone, anything but a regular file is an error.
 */
static bool fs_open_lines(struct nsset *s, struct ns *ns, const char *path,
			  struct lines *l)
{
	int rc = lines_open(l, AT_FDCWD, path, path);

	if (rc == -EACCES || rc == -EPERM)
		s->denied_files++;
	else if (rc == -ENOENT && ns)
		ns->enoent = true;
	else if (rc == -EINVAL)
		errx(EXIT_FAILURE, "%s: not a regular file", path);
	return !rc;
}

/* Opens a file at the root of the mount; its path, or NULL. */
static char *fs_open_root_file(struct nsset *s, const char *name,
			       struct lines *l)
{
	char *path = xasprintf("%s/%s", s->rootdir, name);

	if (fs_open_lines(s, NULL, path, l))
		return path;
	free(path);
	return NULL;
}

/* A file of @ns put in a form by @format, which names the file on errors. */
static char *fs_read_as(struct nsset *s, struct ns *ns, const char *file,
			char *(*format)(const char *path, const char *text))
{
	char *t = fs_read(s, ns, file), *path, *out;

	if (!t)
		return NULL;
	path = xasprintf("%s/%s", ns_dir(s, ns), file);
	out = format(path, t);
	free(path);
	free(t);
	return out;
}

/* The devices file, one line a device: counted, not held, so no size cap. */
static void fs_count_devices(struct nsset *s, struct ns *ns)
{
	char *path = xasprintf("%s/devices", ns_dir(s, ns));
	struct lines l;
	size_t n = 0;

	if (fs_open_lines(s, ns, path, &l)) {
		while (lines_next(&l))
			n++;
		lines_close(&l);
		ns->detail = plural(n, "device");
	}
	free(path);
}

static void fs_read_detail(struct nsset *s, struct ns *ns)
{
	static const char *const ipc_files[4] = {
		"msg_queues", "sem_arrays", "shm_segments", "mq_queues"
	};
	char *vals[4];
	uint64_t v;

	switch (ns->type) {
	case T_USER:
		ns->detail = fs_read_as(s, ns, "uid_map", compact_idmap);
		break;
	case T_UTS:
		if (!ns->hostname)
			ns->hostname = fs_read(s, ns, "hostname");
		if (ns->hostname)
			ns->detail = xstrdup(ns->hostname);
		break;
	case T_IPC:
		for (int i = 0; i < 4; i++)
			vals[i] = fs_count(s, ns, ipc_files[i]);
		ns->detail = ipc_detail(vals);
		for (int i = 0; i < 4; i++)
			free(vals[i]);
		break;
	case T_NET:
		fs_count_devices(s, ns);
		break;
	case T_MNT:
		if (fs_read_u64(s, ns, "mounts", UINT32_MAX, &v))
			ns->detail = plural(v, "mount");
		break;
	case T_CGROUP:
		ns->detail = fs_read(s, ns, "root");
		break;
	case T_TIME:
		ns->detail = fs_read_as(s, ns, "offsets", compact_offsets);
		break;
	case T_PID:
		break;
	}
}

/* The kernel's PID_MAX_LIMIT: no procs file has more lines. */
#define PIDS_MAX (4 * 1024 * 1024)

/*
 * A namespace's processes from its procs file (no members file), a PID a
 * line: read by lines, as a busy namespace's is larger than a small file.
 */
static void fs_read_procs(struct nsset *s, struct ns *ns)
{
	char *path = xasprintf("%s/procs", ns_dir(s, ns)), *line;
	struct lines l;
	uint64_t v;

	if (!fs_open_lines(s, ns, path, &l)) {
		free(path);
		return;
	}
	ns->nprocs = 0;
	while ((line = lines_next(&l))) {
		if (l.lineno > PIDS_MAX)
			errx(EXIT_FAILURE, "%s: more than %d lines", path,
			     PIDS_MAX);
		if (!parse_u64(line, INT_MAX, &v) || !v)
			bad_input(path, l.lineno, "PID", line);
		add_pid(ns, (pid_t)v);
	}
	lines_close(&l);
	ns->procs_known = true;
	if (ns->nprocs > 1)
		qsort(ns->procs, ns->nprocs, sizeof(pid_t), cmp_pid);
	free(path);
}

/* Whether a namespace whose file was missing is gone altogether. */
static bool fs_gone(const struct ns *ns)
{
	struct stat st;

	return ns->enoent && lstat(ns->dir, &st) < 0 && errno == ENOENT;
}

/* What the columns need of one namespace, beyond the namespaces file. */
static void fs_read_wanted(struct nsset *s, struct ns *ns)
{
	/* HOSTNAME: a uts namespace is found by one of its processes. */
	bool by_host = ns->type == T_UTS && (s->need & NEED_HOSTNAME);

	if (by_host && !ns->hostname)
		ns->hostname = fs_read(s, ns, "hostname");
	if (!ns->wanted && !by_host)
		return;
	if (!s->members && (s->need & NEED_PROCS))
		fs_read_procs(s, ns);
	if (!ns->wanted)
		return;
	if (ns->is_root && nstypes[ns->type].nested &&
	    (s->need & NEED_LEVEL)) {
		uint64_t v;

		if (fs_read_u64(s, ns, "level", 64, &v)) {
			ns->level = (int)v;
			ns->has_level = true;
		}
	}
	if (s->need & NEED_DETAIL)
		fs_read_detail(s, ns);
}

/*
 * The namespaces file: "TYPE INUM ID PARENT OWNER UID" a line, a type's
 * own namespace first, a parent before its children. False if there is
 * none (an older kernel, a copy).
 */
static bool fs_load_list(struct nsset *s)
{
	bool seen[NTYPES] = { false };
	struct lines l;
	char *path = fs_open_root_file(s, "namespaces", &l), *line;

	/* Without it (or unreadable): the directories are walked instead. */
	if (!path)
		return false;
	while ((line = lines_next(&l))) {
		uint64_t v[5];
		struct ns *ns, *parent = NULL;
		char *p = strchr(line, ' ');
		int t = -1, n = 0;

		if (p) {
			*p++ = '\0';
			t = type_by_name(line);
			for (n = 1; n < 6; n++)
				if ((n > 1 && *p++ != ' ') ||
				    !next_u64(&p, ' ', n == 2 ? UINT64_MAX :
					      UINT32_MAX, &v[n - 1]))
					break;
		}
		if (n != 6 || *p || t < 0 || !v[0] || !v[1] ||
		    (v[2] && !nstypes[t].nested) ||
		    (nstypes[t].nested && seen[t] == !v[2]))
			errx(EXIT_FAILURE, "%s:%lu: not a line of the namespaces file",
			     path, l.lineno);
		if (v[2]) {
			/* Listed before it, unless it went meanwhile. */
			parent = ns_find(s, t, v[2]);
			if (!parent)
				continue;
		}
		ns = ns_new(s, t);
		ns->inum = v[0];
		ns->id = v[1];
		ns->has_id = true;
		ns->is_root = !seen[t];
		seen[t] = true;
		if (parent) {
			ns->parent = parent;
			ns->has_parent = true;
			ns->parent_inum = v[2];
		}
		if (v[3] && t != T_USER) {
			ns->has_owner = true;
			ns->owner_inum = v[3];
		}
		ns->creator = (uid_t)v[4];
		ns->has_creator = true;
		ns_add(s, ns);
		if (ns->is_root)
			s->root[t] = ns;
	}
	lines_close(&l);
	free(path);
	return true;
}

static int cmp_dirent_num(const void *a, const void *b)
{
	const struct dirent_num *x = a, *y = b;

	return (x->inum > y->inum) - (x->inum < y->inum);
}

size_t list_ns_dirs(const char *path, struct dirent_num **out)
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
		struct stat st;

		if (!parse_u64(de->d_name, UINT32_MAX, &inum))
			continue;
		/* Symbolic links are not namespaces: never followed. */
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (de->d_type == DT_UNKNOWN &&
		    (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		     !S_ISDIR(st.st_mode)))
			continue;
		if (!(n & (n - 1)))
			v = xrealloc(v, (n ? 2 * n : 1) * sizeof(*v));
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

static void fs_read_owner(struct ns *ns)
{
	char *path = xasprintf("%s/owner", ns->dir);
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
	if (parse_u64(last, UINT32_MAX, &ns->owner_inum)) {
		ns->has_owner = true;
	} else if (!strcmp(last, nstypes[T_USER].name)) {
		ns->has_owner = true;
		ns->owner_is_user_root = true;
	}
}

/* The directories that lead to the one being walked, for the loop check. */
struct walk {
	dev_t dev[MAX_DEPTH];
	ino_t ino[MAX_DEPTH];
	int depth;
};

static void fs_load_dir(struct nsset *s, struct walk *w, int type,
			const char *path, struct ns *parent, bool is_root,
			uint64_t inum)
{
	struct dirent_num *sub;
	struct ns *ns;
	struct stat st;
	size_t n;

	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	for (int i = 0; i < w->depth; i++)
		if (w->dev[i] == st.st_dev && w->ino[i] == st.st_ino)
			errx(EXIT_FAILURE, "%s: a directory loop (it is one of the directories that lead to it)",
			     path);
	if (w->depth == MAX_DEPTH)
		errx(EXIT_FAILURE, "%s: nested deeper than %d levels", path,
		     MAX_DEPTH);
	ns = ns_new(s, type);
	ns->dir = xstrdup(path);
	ns->is_root = is_root;
	ns->inum = inum;
	if (is_root) {
		if (!fs_read_u64(s, ns, "inum", UINT32_MAX, &ns->inum) &&
		    s->is_namespacefs)
			ns->inum = st.st_ino;
	}
	if (s->need & NEED_ID)
		ns->has_id = fs_read_u64(s, ns, "id", UINT64_MAX, &ns->id);
	if (s->need & (NEED_CREATOR | NEED_CREATOR_NOPROC)) {
		/* The owner of its files, as namespacefs shows it. */
		char *id = xasprintf("%s/id", path);
		struct stat fst;

		ns->creator = lstat(id, &fst) == 0 ? fst.st_uid : st.st_uid;
		ns->has_creator = true;
		free(id);
	}
	if (type != T_USER)
		fs_read_owner(ns);
	if (nstypes[type].nested && parent) {
		ns->parent = parent;
		ns->has_parent = true;
		ns->parent_inum = parent->inum;
	}
	ns_add(s, ns);
	fs_read_wanted(s, ns);
	if (fs_gone(ns))
		return;
	if (is_root)
		s->root[type] = ns;
	if (!is_root && !nstypes[type].nested)
		return;
	w->dev[w->depth] = st.st_dev;
	w->ino[w->depth] = st.st_ino;
	w->depth++;
	n = list_ns_dirs(path, &sub);
	for (size_t i = 0; i < n; i++) {
		char *child = xasprintf("%s/%s", path, sub[i].name);

		fs_load_dir(s, w, type, child, nstypes[type].nested ? ns : NULL,
			    false, sub[i].inum);
		free(child);
		free(sub[i].name);
	}
	free(sub);
	w->depth--;
}

/*
 * The members file: "PID TGID" and the inode number of the task's
 * namespace of each type, in the root directory's order, 0 where the mount
 * does not show it. One line a task, in PID order.
 */
static bool fs_read_members(struct nsset *s)
{
	uint64_t last[NTYPES] = { 0 };
	struct ns *last_ns[NTYPES] = { NULL };
	char last_text[LINE_MAX_LEN + 1];
	size_t last_len = SIZE_MAX;
	struct lines l;
	char *path = fs_open_root_file(s, "members", &l), *line;

	if (!path)
		return false;
	while ((line = lines_next(&l))) {
		uint64_t v[2];
		char *p = line, *tail;
		size_t len;
		int n;

		for (n = 0; n < 2; n++)
			if ((n && *p++ != ' ') ||
			    !next_u64(&p, ' ', INT_MAX, &v[n]) || !v[n])
				break;
		if (n != 2)
			errx(EXIT_FAILURE, "%s:%lu: not a line of the members file",
			     path, l.lineno);
		/*
		 * The tasks of a container come one after the other, with the
		 * same namespaces: the same text as the line before, parsed
		 * then.
		 */
		tail = p;
		len = strlen(tail);
		if (len != last_len || memcmp(tail, last_text, len)) {
			for (n = 0; n < NTYPES; n++) {
				uint64_t inum;

				if (*p++ != ' ' || !next_u64(&p, ' ', UINT32_MAX, &inum))
					break;
				if (inum != last[n]) {
					last[n] = inum;
					last_ns[n] = inum ? ns_find(s, n, inum) : NULL;
				}
			}
			if (n != NTYPES || *p)
				errx(EXIT_FAILURE, "%s:%lu: not a line of the members file",
				     path, l.lineno);
			memcpy(last_text, tail, len);
			last_len = len;
		}
		/* Threads are not processes. */
		if (v[0] != v[1])
			continue;
		/* In PID order: each list stays sorted. */
		for (int t = 0; t < NTYPES; t++)
			if (last_ns[t])
				add_pid(last_ns[t], (pid_t)v[0]);
	}
	lines_close(&l);
	free(path);
	for (size_t i = 0; i < s->n; i++)
		s->v[i]->procs_known = true;
	return true;
}

void fs_load(struct nsset *s)
{
	if (fs_load_list(s)) {
		if (s->need & NEED_PROCS)
			s->members = fs_read_members(s);
		for (size_t i = 0; i < s->n; i++)
			fs_read_wanted(s, s->v[i]);
		return;
	}
	/* Without the root files: every directory, and procs files. */
	for (int t = 0; t < NTYPES; t++) {
		char *path = xasprintf("%s/%s", s->rootdir, nstypes[t].name);
		struct walk w = { .depth = 0 };

		/* -T owner and ONS need the user namespaces too. */
		if ((s->types & (1u << t)) || t == T_USER ||
		    (t == T_UTS && (s->need & NEED_HOSTNAME)))
			fs_load_dir(s, &w, t, path, NULL, true, 0);
		free(path);
	}
}

/* Whether @dir has a namespacefs layout: a type directory with an id. */
static bool looks_like_namespacefs(const char *dir)
{
	for (int t = 0; t < NTYPES; t++) {
		char *path = xasprintf("%s/%s/id", dir, nstypes[t].name);
		struct stat st;
		bool ok = lstat(path, &st) == 0 && S_ISREG(st.st_mode);

		free(path);
		if (ok)
			return true;
	}
	return false;
}

void fs_check_root(struct nsset *s, bool explicit)
{
	struct statfs sfs;

	if (statfs(s->rootdir, &sfs) < 0) {
		if (!explicit && errno == ENOENT)
			errx(EXIT_FAILURE, "%s does not exist: this kernel has no namespacefs; try --proc",
			     s->rootdir);
		err(EXIT_FAILURE, "%s", s->rootdir);
	}
	if ((unsigned long)sfs.f_type == NAMESPACEFS_MAGIC) {
		s->is_namespacefs = true;
		return;
	}
	if (explicit && looks_like_namespacefs(s->rootdir))
		return;
	errx(EXIT_FAILURE, "%s is not a namespacefs mount; mount it with: mount -t namespacefs namespacefs %s",
	     s->rootdir, explicit ? s->rootdir : DEFAULT_ROOT);
}

int fs_read_refs(const struct nsset *s, const struct ns *ns, uint64_t v[3])
{
	static const char *const keys[3] = { "count ", "tasks ", "nsfs " };
	char *path = xasprintf("%s/refs", ns_dir(s, ns));
	struct lines l;
	char *line;
	int e;

	e = lines_open(&l, AT_FDCWD, path, path);
	if (e) {
		free(path);
		return e;
	}
	for (int i = 0; i < 3; i++) {
		size_t k = strlen(keys[i]);

		line = lines_next(&l);
		if (!line || strncmp(line, keys[i], k) ||
		    !parse_u64(line + k, INT64_MAX, &v[i]))
			bad_input(path, l.lineno, "line", line ? line : "(none)");
	}
	lines_close(&l);
	free(path);
	return 0;
}
