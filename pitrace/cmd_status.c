// SPDX-License-Identifier: GPL-2.0
/* pitrace status: the driver session, its selection, and per-CPU buffer fill and counts. */
#define PR_FMT "status"
#include <stdio.h>
#include <string.h>

#include "pitrace/driver_session.h"
#include "util/log.h"
#include "pitrace/commands.h"
#include "util/popt.h"

static void print_cpus(struct driver_session *ds, const struct pitrace_status *st)
{
	for (uint32_t cpu = 0; cpu < st->nr_cpus; cpu++) {
		struct pitrace_cpu_status cs;
		uint64_t fill = 0;

		if (ds_cpu_status(ds, cpu, &cs) < 0)
			continue;
		if (!cs.online && !cs.steps)
			continue;
		if (cs.buffer_size && cs.bytes_written >= cs.bytes_read)
			fill = (cs.bytes_written - cs.bytes_read) * 100 / cs.buffer_size;
		printf("cpu %u: %3llu%% full, %llu steps, %llu lost%s\n", cpu,
		       (unsigned long long)(fill > 100 ? 100 : fill), (unsigned long long)cs.steps,
		       (unsigned long long)cs.lost, cs.online ? "" : " (offline)");
	}
}

/* Other in-kernel single-step users the driver sees (ABI 1.3): no new claim while they run. */
static void print_step_users(__u32 users)
{
	if (users & PITRACE_STEP_USER_MMIOTRACE)
		printf("step trap also used by: mmiotrace (no new session; kernel-mode stepping "
		       "paused)\n");
	if (users & PITRACE_STEP_USER_KGDB)
		printf("step trap also used by: kgdb (no new session)\n");
	if (users & PITRACE_STEP_USER_DEBUGGER)
		printf("step trap also used by: a kernel debugger, xmon or kgdb (no new session)\n");
}

int cmd_status(int argc, char **argv, struct pitrace_opts *opts)
{
	struct driver_session ds;
	struct pitrace_status st;
	struct session_state s;
	char holder[96], sel[256];
	bool ours;
	int ret;

	(void)opts;
	ret = cmd_no_options(argc, argv, "Show the driver session: holder, selection, "
			     "per-CPU buffer fill, steps and losses.");
	if (ret)
		return ret == POPT_HELP ? 0 : ret;
	if (ds_open(&ds) < 0)
		return EXIT_RUNTIME;
	if (ds_status(&ds, &st) < 0) {
		ds_close(&ds);
		return EXIT_RUNTIME;
	}
	ours = session_state_read(&s) == 0;
	print_step_users(st.step_users);
	if (!st.claimed) {
		printf("no session\n");
		if (ours && !ds_pid_alive(s.collector_pid)) {
			char line[4600];
			int status;

			/* One that ended by itself left its result for 'pitrace stop'; a
			 * collector killed without cleaning up, only its state. */
			if (session_result_read(&status, line, sizeof(line)) == 0)
				printf("the last session ended by itself: %s ('pitrace stop' to clear)\n",
				       line);
			else
				session_state_remove();
		}
		ds_close(&ds);
		return 0;
	}
	ds_describe_pid(st.owner_pid, holder, sizeof(holder));
	sel_format(&st.select, sel, sizeof(sel));
	ours = ours && s.collector_pid == st.owner_pid;
	printf("session: held by %s%s\n", holder, ours ? ", collector of 'pitrace start'" : "");
	if (ours)
		printf("output: %s\n", s.output);
	printf("selection: %s\n", sel);
	printf("mode: %s, %s, %llu KiB per CPU\n", mode_name(st.config.mode),
	       policy_name(st.config.policy), (unsigned long long)(st.config.buffer_size >> 10));
	printf("tracing: %s\n", st.on ? "on" : "off");
	printf("traced tasks: %llu\n", (unsigned long long)st.traced_tasks);
	printf("steps: %llu\nlost: %llu\n", (unsigned long long)st.steps,
	       (unsigned long long)st.lost);
	print_cpus(&ds, &st);
	ds_close(&ds);
	return 0;
}
