// SPDX-License-Identifier: GPL-2.0
/* The tracing options `pitrace record` and `pitrace attach` share (ptrace_engine.h). */
#include <getopt.h>
#include <string.h>

#include "log.h"
#include "ptrace_engine.h"

int ptrace_opt_apply(struct ptrace_opts *o, int ch, const char *arg)
{
	switch (ch) {
	case 'o':
		o->out_dir = arg;
		return 1;
	case PTRACE_OPT_MODE:
		if (!strcmp(arg, "block")) {
			o->block = true;
		} else if (strcmp(arg, "step")) {
			pr_err("--mode: '%s' is not one of step, block", arg);
			return -1;
		}
		return 1;
	case PTRACE_OPT_FOLLOW:
		o->follow_fork = true;
		return 1;
	case PTRACE_OPT_ON:
		o->on_syms[o->nr_on_syms++] = (char *)arg;
		return 1;
	case 'z':
		o->compress = true;
		return 1;
	case PTRACE_OPT_NO_PIN:
		o->pin = false;
		return 1;
	default:
		return 0;
	}
}
