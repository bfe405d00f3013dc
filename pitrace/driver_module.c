// SPDX-License-Identifier: GPL-2.0
/* Finding and loading pitrace.ko for the running kernel; its loaded version. */
#define PR_FMT "driver"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pitrace/driver_module.h"
#include "util/log.h"

#define DM_NAME "pitrace"
#define DM_SYSFS_VERSION "/sys/module/" DM_NAME "/version"
/* How long a loaded module's device node may take to appear (udev). */
#define DM_DEVICE_WAIT_MS 2000

static void kernel_release(char *buf, size_t size)
{
	struct utsname u;

	snprintf(buf, size, "%s", uname(&u) == 0 ? u.release : "(unknown)");
}

/* Whether depmod lists pitrace.ko (any compression) for this kernel release. */
static bool module_installed(const char *release)
{
	char path[PATH_MAX], line[4096];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", release);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *base;

		if (!colon)
			continue;
		*colon = 0;
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		found = !strncmp(base, DM_NAME ".ko", strlen(DM_NAME ".ko")) &&
			(base[strlen(DM_NAME ".ko")] == 0 || base[strlen(DM_NAME ".ko")] == '.');
	}
	fclose(f);
	return found;
}

void dm_missing_reason(const char *dev, char *buf, size_t size)
{
	char rel[256];

	kernel_release(rel, sizeof(rel));
	if (access("/proc/modules", F_OK))
		snprintf(buf, size, "%s not found, and kernel %s cannot load modules: the driver "
			 "needs a kernel with module support (the ptrace backend works here)",
			 dev, rel);
	else if (!module_installed(rel))
		snprintf(buf, size, "%s not found: no pitrace module for kernel %s (install the "
			 "pitrace-dkms package and linux-headers-%s, or build it: make driver, "
			 "insmod pitrace.ko)", dev, rel, rel);
	else
		snprintf(buf, size, "%s not found: the pitrace module of kernel %s is not loaded "
			 "(as root: modprobe " DM_NAME ")", dev, rel);
}

/* Run `modprobe pitrace`; its exit status, with its first error line in err. */
static int run_modprobe(char *err, size_t size)
{
	int pfd[2], status, devnull;
	ssize_t n;
	size_t len = 0;
	pid_t pid;

	err[0] = 0;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(err, size, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, size, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		execlp("modprobe", "modprobe", DM_NAME, (char *)NULL);
		/* root's PATH has sbin; a minimal environment may not */
		execl("/sbin/modprobe", "modprobe", DM_NAME, (char *)NULL);
		fprintf(stderr, "cannot run modprobe: %s\n", strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	while (len + 1 < size && (n = read(pfd[0], err + len, size - 1 - len)) > 0)
		len += (size_t)n;
	err[len] = 0;
	err[strcspn(err, "\n")] = 0;
	close(pfd[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool wait_for_device(const char *dev)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	for (int ms = 0; ms < DM_DEVICE_WAIT_MS; ms += 10) {
		if (access(dev, F_OK) == 0)
			return true;
		nanosleep(&tick, NULL);
	}
	return access(dev, F_OK) == 0;
}

int dm_load(const char *dev)
{
	char rel[256], reason[1024], err[512];
	int rc;

	kernel_release(rel, sizeof(rel));
	if (access("/proc/modules", F_OK) || !module_installed(rel) || geteuid() != 0) {
		dm_missing_reason(dev, reason, sizeof(reason));
		pr_err("%s", reason);
		return -1;
	}
	rc = run_modprobe(err, sizeof(err));
	if (rc != 0) {
		pr_err("%s not found, and 'modprobe " DM_NAME "' failed: %s", dev,
		       err[0] ? err : "no message");
		return -1;
	}
	if (!wait_for_device(dev)) {
		pr_err("modprobe " DM_NAME " loaded the module, but %s did not appear within %d ms",
		       dev, DM_DEVICE_WAIT_MS);
		return -1;
	}
	pr_info("loaded the driver for kernel %s (modprobe " DM_NAME ")", rel);
	return 0;
}

bool dm_loaded_version(char *buf, size_t size)
{
	FILE *f = fopen(DM_SYSFS_VERSION, "re");
	bool ok;

	if (!f) {
		if (access("/sys/module/" DM_NAME, F_OK))
			return false;
		/* loaded, but built without MODULE_VERSION */
		snprintf(buf, size, "(no version)");
		return true;
	}
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	else
		snprintf(buf, size, "(no version)");
	return true;
}
