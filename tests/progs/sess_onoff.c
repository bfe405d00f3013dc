// SPDX-License-Identifier: GPL-2.0
/*
 * Driver session tests for libpitrace: region_spin(1000) runs before
 * pitrace_on(), region_spin(5000) between pitrace_on() and pitrace_off(),
 * region_spin(1000) after: only the middle call, 10002 steps, is recorded.
 * Needs a session started with tracing off (pitrace start --off ...).  Bound
 * at load time (-z now): a lazy PLT lookup inside the region would add
 * hundreds of dynamic-linker steps to it.
 */
// build: -Iinclude -Llib -lpitrace -Wl,-z,now
#include <stdio.h>

#include <pitrace/pitrace.h>

#include "sess_spin.h"

SESS_SPIN(region_spin);

int main(void)
{
	region_spin(1000);
	if (pitrace_on() < 0) {
		perror("pitrace_on");
		return 1;
	}
	region_spin(5000);
	if (pitrace_off() < 0) {
		perror("pitrace_off");
		return 1;
	}
	region_spin(1000);
	return 0;
}
