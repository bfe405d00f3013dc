// SPDX-License-Identifier: GPL-2.0
/*
 * The ptrace backend's --on SYMBOL: breakpoints at the symbols' entries in
 * every traced process (planted again after every mapping change), and the
 * regions they open: a thread that reaches one is stepped until the
 * activation returns (its stack pointer rises above where it was at entry;
 * where the return address is in a register, ppc64's LR: back at that
 * address with the entry's stack pointer).
 */
#define PR_FMT "ptrace"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/filter.h"
#include "util/log.h"
#include "util/popt.h"
#include "pitrace/ptrace_backend.h"
#include "pitrace/ptrace_int.h"
#include "util/symbols.h"
#include "util/trace_writer.h"

struct bp *bp_find(struct proc *p, uint64_t addr)
{
	for (size_t i = 0; i < p->nr_bps; i++)
		if (p->bps[i].addr == addr)
			return &p->bps[i];
	return NULL;
}

int bp_poke(struct proc *p, uint64_t addr, const uint8_t *bytes, size_t len)
{
	/* /proc/PID/mem writes through read-only text like PTRACE_POKETEXT. */
	return pwrite(p->memfd, bytes, len, (off_t)addr) == (ssize_t)len ? 0 : -1;
}

static void plant_bp(struct engine *e, struct proc *p, uint64_t addr, const char *sym)
{
	struct bp *n, b = { .addr = addr };

	if (bp_find(p, addr))
		return;
	if (pread(p->memfd, b.orig, arch_breakpoint_len, (off_t)addr) !=
		    (ssize_t)arch_breakpoint_len ||
	    bp_poke(p, addr, arch_breakpoint_insn, arch_breakpoint_len) < 0) {
		pr_warn("--on %s: cannot plant a breakpoint at %#llx in %d: %s", sym,
			(unsigned long long)addr, p->pid, strerror(errno));
		return;
	}
	n = realloc(p->bps, (p->nr_bps + 1) * sizeof(*n));
	if (!n) {
		bp_poke(p, addr, b.orig, arch_breakpoint_len);
		return;
	}
	p->bps = n;
	p->bps[p->nr_bps++] = b;
	e->guard_dirty = true;
	pr_dbg("--on %s: breakpoint at %#llx in %d", sym, (unsigned long long)addr, p->pid);
}

void bp_remove_all(struct proc *p)
{
	for (size_t i = 0; i < p->nr_bps; i++)
		bp_poke(p, p->bps[i].addr, p->bps[i].orig, arch_breakpoint_len);
	p->nr_bps = 0;
}

void bp_drop_unmapped(struct proc *p)
{
	size_t j = 0;

	for (size_t i = 0; i < p->nr_bps; i++)
		if (ptm_contains(&p->maps, p->bps[i].addr))
			p->bps[j++] = p->bps[i];
	p->nr_bps = j;
}

/* More functions than this for one --on value in one file is a mistake (--on '*'). */
#define ON_MAX_FUNCTIONS 256

struct on_match {
	struct name_patterns pats;
	struct sym_hit *hits;
	size_t n;
	bool too_many, oom;
	/* __NAME_* of each item, taken when the file's NAME is an ifunc */
	struct on_match *variants;
	bool *is_ifunc;
};

static void on_add(struct on_match *m, uint64_t vaddr, unsigned local)
{
	struct sym_hit *h;

	for (size_t i = 0; i < m->n; i++)
		if (m->hits[i].vaddr == vaddr)
			return;
	if (m->n == ON_MAX_FUNCTIONS) {
		m->too_many = true;
		return;
	}
	h = realloc(m->hits, (m->n + 1) * sizeof(*h));
	if (!h) {
		m->oom = true;
		return;
	}
	m->hits = h;
	m->hits[m->n++] = (struct sym_hit){ vaddr, local };
}

static void on_entry(const char *name, const char *raw, uint64_t vaddr, unsigned local,
		     bool ifunc, void *arg)
{
	struct on_match *m = arg;

	for (size_t i = 0; i < m->pats.n; i++) {
		const struct name_pattern *pat = &m->pats.v[i];

		if (name_pattern_match(pat, name, true) ||
		    (raw && raw != name && name_pattern_match(pat, raw, true))) {
			on_add(m, vaddr, local);
			if (ifunc && pat->kind == NAME_PAT_NAME)
				m->is_ifunc[i] = true;
		} else if (name_pattern_ifunc_variant(pat, name)) {
			on_add(&m->variants[i], vaddr, local);
		}
	}
}

/* The entries of the functions --on value matches in the file at path (filter.h's patterns). */
static void on_lookup(struct engine *e, const char *path, const char *value, struct on_match *m)
{
	char err[256];

	if (name_patterns_parse(&m->pats, value, err, sizeof(err)) < 0)
		return;	/* checked when parsing the options */
	m->variants = calloc(m->pats.n, sizeof(*m->variants));
	m->is_ifunc = calloc(m->pats.n, sizeof(*m->is_ifunc));
	if (m->variants && m->is_ifunc)
		sym_file_entries(path, on_entry, m);
	for (size_t i = 0; m->variants && i < m->pats.n; i++) {
		for (size_t k = 0; m->is_ifunc[i] && k < m->variants[i].n; k++)
			on_add(m, m->variants[i].hits[k].vaddr, m->variants[i].hits[k].local);
		if (m->is_ifunc[i])
			m->too_many |= m->variants[i].too_many;
		free(m->variants[i].hits);
	}
	free(m->variants);
	free(m->is_ifunc);
	/* a single name as before: sym_lookup_in_file's own rules (name@plt) */
	if (!m->n && m->pats.n == 1 &&
	    (m->pats.v[0].kind == NAME_PAT_NAME || m->pats.v[0].kind == NAME_PAT_EXACT)) {
		struct sym_hit h = { 0 };

		if (sym_lookup_entries_in_file(path, m->pats.v[0].text, &h.vaddr, NULL,
					       &h.local) == 1)
			on_add(m, h.vaddr, h.local);
	}
	name_patterns_free(&m->pats);
	if (m->too_many) {
		pr_err("--on %s: more than %d functions match in %s: give fewer names or a "
		       "narrower pattern", value, ON_MAX_FUNCTIONS, path);
		e->on_refused = e->failed = true;
		g_interrupted = SIGTERM;
		m->n = 0;
	}
	pr_dbg("--on %s: %zu functions in %s", value, m->n, path);
}

static const struct sym_cache *lookup_sym(struct engine *e, const char *path, unsigned sym)
{
	struct on_match m = { 0 };
	struct sym_cache *c;

	for (size_t i = 0; i < e->nr_syms; i++) {
		c = &e->syms[i];
		if (c->sym == sym && !strcmp(c->path, path))
			return c;
	}
	c = realloc(e->syms, (e->nr_syms + 1) * sizeof(*c));
	if (!c)
		return NULL;
	e->syms = c;
	c = &e->syms[e->nr_syms];
	c->path = strdup(path);
	if (!c->path)
		return NULL;
	c->sym = sym;
	on_lookup(e, path, e->o.on_syms[sym], &m);
	c->hits = m.hits;
	c->nr_hits = m.n;
	if (c->nr_hits)
		e->on_found[sym] = true;
	e->nr_syms++;
	return c;
}

void bp_plant_symbols(struct engine *e, struct proc *p)
{
	for (size_t i = 0; i < p->maps.n; i++) {
		const char *path = p->maps.v[i].path;
		bool seen = false;

		if (path[0] != '/')
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(p->maps.v[j].path, path);
		for (unsigned s = 0; s < e->o.nr_on_syms && !seen; s++) {
			const struct sym_cache *c = lookup_sym(e, path, s);

			/* record's command is stopped at its exec or a dlopen: it does
			 * not run on untraced (attach lets its processes go) */
			if (e->on_refused && !e->attach) {
				kill(p->pid, SIGKILL);
				return;
			}

			for (size_t k = 0; c && k < c->nr_hits; k++) {
				const struct sym_hit *h = &c->hits[k];
				uint64_t addr = ptm_runtime_addr(&p->maps, path, h->vaddr);

				if (!addr)
					continue;
				plant_bp(e, p, addr, e->o.on_syms[s]);
				/* Calls from its own module land past the global entry
				 * (ppc64 ELFv2). */
				if (h->local)
					plant_bp(e, p, addr + h->local, e->o.on_syms[s]);
			}
		}
	}
}

void bp_replant(struct thread *t)
{
	struct proc *p = t->proc;

	if (!t->lifted)
		return;
	t->lifted = false;
	if (bp_find(p, t->lifted_bp))
		bp_poke(p, t->lifted_bp, arch_breakpoint_insn, arch_breakpoint_len);
}

void region_start(struct engine *e, struct thread *t, const struct arch_stop_regs *r)
{
	struct tw_stream *s = pte_stream_of(e, t);

	if (s)
		tw_onoff(s, true, tw_now_ns());
	t->region_end_sp = arch_frame_end_sp(r);
	t->region_ret = r->ra;
	t->stepping = true;
	t->prev_pc = r->pc;
	t->prev_sp = r->sp;
}

bool region_left(const struct thread *t, const struct arch_stop_regs *r)
{
	if (!t->region_end_sp)
		return false;
	if (!t->region_ret)
		return r->sp >= t->region_end_sp;
	/* Back at the entry's return address with its stack pointer (a tail
	 * call's callee returns there too), or above it (a longjmp out). */
	return (r->pc == t->region_ret && r->sp >= t->region_end_sp) || r->sp > t->region_end_sp;
}

void region_end(struct engine *e, struct thread *t)
{
	struct tw_stream *s = pte_stream_of(e, t);

	if (s)
		tw_onoff(s, false, tw_now_ns());
	t->region_end_sp = 0;
	t->stepping = false;
	pte_sync_streams(e, tw_now_ns());	/* the native run may be long */
}

void bp_report_missing(struct engine *e)
{
	size_t missing = 0;

	for (size_t s = 0; s < e->o.nr_on_syms; s++) {
		if (e->on_found[s])
			continue;
		missing++;
		pr_warn("--on %s: no function of that name in the program or the libraries it "
			"loaded", e->o.on_syms[s]);
	}
	if (missing > 1 && missing == e->o.nr_on_syms)
		pr_warn("--on: none of the %zu names was found: nothing was recorded", missing);
}

int ptrace_on_cb(const struct popt *o, const char *arg, const char *cmd)
{
	struct ptrace_opts *pt = o->value;
	char what[64];

	snprintf(what, sizeof(what), "%s: --on", cmd);
	if (name_patterns_check(what, arg) < 0)
		return -1;
	pt->on_syms[pt->nr_on_syms++] = (char *)arg;
	return 0;
}
