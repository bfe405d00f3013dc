// SPDX-License-Identifier: GPL-2.0
/* post --verify: a report through the fast paths and one step at a time, its outputs compared. */
#define PR_FMT "verify"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/log.h"
#include "post/output.h"
#include "post/post.h"
#include "util/session.h"

#define VERIFY_SHOW 160		  /* characters of a differing line shown */

/* One run of the command: its output and its stderr (NULL: ours), how its passes went. */
struct verify_pass {
	const char *name;
	bool one_at_a_time;
	FILE *out, *err;
	struct session_pass_stats *stats; /* shared with the child that runs it */
	int status;
};

/*
 * The command run in a child (the report's state is its own, as in two
 * runs of post), its standard output into p->out, exports' -o FILE too.
 */
static int run_pass(int (*fn)(int, char **, struct post_opts *), int argc, char **argv,
		    struct post_opts *opts, struct verify_pass *p)
{
	int ws;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		pr_err("verify: cannot fork: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	if (!pid) {
		struct post_opts o = *opts;
		int r;

		if (dup2(fileno(p->out), STDOUT_FILENO) < 0 ||
		    (p->err && dup2(fileno(p->err), STDERR_FILENO) < 0))
			_exit(EXIT_RUNTIME);
		o.one_at_a_time = p->one_at_a_time;
		o.to_stdout = true;
		o.pass_stats = p->stats;
		r = fn(argc, argv, &o);
		output_end();
		fflush(NULL);
		_exit(r);
	}
	if (waitpid(pid, &ws, 0) < 0) {
		pr_err("verify: waiting for the %s pass: %s", p->name, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (WIFSIGNALED(ws)) {
		pr_err("verify: the %s pass was killed by signal %d", p->name, WTERMSIG(ws));
		return EXIT_RUNTIME;
	}
	return WEXITSTATUS(ws);
}

/* A line as shown: at most VERIFY_SHOW characters, without its newline; "(end)" after the last. */
static void show_line(const char *what, const char *line, ssize_t len)
{
	if (len < 0) {
		fprintf(stderr, "  %s: (end of output)\n", what);
		return;
	}
	if (len && line[len - 1] == '\n')
		len--;
	fprintf(stderr, "  %s: %.*s%s\n", what, (int)(len > VERIFY_SHOW ? VERIFY_SHOW : len), line,
		len > VERIFY_SHOW ? "..." : "");
}

/* The outputs line by line: 0 the same, else the first line that differs, said. */
static int compare_outputs(FILE *a, FILE *b)
{
	char *la = NULL, *lb = NULL;
	size_t sa = 0, sb = 0;
	uint64_t line = 0;
	int ret = 0;

	rewind(a);
	rewind(b);
	for (;;) {
		ssize_t na = getline(&la, &sa, a), nb = getline(&lb, &sb, b);

		line++;
		if (na < 0 && nb < 0)
			break;
		if (na == nb && !memcmp(la, lb, (size_t)na))
			continue;
		pr_err("verify: fast and step-at-a-time differ at line %" PRIu64 " of the output:", line);
		show_line("fast", la, na);
		show_line("step-at-a-time", lb, nb);
		ret = 1;
		break;
	}
	free(la);
	free(lb);
	return ret;
}

/* What a pass's captured stderr said, to ours. */
static void copy_err(FILE *err)
{
	char buf[4096];
	size_t n;

	fflush(err);
	rewind(err);
	while ((n = fread(buf, 1, sizeof(buf), err)) > 0)
		fwrite(buf, 1, n, stderr);
}

int post_verify(int (*fn)(int argc, char **argv, struct post_opts *opts), int argc, char **argv,
		struct post_opts *opts)
{
	struct session_pass_stats *stats;
	struct verify_pass fast = { .name = "fast" }, slow = { .name = "step-at-a-time" };
	int ret = EXIT_RUNTIME;

	stats = mmap(NULL, 2 * sizeof(*stats), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (stats == MAP_FAILED) {
		pr_err("verify: cannot map the passes' statistics: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	memset(stats, 0, 2 * sizeof(*stats));
	fast.stats = &stats[0];
	slow.stats = &stats[1];
	slow.one_at_a_time = true;
	fast.out = tmpfile();
	slow.out = tmpfile();
	slow.err = tmpfile();	  /* said once, by the fast pass; its own only if it fails */
	if (!fast.out || !slow.out || !slow.err) {
		pr_err("verify: cannot make temporary files: %s", strerror(errno));
		goto out;
	}
	ret = run_pass(fn, argc, argv, opts, &fast);
	if (ret)
		goto out;
	ret = run_pass(fn, argc, argv, opts, &slow);
	if (ret) {
		copy_err(slow.err);
		goto out;
	}
	if (!fast.stats->passes || fast.stats->passes != slow.stats->passes) {
		pr_err("verify: '%s' made no pass over the trace to verify", argv[0]);
		ret = EXIT_USAGE;
		goto out;
	}
	ret = compare_outputs(fast.out, slow.out);
	if (!ret && (slow.stats->calls_whole || fast.stats->steps != slow.stats->steps)) {
		pr_err("verify: the step-at-a-time pass read %" PRIu64 " steps (the fast one %" PRIu64
		       ") and took %" PRIu64 " calls whole", slow.stats->steps, fast.stats->steps,
		       slow.stats->calls_whole);
		ret = 1;
	}
	if (!ret) {
		pr_dbg("the fast pass took %" PRIu64 " calls whole (%" PRIu64 " steps), %" PRIu64
		       " steps one at a time", fast.stats->calls_whole, fast.stats->steps_whole,
		       fast.stats->steps_single);
		fprintf(stderr, "verify: %" PRIu64 " steps, fast and step-at-a-time agree\n",
			fast.stats->steps);
	}
out:
	if (fast.out)
		fclose(fast.out);
	if (slow.out)
		fclose(slow.out);
	if (slow.err)
		fclose(slow.err);
	munmap(stats, 2 * sizeof(*stats));
	return ret;
}
