// SPDX-License-Identifier: GPL-2.0
/*
 * A library loaded while a test follows the recording (post script
 * --follow): pt_spin(100), then a blocking read() on stdin until the test
 * lets it go (the follower has opened the trace before the library is
 * there), then dlopen()s zlib and calls its zlibVersion() three times.
 * Exit 77 without libz.
 */
#include <dlfcn.h>
#include <unistd.h>

#include "pt_spin.h"

static const char *volatile sink;

int main(void)
{
	const char *(*version)(void);
	char c;
	void *h;

	pt_spin(100);
	if (read(0, &c, 1) < 0)
		return 1;
	h = dlopen("libz.so.1", RTLD_NOW);
	if (!h)
		return 77;
	*(void **)&version = dlsym(h, "zlibVersion");
	for (int i = 0; i < 3; i++)
		sink = version();
	pt_spin2(100);
	return 0;
}
