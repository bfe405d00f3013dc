/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pitrace trace format: every on-disk structure of a trace directory.
 * docs/trace-format.md is the prose description; keep the two in step.
 */
#ifndef PITRACE_FORMAT_H
#define PITRACE_FORMAT_H

#ifdef __KERNEL__	/* pitrace.ko writes step streams too */
#include <linux/limits.h>
#include <linux/types.h>
#ifndef UINT64_MAX
#define UINT64_MAX U64_MAX
#endif
#else
#include <stdint.h>
#endif /* __KERNEL__ */

/*
 * Versioning.  PT_FORMAT_VERSION is what this code writes.  A file also
 * carries the oldest reader version able to read it; a reader whose
 * PT_FORMAT_VERSION is lower than that refuses the file.
 *   1: ptrace backend: header, tasks, per-thread step streams.
 *   2: driver: per-CPU streams may carry FORK, EXEC and EXIT control
 *      records (older readers skip unknown control types, so MIN_READER
 *      stays 1).
 *   3: ASYNC records of kinds INTERRUPT, EXCEPTION and IRQ (new) are
 *      information, not control flow, and carry where the task was
 *      interrupted.  A version 2 reader would take each for a transfer no
 *      instruction explains and open a bogus frame, so MIN_READER is 3.
 *   4: the header file is padded (PT_ATTR_PAD) so that it can be
 *      rewritten in place on a full filesystem; a trace whose state is not
 *      "complete" may have step streams that end without END, after their
 *      last whole CHECK block (the recording was cut short).  Readers of
 *      version 3 skip the padding and refuse such streams without --force.
 *   5: ATOMIC records (a larx/stcx. sequence and how it ended) and GAP
 *      reason ATOMIC_NATIVE; both only inform, older readers skip ATOMIC,
 *      so MIN_READER stays 3.
 *   6: checksums and cross-checks.  The header file ends in a CHECK
 *      attribute (before its padding) and the tasks file has a CHECK record
 *      after every record, each a CRC-32 of the file from its first byte;
 *      a step stream's CHECK also numbers its block; END and TOTALS also
 *      carry the steps counted by COUNT records.  Older readers skip the
 *      new records and fields, so MIN_READER stays 3; readers of version 6
 *      check them whenever present and require them in files of version 6
 *      or later.
 *   7: RESTORED records (a step the CPU's step trap skipped, put back by
 *      the recorder), GAP reason LATE_TRAP (one it could not put back) and
 *      the RESTORED attribute (the recorder checked every step).  The
 *      restored step is an ordinary STEP; older readers skip the record and
 *      the attribute, so MIN_READER stays 3.
 *      Also NATIVE records (code run natively, untraced: the ptrace backend's
 *      vDSO functions) and GAP reason NATIVE after each.  Older readers
 *      skip NATIVE and take the GAP as one of a reason they do not know,
 *      which is what it is to them (steps are missing there), so
 *      MIN_READER stays 3.
 *   8: the END_REASON attribute: why the recording ended (the traced
 *      processes exited, a --max-steps or --duration limit, a signal).
 *      Older readers skip it, so MIN_READER stays 3.
 *   9: the SYNCED attribute: while recording, the header is rewritten each
 *      time every stream's buffered steps went to disk, saying up to which
 *      step the streams and the tasks file are whole, so that a reader
 *      following the recording orders new threads' steps right.  Older
 *      readers skip it, so MIN_READER stays 3.
 *  10: the SYNCED_TIME attribute: SYNCED's counterpart for per-CPU streams
 *      (the driver backend), whose merge goes by time: up to which time the
 *      streams and the tasks file are whole.  Older readers skip it, so
 *      MIN_READER stays 3.
 */
#define PT_FORMAT_VERSION 10
#define PT_FORMAT_MIN_READER 3
/* The first version whose files carry CHECK records in header and tasks. */
#define PT_FORMAT_CHECKED 6

#define PT_MAGIC "PITRACE"	/* 7 chars + NUL = 8 bytes */
#define PT_ENDIAN_LITTLE 1
#define PT_ENDIAN_BIG 2

/* File names inside a trace directory. */
#define PT_FILE_HEADER "header"
#define PT_FILE_TASKS "tasks"
#define PT_FILE_STEPS_THREAD "steps.t"		/* + tid: ptrace backend, per thread */
#define PT_FILE_STEPS_CPU "steps.c"		/* + cpu: driver, per CPU */
#define PT_FILE_STEPS_THREAD_FMT PT_FILE_STEPS_THREAD "%u"
#define PT_FILE_STEPS_CPU_FMT PT_FILE_STEPS_CPU "%u"
#define PT_FILE_KALLSYMS "kallsyms"		/* copy of /proc/kallsyms */
#define PT_FILE_MODULES "modules"		/* copy of /proc/modules */
#define PT_FILE_VDSO "vdso"			/* the traced processes' vDSO image */

/*
 * The largest header file a reader takes: its attributes are a command
 * line (Linux caps argv at 6 MiB), a few names and notes, and padding.
 */
#define PT_HEADER_FILE_MAX (64u << 20)

enum pt_file_kind {
	PT_KIND_HEADER = 1,
	PT_KIND_TASKS = 2,
	PT_KIND_STEPS = 3,
};

/* File flags (pt_file_header.flags). */
#define PT_FLAG_ZSTD (1u << 0)	/* everything after the file header is zstd */

/* Every binary file of a trace starts with this, uncompressed. 32 bytes. */
struct pt_file_header {
	char magic[8];		  /* PT_MAGIC, NUL padded */
	uint8_t endian;		  /* PT_ENDIAN_* of the writer */
	uint8_t kind;		  /* enum pt_file_kind */
	uint16_t version;	  /* format version of the writer */
	uint16_t min_reader;	  /* oldest reader version that can read it */
	uint16_t reserved0;
	uint64_t features;	  /* PT_FEAT_* (header file; 0 elsewhere) */
	uint32_t stream_id;	  /* steps: tid or cpu; otherwise 0 */
	uint32_t flags;		  /* PT_FLAG_* */
} __attribute__((packed));

/* Feature bits: optional content a reader may find in this trace. */
#define PT_FEAT_ZSTD (1ull << 0)	/* some files are zstd compressed */
#define PT_FEAT_PER_THREAD (1ull << 1)	/* steps.t* files (ptrace backend) */
#define PT_FEAT_PER_CPU (1ull << 2)	/* steps.c* files (driver) */
#define PT_FEAT_KERNEL (1ull << 3)	/* kernel-ring steps present */
#define PT_FEAT_KALLSYMS (1ull << 4)	/* kallsyms/modules snapshots */
#define PT_FEAT_ON_SYMBOL (1ull << 5)	/* recording gated by --on */
#define PT_FEAT_COUNT_ONLY (1ull << 6)	/* COUNT records instead of steps */

/*
 * Tagged records, used by the header file (attributes) and the tasks file.
 * Each record: this 8-byte header, then size - 8 bytes of payload.
 */
struct pt_rec_header {
	uint16_t type;
	uint16_t reserved;
	uint32_t size;		  /* including this header */
} __attribute__((packed));

/* Header attributes (type values in the header file). */
enum pt_attr_type {
	PT_ATTR_ARCH = 1,	  /* string: "x86_64" */
	PT_ATTR_BACKEND = 2,	  /* string: "ptrace" | "driver" */
	PT_ATTR_MODE = 3,	  /* string: "step" | "block" | "count" */
	PT_ATTR_KERNEL_RELEASE = 4, /* string: uname -r */
	PT_ATTR_CMDLINE = 5,	  /* NUL-separated argv of the traced command */
	PT_ATTR_START_TIME = 6,	  /* struct pt_attr_time */
	PT_ATTR_STOP_TIME = 7,	  /* struct pt_attr_time */
	PT_ATTR_TOTALS = 8,	  /* struct pt_attr_totals */
	PT_ATTR_STATE = 9,	  /* string: PT_STATE_* */
	PT_ATTR_NR_CPUS = 10,	  /* uint32_t */
	PT_ATTR_HOSTNAME = 11,	  /* string */
	PT_ATTR_ON_SYMBOL = 12,	  /* string: one --on SYMBOL (repeated) */
	PT_ATTR_NOTE = 13,	  /* string: a remark for the reader, e.g. degraded mode */
	PT_ATTR_KERNEL_BUILD_ID = 14, /* string: the running kernel's GNU build-id, hex (driver) */
	PT_ATTR_PAD = 15,	  /* zeros: room to rewrite the header in place (v4) */
	PT_ATTR_CHECK = 16,	  /* u32 crc32 of the file before this record (v6; below) */
	PT_ATTR_TASKS_LOST = 17,  /* u64: task events the recorder lost (v6; perf's LOST) */
	PT_ATTR_RESTORED = 18,	  /* u64: steps the recorder restored after late step traps
				   * (RESTORED records); present: it checked every step (v7) */
	PT_ATTR_END_REASON = 19,  /* string: PT_END_* (v8) */
	PT_ATTR_SYNCED = 20,	  /* struct pt_attr_synced: while recording (v9) */
	PT_ATTR_SYNCED_TIME = 21, /* struct pt_attr_synced_time: while recording (v10) */
};

/*
 * Checksums of the header and tasks files (v6).  A CHECK record (header:
 * attribute PT_ATTR_CHECK, tasks: record PT_TASK_CHECK) carries the zlib
 * CRC-32 of every byte of its file before it, from byte 0 (the file header
 * included).  The header has one, its last record but for PAD (all zeros);
 * the tasks file one after every record, written with it.
 */

/*
 * PT_ATTR_STATE values.  Only "complete" promises that every stream ends
 * with END; the others say the recording was cut short (the recorder was
 * stopped, failed, or died while "recording"), and readers then take a
 * stream's last whole CHECK block for its end.
 */
#define PT_STATE_RECORDING "recording"
#define PT_STATE_COMPLETE "complete"
#define PT_STATE_INTERRUPTED "interrupted"

/*
 * PT_ATTR_END_REASON values (v8): why the recording ended.  A limit leaves
 * state "complete": every stream ends with END, after a GAP of reason
 * DETACH where the recorder let a thread go on untraced.
 */
#define PT_END_EXITED "exited"		/* every traced thread exited */
#define PT_END_MAX_STEPS "max-steps"	/* record/attach --max-steps N: N steps recorded */
#define PT_END_DURATION "duration"	/* record/attach --duration SECONDS passed */
#define PT_END_INTERRUPTED "interrupted" /* a signal to the recorder (SIGINT, SIGTERM...) */
#define PT_END_FAILED "failed"		/* the trace could not be written (a NOTE says why) */
#define PT_END_STOPPED "stopped"	/* a driver session ended by `pitrace stop` */

/* The header file is padded to a multiple of this (PT_ATTR_PAD). */
#define PT_HEADER_ROOM 4096

struct pt_attr_time {
	uint64_t realtime_ns;	  /* CLOCK_REALTIME */
	uint64_t monotonic_ns;	  /* CLOCK_MONOTONIC, the clock of all records */
} __attribute__((packed));

struct pt_attr_totals {
	uint64_t steps;		  /* step records written, all streams */
	uint64_t lost;		  /* steps known lost (overflow) */
	uint32_t threads;	  /* threads seen */
	uint32_t processes;	  /* processes seen */
	uint64_t counted;	  /* v6: steps counted by COUNT records, all streams
				   * (older writers' TOTALS end before it) */
} __attribute__((packed));

/*
 * PT_ATTR_SYNCED (v9): written while recording, each time the recorder put
 * every stream's buffered steps on disk; the final header has none.  Every
 * record of every stream placed before step seq (a control record is placed
 * at the step that follows it), and every task record of a seq below it, is
 * on disk: the tasks file has at least tasks_bytes whole bytes, and each
 * stream with such records exists.  Records placed at seq or after may be
 * there too, or not yet.
 */
struct pt_attr_synced {
	uint64_t seq;		  /* steps recorded in the whole trace then */
	uint64_t tasks_bytes;	  /* the tasks file's size then */
	uint64_t time_ns;	  /* CLOCK_MONOTONIC then */
} __attribute__((packed));

/*
 * PT_ATTR_SYNCED_TIME (v10): SYNCED for a trace of per-CPU streams (the
 * driver backend), written while recording; the final header has none.
 * Every record of every stream whose run starts (at a SWITCH or TIME
 * record) before time cut_ns is on disk, in streams that exist, and so is
 * every task record whose time is below cut_ns: the tasks file has at least
 * tasks_bytes whole bytes.  A stream's next record not yet on disk starts a
 * run (a SWITCH or TIME record) at cut_ns or later.
 */
struct pt_attr_synced_time {
	uint64_t cut_ns;	  /* CLOCK_MONOTONIC, as the records' times */
	uint64_t tasks_bytes;	  /* the tasks file's size then */
	uint64_t time_ns;	  /* CLOCK_MONOTONIC when written */
} __attribute__((packed));

/* The size of TOTALS before version 6 (without counted). */
#define PT_ATTR_TOTALS_V1_SIZE 24

/* Task and module records (type values in the tasks file). */
enum pt_task_type {
	PT_TASK_FORK = 1,	  /* struct pt_task_fork */
	PT_TASK_EXEC = 2,	  /* struct pt_task_exec + path */
	PT_TASK_COMM = 3,	  /* struct pt_task_comm + comm */
	PT_TASK_EXIT = 4,	  /* struct pt_task_exit */
	PT_TASK_MMAP = 5,	  /* struct pt_task_mmap + path */
	PT_TASK_MUNMAP = 6,	  /* struct pt_task_munmap */
	PT_TASK_CHECK = 7,	  /* struct pt_task_check (v6) */
};

/*
 * Every task record starts with when it happened: monotonic time and the
 * global step sequence number (steps recorded in the whole trace before it,
 * or PT_SEQ_NONE when the backend only orders by time).
 */
#define PT_SEQ_NONE UINT64_MAX

struct pt_task_common {
	uint64_t time_ns;
	uint64_t seq;
	uint32_t pid;
	uint32_t tid;
} __attribute__((packed));

#define PT_FORK_THREAD 1u	/* a new thread of pid, not a new process */

struct pt_task_fork {
	struct pt_task_common c;  /* the new task: pid, tid */
	uint32_t ppid;		  /* parent process */
	uint32_t ptid;		  /* parent thread */
	uint32_t flags;		  /* PT_FORK_* */
} __attribute__((packed));

struct pt_task_exec {
	struct pt_task_common c;
	/* followed by the executed file's path, NUL terminated */
} __attribute__((packed));

struct pt_task_comm {
	struct pt_task_common c;
	/* followed by the comm, NUL terminated */
} __attribute__((packed));

struct pt_task_exit {
	struct pt_task_common c;
	int32_t status;		  /* wait status as from waitpid(), or -1 unknown */
} __attribute__((packed));

#define PT_BUILD_ID_MAX 20

struct pt_task_mmap {
	struct pt_task_common c;  /* tid is 0 (mappings belong to the process) */
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;		  /* file offset of start, in bytes */
	uint32_t prot;		  /* PROT_* */
	uint8_t build_id_len;	  /* 0: unknown */
	uint8_t build_id[PT_BUILD_ID_MAX];
	uint8_t reserved[3];
	/* followed by the path ("[vdso]", "[anon]", ...), NUL terminated */
} __attribute__((packed));

struct pt_task_munmap {
	struct pt_task_common c;
	uint64_t start;
	uint64_t len;
} __attribute__((packed));

/*
 * v6: the CRC-32 of the tasks file before this record.  Its common part
 * repeats the time and seq of the record it follows, pid and tid 0, so
 * that readers older than version 6 take it for a record of a type they
 * do not know, and skip it.
 */
struct pt_task_check {
	struct pt_task_common c;
	uint32_t crc32;
} __attribute__((packed));

/*
 * Longest path in EXEC and MMAP records and comm in COMM records, with the
 * NUL, and longest part of a path between slashes (Linux's PATH_MAX,
 * NAME_MAX; a comm is at most 15 characters, this leaves room).
 */
#define PT_TASK_PATH_MAX 4096
#define PT_TASK_NAME_MAX 255
#define PT_TASK_COMM_MAX 256

/*
 * Step streams.  After the file header, a byte stream of records:
 *
 *   0xxxxxxx               STEP: pc = last_pc + sign_extend_7(x)
 *   10cxxxxx [uleb128 u]   STEP: z = x | (c ? u << 5 : 0); pc = last_pc + unzigzag(z)
 *   11tttttt uleb128 len, len bytes of payload
 *                          CONTROL record of type t (enum pt_ctl_type)
 *
 * A STEP is one executed instruction at pc.  last_pc starts at 0 and is reset
 * to 0 by SWITCH, so the first step after one carries its absolute address.
 * Integers inside control payloads are uleb128 unless said otherwise; "u64"
 * means 8 bytes little-endian.  Readers skip control types they don't know.
 */
#define PT_STEP_SHORT_MASK 0x80
#define PT_STEP_LONG_TAG 0x80	/* 10xxxxxx */
#define PT_STEP_LONG_CONT 0x20	/* the c bit */
#define PT_CTL_TAG 0xc0		/* 11xxxxxx */

enum pt_ctl_type {
	/* pid, tid, u64 time_ns, seq: following steps are this task's */
	PT_CTL_SWITCH = 1,
	/* u64 time_ns, seq: timestamp of the next step */
	PT_CTL_TIME = 2,
	/* count: steps lost here (buffer overflow) */
	PT_CTL_LOST = 3,
	/* u64 time_ns: recording switched on / off here */
	PT_CTL_ON = 4,
	PT_CTL_OFF = 5,
	/* ring (0 user, 1 kernel): following steps run in that ring */
	PT_CTL_RING = 6,
	/* kind (enum pt_async_kind), number (signal, vector or irq); kinds
	 * SIGNAL and SIGRETURN: the next step is reached by a transfer no
	 * instruction explains.  v3, kinds INTERRUPT, EXCEPTION and IRQ: the
	 * task took an interrupt or exception here, which changes nothing in
	 * its step sequence; the payload may go on with ring (the ring it was
	 * interrupted in, or PT_ASYNC_RING_UNKNOWN), u64 pc (the interrupted
	 * instruction, 0 unknown), u64 address (page faults: the faulting
	 * address, else 0) and error (the exception's error code, else 0).
	 * Readers accept the short form (kind, number) for every kind. */
	PT_CTL_ASYNC = 7,
	/* reason (enum pt_gap_reason): steps are missing here */
	PT_CTL_GAP = 8,
	/* u32 crc32 of the stream bytes since the previous CHECK (or the end
	 * of the file header) up to this record's first byte; v6: then block,
	 * the number of CHECK records before this one in the stream */
	PT_CTL_CHECK = 9,
	/* steps: total steps in this stream; clean end of stream; v6: then
	 * counted, the sum of the stream's COUNT records */
	PT_CTL_END = 10,
	/* count: count-only mode, this many steps happened here */
	PT_CTL_COUNT = 11,
	/* v2.  pid, tid, ppid, ptid, flags (PT_FORK_*), u64 time_ns: a task
	 * was created (written on the parent's CPU, before the child runs) */
	PT_CTL_FORK = 12,
	/* v2.  pid, tid, old_tid, u64 time_ns, then the executed path (the
	 * rest of the payload, no NUL): the task executed a new program;
	 * old_tid differs from tid when a non-leader thread did the exec */
	PT_CTL_EXEC = 13,
	/* v2.  pid, tid, status (wait status, as uleb of its u32), steps (this
	 * thread's total), u64 time_ns: the thread exited */
	PT_CTL_EXIT = 14,
	/* v5.  kind (enum pt_atomic_kind), u64 pc (the sequence's load-reserve
	 * instruction), steps (the sequence's steps in the stream, this
	 * attempt): a load-reserve/store-conditional sequence (ppc64
	 * lwarx..stwcx.) that cannot be single-stepped ran as one unit;
	 * information only, the steps are in the stream as always */
	PT_CTL_ATOMIC = 15,
	/* v7.  reason (enum pt_restored_reason): the next STEP is one the CPU
	 * did not trap after (its step trap came one instruction late); the
	 * recorder restored it from the code.  Information only: the step is
	 * in the stream as always */
	PT_CTL_RESTORED = 16,
	/* v7.  kind (enum pt_native_kind), u64 pc (where the native run
	 * started), u64 end (where it stopped), flags (PT_NATIVE_*), count
	 * (the instructions it ran, when flags has PT_NATIVE_COUNTED; else 0):
	 * code ran natively, its steps are not in the stream (a GAP of reason
	 * NATIVE follows) */
	PT_CTL_NATIVE = 17,
};

enum pt_restored_reason {
	PT_RESTORED_LATE_TRAP = 0, /* the trap after the previous instruction came one late */
};

enum pt_native_kind {
	PT_NATIVE_VDSO = 1,	  /* a vDSO function (ptrace backend), from its entry or
				   * where it was interrupted to its return */
};

/* NATIVE flags. */
#define PT_NATIVE_RETURNED (1u << 0) /* it ran to its return (else a stop cut it short) */
#define PT_NATIVE_COUNTED (1u << 1)  /* count is its exact number of instructions */

enum pt_atomic_kind {
	PT_ATOMIC_STORED = 0,	  /* the store-conditional stored */
	PT_ATOMIC_FAILED = 1,	  /* it failed: the program's loop retries (counted, exact) */
	PT_ATOMIC_LEFT = 2,	  /* the sequence branched out before its store-conditional */
	PT_ATOMIC_NATIVE = 3,	  /* ran untraced: its steps are missing (a GAP follows) */
	PT_ATOMIC_INEXACT = 4,	  /* ran as a unit, but two paths end where it stopped: the
				   * steps are the longer path's (ptrace backend) */
};

enum pt_async_kind {
	PT_ASYNC_SIGNAL = 1,	  /* signal handler entry (number = signal) */
	PT_ASYNC_SIGRETURN = 2,	  /* return from a handler */
	PT_ASYNC_INTERRUPT = 3,	  /* v3: interrupt with a known vector (number = vector) */
	PT_ASYNC_EXCEPTION = 4,	  /* v3: exception, e.g. page fault (number = vector) */
	PT_ASYNC_IRQ = 5,	  /* v3: device interrupt (number = Linux irq number) */
};

/* ASYNC ring field: the kernel did not say where the task was interrupted. */
#define PT_ASYNC_RING_UNKNOWN 2

/* Kinds that only inform (v3): the step sequence and the call stack go on unchanged. */
static inline int pt_async_is_info(uint64_t kind)
{
	return kind == PT_ASYNC_INTERRUPT || kind == PT_ASYNC_EXCEPTION || kind == PT_ASYNC_IRQ;
}

enum pt_gap_reason {
	PT_GAP_UNKNOWN = 0,
	PT_GAP_DETACH = 1,	  /* tracing of the task stopped */
	PT_GAP_KERNEL_LIMIT = 2,  /* per-syscall kernel step limit reached */
	PT_GAP_KERNEL_SLEEP = 3,  /* task slept or was preempted in the kernel */
	PT_GAP_UNSAFE = 4,	  /* step landed in code that must not be stepped */
	PT_GAP_ATOMIC_NATIVE = 5, /* v5: an atomic sequence ran natively, untraced, until
				   * the task next entered the kernel (ATOMIC kind NATIVE) */
	PT_GAP_LATE_TRAP = 6,	  /* v7: a step trap came late and the skipped steps could not
				   * be restored exactly (RESTORED) */
	PT_GAP_NATIVE = 7,	  /* v7: code ran natively (the NATIVE record before it) */
};

/* How often writers emit CHECK and TIME records (bytes / steps). */
#define PT_CHECK_INTERVAL 65536
#define PT_TIME_INTERVAL 65536

#endif /* PITRACE_FORMAT_H */
