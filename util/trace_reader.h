/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a trace directory: header attributes, task records and the step
 * streams merged into one ordered event sequence.  Streaming: memory does
 * not grow with the number of steps.  Everything read is verified (CHECK
 * records) and checked against what the trace can hold (docs/post.md,
 * "What a trace is checked for"); what fails is damage, an error naming
 * the file and byte offset, or with TRACE_OPEN_FORCE a warning, the file
 * then read up to the damage.  trace_reader.c reads the directory, its
 * header and tasks; stream_reader.c one step stream; trace_iter.c merges.
 */
#ifndef PT_TRACE_READER_H
#define PT_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pitrace/format.h>

struct trace;

/* The header file, parsed. Strings are never NULL ("" when absent). */
struct trace_info {
	uint16_t version;	  /* format version of the writer */
	uint16_t min_reader;
	uint64_t features;	  /* PT_FEAT_* */
	const char *arch, *backend, *mode, *kernel_release, *state, *hostname;
	const char *kernel_build_id; /* hex, driver traces (v3); "" when absent */
	const char *end_reason;	  /* PT_END_* (v8); "" when absent */
	char **argv;		  /* traced command line, NULL terminated */
	struct pt_attr_time start, stop;
	struct pt_attr_totals totals;
	uint32_t nr_cpus;
	char **on_symbols;	  /* --on SYMBOL list, NULL terminated */
	char **notes;		  /* remarks (e.g. degraded block mode), NULL terminated */
	uint64_t tasks_lost;	  /* task events the recorder lost (v6), 0 none */
	bool restore_checked;	  /* the recorder checked every step for a late trap (v7) */
	uint64_t restored;	  /* ... and restored this many steps */
};

/*
 * Open and validate a trace directory: a missing directory, a missing or
 * truncated header, bad magic, another endianness or a format whose
 * min_reader is newer than this reader are refused with a one-line error
 * (printed) and NULL.
 */
struct trace *trace_open(const char *dir);
/*
 * The same with TRACE_OPEN_* flags.  TRACE_OPEN_FORCE reads a damaged trace
 * up to the damage: a truncated, corrupt or inconsistent file or stream
 * ends there with a warning instead of an error (post --force); a header
 * that fails its CHECK is read as it is.
 */
#define TRACE_OPEN_FORCE (1u << 0)
/*
 * TRACE_OPEN_FOLLOW: a trace still being recorded is read as it is written
 * (post script --follow).  Its name's lock (DIR.lock, trace_dir.h) held
 * means a recorder writes it: the open waits while the name is not yet a
 * trace in state recording, and its streams wait for more at their end
 * (trace_follow_wait) until the lock is let go; with a recorder that says
 * how far its files are whole (SYNCED, v9), the merge waits instead, and
 * takes new tasks and streams as they come (trace_follow_refresh).  A
 * finished trace is read as without it.
 */
#define TRACE_OPEN_FOLLOW (1u << 1)
struct trace *trace_open_flags(const char *dir, unsigned flags);
void trace_close(struct trace *t);
const struct trace_info *trace_info(const struct trace *t);
/*
 * The recording was cut short: the header's state is not "complete"
 * (recording: the recorder died; interrupted: it stopped early or could not
 * write).  Its streams may end without END and its tasks file in a partial
 * record; both then end where the recorder stopped writing.
 */
bool trace_cut_short(const struct trace *t);
/*
 * TRACE_OPEN_FOLLOW: wait for the recorder to write more (1), or say the
 * recording is over (0, after a last 1 to read what it wrote last); the
 * trace's state is then the final header's (still recording: the recorder
 * died without finishing the trace, said in one line).  Ctrl-C while
 * waiting ends the wait as if the recording were over.
 */
int trace_follow_wait(void *trace);
/*
 * TRACE_OPEN_FOLLOW of a recorder that says how far its files are whole
 * (the header's SYNCED, v9): every record placed before this step is on
 * disk, in streams trace_stream lists and in trace_tasks; UINT64_MAX once
 * the recording is over (or for a trace not so followed).
 */
uint64_t trace_follow_limit(const struct trace *t);
/*
 * ... and that limit is a time (SYNCED_TIME, v10: per-CPU streams, merged by
 * time): every run that starts before it, and every task record of a time
 * below it, is on disk.
 */
bool trace_follow_by_time(const struct trace *t);
/*
 * ... then, at the merge's say: wait a little, then take what the recorder
 * added: the tasks file's new records (trace_tasks may move; the strings
 * stay), its new streams (after the others: trace_stream(t, i) of every
 * earlier i stays) and the new limit.  Once the recorder let go: all it
 * wrote, and the final header's state and totals.  Ctrl-C while waiting:
 * the recording is taken as over.  0, or -1 after an error (said).
 */
int trace_follow_refresh(struct trace *t);
/* After a pass whose streams all ended: wait for the recorder to let go, take the final state. */
void trace_follow_finish(struct trace *t);
const char *trace_dir(const struct trace *t);
/* Opened with TRACE_OPEN_FORCE. */
bool trace_forced(const struct trace *t);
/* Count-only: COUNT records instead of steps (feature COUNT_ONLY, or mode "count"). */
bool trace_count_only(const struct trace *t);
/* The header has TOTALS; *with_counted: with their counted field (v6). */
bool trace_totals(const struct trace *t, bool *with_counted);

/* One task record from the tasks file, decoded. */
struct trace_task_rec {
	unsigned type;		  /* enum pt_task_type */
	struct pt_task_common c;
	union {
		struct { uint32_t ppid, ptid, flags; } fork;
		struct { int32_t status; } exit;
		struct {
			uint64_t start, len, pgoff;
			uint32_t prot;
			uint8_t build_id_len;
			uint8_t build_id[PT_BUILD_ID_MAX];
		} mmap;
		struct { uint64_t start, len; } munmap;
		struct { uint32_t crc32; } check;	/* PT_TASK_CHECK (v6) */
	};
	const char *str;	  /* exec path, comm, mmap path; else NULL */
	uint64_t offset;	  /* byte offset of the record in the tasks file */
};

/* All task records, in file order (the order they happened); CHECK records are not among them. */
size_t trace_nr_tasks(const struct trace *t);
const struct trace_task_rec *trace_tasks(const struct trace *t);

/* The step stream files of the trace, per-thread first, each by id. */
struct trace_stream_info {
	const char *name;	  /* "steps.t1234" */
	char *path;		  /* DIR/name */
	bool per_cpu;		  /* steps.cN (else steps.tN) */
	uint32_t id;		  /* tid or cpu */
	uint64_t file_size;	  /* bytes on disk */
};
size_t trace_nr_streams(const struct trace *t);
const struct trace_stream_info *trace_stream(const struct trace *t, size_t i);

/* The comm and pid of a thread as last known (NULL if never seen). */
const char *trace_comm(const struct trace *t, uint32_t tid);
uint32_t trace_pid_of(const struct trace *t, uint32_t tid);
/* A task record names the thread (its own, or a FORK's parent). */
bool trace_names_thread(const struct trace *t, uint32_t tid);
/*
 * The tasks file names every thread the streams have: the trace is
 * complete and the recorder lost no task event (its SWITCHes are checked
 * against the tasks file only then).
 */
bool trace_names_every_thread(const struct trace *t);

/*
 * Stream i, open for reading as the trace says: --force, cut short, and
 * checked against the trace (stream_reader_expect).  NULL after a message.
 * Its damage is kept, not printed (stream_reader_damage): the caller says
 * it once for all the streams it read (trace_iter does).
 */
struct stream_reader;
struct stream_reader *trace_stream_open(const struct trace *t, size_t i);
/*
 * Damaged streams in one line: the first one's path and damage, and how
 * many more (the caller lists them under -v); an error, or with force a
 * warning ("reading up to there").
 */
void trace_say_stream_damage(const char *path, const char *what, size_t more, bool force);

enum trace_ev_kind {
	TEV_STEP,		  /* one executed instruction at pc */
	TEV_TASK,		  /* a task record (task points at it) */
	TEV_ASYNC,		  /* an asynchronous entry before the next step */
	TEV_GAP,		  /* steps missing here (a = reason) */
	TEV_LOST,		  /* a = steps lost here */
	TEV_ON,			  /* recording switched on */
	TEV_OFF,		  /* recording switched off */
	TEV_COUNT,		  /* count-only mode: a = steps */
	TEV_SWITCH,		  /* the stream moved to pid/tid (thread switch) */
	TEV_NATIVE,		  /* v7: code ran natively from pc to end (a = PT_NATIVE_*
				   * flags, b = its instructions when flags say counted); a
				   * TEV_GAP follows */
};

/*
 * An ASYNC record's payload.  Kinds INTERRUPT, EXCEPTION and IRQ (v3) may
 * carry where the task was interrupted; a short payload (kind, number
 * only) leaves detail false and the fields after it 0.
 */
struct trace_async {
	uint64_t kind;		  /* enum pt_async_kind */
	uint64_t number;	  /* signal, vector or irq number */
	bool detail;		  /* ring, pc, address and error were recorded */
	uint8_t ring;		  /* interrupted in: 0 user, 1 kernel, PT_ASYNC_RING_UNKNOWN */
	uint64_t pc;		  /* the interrupted instruction, 0 unknown */
	uint64_t address;	  /* page faults: the faulting address */
	uint64_t error;		  /* exceptions: the error code */
};

/* Decode an ASYNC payload; 0, or -1 when even kind and number are missing. */
int trace_async_decode(const uint8_t *payload, size_t len, struct trace_async *out);
/* "signal", "sigreturn", "interrupt", "exception", "irq"; "unknown" if newer. */
const char *trace_async_kind_name(uint64_t kind);

struct trace_event {
	enum trace_ev_kind kind;
	uint32_t pid, tid;
	uint32_t cpu;		  /* per-CPU streams; else UINT32_MAX */
	uint8_t ring;		  /* 0 user, 1 kernel */
	uint64_t pc;		  /* TEV_STEP */
	uint64_t index;		  /* index of this step among all steps, from 0 */
	uint64_t time_ns;	  /* best known time (last TIME/SWITCH), 0 unknown */
	uint64_t a, b;		  /* kind-specific (ASYNC: a = kind, b = number) */
	uint64_t end;		  /* TEV_NATIVE: where the native run stopped */
	struct trace_async async; /* TEV_ASYNC: the whole record */
	const struct trace_task_rec *task; /* TEV_TASK (valid while the trace is open) */
};

/*
 * Iterate every event of the trace in the order it happened: per-thread
 * streams by sequence number, per-CPU streams by time; task records
 * interleaved at their position.  trace_next returns 1 with *ev filled,
 * 0 at the end, -1 on a truncated or corrupt stream (message printed).
 */
struct trace_iter;
struct trace_iter *trace_iter_new(struct trace *t);
/* Decoding the streams on threads threads (0: one per online CPU, as trace_iter_new). */
struct trace_iter *trace_iter_new_threads(struct trace *t, unsigned threads);
int trace_next(struct trace_iter *it, struct trace_event *ev);
/*
 * The same sequence by runs: a TEV_STEP event is *n consecutive steps of one
 * thread (ev->index and ev->pc are the first's; pcs[k] is step index + k's
 * address, valid until the next call); every other event has *n 0.
 */
int trace_next_run(struct trace_iter *it, struct trace_event *ev, const uint64_t **pcs,
		   size_t *n);
/*
 * Bytes mode: the same sequence with each run of steps as its records are
 * encoded (stepcodec.h's struct step_bytes, valid until the next call;
 * sb->steps is the run's length), not decoded one by one: for reports that
 * take steps by their encoding.  The interrupts, irqs and exceptions a
 * thread took between a run's steps (TEV_ASYNC of pt_async_is_info()
 * kinds: they change nothing in the flow) do not end the run: they come
 * in *evs, in order, each before the step of its index (with where the
 * run would be cut there: step_bytes_cut).  An iterator made
 * by trace_iter_new_mode with bytes true gives only these; trace_next_run
 * and trace_next only the decoded ones.
 */
struct step_bytes;
struct trace_iter *trace_iter_new_mode(struct trace *t, unsigned threads, bool bytes);
/* An event between a run's steps: before its step at, whose record is at byte off, after a step at
 * pc. */
struct run_event {
	struct trace_event ev;
	size_t at, off;
	uint64_t pc;
};
int trace_next_bytes(struct trace_iter *it, struct trace_event *ev, struct step_bytes *sb,
		     const struct run_event **evs, size_t *nr_evs);
/*
 * Such a run cut at its events (for those who place them): part(ctx, at,
 * pc, p) for each part with steps (at: its first step's place in the run,
 * pc: that step's pc), event(ctx, ev) for each event, in order.
 */
void trace_run_parts(const struct step_bytes *sb, const struct run_event *evs, size_t nr_evs,
		     void (*part)(void *ctx, size_t at, uint64_t pc, const struct step_bytes *p),
		     void (*event)(void *ctx, const struct trace_event *ev), void *ctx);
/*
 * Restore the steps late step traps skipped (restore.h) in what the
 * iterator gives from now on, the restorer its own (freed with it): each
 * comes as a step of its own, indexes counting it; one that cannot be
 * restored exactly comes as a GAP of reason PT_GAP_LATE_TRAP.  For traces
 * whose recorder did not check (trace_info's restore_checked).
 */
struct restorer;
void trace_iter_restore(struct trace_iter *it, struct restorer *rs);
/* The steps restored so far, and the GAPs made where none could be. */
void trace_iter_restored(const struct trace_iter *it, uint64_t *restored, uint64_t *gaps);
/* The streams' file bytes read so far (compressed ones', compressed), and in all (for progress). */
uint64_t trace_iter_bytes(const struct trace_iter *it);
uint64_t trace_iter_total_bytes(const struct trace_iter *it);
void trace_iter_free(struct trace_iter *it);

/*
 * One stream file's records in file order (`post dump`, `post info`, the
 * iterator).  Each CHECK block is verified before any of its records is
 * returned, and each record checked against what the stream can hold:
 * the file header against the file's name, the fields each record type
 * has, a RING of 0 or 1, END's counts against the stream's steps and
 * COUNT records, nothing but its block's CHECK after END, and (v6) each
 * CHECK's block number.
 */
struct stream_reader *stream_reader_open(const char *path);
/* The same, but a file header that cannot be read is damage (a warning,
 * no records) rather than an error. */
struct stream_reader *stream_reader_open_force(const char *path);
/* Either (force or not), its damage kept from the start, not printed. */
struct stream_reader *stream_reader_open_quiet(const char *path, bool force);
/*
 * Check the stream against its trace too: its file header's stream id is
 * si's, a SWITCH goes to si's thread (per-thread streams) and to threads
 * the tasks file names, and COUNT records are in a count-only trace only.
 */
void stream_reader_expect(struct stream_reader *r, const struct trace *t,
			  const struct trace_stream_info *si);
/* 1: *it is valid (with *offset of the record), 0: end, -1: error (printed). */
struct step_item;
int stream_reader_next(struct stream_reader *r, struct step_item *it, uint64_t *offset);
const struct pt_file_header *stream_reader_header(const struct stream_reader *r);
void stream_reader_close(struct stream_reader *r);
/* Stream offset just past the last record returned (the file header counts;
 * in a compressed file, an offset into the decompressed bytes). */
uint64_t stream_reader_offset(const struct stream_reader *r);
/* The pc of the last step returned (0 after a SWITCH): the next step's delta is from it. */
uint64_t stream_reader_last_pc(const struct stream_reader *r);
/* Bytes of the file read so far (compressed bytes of a zstd stream). */
uint64_t stream_reader_file_offset(const struct stream_reader *r);
/*
 * Batch decoding: up to max steps that come next in the stream, into pcs;
 * 0 when the next record is not a step, or its block is not verified yet
 * (then stream_reader_next goes on).
 */
size_t stream_reader_steps(struct stream_reader *r, uint64_t *pcs, size_t max);
/*
 * The same, as the records are (stepcodec.h's struct step_bytes, pointing
 * into the reader's buffer until its next call): every step up to the next
 * control record or the block's end.
 */
struct step_bytes;
size_t stream_reader_bytes(struct stream_reader *r, struct step_bytes *sb);
/*
 * Bytes mode: the scan that verifies each block also notes its stretches of
 * steps, so that stream_reader_bytes gives them without scanning again.
 */
void stream_reader_set_bytes(struct stream_reader *r, bool on);
/*
 * The next record is ready to be read: the file header checked, its block
 * verified.  1, 0 at the end, -1 error (printed), as stream_reader_next.
 */
int stream_reader_ready(struct stream_reader *r);
/* Stop at damage with a warning (return 0) rather than an error (-1). */
void stream_reader_set_force(struct stream_reader *r, bool force);
/*
 * The stream is of a trace that was cut short (trace_cut_short): its end
 * without END, after its last whole CHECK block, is its end and no damage;
 * stream_reader_cut() then says it ended so.
 */
void stream_reader_set_cut_short(struct stream_reader *r, bool cut_short);
/*
 * The recording is still going on: at the end of what is on disk, without
 * END, call wait(ctx) and read on while it returns 1 (it returns once more
 * data may be there); 0 ends the stream as the trace's state says.
 */
void stream_reader_set_follow(struct stream_reader *r, int (*wait)(void *ctx), void *ctx);
/*
 * Following: while nowait is set, the end of what is on disk returns 0 at
 * once, with stream_reader_paused() true (not the end: call again), so that
 * what the caller decoded so far goes on before it waits.
 */
void stream_reader_set_nowait(struct stream_reader *r, bool nowait);
bool stream_reader_paused(const struct stream_reader *r);
bool stream_reader_cut(const struct stream_reader *r);
/* Don't print damage (truncation, corruption); the caller reports
 * stream_reader_damage(): what was wrong ("truncated at byte N"), or NULL. */
void stream_reader_set_quiet(struct stream_reader *r, bool quiet);
const char *stream_reader_damage(const struct stream_reader *r);
/* The STEP records and the sum of the COUNT records returned so far. */
void stream_reader_counts(const struct stream_reader *r, uint64_t *steps, uint64_t *counted);

/*
 * Building blocks of the above, for `post dump` and tests.
 * trace_check_file_header: validate a file header read from path (have =
 * bytes read; kind 0 accepts any kind); 0 or -1 with a message printed.
 * trace_open_file: open a trace file to read: a regular file (or a
 * symbolic link to one) without holes, never blocking on the way (a FIFO,
 * a device); its fd and *size, or -1 after one line naming the file.
 * trace_load_file: read a whole header or tasks file into *data (malloc'ed,
 * the file header included) after validating it: its file header first,
 * then its size (a header file: at most PT_HEADER_FILE_MAX).
 * trace_task_decode: a task record's fields; -1 if it is malformed.
 */
struct pt_rec_header;
int trace_check_file_header(const char *path, const struct pt_file_header *h, size_t have,
			    unsigned kind);
/* The same without a message: NULL, or what is wrong (in buf). */
const char *trace_file_header_problem(const struct pt_file_header *h, size_t have, unsigned kind,
				      char *buf, size_t size);
int trace_open_file(const char *path, uint64_t *size);
int trace_load_file(const char *path, unsigned kind, struct pt_file_header *h, uint8_t **data,
		    size_t *len);
int trace_task_decode(const struct pt_rec_header *rh, struct trace_task_rec *out);

/* Names of record types for reports: "MMAP", "SWITCH", ...; "UNKNOWN" if new. */
const char *trace_task_type_name(unsigned type);
const char *trace_ctl_type_name(unsigned type);

#endif /* PT_TRACE_READER_H */
