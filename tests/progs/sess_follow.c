// SPDX-License-Identifier: GPL-2.0
/*
 * A follower for the driver tests, which have no python (post script
 * --follow): sess_follow [-f] [-o FILE] DIR reads trace DIR in one pass of
 * libpitrace, with -f as it is recorded (PTR_OPEN_FOLLOW; FILE, if given,
 * gets "open" once the trace is), and prints "steps NAME COUNT" for every
 * function (PLT stubs their own, as post counts --by symbol has them),
 * "events N", "hash H" (FNV-1a of every event in order, with its function
 * names) and, with -f, "lag P50 MAX" (ms from a step's time to its
 * delivery, over steps sampled each 10 ms).  Exit 1 on a failed pass.
 */
// build: -Iinclude -Llib -lpitrace
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pitrace/reader.h>

struct follow {
	struct ptr_reader *r;
	uint64_t hash, events;
	uint64_t *steps;	  /* per function id */
	size_t nr_steps;
	uint64_t last_sample, lags[4096];
	size_t nr_lags;
	int follow;
};

static void mix(struct follow *f, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		f->hash = (f->hash ^ b[i]) * 0x100000001b3ull;
}

static void mix_u64(struct follow *f, uint64_t v)
{
	mix(f, &v, sizeof(v));
}

static void mix_func(struct follow *f, uint32_t id)
{
	struct ptr_func fn = { .size = sizeof(fn) };

	if (id != PTR_NO_FUNC && ptr_get_func(f->r, id, &fn) == 0) {
		mix(f, fn.name, strlen(fn.name) + 1);
		mix(f, fn.module, strlen(fn.module) + 1);
	} else {
		mix_u64(f, UINT64_MAX);
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int on_step(void *ctx, const struct ptr_step *s)
{
	struct follow *f = ctx;
	uint64_t now;

	f->events++;
	mix_u64(f, 1);
	mix_u64(f, s->index);
	mix_u64(f, s->tid);
	mix_u64(f, s->cpu);
	mix_u64(f, s->pc);
	mix_u64(f, s->time_ns);
	mix_func(f, s->func);
	if (s->func != PTR_NO_FUNC) {
		if (s->func >= f->nr_steps) {
			size_t n = s->func + 1024;
			uint64_t *p = realloc(f->steps, n * sizeof(*p));

			if (!p)
				return 1;
			memset(p + f->nr_steps, 0, (n - f->nr_steps) * sizeof(*p));
			f->steps = p;
			f->nr_steps = n;
		}
		f->steps[s->func]++;
	}
	if (f->follow && s->time_ns && f->nr_lags < 4096) {
		now = now_ns();
		if (now - f->last_sample >= 10000000ull && now > s->time_ns) {
			f->lags[f->nr_lags++] = (now - s->time_ns) / 1000000ull;
			f->last_sample = now;
		}
	}
	return 0;
}

static int on_call(void *ctx, const struct ptr_call *c)
{
	struct follow *f = ctx;

	f->events++;
	mix_u64(f, 2);
	mix_u64(f, c->index);
	mix_u64(f, c->tid);
	mix_u64(f, c->depth);
	mix_u64(f, c->kind);
	mix_func(f, c->caller);
	mix_func(f, c->callee);
	return 0;
}

static int on_ret(void *ctx, const struct ptr_return *r)
{
	struct follow *f = ctx;

	f->events++;
	mix_u64(f, 3);
	mix_u64(f, r->index);
	mix_u64(f, r->tid);
	mix_u64(f, r->base);
	mix_u64(f, r->cum);
	mix_u64(f, r->kind);
	mix_func(f, r->func);
	return 0;
}

static int on_task(void *ctx, const struct ptr_task *t)
{
	struct follow *f = ctx;

	f->events++;
	mix_u64(f, 4);
	mix_u64(f, t->kind);
	mix_u64(f, t->tid);
	mix_u64(f, t->time_ns);
	mix_u64(f, t->start);
	if (t->path)
		mix(f, t->path, strlen(t->path) + 1);
	return 0;
}

static int on_gap(void *ctx, const struct ptr_gap *g)
{
	struct follow *f = ctx;

	f->events++;
	mix_u64(f, 5);
	mix_u64(f, g->kind);
	mix_u64(f, g->tid);
	mix_u64(f, g->index);
	mix_u64(f, g->count);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(struct follow *f)
{
	for (size_t i = 0; i < f->nr_steps; i++) {
		struct ptr_func fn = { .size = sizeof(fn) };

		if (f->steps[i] && ptr_get_func(f->r, (uint32_t)i, &fn) == 0)
			printf("steps %s %llu\n", fn.name, (unsigned long long)f->steps[i]);
	}
	printf("events %llu\nhash %016llx\n", (unsigned long long)f->events,
	       (unsigned long long)f->hash);
	if (f->follow && f->nr_lags) {
		qsort(f->lags, f->nr_lags, sizeof(f->lags[0]), cmp_u64);
		printf("lag %llu %llu\n", (unsigned long long)f->lags[f->nr_lags / 2],
		       (unsigned long long)f->lags[f->nr_lags - 1]);
	}
}

int main(int argc, char **argv)
{
	struct ptr_open_options o = { .size = sizeof(o), .flags = PTR_OPEN_KEEP_STUBS,
				      .threads = 1 };
	struct ptr_callbacks cb = { .size = sizeof(cb), .step = on_step, .call = on_call,
				    .ret = on_ret, .task = on_task, .gap = on_gap };
	struct follow f = { .hash = 0xcbf29ce484222325ull };
	const char *opened = NULL;
	int c, err, ret;

	while ((c = getopt(argc, argv, "fo:")) != -1) {
		if (c == 'f')
			f.follow = 1;
		else if (c == 'o')
			opened = optarg;
		else
			return 2;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: sess_follow [-f] [-o FILE] DIR\n");
		return 2;
	}
	if (f.follow)
		o.flags |= PTR_OPEN_FOLLOW;
	f.r = ptr_open(argv[optind], &o, &err);
	if (!f.r)
		return 1;
	if (opened) {
		FILE *fp = fopen(opened, "w");

		if (!fp || fputs("open\n", fp) < 0 || fclose(fp) != 0) {
			perror(opened);
			return 1;
		}
	}
	ret = ptr_run(f.r, NULL, &cb, &f);
	if (ret != 0) {
		fprintf(stderr, "sess_follow: pass failed: %s\n", ptr_strerror(ret));
		return 1;
	}
	report(&f);
	ptr_close(f.r);
	free(f.steps);
	return 0;
}
