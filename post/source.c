// SPDX-License-Identifier: GPL-2.0
/* Source files for annotations, read once and split into lines (source.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/log.h"
#include "post/source.h"

struct source_entry {
	struct source_file f;
	char *text;		  /* the file's bytes, the lines point into it */
	struct source_entry *next;
};

struct source_files {
	char *dir;
	struct source_entry *files;
};

struct source_files *source_files_new(const char *source_dir)
{
	struct source_files *sf = calloc(1, sizeof(*sf));

	if (!sf)
		return NULL;
	if (source_dir && !(sf->dir = strdup(source_dir))) {
		free(sf);
		return NULL;
	}
	return sf;
}

void source_files_free(struct source_files *sf)
{
	if (!sf)
		return;
	while (sf->files) {
		struct source_entry *next = sf->files->next;

		free((char *)sf->files->f.path);
		free((char *)sf->files->f.found);
		free(sf->files->f.lines);
		free(sf->files->text);
		free(sf->files);
		sf->files = next;
	}
	free(sf->dir);
	free(sf);
}

/* The whole file at path into *text (NUL terminated); 0, or an errno. */
static int read_all(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 65536, n = 0;
	char *buf = NULL, *bigger;
	int err = 0;

	if (!f)
		return errno;
	for (;;) {
		if (!(bigger = realloc(buf, cap + 1))) {
			err = ENOMEM;
			break;
		}
		buf = bigger;
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
	}
	if (!err && ferror(f))
		err = EIO;
	fclose(f);
	if (err) {
		free(buf);
		return err;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* Split e->text into lines (in place). */
static int split_lines(struct source_entry *e, size_t len)
{
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < len;) {
		char *nl = memchr(e->text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - e->text) : len;

		if (n == cap) {
			char **more = realloc(e->f.lines, (cap = cap ? 2 * cap : 256) * sizeof(*more));

			if (!more)
				return -1;
			e->f.lines = more;
		}
		e->f.lines[n++] = e->text + i;
		if (end > i && e->text[end - 1] == '\r')
			e->text[end - 1] = '\0';
		e->text[end] = '\0';
		i = end + 1;
	}
	e->f.nr_lines = (int)n;
	return 0;
}

/* Read the recorded path, else under the source directory by its trailing components. */
static void source_read(struct source_files *sf, struct source_entry *e, const char *module_path)
{
	char try[4096];
	size_t len;
	int err = read_all(e->f.path, &e->text, &len);
	struct stat src, bin;

	if (!err) {
		e->f.found = strdup(e->f.path);
	} else if (sf->dir) {
		for (const char *p = e->f.path; p; p = strchr(p + 1, '/')) {
			const char *rest = p + (*p == '/');

			if (!*rest)
				break;
			snprintf(try, sizeof(try), "%s/%s", sf->dir, rest);
			if (!read_all(try, &e->text, &len)) {
				e->f.found = strdup(try);
				break;
			}
		}
	}
	if (!e->f.found) {
		free(e->text);
		e->text = NULL;
		e->f.error = strerror(err);
		return;
	}
	if (split_lines(e, len) < 0) {
		e->f.error = strerror(ENOMEM);
		return;
	}
	e->f.newer = module_path && !stat(e->f.found, &src) && !stat(module_path, &bin) &&
		     src.st_mtime > bin.st_mtime;
}

const struct source_file *source_file(struct source_files *sf, const char *path,
				      const char *module_path)
{
	struct source_entry *e;

	for (e = sf->files; e; e = e->next)
		if (!strcmp(e->f.path, path))
			return &e->f;
	e = calloc(1, sizeof(*e));
	if (!e || !(e->f.path = strdup(path))) {
		free(e);
		return NULL;
	}
	source_read(sf, e, module_path);
	pr_dbg("source %s: %s", path, e->f.found ? e->f.found : e->f.error);
	e->next = sf->files;
	sf->files = e;
	return &e->f;
}

const char *source_line(const struct source_file *f, int n)
{
	if (!f || !f->lines || n < 1 || n > f->nr_lines)
		return NULL;
	return f->lines[n - 1];
}
