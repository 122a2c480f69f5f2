// SPDX-License-Identifier: GPL-2.0-only
/*
 * containers: the pid namespaces below the viewer's that have processes,
 * one a line, named by the host name of their lowest PID's uts namespace
 * and by what its cgroup says: the systemd unit, the engine and the
 * container's id.
 */
#include "lsnamespaces.h"

#include <stdlib.h>

static void emit_containers(struct rows *rows, struct ns *ns)
{
	if (!ns->is_root && ns->nprocs)
		row_add(rows, ns, ns->procs[0], NULL);
	for (size_t i = 0; i < ns->nkids; i++)
		emit_containers(rows, ns->kids[i]);
}

int cmd_containers(struct opts *o, struct nsset *s)
{
	static const int defaults[] = { C_HOSTNAME, C_ENGINE, C_CONTAINER,
					C_UNIT, C_NS, C_NPROCS, C_PIDS,
					C_USER, C_COMMAND };
	struct rows rows = { .o = o, .s = s, .name = "containers",
			     .tree_col = -1 };

	parse_columns(o, defaults, sizeof(defaults) / sizeof(defaults[0]));
	s->types = 1u << T_PID;
	s->need = columns_need(o) | NEED_PROCS | NEED_RELATIONS;
	load(s);
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i]->type == T_PID && !s->v[i]->parent)
			emit_containers(&rows, s->v[i]);
	rows_print(&rows);
	report_denied(s);
	free_set(s);
	return 0;
}
