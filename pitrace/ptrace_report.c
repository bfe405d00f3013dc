// SPDX-License-Identifier: GPL-2.0
/*
 * What the ptrace backend tells the user while and after it records: a
 * live step count and rate on a terminal, one summary line at the end (as
 * the driver backend prints), and how the command died when a signal
 * killed it, with the instruction and the function where.
 */
#define PR_FMT "ptrace"
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pitrace/format.h>
#include "util/log.h"
#include "pitrace/ptrace_int.h"
#include "util/symbols.h"
#include "util/trace_reader.h"
#include "util/trace_dir.h"
#include "util/trace_writer.h"

/* 12345 -> "12.3k" (rates read better short). */
static const char *short_count(double v, char *buf, size_t size)
{
	if (v >= 1e6)
		snprintf(buf, size, "%.1fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, size, "%.1fk", v / 1e3);
	else
		snprintf(buf, size, "%.0f", v);
	return buf;
}

/* Is fd of task tid the terminal our stderr is? */
static bool fd_is_our_tty(pid_t tid, int fd)
{
	struct stat ours, its;
	char name[64];

	snprintf(name, sizeof(name), "/proc/%d/fd/%d", (int)tid, fd);
	return fstat(STDERR_FILENO, &ours) == 0 && stat(name, &its) == 0 &&
	       S_ISCHR(its.st_mode) && its.st_rdev == ours.st_rdev;
}

/*
 * The live line can meet the command's own output only where that goes to
 * our terminal.  Step mode sees every system call before it runs
 * (report_before_syscall) and clears the line first; block mode and --on
 * run some code unseen, so there the line is drawn only when the command's
 * stdout and stderr go elsewhere.
 */
static bool progress_may_collide(const struct engine *e)
{
	pid_t pid = e->report_pid ? e->report_pid : e->root_pid;

	if (!e->block && !e->on_mode)
		return false;
	return fd_is_our_tty(pid, STDOUT_FILENO) || fd_is_our_tty(pid, STDERR_FILENO);
}

void report_before_syscall(struct engine *e, struct thread *t)
{
	struct arch_syscall sc;

	if (arch_syscall_regs(t->tid, false, &sc) < 0)
		return;
	switch (sc.nr) {
	case SYS_write:
	case SYS_writev:
	case SYS_pwrite64:
	case SYS_pwritev:
	case SYS_pwritev2:
		break;
	default:
		return;
	}
	if (sc.args[0] > INT32_MAX || !fd_is_our_tty(t->tid, (int)sc.args[0]))
		return;
	fputs("\r\033[K", stderr);	/* drawn again, below that output, a second on */
	e->progress_shown = false;
}

/* Two string lists, NULL-terminated, the same? */
static bool same_strv(char *const *a, char *const *b)
{
	for (; *a && *b; a++, b++)
		if (strcmp(*a, *b))
			return false;
	return !*a && !*b;
}

/*
 * The steps of the trace in dir when it recorded what e records, run to
 * its end: the same command line (as typed), backend, mode and --on
 * values, state complete, not cut by a limit or a signal; else 0.
 */
static uint64_t earlier_steps(const struct engine *e, const char *dir, char *const *argv)
{
	const struct trace_info *in;
	struct trace *t;
	uint64_t steps = 0;
	char **on;

	log_quiet++;		/* not a trace, or a damaged one: no estimate, no word */
	t = trace_open(dir);
	log_quiet--;
	if (!t)
		return 0;
	in = trace_info(t);
	on = calloc(e->o.nr_on_syms + 1, sizeof(*on));
	if (on) {
		memcpy(on, e->o.on_syms, e->o.nr_on_syms * sizeof(*on));
		if (same_strv(in->argv, argv) && same_strv(in->on_symbols, on) &&
		    !strcmp(in->backend, "ptrace") &&
		    !strcmp(in->mode, e->block ? "block" : "step") &&
		    !strcmp(in->state, PT_STATE_COMPLETE) &&
		    (!in->end_reason[0] || !strcmp(in->end_reason, PT_END_EXITED)))
			steps = in->totals.steps;
	}
	free(on);
	trace_close(t);
	return steps;
}

void report_estimate(struct engine *e, char *const *argv)
{
	char old[PATH_MAX];

	if (!log_is_tty())
		return;		/* no live line to show it in */
	if (argv)
		e->estimate = earlier_steps(e, e->o.out_dir, argv);
	if (argv && !e->estimate &&
	    snprintf(old, sizeof(old), "%s.old", e->o.out_dir) < (int)sizeof(old))
		e->estimate = earlier_steps(e, old, argv);
	if (e->max_steps != UINT64_MAX && (!e->estimate || e->estimate > e->max_steps))
		e->estimate = e->max_steps;
}

/* 75 -> "1m15s": time left reads better short. */
static const char *short_time(double secs, char *buf, size_t size)
{
	unsigned long s = (unsigned long)(secs + 0.5);

	if (s < 60)
		snprintf(buf, size, "%lus", s);
	else if (s < 3600)
		snprintf(buf, size, "%lum%02lus", s / 60, s % 60);
	else
		snprintf(buf, size, "%luh%02lum", s / 3600, s / 60 % 60);
	return buf;
}

void report_progress(struct engine *e, uint64_t now)
{
	uint64_t steps = tw_total_steps(e->tw);
	double rate;
	char r[32];

	if (now < e->next_progress_ns || !log_is_tty())
		return;
	if (!e->next_progress_ns) {
		/* the first second: nothing to say yet (and the command has started) */
		e->progress_off = progress_may_collide(e);
		e->next_progress_ns = now + 1000000000ull;
		e->last_progress_ns = now;
		e->last_progress_steps = steps;
		return;
	}
	if (e->progress_off)
		return;
	rate = (double)(steps - e->last_progress_steps) * 1e9 /
	       (double)(now - e->last_progress_ns + 1);
	if (steps < e->estimate && now > e->start_ns) {
		/* the whole run's rate: steadier than the last second's */
		double avg = (double)steps * 1e9 / (double)(now - e->start_ns);
		char left[32];

		fprintf(stderr, "\rpitrace: step %llu of ~%llu (%u%%), %s steps/s, ~%s left\033[K",
			(unsigned long long)steps, (unsigned long long)e->estimate,
			(unsigned)(steps * 100 / e->estimate), short_count(rate, r, sizeof(r)),
			short_time(avg > 0 ? (double)(e->estimate - steps) / avg : 0, left,
				   sizeof(left)));
	} else {
		fprintf(stderr, "\rpitrace: %llu steps, %s steps/s\033[K",
			(unsigned long long)steps, short_count(rate, r, sizeof(r)));
	}
	e->progress_shown = true;
	e->next_progress_ns = now + 1000000000ull;
	e->last_progress_ns = now;
	e->last_progress_steps = steps;
}

void report_summary(struct engine *e, const char *dir)
{
	struct pt_attr_totals t;
	double secs = (double)(tw_now_ns() - e->start_ns) / 1e9;
	char r[32], q[320];

	if (e->progress_shown)
		fputs("\r\033[K", stderr);	/* the summary replaces the live line */
	tw_get_totals(e->tw, &t);
	pr_info("%llu steps, %llu lost, %u process%s, %u thread%s in %.2f s (%s steps/s): "
		"trace in %s", (unsigned long long)t.steps, (unsigned long long)t.lost,
		t.processes, t.processes == 1 ? "" : "es", t.threads, t.threads == 1 ? "" : "s",
		secs, short_count(secs > 0 ? (double)t.steps / secs : 0, r, sizeof(r)),
		td_quote(dir, q, sizeof(q)));
	/* restored steps are exact (post info counts them); a gap is worth a line */
	if (e->late_gaps)
		pr_warn("%llu late step traps skipped steps that could not be restored (GAPs); "
			"%llu were (docs/record.md, Fidelity)", (unsigned long long)e->late_gaps,
			(unsigned long long)e->restored);
	else if (e->restored)
		pr_dbg("%llu steps restored after a late step trap (docs/record.md, Fidelity)",
		       (unsigned long long)e->restored);
	if (e->idle_steps)
		pr_dbg("%llu step traps where nothing ran (a system call's exit reported twice)",
		       (unsigned long long)e->idle_steps);
}

void report_note_exit(struct engine *e, struct thread *t, int status, uint64_t pc)
{
	struct death *d = &e->death;
	int quality = 1;

	if (!t->proc || t->proc->pid != e->report_pid || !WIFSIGNALED(status))
		return;
	if (t->fault_sig == WTERMSIG(status))
		quality = 3;
	else if (t->last_sig == WTERMSIG(status))
		quality = 2;
	d->status = status;
	if (quality <= d->quality)
		return;
	d->quality = quality;
	d->pc = pc;
	d->addr = quality == 3 ? t->fault_addr : 0;
	free(d->map.path);
	memset(&d->map, 0, sizeof(d->map));
	for (size_t i = 0; i < t->proc->maps.n; i++) {
		const struct ptm_map *m = &t->proc->maps.v[i];

		if (pc >= m->start && pc < m->end) {
			d->map = *m;
			d->map.path = strdup(m->path);
			break;
		}
	}
}

/* " in f (file.c:12)", or " in module+0xOFF": what the symbols say about pc. */
static void describe_pc(const struct death *d, pid_t pid, const char *trace_dir, char *buf,
			size_t size)
{
	struct sym_options so = { .trace_dir = trace_dir };
	struct trace_task_rec rec = { .type = PT_TASK_MMAP };
	struct sym_session *s;
	struct sym_loc loc;

	buf[0] = '\0';
	if (!d->map.path)
		return;
	s = sym_session_new(&so);
	if (!s)
		return;
	rec.c.pid = (uint32_t)pid;
	rec.mmap.start = d->map.start;
	rec.mmap.len = d->map.end - d->map.start;
	rec.mmap.pgoff = d->map.pgoff;
	rec.mmap.prot = d->map.prot;
	rec.str = d->map.path;
	sym_task_event(s, &rec);
	sym_resolve(s, (uint32_t)pid, d->pc, SYM_LINES, &loc);
	if (loc.symbol && loc.file && loc.line)
		snprintf(buf, size, " in %s (%s:%d)", loc.symbol,
			 strrchr(loc.file, '/') ? strrchr(loc.file, '/') + 1 : loc.file, loc.line);
	else if (loc.symbol)
		snprintf(buf, size, " in %s (%s)", loc.symbol, loc.module);
	else
		snprintf(buf, size, " in %s+0x%llx", loc.module,
			 (unsigned long long)loc.module_offset);
	sym_session_free(s);
}

void report_death(struct engine *e, const char *cmd, const char *trace_dir, int status)
{
	const struct death *d = &e->death;
	char where[1024] = "", at[64] = "", addr[64] = "";
	int sig = WTERMSIG(status);
	const char *abbrev;

	if (!WIFSIGNALED(status))
		goto out;
	abbrev = sigabbrev_np(sig);
	if (d->quality && WIFSIGNALED(d->status) && WTERMSIG(d->status) == sig) {
		snprintf(at, sizeof(at), " at 0x%llx", (unsigned long long)d->pc);
		describe_pc(d, e->report_pid, trace_dir, where, sizeof(where));
	}
	if (at[0] && d->quality == 3 && (sig == SIGSEGV || sig == SIGBUS))
		snprintf(addr, sizeof(addr), ", accessing 0x%llx", (unsigned long long)d->addr);
	pr_info("%s killed by SIG%s%s%s%s%s", cmd, abbrev ? abbrev : "?", at, where, addr,
		WCOREDUMP(status) ? " (core dumped)" : "");
out:
	free(e->death.map.path);
	memset(&e->death, 0, sizeof(e->death));
}
