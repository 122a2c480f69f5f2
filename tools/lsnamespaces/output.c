// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lines a listing prints, collected as rows (a namespace and the
 * process of its line, under a parent row in a tree) and printed at the
 * end: by libsmartcols, or, for JSON, written straight from the rows.
 *
 * libsmartcols keeps every cell of a table in memory and copies it once
 * more to print it: at thousands of lines that was most of a listing's
 * time. The JSON written here is byte for byte what libsmartcols 2.38
 * writes for the same table (lib/jsonwrt.c and print_json_data() in
 * util-linux): the same indentation, separators, escapes and nulls, so
 * that lsns's JSON and ours read alike. Every other format, and --filter,
 * goes through libsmartcols.
 */
#include "lsnamespaces.h"

#include <stdlib.h>
#include <string.h>

struct row {
	const struct ns *ns;
	pid_t pid;
	struct row *kids, *last_kid, *next;
};

struct row *row_add(struct rows *r, const struct ns *ns, pid_t pid,
		    struct row *parent)
{
	struct row *row = xzalloc(sizeof(*row));
	struct row **first = parent ? &parent->kids : &r->first;
	struct row **last = parent ? &parent->last_kid : &r->last;

	row->ns = ns;
	row->pid = pid;
	if (*last)
		(*last)->next = row;
	else
		*first = row;
	*last = row;
	return row;
}

static void rows_free(struct row *row)
{
	while (row) {
		struct row *next = row->next;

		rows_free(row->kids);
		free(row);
		row = next;
	}
}

/* ------------------------------------------------------------ libsmartcols */

static void scols_add(struct rows *r, struct libscols_table *tb,
		      const struct row *row, struct libscols_line *parent)
{
	for (; row; row = row->next) {
		struct libscols_line *ln = scols_table_new_line(tb, parent);

		if (!ln)
			errx(EXIT_FAILURE, "out of memory");
		fill_line(r->o, r->s, row->ns, row->pid, ln);
		scols_add(r, tb, row->kids, ln);
	}
}

/* ---------------------------------------------------- JSON, as libsmartcols */

struct json {
	FILE *out;
	int indent;
	bool after_close;
	const char **keys;	/* the columns' names, lower case */
	/* Written in blocks: stdio's call a piece cost more than the rest. */
	char buf[65536];
	size_t len;
};

/* A write error stays in the stream's error flag: close_stdout() says it. */
static void json_flush(struct json *j)
{
	fwrite(j->buf, 1, j->len, j->out);
	j->len = 0;
}

static void json_put(struct json *j, const char *s, size_t n)
{
	if (n > sizeof(j->buf) - j->len) {
		json_flush(j);
		if (n > sizeof(j->buf)) {
			fwrite(s, 1, n, j->out);
			return;
		}
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
}

#define json_lit(j, s) json_put(j, s, sizeof(s) - 1)

static void json_indent(struct json *j)
{
	static const char spaces[] = "                                        ";

	for (int n = 3 * j->indent; n > 0; n -= (int)sizeof(spaces) - 1)
		json_put(j, spaces, n < (int)sizeof(spaces) - 1 ?
				     (size_t)n : sizeof(spaces) - 1);
}

/* A string with JSON's escapes; bytes from 0x80 up as they are. */
static void json_string(struct json *j, const char *s)
{
	/* The control characters that have a short escape, and theirs. */
	static const char short_esc[0x20] = {
		['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r',
	};
	const char *p = s;
	char esc[8];

	json_lit(j, "\"");
	for (;;) {
		const char *run = p;
		unsigned char c;

		while ((c = (unsigned char)*p) >= 0x20 && c != '"' && c != '\\')
			p++;
		json_put(j, run, (size_t)(p - run));
		if (!c)
			break;
		p++;
		if (c >= 0x20 || short_esc[c])
			snprintf(esc, sizeof(esc), "\\%c", c >= 0x20 ? c : short_esc[c]);
		else
			snprintf(esc, sizeof(esc), "\\u00%02x", c);
		json_put(j, esc, strlen(esc));
	}
	json_lit(j, "\"");
}

enum { J_OBJECT, J_ARRAY, J_VALUE };

/* ul_jsonwrt_open(): a named member, or an element of an array. */
static void json_open(struct json *j, const char *name, int type)
{
	if (name) {
		if (j->after_close)
			json_lit(j, ",\n");
		json_indent(j);
		json_string(j, name);
	} else if (j->after_close) {
		json_lit(j, ",");
	} else {
		json_indent(j);
	}
	/* ": {", ": [", ": " after a name, "{", "[", " " in an array. */
	if (name)
		json_lit(j, ": ");
	if (type != J_VALUE) {
		json_put(j, type == J_OBJECT ? "{\n" : "[\n", 2);
		j->indent++;
	} else if (!name) {
		json_lit(j, " ");
	}
	j->after_close = false;
}

/* ul_jsonwrt_close() */
static void json_close(struct json *j, int type)
{
	if (j->indent == 1) {
		json_lit(j, "\n}\n");
		j->indent--;
		j->after_close = true;
		return;
	}
	if (type != J_VALUE) {
		j->indent--;
		json_lit(j, "\n");
		json_indent(j);
		if (type == J_OBJECT)
			json_lit(j, "}");
		else
			json_lit(j, "]");
	}
	j->after_close = true;
}

/* A value: a number as it is, a string quoted; null when empty. */
static void json_value(struct json *j, const char *name, const char *data,
		       bool number)
{
	json_open(j, name, J_VALUE);
	if (!data || !*data)
		json_lit(j, "null");
	else if (number)
		json_put(j, data, strlen(data));
	else
		json_string(j, data);
	json_close(j, J_VALUE);
}

/* print_json_data(): an array's elements are the lines of its cell. */
static void json_cell(struct json *j, const char *key, int type, char *data)
{
	char *next;

	switch (type) {
	case SCOLS_JSON_NUMBER:
		json_value(j, key, data, true);
		return;
	case SCOLS_JSON_ARRAY_NUMBER:
		json_open(j, key, J_ARRAY);
		do {
			next = data ? strchr(data, '\n') : NULL;
			if (next)
				*next++ = '\0';
			json_value(j, NULL, data, true);
			data = next;
		} while (data);
		json_close(j, J_ARRAY);
		return;
	default:
		json_value(j, key, data, false);
		return;
	}
}

static void json_rows(struct rows *r, struct json *j, const struct row *row)
{
	for (; row; row = row->next) {
		json_open(j, NULL, J_OBJECT);
		for (size_t i = 0; i < r->o->ncols; i++) {
			int col = r->o->cols[i];
			char *data = cell(r->o, r->s, row->ns, row->pid, col);

			json_cell(j, j->keys[i], columns[col].json, data);
			free(data);
		}
		if (row->kids) {
			json_open(j, "children", J_ARRAY);
			json_rows(r, j, row->kids);
			json_close(j, J_ARRAY);
		}
		json_close(j, J_OBJECT);
	}
}

static void json_print(struct rows *r)
{
	struct json *j = xzalloc(sizeof(*j));

	j->out = stdout;
	j->keys = xzalloc(r->o->ncols * sizeof(*j->keys));
	for (size_t i = 0; i < r->o->ncols; i++) {
		char *key = xstrdup(columns[r->o->cols[i]].name);

		for (char *p = key; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		j->keys[i] = key;
	}
	json_open(j, NULL, J_OBJECT);
	json_open(j, r->name, J_ARRAY);
	json_rows(r, j, r->first);
	json_close(j, J_ARRAY);
	json_close(j, J_OBJECT);
	json_flush(j);
	for (size_t i = 0; i < r->o->ncols; i++)
		free((char *)j->keys[i]);
	free(j->keys);
	free(j);
}

void rows_print(struct rows *r)
{
	struct libscols_table *tb;

	if (r->o->json && !r->o->filter) {
		json_print(r);
	} else {
		tb = new_table(r->o, r->name, r->tree_col);
		apply_filter(r->o, tb);
		scols_add(r, tb, r->first, NULL);
		print_table(r->o, tb);
		scols_unref_table(tb);
	}
	rows_free(r->first);
	r->first = r->last = NULL;
}
