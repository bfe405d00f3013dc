/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Talking to the driver (/dev/pitrace): open with a version check, claim a
 * session, select processes, query status; plus the parsing and printing of
 * process selections shared by `pitrace start`, `status` and the collector.
 */
#ifndef PITRACE_DRIVER_SESSION_H
#define PITRACE_DRIVER_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pitrace/abi.h>

/* Where a session's state lives while the collector runs (see docs/sessions.md). */
#define DS_STATE_DIR "/run/pitrace"
#define DS_STATE_FILE DS_STATE_DIR "/session"
#define DS_RESULT_FILE DS_STATE_DIR "/result"
#define DS_LOG_FILE DS_STATE_DIR "/collector.log"

struct driver_session {
	int fd;
	struct pitrace_version version;
};

/*
 * Open the device and check the ABI version.  Every failure prints one line
 * saying why (driver not loaded, not root, major version mismatch) and
 * returns -1.  The device path can be overridden with $PITRACE_DEVICE (tests).
 */
int ds_open(struct driver_session *ds);
/*
 * The same for commands that need the driver (start, record --backend
 * driver): a missing /dev/pitrace first loads the module (driver_module.h).
 */
int ds_open_loading(struct driver_session *ds);
void ds_close(struct driver_session *ds);

/*
 * Claim the driver for this process.  EBUSY is reported as
 * "the driver is busy: a session is held by pid N (COMM)", or says which
 * other single-step user (mmiotrace, kgdb) is in the way; returns -1 then.
 * ds_select() names a task that ptrace single-steps, and its tracer.
 */
int ds_claim(struct driver_session *ds, const struct pitrace_config *cfg);
int ds_select(struct driver_session *ds, const struct pitrace_select *sel);
int ds_status(struct driver_session *ds, struct pitrace_status *st);
int ds_cpu_status(struct driver_session *ds, uint32_t cpu, struct pitrace_cpu_status *cs);
/* Tracing on or off, from any opener while a session exists. */
int ds_set_on(struct driver_session *ds, bool on);

/* Whether pid is a live process (not gone, not a zombie nobody reaped yet). */
bool ds_pid_alive(uint32_t pid);

/* "pid 123 (sleep)", or "pid 123" when its comm cannot be read. */
void ds_describe_pid(uint32_t pid, char *buf, size_t size);

/*
 * Selections.  opt names the option without dashes: "all", "pid" (PIDS is a
 * comma-separated list), "pid-range" (A-B), "pid-min" (N), "comm" (NAME) or
 * "tree" (PID).  Returns 0, or -1 with a one-line message printed (a usage
 * error).
 */
int sel_parse(const char *opt, const char *arg, struct pitrace_select *sel);

/* Human-readable form, e.g. "pids 12,13", "tree of pid 40", "comm loop". */
void sel_format(const struct pitrace_select *sel, char *buf, size_t size);

/*
 * Whether a process is selected by pid and comm alone.  TREE selections
 * depend on ancestry: they match only the root pid here, and the caller
 * follows forks (perf_maps does).
 */
bool sel_match(const struct pitrace_select *sel, uint32_t pid, const char *comm);

/*
 * Session state, kept by a running collector so the other commands find it:
 * a small key=value text file in DS_STATE_DIR, replaced atomically.
 */
struct session_state {
	uint32_t collector_pid;
	char output[4096];	  /* absolute path of the trace directory */
	char selection[256];	  /* sel_format() */
	char mode[64];		  /* "step, continuous, 4 MiB per CPU" */
};

int session_state_write(const struct session_state *s);
/* 0 with *s filled; -1 with errno ENOENT when there is no session state. */
int session_state_read(struct session_state *s);
void session_state_remove(void);
/* The collector's last word for `pitrace stop`: exit status and summary line. */
int session_result_write(int status, const char *line);
int session_result_read(int *status, char *line, size_t size);

/* Mode names ("step", "block", "count") and back; -1 when unknown. */
int mode_parse(const char *name);
const char *mode_name(uint32_t mode);
const char *policy_name(uint32_t policy);

#endif /* PITRACE_DRIVER_SESSION_H */
