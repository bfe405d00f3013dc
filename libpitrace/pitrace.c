// SPDX-License-Identifier: GPL-2.0
/* libpitrace: pitrace_on() and pitrace_off() for programs that bracket their traced region. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <pitrace/abi.h>
#include <pitrace/pitrace.h>

/* Opened on first use and kept: the region's edges should cost one ioctl each. */
static int pitrace_fd = -1;

static int pitrace_ioctl(unsigned long request)
{
	int fd = __atomic_load_n(&pitrace_fd, __ATOMIC_ACQUIRE);

	if (fd < 0) {
		const char *dev = getenv("PITRACE_DEVICE");
		int expected = -1;

		fd = open(dev && *dev ? dev : PITRACE_DEVICE, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return -1;
		/* Two threads racing here: one keeps its fd, the other closes its own. */
		if (!__atomic_compare_exchange_n(&pitrace_fd, &expected, fd, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			close(fd);
			fd = expected;
		}
	}
	return ioctl(fd, request) < 0 ? -1 : 0;
}

int pitrace_on(void)
{
	return pitrace_ioctl(PITRACE_IOC_ON);
}

int pitrace_off(void)
{
	return pitrace_ioctl(PITRACE_IOC_OFF);
}
