// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim: time() always answers the same second, so that a program
 * seeding from the clock (Lua's string hashes) runs the same instructions
 * every time it is recorded.  Built by tests/e2e/t122 and scripts/bench.sh.
 */
#include <time.h>

time_t time(time_t *t)
{
	if (t)
		*t = 1700000000;
	return 1700000000;
}
