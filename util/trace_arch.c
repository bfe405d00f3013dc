// SPDX-License-Identifier: GPL-2.0
/* A trace read with its own architecture's rules (trace_arch.h). */
#include "arch/arch.h"
#include "util/log.h"
#include "util/trace_arch.h"

struct trace *trace_open_arch(const char *dir, unsigned flags)
{
	struct trace *t = trace_open_flags(dir, flags);
	const char *arch;

	if (!t)
		return NULL;
	arch = trace_info(t)->arch;
	if (!*arch || arch_select(arch) == 0)
		return t;
	if (!(flags & TRACE_OPEN_FORCE)) {
		pr_err("%s: a trace of architecture %s, which this post cannot read (it reads %s)",
		       dir, arch, arch_known_names());
		trace_close(t);
		return NULL;
	}
	pr_warn("%s: architecture %s unknown: read with %s's rules (--force)", dir, arch,
		arch_selected_name());
	return t;
}
