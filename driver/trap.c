// SPDX-License-Identifier: GPL-2.0
/*
 * The single-step trap hooked for the module's life: the architecture's
 * two die notifiers (driver/arch_calls.h) registered on either side of
 * uprobes', and its own hooks where the trap does not go through the die
 * chain (arm64).
 */
#include <linux/kdebug.h>
#include <linux/limits.h>
#include <linux/notifier.h>

#include "arch_calls.h"
#include "internal.h"

/*
 * uprobes' die notifier has priority INT_MAX - 1 (kernel/events/uprobes.c)
 * on every architecture.  Ours takes single steps just below it: uprobes
 * must see its own steps of a probed instruction's copy first.
 */
static struct notifier_block trap_step_nb = {
	.notifier_call = arch_step_notify,
	.priority = INT_MAX - 2,
};

/* Ahead of uprobes, which must find the step flag lent to it at its breakpoint. */
static struct notifier_block trap_uprobe_nb = {
	.notifier_call = arch_uprobe_notify,
	.priority = INT_MAX,
};

/*
 * The step notifier is on the chain only while the one ahead of uprobes is:
 * registered after it, unregistered before it.
 */
int trap_register(void)
{
	int err;

	err = register_die_notifier(&trap_uprobe_nb);
	if (err)
		return err;
	err = register_die_notifier(&trap_step_nb);
	if (err)
		goto err_uprobe_nb;
	err = arch_trap_register();
	if (err)
		goto err_step_nb;
	return 0;

err_step_nb:
	unregister_die_notifier(&trap_step_nb);
err_uprobe_nb:
	unregister_die_notifier(&trap_uprobe_nb);
	return err;
}

void trap_unregister(void)
{
	arch_trap_unregister();
	unregister_die_notifier(&trap_step_nb);
	unregister_die_notifier(&trap_uprobe_nb);
}
