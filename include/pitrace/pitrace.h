/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * libpitrace: switch the driver's tracing on and off from inside a program,
 * to bracket the region worth tracing.  Link with -lpitrace.  A session must
 * have been started (`pitrace start --off ...`) and the caller must be
 * allowed to open /dev/pitrace (root).  Tracing is global to the session:
 * pitrace_on() starts recording every selected process, not only the caller.
 */
#ifndef PITRACE_PITRACE_H_PUBLIC
#define PITRACE_PITRACE_H_PUBLIC

#ifdef __cplusplus
extern "C" {
#endif

/* Returns 0, or -1 with errno set (ENOENT: no driver; EACCES: not allowed). */
int pitrace_on(void);
int pitrace_off(void);

#ifdef __cplusplus
}
#endif

#endif /* PITRACE_PITRACE_H_PUBLIC */
