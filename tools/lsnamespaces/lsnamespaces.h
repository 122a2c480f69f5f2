/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lsnamespaces(8): list the namespaces of the machine, from namespacefs or
 * from /proc. The one header of the program's files:
 *
 *   main.c            options, dispatch, --help, --list-columns
 *   util.c            memory, bounded reads of untrusted files, strict
 *                     numbers, a process's facts from /proc
 *   model.c           the namespaces found: lookup by (type, inode number),
 *                     parents, owners, levels
 *   columns.c         the one column table and the text of each cell
 *   output.c          the rows of a listing, printed by libsmartcols or as
 *                     JSON straight from them
 *   source-fs.c       a namespacefs mount (or a copy of one, --root)
 *   source-proc.c     /proc and the nsfs ioctls (--proc)
 *   join.c            a child that joins a namespace, with a deadline
 *   cmd-list.c        the default command: the tree or list, -p, NS argument
 *   cmd-containers.c  the pid namespaces that have processes
 *   cmd-watch.c       namespaces as they come and go
 *   cmd-metrics.c     counts in Prometheus's text format
 *   cmd-holders.c     what keeps a namespace alive
 *
 * Everything read may be hostile: a namespace's /proc files or a copy given
 * to --root may be FIFOs, links to /dev/zero or loops. Nothing is opened
 * that can block, nothing is read without a bound, and every number is
 * parsed strictly.
 */
#ifndef LSNAMESPACES_H
#define LSNAMESPACES_H

#define _GNU_SOURCE
#include <err.h>
#include <libsmartcols.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../include/digits.h"
#include "../include/nstypes.h"

#define DEFAULT_ROOT "/sys/fs/namespaces"
#define NAMESPACEFS_MAGIC 0x4e534653
#define NSFS_MAGIC_NUMBER 0x6e736673

/* The order of namespacefs's root directory and of its members file. */
enum nstype { T_CGROUP, T_IPC, T_MNT, T_NET, T_PID, T_TIME, T_USER, T_UTS,
	      NTYPES };
extern const struct ns_type nstypes[NTYPES];
int type_by_name(const char *name);
int type_by_flag(int flag);
#define ALL_TYPES ((1u << NTYPES) - 1)

/* ----------------------------------------------------------------- util.c */

void *xrealloc(void *p, size_t size);
void *xzalloc(size_t size);
/*
 * An arena: objects made by the thousand and freed together, taken zeroed
 * from chunks of 64 KB, one allocation for many.
 */
struct arena_chunk;
void *arena_take(struct arena_chunk **arena, size_t size);
void arena_free(struct arena_chunk **arena);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void add_ptr(void ***v, size_t *n, void *p);

/* Bounds of what one file may hold. */
#define SMALL_FILE_MAX (64 * 1024)
#define LINE_MAX_LEN 4096

/*
 * Opens @path (relative to @dirfd, AT_FDCWD for none) for reading without
 * following a last symbolic link and without blocking, and fails with
 * EINVAL unless it is a regular file. Returns a descriptor or -errno.
 */
int open_regular(int dirfd, const char *path);
/*
 * Reads a whole regular file of at most @max bytes into a NUL-terminated
 * string. Returns 0, or -errno (-EFBIG past @max, -EINVAL for a file that
 * is not regular, -EILSEQ for one that holds a NUL byte).
 */
int read_small(int dirfd, const char *path, size_t max, char **out);
/* Removes trailing white space. */
char *chomp(char *s);

/*
 * Lines of a file that may be long (the namespacefs root files): each line
 * at most LINE_MAX_LEN bytes, no NUL. lines_next() returns the next line
 * without its newline, or NULL at the end; an error (unreadable, a line too
 * long) exits with the file's name and line number.
 */
struct lines {
	int fd;
	const char *name;	/* NULL: not open */
	char *buf;
	size_t start, end;	/* what is read and not yet returned */
	unsigned long lineno;
};
/* Returns 0 or -errno (the file is not regular, cannot be opened). */
int lines_open(struct lines *l, int dirfd, const char *path, const char *name);
char *lines_next(struct lines *l);
void lines_close(struct lines *l);

/*
 * Strict numbers: decimal digits only, no sign, no blank, no overflow past
 * @max. parse_u64() returns false otherwise.
 */
bool parse_u64(const char *s, uint64_t max, uint64_t *v);
/*
 * The same for a field of a line: the number at *@p, which ends at @sep or
 * at the end of the string; *@p is moved to that end.
 */
bool next_u64(char **p, char sep, uint64_t max, uint64_t *v);
/* Exits with "FILE:LINE: invalid WHAT: TEXT" (LINE 0: no line number). */
void bad_input(const char *file, unsigned long line, const char *what,
	       const char *text) __attribute__((noreturn));

size_t count_lines(const char *s);
int cmp_pid(const void *a, const void *b);

/* A user's name, cached; the number when it has none. */
const char *user_name(uid_t uid);

struct row;	/* output.c */

/*
 * A process as /proc shows it, read on demand and cached: its parent, its
 * user (the owner of /proc/PID, as lsns takes it), its command line.
 */
struct proc {
	pid_t pid;
	bool stat_read, uid_read, have_ppid, have_uid, cmd_read, cgroup_read;
	pid_t ppid;
	uid_t uid;
	char *cmd;
	char *cgroup;		/* its cgroup v2 path, as we see it */
	struct row *row;	/* -T process: its row */
};
struct proc *proc_get(pid_t pid);
bool proc_ppid(struct proc *p, pid_t *ppid);
bool proc_uid(struct proc *p, uid_t *uid);
const char *proc_command(struct proc *p);
const char *proc_cgroup(struct proc *p);

/*
 * What a cgroup path says of a container: the systemd unit it is in (the
 * deepest .scope or .service), and the engine and container id where the
 * path has one of their shapes (docker, containerd, podman, cri-o,
 * systemd-nspawn). Fields it does not say are NULL; free with
 * container_free().
 */
struct container {
	char *unit, *engine, *id;
};
void container_of_cgroup(const char *path, struct container *c);
void container_free(struct container *c);

/* ---------------------------------------------------------------- model.c */

/* What the requested columns and modes need read; nothing else is. */
enum {
	NEED_PROCS = 1 << 0,	/* member processes */
	NEED_ID = 1 << 1,
	NEED_CREATOR = 1 << 2,	/* creator of the owning user namespace */
	NEED_LEVEL = 1 << 3,
	NEED_DETAIL = 1 << 4,
	NEED_HOSTNAME = 1 << 5,	/* the uts namespace of the lowest PID */
	NEED_RELATIONS = 1 << 6, /* parents and owners */
	/*
	 * The creator only where no process gives a user (lsns's USER and
	 * UID): the /proc source asks the kernel for those namespaces alone.
	 */
	NEED_CREATOR_NOPROC = 1 << 7,
};

struct ns {
	int type;
	uint64_t inum, id;
	bool has_id;
	bool is_root;		/* the type's root: the viewer's own namespace */
	char *dir;		/* its namespacefs directory: ns_dir() */
	char *nspath;		/* --proc: a path that opens it, if known */
	int fd;			/* --proc: an nsfs descriptor, or -1 */

	struct ns *parent;	/* pid and user */
	uint64_t parent_inum;
	bool has_parent;
	struct ns *owner;	/* the owning user namespace */
	uint64_t owner_inum;
	bool has_owner, owner_is_user_root;

	uid_t creator;		/* creator of the owning user namespace */
	bool has_creator;
	int level;
	bool has_level;

	pid_t *procs;		/* thread-group leaders, ascending */
	size_t nprocs;
	bool procs_known;

	char *hostname;		/* uts */
	char *detail;

	bool wanted;		/* of a type asked for */
	bool enoent;		/* a file of it was gone */
	bool shown, needed;	/* -T owner */
	struct row *row;	/* its row in the listing */

	struct ns **kids;	/* nested children, sorted by inode number */
	size_t nkids;
	struct ns **owned;	/* user: the other namespaces it owns */
	size_t nowned;
};

struct nsset {
	struct ns **v;
	size_t n;
	struct arena_chunk *arena;	/* where the namespaces are: ns_new() */
	struct ns **hash;	/* open addressing on (type, inode number) */
	size_t hcap, hn;
	struct ns *root[NTYPES];

	const char *rootdir;
	bool is_namespacefs;	/* rootdir is a namespacefs mount */
	bool proc;		/* --proc */
	unsigned int types;	/* bit per type asked for */
	unsigned int need;	/* NEED_* */
	bool members;		/* processes came from the members file */

	unsigned int denied_files, denied_procs;
};

/* A namespace of @type for @s; freed with the set, by free_set(). */
struct ns *ns_new(struct nsset *s, int type);
void ns_add(struct nsset *s, struct ns *ns);
struct ns *ns_find(const struct nsset *s, int type, uint64_t inum);
void add_pid(struct ns *ns, pid_t pid);
bool has_pid(const struct ns *ns, pid_t pid);
/* After a source loaded: sorts, links parents, owners and children. */
void link_all(struct nsset *s);
void fill_levels(struct nsset *s);
void free_set(struct nsset *s);
/* Loads from the source the options chose: fs or proc, then links. */
void load(struct nsset *s);
void report_denied(const struct nsset *s);

/* ------------------------------------------------------------ source-fs.c */

/* The detail formats, shared by both sources. */
char *plural(size_t n, const char *what);
char *ipc_detail(char *const vals[4]);
/* "0 1000 1" -> "0->1000+1"; exits naming @path on a malformed map. */
char *compact_idmap(const char *path, const char *map);
/* timens_offsets -> "monotonic 5s boottime 0s"; likewise. */
char *compact_offsets(const char *path, const char *text);

/* A namespace's directory in namespacefs (NULL with --proc). */
const char *ns_dir(const struct nsset *s, const struct ns *ns);
/* Checks that @s->rootdir is namespacefs, or (@explicit) a copy of one. */
void fs_check_root(struct nsset *s, bool explicit);
void fs_load(struct nsset *s);
/* The subdirectories of @path named by a number, sorted. */
struct dirent_num {
	uint64_t inum;
	char *name;
};
size_t list_ns_dirs(const char *path, struct dirent_num **out);
/*
 * The refs file of @ns: its reference count, the part tasks hold, and
 * whether its nsfs inode exists, in @v. Returns 0 or -errno (-ENOENT: the
 * kernel has no refs file, or the namespace is gone); exits on a
 * malformed file.
 */
int fs_read_refs(const struct nsset *s, const struct ns *ns, uint64_t v[3]);

/* ---------------------------------------------------------- source-proc.c */

void proc_load(struct nsset *s);
/* lsns's NETNSID of @pid's network namespace, and NSFS of @ns. */
char *netnsid_of(pid_t pid);
char *nsfs_mounts(const struct ns *ns, char sep);
/* --proc: the detail of each wanted namespace (joins where it must). */
void proc_details(struct nsset *s);

/* ----------------------------------------------------------------- join.c */

/* How long a child that joined a namespace may take. */
#define JOIN_TIMEOUT_MS 3000

/*
 * Runs @fn in a child that joined the namespace open as @nsfd (of type
 * @type; -1 to stay where it is). @fn writes at most @size bytes of result
 * into @out; /proc, as this process sees it, is @procfd in the child, so
 * that nothing is resolved through the joined namespace's mounts. Returns
 * true with @out NUL-terminated, false if it could not join, failed, or
 * did not finish within JOIN_TIMEOUT_MS (then it is killed and a warning
 * names the namespace).
 */
typedef void (*join_fn)(int procfd, void *arg, char *out, size_t size);
bool join_run(int nsfd, int type, uint64_t inum, join_fn fn, void *arg,
	      char *out, size_t size);
/* /proc, opened once (O_PATH | O_DIRECTORY). */
int proc_dirfd(void);

/* -------------------------------------------------------------- columns.c */

enum {
	/* lsns's, with its names, meanings and JSON keys and values */
	C_NS, C_TYPE, C_PATH, C_NPROCS, C_PID, C_PPID, C_COMMAND, C_UID,
	C_USER, C_NETNSID, C_NSFS, C_PNS, C_ONS,
	/* lsnamespaces's own */
	C_ID, C_LEVEL, C_DETAIL, C_DIR, C_CREATOR, C_CREATORUID, C_PIDS,
	C_HOSTNAME, C_UTS, C_UNIT, C_ENGINE, C_CONTAINER, C_HOLDERS,
	NCOLS
};

struct coldesc {
	const char *name;
	double whint;
	int flags;
	int json;
	unsigned int need;	/* NEED_* */
	const char *help;
};
extern const struct coldesc columns[NCOLS];
int column_by_name(const char *name, size_t len);

struct opts {
	const char *cmd;	/* "tree", "containers", "watch", "metrics", "holders" */
	const char *root;
	const char *outarg;
	const char *filter;
	unsigned int types;	/* 0: all */
	int tree;		/* TREE_* */
	pid_t task;		/* -p */
	uint64_t nsarg;		/* the namespace argument, 0 for none */
	bool proc, json, raw, list, noheadings, all_cols, notrunc, nowrap;
	int cols[NCOLS * 2];
	size_t ncols;
};

enum { TREE_DEFAULT, TREE_NONE, TREE_OWNER, TREE_PARENT, TREE_PROCESS };

/* The columns of -o on top of @defaults; exits on a bad name. */
void parse_columns(struct opts *o, const int *defaults, size_t ndefaults);
unsigned int columns_need(const struct opts *o);
bool has_column(const struct opts *o, int col);
struct libscols_table *new_table(const struct opts *o, const char *name,
				 int tree_col);
/* The text of @col for @ns, its row's process @pid (0: none); NULL: empty. */
char *cell(const struct opts *o, const struct nsset *s, const struct ns *ns,
	   pid_t pid, int col);
/* Room for any number cell_text() writes: 20 digits and a NUL. */
#define CELL_NUM_SIZE 24
/*
 * The same text without a copy: a number written into @buf (CELL_NUM_SIZE
 * bytes), a name or a string of @ns or @s as it is, valid while they are;
 * only text made for the cell is allocated, and then *@owned is set and
 * the caller frees it.
 */
const char *cell_text(const struct opts *o, const struct nsset *s,
		      const struct ns *ns, pid_t pid, int col, char *buf,
		      bool *owned);
/* Fills @ln's cells. */
void fill_line(const struct opts *o, const struct nsset *s, const struct ns *ns,
	       pid_t pid, struct libscols_line *ln);
/* Applies -Q to @tb (or exits where libsmartcols has no filters). */
void apply_filter(const struct opts *o, struct libscols_table *tb);
/* Prints @tb; a line the filter drops is not printed. */
void print_table(const struct opts *o, struct libscols_table *tb);

/* --------------------------------------------------------------- output.c */

/* The rows of a listing, in the order they are added; printed at the end. */
struct rows {
	const struct opts *o;
	const struct nsset *s;
	const char *name;	/* the table's name: JSON's top key */
	int tree_col;		/* the column that draws the tree; -1: none */
	struct row *first, *last;
	struct arena_chunk *arena;	/* where the rows are */
};
/* A row for @ns and its process @pid (0: none), the last under @parent. */
struct row *row_add(struct rows *r, const struct ns *ns, pid_t pid,
		    struct row *parent);
/* Prints the rows (and frees them): JSON without --filter straight, the
 * rest through libsmartcols. */
void rows_print(struct rows *r);

/* ------------------------------------------------------------- commands */

int cmd_tree(struct opts *o, struct nsset *s);
int cmd_containers(struct opts *o, struct nsset *s);
int cmd_watch(struct opts *o, struct nsset *s);
int cmd_metrics(struct opts *o, struct nsset *s);
int cmd_holders(struct opts *o, struct nsset *s);

#endif
