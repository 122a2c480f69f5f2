// SPDX-License-Identifier: GPL-2.0-only
/*
 * lsnamespaces watch: namespaces as they come and go, from inotify on a
 * namespacefs mount.
 *
 * Each type's directory is watched and, for pid and user, every namespace's
 * directory below it, since nested namespaces are subdirectories of their
 * parent's. The namespaces known are kept in a hash table on (type, inode
 * number); each nested one has its watch, its parent and a list of its
 * children, so that an event costs O(1) and a removal O(1) plus what it
 * takes down with it, whatever the number of namespaces.
 */
#include "lsnamespaces.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * IN_DONT_FOLLOW: a copy may hold links where directories were; they are
 * not namespaces. IN_ONLYDIR likewise for anything else put in their place.
 */
#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
		    IN_ONLYDIR | IN_DONT_FOLLOW)

/* A namespace seen, until its directory goes. */
struct known {
	int type;
	uint64_t inum;
	int wd;			/* nested: the watch of its directory, or -1 */
	bool seen;		/* found by the listing under way */
	struct known *hnext;	/* the hash chain */
	struct known *parent;	/* nested: NULL right below the type's root */
	struct known *kids;	/* nested: the first child */
	struct known *prev, *next;	/* the parent's other children */
};

/* A watched directory: a type's root or a nested namespace's. */
struct wdir {
	int wd;
	int type;
	char *path;
	struct known *ns;	/* NULL for a type's root */
	struct wdir *hnext;	/* the chain of its watch descriptor's slot */
};

/* A type's directory, which stands for the viewer's own namespace. */
struct root {
	char *path;
	int wd;			/* -1: not there, or gone */
	dev_t dev;		/* what it was when first watched */
	ino_t ino;
	uint64_t inum;		/* the parent of the nested ones right below */
	bool has_inum;
};

struct watcher {
	const struct opts *o;
	const char *rootdir;
	bool is_namespacefs;
	bool started;		/* what is found from now on is reported */
	int fd;
	struct root root[NTYPES];
	size_t nroots;
	/*
	 * By watch descriptor: chained, a power of two of heads, no larger
	 * than the watches held (inotify hands descriptors out in a cycle, so
	 * an array indexed by them would grow with every watch ever made).
	 */
	struct wdir **wd;
	size_t nwd;		/* heads */
	size_t nwatches;
	struct known **hash;	/* chained, a power of two of heads */
	size_t hcap, hn;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* ------------------------------------------------------------ output */

/*
 * Events are the program's whole output and a reader may act on each one:
 * every line goes out whole, and a line that cannot is fatal rather than
 * silently missing.
 */
static void flush_out(void)
{
	/* The caller cleared errno before the line, to tell a failed write. */
	if (fflush(stdout) == 0 && !ferror(stdout))
		return;
	if (errno)
		err(EXIT_FAILURE, "write error");
	errx(EXIT_FAILURE, "write error");
}

static void print_event(struct watcher *w, char what, const struct known *k)
{
	const char *name = nstypes[k->type].name;
	const struct root *r = &w->root[k->type];
	bool has_parent = k->parent || r->has_inum;
	uint64_t parent = k->parent ? k->parent->inum : r->inum;

	errno = 0;
	if (w->o->json) {
		printf("{\"event\": \"%s\", \"type\": \"%s\", \"ns\": %" PRIu64,
		       what == '+' ? "add" : "remove", name, k->inum);
		if (nstypes[k->type].nested && has_parent)
			printf(", \"parent\": %" PRIu64, parent);
		else if (nstypes[k->type].nested)
			printf(", \"parent\": null");
		puts("}");
	} else if (nstypes[k->type].nested) {
		if (has_parent)
			printf("%c %s %" PRIu64 " (parent %" PRIu64 ")\n", what,
			       name, k->inum, parent);
		else
			printf("%c %s %" PRIu64 " (parent ?)\n", what, name,
			       k->inum);
	} else {
		printf("%c %s %" PRIu64 "\n", what, name, k->inum);
	}
	flush_out();
}

static void print_lost(struct watcher *w)
{
	errno = 0;
	if (w->o->json)
		puts("{\"event\": \"lost\"}");
	else
		puts("! events were lost; rescanning");
	flush_out();
}

/* ------------------------------------------------------- known namespaces */

static size_t hash_slot(int type, uint64_t inum, size_t cap)
{
	uint64_t h = (inum ^ ((uint64_t)type << 56)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h ^ (h >> 32)) & (cap - 1);
}

static struct known *known_find(const struct watcher *w, int type,
				uint64_t inum)
{
	struct known *k;

	if (!w->hcap)
		return NULL;
	k = w->hash[hash_slot(type, inum, w->hcap)];
	while (k && (k->type != type || k->inum != inum))
		k = k->hnext;
	return k;
}

static void hash_put(struct watcher *w, struct known *k)
{
	struct known **slot;

	if (w->hn >= w->hcap) {
		size_t cap = w->hcap ? 2 * w->hcap : 256;
		struct known **hash = xzalloc(cap * sizeof(*hash));

		for (size_t i = 0; i < w->hcap; i++) {
			while (w->hash[i]) {
				struct known *m = w->hash[i];

				w->hash[i] = m->hnext;
				slot = &hash[hash_slot(m->type, m->inum, cap)];
				m->hnext = *slot;
				*slot = m;
			}
		}
		free(w->hash);
		w->hash = hash;
		w->hcap = cap;
	}
	slot = &w->hash[hash_slot(k->type, k->inum, w->hcap)];
	k->hnext = *slot;
	*slot = k;
	w->hn++;
}

static struct known *known_add(struct watcher *w, int type, uint64_t inum,
			       struct known *parent)
{
	struct known *k = xzalloc(sizeof(*k));

	k->type = type;
	k->inum = inum;
	k->wd = -1;
	k->seen = true;
	k->parent = parent;
	if (parent) {
		k->next = parent->kids;
		if (k->next)
			k->next->prev = k;
		parent->kids = k;
	}
	hash_put(w, k);
	return k;
}

/* Whether @k is @p or one of the namespaces @p is nested in. */
static bool is_ancestor(const struct known *k, const struct known *p)
{
	for (; p; p = p->parent)
		if (p == k)
			return true;
	return false;
}

/* ----------------------------------------------------------------- watches */

/* A sysctl's value, or "?". */
static char *sysctl_value(const char *file)
{
	char *v = NULL;

	if (read_small(AT_FDCWD, file, 64, &v) < 0 || !all_digits(chomp(v))) {
		free(v);
		v = xstrdup("?");
	}
	return v;
}

/*
 * A limit of inotify stopped us: say which, and its values. The limit is
 * per user namespace (user.max_inotify_*, which in the initial one is
 * fs.inotify.max_user_*): in a container, the container's may be the one
 * reached.
 */
static void limit_reached(const char *path, const char *what)
	__attribute__((noreturn));
static void limit_reached(const char *path, const char *what)
{
	char *file = xasprintf("/proc/sys/user/max_inotify_%s", what);
	char *here = sysctl_value(file), *global;

	free(file);
	file = xasprintf("/proc/sys/fs/inotify/max_user_%s", what);
	global = sysctl_value(file);
	errx(EXIT_FAILURE,
	     "cannot watch %s: the limit of inotify %s is reached (user.max_inotify_%s = %s in this user namespace, fs.inotify.max_user_%s = %s); raise it with sysctl",
	     path, what, what, here, what, global);
}

static struct wdir **wd_slot(struct watcher *w, int wd)
{
	return &w->wd[(size_t)wd & (w->nwd - 1)];
}

static struct wdir *wd_find(struct watcher *w, int wd)
{
	if (!w->nwd || wd < 0)
		return NULL;
	for (struct wdir *d = *wd_slot(w, wd); d; d = d->hnext)
		if (d->wd == wd)
			return d;
	return NULL;
}

static void wd_put(struct watcher *w, struct wdir *d)
{
	struct wdir **slot;

	if (w->nwatches + 1 > w->nwd) {
		struct wdir **old = w->wd;
		size_t oldn = w->nwd;

		w->nwd = w->nwd ? 2 * w->nwd : 64;
		w->wd = xzalloc(w->nwd * sizeof(*w->wd));
		for (size_t i = 0; i < oldn; i++)
			while (old[i]) {
				struct wdir *e = old[i];

				old[i] = e->hnext;
				slot = wd_slot(w, e->wd);
				e->hnext = *slot;
				*slot = e;
			}
		free(old);
	}
	slot = wd_slot(w, d->wd);
	d->hnext = *slot;
	*slot = d;
	w->nwatches++;
}

/* What add_watch() returns when it adds none. */
enum { WATCH_GONE = -1, WATCH_TWICE = -2 };

/*
 * Watches the directory @path of a namespace of @type (@k, or NULL for the
 * type's root). Returns the watch descriptor, WATCH_GONE if the directory
 * is gone, or WATCH_TWICE if it is watched already. Not being able to
 * watch it is fatal: the output would miss what it holds.
 */
static int add_watch(struct watcher *w, int type, const char *path,
		     struct known *k)
{
	struct wdir *d;
	int wd = inotify_add_watch(w->fd, path, WATCH_MASK);

	if (wd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return WATCH_GONE;
		if (errno == ENOSPC || errno == ENOMEM)
			limit_reached(path, "watches");
		err(EXIT_FAILURE, "cannot watch %s", path);
	}
	/*
	 * inotify gives an inode one watch: a copy that shows one directory
	 * at two places (a bind mount) gets it watched and walked once,
	 * which also keeps a directory inside itself from being walked
	 * forever.
	 */
	if (wd_find(w, wd))
		return WATCH_TWICE;
	d = xzalloc(sizeof(*d));
	d->wd = wd;
	d->type = type;
	d->path = xstrdup(path);
	d->ns = k;
	wd_put(w, d);
	return wd;
}

static void free_wdir(struct watcher *w, int wd)
{
	struct wdir **p;

	if (!w->nwd)
		return;
	for (p = wd_slot(w, wd); *p; p = &(*p)->hnext) {
		struct wdir *d = *p;

		if (d->wd != wd)
			continue;
		*p = d->hnext;
		free(d->path);
		free(d);
		w->nwatches--;
		return;
	}
}

/*
 * Ends a watch of ours. Its record goes now: the events still queued for
 * it, its IN_IGNORED included, find none and are dropped, and none can
 * be taken for another directory's, since inotify hands out watch
 * descriptors in a cycle up to INT_MAX. The kernel may have ended it
 * already (the directory went): then inotify_rm_watch() fails, harmlessly.
 */
static void drop_watch(struct watcher *w, int wd)
{
	inotify_rm_watch(w->fd, wd);
	free_wdir(w, wd);
}

static void root_gone(struct watcher *w, int type)
{
	w->root[type].wd = -1;
	if (!--w->nroots)
		errx(EXIT_FAILURE, "%s: the namespacefs mount went away",
		     w->rootdir);
}

/* ---------------------------------------------------- coming and going */

static void forget(struct watcher *w, struct known *k)
{
	struct known **p = &w->hash[hash_slot(k->type, k->inum, w->hcap)];

	if (w->started)
		print_event(w, '-', k);
	if (k->wd >= 0)
		drop_watch(w, k->wd);
	while (*p != k)
		p = &(*p)->hnext;
	*p = k->hnext;
	w->hn--;
	if (k->prev)
		k->prev->next = k->next;
	else if (k->parent)
		k->parent->kids = k->next;
	if (k->next)
		k->next->prev = k->prev;
	free(k);
}

/*
 * A namespace went, and with it what is nested in it. The kernel removes
 * children before their parent, which they keep alive, so children are
 * known here only if their removal was lost: they are reported first,
 * deepest first, as if their events had come.
 */
static void vanished(struct watcher *w, struct known *k)
{
	struct known *top = k;

	for (;;) {
		struct known *up;
		bool last;

		while (k->kids)
			k = k->kids;
		up = k->parent;
		last = k == top;
		forget(w, k);
		if (last)
			break;
		k = up;
	}
}

static void walk(struct watcher *w, int type, const char *path,
		 struct known *parent);

/*
 * Watches the directory of a nested namespace @k, named @name in @dirpath,
 * if it is not watched yet, then lists it; if the directory is gone, so is
 * @k. The watch comes first: what is created before it is in the listing,
 * what is created after it gets an event, and what is in both is known
 * once.
 */
static void visit(struct watcher *w, struct known *k, const char *dirpath,
		  const char *name)
{
	char *path = xasprintf("%s/%s", dirpath, name);
	int wd = k->wd;

	if (wd < 0)
		wd = add_watch(w, k->type, path, k);
	if (wd >= 0) {
		k->wd = wd;
		walk(w, k->type, path, k);
	} else if (wd == WATCH_GONE) {
		/*
		 * It went since it was listed or its event was queued. Its
		 * IN_DELETE, if it comes, will find it gone already.
		 */
		vanished(w, k);
	}
	free(path);
}

/*
 * Lists the directory @path (of @parent, NULL for the type's root): marks
 * what is known as seen and adds what is not, reporting it once the
 * watcher has started, and walks down the nested namespaces.
 */
static void walk(struct watcher *w, int type, const char *path,
		 struct known *parent)
{
	struct dirent_num *d;
	size_t n = list_ns_dirs(path, &d);

	for (size_t i = 0; i < n; i++) {
		struct known *k = known_find(w, type, d[i].inum);

		/*
		 * Known under another parent: the one known went with its
		 * removal lost, and this is a new one with its number. Unless
		 * it is where the walk came from, which only a copy can
		 * show: a directory inside itself.
		 */
		if (k && k->parent != parent) {
			if (is_ancestor(k, parent))
				goto next;
			vanished(w, k);
			k = NULL;
		}
		if (!k) {
			k = known_add(w, type, d[i].inum, parent);
			if (w->started)
				print_event(w, '+', k);
		} else if (k->seen) {
			/* Two names of one number ("7", "07"): a copy. */
			goto next;
		}
		k->seen = true;
		if (nstypes[type].nested)
			visit(w, k, path, d[i].name);
next:
		free(d[i].name);
	}
	free(d);
}

/*
 * Lists everything again after events were lost, and reports the
 * difference with what was known: what is new as it is found, then what is
 * gone, each subtree deepest first.
 */
static void rescan(struct watcher *w)
{
	struct known **gone;
	size_t ngone = 0;

	/*
	 * An unmount's IN_IGNORED may be among what was lost: a type root
	 * that is no longer the directory first watched is gone.
	 */
	for (int t = 0; t < NTYPES; t++) {
		struct root *r = &w->root[t];
		struct stat st;

		if (r->wd < 0)
			continue;
		if (lstat(r->path, &st) < 0 || st.st_dev != r->dev ||
		    st.st_ino != r->ino) {
			drop_watch(w, r->wd);
			root_gone(w, t);
		}
	}
	for (size_t i = 0; i < w->hcap; i++)
		for (struct known *k = w->hash[i]; k; k = k->hnext)
			k->seen = false;
	for (int t = 0; t < NTYPES; t++)
		if (w->root[t].wd >= 0)
			walk(w, t, w->root[t].path, NULL);
	/*
	 * What is nested in a namespace not seen was not seen either: the
	 * tops of the subtrees gone are those whose parent was seen.
	 */
	gone = xrealloc(NULL, (w->hn + 1) * sizeof(*gone));
	for (size_t i = 0; i < w->hcap; i++)
		for (struct known *k = w->hash[i]; k; k = k->hnext)
			if (!k->seen && (!k->parent || k->parent->seen))
				gone[ngone++] = k;
	for (size_t i = 0; i < ngone; i++)
		vanished(w, gone[i]);
	free(gone);
}

static void handle_event(struct watcher *w, const struct inotify_event *ev)
{
	struct wdir *d;
	struct known *k;
	uint64_t inum;

	if (ev->mask & IN_Q_OVERFLOW) {
		print_lost(w);
		rescan(w);
		return;
	}
	d = wd_find(w, ev->wd);
	if (!d)
		return;
	if (ev->mask & IN_IGNORED) {
		/* The directory went, or its file system: so did the watch. */
		if (d->ns)
			d->ns->wd = -1;
		else
			root_gone(w, d->type);
		free_wdir(w, ev->wd);
		return;
	}
	if (!(ev->mask & IN_ISDIR) || !ev->len ||
	    !parse_u64(ev->name, UINT32_MAX, &inum))
		return;
	k = known_find(w, d->type, inum);
	if (ev->mask & (IN_CREATE | IN_MOVED_TO)) {
		/*
		 * Known already: a listing found it after this event was
		 * queued, so what it knows is newer.
		 */
		if (k)
			return;
		k = known_add(w, d->type, inum, d->ns);
		print_event(w, '+', k);
		if (nstypes[d->type].nested)
			visit(w, k, d->path, ev->name);
	} else if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
		/* Under another parent, it is another with the same number. */
		if (k && k->parent == d->ns)
			vanished(w, k);
	}
}

/* ------------------------------------------------------------------ setup */

static void watch_roots(struct watcher *w)
{
	for (int t = 0; t < NTYPES; t++) {
		struct root *r = &w->root[t];
		struct stat st;
		char *file, *text;

		r->wd = -1;
		if (w->o->types && !(w->o->types & (1u << t)))
			continue;
		r->path = xasprintf("%s/%s", w->rootdir, nstypes[t].name);
		r->wd = add_watch(w, t, r->path, NULL);
		/* A type this kernel, or this copy, does not have. */
		if (r->wd < 0)
			continue;
		w->nroots++;
		if (lstat(r->path, &st) < 0)
			err(EXIT_FAILURE, "%s", r->path);
		r->dev = st.st_dev;
		r->ino = st.st_ino;
		file = xasprintf("%s/inum", r->path);
		if (read_small(AT_FDCWD, file, 64, &text) == 0) {
			if (!parse_u64(chomp(text), UINT32_MAX, &r->inum))
				bad_input(file, 0, "number", text);
			r->has_inum = true;
			free(text);
		} else if (w->is_namespacefs) {
			r->inum = st.st_ino;
			r->has_inum = true;
		}
		free(file);
	}
}

static void free_watcher(struct watcher *w)
{
	for (size_t i = 0; i < w->hcap; i++) {
		while (w->hash[i]) {
			struct known *k = w->hash[i];

			w->hash[i] = k->hnext;
			free(k);
		}
	}
	free(w->hash);
	for (size_t i = 0; i < w->nwd; i++)
		while (w->wd[i])
			free_wdir(w, w->wd[i]->wd);
	free(w->wd);
	for (int t = 0; t < NTYPES; t++)
		free(w->root[t].path);
	close(w->fd);
}

int cmd_watch(struct opts *o, struct nsset *s)
{
	struct watcher w = { .o = o, .rootdir = s->rootdir,
			     .is_namespacefs = s->is_namespacefs };
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, unblocked;
	char buf[64 * 1024]
		__attribute__((aligned(__alignof__(struct inotify_event))));

	if (o->proc)
		errx(EXIT_FAILURE, "watch needs namespacefs; it cannot use --proc");
	setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * The signals that end the watch are let in only while it waits
	 * (ppoll), so that one that comes just before the wait cannot be
	 * missed and leave the wait to the next event.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	sigdelset(&unblocked, SIGINT);
	sigdelset(&unblocked, SIGTERM);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	w.fd = inotify_init1(IN_CLOEXEC);
	if (w.fd < 0) {
		if (errno == EMFILE)
			limit_reached(w.rootdir, "instances");
		err(EXIT_FAILURE, "inotify");
	}
	watch_roots(&w);
	if (!w.nroots)
		errx(EXIT_FAILURE, "%s: nothing to watch", w.rootdir);
	for (int t = 0; t < NTYPES; t++)
		if (w.root[t].wd >= 0)
			walk(&w, t, w.root[t].path, NULL);
	w.started = true;
	warnx("watching %zu director%s in %s", w.nwatches,
	      w.nwatches == 1 ? "y" : "ies", w.rootdir);

	while (!stop) {
		struct pollfd pfd = { .fd = w.fd, .events = POLLIN };
		ssize_t n;

		if (ppoll(&pfd, 1, NULL, &unblocked) < 0) {
			if (errno == EINTR)
				continue;
			err(EXIT_FAILURE, "inotify");
		}
		/* Ready, and with the signals blocked: it cannot block. */
		n = read(w.fd, buf, sizeof(buf));
		if (n < 0)
			err(EXIT_FAILURE, "inotify");
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const void *)p;

			handle_event(&w, ev);
			p += sizeof(*ev) + ev->len;
		}
	}
	free_watcher(&w);
	return 0;
}
