// SPDX-License-Identifier: GPL-2.0
// vm_threads for arm64: the one source, built static (the guest has no libc).
// build: -pthread -static
#include "../vm_threads.c"
