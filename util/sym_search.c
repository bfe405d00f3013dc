// SPDX-License-Identifier: GPL-2.0
/* Where modules' files are looked for: debug directories, build-id caches, debuginfod. */
#define PR_FMT "symbols"
#include <fcntl.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_LIBDEBUGINFOD
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#endif /* HAVE_LIBDEBUGINFOD */

#include "util/log.h"
#include "util/sym_search.h"

void sym_build_id_hex(const uint8_t *id, size_t len, char *out)
{
	for (size_t i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * len] = 0;
}

bool sym_buildid_cache_dir(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	/* As debuginfod's client places its cache: XDG first, then ~/.cache. */
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, size, "%s/pitrace/buildid", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, size, "%s/.cache/pitrace/buildid", home);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

static bool add_dir(struct sym_search *s, const char *dir)
{
	char *d;

	if (!dir || !dir[0])
		return true;
	/* ':' separates libdwfl's path elements; a relative one means something else there. */
	if (dir[0] != '/' || strchr(dir, ':')) {
		char abs[PATH_MAX];

		if (strchr(dir, ':') || !realpath(dir, abs)) {
			pr_dbg("debug directory %s: not usable (relative and missing, or has ':')",
			       dir);
			return true;
		}
		return add_dir(s, abs);
	}
	for (size_t i = 0; i < s->nr_dirs; i++)
		if (!strcmp(s->dirs[i], dir))
			return true;
	d = strdup(dir);
	if (!d)
		return false;
	s->dirs[s->nr_dirs++] = d;
	return true;
}

static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp);
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink, GElf_Word crc,
			  char **debuginfo_file_name);

struct sym_search *sym_search_new(const char *debug_dir, const char *buildid_dir, const char *symfs)
{
	struct sym_search *s = calloc(1, sizeof(*s));
	char cache[PATH_MAX], symfs_debug[PATH_MAX];
	size_t len;
	bool ok;

	if (!s)
		return NULL;
	s->dirs = calloc(5, sizeof(*s->dirs));
	if (!s->dirs)
		goto err;
	ok = add_dir(s, debug_dir) && add_dir(s, buildid_dir);
	if (ok && sym_buildid_cache_dir(cache, sizeof(cache)))
		ok = add_dir(s, cache);
	if (ok && symfs && symfs[0]) {
		snprintf(symfs_debug, sizeof(symfs_debug), "%s%s", symfs, SYM_DEFAULT_DEBUG_DIR);
		ok = add_dir(s, symfs_debug);
	}
	if (!ok || !add_dir(s, SYM_DEFAULT_DEBUG_DIR))
		goto err;

	/*
	 * "+": check the CRC of files found by .gnu_debuglink (when there is
	 * no build-id to compare); "": next to the file; ".debug": in its
	 * .debug/ subdirectory; then each directory, by build-id
	 * (.build-id/xx/yyyy.debug) and by the file's own directory under it.
	 */
	len = sizeof("+:.debug");
	for (size_t i = 0; i < s->nr_dirs; i++)
		len += strlen(s->dirs[i]) + 1;
	s->debuginfo_path = malloc(len);
	if (!s->debuginfo_path)
		goto err;
	strcpy(s->debuginfo_path, "+:.debug");
	for (size_t i = 0; i < s->nr_dirs; i++) {
		strcat(s->debuginfo_path, ":");
		strcat(s->debuginfo_path, s->dirs[i]);
	}
	s->callbacks.find_elf = find_elf;
	s->callbacks.find_debuginfo = find_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	s->progress = log_is_tty();
	return s;

err:
	sym_search_free(s);
	return NULL;
}

static struct sym_search *default_search;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void default_init(void)
{
	default_search = sym_search_new(NULL, NULL, NULL);
}

struct sym_search *sym_search_default(void)
{
	static struct sym_search fallback;

	pthread_once(&default_once, default_init);
	if (!default_search) {
		/* Out of memory: libdwfl's own default path, no build-id cache. */
		fallback.callbacks.find_elf = find_elf;
		fallback.callbacks.find_debuginfo = find_debuginfo;
		fallback.callbacks.section_address = dwfl_offline_section_address;
		return &fallback;
	}
	return default_search;
}

void sym_search_free(struct sym_search *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr_dirs; i++)
		free(s->dirs[i]);
	free(s->dirs);
	free(s->debuginfo_path);
	free(s);
}

#ifdef HAVE_LIBDEBUGINFOD
/*
 * libdebuginfod, as libdw loads it (dwfl_get_debuginfod_client): only when
 * a server is named, so that post does not load libcurl and its TLS
 * libraries on every start.  NULL members: not there.
 */
static struct {
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_set_user_data) *set_user_data;
	__typeof__(debuginfod_get_user_data) *get_user_data;
	__typeof__(debuginfod_get_url) *get_url;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
} dfd;
static pthread_once_t dfd_once = PTHREAD_ONCE_INIT;

static void dfd_load(void)
{
	void *so = dlopen(DEBUGINFOD_SONAME, RTLD_LAZY);

	if (!so) {
		pr_dbg("%s: %s", DEBUGINFOD_SONAME, dlerror());
		return;
	}
	dfd.set_progressfn = dlsym(so, "debuginfod_set_progressfn");
	dfd.set_user_data = dlsym(so, "debuginfod_set_user_data");
	dfd.get_user_data = dlsym(so, "debuginfod_get_user_data");
	dfd.get_url = dlsym(so, "debuginfod_get_url");
	dfd.find_debuginfo = dlsym(so, "debuginfod_find_debuginfo");
	if (!dfd.set_progressfn || !dfd.set_user_data || !dfd.get_user_data || !dfd.get_url ||
	    !dfd.find_debuginfo)
		memset(&dfd, 0, sizeof(dfd));
}

/* The session's debuginfod client, NULL without a server or the library. */
static debuginfod_client *dfd_client(Dwfl *dwfl)
{
	pthread_once(&dfd_once, dfd_load);
	return dfd.find_debuginfo ? dwfl_get_debuginfod_client(dwfl) : NULL;
}

/* The host part of the server's URL: ".../buildid/ID/debuginfo" is long. */
static int url_host_len(const char *url)
{
	const char *b = strstr(url, "/buildid/");

	return (int)(b ? b - url : (ptrdiff_t)strlen(url));
}

static void show_size(long bytes)
{
	if (bytes >= 1000000)
		fprintf(stderr, "%.1f MB", (double)bytes / 1e6);
	else
		fprintf(stderr, "%.0f kB", (double)bytes / 1e3);
}

/* debuginfod_progressfn_t: a = bytes so far, b = total (<= 0: not known yet). */
static int show_download(debuginfod_client *c, long a, long b)
{
	struct sym_found *f = dfd.get_user_data(c);
	const char *url = dfd.get_url(c), *kind;

	if (!f || !f->search->progress)
		return 0;
	fprintf(stderr, "\r%s: debuginfod: %s", log_progname, f->name);
	if (url) {
		/* .../buildid/ID/debuginfo or .../executable */
		kind = strrchr(url, '/');
		fprintf(stderr, " %s, ", kind ? kind + 1 : "file");
		show_size(a);
		if (b > 0) {
			fputs(" of ", stderr);
			show_size(b);
		}
		fprintf(stderr, " from %.*s", url_host_len(url), url);
	} else {
		fputs(": asking", stderr);
	}
	fputs("\033[K", stderr);
	f->search->shown = true;
	return 0; /* never cancel */
}
#endif /* HAVE_LIBDEBUGINFOD */

static bool debuginfod_wanted(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && urls[0];
}

void sym_search_begin(struct sym_found *f, Dwfl *dwfl)
{
#ifdef HAVE_LIBDEBUGINFOD
	debuginfod_client *c;

	/* The client is made on first use: only when there is a server to ask. */
	if (!f->search->progress || !debuginfod_wanted() || !(c = dfd_client(dwfl)))
		return;
	dfd.set_user_data(c, f);
	dfd.set_progressfn(c, show_download);
#else
	(void)f;
	(void)dwfl;
#endif /* HAVE_LIBDEBUGINFOD */
}

void sym_search_end(struct sym_found *f)
{
	if (f->search->shown)
		fputs("\r\033[K", stderr);
	f->search->shown = false;
}

Dwfl_Module *sym_search_module(struct sym_found *f, Dwfl **dwflp)
{
	Dwfl *dwfl = dwfl_begin(&f->search->callbacks);
	Dwfl_Module *mod;
	void **userdata;

	*dwflp = NULL;
	f->debug_fd = -1;
	if (!dwfl)
		return NULL;
	/*
	 * Reported at [0, 1): the resolver works in the file's own (ELF
	 * virtual) addresses and never asks libdwfl about process addresses.
	 */
	dwfl_report_begin(dwfl);
	mod = dwfl_report_module(dwfl, f->name, 0, 1);
	if (mod && f->build_id_len &&
	    dwfl_module_report_build_id(mod, f->build_id, f->build_id_len, 0))
		mod = NULL;
	if (dwfl_report_end(dwfl, NULL, NULL) || !mod) {
		dwfl_end(dwfl);
		return NULL;
	}
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = f;
	f->dwfl = dwfl;
	*dwflp = dwfl;
	return mod;
}

void sym_found_free(struct sym_found *f)
{
	if (f->debug_fd >= 0)
		close(f->debug_fd);
	f->debug_fd = -1;
	free(f->file);
	free(f->debug_file);
	free(f->alt_file);
	f->file = f->debug_file = f->alt_file = NULL;
}

/* Where an open fd's file is (debuginfod gives fds, not names). */
static char *fd_path(int fd)
{
	char link[64], p[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, p, sizeof(p) - 1);
	if (n <= 0)
		return NULL;
	p[n] = 0;
	return strdup(p);
}

/* path, open, when it is an ELF file of the recorded build (any, when none is recorded). */
static int open_same_build(struct sym_found *f, const char *path)
{
	/* never blocking: a FIFO (in a trace, under --symfs) would wait for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	const void *id;
	struct stat st;
	ssize_t len;
	Elf *elf = NULL;

	if (fd < 0) {
		pr_dbg("%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		pr_dbg("%s: not a regular file", path);
		goto err_close;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		pr_dbg("%s: not an ELF file", path);
		goto err_close;
	}
	len = dwelf_elf_gnu_build_id(elf, &id);
	if (f->build_id_len && len > 0 &&
	    ((size_t)len != f->build_id_len || memcmp(id, f->build_id, len))) {
		f->replaced = true;
		goto err_close;
	}
	elf_end(elf);
	return fd;

err_close:
	if (elf)
		elf_end(elf);
	close(fd);
	return -1;
}

/* DIR/.build-id/xx/yyyy.debug in each directory, then debuginfod: a debug file by build-id. */
static int debug_by_id(struct sym_found *f, Dwfl *dwfl, char **path)
{
	char hex[2 * 64 + 1], p[PATH_MAX];
	int fd = -1;

	*path = NULL;
	if (f->build_id_len < 2 || f->build_id_len > 64)
		return -1;
	sym_build_id_hex(f->build_id, f->build_id_len, hex);
	for (size_t i = 0; i < f->search->nr_dirs && fd < 0; i++) {
		snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s.debug", f->search->dirs[i], hex,
			 hex + 2);
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			*path = strdup(p);
	}
#ifdef HAVE_LIBDEBUGINFOD
	if (fd < 0 && debuginfod_wanted()) {
		debuginfod_client *c = dfd_client(dwfl);

		fd = c ? dfd.find_debuginfo(c, f->build_id, (int)f->build_id_len, path) : -1;
		if (fd < 0) {
			fd = -1;
			*path = NULL;
		}
	}
#else
	(void)dwfl;
#endif /* HAVE_LIBDEBUGINFOD */
	return fd;
}

/* Dwfl_Callbacks.find_elf: the traced file, else one of its build, else its debuginfo. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct sym_found *f = *userdata;
	int fd;

	*elfp = NULL;
	if (!f)
		return dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
	fd = open_same_build(f, f->path);
	if (fd >= 0) {
		*file_name = strdup(f->path);
		f->file = strdup(f->path);
		return fd;
	}
	if (!f->build_id_len)
		return -1;
	fd = dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
	if (fd >= 0) {
		f->file = *file_name ? strdup(*file_name) : fd_path(fd);
		return fd;
	}
	fd = debug_by_id(f, f->dwfl, file_name);
	if (fd >= 0) {
		f->stand_in = true;
		f->file = *file_name ? strdup(*file_name) : fd_path(fd);
	}
	return fd;
}

/* Dwfl_Callbacks.find_debuginfo: the standard search, noting what it found. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink, GElf_Word crc,
			  char **debuginfo_file_name)
{
	struct sym_found *f = *userdata;
	int fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink,
					      crc, debuginfo_file_name);
	char *name;

	if (fd < 0 || !f)
		return fd;
	name = *debuginfo_file_name ? strdup(*debuginfo_file_name) : fd_path(fd);
	if (f->searching && f->debug_fd < 0) {
		f->debug_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		f->debug_file = name;
	} else if (!f->alt_file) {
		f->alt_file = name;
	} else {
		free(name);
	}
	return fd;
}
