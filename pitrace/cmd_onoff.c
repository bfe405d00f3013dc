// SPDX-License-Identifier: GPL-2.0
/* pitrace on / pitrace off: switch tracing of the current session on or off. */
#define PR_FMT "onoff"
#include <stdio.h>
#include <string.h>

#include "pitrace/driver_session.h"
#include "util/log.h"
#include "pitrace/commands.h"
#include "util/popt.h"

static int switch_tracing(int argc, char **argv, bool on)
{
	struct driver_session ds;
	struct pitrace_status st;
	int ret;

	ret = cmd_no_options(argc, argv, on ? "Switch tracing on for the running session." :
					      "Switch tracing off for the running session.");
	if (ret)
		return ret == POPT_HELP ? 0 : ret;
	if (ds_open(&ds) < 0)
		return EXIT_RUNTIME;
	if (ds_status(&ds, &st) < 0) {
		ds_close(&ds);
		return EXIT_RUNTIME;
	}
	if (!st.claimed) {
		pr_err("no session: start one with 'pitrace start'");
		ds_close(&ds);
		return EXIT_RUNTIME;
	}
	ret = ds_set_on(&ds, on);
	ds_close(&ds);
	return ret < 0 ? EXIT_RUNTIME : 0;
}

int cmd_on(int argc, char **argv, struct pitrace_opts *opts)
{
	(void)opts;
	return switch_tracing(argc, argv, true);
}

int cmd_off(int argc, char **argv, struct pitrace_opts *opts)
{
	(void)opts;
	return switch_tracing(argc, argv, false);
}
