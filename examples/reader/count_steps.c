// SPDX-License-Identifier: GPL-2.0
/*
 * count_steps: a per-step consumer of libpitrace's reader
 * (include/pitrace/reader.h): steps per function, kernel steps, system
 * calls, signals and the instruction mix of a trace, from every step.
 *
 *   cc -o count_steps count_steps.c $(pkg-config --cflags --libs libpitrace)
 *   count_steps [-f FROM] [-t TO] [-S SYMBOL] TRACE_DIR
 *
 * Prints "steps N", "kernel N", "syscalls N", "tasks N", "async KIND N"
 * per kind of asynchronous entry (signal, sigreturn, interrupt, ...),
 * "class NAME N" per instruction class, then "N function module" per
 * function.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pitrace/reader.h>

static const char *const class_names[] = {
	"invalid", "other", "call", "ret", "jump", "cond", "syscall", "int", "kret",
};
#define NR_CLASSES (sizeof(class_names) / sizeof(class_names[0]))
static const char *const async_names[] = {
	"?", "signal", "sigreturn", "interrupt", "exception", "irq",
};
#define NR_ASYNC (sizeof(async_names) / sizeof(async_names[0]))

struct counts {
	uint64_t steps, kernel, syscalls, tasks, bad_bytes;
	uint64_t classes[NR_CLASSES];
	uint64_t async[NR_ASYNC];
	uint64_t *per_func;	  /* by function id */
	uint32_t size;
};

static int on_step(void *ctx, const struct ptr_step *s)
{
	struct counts *c = ctx;

	if (s->func >= c->size) {
		uint32_t n = c->size ? c->size : 256;

		while (n <= s->func)
			n *= 2;
		c->per_func = realloc(c->per_func, n * sizeof(*c->per_func));
		if (!c->per_func)
			return 1;	/* out of memory: stop the pass */
		memset(c->per_func + c->size, 0, (n - c->size) * sizeof(*c->per_func));
		c->size = n;
	}
	c->per_func[s->func]++;
	c->steps++;
	c->kernel += s->kernel;
	if (s->insn_class < NR_CLASSES)
		c->classes[s->insn_class]++;
	/* an instruction's bytes, when the module was readable, are its length */
	if (s->nr_bytes && s->nr_bytes < s->len)
		c->bad_bytes++;
	return 0;
}

static int on_syscall(void *ctx, const struct ptr_syscall *e)
{
	(void)e;
	((struct counts *)ctx)->syscalls++;
	return 0;
}

static int on_async(void *ctx, const struct ptr_async *e)
{
	struct counts *c = ctx;

	c->async[e->kind < NR_ASYNC ? e->kind : 0]++;
	return 0;
}

static int on_task(void *ctx, const struct ptr_task *e)
{
	(void)e;
	((struct counts *)ctx)->tasks++;
	return 0;
}

static void print(struct ptr_reader *r, const struct counts *c)
{
	printf("steps %" PRIu64 "\nkernel %" PRIu64 "\nsyscalls %" PRIu64 "\ntasks %" PRIu64 "\n",
	       c->steps, c->kernel, c->syscalls, c->tasks);
	for (size_t k = 0; k < NR_ASYNC; k++)
		if (c->async[k])
			printf("async %s %" PRIu64 "\n", async_names[k], c->async[k]);
	if (c->bad_bytes)
		printf("short-bytes %" PRIu64 "\n", c->bad_bytes);
	for (size_t k = 0; k < NR_CLASSES; k++)
		if (c->classes[k])
			printf("class %s %" PRIu64 "\n", class_names[k], c->classes[k]);
	for (uint32_t id = 0; id < c->size; id++) {
		struct ptr_func f = { .size = sizeof(f) };

		if (c->per_func[id] && !ptr_get_func(r, id, &f))
			printf("%" PRIu64 " %s %s\n", c->per_func[id], f.name, f.module);
	}
}

int main(int argc, char **argv)
{
	struct ptr_callbacks cb = {
		.size = sizeof(cb), .step = on_step, .syscall = on_syscall, .async = on_async,
		.task = on_task,
	};
	struct counts c = { 0 };
	struct ptr_filter f;
	struct ptr_reader *r;
	int opt, err;

	ptr_filter_init(&f);
	while ((opt = getopt(argc, argv, "f:t:S:")) != -1) {
		if (opt == 'f')
			f.from = strtoull(optarg, NULL, 10);
		else if (opt == 't')
			f.to = strtoull(optarg, NULL, 10);
		else if (opt == 'S')
			f.symbol = optarg;
		else
			goto usage;
	}
	if (optind != argc - 1)
		goto usage;
	r = ptr_open(argv[optind], NULL, &err);
	if (!r)
		return 1;	/* the library said why */
	err = ptr_run(r, &f, &cb, &c);
	if (err) {
		fprintf(stderr, "count_steps: %s: %s\n", argv[optind],
			err > 0 ? "out of memory" : ptr_strerror(err));
		ptr_close(r);
		return 1;
	}
	print(r, &c);
	free(c.per_func);
	ptr_close(r);
	return 0;
usage:
	fprintf(stderr, "usage: count_steps [-f FROM] [-t TO] [-S SYMBOL] TRACE_DIR\n");
	return 2;
}
