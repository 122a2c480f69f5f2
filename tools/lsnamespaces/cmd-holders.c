// SPDX-License-Identifier: GPL-2.0-only
/*
 * holders NS: what keeps a namespace alive. Each holder is a line, with
 * the number of references it accounts for and how it was found:
 *
 *   total     the namespace's reference count (its refs file)
 *   process   a member process (the members file); together they hold
 *   tasks     the references of their nsproxies, credentials and PIDs
 *             (refs file: user space cannot see which tasks share them)
 *   child     a child pid or user namespace (the directories)
 *   owned     a namespace that a user namespace owns (the owner links)
 *   mount     an nsfs bind mount, in the mount table of a process of each
 *             mount namespace that has one
 *   fd        an open nsfs file descriptor (/proc/PID/fd)
 *   nsfs      the one nsfs inode that the mounts and descriptors share
 *   socket    a socket that lives in a network namespace, in any process's
 *             descriptors (pidfd_getfd() and SIOCGSKNS), each socket once
 *   kernel    what none of these explains
 *
 * The counts are read one after the other while the machine runs, so a
 * namespace that changes meanwhile may not add up; "kernel" then says so.
 * Needs namespacefs (its refs file) and the privilege to read every
 * process's descriptors: root in the initial namespaces.
 */
#include "lsnamespaces.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libmount.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SIOCGSKNS
#define SIOCGSKNS 0x894C
#endif

/* A line whose holder's references are counted on another line. */
#define NOREFS LLONG_MIN

enum { H_HOLDER, H_REFS, H_PID, H_COMMAND, H_DETAIL, NHCOLS };

static const struct {
	const char *name;
	double whint;
	int flags;
	int json;
} hcols[NHCOLS] = {
	[H_HOLDER] = { "HOLDER", 7, 0, SCOLS_JSON_STRING },
	[H_REFS] = { "REFS", 4, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER },
	[H_PID] = { "PID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER },
	[H_COMMAND] = { "COMMAND", 0.3, SCOLS_FL_TRUNC, SCOLS_JSON_STRING },
	[H_DETAIL] = { "DETAIL", 0.5, 0, SCOLS_JSON_STRING },
};

/* A set of socket inode numbers: each socket holds one reference. */
struct u64set {
	uint64_t *v;		/* 0: empty slot */
	size_t cap, n;
};

static bool u64set_add(struct u64set *set, uint64_t x)
{
	size_t i;

	if (2 * (set->n + 1) > set->cap) {
		struct u64set big = { .cap = set->cap ? 2 * set->cap : 64 };

		big.v = xzalloc(big.cap * sizeof(*big.v));
		for (i = 0; i < set->cap; i++)
			if (set->v[i])
				u64set_add(&big, set->v[i]);
		free(set->v);
		*set = big;
	}
	for (i = (x * 0x9e3779b97f4a7c15ULL) % set->cap; set->v[i];
	     i = (i + 1) % set->cap)
		if (set->v[i] == x)
			return false;
	set->v[i] = x;
	set->n++;
	return true;
}

struct holders {
	const struct nsset *s;
	const struct ns *ns;
	struct libscols_table *tb;
	char link[64];		/* "net:[4026531840]", as nsfs names it */
	uint64_t explained;	/* children, owned namespaces, sockets */
	size_t mounts, fds, unsearched, unchecked;
	struct u64set sockets;
};

static struct libscols_line *row(struct holders *h, const char *holder,
				 long long refs, pid_t pid, const char *detail)
{
	struct libscols_line *ln = scols_table_new_line(h->tb, NULL);
	char num[32];

	if (!ln || scols_line_set_data(ln, H_HOLDER, holder))
		errx(EXIT_FAILURE, "out of memory");
	if (refs != NOREFS) {
		snprintf(num, sizeof(num), "%lld", refs);
		scols_line_set_data(ln, H_REFS, num);
	}
	if (pid > 0) {
		snprintf(num, sizeof(num), "%d", (int)pid);
		scols_line_set_data(ln, H_PID, num);
		scols_line_set_data(ln, H_COMMAND, proc_command(proc_get(pid)));
	}
	if (detail)
		scols_line_set_data(ln, H_DETAIL, detail);
	return ln;
}

static char *ns_name(const struct ns *ns)
{
	return xasprintf("%s:[%" PRIu64 "]", nstypes[ns->type].name, ns->inum);
}

/* Child namespaces and, for a user namespace, those it owns. */
static void related(struct holders *h)
{
	for (size_t i = 0; i < h->ns->nkids; i++) {
		char *name = ns_name(h->ns->kids[i]);

		row(h, "child", 1, 0, name);
		free(name);
		h->explained++;
	}
	for (size_t i = 0; i < h->ns->nowned; i++) {
		char *name = ns_name(h->ns->owned[i]);

		row(h, "owned", 1, 0, name);
		free(name);
		h->explained++;
	}
}

/* nsfs bind mounts, in the table of one process of each mount namespace. */
static void mounts(struct holders *h)
{
	for (size_t i = 0; i < h->s->n; i++) {
		const struct ns *mnt = h->s->v[i];
		struct libmnt_table *tab;
		struct libmnt_iter *itr;
		struct libmnt_fs *fs;
		char *path;

		if (mnt->type != T_MNT)
			continue;
		if (!mnt->nprocs) {
			h->unsearched++;
			continue;
		}
		path = xasprintf("/proc/%d/mountinfo", (int)mnt->procs[0]);
		tab = mnt_new_table_from_file(path);
		free(path);
		if (!tab) {
			h->unsearched++;
			continue;
		}
		itr = mnt_new_iter(MNT_ITER_FORWARD);
		if (!itr)
			errx(EXIT_FAILURE, "out of memory");
		while (mnt_table_next_fs(tab, itr, &fs) == 0) {
			const char *target = mnt_fs_get_target(fs);
			const char *root = mnt_fs_get_root(fs);
			char *name, *detail;

			if (!mnt_fs_match_fstype(fs, "nsfs") || !target ||
			    !root || strcmp(root, h->link))
				continue;
			name = ns_name(mnt);
			detail = xasprintf("%s in %s", target, name);
			row(h, "mount", NOREFS, mnt->procs[0], detail);
			free(detail);
			free(name);
			h->mounts++;
		}
		mnt_free_iter(itr);
		mnt_unref_table(tab);
	}
}

/* Whether socket @fd of the process @pidfd lives in network namespace @inum. */
static int socket_in(int pidfd, int fd, uint64_t inum)
{
	struct stat st;
	int sock, nsfd, in;

	sock = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (sock < 0)
		return errno == EBADF ? 0 : -1;	/* closed meanwhile */
	nsfd = ioctl(sock, SIOCGSKNS);
	close(sock);
	if (nsfd < 0)
		return errno == EINVAL || errno == ENOTTY ? 0 : -1;
	in = fstat(nsfd, &st) == 0 && (uint64_t)st.st_ino == inum;
	close(nsfd);
	return in;
}

/* One process's descriptors: nsfs files of the namespace, and sockets. */
static void process_fds(struct holders *h, pid_t pid)
{
	char *dirpath = xasprintf("/proc/%d/fd", (int)pid);
	bool net = h->ns->type == T_NET;
	struct dirent *de;
	int pidfd = -1;
	DIR *dir;

	dir = opendir(dirpath);
	free(dirpath);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char link[64], *detail;
		uint64_t ino;
		ssize_t n;
		int in;

		if (!all_digits(de->d_name))
			continue;
		n = readlinkat(dirfd(dir), de->d_name, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (!strcmp(link, h->link)) {
			detail = xasprintf("fd %s", de->d_name);
			row(h, "fd", NOREFS, pid, detail);
			free(detail);
			h->fds++;
			continue;
		}
		if (!net || sscanf(link, "socket:[%" SCNu64 "]", &ino) != 1)
			continue;
		if (pidfd < 0)
			pidfd = syscall(SYS_pidfd_open, pid, 0);
		in = pidfd < 0 ? -1 : socket_in(pidfd, atoi(de->d_name), h->ns->inum);
		if (in < 0)
			h->unchecked++;
		if (in <= 0)
			continue;
		detail = xasprintf("fd %s %s", de->d_name, link);
		if (u64set_add(&h->sockets, ino)) {
			row(h, "socket", 1, pid, detail);
			h->explained++;
		} else {
			row(h, "socket", NOREFS, pid, detail);	/* counted already */
		}
		free(detail);
	}
	if (pidfd >= 0)
		close(pidfd);
	closedir(dir);
}

static void descriptors(struct holders *h)
{
	struct dirent *de;
	DIR *proc = opendir("/proc");

	if (!proc)
		err(EXIT_FAILURE, "cannot open /proc");
	while ((de = readdir(proc)))
		if (all_digits(de->d_name))
			process_fds(h, (pid_t)atoi(de->d_name));
	closedir(proc);
}

/* The initial pid namespace (level 0), whose count the kernel does not keep. */
static bool uncounted(const struct nsset *s, const struct ns *ns)
{
	char *path, *text = NULL;
	bool ret;

	if (ns->type != T_PID)
		return false;
	path = xasprintf("%s/level", ns_dir(s, ns));
	ret = read_small(AT_FDCWD, path, SMALL_FILE_MAX, &text) == 0 &&
	      !strcmp(chomp(text), "0");
	free(text);
	free(path);
	return ret;
}

static const char *kernel_hint(int type)
{
	switch (type) {
	case T_NET:
		return "sockets in no process's descriptors, the kernel's own users";
	case T_MNT:
		return "open /proc/PID/mounts files, the kernel's own users";
	case T_PID:
		return "PIDs freed but still referenced (pidfds), the kernel's own users";
	case T_USER:
		return "credentials of open files, sockets and exited tasks, mounts, the kernel's own users";
	default:
		return "the kernel's own users";
	}
}

int cmd_holders(struct opts *o, struct nsset *s)
{
	struct holders h = { .s = s };
	struct libscols_line *total;
	uint64_t refs[3];
	long long rest;
	char *detail, num[32];
	int e;

	if (!o->nsarg)
		errx(EXIT_FAILURE, "holders needs a namespace (its inode number)");
	if (o->outarg || o->all_cols || o->list || o->filter ||
	    o->tree != TREE_DEFAULT || o->task)
		errx(EXIT_FAILURE, "holders takes no column, tree, filter or task options");
	if (o->proc || o->root)
		errx(EXIT_FAILURE, "holders looks at the running machine through namespacefs: no --proc or --root");
	s->types = ALL_TYPES;
	s->need = NEED_PROCS | NEED_RELATIONS;
	load(s);
	for (int t = 0; t < NTYPES && !h.ns; t++)
		if (!o->types || (o->types & (1u << t)))
			h.ns = ns_find(s, t, o->nsarg);
	if (!h.ns)
		errx(EXIT_FAILURE, "no namespace %" PRIu64 " in %s", o->nsarg,
		     s->rootdir);
	snprintf(h.link, sizeof(h.link), "%s:[%" PRIu64 "]",
		 nstypes[h.ns->type].name, h.ns->inum);

	h.tb = scols_new_table();
	if (!h.tb)
		errx(EXIT_FAILURE, "cannot create a table");
	scols_table_set_name(h.tb, "holders");
	scols_table_enable_raw(h.tb, o->raw);
	scols_table_enable_json(h.tb, o->json);
	scols_table_enable_noheadings(h.tb, o->noheadings);
	for (int c = 0; c < NHCOLS; c++) {
		int flags = hcols[c].flags;
		struct libscols_column *cl;

		if (o->notrunc)
			flags &= ~SCOLS_FL_TRUNC;
		cl = scols_table_new_column(h.tb, hcols[c].name, hcols[c].whint,
					    flags);
		if (!cl)
			errx(EXIT_FAILURE, "cannot create a table column");
		if (o->json)
			scols_column_set_json_type(cl, hcols[c].json);
	}

	/*
	 * The total first, filled in at the end: the refs file is read last,
	 * with none of the scans' files (mount tables, sockets' namespaces)
	 * open, which would hold references of their own.
	 */
	detail = xasprintf("%s, %s", h.link, ns_dir(s, h.ns));
	total = row(&h, "total", NOREFS, 0, detail);
	free(detail);
	for (size_t i = 0; i < h.ns->nprocs; i++)
		row(&h, "process", NOREFS, h.ns->procs[i], "member");
	related(&h);
	mounts(&h);
	descriptors(&h);
	e = fs_read_refs(s, h.ns, refs);
	if (e)
		errx(EXIT_FAILURE, "cannot read %s/refs: %s%s", ns_dir(s, h.ns),
		     strerror(-e), e == -ENOENT ?
		     " (a kernel whose namespacefs has no refs file, or the namespace is gone)" : "");

	row(&h, "tasks", (long long)refs[1], 0,
	    h.ns->type == T_USER ? "the credentials of tasks in it" :
	    h.ns->type == T_PID ? "its PIDs, nsproxies that make children in it" :
	    h.ns->type == T_TIME ? "nsproxies of tasks in it or whose children go in it" :
	    "the nsproxies of tasks in it");
	detail = xasprintf("%s%s",
			   refs[2] ? "the inode that every open file and bind mount of it shares" :
				     "no open file or bind mount",
			   refs[2] && !h.mounts && !h.fds ?
				     ": held by none found above (a path lookup, a mount namespace not searched)" : "");
	row(&h, "nsfs", (long long)refs[2], 0, detail);
	free(detail);
	rest = (long long)refs[0] - (long long)(refs[1] + refs[2] + h.explained);
	if (uncounted(s, h.ns)) {
		row(&h, "kernel", NOREFS, 0,
		    "the initial pid namespace keeps no count: it is never freed");
	} else {
		detail = rest < 0 ? xstrdup("fewer than found: the namespace changed during the scan") :
				    xstrdup(kernel_hint(h.ns->type));
		row(&h, "kernel", rest, 0, detail);
		free(detail);
	}
	if (h.unsearched) {
		detail = xasprintf("%zu mount namespace%s without a process not searched for bind mounts",
				   h.unsearched, h.unsearched == 1 ? "" : "s");
		row(&h, "unsearched", NOREFS, 0, detail);
		free(detail);
	}
	if (h.unchecked) {
		detail = xasprintf("%zu socket%s whose namespace could not be read",
				   h.unchecked, h.unchecked == 1 ? "" : "s");
		row(&h, "unchecked", NOREFS, 0, detail);
		free(detail);
	}
	if (!uncounted(s, h.ns)) {
		snprintf(num, sizeof(num), "%" PRIu64, refs[0]);
		scols_line_set_data(total, H_REFS, num);
	}
	print_table(o, h.tb);
	scols_unref_table(h.tb);
	free(h.sockets.v);
	report_denied(s);
	free_set(s);
	return 0;
}
