/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module tables for driver traces: the selected processes' executable
 * mappings from /proc at start, then mmap/comm/fork/exit events from a
 * system-wide perf dummy event, turned into task records (PT_TASK_*).
 */
#ifndef PITRACE_PERF_MAPS_H
#define PITRACE_PERF_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>
#include <pitrace/abi.h>
#include <pitrace/format.h>

struct trace_writer;
struct perf_maps;

/* One perf record converted to the trace's terms. */
struct pm_event {
	unsigned type;		  /* PT_TASK_FORK, _COMM, _EXIT or _MMAP */
	bool exec;		  /* COMM: the comm changed because of an execve */
	union {
		struct pt_task_common c; /* every variant starts with it */
		struct pt_task_fork fork;
		struct pt_task_comm comm;
		struct pt_task_exit exit;
		struct pt_task_mmap mmap;
	};
	size_t len;		  /* size of the fixed part */
	const char *str;	  /* COMM: comm, MMAP: path (points into the record) */
};

/*
 * The perf_event_attr the module tables use: a software dummy event with
 * mmap2 (with build-ids), comm (with exec marking) and task records, every
 * record carrying pid/tid and a CLOCK_MONOTONIC time.
 */
void pm_attr_init(struct perf_event_attr *attr);

/*
 * Convert one complete perf record made with pm_attr_init's attributes.
 * Returns 1 with *ev filled, 0 for records that carry nothing for the trace
 * (other types, non-executable mappings), -1 for a malformed record.
 */
int pm_convert(const struct perf_event_header *h, struct pm_event *ev);

/*
 * Open one perf ring per online CPU, then snapshot the selected processes
 * (their threads' comms and /proc/PID/maps) into tw's tasks file.  self is
 * the collector's own pid, never selected.  Returns NULL with a one-line
 * message printed when perf events cannot be opened.
 */
struct perf_maps *pm_open(const struct pitrace_select *sel, struct trace_writer *tw,
			  uint32_t self);

/* The ring fds, for poll(). */
size_t pm_fds(const struct perf_maps *pm, const int **fds);

/* Read every ring and write the selected processes' records, in time order. */
int pm_drain(struct perf_maps *pm);

/* Drain a last time, close the rings, free. */
void pm_close(struct perf_maps *pm);

/* Records written and perf records the kernel reported lost (for status). */
uint64_t pm_records_written(const struct perf_maps *pm);
/*
 * The earliest time of a task record drained but not yet written (an exec
 * waits for its image's path), UINT64_MAX if none.
 */
uint64_t pm_pending_time(const struct perf_maps *pm);
uint64_t pm_records_lost(const struct perf_maps *pm);
/* Selected processes and threads seen (snapshot and forks). */
void pm_tasks_seen(const struct perf_maps *pm, uint32_t *processes, uint32_t *threads);

#endif /* PITRACE_PERF_MAPS_H */
