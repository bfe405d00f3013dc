// SPDX-License-Identifier: GPL-2.0
/*
 * tpflip: a test-only module with no pitrace in it, for the question of
 * multi-threaded TCG (tests/vm/tcg/question.sh).  It does to the kernel's
 * text what pitrace's sessions do, and nothing else: it attaches an empty
 * probe to the tracepoints a session attaches (sched_process_exec,
 * sched_switch, sys_exit, irq_handler_entry, ...), which flips their static
 * keys (text_poke_bp patches the call sites on every CPU), then detaches
 * them, flips times in a row, while the other vCPU runs the code being
 * patched.  An "Oops: int3" with this module alone is the emulator's race,
 * not the driver's.
 *
 *   insmod tpflip.ko flips=N seconds=S   (returns after N rounds or S
 *   seconds, whichever comes first; dmesg says how many rounds ran)
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static unsigned int flips = 1000;
module_param(flips, uint, 0444);
MODULE_PARM_DESC(flips, "attach/detach rounds");
static unsigned int seconds;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "stop after this many seconds (0: no limit)");

static const char *const names[] = {
	"sched_process_exec", "sched_switch", "sys_exit", "irq_handler_entry", "irq_handler_exit",
	"softirq_entry", "softirq_exit", "local_timer_entry", "local_timer_exit",
	"page_fault_user", "page_fault_kernel",
};

static struct tracepoint *tps[ARRAY_SIZE(names)];

/* Every tracepoint passes its data first: an empty probe reads no more. */
static void tpflip_probe(void *data)
{
}

static void find_tp(struct tracepoint *tp, void *priv)
{
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(tp->name, names[i]))
			tps[i] = tp;
}

static int __init tpflip_init(void)
{
	unsigned long end = jiffies + (unsigned long)seconds * HZ;
	unsigned int done = 0, found = 0;

	for_each_kernel_tracepoint(find_tp, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		found += !!tps[i];
	for (; done < flips && (!seconds || time_before(jiffies, end)); done++) {
		for (size_t i = 0; i < ARRAY_SIZE(names); i++)
			if (tps[i] && tracepoint_probe_register(tps[i], (void *)tpflip_probe, NULL))
				tps[i] = NULL;
		usleep_range(100, 200);
		for (size_t i = 0; i < ARRAY_SIZE(names); i++)
			if (tps[i])
				tracepoint_probe_unregister(tps[i], (void *)tpflip_probe, NULL);
		tracepoint_synchronize_unregister();
		if (done % 10 == 9)
			pr_warn("tpflip: %u rounds\n", done + 1);	/* on the console */
		cond_resched();
	}
	pr_info("tpflip: %u rounds over %u tracepoints\n", done, found);
	return 0;
}

static void __exit tpflip_exit(void)
{
}

module_init(tpflip_init);
module_exit(tpflip_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pitrace test: tracepoint static keys flipped, nothing else");
