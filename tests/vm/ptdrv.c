// SPDX-License-Identifier: GPL-2.0
/*
 * ptdrv: a test-only client of /dev/pitrace for the VM tests, independent
 * of the collector: claim, select, run or follow a program, drain the
 * per-CPU rings, decode them with the project's step codec and print what
 * the driver recorded (per-thread steps, task records, losses).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pitrace/abi.h>
#include "util/stepcodec.h"

#define MAX_CPUS 64
#define MAX_TIDS 256

struct cpu_ring {
	struct pitrace_ring_ctl *ctl;
	size_t map_size;
	unsigned char *stream;	/* concatenated sub-buffers, in order */
	size_t len, cap;
};

struct tid_stat {
	unsigned tid, pid;
	unsigned long long steps, after_exec, counted, counted_after_exec, exit_steps;
	int execs, signals, sigreturns, exited;
	unsigned exec_cpu;		/* where the (last) EXEC record is ... */
	size_t exec_off;		/* ... and the offset just after it */
	uint64_t exec_time;
	unsigned exit_status;
	char exec[128];
};

static int dev = -1;
static struct cpu_ring rings[MAX_CPUS];
static unsigned nr_cpus;
static struct tid_stat tids[MAX_TIDS];
static unsigned nr_tids;
static volatile sig_atomic_t stop_flag;

static void die(const char *what)
{
	fprintf(stderr, "ptdrv: error: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void open_dev(void)
{
	dev = open(PITRACE_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		die("open " PITRACE_DEVICE);
}

static struct tid_stat *tid_get(unsigned tid, unsigned pid)
{
	for (unsigned i = 0; i < nr_tids; i++)
		if (tids[i].tid == tid)
			return &tids[i];
	if (nr_tids == MAX_TIDS)
		return &tids[MAX_TIDS - 1];
	tids[nr_tids].tid = tid;
	tids[nr_tids].pid = pid;
	return &tids[nr_tids++];
}

static void map_rings(void)
{
	struct pitrace_status st;

	if (ioctl(dev, PITRACE_IOC_STATUS, &st))
		die("STATUS");
	nr_cpus = st.nr_cpus < MAX_CPUS ? st.nr_cpus : MAX_CPUS;
	for (unsigned c = 0; c < nr_cpus; c++) {
		struct pitrace_cpu_status cs = { .cpu = c };

		if (ioctl(dev, PITRACE_IOC_CPU_STATUS, &cs))
			continue;
		rings[c].map_size = cs.map_size;
		rings[c].ctl = mmap(NULL, cs.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, dev,
				    cs.map_offset);
		if (rings[c].ctl == MAP_FAILED)
			die("mmap ring");
	}
}

static void append(struct cpu_ring *r, const void *p, size_t n)
{
	if (r->len + n > r->cap) {
		r->cap = (r->len + n) * 2;
		r->stream = realloc(r->stream, r->cap);
		if (!r->stream)
			die("realloc");
	}
	memcpy(r->stream + r->len, p, n);
	r->len += n;
}

/* Copy every complete sub-buffer not yet consumed; wrap: only the newest ones exist. */
static void drain(void)
{
	for (unsigned c = 0; c < nr_cpus; c++) {
		struct cpu_ring *r = &rings[c];
		struct pitrace_ring_ctl *ctl = r->ctl;
		struct pitrace_subbuf *sb;
		unsigned char *data;
		unsigned long long n, produced;

		if (!ctl)
			continue;
		sb = (struct pitrace_subbuf *)(ctl + 1);
		data = (unsigned char *)ctl + ctl->data_offset;
		produced = __atomic_load_n(&ctl->produced, __ATOMIC_ACQUIRE);
		n = ctl->consumed;
		if (produced - n > ctl->nr_subbufs)
			n = produced - ctl->nr_subbufs;
		for (; n < produced; n++) {
			struct pitrace_subbuf *s = &sb[n % ctl->nr_subbufs];

			if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != n + 1)
				break;
			append(r, data + (n % ctl->nr_subbufs) * ctl->subbuf_size, s->used);
		}
		__atomic_store_n(&ctl->consumed, n, __ATOMIC_RELEASE);
	}
}

static unsigned long long nr_records, nr_lost_marked, nr_forks, nr_execs, nr_exits, nr_on,
	nr_off, nr_switch, bad_streams;

/* Whether a step at offset off of CPU c's stream, in a segment that began at
 * seg_time, ran after thread t's exec: streams are per CPU, so a thread's
 * steps before its exec may sit on another CPU and be decoded later. */
static int after_exec(const struct tid_stat *t, unsigned c, size_t off, uint64_t seg_time)
{
	if (!t->execs)
		return 0;
	return c == t->exec_cpu ? off >= t->exec_off : seg_time > t->exec_time;
}

/* Pass 1 finds the EXEC records; pass 2 counts. */
static void decode_pass(int pass)
{
	for (unsigned c = 0; c < nr_cpus; c++) {
		struct cpu_ring *r = &rings[c];
		uint64_t last_pc = 0, v, seg_time = 0;
		size_t off = 0, used;
		struct tid_stat *cur = NULL;
		struct step_item it;

		while (off < r->len) {
			enum step_decode_status st =
				step_decode(r->stream + off, r->len - off, &last_pc, &it, &used);
			struct ctl_cursor cc;

			if (st != STEP_DECODE_OK) {
				if (pass == 2) {
					fprintf(stderr, "ptdrv: cpu %u: bad record at %zu\n", c, off);
					bad_streams++;
				}
				break;
			}
			off += used;
			cc.p = it.payload;
			cc.end = it.payload + it.payload_len;
			if (pass == 1) {
				if (it.kind == STEP_ITEM_CTL && it.ctl_type == PT_CTL_EXEC) {
					uint64_t pid, tid, old;
					struct tid_stat *t;

					ctl_get_uleb(&cc, &pid);
					ctl_get_uleb(&cc, &tid);
					ctl_get_uleb(&cc, &old);
					ctl_get_u64(&cc, &v);
					t = tid_get(tid, pid);
					if (!t->execs || v >= t->exec_time) {
						t->exec_cpu = c;
						t->exec_off = off;
						t->exec_time = v;
					}
					t->execs++;
				}
				continue;
			}
			nr_records++;
			if (it.kind == STEP_ITEM_STEP) {
				if (cur) {
					cur->steps++;
					if (after_exec(cur, c, off, seg_time))
						cur->after_exec++;
				}
				continue;
			}
			switch (it.ctl_type) {
			case PT_CTL_SWITCH: {
				uint64_t pid, tid;

				ctl_get_uleb(&cc, &pid);
				ctl_get_uleb(&cc, &tid);
				ctl_get_u64(&cc, &seg_time);
				last_pc = 0;
				cur = tid ? tid_get(tid, pid) : NULL;
				nr_switch++;
				break;
			}
			case PT_CTL_LOST:
				ctl_get_uleb(&cc, &v);
				nr_lost_marked += v;
				break;
			case PT_CTL_COUNT:
				ctl_get_uleb(&cc, &v);
				if (cur) {
					cur->counted += v;
					if (after_exec(cur, c, off, seg_time))
						cur->counted_after_exec += v;
				}
				break;
			case PT_CTL_ON:
				nr_on++;
				break;
			case PT_CTL_OFF:
				nr_off++;
				break;
			case PT_CTL_ASYNC:
				ctl_get_uleb(&cc, &v);
				if (cur && v == PT_ASYNC_SIGNAL)
					cur->signals++;
				if (cur && v == PT_ASYNC_SIGRETURN)
					cur->sigreturns++;
				break;
			case PT_CTL_FORK:
				nr_forks++;
				break;
			case PT_CTL_EXEC: {
				uint64_t pid, tid, old;
				struct tid_stat *t;
				size_t n;

				ctl_get_uleb(&cc, &pid);
				ctl_get_uleb(&cc, &tid);
				ctl_get_uleb(&cc, &old);
				ctl_get_u64(&cc, &v);
				t = tid_get(tid, pid);
				n = cc.end - cc.p < 127 ? cc.end - cc.p : 127;
				memcpy(t->exec, cc.p, n);
				t->exec[n] = 0;
				nr_execs++;
				break;
			}
			case PT_CTL_EXIT: {
				uint64_t pid, tid, status, steps;
				struct tid_stat *t;

				ctl_get_uleb(&cc, &pid);
				ctl_get_uleb(&cc, &tid);
				ctl_get_uleb(&cc, &status);
				ctl_get_uleb(&cc, &steps);
				t = tid_get(tid, pid);
				t->exited = 1;
				t->exit_status = status;
				t->exit_steps = steps;
				nr_exits++;
				break;
			}
			}
		}
	}
}

static void print_status(const char *prefix)
{
	struct pitrace_status st;

	if (ioctl(dev, PITRACE_IOC_STATUS, &st))
		die("STATUS");
	printf("%sclaimed=%u owner=%u on=%u steps=%llu lost=%llu traced=%llu flags=%#x conflict=%u "
	       "tracer=%u step_users=%#x\n",
	       prefix, st.claimed, st.owner_pid, st.on, (unsigned long long)st.steps,
	       (unsigned long long)st.lost, (unsigned long long)st.traced_tasks, st.flags,
	       st.conflict_tid, st.conflict_tracer, st.step_users);
}

static void report(void)
{
	unsigned long long lost = 0, lost_marked = 0;

	decode_pass(1);
	decode_pass(2);
	for (unsigned c = 0; c < nr_cpus; c++)
		if (rings[c].ctl) {
			lost += rings[c].ctl->lost;
			lost_marked += rings[c].ctl->lost_marked;
		}
	for (unsigned i = 0; i < nr_tids; i++) {
		struct tid_stat *t = &tids[i];

		printf("tid %u pid %u steps %llu after_exec %llu counted %llu counted_after_exec %llu "
		       "exec %s exited %d exit_status %u exit_steps %llu signals %d sigreturns %d\n",
		       t->tid, t->pid, t->steps, t->after_exec, t->counted, t->counted_after_exec,
		       t->exec[0] ? t->exec : "-", t->exited, t->exit_status, t->exit_steps,
		       t->signals, t->sigreturns);
	}
	printf("total records %llu lost %llu lost_marked %llu marker_sum %llu forks %llu execs %llu "
	       "exits %llu on %llu off %llu switches %llu bad %llu\n",
	       nr_records, lost, lost_marked, nr_lost_marked, nr_forks, nr_execs, nr_exits, nr_on,
	       nr_off, nr_switch, bad_streams);
}

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static int claim(struct pitrace_config *cfg)
{
	if (ioctl(dev, PITRACE_IOC_CLAIM, cfg) == 0)
		return 0;
	if (errno == EBUSY) {
		struct pitrace_status st;

		if (ioctl(dev, PITRACE_IOC_STATUS, &st) == 0 && st.step_users)
			printf("EBUSY owner=%u step_users=%#x\n", st.owner_pid, st.step_users);
		else if (ioctl(dev, PITRACE_IOC_STATUS, &st) == 0)
			printf("EBUSY owner=%u\n", st.owner_pid);
		else
			printf("EBUSY\n");
		exit(3);
	}
	die("CLAIM");
	return -1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ptdrv version | status | on | off | nobody-open\n"
		"       ptdrv claim [-w]            claim (and wait for SIGTERM with -w)\n"
		"       ptdrv run [opts] [-n N] -- PROG ARGS   trace PROG (N copies at once), print\n"
		"                                       what was recorded\n"
		"       ptdrv follow [opts] -p PID      trace PID until SIGTERM/SIGINT\n"
		"       ptdrv select -k KIND [-p PID]   change the running session's selection\n"
		"opts: -m step|block|count  -P continuous|wrap|stop  -b BYTES  -s SUBBUF\n"
		"      -k pid|tree|comm|all|range|min|none  -O (start off)  -q (no drain: let rings fill)\n"
		"      -D MS (sleep MS before each drain: a slow collector)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct pitrace_config cfg = { .flags = PITRACE_CFG_START_ON };
	struct pitrace_select sel = { 0 };
	const char *kind = "pid", *cmd;
	int opt, no_drain = 0, wait_flag = 0, status = 0, nr_children = 1, running = 0;
	int drain_delay_ms = 0;
	pid_t target = 0, child, children[PITRACE_MAX_PIDS];
	int go[2];
	struct timespec t0, t1;

	if (argc < 2)
		usage();
	cmd = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "m:P:b:s:k:p:n:D:Oqw")) != -1) {
		switch (opt) {
		case 'm':
			cfg.mode = !strcmp(optarg, "count") ? PITRACE_MODE_COUNT :
				   !strcmp(optarg, "block") ? PITRACE_MODE_BLOCK : PITRACE_MODE_STEP;
			break;
		case 'P':
			cfg.policy = !strcmp(optarg, "wrap") ? PITRACE_POLICY_WRAP :
				     !strcmp(optarg, "stop") ? PITRACE_POLICY_STOP :
							       PITRACE_POLICY_CONTINUOUS;
			break;
		case 'b':
			cfg.buffer_size = strtoull(optarg, NULL, 0);
			break;
		case 's':
			cfg.subbuf_size = strtoul(optarg, NULL, 0);
			break;
		case 'k':
			kind = optarg;
			break;
		case 'p':
			target = atoi(optarg);
			break;
		case 'n':
			nr_children = atoi(optarg);
			if (nr_children < 1 || nr_children > PITRACE_MAX_PIDS)
				usage();
			break;
		case 'D':
			drain_delay_ms = atoi(optarg);
			break;
		case 'O':
			cfg.flags &= ~PITRACE_CFG_START_ON;
			break;
		case 'q':
			no_drain = 1;
			break;
		case 'w':
			wait_flag = 1;
			break;
		default:
			usage();
		}
	}

	if (!strcmp(cmd, "nobody-open")) {
		if (setgid(65534) || setuid(65534))
			die("setuid");
		if (open(PITRACE_DEVICE, O_RDWR) >= 0)
			printf("opened\n");
		else
			printf("%s\n", errno == EACCES ? "EACCES" : strerror(errno));
		return 0;
	}
	open_dev();
	if (!strcmp(cmd, "version")) {
		struct pitrace_version v;

		if (ioctl(dev, PITRACE_IOC_VERSION, &v))
			die("VERSION");
		printf("abi %u.%u\n", v.major, v.minor);
		return 0;
	}
	if (!strcmp(cmd, "status")) {
		print_status("");
		return 0;
	}
	if (!strcmp(cmd, "on") || !strcmp(cmd, "off")) {
		if (ioctl(dev, !strcmp(cmd, "on") ? PITRACE_IOC_ON : PITRACE_IOC_OFF))
			die(cmd);
		return 0;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (!strcmp(cmd, "claim")) {
		claim(&cfg);
		printf("claimed pid=%d\n", getpid());
		fflush(stdout);
		while (wait_flag && !stop_flag)
			pause();
		return 0;
	}
	if (strcmp(cmd, "run") && strcmp(cmd, "follow") && strcmp(cmd, "select"))
		usage();

	if (!strcmp(cmd, "select")) {
		child = target;
		goto select;	/* the session's selection, changed from outside */
	}
	claim(&cfg);
	map_rings();
	child = target;
	if (!strcmp(cmd, "run")) {
		if (optind >= argc)
			usage();
		if (pipe(go))
			die("pipe");
		for (int i = 0; i < nr_children; i++) {
			child = fork();
			if (child < 0)
				die("fork");
			if (child == 0) {
				char c;

				close(go[1]);
				if (read(go[0], &c, 1) != 1)
					_exit(126);
				execv(argv[optind], argv + optind);
				_exit(127);
			}
			children[i] = child;
		}
		running = nr_children;
		child = children[0];
		close(go[0]);
	}
select:
	if (!strcmp(kind, "none")) {
		sel.kind = PITRACE_SEL_NONE;
	} else if (!strcmp(kind, "comm")) {
		const char *b = strrchr(argv[optind], '/');

		sel.kind = PITRACE_SEL_COMM;
		strncpy(sel.comm, b ? b + 1 : argv[optind], sizeof(sel.comm) - 1);
	} else if (!strcmp(kind, "tree")) {
		sel.kind = PITRACE_SEL_TREE;
		sel.nr_pids = 1;
		sel.pids[0] = child;
	} else if (!strcmp(kind, "all")) {
		sel.kind = PITRACE_SEL_ALL;
	} else if (!strcmp(kind, "range")) {
		sel.kind = PITRACE_SEL_RANGE;
		sel.pid_lo = sel.pid_hi = child;
	} else if (!strcmp(kind, "min")) {
		sel.kind = PITRACE_SEL_MIN;
		sel.pid_lo = child;
	} else {
		sel.kind = PITRACE_SEL_PIDS;
		sel.nr_pids = !strcmp(cmd, "run") ? nr_children : 1;
		for (unsigned i = 0; i < sel.nr_pids; i++)
			sel.pids[i] = !strcmp(cmd, "run") ? children[i] : child;
	}
	if (ioctl(dev, PITRACE_IOC_SELECT, &sel)) {
		int e = errno;

		print_status("select-failed ");
		errno = e;
		die("SELECT");
	}
	if (!strcmp(cmd, "select"))
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; !strcmp(cmd, "run") && i < nr_children; i++)
		if (write(go[1], "g", 1) != 1)
			die("write");
	for (;;) {
		struct pollfd pfd = { .fd = dev, .events = POLLIN };

		if (!strcmp(cmd, "run")) {
			int st;
			pid_t w;

			while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
				if (w == child)
					status = st;
				else if (st)
					status = st;	/* report any failing child */
				running--;
			}
			if (!running)
				break;
		}
		if (stop_flag)
			break;
		poll(&pfd, 1, 100);
		if (drain_delay_ms)	/* a collector too slow to keep up */
			usleep(drain_delay_ms * 1000);
		if (!no_drain)
			drain();
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ioctl(dev, PITRACE_IOC_FLUSH))
		die("FLUSH");
	drain();
	print_status("final ");
	if (ioctl(dev, PITRACE_IOC_RELEASE))
		die("RELEASE");
	printf("child exit %d seconds %.3f\n", status, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	report();
	return 0;
}
