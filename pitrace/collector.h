/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector: drains the driver's per-CPU ring buffers into a trace
 * directory (steps.cN streams, task records from perf_maps, kallsyms and
 * modules snapshots, the header), for `pitrace start` and `record`.
 */
#ifndef PITRACE_COLLECTOR_H
#define PITRACE_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>

#include <pitrace/abi.h>

struct driver_session;
struct collector;

struct collector_opts {
	const char *out_dir;
	struct pitrace_select sel;	/* applied once the rings and module tables are ready */
	char *const *argv;		/* traced command, for the header; NULL for sessions */
	bool compress;			/* zstd step streams */
};

struct collector_summary {
	uint64_t steps;			/* step records written */
	uint64_t counted;		/* count mode: steps the driver counted */
	uint64_t lost;			/* steps lost (driver counters, LOST markers) */
	uint32_t processes, threads;
	uint32_t cpus;			/* streams written */
	uint64_t task_records;
	uint64_t perf_lost;		/* perf records the kernel dropped */
	bool wrapped;			/* wrap mode dropped old sub-buffers */
	bool count_only;		/* count mode: counted, no step records */
	int write_error;		/* the trace could not be written (errno): the
					 * recording stopped there */
};

/*
 * Set up on a claimed session: read the effective configuration, map every
 * CPU's ring, create the trace directory, start the module tables, then set
 * the selection.  Returns NULL with a one-line message printed.
 */
struct collector *collector_start(struct driver_session *ds, const struct collector_opts *opts);

/*
 * Drain while tracing until stop_fd becomes readable (a signalfd, a pidfd
 * of the traced command); stop_fd < 0 drains once.  Returns 0, or -1 when
 * writing the trace failed.
 */
int collector_run(struct collector *c, int stop_fd);

/*
 * Switch tracing off, flush and drain the rings a last time, write the
 * snapshots and the header (state "complete", or "interrupted" when
 * something failed), free everything.  The driver session stays claimed:
 * the caller releases it.  Returns 0 or -1 and fills *sum either way.
 */
int collector_finish(struct collector *c, struct collector_summary *sum);

/*
 * Why the recording ends, for the header's END_REASON (PT_END_*): a
 * session's is PT_END_STOPPED unless set; a trace that could not be written
 * says PT_END_FAILED whatever was set.
 */
void collector_set_end_reason(struct collector *c, const char *reason);

/* One line for the user: "1234 steps, 0 lost, 1 process, 1 thread: trace in DIR". */
void collector_summary_line(const struct collector_summary *sum, const char *dir, char *buf,
			    size_t size);

#endif /* PITRACE_COLLECTOR_H */
