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
	struct row *row = arena_take(&r->arena, sizeof(*row));
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

static void rows_free(struct rows *r)
{
	arena_free(&r->arena);
	r->first = r->last = NULL;
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
	/* Each column's name as JSON writes a member: "name": */
	char **keys;
	size_t *keylen;
	char *children;
	size_t children_len;
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

/* @n bytes of @s with JSON's escapes; bytes from 0x80 up as they are. */
static void json_string(struct json *j, const char *s, size_t n)
{
	/* The control characters that have a short escape, and theirs. */
	static const char short_esc[0x20] = {
		['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n', ['\f'] = 'f', ['\r'] = 'r',
	};
	const char *p = s, *end = s + n;
	char esc[8];

	json_lit(j, "\"");
	for (;;) {
		const char *run = p;
		unsigned char c = 0;

		while (p < end && (c = (unsigned char)*p) >= 0x20 && c != '"' &&
		       c != '\\')
			p++;
		json_put(j, run, (size_t)(p - run));
		if (p == end)
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

/*
 * A member's name as it is written, "name": , made once: the names are the
 * table's and the columns', letters and digits that need no escape.
 */
static char *json_key(const char *name, size_t *len)
{
	char *key = xasprintf("\"%s\": ", name);

	*len = strlen(key);
	return key;
}

/*
 * ul_jsonwrt_open(): a member named by @key (json_key(), @keylen bytes),
 * or with @key NULL an element of an array.
 */
static void json_open(struct json *j, const char *key, size_t keylen,
		      int type)
{
	if (key) {
		if (j->after_close)
			json_lit(j, ",\n");
		json_indent(j);
		json_put(j, key, keylen);
	} else if (j->after_close) {
		json_lit(j, ",");
	} else {
		json_indent(j);
	}
	/* ": {", ": [", ": " after a name, "{", "[", " " in an array. */
	if (type != J_VALUE) {
		json_put(j, type == J_OBJECT ? "{\n" : "[\n", 2);
		j->indent++;
	} else if (!key) {
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

/* A value of @n bytes: a number as it is, a string quoted; null if empty. */
static void json_value(struct json *j, const char *key, size_t keylen,
		       const char *data, size_t n, bool number)
{
	json_open(j, key, keylen, J_VALUE);
	if (!n)
		json_lit(j, "null");
	else if (number)
		json_put(j, data, n);
	else
		json_string(j, data, n);
	json_close(j, J_VALUE);
}

/* print_json_data(): an array's elements are the lines of its cell. */
static void json_cell(struct json *j, size_t i, int type, const char *data)
{
	size_t n = data ? strlen(data) : 0;
	const char *next;

	switch (type) {
	case SCOLS_JSON_NUMBER:
		json_value(j, j->keys[i], j->keylen[i], data, n, true);
		return;
	case SCOLS_JSON_ARRAY_NUMBER:
		json_open(j, j->keys[i], j->keylen[i], J_ARRAY);
		do {
			next = n ? memchr(data, '\n', n) : NULL;
			json_value(j, NULL, 0, data,
				   next ? (size_t)(next - data) : n, true);
			if (next) {
				n -= (size_t)(next + 1 - data);
				data = next + 1;
			}
		} while (next);
		json_close(j, J_ARRAY);
		return;
	default:
		json_value(j, j->keys[i], j->keylen[i], data, n, false);
		return;
	}
}

static void json_rows(struct rows *r, struct json *j, const struct row *row)
{
	char buf[CELL_NUM_SIZE];

	for (; row; row = row->next) {
		json_open(j, NULL, 0, J_OBJECT);
		for (size_t i = 0; i < r->o->ncols; i++) {
			int col = r->o->cols[i];
			bool owned;
			const char *data = cell_text(r->o, r->s, row->ns,
						     row->pid, col, buf,
						     &owned);

			json_cell(j, i, columns[col].json, data);
			if (owned)
				free((char *)data);
		}
		if (row->kids) {
			json_open(j, j->children, j->children_len, J_ARRAY);
			json_rows(r, j, row->kids);
			json_close(j, J_ARRAY);
		}
		json_close(j, J_OBJECT);
	}
}

static void json_print(struct rows *r)
{
	struct json *j = xzalloc(sizeof(*j));

	char *table;
	size_t table_len;

	j->out = stdout;
	j->keys = xzalloc(r->o->ncols * sizeof(*j->keys));
	j->keylen = xzalloc(r->o->ncols * sizeof(*j->keylen));
	for (size_t i = 0; i < r->o->ncols; i++) {
		char *name = xstrdup(columns[r->o->cols[i]].name);

		for (char *p = name; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		j->keys[i] = json_key(name, &j->keylen[i]);
		free(name);
	}
	j->children = json_key("children", &j->children_len);
	table = json_key(r->name, &table_len);
	json_open(j, NULL, 0, J_OBJECT);
	json_open(j, table, table_len, J_ARRAY);
	json_rows(r, j, r->first);
	json_close(j, J_ARRAY);
	json_close(j, J_OBJECT);
	json_flush(j);
	for (size_t i = 0; i < r->o->ncols; i++)
		free(j->keys[i]);
	free(j->keys);
	free(j->keylen);
	free(j->children);
	free(table);
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
	rows_free(r);
}
