// SPDX-License-Identifier: GPL-2.0-only
/*
 * The namespaces a source found: a vector, a hash on (type, inode number),
 * and the links between them (parent, owner, children, owned).
 */
#include "lsnamespaces.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t ns_hash(int type, uint64_t inum, size_t cap)
{
	uint64_t h = (inum * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)type;

	return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

struct ns *ns_find(const struct nsset *s, int type, uint64_t inum)
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

struct ns *ns_new(struct nsset *s, int type)
{
	struct ns *ns = arena_take(&s->arena, sizeof(*ns));

	ns->type = type;
	ns->fd = -1;
	return ns;
}

static void ns_free(struct ns *ns)
{
	if (ns->fd >= 0)
		close(ns->fd);
	free(ns->dir);
	free(ns->nspath);
	free(ns->procs);
	free(ns->hostname);
	free(ns->detail);
	free(ns->kids);
	free(ns->owned);
}

void ns_add(struct nsset *s, struct ns *ns)
{
	ns->wanted = s->types & (1u << ns->type);
	add_ptr((void ***)&s->v, &s->n, ns);
	hash_put(s, ns);
}

void add_pid(struct ns *ns, pid_t pid)
{
	/* Room for 8, then doubled: most namespaces have a few processes. */
	if (ns->nprocs >= 8 && !(ns->nprocs & (ns->nprocs - 1)))
		ns->procs = xrealloc(ns->procs, 2 * ns->nprocs * sizeof(pid_t));
	else if (!ns->nprocs)
		ns->procs = xrealloc(ns->procs, 8 * sizeof(pid_t));
	ns->procs[ns->nprocs++] = pid;
	ns->procs_known = true;
}

bool has_pid(const struct ns *ns, pid_t pid)
{
	return ns->nprocs &&
	       bsearch(&pid, ns->procs, ns->nprocs, sizeof(pid_t), cmp_pid);
}

/*
 * The order of a listing: by type, the type's own namespace first, then by
 * inode number (below 2^32: proc_inum is an unsigned int, and both
 * sources parse it so).
 */
static uint64_t ns_order(const struct ns *ns)
{
	return (uint64_t)ns->type << 60 | (uint64_t)!ns->is_root << 59 |
	       (ns->inum & 0xffffffffULL);
}

/*
 * Sorts the set in that order: a radix sort, a byte of the key a pass,
 * passes where every key has the same byte skipped (most of them). At
 * thousands of namespaces qsort()'s comparisons were a tenth of a
 * listing's time.
 */
static void sort_set(struct nsset *s)
{
	size_t n = s->n;
	uint64_t *key = xrealloc(NULL, 2 * n * sizeof(*key)), *key2 = key + n;
	struct ns **v2 = xrealloc(NULL, n * sizeof(*v2)), **v = s->v;

	for (size_t i = 0; i < n; i++)
		key[i] = ns_order(v[i]);
	for (unsigned int shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 }, pos = 0;
		uint64_t *kt;
		struct ns **vt;

		for (size_t i = 0; i < n; i++)
			count[key[i] >> shift & 0xff]++;
		if (count[key[0] >> shift & 0xff] == n)
			continue;
		for (size_t d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++) {
			size_t to = count[key[i] >> shift & 0xff]++;

			key2[to] = key[i];
			v2[to] = v[i];
		}
		kt = key, key = key2, key2 = kt;
		vt = v, v = v2, v2 = vt;
	}
	if (v != s->v) {
		memcpy(s->v, v, n * sizeof(*v));
		v2 = v;
	}
	free(key < key2 ? key : key2);
	free(v2);
}

void link_all(struct nsset *s)
{
	if (s->n > 1)
		sort_set(s);
	for (size_t i = 0; i < s->n; i++) {
		struct ns *ns = s->v[i];

		if (ns->has_parent && !ns->parent)
			ns->parent = ns_find(s, ns->type, ns->parent_inum);
		if (ns->parent)
			add_ptr((void ***)&ns->parent->kids, &ns->parent->nkids, ns);
		/* A user namespace's owner is its parent. */
		if (ns->type == T_USER && ns->has_parent) {
			ns->has_owner = true;
			ns->owner_inum = ns->parent_inum;
		}
		if (ns->owner_is_user_root && s->root[T_USER]) {
			ns->owner_inum = s->root[T_USER]->inum;
			ns->has_owner = true;
		}
		if (ns->has_owner)
			ns->owner = ns_find(s, T_USER, ns->owner_inum);
		if (ns->type != T_USER && ns->owner)
			add_ptr((void ***)&ns->owner->owned, &ns->owner->nowned, ns);
	}
}

/* Levels not read from a file: one more than the parent's. */
void fill_levels(struct nsset *s)
{
	/* Sorted by type, roots first, parents before children. */
	for (size_t i = 0; i < s->n; i++) {
		struct ns *ns = s->v[i];
		int depth = 0;
		struct ns *p;

		if (!nstypes[ns->type].nested || ns->has_level)
			continue;
		for (p = ns; p && !p->has_level; p = p->parent)
			depth++;
		if (p) {
			ns->level = p->level + depth;
			ns->has_level = true;
		} else if (s->proc) {
			/* --proc: the depth below the top this process sees. */
			ns->level = depth - 1;
			ns->has_level = true;
		}
	}
}

void load(struct nsset *s)
{
	if (s->proc)
		proc_load(s);
	else
		fs_load(s);
	link_all(s);
	if (s->need & (NEED_LEVEL | NEED_DETAIL))
		fill_levels(s);
	if (s->proc && (s->need & (NEED_DETAIL | NEED_HOSTNAME)))
		proc_details(s);
}

void report_denied(const struct nsset *s)
{
	if (s->denied_files)
		warnx("%u file%s could not be read (permission denied); run as root to see everything",
		      s->denied_files, s->denied_files == 1 ? "" : "s");
	if (s->denied_procs)
		warnx("%u process%s could not be inspected (permission denied); run as root to see everything",
		      s->denied_procs, s->denied_procs == 1 ? "" : "es");
}

void free_set(struct nsset *s)
{
	for (size_t i = 0; i < s->n; i++)
		ns_free(s->v[i]);
	arena_free(&s->arena);
	free(s->v);
	free(s->hash);
	s->v = NULL;
	s->hash = NULL;
	s->n = s->hcap = s->hn = 0;
}
