/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Source files for annotations: each read once and split into lines; a
 * file that cannot be read says why.  A file moved since the build is
 * found under a source directory by its recorded path's trailing
 * components (as gdb's "directory" and perf annotate's --prefix find one).
 */
#ifndef POST_SOURCE_H
#define POST_SOURCE_H

#include <stdbool.h>

struct source_files;

/* source_dir: where to look when a recorded path does not exist (NULL: nowhere else). */
struct source_files *source_files_new(const char *source_dir);
void source_files_free(struct source_files *sf);

struct source_file {
	const char *path;	  /* as recorded (the DWARF line table's) */
	const char *found;	  /* where it was read, NULL when it could not be */
	const char *error;	  /* why not (strerror), NULL when read */
	bool newer;		  /* modified after the module it describes was */
	int nr_lines;
	char **lines;		  /* lines[0] is line 1, without the newline */
};

/*
 * The file at path (read on first use), or NULL when out of memory.
 * module_path: the binary whose lines name it, to tell a source edited
 * since the build (NULL: not checked).  Valid until source_files_free.
 */
const struct source_file *source_file(struct source_files *sf, const char *path,
				      const char *module_path);

/* Line n (from 1) of f, NULL when f was not read or has no such line. */
const char *source_line(const struct source_file *f, int n);

#endif /* POST_SOURCE_H */
