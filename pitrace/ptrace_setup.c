// SPDX-License-Identifier: GPL-2.0
/*
 * The ptrace backend's set-up and tear-down: `pitrace record` starts the
 * command under the tracer, `pitrace attach` seizes running processes; both
 * write the header, pin the tracer, handle SIGINT/SIGTERM and finish the
 * trace.
 */
#define PR_FMT "ptrace"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pitrace/format.h>
#include "util/log.h"
#include "pitrace/commands.h"
#include "pitrace/ptrace_int.h"
#include "util/trace_attrs.h"
#include "util/trace_writer.h"

/* The value of "key:" in /proc/<which>/status, blanks skipped, into val; false when absent. */
static bool proc_status(const char *which, const char *key, char *val, size_t size)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", which);
	f = fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			snprintf(val, size, "%s", line + klen + 1 + strspn(line + klen + 1, " \t"));
			val[strcspn(val, "\n")] = '\0';
			found = true;
		}
	if (f)
		fclose(f);
	return found;
}

/* The last signal that ended the recording (g_interrupted is also set without one). */
static volatile sig_atomic_t g_signal_got;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	g_interrupted = sig;
	g_signal_got = sig;
	/* A terminal's ^C reaches the whole foreground group, the command too; a
	 * kill() reaches only us, so pass it on like a shell would. */
	if (g_forward_pid > 0 && si && si->si_code <= 0)
		kill((pid_t)g_forward_pid, sig);
	if (g_kick_tid > 0)
		ptrace(PTRACE_INTERRUPT, (pid_t)g_kick_tid, NULL, NULL);
}

/* --duration's timer: the recording ends at the tracer's next turn. */
static void on_alarm(int sig)
{
	(void)sig;
	g_time_up = 1;
	if (g_kick_tid > 0)
		ptrace(PTRACE_INTERRUPT, (pid_t)g_kick_tid, NULL, NULL);
}

/*
 * Start --duration's clock (a one-shot ITIMER_REAL: no check in the step
 * path, and it fires while every thread runs natively too).  Set in the
 * tracer after record's fork: timers are not inherited.
 */
static void arm_duration(const struct engine *e)
{
	struct itimerval it = { 0 };
	struct sigaction sa;

	if (!e->o.duration_ns)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: waitpid must return */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	it.it_value.tv_sec = (time_t)(e->o.duration_ns / 1000000000ull);
	it.it_value.tv_usec = (suseconds_t)(e->o.duration_ns % 1000000000ull / 1000);
	if (!it.it_value.tv_sec && !it.it_value.tv_usec)
		it.it_value.tv_usec = 1;	/* below a microsecond: at once */
	if (setitimer(ITIMER_REAL, &it, NULL) < 0)
		pr_warn("--duration: cannot start a timer: %s", strerror(errno));
}

/* Why the recording ended, for the header (PT_ATTR_END_REASON). */
static const char *end_reason(const struct engine *e)
{
	if (e->failed || tw_error(e->tw))
		return PT_END_FAILED;
	if (e->limit)
		return e->limit;
	if (g_interrupted)
		return PT_END_INTERRUPTED;
	return PT_END_EXITED;
}

/* A limit let every thread go: one line says so, and what runs on. */
static void say_limit(const struct engine *e)
{
	char what[64];

	if (!strcmp(e->limit, PT_END_MAX_STEPS))
		snprintf(what, sizeof(what), "--max-steps %llu",
			 (unsigned long long)e->o.max_steps);
	else
		snprintf(what, sizeof(what), "--duration %.9g s", (double)e->o.duration_ns / 1e9);
	pr_info("%s reached: the recording ends here; %s", what,
		e->attach ? "the processes run on untraced" :
		"the command runs on untraced and pitrace waits for it");
}

/*
 * Signals that would end pitrace end the recording instead: every thread
 * is detached first (a tracer that just dies kills the threads it steps).
 * Ignored: SIGPIPE (stderr gone: messages are lost, not the tracees), and
 * SIGXFSZ from main() on (signals_child_restore).  Called after record's
 * fork: CMD starts with the dispositions pitrace was given.
 */
static void install_signals(bool attach)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: waitpid must return */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		sigaction(stops[i], &sa, NULL);
	/* attach: the guardian died (PR_SET_PDEATHSIG) */
	if (attach)
		sigaction(GUARDIAN_GONE, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}


/* ---- setup and teardown ---- */

/* The header's attributes at the start; argv: the command, NULL-terminated. */
static void set_header(struct engine *e, char *const *argv)
{
	struct trace_attrs a = {
		.arch = arch_ptrace_name,
		.backend = "ptrace",
		.mode = e->block ? "block" : "step",
		.nr_cpus = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN),
		.argv = argv,
	};

	trace_attrs_start(e->tw, &a);
	for (size_t i = 0; i < e->o.nr_on_syms; i++)
		tw_set_attr_str(e->tw, PT_ATTR_ON_SYMBOL, e->o.on_syms[i]);
	if (e->on_mode)
		tw_add_features(e->tw, PT_FEAT_ON_SYMBOL);
	if (e->cpu >= 0) {
		char note[96];

		snprintf(note, sizeof(note), "tracer and tracees pinned to CPU %d", e->cpu);
		tw_set_attr_str(e->tw, PT_ATTR_NOTE, note);
	}
}
/*
 * Tests only: PITRACE_NO_RESTORE=1 records late step traps as they come,
 * to make traces post must restore; any other value keeps the environment
 * the same length as the run it is compared with.
 */
static bool no_restore_env(void)
{
	const char *v = getenv("PITRACE_NO_RESTORE");

	return v && !strcmp(v, "1");
}


static int engine_init(struct engine *e, const struct ptrace_opts *o, bool attach)
{
	struct tw_options two = { .compress = o->compress, .shared = o->shared };

	memset(e, 0, sizeof(*e));
	e->start_ns = tw_now_ns();
	e->o = *o;
	e->attach = attach;
	e->on_mode = o->nr_on_syms > 0;
	e->block = o->block;
	e->soft_block = o->soft_block && !o->block && arch_soft_block;
	e->max_steps = o->max_steps ? o->max_steps : UINT64_MAX;
	e->cpu = -1;
	e->ptrace_options = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;
	/* record: a recorder killed outright (SIGKILL) takes the command with it,
	 * by SIGKILL, as a debugger does with what it started; SIGINT and SIGTERM
	 * detach first.  attach never: its guardian keeps the tracer alive. */
	if (!attach)
		e->ptrace_options |= PTRACE_O_EXITKILL;
	/* Children are caught even when not followed: under --on their copy
	 * of the breakpoints must be removed before they run into one, and
	 * each gets the SIGTRAP state its parent set, which steps reset in
	 * the copy (ptrace_sigtrap.c), before it is let go. */
	e->ptrace_options |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	/* Syscall stops tell themselves apart (and PTRACE_GET_SYSCALL_INFO
	 * reads them): --on's, stepped system calls', and the calls the
	 * tracer runs in a thread (ptrace_sigtrap.c). */
	e->ptrace_options |= PTRACE_O_TRACESYSGOOD;
	/* the decoder checks every single step for a late trap (restore_skipped) */
	e->dec = arch_decoder_new();
	e->no_restore = no_restore_env();
	if (e->block) {
		if (arch_block_step_request() < 0) {
			pr_err("block stepping is not supported on %s", arch_ptrace_name);
			return -1;
		}
	}
	e->on_found = calloc(o->nr_on_syms + 1, sizeof(*e->on_found));
	if (!e->on_found)
		return -1;
	e->tw = tw_open(o->out_dir, &two);
	return e->tw ? 0 : -1;
}

/* Let go of every thread and process left, close their streams. */
static void engine_release(struct engine *e)
{
	while (e->threads) {
		pte_close_stream(e, e->threads, false);
		pte_remove_thread(e, e->threads);
	}
	while (e->procs)
		pte_free_proc(e, e->procs);
	for (size_t i = 0; i < e->nr_syms; i++) {
		free(e->syms[i].path);
		free(e->syms[i].hits);
	}
	free(e->syms);
	if (e->dec)
		arch_decoder_free(e->dec);
}

/* Close what is left, write the header with state; returns 0 or -1 (printed). */
static int engine_finish(struct engine *e, const char *state)
{
	int ret;

	engine_release(e);
	if (e->on_mode)
		bp_report_missing(e);
	free(e->on_found);
	tw_set_attr_str(e->tw, PT_ATTR_END_REASON, end_reason(e));
	trace_attrs_stop(e->tw);
	if (e->soft_block) {
		char note[192];

		snprintf(note, sizeof(note),
			 "software block steps: %llu runs natively, %llu steps in them;"
			 " exact unless the program reads its own code (--single-step)",
			 (unsigned long long)e->soft_runs, (unsigned long long)e->soft_steps);
		tw_set_attr_str(e->tw, PT_ATTR_NOTE, note);
	}
	/* every single step was checked for a late trap: post need not */
	if (e->dec && !e->o.block && !e->no_restore)
		tw_set_attr(e->tw, PT_ATTR_RESTORED, &e->restored, sizeof(e->restored));
	tw_commit(e->tw);
	e->trace_dir = strdup(tw_dir(e->tw));
	report_summary(e, e->trace_dir ? e->trace_dir : "?");
	if (e->limit)
		say_limit(e);
	ret = tw_close(e->tw, state);
	e->tw = NULL;
	return ret < 0 || e->failed ? -1 : 0;
}

/* The recording never started: no trace, an earlier one untouched. */
static void engine_discard(struct engine *e)
{
	engine_release(e);
	free(e->on_found);
	tw_discard(e->tw);
	e->tw = NULL;
}

/* Pin ourselves to the CPU we run on; tracer and tracee then share it. */
static int pin_self(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		pr_warn("cannot pin to CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	return cpu;
}

/* PATH lookup like a shell's, so "no such command" is known before tracing. */
static int find_program(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");
	int err = ENOENT;

	if (strchr(name, '/')) {
		snprintf(out, size, "%s", name);
		return access(name, X_OK) == 0 ? 0 : errno;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		struct stat st;

		snprintf(out, size, "%.*s%s%s", (int)n, path, n ? "/" : "", name);
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(out, X_OK) == 0)
				return 0;
			err = EACCES;
		}
		path += n + (path[n] == ':');
	}
	return err;
}

static int exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_RUNTIME;
}

/*
 * The recording ended by sig, passed on to the command: when the command
 * ignores or handles it, pitrace's wait would be silent, so one line says
 * that it runs on and how to end it.
 */
static void say_runs_on(pid_t pid, const char *cmd, int sig)
{
	char which[24], ign[64], cgt[64];
	unsigned long long bit = 1ull << (sig - 1);
	bool ignored, handled;

	snprintf(which, sizeof(which), "%d", (int)pid);
	ignored = proc_status(which, "SigIgn", ign, sizeof(ign)) && (strtoull(ign, NULL, 16) & bit);
	handled = proc_status(which, "SigCgt", cgt, sizeof(cgt)) && (strtoull(cgt, NULL, 16) & bit);
	if (ignored)
		pr_info("%s (pid %d) ignores SIG%s: it runs on untraced and pitrace waits for it "
			"(kill -KILL %d ends it)", cmd, (int)pid, sigabbrev_np(sig), (int)pid);
	else if (handled)
		pr_info("%s (pid %d) handles SIG%s itself: it runs on untraced and pitrace waits "
			"for it", cmd, (int)pid, sigabbrev_np(sig));
}

int ptrace_record(const struct ptrace_opts *o, char **argv)
{
	struct engine e;
	char prog[PATH_MAX];
	int go[2], err[2], child_errno = 0, ret, status;
	struct thread *t;
	pid_t pid;

	ret = find_program(argv[0], prog, sizeof(prog));
	if (ret) {
		pr_err("cannot run '%s': %s", argv[0], strerror(ret));
		return ret == ENOENT ? 127 : 126;
	}
	if (engine_init(&e, o, false) < 0)
		return EXIT_RUNTIME;
	if (o->pin)
		e.cpu = pin_self();
	set_header(&e, argv);
	if (tw_write_header(e.tw, PT_STATE_RECORDING) < 0) {
		engine_discard(&e);
		return EXIT_RUNTIME;
	}
	/* before the trace takes its name: the earlier one is still there */
	report_estimate(&e, argv);
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		pr_err("cannot start: %s", strerror(errno));
		engine_discard(&e);
		return EXIT_RUNTIME;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		pr_err("fork: %s", strerror(errno));
		engine_discard(&e);
		return EXIT_RUNTIME;
	}
	if (pid == 0) {
		char c;

		/* Wait until the tracer holds us, then become the command. */
		close(go[1]);
		close(err[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		aslr_child_setup(o->aslr);
		signals_child_restore();
		execv(prog, argv);
		child_errno = errno;
		if (write(err[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(child_errno == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(err[1]);
	e.root_pid = e.report_pid = pid;
	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)e.ptrace_options) < 0) {
		pr_err("cannot trace the command: %s", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		engine_discard(&e);
		return EXIT_RUNTIME;
	}
	t = pte_new_thread(&e, pid);
	pte_attach_thread(t, pte_new_proc(&e, pid, true));
	t->known = t->started = t->running = true;
	t->stepping = false;	/* runs freely up to its execve */
	pte_write_fork(&e, t, getpid(), getpid(), false);
	g_forward_pid = pid;
	install_signals(false);
	if (write(go[1], "g", 1) != 1)
		pr_warn("cannot start the command: %s", strerror(errno));
	close(go[1]);
	/* Closed by a successful execve (O_CLOEXEC), else the child's errno. */
	if (read(err[0], &child_errno, sizeof(child_errno)) != sizeof(child_errno))
		child_errno = 0;
	close(err[0]);
	if (child_errno) {
		/* Not started: no trace, an earlier one stays (the child exits). */
		pr_err("cannot run '%s': %s", argv[0], strerror(child_errno));
		g_interrupted = SIGTERM;
		pte_run(&e);
		engine_discard(&e);
		waitpid(pid, &status, 0);
		return child_errno == ENOENT ? 127 : 126;
	}
	/* The command runs: the trace takes its name now. */
	if (tw_commit(e.tw) < 0)
		g_interrupted = SIGTERM;
	arm_duration(&e);
	pte_run(&e);
	ret = engine_finish(&e, g_interrupted || tw_error(e.tw) ? PT_STATE_INTERRUPTED
								 : PT_STATE_COMPLETE);
	g_kick_tid = 0;
	/* Interrupted: the command goes on (or got our signal) untraced; its
	 * status is still ours to report, as a shell would. */
	if (g_signal_got && !e.root_done)
		say_runs_on(pid, argv[0], g_signal_got);
	while (!e.root_done) {
		if (waitpid(pid, &status, 0) == pid) {
			e.root_status = status;
			e.root_done = true;
		} else if (errno != EINTR) {
			break;
		}
	}
	if (e.root_done && !e.on_refused)
		report_death(&e, argv[0], e.trace_dir, e.root_status);
	free(e.trace_dir);
	if (e.on_refused)
		return EXIT_USAGE;
	/* A trace that could not be written was said so; the command's status
	 * is what its caller wants to know. */
	(void)ret;
	return e.root_done ? exit_status_of(e.root_status) : EXIT_RUNTIME;
}

/* The CPU a thread last ran on (/proc/PID/stat field 39). */
static int cpu_of(pid_t pid)
{
	char name[64], buf[1024], *p;
	int cpu = -1, field = 2;
	ssize_t n;
	int fd;

	snprintf(name, sizeof(name), "/proc/%d/stat", pid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* comm may contain spaces */
	for (; p && *p; p++)
		if (*p == ' ' && ++field == 39)
			return atoi(p + 1);
	return cpu;
}

static pid_t ppid_of(pid_t pid)
{
	char name[64], line[256];
	pid_t ppid = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", pid);
	f = fopen(name, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "PPid: %d", &ppid) == 1)
			break;
	fclose(f);
	return ppid;
}

/* Do we hold CAP_SYS_PTRACE (bit 19 of CapEff)? */
static bool have_cap_sys_ptrace(void)
{
	char v[64];

	return proc_status("self", "CapEff", v, sizeof(v)) &&
	       (strtoull(v, NULL, 16) >> 19 & 1);
}

/* A name for uid: the user's, else the number. */
static const char *user_name(uid_t uid, char *buf, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		snprintf(buf, size, "%s", pw->pw_name);
	else
		snprintf(buf, size, "uid %u", (unsigned)uid);
	return buf;
}

/*
 * Why PTRACE_SEIZE of pid gave EPERM, in words that name the cause: another
 * tracer, a process of another user without CAP_SYS_PTRACE, or Yama (only
 * where it exists); else what is left.
 */
static void eperm_reason(pid_t pid, char *buf, size_t size)
{
	char which[24], v[128], comm[64] = "?", path[64], a[64], b[64];
	unsigned ruid = 0, euid = 0, suid = 0;
	int scope = -1;
	FILE *f;

	snprintf(which, sizeof(which), "%d", (int)pid);
	if (proc_status(which, "TracerPid", v, sizeof(v)) && atoi(v) > 0) {
		snprintf(which, sizeof(which), "%d", atoi(v));
		proc_status(which, "Name", comm, sizeof(comm));
		snprintf(buf, size, "another tracer has it (pid %d, %s)", atoi(v), comm);
		return;
	}
	if (!have_cap_sys_ptrace() && proc_status(which, "Uid", v, sizeof(v)) &&
	    sscanf(v, "%u %u %u", &ruid, &euid, &suid) == 3 &&
	    (ruid != getuid() || euid != getuid() || suid != getuid())) {
		snprintf(buf, size, "it runs as %s and pitrace as %s, without CAP_SYS_PTRACE: run "
			 "pitrace as that user or as root", user_name(euid, a, sizeof(a)),
			 user_name(getuid(), b, sizeof(b)));
		return;
	}
	snprintf(path, sizeof(path), "/proc/sys/kernel/yama/ptrace_scope");
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	if (scope > 0)
		snprintf(buf, size, "Yama's %s is %d%s", path, scope,
			 scope == 1 ? ", which lets only a parent trace: run pitrace as root, "
				      "or set it to 0" : ": run pitrace as root");
	else
		snprintf(buf, size, "not permitted%s (a security module, or a process that is "
			 "not dumpable, such as a set-user-ID program)",
			 have_cap_sys_ptrace() ? " even with CAP_SYS_PTRACE" : "");
}

/* Seize every thread of pid (re-listing until no new one appeared). */
static int seize_process(struct engine *e, pid_t pid)
{
	char name[64];
	struct proc *p;
	bool added = true;

	if (kill(pid, 0) < 0 && errno == ESRCH) {
		pr_err("no process %d", pid);
		return -1;
	}
	if (pid == getpid()) {
		pr_err("cannot trace %d: that is pitrace itself", pid);
		return -1;
	}
	p = pte_new_proc(e, pid, true);
	snprintf(name, sizeof(name), "/proc/%d/task", pid);
	while (added) {
		DIR *d = opendir(name);
		struct dirent *de;

		added = false;
		if (!d) {
			pr_err("no process %d", pid);
			return -1;
		}
		while ((de = readdir(d))) {
			pid_t tid = atoi(de->d_name);
			struct thread *t;

			if (tid <= 0 || pte_find_thread(e, tid))
				continue;
			if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)e->ptrace_options) < 0) {
				if (errno == ESRCH)
					continue;	/* exited meanwhile */
				int err = errno;
				char why[320] = "";

				if (err == EPERM)
					eperm_reason(pid, why, sizeof(why));
				pr_err("cannot trace %d: %s%s%s%s", pid, strerror(err),
				       why[0] ? " (" : "", why, why[0] ? ")" : "");
				closedir(d);
				return -1;
			}
			ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
			t = pte_new_thread(e, tid);
			pte_attach_thread(t, p);
			t->known = t->running = true;
			t->stepping = !e->on_mode;
			added = true;
		}
		closedir(d);
	}
	return 0;
}

/* The first line of an attach: what is traced, and the one way it can be lost. */
static void attach_banner(struct engine *e, pid_t guardian)
{
	char what[64];
	int threads = 0, procs = 0;
	const char *comm = "";

	for (struct thread *t = e->threads; t; t = t->next) {
		threads++;
		if (t->proc && t->tid == t->proc->pid)
			comm = t->comm;
	}
	for (struct proc *p = e->procs; p; p = p->next)
		procs++;
	if (procs == 1)
		snprintf(what, sizeof(what), "%d (%s, %d thread%s)", e->procs->pid, comm, threads,
			 threads == 1 ? "" : "s");
	else
		snprintf(what, sizeof(what), "%d processes (%d threads)", procs, threads);
	pr_info("tracing %s until Ctrl-C or SIGTERM; ending pitrace (pid %d) any way, SIGKILL "
		"too, lets %s run on, but a SIGKILL to the tracer (pid %d) kills what it is "
		"single-stepping", what, guardian, procs == 1 ? "it" : "them", getpid());
}

char task_state(pid_t pid, pid_t tid)
{
	char name[96], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(name, sizeof(name), "/proc/%d/task/%d/stat", pid, tid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* comm may contain ')' */
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * Can pid be attached to at all?  Said before anything is made: a typo, a
 * zombie or pitrace itself leaves nothing behind.  0 or -1 (printed).
 */
static int attach_check(pid_t pid)
{
	char name[64];
	struct dirent *de;
	bool any = false, live = false;
	DIR *d;

	if (pid == getpid()) {
		pr_err("cannot trace %d: that is pitrace itself", pid);
		return -1;
	}
	snprintf(name, sizeof(name), "/proc/%d/task", pid);
	d = opendir(name);
	if (!d || (kill(pid, 0) < 0 && errno == ESRCH)) {
		if (d)
			closedir(d);
		pr_err("no process %d", pid);
		return -1;
	}
	/* A process whose threads have all exited is a zombie until its
	 * parent reaps it: there is nothing to trace (ptrace says EPERM). */
	while ((de = readdir(d))) {
		pid_t tid = atoi(de->d_name);
		char st;

		if (tid <= 0)
			continue;
		any = true;
		st = task_state(pid, tid);
		live |= st && st != 'Z' && st != 'X';
	}
	closedir(d);
	if (any && !live) {
		pr_err("process %d is a zombie: it has exited and its parent (%d) has not reaped "
		       "it yet; there is nothing to trace", pid, ppid_of(pid));
		return -1;
	}
	return 0;
}

int ptrace_attach(const struct ptrace_opts *o, const pid_t *pids, size_t nr_pids)
{
	struct guard_shared *guard = NULL;
	struct engine e;
	char cmdline[4096], name[64];
	char *argv[64];
	size_t argc = 0;
	ssize_t n = 0;
	pid_t guardian = getpid();
	int fd, ret;

	for (size_t i = 0; i < nr_pids; i++)
		if (attach_check(pids[i]) < 0)
			return EXIT_RUNTIME;
	/* From here on two processes: this one guards, the child traces. */
	ret = guard_fork(&guard);
	if (ret >= 0)
		return ret;
	if (engine_init(&e, o, true) < 0)
		return EXIT_RUNTIME;
	e.guard = guard;
	guard_sync(&e);		/* the staging directory, should we die before the start */
	if (nr_pids == 1)
		e.report_pid = pids[0];
	snprintf(name, sizeof(name), "/proc/%d/cmdline", pids[0]);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, cmdline, sizeof(cmdline) - 1);
		close(fd);
	}
	cmdline[n > 0 ? n : 0] = '\0';
	for (ssize_t i = 0; i < n && argc < 63; i += (ssize_t)strlen(cmdline + i) + 1)
		argv[argc++] = cmdline + i;
	argv[argc] = NULL;
	if (o->pin) {
		cpu_set_t set;

		e.cpu = cpu_of(pids[0]);
		CPU_ZERO(&set);
		if (e.cpu >= 0)
			CPU_SET(e.cpu, &set);
		if (e.cpu < 0 || sched_setaffinity(0, sizeof(set), &set) < 0)
			e.cpu = -1;
	}
	set_header(&e, argv);
	if (tw_write_header(e.tw, PT_STATE_RECORDING) < 0) {
		engine_discard(&e);
		return EXIT_RUNTIME;
	}
	install_signals(true);
	report_estimate(&e, NULL);	/* an earlier attach says nothing of this one */
	for (size_t i = 0; i < nr_pids; i++) {
		if (seize_process(&e, pids[i]) < 0) {
			/* Let go of what we took; nothing was recorded: no trace. */
			g_interrupted = SIGTERM;
			pte_run(&e);
			engine_discard(&e);
			return EXIT_RUNTIME;
		}
	}
	for (struct proc *p = e.procs; p; p = p->next) {
		struct thread *leader = pte_find_thread(&e, p->pid);

		if (e.cpu >= 0 && sched_getaffinity(p->pid, sizeof(p->saved_mask),
						    &p->saved_mask) == 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(e.cpu, &set);
			p->mask_saved = true;
			for (struct thread *t = e.threads; t; t = t->next)
				if (t->proc == p)
					sched_setaffinity(t->tid, sizeof(set), &set);
		}
		for (struct thread *t = e.threads; t; t = t->next) {
			if (t->proc != p)
				continue;
			pte_write_fork(&e, t, t == leader ? ppid_of(p->pid) : p->pid,
				   t == leader ? ppid_of(p->pid) : p->pid, t != leader);
			pte_note_comm(&e, t);
		}
		if (ptm_update(e.tw, p->pid, &p->maps) >= 0 && e.on_mode)
			bp_plant_symbols(&e, p);
	}
	/* Every thread is held: the trace takes its name now. */
	if (tw_commit(e.tw) < 0)
		g_interrupted = SIGTERM;
	e.committed = true;
	guard_sync(&e);
	attach_banner(&e, guardian);
	arm_duration(&e);
	pte_run(&e);
	/* Ctrl-C is how an attach session normally ends: the trace is complete. */
	if (g_interrupted == GUARDIAN_GONE)
		tw_set_attr_str(e.tw, PT_ATTR_NOTE, "pitrace was killed: the tracer let every "
				"process go on and finished the trace");
	ret = engine_finish(&e, tw_error(e.tw) || g_interrupted == GUARDIAN_GONE ?
				PT_STATE_INTERRUPTED : PT_STATE_COMPLETE);
	if (e.report_pid) {
		char who[64];

		snprintf(who, sizeof(who), "process %d", e.report_pid);
		report_death(&e, who, e.trace_dir, e.death.status);
	}
	free(e.trace_dir);
	return ret < 0 ? EXIT_RUNTIME : 0;
}
