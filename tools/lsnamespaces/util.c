// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory, bounded reads of files that may be hostile, strict numbers, and
 * the facts about a process that /proc gives.
 */
#include "lsnamespaces.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const struct ns_type nstypes[NTYPES] = { NS_TYPE_ROWS };

int type_by_name(const char *name)
{
	/* Asked once a line of the namespaces file: the first letter first. */
	for (int t = 0; t < NTYPES; t++)
		if (nstypes[t].name[0] == name[0] && !strcmp(nstypes[t].name, name))
			return t;
	return -1;
}

int type_by_flag(int flag)
{
	for (int t = 0; t < NTYPES; t++)
		if (nstypes[t].flag == flag)
			return t;
	return -1;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		errx(EXIT_FAILURE, "out of memory");
	return p;
}

void *xzalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	if (!p)
		errx(EXIT_FAILURE, "out of memory");
	return p;
}

#define ARENA_CHUNK 65536

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	max_align_t data[];
};

void *arena_take(struct arena_chunk **arena, size_t size)
{
	struct arena_chunk *c = *arena;
	void *p;

	size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) *
	       sizeof(max_align_t);
	if (!c || c->size - c->used < size) {
		size_t cap = size > ARENA_CHUNK ? size : ARENA_CHUNK;

		c = xzalloc(sizeof(*c) + cap);
		c->size = cap;
		c->next = *arena;
		*arena = c;
	}
	p = (char *)c->data + c->used;
	c->used += size;
	return p;
}

void arena_free(struct arena_chunk **arena)
{
	while (*arena) {
		struct arena_chunk *next = (*arena)->next;

		free(*arena);
		*arena = next;
	}
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		errx(EXIT_FAILURE, "out of memory");
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		errx(EXIT_FAILURE, "out of memory");
	return s;
}

/* Appends to a vector that doubles at each power of two: O(1) amortized. */
void add_ptr(void ***v, size_t *n, void *p)
{
	if (!(*n & (*n - 1)))
		*v = xrealloc(*v, (*n ? 2 * *n : 1) * sizeof(**v));
	(*v)[(*n)++] = p;
}

int open_regular(int dirfd, const char *path)
{
	struct stat st;
	int fd;

	/* O_NONBLOCK: a FIFO put in place of the file cannot hold us. */
	fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC |
		    O_NOCTTY);
	if (fd < 0)
		return errno == ELOOP ? -EINVAL : -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int read_small(int dirfd, const char *path, size_t max, char **out)
{
	size_t len = 0, cap = 512;
	char *buf;
	ssize_t n;
	int fd = open_regular(dirfd, path);

	if (fd < 0)
		return fd;
	buf = xrealloc(NULL, cap);
	for (;;) {
		if (cap - len < 2) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			close(fd);
			free(buf);
			return err == EAGAIN ? -EINVAL : -err;
		}
		if (n == 0)
			break;
		len += n;
		if (len > max) {
			close(fd);
			free(buf);
			return -EFBIG;
		}
	}
	close(fd);
	buf[len] = '\0';
	if (strlen(buf) != len) {
		free(buf);
		return -EILSEQ;
	}
	*out = buf;
	return 0;
}

char *chomp(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int lines_open(struct lines *l, int dirfd, const char *path, const char *name)
{
	int fd = open_regular(dirfd, path);

	memset(l, 0, sizeof(*l));
	if (fd < 0)
		return fd;
	l->fd = fd;
	l->name = name;
	return 0;
}

/*
 * The file is read in blocks of LINES_BUF bytes and cut at newlines with
 * memchr(): at the root files' hundreds of kilobytes, a getc() a byte was
 * a tenth of a listing.
 */
#define LINES_BUF (64 * 1024)

char *lines_next(struct lines *l)
{
	char *nl, *line;
	ssize_t n;

	if (!l->buf)
		l->buf = xrealloc(NULL, LINES_BUF + 1);
	for (;;) {
		nl = memchr(l->buf + l->start, '\n', l->end - l->start);
		if (nl)
			break;
		/* Never more than a line's bound in memory, whatever the file. */
		if (l->end - l->start > LINE_MAX_LEN)
			errx(EXIT_FAILURE, "%s:%lu: not a line of text (too long, or a NUL byte)",
			     l->name, l->lineno + 1);
		memmove(l->buf, l->buf + l->start, l->end - l->start);
		l->end -= l->start;
		l->start = 0;
		do
			n = read(l->fd, l->buf + l->end, LINES_BUF - l->end);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			err(EXIT_FAILURE, "%s", l->name);
		if (!n) {
			if (l->end)
				errx(EXIT_FAILURE, "%s:%lu: the last line has no newline",
				     l->name, l->lineno + 1);
			return NULL;
		}
		l->end += (size_t)n;
	}
	line = l->buf + l->start;
	*nl = '\0';
	if ((size_t)(nl - line) > LINE_MAX_LEN || memchr(line, '\0', (size_t)(nl - line)))
		errx(EXIT_FAILURE, "%s:%lu: not a line of text (too long, or a NUL byte)",
		     l->name, l->lineno + 1);
	l->start = (size_t)(nl - l->buf) + 1;
	l->lineno++;
	return line;
}

void lines_close(struct lines *l)
{
	if (l->name)
		close(l->fd);
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

/* The digits at @s as a number: how many there are, 0 if none or too many. */
static size_t scan_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	unsigned int d;
	size_t n;

	/*
	 * One pass, no division: tens of thousands of numbers a listing. Up
	 * to 19 digits cannot overflow; a 20th is checked, a 21st is too many.
	 */
	for (n = 0; n < 19 && (d = (unsigned int)(s[n] - '0')) <= 9; n++)
		x = x * 10 + d;
	if (n == 19 && (d = (unsigned int)(s[n] - '0')) <= 9) {
		if (x > (UINT64_MAX - d) / 10)
			return 0;
		x = x * 10 + d;
		n++;
		if ((unsigned int)(s[n] - '0') <= 9)
			return 0;
	}
	*v = x;
	return n;
}

bool parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t x;
	size_t n = scan_u64(s, &x);

	if (!n || s[n] || x > max)
		return false;
	*v = x;
	return true;
}

bool next_u64(char **p, char sep, uint64_t max, uint64_t *v)
{
	uint64_t x;
	size_t n = scan_u64(*p, &x);

	if (!n || ((*p)[n] && (*p)[n] != sep) || x > max)
		return false;
	*p += n;
	*v = x;
	return true;
}

void bad_input(const char *file, unsigned long line, const char *what,
	       const char *text)
{
	if (line)
		errx(EXIT_FAILURE, "%s:%lu: invalid %s: '%.64s'", file, line,
		     what, text);
	errx(EXIT_FAILURE, "%s: invalid %s: '%.64s'", file, what, text);
}

size_t count_lines(const char *s)
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

int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

const char *user_name(uid_t uid)
{
	static struct {
		uid_t uid;
		char *name;
	} *cache;
	static size_t n;
	struct passwd *pw;

	for (size_t i = 0; i < n; i++)
		if (cache[i].uid == uid)
			return cache[i].name;
	pw = getpwuid(uid);
	cache = xrealloc(cache, (n + 1) * sizeof(*cache));
	cache[n].uid = uid;
	cache[n].name = pw ? xstrdup(pw->pw_name)
			   : xasprintf("%lu", (unsigned long)uid);
	return cache[n++].name;
}

/* ------------------------------------------------------------ processes */

static struct proc **procs;	/* open addressing on the PID */
static size_t procs_cap, procs_used;

static size_t pid_slot(pid_t pid, size_t cap)
{
	return ((size_t)pid * 0x9e3779b97f4a7c15ULL >> 17) & (cap - 1);
}

struct proc *proc_get(pid_t pid)
{
	size_t i;
	struct proc *p;

	if (2 * (procs_used + 1) > procs_cap) {
		struct proc **old = procs;
		size_t ocap = procs_cap;

		procs_cap = procs_cap ? 2 * procs_cap : 256;
		procs = xzalloc(procs_cap * sizeof(*procs));
		for (size_t j = 0; j < ocap; j++) {
			if (!old[j])
				continue;
			for (i = pid_slot(old[j]->pid, procs_cap); procs[i];
			     i = (i + 1) & (procs_cap - 1))
				;
			procs[i] = old[j];
		}
		free(old);
	}
	for (i = pid_slot(pid, procs_cap); procs[i];
	     i = (i + 1) & (procs_cap - 1))
		if (procs[i]->pid == pid)
			return procs[i];
	p = xzalloc(sizeof(*p));
	p->pid = pid;
	procs[i] = p;
	procs_used++;
	return p;
}

/* lsns's UID of a process: the owner of its /proc directory. */
bool proc_uid(struct proc *p, uid_t *uid)
{
	char path[64];
	struct stat st;

	if (!p->uid_read) {
		p->uid_read = true;
		snprintf(path, sizeof(path), "/proc/%d", (int)p->pid);
		if (stat(path, &st) == 0) {
			p->uid = st.st_uid;
			p->have_uid = true;
		}
	}
	*uid = p->uid;
	return p->have_uid;
}

/* /proc/PID/stat: the parent is the second field after the command. */
bool proc_ppid(struct proc *p, pid_t *ppid)
{
	char path[64], *text, *rp;
	int v;

	if (!p->stat_read) {
		p->stat_read = true;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)p->pid);
		if (read_small(AT_FDCWD, path, SMALL_FILE_MAX, &text) == 0) {
			rp = strrchr(text, ')');
			if (rp && sscanf(rp + 1, " %*c %d", &v) == 1 && v >= 0) {
				p->ppid = v;
				p->have_ppid = true;
			}
			free(text);
		}
	}
	*ppid = p->ppid;
	return p->have_ppid;
}

/* The command line, or the name in /proc/PID/comm (kernel threads). */
const char *proc_command(struct proc *p)
{
	char path[64], buf[4096], *t;
	ssize_t n = -1;
	int fd;

	if (p->cmd_read)
		return p->cmd;
	p->cmd_read = true;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)p->pid);
	fd = open_regular(AT_FDCWD, path);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n > 0) {
		size_t len = (size_t)n;

		while (len && buf[len - 1] == '\0')
			len--;
		buf[len] = '\0';
		for (size_t i = 0; i < len; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		if (len) {
			p->cmd = xstrdup(buf);
			return p->cmd;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)p->pid);
	if (read_small(AT_FDCWD, path, 256, &t) == 0)
		p->cmd = chomp(t);
	return p->cmd;
}

const char *proc_cgroup(struct proc *p)
{
	char path[64], *t, *line;

	if (p->cgroup_read)
		return p->cgroup;
	p->cgroup_read = true;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)p->pid);
	if (read_small(AT_FDCWD, path, SMALL_FILE_MAX, &t) == 0) {
		line = strstr(t, "0::");
		if (line && (line == t || line[-1] == '\n'))
			p->cgroup = xstrdup(chomp(strtok(line + 3, "\n")));
		free(t);
	}
	return p->cgroup;
}

/* @s is a container id: 12 to 64 lower-case hex digits. */
static bool is_container_id(const char *s, size_t n)
{
	if (n < 12 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

/* systemd's unit-name escaping: "\x2d" is '-'. */
static char *unescape_unit(const char *s, size_t n)
{
	char *out = xrealloc(NULL, n + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		unsigned int c;

		if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' &&
		    sscanf(s + i + 2, "%2x", &c) == 1 && isxdigit((unsigned char)s[i + 3])) {
			*o++ = (char)c;
			i += 3;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

/* Component @comp of length @n as "PREFIX<id>SUFFIX": the id's length. */
static size_t match_id(const char *comp, size_t n, const char *prefix,
		       const char *suffix)
{
	size_t lp = strlen(prefix), ls = strlen(suffix);

	if (n <= lp + ls || strncmp(comp, prefix, lp) ||
	    strncmp(comp + n - ls, suffix, ls) ||
	    !is_container_id(comp + lp, n - lp - ls))
		return 0;
	return n - lp - ls;
}

void container_of_cgroup(const char *path, struct container *c)
{
	static const struct {
		const char *prefix, *suffix, *engine;
	} shapes[] = {
		/* systemd's cgroup driver */
		{ "docker-", ".scope", "docker" },
		{ "cri-containerd-", ".scope", "containerd" },
		{ "libpod-", ".scope", "podman" },
		{ "crio-", ".scope", "cri-o" },
		/* cgroupfs driver: /docker/<id>, /libpod_parent/libpod-<id> */
		{ "libpod-", "", "podman" },
	};
	const char *end = path + strlen(path), *comp, *prev_end = NULL;

	c->unit = c->engine = c->id = NULL;
	/* From the deepest component up. */
	while (end > path) {
		size_t n, idn;

		comp = end;
		while (comp > path && comp[-1] != '/')
			comp--;
		n = (size_t)(end - comp);
		if (n && !c->unit &&
		    ((n > 6 && !strncmp(end - 6, ".scope", 6)) ||
		     (n > 8 && !strncmp(end - 8, ".service", 8))))
			c->unit = xasprintf("%.*s", (int)n, comp);
		for (size_t i = 0; n && !c->engine && i < sizeof(shapes) / sizeof(shapes[0]); i++) {
			idn = match_id(comp, n, shapes[i].prefix, shapes[i].suffix);
			if (idn) {
				c->engine = xstrdup(shapes[i].engine);
				c->id = xasprintf("%.*s", (int)idn,
						  comp + strlen(shapes[i].prefix));
			}
		}
		if (!c->engine && n == 6 && !strncmp(comp, "docker", 6) &&
		    prev_end && is_container_id(end + 1, (size_t)(prev_end - end - 1))) {
			c->engine = xstrdup("docker");
			c->id = xasprintf("%.*s", (int)(prev_end - end - 1), end + 1);
		}
		/* /machine.slice/machine-<name>.scope */
		if (!c->engine && n > 14 && !strncmp(comp, "machine-", 8) &&
		    !strncmp(end - 6, ".scope", 6) && comp - path >= 14 &&
		    !strncmp(comp - 14, "machine.slice/", 14) &&
		    (comp - path == 14 || comp[-15] == '/')) {
			c->engine = xstrdup("systemd-nspawn");
			c->id = unescape_unit(comp + 8, n - 14);
		}
		prev_end = end;
		end = comp > path ? comp - 1 : path;
	}
}

void container_free(struct container *c)
{
	free(c->unit);
	free(c->engine);
	free(c->id);
}
