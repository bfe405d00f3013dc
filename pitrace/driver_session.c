// SPDX-License-Identifier: GPL-2.0
/* The driver's device: open, version check, claim, selection, status. */
#define PR_FMT "driver"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pitrace/driver_module.h"
#include "pitrace/driver_session.h"
#include "util/log.h"

static const char *device_path(void)
{
	const char *p = getenv("PITRACE_DEVICE");

	return p && *p ? p : PITRACE_DEVICE;
}

int ds_open(struct driver_session *ds)
{
	const char *dev = device_path();

	memset(ds, 0, sizeof(*ds));
	ds->fd = open(dev, O_RDWR | O_CLOEXEC);
	if (ds->fd < 0) {
		if (errno == ENOENT || errno == ENXIO || errno == ENODEV) {
			char reason[1024];

			dm_missing_reason(dev, reason, sizeof(reason));
			pr_err("%s", reason);
		} else if (errno == EACCES || errno == EPERM)
			pr_err("cannot open %s: %s (driver sessions need root)", dev,
			       strerror(errno));
		else
			pr_err("cannot open %s: %s", dev, strerror(errno));
		return -1;
	}
	if (ioctl(ds->fd, PITRACE_IOC_VERSION, &ds->version) < 0) {
		pr_err("cannot query the driver's ABI version: %s", strerror(errno));
		goto err_close;
	}
	if (ds->version.major != PITRACE_ABI_MAJOR) {
		pr_err("the driver speaks ABI %u.%u, this pitrace needs %u.x: "
		       "install matching versions of the driver and pitrace",
		       ds->version.major, ds->version.minor, PITRACE_ABI_MAJOR);
		goto err_close;
	}
	pr_dbg("driver ABI %u.%u", ds->version.major, ds->version.minor);
	return 0;

err_close:
	close(ds->fd);
	ds->fd = -1;
	return -1;
}

int ds_open_loading(struct driver_session *ds)
{
	const char *env = getenv("PITRACE_DEVICE");

	/* $PITRACE_DEVICE (tests) names a device of its own: nothing to load. */
	if ((!env || !*env) && access(PITRACE_DEVICE, F_OK) && errno == ENOENT &&
	    dm_load(PITRACE_DEVICE) < 0)
		return -1;
	return ds_open(ds);
}

void ds_close(struct driver_session *ds)
{
	if (ds->fd >= 0)
		close(ds->fd);
	ds->fd = -1;
}

bool ds_pid_alive(uint32_t pid)
{
	char path[64], stat[512], *rp;
	FILE *f;
	bool alive = false;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	/* "pid (comm) S ...": the state follows the last parenthesis. */
	if (fgets(stat, sizeof(stat), f)) {
		rp = strrchr(stat, ')');
		alive = rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
	}
	fclose(f);
	return alive;
}

void ds_describe_pid(uint32_t pid, char *buf, size_t size)
{
	char path[64], comm[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	if (comm[0])
		snprintf(buf, size, "pid %u (%s)", pid, comm);
	else
		snprintf(buf, size, "pid %u", pid);
}

/* Where tracefs is mounted (its current_tracer switches mmiotrace off). */
static void tracefs_dir(char *buf, size_t size)
{
	char dev[256], dir[PATH_MAX], type[64];
	FILE *f = fopen("/proc/mounts", "r");

	snprintf(buf, size, "/sys/kernel/tracing");
	if (!f)
		return;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "tracefs")) {
			snprintf(buf, size, "%s", dir);
			break;
		}
	}
	fclose(f);
}

int ds_claim(struct driver_session *ds, const struct pitrace_config *cfg)
{
	struct pitrace_status st;
	char holder[96], tracing[PATH_MAX];

	if (ioctl(ds->fd, PITRACE_IOC_CLAIM, cfg) == 0)
		return 0;
	if (errno == ENOMEM) {
		long cpus = sysconf(_SC_NPROCESSORS_CONF);

		pr_err("cannot claim the driver: %llu MiB of buffer on each of %ld CPUs is more "
		       "than half the memory available (a smaller --buffer-size)",
		       (unsigned long long)(cfg->buffer_size >> 20), cpus);
		return -1;
	}
	if (errno == EOPNOTSUPP && (cfg->flags & PITRACE_CFG_KERNEL)) {
		pr_err("the driver cannot step kernel code on this architecture (--kernel; "
		       "docs/kernel-mode.md says why)");
		errno = EOPNOTSUPP;
		return -1;
	}
	if (errno != EBUSY) {
		pr_err("cannot claim the driver: %s", strerror(errno));
		return -1;
	}
	memset(&st, 0, sizeof(st));
	if (ioctl(ds->fd, PITRACE_IOC_STATUS, &st) < 0)
		st.claimed = 0;
	if (st.claimed) {
		ds_describe_pid(st.owner_pid, holder, sizeof(holder));
		pr_err("the driver is busy: a session is held by %s "
		       "(end it with 'pitrace stop')", holder);
	} else if (st.step_users & PITRACE_STEP_USER_MMIOTRACE) {
		tracefs_dir(tracing, sizeof(tracing));
		pr_err("cannot claim the step trap: mmiotrace is tracing "
		       "(echo nop > %s/current_tracer to stop it)", tracing);
	} else if (st.step_users & PITRACE_STEP_USER_KGDB) {
		pr_err("cannot claim the step trap: a debugger is connected to kgdb "
		       "(detach it first)");
	} else if (st.step_users & PITRACE_STEP_USER_DEBUGGER) {
		pr_err("cannot claim the step trap: a kernel debugger (xmon or kgdb) holds it "
		       "(xmon: echo 0 > /sys/kernel/debug/powerpc/xmon)");
	} else {
		/* A driver older than ABI 1.3, or the other user went away meanwhile. */
		pr_err("the driver is busy: another session or single-step user holds it");
	}
	errno = EBUSY;
	return -1;
}

int ds_select(struct driver_session *ds, const struct pitrace_select *sel)
{
	struct pitrace_status st;
	char task[96], tracer[96];

	if (ioctl(ds->fd, PITRACE_IOC_SELECT, sel) == 0)
		return 0;
	memset(&st, 0, sizeof(st));
	if (errno == EBUSY && ioctl(ds->fd, PITRACE_IOC_STATUS, &st) == 0 && st.conflict_tid) {
		ds_describe_pid(st.conflict_tid, task, sizeof(task));
		if (st.conflict_tracer) {
			ds_describe_pid(st.conflict_tracer, tracer, sizeof(tracer));
			pr_err("cannot trace %s: %s is single-stepping it through ptrace "
			       "and the step trap can't be shared", task, tracer);
		} else {
			pr_err("cannot trace %s: it is being single-stepped through ptrace "
			       "and the step trap can't be shared", task);
		}
	} else if (errno == ENOSPC) {
		pr_err("cannot set the process selection: it holds more threads than the driver "
		       "traces at once");
	} else {
		pr_err("cannot set the process selection: %s", strerror(errno));
	}
	return -1;
}

int ds_status(struct driver_session *ds, struct pitrace_status *st)
{
	memset(st, 0, sizeof(*st));
	if (ioctl(ds->fd, PITRACE_IOC_STATUS, st) == 0)
		return 0;
	pr_err("cannot query the driver's status: %s", strerror(errno));
	return -1;
}

int ds_cpu_status(struct driver_session *ds, uint32_t cpu, struct pitrace_cpu_status *cs)
{
	memset(cs, 0, sizeof(*cs));
	cs->cpu = cpu;
	if (ioctl(ds->fd, PITRACE_IOC_CPU_STATUS, cs) == 0)
		return 0;
	pr_err("cannot query the status of CPU %u: %s", cpu, strerror(errno));
	return -1;
}

int ds_set_on(struct driver_session *ds, bool on)
{
	if (ioctl(ds->fd, on ? PITRACE_IOC_ON : PITRACE_IOC_OFF) == 0)
		return 0;
	if (errno == ENOENT || errno == EINVAL || errno == ESRCH)
		pr_err("cannot switch tracing %s: no session (start one with 'pitrace start')",
		       on ? "on" : "off");
	else
		pr_err("cannot switch tracing %s: %s", on ? "on" : "off", strerror(errno));
	return -1;
}

/* A pid: decimal, 1..INT_MAX (pid_t), nothing else; 0 when s..end is not one. */
static uint32_t parse_pid(const char *s, const char *end)
{
	unsigned long v = 0;

	if (s == end)
		return 0;
	for (const char *p = s; p < end; p++) {
		if (!isdigit((unsigned char)*p))
			return 0;
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > INT_MAX)
			return 0;
	}
	return (uint32_t)v;
}

int sel_parse(const char *opt, const char *arg, struct pitrace_select *sel)
{
	const char *dash;

	memset(sel, 0, sizeof(*sel));
	if (!strcmp(opt, "all")) {
		sel->kind = PITRACE_SEL_ALL;
		return 0;
	}
	if (!arg || !*arg) {
		pr_err("--%s needs an argument", opt);
		return -1;
	}
	if (!strcmp(opt, "pid")) {
		sel->kind = PITRACE_SEL_PIDS;
		for (const char *p = arg;;) {
			const char *e = strchr(p, ',');

			if (!e)
				e = p + strlen(p);
			if (sel->nr_pids == PITRACE_MAX_PIDS) {
				pr_err("-p: at most %u pids", PITRACE_MAX_PIDS);
				return -1;
			}
			sel->pids[sel->nr_pids] = parse_pid(p, e);
			if (!sel->pids[sel->nr_pids]) {
				pr_err("-p: '%s' is not a list of pids (e.g. 12,40)", arg);
				return -1;
			}
			sel->nr_pids++;
			if (!*e)
				return 0;
			p = e + 1;
		}
	}
	if (!strcmp(opt, "pid-range")) {
		sel->kind = PITRACE_SEL_RANGE;
		dash = strchr(arg, '-');
		if (dash) {
			sel->pid_lo = parse_pid(arg, dash);
			sel->pid_hi = parse_pid(dash + 1, dash + strlen(dash));
		}
		if (!dash || !sel->pid_lo || !sel->pid_hi) {
			pr_err("--pid-range: '%s' is not a range A-B of pids", arg);
			return -1;
		}
		if (sel->pid_lo > sel->pid_hi) {
			pr_err("--pid-range: empty range %s (A must not exceed B)", arg);
			return -1;
		}
		return 0;
	}
	if (!strcmp(opt, "pid-min")) {
		sel->kind = PITRACE_SEL_MIN;
		sel->pid_lo = parse_pid(arg, arg + strlen(arg));
		if (!sel->pid_lo) {
			pr_err("--pid-min: '%s' is not a pid", arg);
			return -1;
		}
		return 0;
	}
	if (!strcmp(opt, "comm")) {
		sel->kind = PITRACE_SEL_COMM;
		/* The kernel keeps TASK_COMM_LEN - 1 characters of a name. */
		if (strlen(arg) >= PITRACE_COMM_LEN) {
			pr_err("--comm: '%s' is longer than a command name can be (%d characters)",
			       arg, PITRACE_COMM_LEN - 1);
			return -1;
		}
		strcpy(sel->comm, arg);
		return 0;
	}
	if (!strcmp(opt, "tree")) {
		sel->kind = PITRACE_SEL_TREE;
		sel->nr_pids = 1;
		sel->pids[0] = parse_pid(arg, arg + strlen(arg));
		if (!sel->pids[0]) {
			pr_err("--tree: '%s' is not a pid", arg);
			return -1;
		}
		return 0;
	}
	pr_err("unknown selection --%s", opt);
	return -1;
}

void sel_format(const struct pitrace_select *sel, char *buf, size_t size)
{
	size_t n;

	switch (sel->kind) {
	case PITRACE_SEL_ALL:
		snprintf(buf, size, "all processes");
		break;
	case PITRACE_SEL_PIDS:
		n = (size_t)snprintf(buf, size, "pid%s ", sel->nr_pids == 1 ? "" : "s");
		for (uint32_t i = 0; i < sel->nr_pids && i < PITRACE_MAX_PIDS && n < size; i++)
			n += (size_t)snprintf(buf + n, size - n, "%s%u", i ? "," : "", sel->pids[i]);
		break;
	case PITRACE_SEL_RANGE:
		snprintf(buf, size, "pids %u-%u", sel->pid_lo, sel->pid_hi);
		break;
	case PITRACE_SEL_MIN:
		snprintf(buf, size, "pids >= %u", sel->pid_lo);
		break;
	case PITRACE_SEL_COMM:
		snprintf(buf, size, "comm %.*s", PITRACE_COMM_LEN, sel->comm);
		break;
	case PITRACE_SEL_TREE:
		snprintf(buf, size, "tree of pid %u", sel->pids[0]);
		break;
	default:
		snprintf(buf, size, "nothing");
		break;
	}
}

bool sel_match(const struct pitrace_select *sel, uint32_t pid, const char *comm)
{
	switch (sel->kind) {
	case PITRACE_SEL_ALL:
		return true;
	case PITRACE_SEL_PIDS:
		for (uint32_t i = 0; i < sel->nr_pids && i < PITRACE_MAX_PIDS; i++)
			if (sel->pids[i] == pid)
				return true;
		return false;
	case PITRACE_SEL_RANGE:
		return pid >= sel->pid_lo && pid <= sel->pid_hi;
	case PITRACE_SEL_MIN:
		return pid >= sel->pid_lo;
	case PITRACE_SEL_COMM:
		return comm && !strncmp(comm, sel->comm, PITRACE_COMM_LEN);
	case PITRACE_SEL_TREE:
		return pid == sel->pids[0];
	default:
		return false;
	}
}

/* Write path atomically: a temporary file renamed over it. */
static int write_text_file(const char *path, const char *text)
{
	char tmp[256];
	FILE *f;
	int ret;

	if (mkdir(DS_STATE_DIR, 0700) < 0 && errno != EEXIST) {
		/* /run may be missing in a minimal system: make it too. */
		if (errno != ENOENT || (mkdir("/run", 0755) < 0 && errno != EEXIST) ||
		    (mkdir(DS_STATE_DIR, 0700) < 0 && errno != EEXIST)) {
			pr_err("cannot create %s: %s", DS_STATE_DIR, strerror(errno));
			return -1;
		}
	}
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		pr_err("cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	ret = fputs(text, f) < 0 ? -1 : 0;
	if (fclose(f) != 0)
		ret = -1;
	if (!ret && rename(tmp, path) < 0)
		ret = -1;
	if (ret) {
		pr_err("cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
	}
	return ret;
}

/* Value of "key=" in a key=value file's text, copied to buf; -1 when absent. */
static int text_value(const char *text, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, key, klen) && l[klen] == '=') {
			const char *v = l + klen + 1;
			size_t n = strcspn(v, "\n");

			snprintf(buf, size, "%.*s", (int)n, v);
			return 0;
		}
	}
	return -1;
}

static char *read_text_file(const char *path)
{
	char *buf = calloc(1, 16384);
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	n = fread(buf, 1, 16383, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

int session_state_write(const struct session_state *s)
{
	char text[8192];

	snprintf(text, sizeof(text), "collector_pid=%u\noutput=%s\nselection=%s\nmode=%s\n",
		 s->collector_pid, s->output, s->selection, s->mode);
	return write_text_file(DS_STATE_FILE, text);
}

int session_state_read(struct session_state *s)
{
	char *text = read_text_file(DS_STATE_FILE);
	char pid[32];

	memset(s, 0, sizeof(*s));
	if (!text)
		return -1;
	if (text_value(text, "collector_pid", pid, sizeof(pid)) < 0 ||
	    text_value(text, "output", s->output, sizeof(s->output)) < 0) {
		free(text);
		errno = EINVAL;
		return -1;
	}
	s->collector_pid = (uint32_t)strtoul(pid, NULL, 10);
	text_value(text, "selection", s->selection, sizeof(s->selection));
	text_value(text, "mode", s->mode, sizeof(s->mode));
	free(text);
	return 0;
}

void session_state_remove(void)
{
	unlink(DS_STATE_FILE);
}

int session_result_write(int status, const char *line)
{
	char text[8192];

	snprintf(text, sizeof(text), "status=%d\nsummary=%s\n", status, line);
	return write_text_file(DS_RESULT_FILE, text);
}

int session_result_read(int *status, char *line, size_t size)
{
	char *text = read_text_file(DS_RESULT_FILE);
	char st[32];

	if (!text)
		return -1;
	if (text_value(text, "status", st, sizeof(st)) < 0 ||
	    text_value(text, "summary", line, size) < 0) {
		free(text);
		return -1;
	}
	*status = atoi(st);
	free(text);
	return 0;
}

static const char *const mode_names[] = {
	[PITRACE_MODE_STEP] = "step",
	[PITRACE_MODE_BLOCK] = "block",
	[PITRACE_MODE_COUNT] = "count",
};

int mode_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (!strcmp(name, mode_names[i]))
			return (int)i;
	return -1;
}

const char *mode_name(uint32_t mode)
{
	return mode < sizeof(mode_names) / sizeof(mode_names[0]) ? mode_names[mode] : "unknown";
}

const char *policy_name(uint32_t policy)
{
	switch (policy) {
	case PITRACE_POLICY_CONTINUOUS:
		return "continuous";
	case PITRACE_POLICY_WRAP:
		return "wrap";
	case PITRACE_POLICY_STOP:
		return "stop-when-full";
	default:
		return "unknown";
	}
}
