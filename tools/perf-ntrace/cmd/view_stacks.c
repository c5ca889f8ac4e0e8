// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf-ntrace decode --format=folded: one line per stack, "a;b;c COUNT",
 * outermost frame first, COUNT the instructions retired with exactly that
 * stack (the "folded" input of flame graph tools). Frames are the
 * functions of the open calls' call sites, the last one the function that
 * retired the instructions; with perf.data the first is the task.
 *
 * --format=flame-html: the same tree as one self-contained HTML page: a
 * table of the hottest functions (own and inclusive instructions) and a
 * flame graph drawn by the page's own script as SVG (click to zoom, type
 * to search). Nothing is loaded from anywhere else.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "view_internal.h"

void vs_json_str(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(f, "\\u%04x", c);
		else
			putc(c, f);
	}
	putc('"', f);
}

static void html_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			putc(*s, f);
	}
}

static int done(struct view *v)
{
	if (fflush(v->out) || ferror(v->out)) {
		fprintf(stderr, "perf-ntrace decode: write error\n");
		return -1;
	}
	return 0;
}

/* Depth-first over the tree; fn(ctx, node, depth) before the children. */
static int walk(struct view *v, int (*fn)(void *ctx, uint32_t node, uint32_t depth), void *ctx)
{
	uint32_t cap = 64, n = 0, *st = malloc(cap * 2 * sizeof(*st));

	if (!st)
		return -1;
	for (uint32_t c = v->tree.node[0].child; c; c = v->tree.node[c].next) {
		st[2 * n] = c;
		st[2 * n++ + 1] = 0;
		if (n == cap) {
			uint32_t *p = realloc(st, (cap *= 2) * 2 * sizeof(*st));

			if (!p)
				goto fail;
			st = p;
		}
	}
	while (n) {
		uint32_t node = st[2 * --n], depth = st[2 * n + 1];

		if (fn(ctx, node, depth))
			goto fail;
		for (uint32_t c = v->tree.node[node].child; c; c = v->tree.node[c].next) {
			st[2 * n] = c;
			st[2 * n++ + 1] = depth + 1;
			if (n == cap) {
				uint32_t *p = realloc(st, (cap *= 2) * 2 * sizeof(*st));

				if (!p)
					goto fail;
				st = p;
			}
		}
	}
	free(st);
	return 0;
fail:
	free(st);
	return -1;
}

/* Room in *path (cap entries) for index depth; -1 when out of memory. */
static int path_room(uint32_t **path, uint32_t *cap, uint32_t depth)
{
	uint32_t *p;

	if (depth < *cap)
		return 0;
	p = realloc(*path, (depth + 64) * sizeof(*p));
	if (!p)
		return -1;
	*path = p;
	*cap = depth + 64;
	return 0;
}

struct fold_ctx {
	struct view *v;
	uint32_t *path;
	uint32_t cap;
};

static int fold_one(void *ctx, uint32_t node, uint32_t depth)
{
	struct fold_ctx *c = ctx;
	const struct vnode *nd = &c->v->tree.node[node];
	uint32_t i;

	if (path_room(&c->path, &c->cap, depth))
		return -1;
	c->path[depth] = nd->sym;
	if (!nd->self)
		return 0;
	for (i = 0; i <= depth; i++) {
		const char *s = c->v->syms.name[c->path[i]];

		if (i)
			putc(';', c->v->out);
		for (; *s; s++)
			putc(*s == ';' ? ':' : *s, c->v->out);
	}
	fprintf(c->v->out, " %" PRIu64 "\n", nd->self);
	return 0;
}

int vs_write_folded(struct view *v)
{
	struct fold_ctx c = { v, NULL, 0 };
	int rc = walk(v, fold_one, &c);

	free(c.path);
	if (rc) {
		fprintf(stderr, "perf-ntrace decode: out of memory\n");
		return -1;
	}
	return done(v);
}

/* ---- flame-html ---- */

struct fn_sum {
	uint64_t self, total;
	uint32_t sym;
	uint32_t on_path;	/* open frames of this function above the node walked */
};

struct hot_ctx {
	struct view *v;
	struct fn_sum *fn;
	uint32_t *path;		/* syms of the nodes at each depth */
	uint32_t depth, cap;
};

/* Own and inclusive counts per function; recursion counts once. */
static int hot_one(void *ctx, uint32_t node, uint32_t depth)
{
	struct hot_ctx *c = ctx;
	const struct vnode *nd = &c->v->tree.node[node];

	while (c->depth > depth)
		c->fn[c->path[--c->depth]].on_path--;
	if (path_room(&c->path, &c->cap, depth))
		return -1;
	c->fn[nd->sym].self += nd->self;
	if (!c->fn[nd->sym].on_path)
		c->fn[nd->sym].total += nd->total;
	c->fn[nd->sym].on_path++;
	c->path[c->depth++] = nd->sym;
	return 0;
}

static int by_self(const void *a, const void *b)
{
	const struct fn_sum *x = a, *y = b;

	return x->self < y->self ? 1 : x->self > y->self ? -1 : (x->sym > y->sym) - (x->sym < y->sym);
}

static void write_hot(struct view *v, struct fn_sum *fn, uint64_t all)
{
	uint32_t i;

	qsort(fn, v->syms.n, sizeof(*fn), by_self);
	fputs("<table id=\"hot\"><caption>Hottest functions by retired instructions</caption>\n"
	      "<tr><th>function</th><th>own</th><th>%</th><th>inclusive</th><th>%</th></tr>\n",
	      v->out);
	for (i = 0; i < v->syms.n && i < 40 && fn[i].self; i++) {
		fputs("<tr><td class=\"fn\">", v->out);
		html_str(v->out, v->syms.name[fn[i].sym]);
		fprintf(v->out, "</td><td>%" PRIu64 "</td><td>%.2f</td><td>%" PRIu64
			"</td><td>%.2f</td></tr>\n", fn[i].self, 100.0 * (double)fn[i].self /
			(double)all, fn[i].total, 100.0 * (double)fn[i].total / (double)all);
	}
	fputs("</table>\n", v->out);
}

/* The tree as nested arrays [name, total, self, children], small nodes left out. */
static void write_node(struct view *v, uint32_t node, uint64_t min, uint32_t depth)
{
	const struct vnode *nd = &v->tree.node[node];
	bool first = true;

	fputs("[", v->out);
	vs_json_str(v->out, node ? v->syms.name[nd->sym] : "all");
	fprintf(v->out, ",%" PRIu64 ",%" PRIu64 ",[", nd->total, nd->self);
	for (uint32_t c = nd->child; c; c = v->tree.node[c].next) {
		if (v->tree.node[c].total < min || depth > 4096)
			continue;
		if (!first)
			putc(',', v->out);
		first = false;
		write_node(v, c, min, depth + 1);
	}
	fputs("]]", v->out);
}

int vs_write_flame(struct view *v)
{
	struct hot_ctx c = { .v = v };
	uint64_t all = v->tree.node[0].total, min = all / 20000 ? all / 20000 : 1;
	uint32_t i;

	c.fn = calloc(v->syms.n ? v->syms.n : 1, sizeof(*c.fn));
	if (!c.fn)
		goto nomem;
	for (i = 0; i < v->syms.n; i++)
		c.fn[i].sym = i;
	if (walk(v, hot_one, &c))
		goto nomem;
	fputs(view_flame_page_head, v->out);
	fprintf(v->out, "<p>%" PRIu64 " retired instructions, each counted exactly on the "
		"stack it ran in (frames deeper than %u are folded into the deepest shown; "
		"blocks under %" PRIu64 " instructions are left out of the graph).</p>\n",
		all, v->o.max_depth, min);
	write_hot(v, c.fn, all ? all : 1);
	fputs("<div id=\"ctl\"><input id=\"q\" placeholder=\"search\"> <button id=\"reset\">"
	      "reset zoom</button> <span id=\"info\"></span></div>\n<div id=\"graph\"></div>\n"
	      "<script>\nconst TREE = ", v->out);
	write_node(v, 0, min, 0);
	fputs(";\n", v->out);
	fputs(view_flame_page_script, v->out);
	fputs("</script>\n</body>\n</html>\n", v->out);
	free(c.fn);
	free(c.path);
	return done(v);
nomem:
	free(c.fn);
	free(c.path);
	fprintf(stderr, "perf-ntrace decode: out of memory\n");
	return -1;
}
