// SPDX-License-Identifier: GPL-2.0
/* pitrace on / pitrace off: switch tracing of the current session on or off. */
#define PR_FMT "onoff"
#include <stdio.h>
#include <string.h>

#include "driver_session.h"
#include "log.h"
#include "pitrace.h"

static int switch_tracing(int argc, char **argv, bool on)
{
	struct driver_session ds;
	struct pitrace_status st;
	int ret;

	if (argc > 1) {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			printf("usage: pitrace %s\nSwitch tracing %s for the running session.\n",
			       argv[0], on ? "on" : "off");
			return 0;
		}
		pr_err("unexpected argument '%s' (see 'pitrace %s --help')", argv[1], argv[0]);
		return EXIT_USAGE;
	}
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
