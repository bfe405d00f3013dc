/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver as a kernel module: whether one is installed for the running
 * kernel, loading it (modprobe) when a driver command finds /dev/pitrace
 * missing, what to tell the user when it cannot be, and the loaded
 * module's version (pitrace --version).
 */
#ifndef PITRACE_DRIVER_MODULE_H
#define PITRACE_DRIVER_MODULE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * /dev/pitrace is missing: load the module with `modprobe pitrace` if it is
 * installed for the running kernel and we are root, then wait for the
 * device.  Returns 0 when the device is there, else -1 with one line
 * printed saying why and how to get the driver.
 */
int dm_load(const char *dev);

/* Why dev is missing and how to get the driver, without loading anything. */
void dm_missing_reason(const char *dev, char *buf, size_t size);

/* The loaded module's version (/sys/module/pitrace/version); false if not loaded. */
bool dm_loaded_version(char *buf, size_t size);

#endif /* PITRACE_DRIVER_MODULE_H */
