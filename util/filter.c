// SPDX-License-Identifier: GPL-2.0
/* Report filters: matching threads, modules, functions and rings, and what matched (filter.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "demangle.h"
#include "filter.h"
#include "log.h"

static const char *const ring_names[] = { "all", "user", "kernel" };

void filter_init(struct filter *fl, const struct session_filter *f)
{
	memset(fl, 0, sizeof(*fl));
	fl->f = *f;
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

bool filter_module(struct filter *fl, const char *module, const char *module_path)
{
	const char *m = fl ? fl->f.module : NULL, *slash;
	size_t stem;
	bool yes;

	if (!m)
		return true;
	if (!module)
		return false;
	slash = module_path ? strrchr(module_path, '/') : NULL;
	stem = so_stem(module);
	yes = !strcmp(module, m) || (module_path && !strcmp(module_path, m)) ||
	      (slash && !strcmp(slash + 1, m)) ||
	      (stem && strlen(m) == stem && !strncmp(module, m, stem));
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

bool filter_symbol(struct filter *fl, const char *name, const char *raw)
{
	const char *pat = fl ? fl->f.symbol : NULL;
	bool yes;

	if (!pat)
		return true;
	yes = (name && demangle_name_matches(name, pat)) ||
	      (raw && raw != name && demangle_name_matches(raw, pat));
	if (yes)
		fl->symbol_matched = true;
	else if (name && contains_nocase(name, pat))
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

/* "a, b, c (and 3 more)" */
static void hints_print(const struct filter_hints *h, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < h->n && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", h->name[i]);
	if (h->more && n < size)
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
	if (f->module && !fl->module_matched) {
		hints_print(&fl->modules, list, sizeof(list));
		pr_warn("--module %s matches no module%s%s", f->module,
			list[0] ? "; the trace's modules: " : "", list);
	}
	if (f->symbol && !fl->symbol_matched) {
		hints_print(&fl->symbols, list, sizeof(list));
		if (list[0])
			pr_warn("--symbol %s matches no function; functions with it in their name: %s",
				f->symbol, list);
		else
			pr_warn("--symbol %s matches no function (post profile lists them)", f->symbol);
	}
}
