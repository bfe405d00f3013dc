// SPDX-License-Identifier: GPL-2.0
/*
 * vm_atomics built for ARMv8.1's LSE: the same threads and counters, but
 * __atomic_fetch_add is one ldaddal per increment (inline, no outline
 * helper), the form glibc's and libgcc's helpers pick on CPUs that have
 * LSE.  The mutex is still glibc's, whatever it uses.
 */
// build: -O2 -pthread -static -mno-outline-atomics -march=armv8.1-a
#include "vm_atomics.c"
