// SPDX-License-Identifier: GPL-2.0
/* Report filters: matching threads, modules, functions and rings, and what matched (filter.h). */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/demangle.h"
#include "util/filter.h"
#include "util/log.h"

static const char *const ring_names[] = { "all", "user", "kernel" };

/* The end of the item at s: a newline, or a comma outside brackets. */
static char *item_end(char *s)
{
	int depth = 0;

	for (; *s && *s != '\n'; s++) {
		if (strchr("(<[{", *s))
			depth++;
		else if (strchr(")>]}", *s) && depth > 0)
			depth--;
		else if (*s == ',' && !depth)
			break;
	}
	return s;
}

static int pattern_init(struct name_pattern *pat, char *item, char *err, size_t size)
{
	int rc;

	pat->item = item;
	pat->text = item;
	if (!strncmp(item, "re:", 3)) {
		pat->kind = NAME_PAT_REGEX;
		pat->text = item + 3;
		rc = regcomp(&pat->re, pat->text, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char why[128];

			regerror(rc, &pat->re, why, sizeof(why));
			snprintf(err, size, "'%s' is not a regular expression: %s", pat->text, why);
			return -1;
		}
	} else if (item[0] == '=') {
		pat->kind = NAME_PAT_EXACT;
		pat->text = item + 1;
	} else {
		pat->kind = strpbrk(item, "*?[") ? NAME_PAT_GLOB : NAME_PAT_NAME;
	}
	if (!*pat->text) {
		snprintf(err, size, "'%s' names nothing", item);
		if (pat->kind == NAME_PAT_REGEX)
			regfree(&pat->re);
		return -1;
	}
	return 0;
}

int name_patterns_parse(struct name_patterns *p, const char *list, char *err, size_t size)
{
	char *s, *end;
	size_t cap = 1;

	memset(p, 0, sizeof(*p));
	p->copy = strdup(list);
	for (const char *c = list; *c; c++)
		cap += *c == ',' || *c == '\n';
	p->v = calloc(cap, sizeof(*p->v));
	if (!p->copy || !p->v) {
		snprintf(err, size, "out of memory");
		name_patterns_free(p);
		return -1;
	}
	for (s = p->copy;; s = end + 1) {
		bool last;

		end = item_end(s);
		last = !*end;
		*end = '\0';
		if (pattern_init(&p->v[p->n], s, err, size) < 0) {
			name_patterns_free(p);
			return -1;
		}
		p->n++;
		if (last)
			return 0;
	}
}

int name_patterns_check(const char *opt, const char *list)
{
	struct name_patterns p;
	char err[256];

	if (name_patterns_parse(&p, list, err, sizeof(err)) < 0) {
		pr_err("%s: %s", opt, err);
		return -1;
	}
	name_patterns_free(&p);
	return 0;
}

void name_patterns_free(struct name_patterns *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].kind == NAME_PAT_REGEX)
			regfree(&p->v[i].re);
	free(p->v);
	free(p->copy);
	memset(p, 0, sizeof(*p));
}

/* glibc names what an ifunc NAME chooses __NAME_VARIANT (__strlen_evex, __memcpy_avx_unaligned). */
static bool ifunc_variant(const char *name, const char *ifunc)
{
	size_t n = strlen(ifunc);

	return name[0] == '_' && name[1] == '_' && !strncmp(name + 2, ifunc, n) &&
	       name[2 + n] == '_' && name[3 + n];
}

bool name_pattern_ifunc_variant(const struct name_pattern *pat, const char *name)
{
	return pat->kind == NAME_PAT_NAME && ifunc_variant(name, pat->text);
}

bool name_pattern_match(const struct name_pattern *pat, const char *name, bool symbol)
{
	switch (pat->kind) {
	case NAME_PAT_REGEX:
		return !regexec(&pat->re, name, 0, NULL, 0);
	case NAME_PAT_GLOB:
		return !fnmatch(pat->text, name, 0) || !strcmp(name, pat->text);
	case NAME_PAT_NAME:
	case NAME_PAT_EXACT:
		return symbol ? demangle_name_matches(name, pat->text) : !strcmp(name, pat->text);
	}
	return false;
}

int filter_init(struct filter *fl, const struct session_filter *f)
{
	char err[256];

	memset(fl, 0, sizeof(*fl));
	fl->f = *f;
	if (f->module && name_patterns_parse(&fl->modules_pat, f->module, err, sizeof(err)) < 0) {
		pr_err("--module: %s", err);
		return -1;
	}
	if (f->symbol && name_patterns_parse(&fl->symbols_pat, f->symbol, err, sizeof(err)) < 0) {
		pr_err("--symbol: %s", err);
		filter_free(fl);
		return -1;
	}
	return 0;
}

static void hints_free(struct filter_hints *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->name[i]);
	h->n = 0;
}

void filter_free(struct filter *fl)
{
	hints_free(&fl->modules);
	hints_free(&fl->symbols);
	name_patterns_free(&fl->modules_pat);
	name_patterns_free(&fl->symbols_pat);
}

static void hint(struct filter_hints *h, const char *name)
{
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->name[i], name))
			return;
	if (h->n == FILTER_HINTS) {
		h->more++;
		return;
	}
	h->name[h->n] = strdup(name);
	if (h->name[h->n])
		h->n++;
}

bool filter_on_functions(const struct filter *fl)
{
	return fl && (fl->f.module || fl->f.symbol || fl->f.ring);
}

bool filter_thread(struct filter *fl, uint32_t pid, uint32_t tid)
{
	size_t i;

	if (!fl || ((!fl->f.pid || pid == fl->f.pid) && (!fl->f.tid || tid == fl->f.tid))) {
		if (fl)
			fl->thread_matched = true;
		return true;
	}
	for (i = 0; i < fl->nr_threads; i++)
		if (fl->threads[i].tid == tid && (fl->f.tid || fl->threads[i].pid == pid))
			return false;
	for (i = 0; !fl->f.tid && i < fl->nr_threads; i++)
		if (fl->threads[i].pid == pid)
			return false;	/* processes: one entry each */
	if (fl->nr_threads < FILTER_HINTS) {
		fl->threads[fl->nr_threads].pid = pid;
		fl->threads[fl->nr_threads++].tid = tid;
	} else {
		fl->more_threads++;
	}
	return false;
}

/* libc.so.6 -> 4 ("libc"), ld-linux-x86-64.so.2 -> 15; 0 when not a .so name. */
static size_t so_stem(const char *name)
{
	const char *so = strstr(name, ".so");

	return so && (so[3] == '\0' || so[3] == '.') ? (size_t)(so - name) : 0;
}

/* Does pat take the module by any of its names? */
static bool module_match(const struct name_pattern *pat, const char *module, const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	size_t stem = so_stem(module), len = strlen(module);
	char bare[256];

	if (name_pattern_match(pat, module, false) ||
	    (path && name_pattern_match(pat, path, false)) ||
	    (slash && name_pattern_match(pat, slash + 1, false)))
		return true;
	/* "libc" for libc.so.6, "vdso" for [vdso] */
	if (stem && stem < sizeof(bare)) {
		snprintf(bare, sizeof(bare), "%.*s", (int)stem, module);
		if (name_pattern_match(pat, bare, false))
			return true;
	}
	if (module[0] == '[' && len > 2 && module[len - 1] == ']' && len < sizeof(bare)) {
		snprintf(bare, sizeof(bare), "%.*s", (int)len - 2, module + 1);
		return name_pattern_match(pat, bare, false);
	}
	return false;
}

bool filter_module(struct filter *fl, const char *module, const char *module_path)
{
	bool yes = false;

	if (!fl || !fl->f.module)
		return true;
	if (!module)
		return false;
	for (size_t i = 0; i < fl->modules_pat.n; i++) {
		struct name_pattern *pat = &fl->modules_pat.v[i];

		if (module_match(pat, module, module_path))
			yes = pat->matched = true;
	}
	if (yes)
		fl->module_matched = true;
	else
		hint(&fl->modules, module);
	return yes;
}

/* Does name contain pattern, ignoring case (for hints)? */
static bool contains_nocase(const char *name, const char *pattern)
{
	size_t n = strlen(pattern);

	for (; *name; name++)
		if (!strncasecmp(name, pattern, n))
			return true;
	return false;
}

/* Does pat take the function: by name, or as an implementation of the ifunc it names? */
static bool symbol_match(const struct filter *fl, const struct name_pattern *pat,
			 const char *name, const char *raw)
{
	if ((name && name_pattern_match(pat, name, true)) ||
	    (raw && raw != name && name_pattern_match(pat, raw, true)))
		return true;
	return name && name_pattern_ifunc_variant(pat, name) &&
	       (!fl->is_ifunc || fl->is_ifunc(fl->ifunc_ctx, pat->text));
}

bool filter_symbol(struct filter *fl, const char *name, const char *raw)
{
	bool yes = false, hinted = false;

	if (!fl || !fl->f.symbol)
		return true;
	for (size_t i = 0; i < fl->symbols_pat.n; i++) {
		struct name_pattern *pat = &fl->symbols_pat.v[i];

		if (symbol_match(fl, pat, name, raw))
			yes = pat->matched = true;
		else if (name && !hinted && pat->kind == NAME_PAT_NAME &&
			 contains_nocase(name, pat->text))
			hinted = true;
	}
	if (yes)
		fl->symbol_matched = true;
	else if (hinted)
		hint(&fl->symbols, name);
	return yes;
}

bool filter_ring(struct filter *fl, uint8_t ring)
{
	bool yes;

	if (!fl)
		return true;
	fl->saw_ring[ring ? 1 : 0] = true;
	yes = fl->f.ring == SESSION_RING_ALL || (ring != 0) == (fl->f.ring == SESSION_RING_KERNEL);
	if (yes && fl->f.ring)
		fl->ring_matched = true;
	return yes;
}

/* "a, b, c (and 3 more)": those containing part (NULL: all; "": none) */
static void hints_print(const struct filter_hints *h, const char *part, char *buf, size_t size)
{
	size_t n = 0, shown = 0;

	buf[0] = '\0';
	if (part && !*part)
		return;
	for (size_t i = 0; i < h->n && n < size; i++)
		if (!part || contains_nocase(h->name[i], part))
			n += (size_t)snprintf(buf + n, size - n, "%s%s", shown++ ? ", " : "",
					      h->name[i]);
	if (h->more && shown && n < size)
		snprintf(buf + n, size - n, " (and %zu more)", h->more);
}

void filter_warn_unmatched(const struct filter *fl, uint64_t steps_seen, uint64_t in_window,
			   uint64_t last_index, const char *(*comm)(void *ctx, uint32_t tid),
			   void *ctx)
{
	const struct session_filter *f = &fl->f;
	bool windowed = f->from || f->to != UINT64_MAX || f->time_from || f->time_to != UINT64_MAX;
	char list[1024];

	if ((f->pid || f->tid) && !fl->thread_matched) {
		size_t n = 0;

		list[0] = '\0';
		for (size_t i = 0; i < fl->nr_threads && n < sizeof(list); i++) {
			const char *name = comm ? comm(ctx, fl->threads[i].tid) : NULL;

			if (f->tid)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%u (pid %u, %s)",
						      i ? ", " : "", fl->threads[i].tid,
						      fl->threads[i].pid, name ? name : "?");
			else
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%u (%s)",
						      i ? ", " : "", fl->threads[i].pid,
						      name ? name : "?");
		}
		if (fl->more_threads && n < sizeof(list))
			snprintf(list + n, sizeof(list) - n, " (and %zu more)", fl->more_threads);
		if (f->tid)
			pr_warn("--tid %u matches no thread of the trace%s%s", f->tid,
				list[0] ? "; its threads: " : "", list);
		else
			pr_warn("--pid %u matches no process of the trace%s%s", f->pid,
				list[0] ? "; its processes: " : "", list);
		return;	/* the other filters saw nothing to match */
	}
	if (windowed && steps_seen && !in_window) {
		pr_warn("the window (--from, --to, --time-from, --time-to) holds none of the %s"
			"steps, 0 to %" PRIu64, f->pid || f->tid ? "selected threads' " : "trace's ",
			last_index);
		return;
	}
	if (f->ring && !fl->ring_matched && (fl->saw_ring[0] || fl->saw_ring[1]))
		pr_warn("--ring %s matches nothing: the trace's code is %s", ring_names[f->ring],
			fl->saw_ring[0] && fl->saw_ring[1] ? "user and kernel code" :
			fl->saw_ring[1] ? "kernel code only" : "user code only");
	for (size_t i = 0; i < fl->modules_pat.n; i++) {
		const struct name_pattern *pat = &fl->modules_pat.v[i];

		if (pat->matched)
			continue;
		hints_print(&fl->modules, NULL, list, sizeof(list));
		pr_warn("--module %s matches no module%s%s", pat->item,
			list[0] ? "; the trace's modules: " : "", list);
	}
	for (size_t i = 0; i < fl->symbols_pat.n; i++) {
		const struct name_pattern *pat = &fl->symbols_pat.v[i];

		if (pat->matched)
			continue;
		hints_print(&fl->symbols, pat->kind == NAME_PAT_NAME ? pat->text : "", list,
			    sizeof(list));
		if (list[0])
			pr_warn("--symbol %s matches no function; functions with it in their name: %s",
				pat->item, list);
		else
			pr_warn("--symbol %s matches no function (post profile lists them)",
				pat->item);
	}
}
