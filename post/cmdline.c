// SPDX-License-Identifier: GPL-2.0
/* Parsing a command's options with the shared tables (cmdline.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "post/cmdline.h"
#include "util/log.h"

const char *const post_ring_names[] = { "all", "user", "kernel", NULL };
const char *const post_plt_names[] = { "fold", "keep", NULL };

int post_name_list(const struct popt *o, const char *arg, const char *cmd)
{
	const char **list = o->value;
	char opt[64], *joined;

	snprintf(opt, sizeof(opt), "%s%s--%s", cmd ? cmd : "", cmd ? ": " : "", o->long_name);
	if (name_patterns_check(opt, arg) < 0)
		return -1;
	/* Repeated options add to the list, one line each (filter.h); the list lives as
	 * long as the command. */
	if (asprintf(&joined, "%s%s%s", *list ? *list : "", *list ? "\n" : "", arg) < 0) {
		pr_err("out of memory parsing --%s", o->long_name);
		return -1;
	}
	*list = joined;
	return 0;
}

int post_parse(const struct popt_cmd *cmd, int argc, char **argv,
	       const struct popt *const *tables, const struct post_opts *opts,
	       const struct session_filter *filter, int max_args, char ***args, int *nargs)
{
	char **rest;
	int n, r = popt_parse(cmd, argc, argv, tables, &rest, &n);

	if (r)
		return r;
	log_verbose = opts->verbose;
	if (opts->threads > POST_MAX_THREADS) {
		pr_err("%s: --threads %u: at most %u", cmd->name ? cmd->name : "post", opts->threads, POST_MAX_THREADS);
		return EXIT_USAGE;
	}
	if (n > max_args) {
		pr_err("%s: unexpected argument '%s' (see 'post %s --help')", cmd->name,
		       rest[max_args], cmd->name);
		return EXIT_USAGE;
	}
	if (filter && filter->from > filter->to) {
		pr_err("%s: --from %" PRIu64 " is after --to %" PRIu64, cmd->name, filter->from,
		       filter->to);
		return EXIT_USAGE;
	}
	if (filter && filter->time_from > filter->time_to) {
		pr_err("%s: --time-from is after --time-to", cmd->name);
		return EXIT_USAGE;
	}
	if (args)
		*args = rest;
	if (nargs)
		*nargs = n;
	return 0;
}

struct session_source post_source(const struct post_opts *opts)
{
	return (struct session_source){
		.input = opts->input, .force = opts->force, .vmlinux = opts->vmlinux,
		.debug_dir = opts->debug_dir, .symfs = opts->symfs,
		.buildid_dir = opts->buildid_dir, .no_demangle = opts->no_demangle,
		.threads = opts->threads, .one_at_a_time = opts->one_at_a_time,
		.keep_stubs = opts->plt == 1, .pass_stats = opts->pass_stats,
	};
}
