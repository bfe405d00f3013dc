// SPDX-License-Identifier: GPL-2.0
/* dlopen()s zlib after start-up and calls its zlibVersion() three times (for --on in a late library). */
#include <dlfcn.h>
#include <stdio.h>

#include "pt_spin.h"

int main(void)
{
	const char *(*version)(void);
	void *h;

	pt_spin(5000);		/* before the library exists */
	h = dlopen("libz.so.1", RTLD_NOW);
	if (!h) {
		printf("no libz: %s\n", dlerror());
		return 77;
	}
	*(void **)&version = dlsym(h, "zlibVersion");
	for (int i = 0; i < 3; i++)
		printf("zlib %s\n", version());
	dlclose(h);
	return 0;
}
