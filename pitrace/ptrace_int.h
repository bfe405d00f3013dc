/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the ptrace backend: the tracer's view of processes and threads,
 * shared by its core (ptrace_engine.c: stops, steps, streams), its --on
 * breakpoints and regions (ptrace_on.c) and its set-up for record and
 * attach (ptrace_setup.c).  Nothing outside the backend includes it.
 */
#ifndef PITRACE_PTRACE_INT_H
#define PITRACE_PTRACE_INT_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch/arch_decode.h"
#include "arch/arch_ptrace.h"
#include "pitrace/ptrace_atomic.h"
#include "pitrace/ptrace_backend.h"
#include "pitrace/ptrace_maps.h"

/* What the instructions at some addresses are, per process (insn_kind). */
#define SC_CACHE_SIZE 1024
/* INSN_ATOMIC: may start a load-reserve/store-conditional sequence (arch_ptrace.h). */
/* INSN_BREAKPOINT: the breakpoint instruction, the program's own or --on's. */
enum { INSN_OTHER, INSN_SYSCALL, INSN_PUSHES_FLAGS, INSN_ATOMIC, INSN_BREAKPOINT,
       INSN_UNKNOWN = 0xff };

/* A planted breakpoint (--on) in one process's memory. */
struct bp {
	uint64_t addr;
	uint8_t orig[ARCH_BREAKPOINT_MAX];
};

/*
 * The vDSO calls a thread runs natively from their entry to their return
 * (ptrace_vdso.c): stepped, clock_gettime's seqlock loop retries for as
 * long as each step is slower than the kernel's clock updates.  A thread
 * can have VDSO_MAX_CALLS under way at once: one per signal handler level.
 */
#define VDSO_MAX_CALLS 4

/* One vDSO call of a thread, from its entry to its return. */
struct vdso_call {
	uint64_t entry;		  /* its first instruction */
	uint64_t ret;		  /* the return address: the breakpoint it runs to */
	uint64_t end_sp;	  /* the stack pointer once it has returned */
	bool ret_in_reg;	  /* ret was read from a register: end_sp is the entry's sp */
	unsigned sig_depth;	  /* the thread's handler depth when it was made */
};

/* A thread's vDSO calls: the innermost last. */
struct ptrace_vdso {
	bool native;		  /* running to calls[depth - 1].ret (thread.atomic holds it) */
	bool failed_said;
	unsigned depth;
	struct vdso_call calls[VDSO_MAX_CALLS];
};

/* Longest run one software block step takes, and its pieces (ptrace_block.c). */
#define SBLOCK_MAX_INSNS 256
#define SBLOCK_MAX_SEGS 16

/*
 * A run under way natively (ptrace_block.c): instructions whose path is
 * known from their bytes alone (straight-line code, direct jumps and
 * calls, and at most one conditional branch, its last), stopped by
 * breakpoints where it may go on: its successors.  Its instructions are
 * in segs, pieces of contiguous code, and no breakpoint covers any of it.
 */
struct sblock_run {
	bool active;		  /* the breakpoints are in memory, the thread runs */
	unsigned nr;		  /* instructions */
	unsigned nr_segs;
	unsigned nr_bps;	  /* 1, or 2 after a conditional branch */
	uint64_t bp[2];		  /* where it stops */
	uint8_t orig[2][ARCH_BREAKPOINT_MAX]; /* the code the breakpoints hide */
	struct {
		uint64_t start, end;	  /* [start, end): its instructions' bytes */
		unsigned first;		  /* its first instruction's index */
	} segs[SBLOCK_MAX_SEGS];
	uint64_t pc[SBLOCK_MAX_INSNS];	  /* the instructions, in the order they run */
};

/* A thread's current ptrace stop (thread.stop_kind). */
enum { STOP_SIGNAL, STOP_SYSCALL, STOP_EVENT };

struct proc {
	pid_t pid;
	bool recorded;		  /* its steps are recorded; else only held (see ghost) */
	bool detach_on_start;	  /* a child we don't follow: let go at its first stop */
	bool gone;		  /* the leader has been reaped */
	int memfd;		  /* /proc/PID/mem, reopened after execve */
	struct ptm_maps maps;
	struct bp *bps;
	size_t nr_bps;
	int nr_threads;
	cpu_set_t saved_mask;	  /* attach: the affinity to give back */
	bool mask_saved;
	bool atomic_runs;	  /* a thread has run a larx/stcx. sequence natively */
	struct ptrace_private_range private_map; /* ptrace_atomic_populate()'s */
	struct {		  /* the program's own SIGTRAP action (ptrace_sigtrap.c) */
		uint64_t act[4];  /* kernel struct sigaction: handler, flags, restorer, mask */
		bool known;
	} trap;
	uint64_t sc_insn;	  /* a system call instruction in its code, 0 none known */
	struct {
		uint64_t pc;
		uint8_t kind;	  /* INSN_*; INSN_UNKNOWN (0xff, as memset): slot empty */
	} sc_cache[SC_CACHE_SIZE];
	struct {
		uint64_t pc;
		uint8_t len;	  /* of an instruction that only falls through; 0 any
				   * other; 0xff (as memset): slot empty */
	} len_cache[SC_CACHE_SIZE];
	struct proc *next;
};

struct thread {
	pid_t tid;
	struct proc *proc;	  /* NULL until its creator's event names it */
	struct tw_stream *stream; /* opened at its first record */
	bool known;		  /* its creation event (or attach) has been seen */
	bool started;		  /* its first stop has been seen */
	bool running;		  /* resumed: a stop will come */
	bool stepping;		  /* resumed with step requests (else natively) */
	bool stepped;		  /* the last resume stepped the instruction at prev_pc */
	bool exec_trap;		  /* a step trap without an instruction follows execve */
	bool exit_written;
	bool parked;		  /* stopped, waiting for the owner to yield */
	bool draining;		  /* detaching: a queued step trap is to be swallowed */
	bool lifted;		  /* lifted_bp is out of memory for this one step */
	uint64_t lifted_bp;
	uint64_t prev_pc;	  /* the instruction the next step trap completes */
	uint64_t prev_sp;	  /* the stack pointer before it */
	uint64_t step_from;	  /* until the next resume: the instruction the last single
				   * step ran; 0 after any other stop */
	int pending_sig;	  /* signal to deliver at the next resume */
	int injected_sig;	  /* signal delivered at the last resume */
	int64_t sys_nr;		  /* native: the syscall being made (entry stop) */
	bool sc_step;		  /* stepping a syscall insn by PTRACE_SYSCALL's stops
				   * (arch_syscall_step_runs_next) */
	bool may_block;		  /* resumed into a system call or natively: it may keep
				   * the recorder waiting (counted in nr_may_block) */
	unsigned sig_depth;	  /* signal handlers entered and not yet returned */
	uint64_t region_end_sp;	  /* --on: in a region until sp reaches this; 0 none */
	uint64_t region_ret;	  /* --on: ... or it returns here at that sp (arch_stop_regs.ra) */
	struct ptrace_atomic atomic; /* a larx/stcx. sequence running natively */
	struct ptrace_vdso vdso;  /* vDSO calls run natively (ptrace_vdso.c) */
	struct sblock_run sblock; /* a software block step under way (ptrace_block.c) */
	int fault_sig;		  /* a fault (SIGSEGV...) stopped prev_pc; 0 none */
	uint64_t fault_addr;	  /* its si_addr */
	int last_sig;		  /* the last signal delivered to it */
	uint8_t stop_kind;	  /* STOP_*: what its current stop is */
	struct {		  /* its own SIGTRAP state (ptrace_sigtrap.c) */
		bool known;
		bool blocked;	  /* the program blocks SIGTRAP */
		bool held;	  /* sent one while blocked: pending, as in the kernel */
		bool redeliver;	  /* deliver held_si at its next SIGTRAP stop */
		bool armed;	  /* sc is a signal system call under way */
		siginfo_t held_si;
		struct arch_syscall sc;
		uint64_t newval[4]; /* what sc sets, read before it ran */
		bool have_new;
	} trap;
	char comm[17];
	struct thread *next;
};

/* How the process pitrace reports on (record's command) died, for the last word. */
struct death {
	int status;		  /* wait status; WIFSIGNALED when there is anything to say */
	int quality;		  /* 0 nothing, 1 a thread's pc, 2 the thread the signal hit,
				   * 3 the faulting instruction */
	uint64_t pc, addr;	  /* where; the faulting address (faults) */
	struct ptm_map map;	  /* the mapping holding pc (path owned) */
};

/* A function's entry (ELF virtual address) that an --on value takes. */
struct sym_hit {
	uint64_t vaddr;
	unsigned local;		  /* offset of its local entry (ppc64 ELFv2), 0 none */
};

/* Where one --on value matched, so libraries are not re-read at every mmap. */
struct sym_cache {
	char *path;
	unsigned sym;		  /* index into o.on_syms */
	struct sym_hit *hits;
	size_t nr_hits;
};

struct engine {
	struct ptrace_opts o;
	struct trace_writer *tw;
	struct thread *threads;
	struct thread *last;	  /* lookup cache: the thread of the previous stop */
	struct proc *procs;
	bool attach;
	bool on_mode;
	bool block;		  /* block stepping requested and not found missing */
	bool soft_block;	  /* straight-line runs natively to a breakpoint (ptrace_block.c) */
	struct thread *sblock_runner; /* the one thread in a run, or NULL (ptrace_block.c) */
	uint64_t soft_runs;	  /* runs taken so far */
	uint64_t idle_steps;	  /* step traps where nothing ran (step_completed) */
	uint64_t soft_steps;	  /* the steps they ran */
	unsigned block_probes;
	struct arch_decoder *dec;
	pid_t root_pid;
	int root_status;
	bool root_done;
	pid_t last_tid;		  /* thread of the last record written */
	uint64_t next_time;	  /* step count of the next TIME record */
	uint64_t next_sync_ns;	  /* when buffered steps go to disk next */
	uint64_t synced_ns;	  /* when they last went */
	unsigned nr_may_block;	  /* threads running with may_block */
	uint64_t next_progress_ns;
	struct thread *owner;	  /* the one thread being stepped while others park */
	unsigned owner_steps;
	bool detaching;
	bool failed;		  /* the trace could not be written */
	unsigned long ptrace_options;
	int cpu;		  /* pinned CPU, -1 none */
	struct sym_cache *syms;
	size_t nr_syms;
	bool *on_found;		  /* per --on name: found in some file */
	bool on_refused;	  /* an --on value matched too many functions (said) */
	pid_t report_pid;	  /* the process whose death is reported (record: CMD) */
	struct death death;
	uint64_t start_ns;	  /* for the rate in the progress and summary lines */
	char *trace_dir;	  /* where the trace ended up (after engine_finish) */
	uint64_t last_progress_ns, last_progress_steps;
	bool progress_shown;
	bool progress_off;	  /* no live line: it could meet CMD's output unseen */
	bool committed;		  /* the trace has its name (tw_commit) */
	struct guard_shared *guard; /* attach: what the guardian needs if we die */
	bool guard_dirty;	  /* processes or breakpoints changed since guard_sync */
	unsigned trap_notes;	  /* TRAP_NOTE_* said in the header (ptrace_sigtrap.c) */
	bool no_restore;	  /* tests: record late step traps as they come */
	uint64_t restored;	  /* steps a late step trap skipped, put back */
	uint64_t late_gaps;	  /* late step traps whose skipped steps were not */
	uint64_t max_steps;	  /* --max-steps, UINT64_MAX none: record_step's one compare */
	const char *limit;	  /* PT_END_MAX_STEPS or PT_END_DURATION once reached, else NULL */
	uint64_t estimate;	  /* steps this recording will likely have (progress), 0 unknown */
};

/* Set by signals (or a failure) to end tracing: every thread is detached. */
extern volatile sig_atomic_t g_interrupted;
/* record: where signals sent to pitrace with kill() are passed on. */
extern volatile sig_atomic_t g_forward_pid;
/* A tracee to interrupt so that the tracer's waitpid returns. */
extern volatile sig_atomic_t g_kick_tid;
/* --duration has passed (set by its timer's SIGALRM). */
extern volatile sig_atomic_t g_time_up;

/* ---- the core (ptrace_engine.c) ---- */
struct thread *pte_find_thread(struct engine *e, pid_t tid);
struct thread *pte_new_thread(struct engine *e, pid_t tid);
struct proc *pte_new_proc(struct engine *e, pid_t pid, bool recorded);
/* The code of p may have changed (mappings, exec): forget what it was. */
void pte_forget_code(struct proc *p);
void pte_free_proc(struct engine *e, struct proc *p);
void pte_attach_thread(struct thread *t, struct proc *p);
void pte_remove_thread(struct engine *e, struct thread *t);
void pte_note_comm(struct engine *e, struct thread *t);
void pte_write_fork(struct engine *e, struct thread *t, pid_t ppid, pid_t ptid, bool thread);
/* t's stream, opened at first use, with a SWITCH when another thread wrote last. */
struct tw_stream *pte_stream_of(struct engine *e, struct thread *t);
void pte_close_stream(struct engine *e, struct thread *t, bool detached);
/* Record one executed instruction of t (at the stop that proves it ran). */
void pte_record_step(struct engine *e, struct thread *t, uint64_t pc);
/* Length of the instruction at pc when all it can do is fall through, else 0. */
uint8_t pte_plain_len(struct engine *e, struct proc *p, uint64_t pc);
/* The instruction at pc as the program has it (--on breakpoints hidden); false if none. */
bool pte_decode(struct engine *e, struct proc *p, uint64_t pc, struct arch_insn *in);
/* Wait for and handle stops until no traced thread is left. */
void pte_run(struct engine *e);
/* Flush every stream when a second has passed since the last time. */
void pte_sync_streams(struct engine *e, uint64_t now);

/* ---- set-up (ptrace_setup.c) ---- */
/* 'R', 'S', 'Z'...: the state of thread tid of process pid, 0 when it is gone. */
char task_state(pid_t pid, pid_t tid);

/* ---- attach's guardian (ptrace_guard.c) ---- */
struct guard_shared;
/* The tracer's signal when its guardian dies (PR_SET_PDEATHSIG). */
#define GUARDIAN_GONE SIGUSR1
/*
 * Fork the tracer.  In the guardian this returns the tracer's exit status
 * (or EXIT_RUNTIME after tidying up when it was killed); in the tracer -1,
 * with *shared set for guard_sync.
 */
int guard_fork(struct guard_shared **shared);
/* Tell the guardian the trace's directory, the processes, their saved
 * affinity and the breakpoints planted in them (a no-op without one). */
void guard_sync(struct engine *e);

/* ---- the program's own SIGTRAP state (ptrace_sigtrap.c) ---- */
/* t's first stop (attach) or an execve: read or derive its SIGTRAP state. */
void trap_start(struct engine *e, struct thread *t);
void trap_exec(struct engine *e, struct thread *t);
/* c was created by t (a thread, or a process's first thread): it inherits. */
void trap_inherit(struct thread *t, struct thread *c, bool thread);
/* Stopped at a system call instruction about to run (step mode). */
void trap_before_syscall(struct engine *e, struct thread *t);
/* The step over a system call instruction (nr, 0 unknown) completed. */
void trap_after_syscall(struct engine *e, struct thread *t, int64_t nr);
/* --on's native syscall stops. */
void trap_syscall_stop(struct engine *e, struct thread *t, bool entry, const uint64_t args[6],
		       int64_t nr, int64_t ret);
/* A handler for signal sig starts (its entry stop, regs r). */
void trap_handler_entry(struct engine *e, struct thread *t, const struct arch_stop_regs *r,
			int sig);
/* A SIGTRAP of the program's own (si): what to deliver now, SIGTRAP or 0. */
int trap_program_signal(struct engine *e, struct thread *t, const siginfo_t *si);
/* Whether si is the program's own SIGTRAP (sent to it, or its int3), not a step's. */
bool trap_is_programs(const struct thread *t, const siginfo_t *si);
/* Before resuming t with sig: give a SIGTRAP re-delivered its own siginfo. */
void trap_before_resume(struct thread *t, int sig);
/* Detaching t: give it back the SIGTRAP state it set; sig is delivered at detach. */
void trap_restore(struct engine *e, struct thread *t, int sig);

/* ---- what the user is told (ptrace_report.c) ---- */
/* On a terminal, about once a second: the steps so far and their rate
 * (and, with an estimate, how far along and how long left). */
void report_progress(struct engine *e, uint64_t now);
/*
 * On a terminal, before record starts: e->estimate from the last complete
 * recording of argv (same mode and --on) in the output directory or its
 * .old, bounded by --max-steps (attach: argv NULL, --max-steps alone).
 */
void report_estimate(struct engine *e, char *const *argv);
/* Thread t is about to make a system call: clear the live line before it writes to it. */
void report_before_syscall(struct engine *e, struct thread *t);
/* The last line of a recording: steps, lost, processes, threads, rate, where. */
void report_summary(struct engine *e, const char *dir);
/* A thread of the reported process exits with status: keep what tells how it died. */
void report_note_exit(struct engine *e, struct thread *t, int status, uint64_t pc);
/* "CMD killed by SIGSEGV at 0x... in f (file.c:12)" when status says a signal
 * killed it; frees what was kept. */
void report_death(struct engine *e, const char *cmd, const char *trace_dir, int status);

/* ---- --on: breakpoints and regions (ptrace_on.c) ---- */
struct bp *bp_find(struct proc *p, uint64_t addr);
int bp_poke(struct proc *p, uint64_t addr, const uint8_t *bytes, size_t len);
/* Plant a breakpoint at every --on symbol in every file p has mapped. */
void bp_plant_symbols(struct engine *e, struct proc *p);
/* Put the original bytes back everywhere (before letting the process go). */
void bp_remove_all(struct proc *p);
/* Forget breakpoints whose code is no longer mapped (nothing to restore). */
void bp_drop_unmapped(struct proc *p);
/* Put back the breakpoint t stepped over (lifted for that one step). */
void bp_replant(struct thread *t);
/* Say which --on names were found nowhere (at the end of the recording). */
void bp_report_missing(struct engine *e);
void region_start(struct engine *e, struct thread *t, const struct arch_stop_regs *r);
void region_end(struct engine *e, struct thread *t);
/* Whether the stop at r leaves t's --on region (its activation returned). */
bool region_left(const struct thread *t, const struct arch_stop_regs *r);

/* ---- software block steps (ptrace_block.c) ---- */
/*
 * t, stepped, is about to run prev_pc: when a run of at least two
 * instructions that only fall through starts there, plant a breakpoint at
 * its end and say true (resume t natively).
 */
bool sblock_begin(struct engine *e, struct thread *t);
/* Whether a thread other than t is in a run: t must not run meanwhile. */
bool sblock_held(struct engine *e, struct thread *t);
/*
 * t stopped during its run: the breakpoint is taken out and the
 * instructions it ran are recorded; prev_pc is where it stands.  True when
 * it stopped at the breakpoint (resumed: stepping on from there); false for
 * any other stop (a signal, an event), handled as usual.
 */
bool sblock_stopped(struct engine *e, struct thread *t, int sig, int event);
/* t goes away during its run (killed, detached): take the breakpoint out. */
void sblock_abandon(struct engine *e, struct thread *t);

/* ---- vDSO calls run natively (ptrace_vdso.c) ---- */
/*
 * t, stepped, is about to run prev_pc: when that is in the vDSO, plant the
 * breakpoint its call returns to and say true (resume t natively).
 */
bool vdso_begin(struct engine *e, struct thread *t);
/*
 * t stopped while running a vDSO call natively: its NATIVE record is
 * written, the breakpoint taken out, prev_pc is where it stands.  True
 * when the call returned (resume t stepping); false for any other stop (a
 * signal, an event), handled as usual; the call goes on natively at the
 * next resume that finds t back in it.
 */
bool vdso_stopped(struct engine *e, struct thread *t, int sig, int event);

#endif /* PITRACE_PTRACE_INT_H */
