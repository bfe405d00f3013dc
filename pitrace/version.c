// SPDX-License-Identifier: GPL-2.0
/* pitrace --version: this build, the trace format, the driver ABI, the loaded driver. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <pitrace/abi.h>

#include "pitrace/driver_module.h"
#include "pitrace/commands.h"
#include "util/version.h"

void pitrace_print_version(FILE *f)
{
	struct pitrace_version v = { 0 };
	char mod[128], reason[1024];
	int fd;

	pt_version_print(f, "pitrace", true);
	fprintf(f, "driver ABI: %d.%d (this build; it needs a driver of ABI %d.x)\n",
		PITRACE_ABI_MAJOR, PITRACE_ABI_MINOR, PITRACE_ABI_MAJOR);
	if (!dm_loaded_version(mod, sizeof(mod))) {
		dm_missing_reason(PITRACE_DEVICE, reason, sizeof(reason));
		fprintf(f, "loaded driver: none (%s)\n", reason);
		return;
	}
	/* VERSION needs no session; opening the device needs its permissions (root). */
	fd = open(PITRACE_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, PITRACE_IOC_VERSION, &v) < 0)
		fprintf(f, "loaded driver: pitrace.ko %s, ABI unknown (%s: %s)\n", mod,
			PITRACE_DEVICE, strerror(errno));
	else
		fprintf(f, "loaded driver: pitrace.ko %s, ABI %u.%u\n", mod, v.major, v.minor);
	if (fd >= 0)
		close(fd);
}
