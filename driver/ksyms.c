// SPDX-License-Identifier: GPL-2.0
/*
 * Unexported kernel symbols by name (driver/ksyms.h).  Every symbol is
 * held in a pointer of its declared type: typeof() of the kernel's own
 * declaration where a kernel header has one (checked by the compiler), else
 * the type of its definition in the file named next to it (static there:
 * nothing to check against; the same in every kernel the driver is tested
 * on).
 */
#define pr_fmt(fmt) "pitrace: " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/mutex.h>
#ifdef CONFIG_ARM64
#include <asm/debug-monitors.h>
#endif /* CONFIG_ARM64 */

#include "arch_calls.h"
#include "ksyms.h"

/* <linux/kallsyms.h> declares both. */
static typeof(&kallsyms_lookup_name) lookup_name;
static typeof(&kallsyms_lookup_size_offset) size_offset;

/*
 * kallsyms_lookup_name() is not exported: a kprobe on it tells its address
 * (the usual way out-of-tree tracers find it).  The collector could pass
 * /proc/kallsyms ranges instead, but then every client (the test client
 * too) would have to, and the kprobes blacklist is not in kallsyms.
 */
int ksyms_init(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	int err;

	if (lookup_name)
		return 0;
	err = register_kprobe(&kp);
	if (err) {
		pr_err("cannot find kallsyms_lookup_name: %d\n", err);
		return err;
	}
	lookup_name = (typeof(lookup_name))arch_func_start((unsigned long)kp.addr);
	unregister_kprobe(&kp);
	return 0;
}

unsigned long ksyms_lookup_name(const char *name)
{
	return ksyms_init() ? 0 : lookup_name(name);
}

/* The symbol name's address as a T, looked up once (0 stays 0: looked up again). */
#define KSYM_ONCE(var, name)                                               \
	({                                                                 \
		if (!(var))                                                \
			(var) = (typeof(var))ksyms_lookup_name(name);      \
		(var);                                                     \
	})

bool ksyms_size_offset(unsigned long addr, unsigned long *size, unsigned long *offset)
{
	return KSYM_ONCE(size_offset, "kallsyms_lookup_size_offset") &&
	       size_offset(addr, size, offset);
}

/* kernel/kprobes.c: static LIST_HEAD(kprobe_blacklist). */
static struct list_head *kprobe_blacklist;

struct list_head *ksyms_kprobe_blacklist(void)
{
	return KSYM_ONCE(kprobe_blacklist, "kprobe_blacklist");
}

/* kernel/kprobes.c: static DEFINE_MUTEX(kprobe_mutex). */
static struct mutex *kprobe_mutex;

struct mutex *ksyms_kprobe_mutex(void)
{
	return KSYM_ONCE(kprobe_mutex, "kprobe_mutex");
}

#ifdef CONFIG_MMIOTRACE
/* arch/x86/mm/mmio-mod.c: static atomic_t mmiotrace_enabled. */
static atomic_t *mmiotrace_enabled;
/* arch/x86/mm/kmmio.c: unsigned int kmmio_count (global, in no header). */
static unsigned int *kmmio_count;
#endif /* CONFIG_MMIOTRACE */

atomic_t *ksyms_mmiotrace_enabled(void)
{
#ifdef CONFIG_MMIOTRACE
	return KSYM_ONCE(mmiotrace_enabled, "mmiotrace_enabled");
#else
	return NULL;
#endif /* CONFIG_MMIOTRACE */
}

unsigned int *ksyms_kmmio_count(void)
{
#ifdef CONFIG_MMIOTRACE
	return KSYM_ONCE(kmmio_count, "kmmio_count");
#else
	return NULL;
#endif /* CONFIG_MMIOTRACE */
}

#if defined(CONFIG_ARM64) && !defined(PITRACE_NO_STEP_HOOKS)
/* <asm/debug-monitors.h> declares both (kernels before the debug exception rework). */
static typeof(&register_user_step_hook) register_user_step;
static typeof(&unregister_user_step_hook) unregister_user_step;
#endif /* CONFIG_ARM64 && !PITRACE_NO_STEP_HOOKS */

int ksyms_register_user_step_hook(struct step_hook *hook)
{
#if defined(CONFIG_ARM64) && !defined(PITRACE_NO_STEP_HOOKS)
	if (!KSYM_ONCE(register_user_step, "register_user_step_hook") ||
	    !KSYM_ONCE(unregister_user_step, "unregister_user_step_hook"))
		return -ENOENT;
	register_user_step(hook);
	return 0;
#else
	return -ENOENT;
#endif /* CONFIG_ARM64 && !PITRACE_NO_STEP_HOOKS */
}

void ksyms_unregister_user_step_hook(struct step_hook *hook)
{
#if defined(CONFIG_ARM64) && !defined(PITRACE_NO_STEP_HOOKS)
	unregister_user_step(hook);
#endif /* CONFIG_ARM64 && !PITRACE_NO_STEP_HOOKS */
}
