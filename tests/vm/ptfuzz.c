// SPDX-License-Identifier: GPL-2.0
/*
 * ptfuzz: a test-only ioctl fuzzer of /dev/pitrace for the VM tests
 * (tests/vm/cases/k97_ioctl_fuzz.sh).  From a seed, it makes CALLS calls:
 * random ioctl numbers of the driver's magic and of others, with arguments
 * that are random bytes, structs of the right size with random fields
 * (every reserved field included), structs one byte short or long, and bad
 * pointers (NULL, unmapped, read-only, kernel addresses, a struct that
 * straddles the end of a mapping); between them valid calls that claim,
 * select a busy child of its own, switch tracing, flush, map the rings and
 * scribble over their shared control areas, poll, fork with the file open
 * and close it at random.  The kernel must survive all of it: the case
 * then checks the driver still traces exactly, unloads and the log is
 * clean.  Prints per-errno counts; exits 1 only when it cannot run.
 *
 *   ptfuzz [-n CALLS] [-s SEED] [-q]
 *   ptfuzz open   (open the device once: prints OK or the errno's name)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pitrace/abi.h>

#define MAX_ERRNO 256
#define MAX_MAPS 8

static uint64_t rng_state, seed;
static unsigned long counts[MAX_ERRNO + 1];	/* [0]: success */
static unsigned long calls_by_kind[16];
static char *page_none, *page_ro, *page_edge;	/* PROT_NONE, read-only, the last rw page */
static long page;

static uint64_t rnd(void)
{
	/* xorshift64*: the same seed gives the same calls */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static void tally(long r)
{
	int e = r < 0 ? errno : 0;

	counts[e > 0 && e <= MAX_ERRNO ? e : e ? MAX_ERRNO : 0]++;
}

/* A value for a numeric field: edges more often than noise. */
static uint64_t field(void)
{
	static const uint64_t edges[] = { 0, 1, 2, 3, 7, 8, 15, 16, 63, 64, 65, 4095, 4096, 4097,
					  65536, 1u << 20, 4u << 20, 1u << 30, (1ull << 30) + 1,
					  UINT32_MAX, (uint64_t)UINT32_MAX + 1, INT64_MAX, UINT64_MAX };

	switch (below(4)) {
	case 0:
		return rnd();
	case 1:
		return below(8);
	default:
		return edges[below(sizeof(edges) / sizeof(edges[0]))];
	}
}

static void random_bytes(void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((uint8_t *)p)[i] = (uint8_t)rnd();
}

/* An argument pointer: mostly good, sometimes bad in one of several ways. */
static void *arg_ptr(void *good, size_t size)
{
	switch (below(16)) {
	case 0:
		return NULL;
	case 1:
		return page_none;
	case 2:
		return page_ro;	/* fine to read, faults on write */
	case 3:
		return (void *)(uintptr_t)0xffffffff81000000ull;	/* kernel text */
	case 4:
		/* straddles the end of the mapping: the copy faults half way */
		return page_edge + page - (size > 1 ? size / 2 : 1);
	case 5:
		return (void *)(uintptr_t)(rnd() | 1);
	default:
		return good;
	}
}

static void fill_config(struct pitrace_config *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = below(3) ? (uint32_t)below(3) : (uint32_t)field();
	c->policy = below(3) ? (uint32_t)below(3) : (uint32_t)field();
	c->flags = below(3) ? (uint32_t)below(4) : (uint32_t)field();
	c->subbuf_size = below(2) ? 0 : below(2) ? 4096u << below(6) : (uint32_t)field();
	/* small buffers mostly (a 1 GiB guest), huge ones sometimes */
	c->buffer_size = below(2) ? 0 : below(2) ? (uint64_t)(64u << 10) << below(6) : field();
	c->kernel_step_limit = below(2) ? 0 : field();
	if (!below(4))
		c->reserved[below(8)] = (uint32_t)field();
}

static void fill_select(struct pitrace_select *s, pid_t child)
{
	memset(s, 0, sizeof(*s));
	s->kind = below(4) ? (uint32_t)below(7) : (uint32_t)field();
	s->nr_pids = below(3) ? (uint32_t)below(4) : (uint32_t)field();
	s->pid_lo = below(2) ? (uint32_t)child : (uint32_t)field();
	s->pid_hi = below(2) ? (uint32_t)child + (uint32_t)below(3) : (uint32_t)field();
	for (unsigned i = 0; i < PITRACE_MAX_PIDS; i++)
		s->pids[i] = below(2) ? (uint32_t)child : (uint32_t)field();
	if (below(2))
		memcpy(s->comm, "ptfuzz", 7);
	else
		random_bytes(s->comm, sizeof(s->comm));	/* no terminator either */
	if (!below(4))
		s->reserved[below(8)] = (uint32_t)field();
}

struct map {
	void *p;
	size_t len;
};

static struct map maps[MAX_MAPS];

static void unmap_all(void)
{
	for (int i = 0; i < MAX_MAPS; i++)
		if (maps[i].p) {
			munmap(maps[i].p, maps[i].len);
			maps[i].p = NULL;
		}
}

/* Map a ring (a right or wrong offset and length) and scribble on it. */
static void map_ring(int fd)
{
	struct pitrace_cpu_status cs = { .cpu = (uint32_t)below(4) };
	struct map *m = &maps[below(MAX_MAPS)];
	size_t len;
	off_t off;
	void *p;

	if (ioctl(fd, PITRACE_IOC_CPU_STATUS, &cs) < 0) {
		tally(-1);
		return;
	}
	len = below(4) ? cs.map_size : (size_t)field() & ~((size_t)page - 1);
	off = below(4) ? (off_t)cs.map_offset : (off_t)(field() & ~((uint64_t)page - 1));
	if (!len || len > (64u << 20))
		len = (size_t)page;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	tally(p == MAP_FAILED ? -1 : 0);
	if (p == MAP_FAILED)
		return;
	if (m->p)
		munmap(m->p, m->len);
	m->p = p;
	m->len = len;
	/* The control area is the collector's to write (consumed) and the
	 * driver's to read: anything here must not hurt the kernel. */
	if (below(2))
		random_bytes(p, len < (size_t)page ? len : (size_t)page);
	else
		((struct pitrace_ring_ctl *)p)->consumed = field();
}

/* A child for SELECT to pick: busy, so that it is stepped when selected. */
static pid_t spawn_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		volatile unsigned long n = 0;

		for (;;)
			n++;
	}
	return pid;
}

static int run(unsigned long calls, int quiet)
{
	static const unsigned long known[] = {
		PITRACE_IOC_VERSION, PITRACE_IOC_CLAIM, PITRACE_IOC_RELEASE, PITRACE_IOC_SELECT,
		PITRACE_IOC_ON, PITRACE_IOC_OFF, PITRACE_IOC_STATUS, PITRACE_IOC_CPU_STATUS,
		PITRACE_IOC_FLUSH,
	};
	union {
		struct pitrace_config config;
		struct pitrace_select select;
		struct pitrace_status status;
		struct pitrace_cpu_status cpu;
		uint8_t raw[4096];
	} buf;
	pid_t child = spawn_child();
	int fd = open(PITRACE_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		perror("ptfuzz: " PITRACE_DEVICE);
		kill(child, SIGKILL);
		return 1;
	}
	for (unsigned long i = 0; i < calls; i++) {
		unsigned kind = (unsigned)below(16);
		unsigned long cmd;
		size_t size;

		calls_by_kind[kind]++;
		switch (kind) {
		case 0:	/* a valid-looking claim */
			fill_config(&buf.config);
			tally(ioctl(fd, PITRACE_IOC_CLAIM, arg_ptr(&buf.config, sizeof(buf.config))));
			break;
		case 1:	/* a selection, often of the busy child */
			fill_select(&buf.select, child);
			tally(ioctl(fd, PITRACE_IOC_SELECT, arg_ptr(&buf.select, sizeof(buf.select))));
			break;
		case 2:
			tally(ioctl(fd, below(2) ? PITRACE_IOC_ON : PITRACE_IOC_OFF));
			break;
		case 3:
			tally(ioctl(fd, PITRACE_IOC_FLUSH));
			break;
		case 4:
			tally(ioctl(fd, PITRACE_IOC_STATUS, arg_ptr(&buf.status, sizeof(buf.status))));
			break;
		case 5:
			buf.cpu.cpu = (uint32_t)(below(2) ? below(4) : field());
			tally(ioctl(fd, PITRACE_IOC_CPU_STATUS, arg_ptr(&buf.cpu, sizeof(buf.cpu))));
			break;
		case 6:
			map_ring(fd);
			break;
		case 7: {	/* poll, never waiting */
			struct pollfd p = { .fd = fd, .events = POLLIN };

			tally(poll(&p, 1, 0));
			break;
		}
		case 8:	/* a known command with a size one off, or another direction */
			cmd = known[below(sizeof(known) / sizeof(known[0]))];
			size = _IOC_SIZE(cmd) + (below(2) ? 1 : (size_t)-1);
			cmd = _IOC(below(2) ? _IOC_DIR(cmd) : (unsigned)below(4), PITRACE_IOC_MAGIC,
				   _IOC_NR(cmd), size & _IOC_SIZEMASK);
			random_bytes(buf.raw, sizeof(buf.raw));
			tally(ioctl(fd, cmd, arg_ptr(buf.raw, size)));
			break;
		case 9:	/* any number of the magic, any size */
			size = (size_t)below(sizeof(buf.raw));
			cmd = _IOC((unsigned)below(4), PITRACE_IOC_MAGIC, (unsigned)below(256), size);
			random_bytes(buf.raw, sizeof(buf.raw));
			tally(ioctl(fd, cmd, arg_ptr(buf.raw, size)));
			break;
		case 10:	/* any number at all */
			random_bytes(buf.raw, sizeof(buf.raw));
			tally(ioctl(fd, (unsigned long)(uint32_t)rnd(), arg_ptr(buf.raw, 64)));
			break;
		case 11:	/* the owner's fd in a child that ends or keeps it */
			if (!below(8)) {
				pid_t c = fork();

				if (c == 0) {
					ioctl(fd, below(2) ? PITRACE_IOC_RELEASE : PITRACE_IOC_OFF);
					_exit(0);
				}
				waitpid(c, NULL, 0);
			}
			break;
		case 12:	/* end the session: by RELEASE or by closing */
			if (!below(4)) {
				if (below(2)) {
					tally(ioctl(fd, PITRACE_IOC_RELEASE));
				} else {
					unmap_all();
					close(fd);
					fd = open(PITRACE_DEVICE, O_RDWR | O_CLOEXEC);
					if (fd < 0) {
						perror("ptfuzz: reopen");
						kill(child, SIGKILL);
						return 1;
					}
				}
			}
			break;
		case 13:	/* the child: a new one now and then (an exit while traced) */
			if (!below(16)) {
				kill(child, SIGKILL);
				waitpid(child, NULL, 0);
				child = spawn_child();
			}
			break;
		default:	/* VERSION, with a bad pointer sometimes */
			tally(ioctl(fd, PITRACE_IOC_VERSION, arg_ptr(buf.raw, sizeof(struct pitrace_version))));
			break;
		}
	}
	unmap_all();
	close(fd);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	printf("INFO ptfuzz: %lu calls, seed %llu: ok %lu", calls, (unsigned long long)seed,
	       counts[0]);
	for (int e = 1; e <= MAX_ERRNO; e++)
		if (counts[e])
			printf(", %s %lu", e == MAX_ERRNO ? "other" : strerrorname_np(e) ?: "?",
			       counts[e]);
	printf("\n");
	(void)quiet;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long calls = 5000;
	int opt, quiet = 0;

	if (argc == 2 && !strcmp(argv[1], "open")) {
		int fd = open(PITRACE_DEVICE, O_RDWR | O_CLOEXEC);

		printf("%s\n", fd >= 0 ? "OK" : strerrorname_np(errno) ?: "?");
		return 0;
	}
	seed = 1;
	while ((opt = getopt(argc, argv, "n:s:q")) != -1) {
		switch (opt) {
		case 'n':
			calls = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			fprintf(stderr, "usage: ptfuzz [-n CALLS] [-s SEED] [-q] | ptfuzz open\n");
			return 2;
		}
	}
	seed = seed ? seed : 1;
	rng_state = seed;
	page = sysconf(_SC_PAGESIZE);
	page_none = mmap(NULL, (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	page_ro = mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* a rw page with an unmapped one after it */
	page_edge = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (page_none == MAP_FAILED || page_ro == MAP_FAILED || page_edge == MAP_FAILED)
		return 1;
	munmap(page_edge + page, (size_t)page);
	signal(SIGPIPE, SIG_IGN);
	return run(calls, quiet);
}
