// SPDX-License-Identifier: GPL-2.0
/*
 * The viewer's call tree: per thread, or the selected threads merged (m),
 * one row per call path with its calls, Base and Cum, children by Cum;
 * expand and collapse.  The rows shown are an array (expanding inserts a
 * node's children after it); each node's children are sorted once, when
 * first needed, and search walks the whole tree in that order, collapsed
 * parts included, with explicit state only: trees are as deep as the
 * stacks.  With --module/--symbol/--ring the tree of each thread holds
 * only the subtrees rooted at the selected functions, as post tree.
 */
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "post/tui.h"

#define AUTO_EXPAND_ROWS 1000	  /* rows the first view opens at most (hot paths) */
#define EXPAND_ALL_ROWS 2000000	  /* rows 'e' opens at most */
#define MAX_INDENT 40		  /* levels indented; deeper ones at this indentation */

struct tree_row {
	uint32_t node;
	uint32_t level;		  /* 0: a thread's root (or the merged one) */
	uint32_t depth;		  /* in the call tree (the root's children: 0) */
	uint32_t thread;	  /* level 0: arcs' thread index, UINT32_MAX: merged */
	bool open;
};

/* A node's children, sorted by Cum (made on first use). */
struct kids {
	uint32_t *k;
	uint32_t n;
	bool made;
};

struct tree_view {
	struct tui_view v;
	bool merged;
	bool filtered;		  /* function filters: roots hold the selected subtrees */
	struct tree_row *rows;
	size_t size;
	struct kids *kids;	  /* per node */
	uint32_t *pos;		  /* per node: its place among its parent's kids */
	uint32_t nr_nodes;
};

static const struct arc_node *node(const struct tui *ui, uint32_t n)
{
	return arcs_node(ui->d->r.arcs, n);
}

static bool ensure_nodes(struct tui *ui, struct tree_view *t)
{
	uint32_t n = arcs_nr_nodes(ui->d->r.arcs);
	struct kids *nk;
	uint32_t *np;

	if (n <= t->nr_nodes)
		return true;
	nk = realloc(t->kids, n * sizeof(*nk));
	if (!nk)
		return false;
	t->kids = nk;
	memset(nk + t->nr_nodes, 0, (n - t->nr_nodes) * sizeof(*nk));
	np = realloc(t->pos, n * sizeof(*np));
	if (!np)
		return false;
	t->pos = np;
	t->nr_nodes = n;
	return true;
}

static int kid_cmp(const void *pa, const void *pb, void *arg)
{
	struct tui *ui = arg;
	const struct arc_node *a = node(ui, *(const uint32_t *)pa), *b = node(ui, *(const uint32_t *)pb);

	if (a->cum != b->cum)
		return a->cum > b->cum ? -1 : 1;
	return strcmp(tui_fn_name(ui->d, a->fn), tui_fn_name(ui->d, b->fn));
}

static bool add_kid(uint32_t **k, uint32_t *n, size_t *cap, uint32_t c)
{
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 4;
		uint32_t *nk = realloc(*k, nc * sizeof(**k));

		if (!nk)
			return false;
		*k = nk;
		*cap = nc;
	}
	(*k)[(*n)++] = c;
	return true;
}

/* The topmost nodes of selected functions under root (their subtrees are what is shown). */
static bool selected_tops(struct tui *ui, uint32_t root, uint32_t **k, uint32_t *n, size_t *cap)
{
	uint32_t c = node(ui, root)->first_child;

	while (c != ARC_NONE) {
		bool sel = tui_fn_selected(ui->d, node(ui, c)->fn);

		if (!sel && node(ui, c)->first_child != ARC_NONE) {
			c = node(ui, c)->first_child;
			continue;
		}
		if (sel && !add_kid(k, n, cap, c))
			return false;
		while (c != root && node(ui, c)->next_sibling == ARC_NONE)
			c = node(ui, c)->parent;
		c = c == root ? ARC_NONE : node(ui, c)->next_sibling;
	}
	return true;
}

/* n's children, sorted; NULL when out of memory. */
static const struct kids *children(struct tui *ui, struct tree_view *t, uint32_t n)
{
	struct kids *kd;
	size_t cap = 0;
	bool ok = true;

	if (!ensure_nodes(ui, t))
		return NULL;
	kd = &t->kids[n];
	if (kd->made)
		return kd;
	if (t->filtered && node(ui, n)->fn == CF_NO_FN)
		ok = selected_tops(ui, n, &kd->k, &kd->n, &cap);
	else
		for (uint32_t c = node(ui, n)->first_child; c != ARC_NONE && ok;
		     c = node(ui, c)->next_sibling)
			ok = add_kid(&kd->k, &kd->n, &cap, c);
	if (!ok) {
		free(kd->k);
		kd->k = NULL;
		kd->n = 0;
		return NULL;
	}
	qsort_r(kd->k, kd->n, sizeof(*kd->k), kid_cmp, ui);
	for (uint32_t i = 0; i < kd->n; i++)
		t->pos[kd->k[i]] = i;
	kd->made = true;
	return kd;
}

static bool has_children(struct tui *ui, struct tree_view *t, uint32_t n)
{
	const struct kids *kd;

	if (!(t->filtered && node(ui, n)->fn == CF_NO_FN))
		return node(ui, n)->first_child != ARC_NONE;
	kd = children(ui, t, n);
	return kd && kd->n;
}

/* ---- the rows ---- */

static bool room(struct tree_view *t, size_t more)
{
	size_t need = t->v.nr_rows + more, n = t->size ? t->size : 256;
	struct tree_row *nr;

	if (need <= t->size)
		return true;
	while (n < need)
		n *= 2;
	nr = realloc(t->rows, n * sizeof(*nr));
	if (!nr)
		return false;
	t->rows = nr;
	t->size = n;
	return true;
}

/* A node's depth under its root (the root's children: 0): the selected subtrees' tops. */
static uint32_t depth_of(struct tui *ui, uint32_t n)
{
	uint32_t d = 0;

	while (node(ui, n)->parent != ARC_NONE && node(ui, node(ui, n)->parent)->fn != CF_NO_FN) {
		n = node(ui, n)->parent;
		d++;
	}
	return d;
}

/* Show row r's children below it; -1 out of memory. */
static int expand(struct tui *ui, struct tree_view *t, size_t r)
{
	const struct kids *kd = children(ui, t, t->rows[r].node);
	struct tree_row *at;

	if (!kd || !room(t, kd->n))
		return -1;
	if (t->rows[r].open)
		return 0;
	at = &t->rows[r + 1];
	memmove(at + kd->n, at, (t->v.nr_rows - r - 1) * sizeof(*at));
	for (uint32_t i = 0; i < kd->n; i++)
		at[i] = (struct tree_row){ .node = kd->k[i], .level = t->rows[r].level + 1,
					   .depth = t->rows[r].level ? t->rows[r].depth + 1 :
					   depth_of(ui, kd->k[i]) };
	t->v.nr_rows += kd->n;
	t->rows[r].open = true;
	return 0;
}

/* The row after row r's subtree. */
static size_t subtree_end(const struct tree_view *t, size_t r)
{
	size_t e = r + 1;

	while (e < t->v.nr_rows && t->rows[e].level > t->rows[r].level)
		e++;
	return e;
}

static void collapse(struct tree_view *t, size_t r)
{
	size_t e = subtree_end(t, r);

	memmove(&t->rows[r + 1], &t->rows[e], (t->v.nr_rows - e) * sizeof(*t->rows));
	t->v.nr_rows -= e - r - 1;
	t->rows[r].open = false;
}

/* Open rows whose Cum is 5% of the steps or more, down the hot paths, up to a bound. */
static void expand_hot(struct tui *ui, struct tree_view *t)
{
	uint64_t total = ui->prof->total;

	for (size_t r = 0; r < t->v.nr_rows && t->v.nr_rows < AUTO_EXPAND_ROWS; r++) {
		const struct tree_row *row = &t->rows[r];

		if (row->open || (row->level && node(ui, row->node)->cum * 20 < total) ||
		    !has_children(ui, t, row->node))
			continue;
		if (expand(ui, t, r))
			break;
	}
}

static void title(struct tree_view *t)
{
	snprintf(t->v.title, sizeof(t->v.title), "Call tree %s%s (children by Cum; m: %s)",
		 t->merged ? "of the threads merged" : "per thread",
		 t->filtered ? ", the selected functions' subtrees" : "",
		 t->merged ? "per thread" : "merged");
}

static int build(struct tui *ui, struct tree_view *t)
{
	const struct tui_profile *p = ui->prof;

	t->v.nr_rows = 0;
	t->v.cur = t->v.top = 0;
	if (t->merged) {
		uint32_t root = tui_profile_merged_root(ui->d, ui->prof);

		if (!room(t, 1))
			return -1;
		t->rows[t->v.nr_rows++] = (struct tree_row){ .node = root, .thread = UINT32_MAX };
	} else {
		if (!room(t, p->nr_threads))
			return -1;
		for (size_t i = 0; i < p->nr_threads; i++) {
			uint32_t root = arcs_thread_root(ui->d->r.arcs, p->threads[i], NULL, NULL);

			t->rows[t->v.nr_rows++] = (struct tree_row){ .node = root,
								     .thread = (uint32_t)p->threads[i] };
		}
	}
	if (!ensure_nodes(ui, t))
		return -1;
	expand_hot(ui, t);
	title(t);
	return 0;
}

/* Steps under a root node (its children's Cum). */
static uint64_t root_steps(struct tui *ui, struct tree_view *t, uint32_t n)
{
	const struct kids *kd = children(ui, t, n);
	uint64_t sum = 0;

	for (uint32_t i = 0; kd && i < kd->n; i++)
		sum += node(ui, kd->k[i])->cum;
	return sum;
}

static void row(struct tui *ui, struct tui_view *v, size_t i, char *buf, size_t size,
		enum tui_heat *heat, int *attr)
{
	char mt[REPORT_MODULE_TAG_SIZE];
	struct tree_view *t = (struct tree_view *)v;
	const struct tree_row *r = &t->rows[i];
	const struct arc_node *n = node(ui, r->node);
	uint64_t total = ui->prof->total;
	char mark = r->open ? '-' : has_children(ui, t, r->node) ? '+' : ' ';
	bool module;
	int indent = 2 * (int)(r->level < MAX_INDENT ? r->level : MAX_INDENT);

	if (!r->level) {
		uint64_t steps = root_steps(ui, t, r->node);
		char who[256];

		if (r->thread == UINT32_MAX) {
			snprintf(who, sizeof(who), "%zu thread%s merged", ui->prof->nr_threads,
				 ui->prof->nr_threads == 1 ? "" : "s");
		} else {
			uint32_t pid, tid;
			const char *comm;

			arcs_thread_root(ui->d->r.arcs, r->thread, &pid, &tid);
			comm = trace_comm(session_trace(ui->d->r.s), tid);
			snprintf(who, sizeof(who), "thread %u (pid %u%s%s)", tid, pid,
				 comm ? ", " : "", comm ? comm : "");
		}
		snprintf(buf, size, "%6s %11s %11s %11" PRIu64 " %6.2f%%  %c %s", "", "", "", steps,
			 report_percent(steps, total), mark, who);
		*attr = A_BOLD;
		return;
	}
	module = report_module_shown(ui->d->r.cf, n->fn,
				     n->parent == ARC_NONE ? CF_NO_FN : node(ui, n->parent)->fn);
	snprintf(buf, size, "%6u %11" PRIu64 " %11" PRIu64 " %11" PRIu64 " %6.2f%%  %*s%c %s%s%s",
		 r->depth, n->calls, n->base, n->cum, report_percent(n->cum, total), indent, "",
		 mark, tui_fn_name(ui->d, n->fn),
		 report_module_tag(module ? cf_func(ui->d->r.cf, n->fn)->module : NULL, mt,
				   sizeof(mt)),
		 report_native_mark(ui->d->r.cf, n->fn));
	*heat = tui_heat_of(n->cum, total);
}

static size_t parent_row(const struct tree_view *t, size_t r)
{
	size_t p = r;

	while (p && t->rows[p].level >= t->rows[r].level)
		p--;
	return t->rows[r].level ? p : r;
}

static void expand_all(struct tui *ui, struct tree_view *t, size_t r)
{
	size_t end = subtree_end(t, r);

	for (size_t i = r; i < end; i++) {
		size_t before = t->v.nr_rows;

		if (t->v.nr_rows >= EXPAND_ALL_ROWS) {
			tui_message(ui, "stopped at %d rows", EXPAND_ALL_ROWS);
			return;
		}
		if (!t->rows[i].open && has_children(ui, t, t->rows[i].node) && expand(ui, t, i)) {
			tui_message(ui, "out of memory");
			return;
		}
		end += t->v.nr_rows - before;
	}
}

static int key(struct tui *ui, struct tui_view *v, int k)
{
	struct tree_view *t = (struct tree_view *)v;
	size_t r = v->cur;

	if (!v->nr_rows)
		return k == 'm' ? (t->merged = !t->merged, build(ui, t), 1) : 0;
	switch (k) {
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (t->rows[r].open)
			collapse(t, r);
		else if (has_children(ui, t, t->rows[r].node) && expand(ui, t, r))
			tui_message(ui, "out of memory");
		return 1;
	case '+':
	case KEY_RIGHT:
		if (!t->rows[r].open && has_children(ui, t, t->rows[r].node)) {
			if (expand(ui, t, r))
				tui_message(ui, "out of memory");
		} else if (k == KEY_RIGHT && r + 1 < v->nr_rows &&
			   t->rows[r + 1].level > t->rows[r].level) {
			v->cur = r + 1;
		}
		return 1;
	case '-':
	case KEY_LEFT:
		if (t->rows[r].open)
			collapse(t, r);
		else
			tui_view_goto(ui, v, parent_row(t, r));
		return 1;
	case 'e':
		expand_all(ui, t, r);
		return 1;
	case 'C':
		for (size_t i = v->nr_rows; i-- > 0;)
			if (!t->rows[i].level && t->rows[i].open)
				collapse(t, i);
		tui_view_goto(ui, v, 0);
		return 1;
	case 'm':
		t->merged = !t->merged;
		if (build(ui, t))
			tui_message(ui, "out of memory");
		return 1;
	default:
		return 0;
	}
}

/* ---- search through the whole tree ---- */

/* The next node in display order within the tree under root, ARC_NONE after its last. */
static uint32_t dfs_next(struct tui *ui, struct tree_view *t, uint32_t n, uint32_t root)
{
	const struct kids *kd = children(ui, t, n);

	if (kd && kd->n)
		return kd->k[0];
	while (n != root) {
		uint32_t p = node(ui, n)->parent;

		kd = children(ui, t, p);
		if (!kd)
			return ARC_NONE;
		if (t->pos[n] + 1 < kd->n)
			return kd->k[t->pos[n] + 1];
		n = p;
	}
	return ARC_NONE;
}

/* The last node in display order under n (n itself without children). */
static uint32_t dfs_last(struct tui *ui, struct tree_view *t, uint32_t n)
{
	const struct kids *kd;

	while ((kd = children(ui, t, n)) && kd->n)
		n = kd->k[kd->n - 1];
	return n;
}

/* The previous node in display order, ARC_NONE before root. */
static uint32_t dfs_prev(struct tui *ui, struct tree_view *t, uint32_t n, uint32_t root)
{
	uint32_t p;

	if (n == root)
		return ARC_NONE;
	p = node(ui, n)->parent;
	if (!t->pos[n])
		return p;
	return dfs_last(ui, t, children(ui, t, p)->k[t->pos[n] - 1]);
}

static size_t root_row_of(const struct tree_view *t, size_t r)
{
	while (r && t->rows[r].level)
		r--;
	return r;
}

static size_t next_root_row(const struct tree_view *t, size_t r, int dir)
{
	size_t n = t->v.nr_rows;

	for (size_t k = 1; k <= n; k++) {
		size_t i = dir > 0 ? (r + k) % n : (r + n - k % n) % n;

		if (!t->rows[i].level)
			return i;
	}
	return r;
}

/* Open the rows down to node n (in the tree of root row rr) and put the cursor on it. */
static int reveal(struct tui *ui, struct tree_view *t, size_t rr, uint32_t n)
{
	uint32_t *path = NULL;
	size_t depth = 0, cap = 0, r = rr;

	for (uint32_t a = n; a != t->rows[rr].node; a = node(ui, a)->parent) {
		if (depth == cap) {
			uint32_t *np = realloc(path, (cap = cap ? 2 * cap : 64) * sizeof(*np));

			if (!np) {
				free(path);
				return -1;
			}
			path = np;
		}
		path[depth++] = a;
	}
	while (depth--) {
		size_t end;

		if (expand(ui, t, r)) {
			free(path);
			return -1;
		}
		end = subtree_end(t, r);
		for (size_t i = r + 1; i < end; i++)
			if (t->rows[i].level == t->rows[r].level + 1 && t->rows[i].node == path[depth]) {
				r = i;
				break;
			}
	}
	free(path);
	tui_view_goto(ui, &t->v, r);
	return 0;
}

static bool node_matches(struct tui *ui, uint32_t n, const char *text)
{
	uint32_t fn = node(ui, n)->fn;

	return fn != CF_NO_FN && tui_text_match(tui_fn_name(ui->d, fn), text);
}

static bool row_match(struct tui *ui, struct tui_view *v, size_t i, const char *text)
{
	return node_matches(ui, ((struct tree_view *)v)->rows[i].node, text);
}

static int search(struct tui *ui, struct tui_view *v, const char *text, int dir)
{
	struct tree_view *t = (struct tree_view *)v;
	size_t rr, start_rr;
	uint32_t n, start;
	uint64_t steps = 0, limit;

	if (!v->nr_rows)
		return 0;
	if (t->filtered) {
		/* the selected subtrees are not one tree: search the rows shown */
		for (size_t k = 1; k <= v->nr_rows; k++) {
			size_t i = dir > 0 ? (v->cur + k) % v->nr_rows :
					     (v->cur + v->nr_rows - k % v->nr_rows) % v->nr_rows;

			if (row_match(ui, v, i, text)) {
				tui_view_goto(ui, v, i);
				return 1;
			}
		}
		return 0;
	}
	rr = start_rr = root_row_of(t, v->cur);
	n = start = t->rows[v->cur].node;
	limit = (uint64_t)arcs_nr_nodes(ui->d->r.arcs) + 2;
	while (steps++ < limit) {
		n = dir > 0 ? dfs_next(ui, t, n, t->rows[rr].node) :
			      dfs_prev(ui, t, n, t->rows[rr].node);
		if (n == ARC_NONE) {
			/* on to the next thread's tree (or around) */
			rr = next_root_row(t, rr, dir);
			n = dir > 0 ? t->rows[rr].node : dfs_last(ui, t, t->rows[rr].node);
		}
		if (n == start && rr == start_rr)
			break;
		if (node_matches(ui, n, text)) {
			if (reveal(ui, t, rr, n))
				tui_message(ui, "out of memory");
			return 1;
		}
	}
	return 0;
}

static uint32_t fn_at(struct tui *ui, struct tui_view *v, size_t i)
{
	return node(ui, ((struct tree_view *)v)->rows[i].node)->fn;
}

static int reselect(struct tui *ui, struct tui_view *v)
{
	return build(ui, (struct tree_view *)v);
}

static void view_free(struct tui_view *v)
{
	struct tree_view *t = (struct tree_view *)v;

	for (uint32_t i = 0; i < t->nr_nodes; i++)
		free(t->kids[i].k);
	free(t->kids);
	free(t->pos);
	free(t->rows);
	free(t);
}

static const struct tui_view_ops ops = {
	.name = "tree",
	.keys = "Enter  open or close the row\n"
		"Right  open the row (+), or go to its first child\n"
		"Left   close the row (-), or go to its parent\n"
		"e      open everything below the row\n"
		"C      close every thread's tree\n"
		"m      the threads merged into one tree, or per thread\n"
		"/ n N  search every row, the closed ones too (they are opened)",
	.row = row, .key = key, .search = search, .fn_at = fn_at, .reselect = reselect,
	.free = view_free,
};

struct tui_view *tui_tree_new(struct tui *ui, bool merged)
{
	struct tree_view *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->v.ops = &ops;
	t->v.no_hscroll = true;
	t->merged = merged;
	t->filtered = filter_on_functions(session_select(ui->d->r.s));
	snprintf(t->v.heading, sizeof(t->v.heading), "%6s %11s %11s %11s %7s  %s", "depth", "calls",
		 "base", "cum", "cum%", "function");
	if (build(ui, t)) {
		view_free(&t->v);
		return NULL;
	}
	return &t->v;
}
