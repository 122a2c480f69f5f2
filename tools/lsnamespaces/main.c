// SPDX-License-Identifier: GPL-2.0-only
/*
 * lsnamespaces: options and dispatch. The options are lsns's, with its
 * letters, meanings and exit codes (0 success, 1 any failure), and
 * lsnamespaces's own; see lsnamespaces(8).
 */
#include "lsnamespaces.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VERSION "2.0"

/* util-linux's close_stdout(): a full disk or a closed pipe is an error. */
static void close_stdout(void)
{
	int e = 0;

	if (ferror(stdout))
		e = errno ? errno : EIO;
	else if (fflush(stdout) != 0 || fclose(stdout) != 0)
		e = errno;
	if (e && e != EPIPE) {
		errno = e;
		warn("write error");
		_exit(EXIT_FAILURE);
	}
	if (fclose(stderr) != 0 && errno != EBADF)
		_exit(EXIT_FAILURE);
}

static void __attribute__((noreturn)) try_help(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n",
		program_invocation_short_name);
	exit(EXIT_FAILURE);
}

static void __attribute__((noreturn)) usage(void)
{
	printf("\nUsage:\n"
	       " %1$s [options] [<namespace>]\n"
	       " %1$s containers [options]\n"
	       " %1$s watch [options]\n"
	       " %1$s metrics [options]\n"
	       " %1$s holders [options] <namespace>\n"
	       "\n"
	       "List the namespaces of the machine: from namespacefs (mounted at\n"
	       "%2$s), or from /proc with --proc.\n"
	       "\n"
	       "Commands:\n"
	       " tree                   every namespace (the default); with <namespace>,\n"
	       "                        its processes\n"
	       " containers             the pid namespaces that have processes\n"
	       " watch                  namespaces as they appear (+) and go (-)\n"
	       " metrics                counts in Prometheus's text format\n"
	       " holders <namespace>    what keeps a namespace alive\n"
	       "\n"
	       "Options:\n"
	       " -J, --json             use JSON output format\n"
	       " -l, --list             use list format output\n"
	       " -n, --noheadings       don't print headings\n"
	       " -o, --output <list>    define which output columns to use\n"
	       "     --output-all       output all columns\n"
	       " -p, --task <pid>       print process namespaces\n"
	       " -r, --raw              use the raw output format\n"
	       " -u, --notruncate       don't truncate text in columns\n"
	       " -W, --nowrap           don't use multi-line representation\n"
	       " -t, --type <name>      namespace type (mnt, net, ipc, user, pid, uts,\n"
	       "                        cgroup, time); may be repeated\n"
	       " -T, --tree[=<rel>]     use tree format (owner, parent or process);\n"
	       "                        without -T, pid and user namespaces nest by parent\n"
	       " -Q, --filter <expr>    print only the lines that match the expression\n"
	       " -H, --list-columns     list the available columns\n"
	       " -R, --root <dir>       read this namespacefs mount, or a copy of one\n"
	       " -P, --proc             read /proc and the nsfs ioctls, not namespacefs\n"
	       "\n"
	       " -h, --help             display this help\n"
	       " -V, --version          display version\n"
	       "\n"
	       "Available output columns (lsnamespaces -H):\n",
	       program_invocation_short_name, DEFAULT_ROOT);
	for (int i = 0; i < NCOLS; i++)
		printf(" %11s  %s\n", columns[i].name, columns[i].help);
	printf("\nFor more details see lsnamespaces(8).\n");
	exit(EXIT_SUCCESS);
}

/* -H: the columns as a table (or JSON), as util-linux's tools do. */
static int __attribute__((noreturn)) list_columns(const struct opts *o)
{
	struct libscols_table *tb = scols_new_table();
	struct libscols_column *cl[3];

	if (!tb)
		errx(EXIT_FAILURE, "out of memory");
	scols_table_set_name(tb, "lsnamespaces-columns");
	scols_table_enable_json(tb, o->json);
	scols_table_enable_raw(tb, o->raw);
	scols_table_enable_noheadings(tb, o->noheadings);
	cl[0] = scols_table_new_column(tb, "NAME", 0, 0);
	cl[1] = scols_table_new_column(tb, "TYPE", 0, 0);
	cl[2] = scols_table_new_column(tb, "DESCRIPTION", 0, 0);
	if (!cl[0] || !cl[1] || !cl[2])
		errx(EXIT_FAILURE, "out of memory");
	for (int i = 0; i < NCOLS; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		const char *type = "string";

		if (!ln)
			errx(EXIT_FAILURE, "out of memory");
		if (columns[i].json == SCOLS_JSON_NUMBER)
			type = "number";
		else if (columns[i].json == SCOLS_JSON_ARRAY_NUMBER)
			type = "array of numbers";
		if (scols_line_set_data(ln, 0, columns[i].name) ||
		    scols_line_set_data(ln, 1, type) ||
		    scols_line_set_data(ln, 2, columns[i].help))
			errx(EXIT_FAILURE, "out of memory");
	}
	scols_print_table(tb);
	scols_unref_table(tb);
	exit(EXIT_SUCCESS);
}

static uint64_t number_arg(const char *arg, uint64_t min, uint64_t max,
			   const char *what)
{
	uint64_t v;

	if (!parse_u64(arg, max, &v) || v < min)
		errx(EXIT_FAILURE, "invalid %s argument: '%s'", what, arg);
	return v;
}

int main(int argc, char **argv)
{
	enum { OPT_OUTPUT_ALL = CHAR_MAX + 1 };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "list", no_argument, NULL, 'l' },
		{ "noheadings", no_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "output-all", no_argument, NULL, OPT_OUTPUT_ALL },
		{ "task", required_argument, NULL, 'p' },
		{ "raw", no_argument, NULL, 'r' },
		{ "notruncate", no_argument, NULL, 'u' },
		{ "nowrap", no_argument, NULL, 'W' },
		{ "type", required_argument, NULL, 't' },
		{ "tree", optional_argument, NULL, 'T' },
		{ "filter", required_argument, NULL, 'Q' },
		{ "list-columns", no_argument, NULL, 'H' },
		{ "root", required_argument, NULL, 'R' },
		{ "proc", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .cmd = "tree" };
	struct nsset s = { .rootdir = DEFAULT_ROOT };
	bool list_cols = false;
	int c, t;

	setlocale(LC_ALL, "");
	atexit(close_stdout);

	while ((c = getopt_long(argc, argv, "Jlno:p:ruWt:T::Q:HR:PhV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'J':
			o.json = true;
			break;
		case 'l':
			o.list = true;
			break;
		case 'n':
			o.noheadings = true;
			break;
		case 'o':
			o.outarg = optarg;
			break;
		case OPT_OUTPUT_ALL:
			o.all_cols = true;
			break;
		case 'p':
			o.task = (pid_t)number_arg(optarg, 1, INT_MAX, "PID");
			break;
		case 'r':
			o.raw = o.nowrap = true;
			break;
		case 'u':
			o.notrunc = true;
			break;
		case 'W':
			o.nowrap = true;
			break;
		case 't':
			t = type_by_name(optarg);
			if (t < 0)
				errx(EXIT_FAILURE, "unknown namespace type: %s", optarg);
			o.types |= 1u << t;
			break;
		case 'T':
			o.tree = TREE_OWNER;
			if (optarg) {
				/* -T=owner and --tree=owner alike. */
				if (*optarg == '=')
					optarg++;
				if (!strcmp(optarg, "parent"))
					o.tree = TREE_PARENT;
				else if (!strcmp(optarg, "process"))
					o.tree = TREE_PROCESS;
				else if (strcmp(optarg, "owner"))
					errx(EXIT_FAILURE, "unknown tree type: %s", optarg);
			}
			break;
		case 'Q':
			o.filter = optarg;
			break;
		case 'H':
			list_cols = true;
			break;
		case 'R':
			o.root = optarg;
			break;
		case 'P':
			o.proc = true;
			break;
		case 'h':
			usage();
		case 'V':
			printf("%s %s (libsmartcols %s)\n",
			       program_invocation_short_name, VERSION,
			       LIBSMARTCOLS_VERSION);
			return EXIT_SUCCESS;
		default:
			try_help();
		}
	}
	if (o.json && o.raw)
		errx(EXIT_FAILURE, "options --json and --raw are mutually exclusive");
	if (o.list && o.tree != TREE_DEFAULT)
		errx(EXIT_FAILURE, "options --list and --tree are mutually exclusive");
	if (o.proc && o.root)
		errx(EXIT_FAILURE, "options --proc and --root are mutually exclusive");
	if (list_cols)
		list_columns(&o);

	/* A command, or lsns's namespace argument; getopt moved it last. */
	if (optind < argc) {
		const char *arg = argv[optind++];

		if (!strcmp(arg, "tree") || !strcmp(arg, "containers") ||
		    !strcmp(arg, "watch") || !strcmp(arg, "metrics") ||
		    !strcmp(arg, "holders"))
			o.cmd = arg;
		else if (all_digits(arg))
			o.nsarg = number_arg(arg, 1, UINT64_MAX, "namespace");
		else
			errx(EXIT_FAILURE, "unknown command: %s (a namespace is a number)",
			     arg);
	}
	if (!o.nsarg && optind < argc &&
	    (!strcmp(o.cmd, "tree") || !strcmp(o.cmd, "holders")) &&
	    all_digits(argv[optind]))
		o.nsarg = number_arg(argv[optind++], 1, UINT64_MAX, "namespace");
	if (optind < argc)
		errx(EXIT_FAILURE, "unexpected argument: %s", argv[optind]);
	if (o.nsarg && o.task)
		errx(EXIT_FAILURE, "--task is mutually exclusive with <namespace>");
	if (o.nsarg && strcmp(o.cmd, "tree") && strcmp(o.cmd, "holders"))
		errx(EXIT_FAILURE, "a namespace argument goes with no command");

	s.types = o.types ? o.types : ALL_TYPES;
	s.proc = o.proc;
	if (o.root)
		s.rootdir = o.root;
	if (!o.proc)
		fs_check_root(&s, o.root != NULL);
	if (!strcmp(o.cmd, "watch"))
		return cmd_watch(&o, &s);
	if (!strcmp(o.cmd, "containers"))
		return cmd_containers(&o, &s);
	if (!strcmp(o.cmd, "metrics"))
		return cmd_metrics(&o, &s);
	if (!strcmp(o.cmd, "holders"))
		return cmd_holders(&o, &s);
	return cmd_tree(&o, &s);
}
