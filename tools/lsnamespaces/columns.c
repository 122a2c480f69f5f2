// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one column table: lsns's columns with lsns's names, meanings and JSON
 * keys and values, then lsnamespaces's own; and what each cell says.
 */
#include "lsnamespaces.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define P NEED_PROCS
const struct coldesc columns[NCOLS] = {
	[C_NS] = { "NS", 10, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, 0,
		   "namespace identifier (inode number)" },
	[C_TYPE] = { "TYPE", 5, 0, SCOLS_JSON_STRING, 0, "kind of namespace" },
	[C_PATH] = { "PATH", 0, 0, SCOLS_JSON_STRING, P,
		     "path to the namespace" },
	[C_NPROCS] = { "NPROCS", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, P,
		       "number of processes in the namespace" },
	[C_PID] = { "PID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, P,
		    "lowest PID in the namespace" },
	[C_PPID] = { "PPID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, P,
		     "PPID of the PID" },
	[C_COMMAND] = { "COMMAND", 0, SCOLS_FL_TRUNC, SCOLS_JSON_STRING, P,
			"command line of the PID" },
	[C_UID] = { "UID", 0, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		    P | NEED_CREATOR_NOPROC, "UID of the PID" },
	[C_USER] = { "USER", 0, 0, SCOLS_JSON_STRING, P | NEED_CREATOR_NOPROC,
		     "username of the PID" },
	[C_NETNSID] = { "NETNSID", 0, SCOLS_FL_RIGHT, SCOLS_JSON_STRING, P,
			"namespace ID as used by network subsystem" },
	[C_NSFS] = { "NSFS", 0, SCOLS_FL_WRAP, SCOLS_JSON_STRING, 0,
		     "nsfs mountpoint (usually used network subsystem)" },
	[C_PNS] = { "PNS", 10, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		    NEED_RELATIONS, "parent namespace identifier (inode number)" },
	[C_ONS] = { "ONS", 10, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		    NEED_RELATIONS, "owner namespace identifier (inode number)" },
	[C_ID] = { "ID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, NEED_ID,
		   "namespace id (never reused; NS_GET_ID)" },
	[C_LEVEL] = { "LEVEL", 2, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		      NEED_LEVEL | NEED_RELATIONS, "nesting depth (pid, user)" },
	[C_DETAIL] = { "DETAIL", 0.2, 0, SCOLS_JSON_STRING,
		       NEED_DETAIL | NEED_LEVEL | NEED_RELATIONS,
		       "per type: host name, maps, counts, offsets" },
	[C_DIR] = { "DIR", 0.3, 0, SCOLS_JSON_STRING, 0,
		    "the namespace's directory in namespacefs" },
	[C_CREATOR] = { "CREATOR", 8, 0, SCOLS_JSON_STRING, NEED_CREATOR,
			"creator of the owning user namespace (owner of its files)" },
	[C_CREATORUID] = { "CREATORUID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			   NEED_CREATOR, "UID of that creator" },
	[C_PIDS] = { "PIDS", 0.3, 0, SCOLS_JSON_ARRAY_NUMBER, P,
		     "the PIDs of its processes, ascending" },
	[C_HOSTNAME] = { "HOSTNAME", 10, 0, SCOLS_JSON_STRING,
			 P | NEED_HOSTNAME,
			 "host name of the uts namespace of the lowest PID" },
	[C_UTS] = { "UTS", 10, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, P,
		    "uts namespace of the lowest PID (inode number)" },
	[C_UNIT] = { "UNIT", 0.2, SCOLS_FL_TRUNC, SCOLS_JSON_STRING, P,
		     "systemd unit of the lowest PID's cgroup" },
	[C_ENGINE] = { "ENGINE", 6, 0, SCOLS_JSON_STRING, P,
		       "container engine that the lowest PID's cgroup names" },
	[C_CONTAINER] = { "CONTAINER", 12, SCOLS_FL_TRUNC, SCOLS_JSON_STRING, P,
			  "container id (or machine name) in that cgroup" },
	[C_HOLDERS] = { "HOLDERS", 0.2, 0, SCOLS_JSON_STRING, NEED_RELATIONS,
			"what its references are: tasks, nsfs files, children, owned, other" },
};
#undef P

int column_by_name(const char *name, size_t len)
{
	for (int i = 0; i < NCOLS; i++)
		if (strlen(columns[i].name) == len &&
		    !strncasecmp(columns[i].name, name, len))
			return i;
	return -1;
}

/* util-linux's -o: "+LIST" adds to the defaults, "LIST" replaces them. */
void parse_columns(struct opts *o, const int *defaults, size_t ndefaults)
{
	const char *p = o->outarg;

	if (o->all_cols) {
		for (int i = 0; i < NCOLS; i++)
			o->cols[o->ncols++] = i;
	} else if (!p || *p == '+') {
		memcpy(o->cols, defaults, ndefaults * sizeof(int));
		o->ncols = ndefaults;
	}
	if (!p)
		return;
	if (*p == '+')
		p++;
	while (*p) {
		size_t len = strcspn(p, ",");
		int c;

		if (len) {
			c = column_by_name(p, len);
			if (c < 0)
				errx(EXIT_FAILURE, "unknown column: %.*s", (int)len, p);
			if (o->ncols == sizeof(o->cols) / sizeof(o->cols[0]))
				errx(EXIT_FAILURE, "too many columns");
			o->cols[o->ncols++] = c;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (!o->ncols)
		errx(EXIT_FAILURE, "no columns given to --output");
}

bool has_column(const struct opts *o, int col)
{
	for (size_t i = 0; i < o->ncols; i++)
		if (o->cols[i] == col)
			return true;
	return false;
}

unsigned int columns_need(const struct opts *o)
{
	unsigned int need = 0;

	for (size_t i = 0; i < o->ncols; i++)
		need |= columns[o->cols[i]].need;
	return need;
}

struct libscols_table *new_table(const struct opts *o, const char *name,
				 int tree_col)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		errx(EXIT_FAILURE, "cannot create a table");
	scols_table_set_name(tb, name);
	scols_table_enable_raw(tb, o->raw);
	scols_table_enable_json(tb, o->json);
	scols_table_enable_noheadings(tb, o->noheadings);
	for (size_t i = 0; i < o->ncols; i++) {
		const struct coldesc *c = &columns[o->cols[i]];
		int flags = c->flags;
		struct libscols_column *cl;

		if (o->notrunc)
			flags &= ~SCOLS_FL_TRUNC;
		if ((o->nowrap || o->raw) && !o->json)
			flags &= ~SCOLS_FL_WRAP;
		if ((int)i == tree_col)
			flags = (flags & ~SCOLS_FL_RIGHT) | SCOLS_FL_TREE;
		/* A JSON array's numbers are the lines of its cell. */
		if (o->json && c->json == SCOLS_JSON_ARRAY_NUMBER)
			flags |= SCOLS_FL_WRAP;
		cl = scols_table_new_column(tb, c->name, c->whint, flags);
		if (!cl)
			errx(EXIT_FAILURE, "cannot create a table column");
		if (o->json)
			scols_column_set_json_type(cl, c->json);
		/* Multi-line cells: one PID or mount point a line. */
		if (flags & SCOLS_FL_WRAP) {
			scols_column_set_wrapfunc(cl, scols_wrapnl_chunksize,
						  scols_wrapnl_nextchunk, NULL);
			scols_column_set_safechars(cl, "\n");
		}
	}
	return tb;
}

/* A number's text, written at the end of @buf: no printf, no allocation,
 * two digits a division. */
static const char *num(char *buf, uint64_t v)
{
	static const char pairs[] =
	"0001020304050607080910111213141516171819"
	"2021222324252627282930313233343536373839"
	"4041424344454647484950515253545556575859"
	"6061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";
	char *p = buf + CELL_NUM_SIZE;

	*--p = '\0';
	while (v >= 100) {
		p -= 2;
		memcpy(p, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return p;
}

/* The PIDs: comma-separated, or one a line for a JSON array. */
static char *pid_list(const struct opts *o, const struct ns *ns)
{
	char sep = o->json ? '\n' : ',';
	size_t cap = ns->nprocs * 12 + 1, len = 0;
	char *out = xrealloc(NULL, cap);

	out[0] = '\0';
	for (size_t i = 0; i < ns->nprocs; i++)
		len += snprintf(out + len, cap - len, "%s%d",
				i ? (char[]){ sep, 0 } : "", (int)ns->procs[i]);
	return out;
}

/* The uts namespace of @pid, from what the source found. */
static const struct ns *uts_of(const struct nsset *s, pid_t pid)
{
	char path[64];
	struct stat st;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i]->type == T_UTS && has_pid(s->v[i], pid))
			return s->v[i];
	/* Its procs could not be read: ask /proc. */
	snprintf(path, sizeof(path), "/proc/%d/ns/uts", (int)pid);
	if (stat(path, &st) == 0)
		return ns_find(s, T_UTS, st.st_ino);
	return NULL;
}

/* lsns's UID: the process's, or with none the owner's creator. */
static bool row_uid(const struct ns *ns, pid_t pid, uid_t *uid)
{
	if (pid && proc_uid(proc_get(pid), uid))
		return true;
	*uid = ns->creator;
	return ns->has_creator;
}

/*
 * HOLDERS: the references of @ns by holder, from its refs file and the
 * namespaces found: "tasks 1, nsfs 1, children 2, owned 3, other 1", the
 * holders that hold none left out; "other" is what the rest does not
 * explain (sockets, the kernel; `holders` tells more). Empty without a
 * refs file (--proc, an older kernel).
 */
static char *holders_cell(const struct nsset *s, const struct ns *ns)
{
	static const char *const names[5] = { "tasks", "nsfs", "children",
					       "owned", "other" };
	char *out = NULL, *next;
	long long n[5];
	uint64_t v[3];

	if (s->proc || fs_read_refs(s, ns, v))
		return NULL;
	n[0] = (long long)v[1];
	n[1] = (long long)v[2];
	n[2] = (long long)ns->nkids;
	n[3] = (long long)ns->nowned;
	n[4] = (long long)v[0] - n[0] - n[1] - n[2] - n[3];
	for (int i = 0; i < 5; i++) {
		/* Less than none: a count that changed, or the initial pid
		 * namespace's, which the kernel does not keep. */
		if (n[i] <= 0)
			continue;
		next = xasprintf("%s%s%s %lld", out ? out : "", out ? ", " : "",
				 names[i], n[i]);
		free(out);
		out = next;
	}
	return out ? out : xstrdup("none");
}

/* UNIT, ENGINE or CONTAINER of the process @pid, from its cgroup. */
static char *container_cell(pid_t pid, int col)
{
	const char *path = pid ? proc_cgroup(proc_get(pid)) : NULL;
	struct container c;
	char *ret;

	if (!path)
		return NULL;
	container_of_cgroup(path, &c);
	ret = col == C_UNIT ? c.unit : col == C_ENGINE ? c.engine : c.id;
	if (ret == c.unit)
		c.unit = NULL;
	else if (ret == c.engine)
		c.engine = NULL;
	else
		c.id = NULL;
	container_free(&c);
	return ret;
}

const char *cell_text(const struct opts *o, const struct nsset *s,
		      const struct ns *ns, pid_t pid, int col, char *buf,
		      bool *owned)
{
	const struct ns *uts;
	uid_t uid;
	pid_t ppid;

	*owned = false;
	switch (col) {
	case C_NS:
		/* 0: a copy's root whose inum file could not be read. */
		return ns->inum ? num(buf, ns->inum) : NULL;
	case C_TYPE:
		return nstypes[ns->type].name;
	case C_PATH:
		if (!pid)
			return ns->nspath;
		*owned = true;
		return xasprintf("/proc/%d/ns/%s", (int)pid,
				 nstypes[ns->type].name);
	case C_NPROCS:
		return ns->procs_known ? num(buf, ns->nprocs) : NULL;
	case C_PID:
		return pid ? num(buf, (uint64_t)pid) : NULL;
	case C_PPID:
		return pid && proc_ppid(proc_get(pid), &ppid) ?
			       num(buf, (uint64_t)ppid) : NULL;
	case C_COMMAND:
		return pid ? proc_command(proc_get(pid)) : NULL;
	case C_UID:
		return row_uid(ns, pid, &uid) ? num(buf, uid) : NULL;
	case C_USER:
		return row_uid(ns, pid, &uid) ? user_name(uid) : NULL;
	case C_NETNSID:
		if (!pid || ns->type != T_NET)
			return NULL;
		*owned = true;
		return netnsid_of(pid);
	case C_NSFS:
		*owned = true;
		return nsfs_mounts(ns, o->nowrap || o->raw ? ',' : '\n');
	/* 0 where there is none, as lsns; empty where it is not known. */
	case C_PNS:
		if (!ns->has_parent)
			return num(buf, 0);
		return ns->parent_inum ? num(buf, ns->parent_inum) : NULL;
	case C_ONS:
		if (!ns->has_owner)
			return num(buf, 0);
		return ns->owner_inum ? num(buf, ns->owner_inum) : NULL;
	case C_ID:
		return ns->has_id ? num(buf, ns->id) : NULL;
	case C_LEVEL:
		return ns->has_level ? num(buf, (uint64_t)ns->level) : NULL;
	case C_DETAIL:
		if (ns->detail)
			return ns->detail;
		if (ns->type != T_PID || !ns->has_level)
			return NULL;
		*owned = true;
		return xasprintf("level %d", ns->level);
	case C_DIR:
		return ns_dir(s, ns);
	case C_CREATOR:
		return ns->has_creator ? user_name(ns->creator) : NULL;
	case C_CREATORUID:
		return ns->has_creator ? num(buf, ns->creator) : NULL;
	case C_PIDS:
		*owned = true;
		return pid_list(o, ns);
	case C_HOSTNAME:
		uts = pid ? uts_of(s, pid) : ns->type == T_UTS ? ns : NULL;
		return uts ? uts->hostname : NULL;
	case C_UTS:
		uts = pid ? uts_of(s, pid) : NULL;
		return uts ? num(buf, uts->inum) : NULL;
	case C_UNIT:
	case C_ENGINE:
	case C_CONTAINER:
		*owned = true;
		return container_cell(pid, col);
	case C_HOLDERS:
		*owned = true;
		return holders_cell(s, ns);
	}
	return NULL;
}

char *cell(const struct opts *o, const struct nsset *s, const struct ns *ns,
	   pid_t pid, int col)
{
	char buf[CELL_NUM_SIZE];
	bool owned;
	const char *text = cell_text(o, s, ns, pid, col, buf, &owned);

	return owned || !text ? (char *)text : xstrdup(text);
}

void fill_line(const struct opts *o, const struct nsset *s, const struct ns *ns,
	       pid_t pid, struct libscols_line *ln)
{
	for (size_t i = 0; i < o->ncols; i++) {
		char *data = cell(o, s, ns, pid, o->cols[i]);

		if (data && scols_line_refer_data(ln, i, data))
			errx(EXIT_FAILURE, "out of memory");
	}
}

#ifdef HAVE_SCOLS_FILTER
static struct libscols_filter *filter;

void apply_filter(const struct opts *o, struct libscols_table *tb)
{
	struct libscols_iter *itr;
	const char *name;

	if (!o->filter)
		return;
	filter = scols_new_filter(NULL);
	if (!filter)
		errx(EXIT_FAILURE, "out of memory");
	if (scols_filter_parse_string(filter, o->filter) != 0)
		errx(EXIT_FAILURE, "failed to parse filter: %s",
		     scols_filter_get_errmsg(filter) ?: o->filter);
	/* Every column the expression names must be one we know. */
	itr = scols_new_iter(SCOLS_ITER_FORWARD);
	if (!itr)
		errx(EXIT_FAILURE, "out of memory");
	while (scols_filter_next_holder(filter, itr, &name, 0) == 0) {
		struct libscols_column *cl = scols_table_get_column_by_name(tb, name);

		if (!cl)
			errx(EXIT_FAILURE, "filter: column %s is not shown; add it with -o +%s",
			     name, name);
		scols_filter_assign_column(filter, itr, name, cl);
	}
	scols_free_iter(itr);
}

/* Removes the lines that do not match (a filtered table is a list). */
static void filter_lines(struct libscols_table *tb)
{
	struct libscols_iter *itr = scols_new_iter(SCOLS_ITER_FORWARD);
	struct libscols_line *ln, **drop = NULL;
	size_t ndrop = 0;

	if (!itr)
		errx(EXIT_FAILURE, "out of memory");
	while (scols_table_next_line(tb, itr, &ln) == 0) {
		int status = 0;

		if (scols_line_apply_filter(ln, filter, &status) != 0)
			errx(EXIT_FAILURE, "filter: cannot apply it");
		if (!status)
			add_ptr((void ***)&drop, &ndrop, ln);
	}
	scols_free_iter(itr);
	for (size_t i = 0; i < ndrop; i++)
		scols_table_remove_line(tb, drop[i]);
	free(drop);
}
#else
void apply_filter(const struct opts *o, struct libscols_table *tb)
{
	(void)tb;
	if (o->filter)
		errx(EXIT_FAILURE,
		     "--filter needs libsmartcols 2.40 or later; this lsnamespaces was built with %s",
		     LIBSMARTCOLS_VERSION);
}
#endif

void print_table(const struct opts *o, struct libscols_table *tb)
{
#ifdef HAVE_SCOLS_FILTER
	if (o->filter)
		filter_lines(tb);
#else
	(void)o;
#endif
	if (scols_print_table(tb) != 0)
		errx(EXIT_FAILURE, "cannot print the table");
}
