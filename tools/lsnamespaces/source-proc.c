// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc and the nsfs ioctls as the source (--proc), for any kernel: every
 * process's /proc/PID/ns files, the namespaces its open descriptors hold,
 * and nsfs bind mounts (libmount). Also the facts of a process that only
 * the network stack or the mount table know (NETNSID, NSFS).
 */
#include "lsnamespaces.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libmount.h>
#include <linux/nsfs.h>
#include <linux/net_namespace.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef NS_GET_ID
#define NS_GET_ID _IOR(NSIO, 13, uint64_t)
#endif

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
 * Each namespace found is kept open (for its ioctls, and so that its inode
 * number stays its own): running out of descriptors would silently drop
 * namespaces, so it is an error.
 */
static void check_nofile(int e)
{
	struct rlimit rl;

	if (e != EMFILE && e != ENFILE)
		return;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		rl.rlim_cur = 0;
	errno = e;
	err(EXIT_FAILURE, "--proc: out of file descriptors (limit %llu): there are more namespaces than open files allowed; raise the limit (ulimit -n)",
	    (unsigned long long)rl.rlim_cur);
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
 * Adds the namespace open as @fd if it is new, and what the columns need
 * of it from the nsfs ioctls (id, owner, creator, parent), adding those
 * too. The new namespace keeps @fd; otherwise the caller does.
 */
/*
 * The creator of the user namespace that owns @ns (of @ns itself for a user
 * namespace), from the kernel's nsfs.
 */
static void proc_read_creator(struct ns *ns)
{
	uid_t uid;
	int rfd;

	if (ns->type == T_USER) {
		if (ioctl(ns->fd, NS_GET_OWNER_UID, &uid) == 0) {
			ns->creator = uid;
			ns->has_creator = true;
		}
		return;
	}
	rfd = ioctl(ns->fd, NS_GET_USERNS);
	if (rfd < 0) {
		check_nofile(errno);
		return;
	}
	if (ioctl(rfd, NS_GET_OWNER_UID, &uid) == 0) {
		ns->creator = uid;
		ns->has_creator = true;
	}
	close(rfd);
}

static struct ns *proc_add_fd(struct nsset *s, int type, int fd,
			      const char *path)
{
	struct ns *ns, *rel;
	struct stat st;
	uint64_t id;
	uid_t uid;
	int rfd;

	if (fstat(fd, &st) < 0)
		return NULL;
	ns = ns_find(s, type, st.st_ino);
	if (ns) {
		if (!ns->nspath && path)
			ns->nspath = xstrdup(path);
		return ns;
	}
	ns = ns_new(s, type);
	ns->inum = st.st_ino;
	ns->fd = fd;
	ns->nspath = path ? xstrdup(path) : NULL;
	ns_add(s, ns);

	if ((s->need & NEED_ID) && ioctl(fd, NS_GET_ID, &id) == 0) {
		ns->id = id;
		ns->has_id = true;
	}
	if (type == T_USER) {
		if (s->need & NEED_CREATOR)
			proc_read_creator(ns);
	} else if (s->need & (NEED_CREATOR | NEED_RELATIONS)) {
		rfd = ioctl(fd, NS_GET_USERNS);
		if (rfd < 0)
			check_nofile(errno);
		if (rfd >= 0) {
			if (ioctl(rfd, NS_GET_OWNER_UID, &uid) == 0) {
				ns->creator = uid;
				ns->has_creator = true;
			}
			rel = proc_add_related(s, T_USER, rfd);
			if (rel) {
				ns->has_owner = true;
				ns->owner_inum = rel->inum;
			}
		}
	}
	if (nstypes[type].nested && (s->need & NEED_RELATIONS)) {
		rfd = ioctl(fd, NS_GET_PARENT);
		if (rfd < 0)
			check_nofile(errno);
		if (rfd >= 0) {
			rel = proc_add_related(s, type, rfd);
			if (rel) {
				ns->has_parent = true;
				ns->parent_inum = rel->inum;
			}
		}
	}
	return ns;
}

/* Adds the namespace at @path ("/proc/PID/ns/TYPE" or a bind mount). */
static struct ns *proc_add_path(struct nsset *s, int type, const char *path,
				int *e)
{
	struct ns *ns;
	struct stat st;
	int fd;

	*e = 0;
	if (stat(path, &st) < 0) {
		*e = errno;
		return NULL;
	}
	ns = ns_find(s, type, st.st_ino);
	if (ns)
		return ns;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*e = errno;
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
	n = (size_t)(colon - link);
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
		int type, e;

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
		proc_add_path(s, type, path, &e);
		free(path);
	}
	closedir(dir);
	free(dirpath);
}

/* This mount namespace's table, parsed once. */
static struct libmnt_table *mount_table(void)
{
	static struct libmnt_table *tab;

	if (!tab) {
		tab = mnt_new_table_from_file("/proc/self/mountinfo");
		if (!tab)
			err(EXIT_FAILURE, "cannot parse /proc/self/mountinfo");
	}
	return tab;
}

/* Namespaces held by an nsfs bind mount visible here. */
static void proc_scan_mounts(struct nsset *s)
{
	struct libmnt_iter *itr = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_table *tab = mount_table();
	struct libmnt_fs *fs;

	if (!itr)
		errx(EXIT_FAILURE, "out of memory");
	while (mnt_table_next_fs(tab, itr, &fs) == 0) {
		const char *target = mnt_fs_get_target(fs);
		struct statfs sfs;
		struct ns *ns;
		int fd, type;

		if (!mnt_fs_match_fstype(fs, "nsfs") || !target)
			continue;
		/* The path may have been replaced since: check what opened. */
		fd = open(target, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			check_nofile(errno);
			continue;
		}
		if (fstatfs(fd, &sfs) < 0 ||
		    (unsigned long)sfs.f_type != NSFS_MAGIC_NUMBER) {
			close(fd);
			continue;
		}
		type = type_by_flag(ioctl(fd, NS_GET_NSTYPE));
		ns = type >= 0 ? proc_add_fd(s, type, fd, target) : NULL;
		if (!ns || ns->fd != fd)
			close(fd);
	}
	mnt_free_iter(itr);
}

char *nsfs_mounts(const struct ns *ns, char sep)
{
	struct libmnt_iter *itr = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_table *tab = mount_table();
	char *root = xasprintf("%s:[%llu]", nstypes[ns->type].name,
			       (unsigned long long)ns->inum);
	struct libmnt_fs *fs;
	char *out = NULL;

	if (!itr)
		errx(EXIT_FAILURE, "out of memory");
	while (mnt_table_next_fs(tab, itr, &fs) == 0) {
		const char *target = mnt_fs_get_target(fs);
		const char *fsroot = mnt_fs_get_root(fs);
		char *next;

		if (!mnt_fs_match_fstype(fs, "nsfs") || !target || !fsroot ||
		    strcmp(fsroot, root))
			continue;
		next = out ? xasprintf("%s%c%s", out, sep, target) :
			     xstrdup(target);
		free(out);
		out = next;
	}
	mnt_free_iter(itr);
	free(root);
	return out;
}

/* lsns's NETNSID: the id of @pid's network namespace, as ours sees it. */
char *netnsid_of(pid_t pid)
{
	struct {
		struct nlmsghdr nh;
		struct rtgenmsg g;
		char attrs[64];
	} req = { 0 };
	char buf[1024], path[64];
	struct rtattr *rta;
	struct nlmsghdr *nh;
	int sock, nsfd, id = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		return NULL;
	sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (sock < 0) {
		close(nsfd);
		return NULL;
	}
	req.nh.nlmsg_type = RTM_GETNSID;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.g.rtgen_family = AF_UNSPEC;
	rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(NLMSG_LENGTH(sizeof(req.g))));
	rta->rta_type = NETNSA_FD;
	rta->rta_len = RTA_LENGTH(sizeof(int));
	memcpy(RTA_DATA(rta), &nsfd, sizeof(int));
	req.nh.nlmsg_len = NLMSG_ALIGN(NLMSG_LENGTH(sizeof(req.g))) + rta->rta_len;
	if (send(sock, &req, req.nh.nlmsg_len, 0) < 0)
		goto out;
	n = recv(sock, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0) {
		struct timeval tv = { .tv_sec = 1 };

		setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		n = recv(sock, buf, sizeof(buf), 0);
	}
	for (nh = (struct nlmsghdr *)buf; n > 0 && NLMSG_OK(nh, (size_t)n);
	     nh = NLMSG_NEXT(nh, n)) {
		struct rtgenmsg *g = NLMSG_DATA(nh);
		int len;

		if (nh->nlmsg_type != RTM_NEWNSID)
			break;
		len = (int)nh->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*g));
		for (rta = (struct rtattr *)((char *)g + NLMSG_ALIGN(sizeof(*g)));
		     RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
			if (rta->rta_type == NETNSA_NSID)
				memcpy(&id, RTA_DATA(rta), sizeof(int));
		break;
	}
out:
	close(sock);
	close(nsfd);
	if (id < 0)
		return xstrdup("unassigned");
	return xasprintf("%d", id);
}

void proc_load(struct nsset *s)
{
	static const char *const extra[] = { "pid_for_children",
					     "time_for_children" };
	struct dirent *de;
	DIR *dir;

	raise_nofile();
	dir = opendir("/proc");
	if (!dir)
		err(EXIT_FAILURE, "/proc");
	while ((de = readdir(dir))) {
		bool denied = false;
		uint64_t pid;

		if (!parse_u64(de->d_name, INT_MAX, &pid))
			continue;
		for (int t = 0; t < NTYPES; t++) {
			char *path = xasprintf("/proc/%s/ns/%s", de->d_name,
					       nstypes[t].name);
			struct ns *ns;
			int e;

			ns = proc_add_path(s, t, path, &e);
			if (ns)
				add_pid(ns, (pid_t)pid);
			else if (e == EACCES || e == EPERM)
				denied = true;
			free(path);
		}
		for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
			char *path = xasprintf("/proc/%s/ns/%s", de->d_name,
					       extra[i]);
			int e;

			proc_add_path(s, i ? T_TIME : T_PID, path, &e);
			free(path);
		}
		proc_scan_fds(s, de->d_name);
		s->denied_procs += denied;
	}
	closedir(dir);
	proc_scan_mounts(s);

	for (int t = 0; t < NTYPES; t++) {
		char *path = xasprintf("/proc/self/ns/%s", nstypes[t].name);
		struct stat st;

		if (stat(path, &st) == 0) {
			s->root[t] = ns_find(s, t, st.st_ino);
			if (s->root[t])
				s->root[t]->is_root = true;
		}
		free(path);
	}
	for (size_t i = 0; i < s->n; i++) {
		struct ns *ns = s->v[i];

		if (ns->nprocs > 1)
			qsort(ns->procs, ns->nprocs, sizeof(pid_t), cmp_pid);
		ns->procs_known = true;
		/* USER and UID of a namespace no process is in: its creator. */
		if ((s->need & NEED_CREATOR_NOPROC) && !ns->nprocs &&
		    !ns->has_creator && ns->fd >= 0)
			proc_read_creator(ns);
	}
}

/* ------------------------------------------------- inside a namespace */

/* Counts the lines of a /proc file (read as a stream: no size bound). */
static bool count_proc_lines(int procfd, const char *file, size_t *n)
{
	char buf[8192];
	ssize_t r;
	int fd = open_regular(procfd, file);

	if (fd < 0)
		return false;
	*n = 0;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < r; i++)
			*n += buf[i] == '\n';
	close(fd);
	return r == 0;
}

struct in_ns {
	int type;
	pid_t member;	/* cgroup: whose cgroup to read */
};

static void in_ns_work(int procfd, void *arg, char *out, size_t size)
{
	static const char *const sysv[3] = { "sysvipc/msg", "sysvipc/sem",
					     "sysvipc/shm" };
	const struct in_ns *job = arg;
	char *vals[4] = { NULL, NULL, NULL, NULL }, *t = NULL, path[64];
	struct utsname u;
	size_t n;
	int fsfd, mfd, dfd;

	switch (job->type) {
	case T_UTS:
		if (uname(&u) == 0)
			snprintf(out, size, "%s", u.nodename);
		break;
	case T_IPC:
		for (int i = 0; i < 3; i++)
			if (count_proc_lines(procfd, sysv[i], &n))
				vals[i] = xasprintf("%zu", n ? n - 1 : 0);
		/* POSIX queues: a detached mqueue mount of this namespace. */
		fsfd = fsopen("mqueue", FSOPEN_CLOEXEC);
		if (fsfd >= 0 &&
		    fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0 &&
		    (mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY)) >= 0 &&
		    (dfd = openat(mfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
			DIR *dir = fdopendir(dfd);
			struct dirent *de;

			n = 0;
			while (dir && (de = readdir(dir)))
				n += de->d_name[0] != '.';
			if (dir) {
				closedir(dir);
				vals[3] = xasprintf("%zu", n);
			}
		}
		t = ipc_detail(vals);
		snprintf(out, size, "%s", t);
		for (int i = 0; i < 4; i++)
			free(vals[i]);
		break;
	case T_NET:
		if (count_proc_lines(procfd, "thread-self/net/dev", &n)) {
			t = plural(n > 2 ? n - 2 : 0, "device");
			snprintf(out, size, "%s", t);
		}
		break;
	case T_MNT:
		if (count_proc_lines(procfd, "thread-self/mountinfo", &n)) {
			t = plural(n, "mount");
			snprintf(out, size, "%s", t);
		}
		break;
	case T_TIME:
		if (read_small(procfd, "self/timens_offsets",
			       SMALL_FILE_MAX, &t) == 0) {
			char *c = compact_offsets("/proc/self/timens_offsets", t);

			snprintf(out, size, "%s", c ? c : "");
			free(c);
		}
		break;
	case T_USER:
		if (read_small(procfd, "thread-self/uid_map", SMALL_FILE_MAX,
			       &t) == 0)
			snprintf(out, size, "%s", t);
		break;
	case T_CGROUP:
		snprintf(path, sizeof(path), "%d/cgroup", (int)job->member);
		if (read_small(procfd, path, SMALL_FILE_MAX, &t) == 0) {
			char *line = strstr(t, "0::");

			if (line && (line == t || line[-1] == '\n'))
				snprintf(out, size, "%s",
					 chomp(strtok(line + 3, "\n")));
		}
		break;
	}
	free(t);
}

static void proc_detail(struct nsset *s, struct ns *ns)
{
	struct in_ns job = { .type = ns->type };
	pid_t member = ns->nprocs ? ns->procs[0] : 0;
	int nsfd = ns->is_root ? -1 : ns->fd;
	char out[4096], path[64], *t;
	size_t n;

	switch (ns->type) {
	case T_PID:
		return;
	case T_USER:
		if (member) {
			snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)member);
			if (read_small(AT_FDCWD, path, SMALL_FILE_MAX, &t) == 0) {
				ns->detail = compact_idmap(path, t);
				free(t);
				return;
			}
		}
		break;
	case T_MNT:
		/* A member's mount table, from here: never joined. */
		if (member) {
			snprintf(path, sizeof(path), "%d/mountinfo", (int)member);
			if (count_proc_lines(proc_dirfd(), path, &n))
				ns->detail = plural(n, "mount");
			return;
		}
		break;
	case T_CGROUP:
		if (!member)
			return;
		job.member = member;
		break;
	}
	if (nsfd < 0 && !ns->is_root)
		return;
	if (!join_run(nsfd, ns->type, ns->inum, in_ns_work, &job, out,
		      sizeof(out)) || !out[0]) {
		if (!ns->is_root)
			s->denied_files++;
		return;
	}
	if (ns->type == T_USER) {
		ns->detail = compact_idmap("/proc/thread-self/uid_map", out);
	} else if (ns->type == T_CGROUP) {
		/* Our view of the member's cgroup, less the view from inside. */
		const char *cg = proc_cgroup(proc_get(member));
		char *outer = cg ? xstrdup(cg) : NULL;
		size_t lo, li = strlen(out);

		if (!outer)
			return;
		lo = strlen(outer);
		if (!strstr(out, "/..") && lo >= li &&
		    !strcmp(outer + lo - li, out)) {
			if (!strcmp(out, "/"))
				li = 0;
			outer[lo - li] = '\0';
			ns->detail = xstrdup(outer[0] ? outer : "/");
		}
		free(outer);
	} else {
		ns->detail = xstrdup(out);
		if (ns->type == T_UTS)
			ns->hostname = xstrdup(out);
	}
}

void proc_details(struct nsset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct ns *ns = s->v[i];

		if (ns->wanted && (s->need & NEED_DETAIL))
			proc_detail(s, ns);
		else if (ns->type == T_UTS && (s->need & NEED_HOSTNAME))
			proc_detail(s, ns);
	}
}
