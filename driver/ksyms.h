/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols that are not exported, looked up by name: the one place
 * pitrace.ko uses kallsyms (driver/ksyms.c).  Each symbol it calls or reads
 * has its own accessor here, whose type is checked against the kernel's
 * declaration where the kernel has one (ksyms.c says which, per symbol), so
 * that a kernel changing a prototype breaks the build instead of the
 * running module.  Process context only.
 */
#ifndef PITRACE_DRIVER_KSYMS_H
#define PITRACE_DRIVER_KSYMS_H

#include <linux/types.h>

struct list_head;
struct mutex;

/* Find kallsyms_lookup_name() itself: 0, or the errno that says why not (logged). */
int ksyms_init(void);

/*
 * The address of any kernel symbol, 0 when it (or kallsyms_lookup_name()
 * itself) is not found.  For addresses only: what is called or read goes
 * through an accessor below.
 */
unsigned long ksyms_lookup_name(const char *name);

/* kallsyms_lookup_size_offset(): false when not found. */
bool ksyms_size_offset(unsigned long addr, unsigned long *size, unsigned long *offset);

/* kernel/kprobes.c's blacklist and the mutex that guards it; NULL when not found. */
struct list_head *ksyms_kprobe_blacklist(void);
struct mutex *ksyms_kprobe_mutex(void);

/*
 * x86 mmiotrace's state (arch/x86/mm/): whether the tracer is on, and the
 * number of kmmio probes registered; NULL when not found (or no mmiotrace).
 */
atomic_t *ksyms_mmiotrace_enabled(void);
unsigned int *ksyms_kmmio_count(void);

/*
 * arm64 debug-monitors' user step hook list (arch/arm64/kernel/debug-monitors.c,
 * not exported): -ENOENT when register_user_step_hook() or its unregister
 * twin is not found (or the kernel has no such list); unregister only what
 * registered.
 */
struct step_hook;
int ksyms_register_user_step_hook(struct step_hook *hook);
void ksyms_unregister_user_step_hook(struct step_hook *hook);

#endif /* PITRACE_DRIVER_KSYMS_H */
