// SPDX-License-Identifier: GPL-2.0
/* The viewer's help: the keys of every view, then those of the view it was opened from. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "post/tui.h"

static const char global_keys[] =
	"Keys of every view\n"
	"Up Down j k         move; PgUp PgDn (space) a page; Home End the first, last row\n"
	"Left Right          scroll sideways (the tree: close and open)\n"
	"/                   search (names, case-insensitive); n next match, N previous\n"
	"c                   callers and callees of the row's function\n"
	"a                   annotate the row's function (source and instructions)\n"
	"t                   the call tree\n"
	"f                   the call flow\n"
	"p                   pick a process or thread: every view shows only it\n"
	"F                   back to the functions view\n"
	"q Esc               back to the view before (q in the functions view: quit)\n"
	"Q                   quit\n"
	"?                   this help\n"
	"Hot rows: 5% of the steps or more (red, bold), 0.5% or more (green)";

struct help_view {
	struct tui_view v;
	char *text;
	char **lines;
};

static void row(struct tui *ui, struct tui_view *v, size_t i, char *buf, size_t size,
		enum tui_heat *heat, int *attr)
{
	const char *l = ((struct help_view *)v)->lines[i];

	(void)ui;
	(void)heat;
	if (!strncmp(l, "Keys of", 7))
		*attr = A_BOLD;
	snprintf(buf, size, "%s", l);
}

static bool match(struct tui *ui, struct tui_view *v, size_t i, const char *text)
{
	(void)ui;
	return tui_text_match(((struct help_view *)v)->lines[i], text);
}

static void view_free(struct tui_view *v)
{
	struct help_view *h = (struct help_view *)v;

	free(h->text);
	free(h->lines);
	free(h);
}

static const struct tui_view_ops ops = {
	.name = "help", .row = row, .match = match, .free = view_free,
};

/* "KEY  what" lines of a view, indented like the global ones. */
static size_t append_keys(char *out, size_t o, size_t size, const char *keys)
{
	while (keys && *keys && o < size) {
		const char *e = strchr(keys, '\n'), *gap;
		size_t len = e ? (size_t)(e - keys) : strlen(keys);
		int klen;

		gap = memchr(keys, ' ', len);
		klen = gap ? (int)(gap - keys) : (int)len;
		while (gap && gap < keys + len && *gap == ' ')
			gap++;
		o += (size_t)snprintf(out + o, size - o, "\n%-*.*s %.*s", klen > 19 ? klen : 19,
				      klen, keys, gap ? (int)(keys + len - gap) : 0, gap ? gap : "");
		keys = e ? e + 1 : keys + len;
	}
	return o;
}

struct tui_view *tui_help_new(struct tui *ui, const struct tui_view *of)
{
	struct help_view *h = calloc(1, sizeof(*h));
	size_t size = 8192, o, n = 0;

	(void)ui;
	if (!h || !(h->text = malloc(size))) {
		free(h);
		return NULL;
	}
	h->v.ops = &ops;
	snprintf(h->v.title, sizeof(h->v.title), "Help: q or Esc goes back");
	snprintf(h->v.heading, sizeof(h->v.heading), "%-19s %s", "key", "what");
	o = (size_t)snprintf(h->text, size, "%s", global_keys);
	if (of->ops->keys && o < size) {
		o += (size_t)snprintf(h->text + o, size - o, "\n\nKeys of the %s view", of->ops->name);
		append_keys(h->text, o, size, of->ops->keys);
	}
	for (char *p = h->text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n++;
	h->lines = malloc(n * sizeof(*h->lines));
	if (!h->lines) {
		view_free(&h->v);
		return NULL;
	}
	n = 0;
	for (char *p = h->text, *e; p; p = e ? e + 1 : NULL) {
		e = strchr(p, '\n');
		if (e)
			*e = '\0';
		h->lines[n++] = p;
	}
	h->v.nr_rows = n;
	return &h->v;
}
