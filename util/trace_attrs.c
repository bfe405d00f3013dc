// SPDX-License-Identifier: GPL-2.0
/* The header attributes every recording has (trace_attrs.h, docs/trace-format.md). */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <pitrace/format.h>
#include "util/trace_attrs.h"
#include "util/trace_writer.h"

/* PT_ATTR_CMDLINE: the arguments, each with its NUL. */
static void set_cmdline(struct trace_writer *tw, char *const *argv)
{
	size_t len = 0;
	char *buf;

	for (char *const *a = argv; *a; a++)
		len += strlen(*a) + 1;
	buf = malloc(len ? len : 1);
	if (!buf)
		return;
	len = 0;
	for (char *const *a = argv; *a; a++) {
		strcpy(buf + len, *a);
		len += strlen(*a) + 1;
	}
	tw_set_attr(tw, PT_ATTR_CMDLINE, buf, len);
	free(buf);
}

void trace_attrs_start(struct trace_writer *tw, const struct trace_attrs *a)
{
	struct pt_attr_time start = { tw_realtime_ns(), tw_now_ns() };
	struct utsname u;
	bool have_uname = uname(&u) == 0;

	if (a->arch || have_uname)
		tw_set_attr_str(tw, PT_ATTR_ARCH, a->arch ? a->arch : u.machine);
	tw_set_attr_str(tw, PT_ATTR_BACKEND, a->backend);
	tw_set_attr_str(tw, PT_ATTR_MODE, a->mode);
	if (have_uname) {
		tw_set_attr_str(tw, PT_ATTR_KERNEL_RELEASE, u.release);
		tw_set_attr_str(tw, PT_ATTR_HOSTNAME, u.nodename);
	}
	if (a->argv)
		set_cmdline(tw, a->argv);
	tw_set_attr(tw, PT_ATTR_START_TIME, &start, sizeof(start));
	tw_set_attr(tw, PT_ATTR_NR_CPUS, &a->nr_cpus, sizeof(a->nr_cpus));
}

void trace_attrs_stop(struct trace_writer *tw)
{
	tw_set_stop_time(tw);
}
