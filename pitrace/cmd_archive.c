// SPDX-License-Identifier: GPL-2.0
/*
 * pitrace archive: every ELF file a trace mapped, with its separate
 * debuginfo, by build-id in one tarball next to the trace (as perf
 * archive); --unpack puts such a tarball into the build-id cache post
 * searches.  docs/archive.md.
 */
#define PR_FMT "archive"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif /* HAVE_LIBARCHIVE */

#include "util/log.h"
#include "pitrace/commands.h"
#include "util/build_id.h"
#include "util/popt.h"
#include "util/sym_elf.h"
#include "util/sym_search.h"
#include "util/symbols.h"
#include "util/trace_dir.h"
#include "util/trace_reader.h"

#define ARCHIVE_SUFFIX ".tar.zst"
#define DELETED_SUFFIX " (deleted)"
#define COPY_CHUNK (1u << 20)

struct archive_args {
	const char *output;
	const char *debug_dir;
	const char *buildid_dir;
	bool unpack;
};

/* ".build-id/xx/yyyy" (suffix ".debug" for debuginfo): the entry and cache name. */
static void build_id_name(const uint8_t *id, size_t len, const char *suffix, char *out,
			  size_t size)
{
	char hex[2 * 64 + 1];

	sym_build_id_hex(id, len < 64 ? len : 64, hex);
	snprintf(out, size, ".build-id/%.2s/%s%s", hex, hex + 2, suffix);
}

/* One file of the archive. */
struct item {
	char name[160];		  /* .build-id/xx/yyyy[.debug] */
	char *src;		  /* where it is here */
};

struct collection {
	struct item *v;
	size_t n, cap;
	size_t modules, debug, missing, no_build_id;
};

static bool add_item(struct collection *c, const char *name, const char *src)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			return true;	/* one build, mapped under two paths */
	if (c->n == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 32;
		struct item *nv = realloc(c->v, ncap * sizeof(*nv));

		if (!nv)
			return false;
		c->v = nv;
		c->cap = ncap;
	}
	snprintf(c->v[c->n].name, sizeof(c->v[c->n].name), "%s", name);
	c->v[c->n].src = strdup(src);
	if (!c->v[c->n].src)
		return false;
	c->n++;
	return true;
}

/* The files one mapped module needs: itself, its debuginfo, their supplementary file. */
static bool collect_module(struct collection *c, struct sym_search *search, const char *path,
			   const uint8_t *id, size_t id_len)
{
	struct sym_module *m = sym_module_open(path, NULL, id, id_len, search);
	char name[160];
	bool ok = true;

	if (!m)
		return false;
	sym_module_load_dwarf(m);
	if (!m->build_id_len) {
		pr_warn("%s has no build-id: not archived (post finds it by path only)", path);
		c->no_build_id++;
	} else if (!m->found.file) {
		if (!m->found.replaced)
			pr_warn("%s: not found, here or by build-id: not archived", path);
		c->missing++;
	} else {
		build_id_name(m->build_id, m->build_id_len, m->found.stand_in ? ".debug" : "",
			      name, sizeof(name));
		ok = add_item(c, name, m->found.file);
		c->modules += !m->found.stand_in;
		c->debug += m->found.stand_in;
	}
	if (ok && m->build_id_len && m->found.debug_file) {
		build_id_name(m->build_id, m->build_id_len, ".debug", name, sizeof(name));
		ok = add_item(c, name, m->found.debug_file);
		c->debug++;
	}
	if (ok && m->found.alt_file) {
		uint8_t alt[64];
		size_t alt_len = sym_file_build_id(m->found.alt_file, alt, sizeof(alt));

		if (alt_len) {
			build_id_name(alt, alt_len, ".debug", name, sizeof(name));
			ok = add_item(c, name, m->found.alt_file);
			c->debug++;
		}
	}
	sym_module_free(m);
	return ok;
}

/* Every distinct (path, build-id) the trace's MMAP records name. */
static int collect(struct trace *t, struct sym_search *search, struct collection *c)
{
	const struct trace_task_rec *recs = trace_tasks(t);
	size_t nr = trace_nr_tasks(t);

	for (size_t i = 0; i < nr; i++) {
		const struct trace_task_rec *r = &recs[i];
		char path[PATH_MAX];
		size_t len, sl = strlen(DELETED_SUFFIX);
		bool seen = false;

		if (r->type != PT_TASK_MMAP || !r->str || sym_path_kind(r->str) != SYM_KIND_FILE)
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = recs[k].type == PT_TASK_MMAP && recs[k].str &&
			       !strcmp(recs[k].str, r->str) &&
			       recs[k].mmap.build_id_len == r->mmap.build_id_len &&
			       !memcmp(recs[k].mmap.build_id, r->mmap.build_id,
				       r->mmap.build_id_len);
		if (seen)
			continue;
		len = strlen(r->str);
		if (len > sl && !strcmp(r->str + len - sl, DELETED_SUFFIX))
			len -= sl;	/* replaced while mapped: by build-id, if anywhere */
		snprintf(path, sizeof(path), "%.*s", (int)len, r->str);
		if (!collect_module(c, search, path, r->mmap.build_id, r->mmap.build_id_len)) {
			pr_err("out of memory collecting %s's files", trace_dir(t));
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

static void free_collection(struct collection *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].src);
	free(c->v);
}

static void show_size(FILE *f, double bytes)
{
	if (bytes >= 1e6)
		fprintf(f, "%.1f MB", bytes / 1e6);
	else
		fprintf(f, "%.0f kB", bytes / 1e3);
}

/* Progress on a terminal: files and bytes so far. */
static void progress(const char *what, size_t files, size_t total, double bytes)
{
	if (!log_is_tty())
		return;
	fprintf(stderr, "\r%s: archive: %s %zu/%zu files, ", log_progname, what, files, total);
	show_size(stderr, bytes);
	fputs("\033[K", stderr);
}

static void progress_end(void)
{
	if (log_is_tty())
		fputs("\r\033[K", stderr);
}

#ifdef HAVE_LIBARCHIVE
/* One file into the archive; its size in *bytes.  0, or -1 with the reason printed. */
static int write_item(struct archive *a, const struct item *it, double *bytes, size_t nth,
		      size_t total)
{
	struct archive_entry *e;
	struct stat st;
	char *buf;
	ssize_t n;
	/* never blocking: a FIFO in the trace (as its vdso, say) would wait for a writer */
	int fd = open(it->src, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), ret = -1;

	if (fd < 0 || fstat(fd, &st) < 0) {
		pr_err("%s: %s", it->src, strerror(errno));
		goto err_close;
	}
	if (!S_ISREG(st.st_mode) || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		pr_err("%s: not a regular file", it->src);
		goto err_close;
	}
	buf = malloc(COPY_CHUNK);
	e = archive_entry_new();
	if (!buf || !e) {
		pr_err("out of memory");
		goto err_free;
	}
	archive_entry_set_pathname(e, it->name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, st.st_mode & 0755);
	archive_entry_set_size(e, st.st_size);
	archive_entry_set_mtime(e, st.st_mtime, 0);
	if (archive_write_header(a, e) != ARCHIVE_OK) {
		pr_err("%s: %s", it->name, archive_error_string(a));
		goto err_free;
	}
	while ((n = read(fd, buf, COPY_CHUNK)) > 0) {
		if (archive_write_data(a, buf, n) != n) {
			pr_err("%s: %s", it->name, archive_error_string(a));
			goto err_free;
		}
		*bytes += n;
		progress("writing", nth, total, *bytes);
	}
	if (n < 0) {
		pr_err("%s: %s", it->src, strerror(errno));
		goto err_free;
	}
	ret = 0;
err_free:
	archive_entry_free(e);
	free(buf);
err_close:
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * The archive is written beside its final name and renamed over it at the
 * end: a failure leaves an earlier archive as it was.
 */
static int write_archive(const char *out, const struct collection *c, double *bytes)
{
	char tmp[PATH_MAX];
	struct archive *a;
	int fd, ret = EXIT_RUNTIME;

	if (snprintf(tmp, sizeof(tmp), "%s.new-XXXXXX", out) >= (int)sizeof(tmp)) {
		pr_err("%s: name too long", out);
		return EXIT_RUNTIME;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		pr_err("cannot create %s: %s", tmp, strerror(errno));
		return EXIT_RUNTIME;
	}
	a = archive_write_new();
	if (!a || archive_write_add_filter_zstd(a) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_open_fd(a, fd) != ARCHIVE_OK) {
		pr_err("%s: %s", out, a ? archive_error_string(a) : "out of memory");
		goto err;
	}
	for (size_t i = 0; i < c->n; i++)
		if (write_item(a, &c->v[i], bytes, i + 1, c->n) < 0)
			goto err;
	if (archive_write_close(a) != ARCHIVE_OK) {
		pr_err("%s: %s", out, archive_error_string(a));
		goto err;
	}
	if (fchmod(fd, 0644) < 0 || fsync(fd) < 0 || rename(tmp, out) < 0) {
		pr_err("cannot write %s: %s", out, strerror(errno));
		goto err;
	}
	ret = 0;
err:
	progress_end();
	if (a)
		archive_write_free(a);
	close(fd);
	if (ret)
		unlink(tmp);
	return ret;
}
#endif /* HAVE_LIBARCHIVE */

static int archive_trace(const char *dir, const struct archive_args *o)
{
	struct collection c = { 0 };
	struct sym_search *search = NULL;
	char out[PATH_MAX], cache[PATH_MAX];
	struct trace *t;
	double bytes = 0;
	struct stat st;
	int ret = EXIT_RUNTIME;

	if (o->output) {
		snprintf(out, sizeof(out), "%s", o->output);
	} else {
		size_t len = strlen(dir);

		while (len > 1 && dir[len - 1] == '/')
			len--;
		snprintf(out, sizeof(out), "%.*s" ARCHIVE_SUFFIX, (int)len, dir);
	}
	t = trace_open(dir);
	if (!t)
		return EXIT_RUNTIME;
	search = sym_search_new(o->debug_dir, o->buildid_dir, NULL);
	if (!search) {
		pr_err("out of memory");
		goto out;
	}
	progress("looking for", 0, trace_nr_tasks(t), 0);
	ret = collect(t, search, &c);
	progress_end();
	if (ret)
		goto out;
	if (!c.n) {
		pr_err("%s mapped no file that could be found: no archive written", dir);
		ret = EXIT_RUNTIME;
		goto out;
	}
#ifdef HAVE_LIBARCHIVE
	ret = write_archive(out, &c, &bytes);
#else
	pr_err("this pitrace was built without libarchive: no archive (install "
	       "libarchive-dev and rebuild)");
	ret = EXIT_RUNTIME;
#endif /* HAVE_LIBARCHIVE */
	if (ret)
		goto out;
	printf("%s: %zu files by build-id (%zu modules, %zu debuginfo), ", out, c.n, c.modules,
	       c.debug);
	show_size(stdout, bytes);
	if (stat(out, &st) == 0) {
		fputs(", ", stdout);
		show_size(stdout, (double)st.st_size);
		fputs(" compressed", stdout);
	}
	if (!sym_buildid_cache_dir(cache, sizeof(cache)))
		snprintf(cache, sizeof(cache), "~/.cache/pitrace/buildid");
	printf("\nOn the machine that reads the trace, copy %s and %s there and run\n"
	       "  pitrace archive --unpack %s\n"
	       "(or: mkdir -p %s && tar -C %s -xf %s); post then finds them.\n",
	       dir, out, out, cache, cache, out);
	if (c.missing || c.no_build_id) {
		pr_warn("%zu mapped files are not in the archive (above)",
			c.missing + c.no_build_id);
		ret = EXIT_RUNTIME;
	}
out:
	free_collection(&c);
	sym_search_free(search);
	trace_close(t);
	return ret;
}

#ifdef HAVE_LIBARCHIVE
/* An archive's entries are build-id names only: .build-id/xx/yyyy, .build-id/xx/yyyy.debug. */
static bool build_id_entry(const char *name)
{
	const char *p = name + strlen(".build-id/");
	size_t hex;

	if (strncmp(name, ".build-id/", strlen(".build-id/")))
		return false;
	if (strspn(p, "0123456789abcdef") != 2 || p[2] != '/')
		return false;
	p += 3;
	hex = strspn(p, "0123456789abcdef");
	return hex >= 2 && (!p[hex] || !strcmp(p + hex, ".debug"));
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/*
 * A file --unpack cannot take, said in pitrace's words rather than
 * libarchive's ("Error reading 'x'"): 0 when it is a file to try.
 */
static int unpack_refuse(const char *file)
{
	struct stat st;
	int fd;

	if (stat(file, &st) < 0) {
		pr_err("archive: %s: %s", file, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return 0;
	fd = open(file, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && td_is_trace_at(fd))
		pr_err("archive: %s is a trace, not an archive: 'pitrace archive %s' writes "
		       "%s" ARCHIVE_SUFFIX ", which --unpack takes", file, file, file);
	else
		pr_err("archive: %s is a directory, not an archive (a FILE" ARCHIVE_SUFFIX
		       " that 'pitrace archive' wrote)", file);
	if (fd >= 0)
		close(fd);
	return -1;
}

static int unpack_one(const char *file, const char *dest, size_t *files, double *bytes)
{
	struct archive *a = archive_read_new(), *disk = archive_write_disk_new();
	struct archive_entry *e;
	int r, ret = EXIT_RUNTIME;

	if (unpack_refuse(file))
		goto out;
	if (!a || !disk) {
		pr_err("out of memory");
		goto out;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	/* Names are checked below; these keep libarchive from following anything. */
	archive_write_disk_set_options(disk, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM |
						     ARCHIVE_EXTRACT_SECURE_SYMLINKS |
						     ARCHIVE_EXTRACT_SECURE_NODOTDOT |
						     ARCHIVE_EXTRACT_SAFE_WRITES);
	if (archive_read_open_filename(a, file, 1 << 16) != ARCHIVE_OK) {
		pr_err("%s: %s", file, archive_error_string(a));
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		char path[PATH_MAX];
		const void *buf;
		size_t size;
		int64_t off;

		if (!name || archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e) ||
		    !build_id_entry(name)) {
			pr_err("%s: not a pitrace archive (entry '%s'); nothing more unpacked", file,
			       name ? name : "?");
			goto out;
		}
		if (snprintf(path, sizeof(path), "%s/%s", dest, name) >= (int)sizeof(path)) {
			pr_err("%s: name too long", dest);
			goto out;
		}
		archive_entry_set_pathname(e, path);
		if (archive_write_header(disk, e) != ARCHIVE_OK) {
			pr_err("%s: %s", path, archive_error_string(disk));
			goto out;
		}
		while ((r = archive_read_data_block(a, &buf, &size, &off)) == ARCHIVE_OK) {
			if (archive_write_data_block(disk, buf, size, off) != ARCHIVE_OK) {
				pr_err("%s: %s", path, archive_error_string(disk));
				goto out;
			}
			*bytes += size;
		}
		if (r != ARCHIVE_EOF || archive_write_finish_entry(disk) != ARCHIVE_OK) {
			pr_err("%s: %s", file, archive_error_string(r != ARCHIVE_EOF ? a : disk));
			goto out;
		}
		(*files)++;
		progress("unpacking", *files, *files, *bytes);
	}
	if (r != ARCHIVE_EOF) {
		pr_err("%s: %s", file, archive_error_string(a));
		goto out;
	}
	ret = 0;
out:
	progress_end();
	if (a)
		archive_read_free(a);
	if (disk)
		archive_write_free(disk);
	return ret;
}
#endif /* HAVE_LIBARCHIVE */

static int unpack(char **files, int nr, const struct archive_args *o)
{
	static char *dflt[] = { "pitrace.data" ARCHIVE_SUFFIX };
	char dest[PATH_MAX];
	size_t nr_files = 0;
	double bytes = 0;

	if (o->buildid_dir)
		snprintf(dest, sizeof(dest), "%s", o->buildid_dir);
	else if (!sym_buildid_cache_dir(dest, sizeof(dest))) {
		pr_err("no build-id cache: neither HOME nor XDG_CACHE_HOME is set (give "
		       "--buildid-dir)");
		return EXIT_RUNTIME;
	}
	if (!nr) {
		files = dflt;
		nr = 1;
	}
#ifdef HAVE_LIBARCHIVE
	if (make_dirs(dest) < 0) {
		pr_err("cannot create %s: %s", dest, strerror(errno));
		return EXIT_RUNTIME;
	}
	for (int i = 0; i < nr; i++)
		if (unpack_one(files[i], dest, &nr_files, &bytes))
			return EXIT_RUNTIME;
	printf("%zu files (", nr_files);
	show_size(stdout, bytes);
	printf(") unpacked into %s, where post looks for them\n", dest);
	return 0;
#else
	(void)files;
	(void)nr_files;
	(void)bytes;
	pr_err("this pitrace was built without libarchive: nothing unpacked (install "
	       "libarchive-dev and rebuild, or use tar -C %s -xf FILE)", dest);
	return EXIT_RUNTIME;
#endif /* HAVE_LIBARCHIVE */
}

int cmd_archive(int argc, char **argv, struct pitrace_opts *opts)
{
	struct archive_args o = { 0 };
	const struct popt archive_opts[] = {
		OPT_STRING('o', "output", &o.output, "FILE",
			   "the archive (default DIR" ARCHIVE_SUFFIX ", next to the trace)"),
		OPT_STRING(0, "debug-dir", &o.debug_dir, "DIR",
			   "where separate debuginfo is looked for first (then /usr/lib/debug)"),
		OPT_STRING(0, "buildid-dir", &o.buildid_dir, "DIR",
			   "a build-id cache: searched first for the trace's files; with\n"
			   "--unpack, where they go (default ~/.cache/pitrace/buildid)"),
		OPT_FLAG(0, "unpack", &o.unpack,
			 "unpack archives (default pitrace.data" ARCHIVE_SUFFIX ") into the\n"
			 "build-id cache, for post"),
		OPT_HELP("this help"),
		OPT_END
	};
	const struct popt *tables[] = { archive_opts, NULL };
	const struct popt_cmd cmd = {
		.name = "archive",
		.synopsis = "[OPTIONS] [DIR]\n"
			    "       pitrace archive --unpack [--buildid-dir DIR] [FILE...]",
		.description =
			"Collect every ELF file the trace DIR (default pitrace.data) mapped, and\n"
			"its separate debuginfo, by build-id into DIR" ARCHIVE_SUFFIX
			" (as perf archive),\n"
			"so that post can read the trace on another machine: there, unpack it\n"
			"into post's build-id cache with --unpack (or tar -C\n"
			"~/.cache/pitrace/buildid -xf DIR" ARCHIVE_SUFFIX ").",
		.epilog = "Exit status: 0; 1 when the trace cannot be read or the archive written\n"
			  "(an earlier archive is then kept), or some mapped files were not found.",
	};
	char **args;
	int nargs, ret;

	(void)opts;
	ret = popt_parse(&cmd, argc, argv, tables, &args, &nargs);
	if (ret)
		return ret == POPT_HELP ? 0 : ret;
	if (o.unpack) {
		if (o.output || o.debug_dir) {
			pr_err("archive: --unpack takes archives to unpack, not --%s (see 'pitrace "
			       "archive --help')", o.output ? "output" : "debug-dir");
			return EXIT_USAGE;
		}
		return unpack(args, nargs, &o);
	}
	if (nargs > 1) {
		pr_err("archive: unexpected argument '%s' (see 'pitrace archive --help')",
		       args[1]);
		return EXIT_USAGE;
	}
	return archive_trace(nargs ? args[0] : "pitrace.data", &o);
}
