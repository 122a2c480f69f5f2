// SPDX-License-Identifier: GPL-2.0-only
/*
 * metrics: the namespaces counted in Prometheus's text exposition format,
 * for node_exporter's textfile collector: per type, per type and creator,
 * those no process is in, the processes outside the viewer's own
 * namespaces, and the per-user limits of /proc/sys/user (of this machine:
 * left out with --root, whose tree may be a copy from another), and, where
 * namespacefs's stats file has them, the namespaces of each type created
 * and destroyed since boot.
 */
#include "lsnamespaces.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct by_creator {
	int type;
	uid_t uid;
};

static int cmp_by_creator(const void *a, const void *b)
{
	const struct by_creator *x = a, *y = b;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* A metric family's header; @kind is Prometheus's type (gauge, counter). */
static void header(const char *name, const char *kind, const char *help)
{
	printf("# HELP lsnamespaces_%s %s\n", name, help);
	printf("# TYPE lsnamespaces_%s %s\n", name, kind);
}

static void sample(const char *name, int type, uint64_t v)
{
	printf("lsnamespaces_%s{type=\"%s\"} %" PRIu64 "\n", name,
	       nstypes[type].name, v);
}

/* /proc/sys/user/max_TYPE_namespaces, or false if it cannot be read. */
static bool user_limit(int type, uint64_t *v)
{
	char *path = xasprintf("/proc/sys/user/max_%s_namespaces",
			       nstypes[type].name);
	struct lines l;
	char *line;
	bool ok = false;

	if (lines_open(&l, AT_FDCWD, path, path) == 0) {
		line = lines_next(&l);
		if (line && !parse_u64(line, INT32_MAX, v))
			bad_input(path, l.lineno, "limit", line);
		ok = line != NULL;
		lines_close(&l);
	}
	free(path);
	return ok;
}

/*
 * Created and destroyed since boot, per type, from namespacefs's stats file
 * (a mount made in the initial user namespace has them); false where there
 * are none: --proc, an older kernel, another mount.
 */
static bool read_totals(const struct nsset *s, uint64_t made[NTYPES],
			uint64_t gone[NTYPES])
{
	char *path, *line, *f[5], *save;
	bool any = false;
	struct lines l;
	int n, t;

	if (s->proc)
		return false;
	path = xasprintf("%s/stats", s->rootdir);
	if (lines_open(&l, AT_FDCWD, path, path)) {
		free(path);
		return false;
	}
	while ((line = lines_next(&l))) {
		uint64_t shown;

		n = 0;
		for (char *w = strtok_r(line, " ", &save); w && n < 5;
		     w = strtok_r(NULL, " ", &save))
			f[n++] = w;
		t = n ? type_by_name(f[0]) : -1;
		if (t < 0 || (n != 2 && n != 4) ||
		    !parse_u64(f[1], UINT64_MAX, &shown))
			bad_input(path, l.lineno, "line", line);
		if (n == 2)
			continue;
		if (!parse_u64(f[2], UINT64_MAX, &made[t]) ||
		    !parse_u64(f[3], UINT64_MAX, &gone[t]))
			bad_input(path, l.lineno, "line", line);
		any = true;
	}
	lines_close(&l);
	free(path);
	return any;
}

int cmd_metrics(struct opts *o, struct nsset *s)
{
	uint64_t made[NTYPES] = { 0 }, gone[NTYPES] = { 0 };
	uint64_t count[NTYPES] = { 0 }, noproc[NTYPES] = { 0 };
	uint64_t procs[NTYPES] = { 0 }, limit;
	struct by_creator *bc = NULL;
	size_t nbc = 0, cap = 0, i, j;

	if (o->outarg || o->all_cols || o->json || o->list || o->raw ||
	    o->noheadings || o->filter || o->tree != TREE_DEFAULT)
		errx(EXIT_FAILURE, "metrics takes no output options (its format is Prometheus's)");
	s->need = NEED_PROCS | NEED_CREATOR;
	load(s);

	/* The namespaces in creator order: one count per (type, creator). */
	for (i = 0; i < s->n; i++) {
		const struct ns *ns = s->v[i];

		if (!ns->wanted)
			continue;
		count[ns->type]++;
		if (ns->procs_known && !ns->nprocs)
			noproc[ns->type]++;
		if (!ns->is_root)
			procs[ns->type] += ns->nprocs;
		if (!ns->has_creator)
			continue;
		if (nbc == cap) {
			cap = cap ? 2 * cap : 64;
			bc = xrealloc(bc, cap * sizeof(*bc));
		}
		bc[nbc++] = (struct by_creator){ ns->type, ns->creator };
	}
	if (nbc)
		qsort(bc, nbc, sizeof(*bc), cmp_by_creator);

	header("namespaces", "gauge", "Namespaces of each type that the source shows.");
	for (int t = 0; t < NTYPES; t++)
		if (s->types & (1u << t))
			sample("namespaces", t, count[t]);
	header("namespaces_by_creator", "gauge",
	       "Namespaces of each type by the uid that created their owning user namespace.");
	for (i = 0; i < nbc; i = j) {
		for (j = i; j < nbc && bc[j].type == bc[i].type &&
			    bc[j].uid == bc[i].uid; j++)
			;
		printf("lsnamespaces_namespaces_by_creator{type=\"%s\",uid=\"%u\"} %zu\n",
		       nstypes[bc[i].type].name, (unsigned int)bc[i].uid,
		       j - i);
	}
	header("namespaces_without_processes", "gauge",
	       "Namespaces of each type that no process is in, held by a bind mount, an open file, a child or the kernel.");
	for (int t = 0; t < NTYPES; t++)
		if (s->types & (1u << t))
			sample("namespaces_without_processes", t, noproc[t]);
	header("processes_outside_own_namespace", "gauge",
	       "Processes in a namespace of each type other than the viewer's own.");
	for (int t = 0; t < NTYPES; t++)
		if (s->types & (1u << t))
			sample("processes_outside_own_namespace", t, procs[t]);
	if (!o->root)
		header("user_namespaces_limit", "gauge",
		       "The most namespaces of each type that one user may create in a user namespace (/proc/sys/user/max_TYPE_namespaces).");
	for (int t = 0; t < NTYPES && !o->root; t++)
		if ((s->types & (1u << t)) && user_limit(t, &limit))
			sample("user_namespaces_limit", t, limit);
	if (read_totals(s, made, gone)) {
		header("namespaces_created_total", "counter",
			"Namespaces of each type that the machine created since boot, the initial ones included.");
		for (int t = 0; t < NTYPES; t++)
			if (s->types & (1u << t))
				sample("namespaces_created_total", t, made[t]);
		header("namespaces_destroyed_total", "counter",
			"Namespaces of each type that the machine destroyed since boot.");
		for (int t = 0; t < NTYPES; t++)
			if (s->types & (1u << t))
				sample("namespaces_destroyed_total", t, gone[t]);
	}
	free(bc);
	report_denied(s);
	free_set(s);
	return 0;
}
