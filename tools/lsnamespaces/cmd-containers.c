// SPDX-License-Identifier: GPL-2.0-only
/*
 * containers: the pid namespaces below the viewer's that have processes,
 * one a line, named by the host name of their lowest PID's uts namespace
 * and by what its cgroup says: the systemd unit, the engine and the
 * container's id.
 */
#include "lsnamespaces.h"

#include <stdlib.h>

static void emit_containers(struct opts *o, struct nsset *s,
			    struct libscols_table *tb, struct ns *ns)
{
	if (!ns->is_root && ns->nprocs) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			errx(EXIT_FAILURE, "out of memory");
		fill_line(o, s, ns, ns->procs[0], ln);
	}
	for (size_t i = 0; i < ns->nkids; i++)
		emit_containers(o, s, tb, ns->kids[i]);
}

int cmd_containers(struct opts *o, struct nsset *s)
{
	static const int defaults[] = { C_HOSTNAME, C_ENGINE, C_CONTAINER,
					C_UNIT, C_NS, C_NPROCS, C_PIDS,
					C_USER, C_COMMAND };
	struct libscols_table *tb;

	parse_columns(o, defaults, sizeof(defaults) / sizeof(defaults[0]));
	s->types = 1u << T_PID;
	s->need = columns_need(o) | NEED_PROCS | NEED_RELATIONS;
	load(s);
	tb = new_table(o, "containers", -1);
	apply_filter(o, tb);
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i]->type == T_PID && !s->v[i]->parent)
			emit_containers(o, s, tb, s->v[i]);
	print_table(o, tb);
	scols_unref_table(tb);
	report_denied(s);
	free_set(s);
	return 0;
}
