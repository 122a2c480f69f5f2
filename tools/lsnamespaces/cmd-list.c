// SPDX-License-Identifier: GPL-2.0-only
/*
 * The default command: every namespace, as a tree or a list; with -p only
 * a process's namespaces; with a namespace argument, its processes.
 */
#include "lsnamespaces.h"

#include <stdlib.h>
#include <string.h>

struct printer {
	struct opts *o;
	struct nsset *s;
	struct rows rows;
	bool flat;
	/* -T process: the namespaces by their lowest PID */
	struct ns **by_pid;
	size_t nby_pid;
};

/* Of a type asked for (not only read, as -T owner's user namespaces). */
static bool shown(const struct printer *pr, const struct ns *ns)
{
	return (!pr->o->types || (pr->o->types & (1u << ns->type))) &&
	       (!pr->o->task || has_pid(ns, pr->o->task));
}

static struct row *emit(struct printer *pr, struct ns *ns, struct row *parent)
{
	pid_t pid = ns->nprocs ? ns->procs[0] : 0;
	struct row *row = row_add(&pr->rows, ns, pid, pr->flat ? NULL : parent);

	ns->row = row;
	if (pid && !proc_get(pid)->row)
		proc_get(pid)->row = row;
	return row;
}

/* The default: pid and user namespaces under their parent, others flat. */
static void emit_nested(struct printer *pr, struct ns *ns,
			struct row *parent)
{
	struct row *ln = parent;

	if (shown(pr, ns))
		ln = emit(pr, ns, parent);
	for (size_t i = 0; i < ns->nkids; i++)
		emit_nested(pr, ns->kids[i], ln);
}

static void emit_by_parent(struct printer *pr)
{
	struct nsset *s = pr->s;

	for (size_t i = 0; i < s->n; i++) {
		struct ns *ns = s->v[i];

		if (nstypes[ns->type].nested) {
			if (!ns->parent)
				emit_nested(pr, ns, NULL);
		} else if (shown(pr, ns)) {
			emit(pr, ns, NULL);
		}
	}
}

/* -T parent, as lsns: under the parent, else under the owner. */
static void emit_related(struct printer *pr, struct ns *ns)
{
	struct ns *rel = ns->parent ? ns->parent : ns->owner;

	if (ns->row)
		return;
	if (rel && shown(pr, rel)) {
		emit_related(pr, rel);
		emit(pr, ns, rel->row);
	} else {
		emit(pr, ns, NULL);
	}
}

static void emit_owner_tree(struct printer *pr, struct ns *user,
			    struct row *parent)
{
	struct row *ln = parent;

	if (user->needed)
		ln = emit(pr, user, parent);
	for (int t = 0; t < NTYPES; t++)
		for (size_t i = 0; i < user->nowned; i++)
			if (user->owned[i]->type == t && user->owned[i]->shown)
				emit(pr, user->owned[i], ln);
	for (size_t i = 0; i < user->nkids; i++)
		emit_owner_tree(pr, user->kids[i], ln);
}

/* -T owner: the user namespaces by parent, each with what it owns. */
static void emit_by_owner(struct printer *pr)
{
	struct nsset *s = pr->s;

	for (size_t i = 0; i < s->n; i++) {
		struct ns *ns = s->v[i];

		ns->shown = shown(pr, ns);
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
	for (size_t i = 0; i < s->n; i++) {
		struct ns *ns = s->v[i];

		if (ns->type != T_USER && ns->shown && !ns->owner)
			emit(pr, ns, NULL);
	}
}

static int cmp_by_pid(const void *a, const void *b)
{
	const struct ns *x = *(struct ns *const *)a, *y = *(struct ns *const *)b;

	return cmp_pid(&x->procs[0], &y->procs[0]);
}

static struct ns *ns_of_pid(struct printer *pr, pid_t pid)
{
	size_t lo = 0, hi = pr->nby_pid;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		pid_t p = pr->by_pid[mid]->procs[0];

		if (p == pid) {
			/* The first of them, as the order of lines goes. */
			while (mid && pr->by_pid[mid - 1]->procs[0] == pid)
				mid--;
			return pr->by_pid[mid];
		}
		if (p < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * -T process, as lsns: a namespace under the line of a namespace whose
 * lowest process is the parent of its own lowest process.
 */
static void emit_process_tree(struct printer *pr, struct ns *ns, int depth)
{
	struct row *parent = NULL;
	pid_t ppid;

	if (ns->row)
		return;
	if (ns->nprocs && depth < 4096 &&
	    proc_ppid(proc_get(ns->procs[0]), &ppid) && ppid) {
		struct proc *pp = proc_get(ppid);
		struct ns *pns = pp->row ? NULL : ns_of_pid(pr, ppid);

		if (pns && pns != ns)
			emit_process_tree(pr, pns, depth + 1);
		parent = pp->row;
	}
	emit(pr, ns, parent);
}

static void emit_by_process(struct printer *pr)
{
	struct nsset *s = pr->s;

	for (size_t i = 0; i < s->n; i++)
		if (shown(pr, s->v[i]) && s->v[i]->nprocs)
			add_ptr((void ***)&pr->by_pid, &pr->nby_pid, s->v[i]);
	if (pr->nby_pid > 1)
		qsort(pr->by_pid, pr->nby_pid, sizeof(*pr->by_pid), cmp_by_pid);
	for (size_t i = 0; i < s->n; i++)
		if (shown(pr, s->v[i]))
			emit_process_tree(pr, s->v[i], 0);
	free(pr->by_pid);
}

/* A namespace's processes, each under its parent if that is a member. */
static void emit_member(struct printer *pr, struct ns *ns, pid_t pid, int depth)
{
	struct proc *p = proc_get(pid);
	struct row *parent = NULL;
	pid_t ppid;

	if (p->row)
		return;
	if (!pr->flat && depth < 4096 && proc_ppid(p, &ppid) &&
	    has_pid(ns, ppid)) {
		emit_member(pr, ns, ppid, depth + 1);
		parent = proc_get(ppid)->row;
	}
	p->row = row_add(&pr->rows, ns, pid, parent);
}

static struct ns *find_any_type(const struct nsset *s, uint64_t inum)
{
	for (int t = 0; t < NTYPES; t++) {
		struct ns *ns = ns_find(s, t, inum);

		if (ns)
			return ns;
	}
	return NULL;
}

/* The column that draws the tree: NS, or COMMAND for processes. */
static int tree_column(const struct opts *o, int want)
{
	for (size_t i = 0; i < o->ncols; i++)
		if (o->cols[i] == want)
			return (int)i;
	return 0;
}

int cmd_tree(struct opts *o, struct nsset *s)
{
	static const int defaults[] = { C_NS, C_TYPE, C_NPROCS, C_PID, C_USER,
					C_COMMAND };
	static const int net_defaults[] = { C_NS, C_TYPE, C_NPROCS, C_PID,
					    C_USER, C_NETNSID, C_NSFS,
					    C_COMMAND };
	static const int member_defaults[] = { C_PID, C_PPID, C_USER,
					       C_COMMAND };
	struct printer pr = { .o = o, .s = s };

	if (o->nsarg)
		parse_columns(o, member_defaults, 4);
	else if (o->types & (1u << T_NET))
		parse_columns(o, net_defaults, 8);
	else
		parse_columns(o, defaults, 6);
	if (o->list || o->filter)
		o->tree = TREE_NONE;
	else if (o->tree == TREE_DEFAULT && o->nsarg)
		o->tree = TREE_PROCESS;
	pr.flat = o->tree == TREE_NONE;

	s->need = columns_need(o);
	if (o->tree != TREE_NONE && o->tree != TREE_PROCESS)
		s->need |= NEED_RELATIONS;
	/* -T owner: the user namespaces above what is shown are lines too. */
	if (o->tree == TREE_OWNER)
		s->types |= 1u << T_USER;
	if (o->task || o->nsarg || o->tree == TREE_PROCESS)
		s->need |= NEED_PROCS;
	if (o->nsarg)
		s->types = ALL_TYPES;
	load(s);

	pr.rows = (struct rows){ .o = o, .s = s, .name = "namespaces",
				 .tree_col = -1 };
	if (!pr.flat)
		pr.rows.tree_col = tree_column(o, o->nsarg ||
						     o->tree == TREE_PROCESS ?
						     C_COMMAND : C_NS);
	if (o->nsarg) {
		struct ns *ns = find_any_type(s, o->nsarg);

		if (!ns)
			errx(EXIT_FAILURE, "not found namespace: %llu",
			     (unsigned long long)o->nsarg);
		for (size_t i = 0; i < ns->nprocs; i++)
			emit_member(&pr, ns, ns->procs[i], 0);
	} else if (o->tree == TREE_OWNER) {
		emit_by_owner(&pr);
	} else if (o->tree == TREE_PARENT) {
		for (size_t i = 0; i < s->n; i++)
			if (shown(&pr, s->v[i]))
				emit_related(&pr, s->v[i]);
	} else if (o->tree == TREE_PROCESS) {
		emit_by_process(&pr);
	} else {
		emit_by_parent(&pr);
	}
	rows_print(&pr.rows);
	report_denied(s);
	free_set(s);
	return 0;
}
