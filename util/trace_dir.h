/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a trace may be written: the rules for an output name (-o DIR), its
 * lock, what counts as a trace, and removing an old one.  docs/record.md
 * ("Where a trace goes") states them for users.
 *
 * - A trace directory is one whose `header` is a regular file that starts
 *   with pitrace's magic, a header kind and a version, and whose CRC (the
 *   CHECK attribute, format v6 on) matches.  Nothing else is a trace,
 *   whatever files it holds.
 * - DIR itself must not be a symbolic link (refused, never followed), and
 *   neither may DIR.old nor DIR.lock: a name is only ever renamed as a
 *   whole directory.
 * - An existing empty DIR is written into only when it is ours (owned by
 *   the effective user) and no other user can write it.
 * - Files are removed one by one only from a directory that is a trace,
 *   ours, writable by no one else and holding nothing but a trace's files
 *   (format.h's PT_FILE_* names, regular files).  Anything else is refused
 *   in one line and left as it is.
 * - DIR.lock, next to DIR, is locked (flock) while a recording writes DIR:
 *   a second recorder to the same name is refused, naming the holder's pid.
 */
#ifndef PITRACE_TRACE_DIR_H
#define PITRACE_TRACE_DIR_H

#include <stdbool.h>
#include <stddef.h>

#define TD_STAGING_SUFFIX ".new-XXXXXX"
#define TD_OLD_SUFFIX ".old"
#define TD_LOCK_SUFFIX ".lock"

enum td_kind {
	TD_ABSENT,		/* nothing there */
	TD_EMPTY,		/* an empty directory of ours, written into in place */
	TD_TRACE,		/* a trace directory */
};

/* name followed by suffix (DIR.old, DIR.lock, DIR.new-XXXXXX), malloc'd; NULL without memory. */
char *td_with_suffix(const char *name, const char *suffix);

/* The name is usable (not empty, its staging and backup names fit NAME_MAX): 0, or -1 said. */
int td_check_name(const char *name);

/* What is at name: 0 with *kind, or -1 with the refusal said in one line. */
int td_classify(const char *name, enum td_kind *kind);

/* dirfd is a directory whose header file makes it a trace (see above). */
bool td_is_trace_at(int dirfd);

/*
 * Take name's lock (NAME.lock).  The descriptor (close-on-exec; a forked
 * child shares the lock) goes to *fd.  0, or -1 with the holder's pid said.
 */
int td_lock(const char *name, int *fd);

/*
 * The pid of the recorder writing name (its lock file names it, and it
 * runs), or 0: none, or one that died without letting go.
 */
long td_lock_holder(const char *name);

/* Let go of the lock td_lock took: the lock file is removed, then closed. */
void td_unlock(const char *name, int fd);

/*
 * The previous backup NAME.old may be replaced: absent, or a trace of ours
 * holding only a trace's files.  0, or -1 with why not said (what stands
 * in the way, and that it was left as it is).
 */
int td_old_replaceable(const char *old);

/* Remove a trace directory that td_old_replaceable accepted (checked again). 0 or -1 said. */
int td_remove_trace(const char *path);

/* Remove a staging directory: ours, holding only a trace's files (no header needed). */
int td_remove_staging(const char *path);

/* Remove the trace's files from the directory open as dirfd (an in-place trace given up). */
int td_clear_at(int dirfd);

/*
 * name as a shell would quote it, for messages: as it is when it needs no
 * quoting, else in single quotes with control bytes as $'\n'-style escapes.
 * Returns buf (truncated with "..." to size).
 */
const char *td_quote(const char *name, char *buf, size_t size);

#endif /* PITRACE_TRACE_DIR_H */
