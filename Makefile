# SPDX-License-Identifier: GPL-2.0
# pitrace: build the commands, the driver, the tests; run demo, check, bench.
#
#   make            bin/pitrace, bin/post (and lib/libpitrace.so)
#   make deps       install what the build and tests need (apt-get, idempotent)
#   make demo       deps + build + trace examples/demo and print reports
#   make check      deps + build + every test (unit, fuzz, end-to-end, packages, VM)
#   make fuzz       fuzz post for FUZZ_TIME seconds (tests/fuzz/README.md)
#   make check-vm-loaded  the VM suite with two CPU hogs on the host
#   make driver     driver/pitrace.ko for each installed header set (or KDIR=)
#   make bench      benchmarks: figures, not pass/fail
#   make man        man pages from docs/man/*.md (pandoc)
#   make install    commands, libpitrace, man pages, completion, docs under
#                   PREFIX (/usr/local), staged in DESTDIR; make uninstall
#   make install-dkms  the driver's source and dkms.conf in /usr/src (DESTDIR)
#   make dist       pitrace-VERSION.tar.gz (with its VERSION file) in $(O)/
#   make deb        Debian packages (debian/) in this directory
#   make check-pkg  install the packages here, use them, purge them (root)

.DEFAULT_GOAL := all
ARCH ?= $(shell uname -m)
O ?= build
BIN ?= bin
CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -Iinclude -Iutil -Iarch -Iarch/$(ARCH) -MMD -MP
LDLIBS_CORE := -ldw -lelf -lcapstone -lzstd -lz -lpthread -lstdc++
# Optional libraries, used when their headers are there (make deps installs
# them): libdebuginfod (post's download progress and debuginfo of missing
# files; loaded only when DEBUGINFOD_URLS is set, as libdw does), libarchive
# (pitrace archive).
have_header = $(shell echo '\#include <$(1)>' | $(CC) -E -x c - >/dev/null 2>&1 && echo y)
ifeq ($(call have_header,elfutils/debuginfod.h),y)
CFLAGS += -DHAVE_LIBDEBUGINFOD
LDLIBS_CORE += -ldl
endif
ifeq ($(call have_header,archive.h),y)
CFLAGS += -DHAVE_LIBARCHIVE
$(BIN)/pitrace $(O)/unit-tests: LDLIBS_CORE += -larchive
endif

CORE_SRC := $(wildcard util/*.c) $(wildcard arch/$(ARCH)/*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(O)/%.o)
PITRACE_OBJ := $(patsubst %.c,$(O)/%.o,$(wildcard pitrace/*.c))
POST_OBJ := $(patsubst %.c,$(O)/%.o,$(wildcard post/*.c))
UNIT_OBJ := $(patsubst %.c,$(O)/%.o,$(wildcard tests/unit/*.c))

# Test programs: tests/progs/NAME.{S,c,cc} -> build/progs/NAME.  A line
# "// build: FLAGS" (or "# build: FLAGS" in .S) in the source adds flags.
PROG_S := $(wildcard tests/progs/*.S)
PROG_C := $(wildcard tests/progs/*.c)
PROG_CC := $(wildcard tests/progs/*.cc)
PROGS := $(patsubst tests/progs/%.S,$(O)/progs/%,$(PROG_S)) \
	 $(patsubst tests/progs/%.c,$(O)/progs/%,$(PROG_C)) \
	 $(patsubst tests/progs/%.cc,$(O)/progs/%,$(PROG_CC)) \
	 $(O)/progs/demo
buildflags = $(shell sed -n 's,^\(//\|#\) build: ,,p' $(1))

# The version (scripts/version.sh: VERSION file of a release tarball, else
# git describe) reaches util/version.o; the stamp rebuilds it when it changes.
VERSION := $(shell scripts/version.sh)
$(O)/version-stamp: FORCE
	@mkdir -p $(O)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' >$@
$(O)/util/version.o: $(O)/version-stamp
$(O)/util/version.o: CFLAGS += -DPITRACE_VERSION='"$(VERSION)"'
FORCE:

.PHONY: all deps demo check check-unit check-e2e check-vm check-vm-loaded bench driver clean progs man \
	install uninstall install-dkms dist deb check-pkg
all: $(BIN)/pitrace $(BIN)/post lib/libpitrace.so

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(O)/libcore.a: $(CORE_OBJ)
	$(AR) rcs $@ $^

$(BIN)/pitrace: $(PITRACE_OBJ) $(O)/libcore.a
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS_CORE)

$(BIN)/post: $(POST_OBJ) $(O)/libcore.a
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS_CORE) -lncursesw -ltinfo -lm

# pitrace's modules without main(), so unit tests can link the ones they test.
$(O)/libpitrace-cmd.a: $(filter-out $(O)/pitrace/main.o,$(PITRACE_OBJ))
	rm -f $@
	$(AR) rcs $@ $^

# post's modules without main(), for the unit tests of its views.
$(O)/libpost.a: $(filter-out $(O)/post/main.o,$(POST_OBJ))
	rm -f $@
	$(AR) rcs $@ $^
$(UNIT_OBJ): CFLAGS += -Ipost

$(O)/unit-tests: $(UNIT_OBJ) $(O)/libpitrace-cmd.a $(O)/libpost.a $(O)/libcore.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS_CORE) -lcunit -lncursesw -ltinfo -lm

# libpitrace: pitrace_on()/pitrace_off() for traced programs (include/pitrace/pitrace.h).
# The soname's number changes only when a program linked with it would break.
LIBPITRACE_SONAME := libpitrace.so.0
lib/$(LIBPITRACE_SONAME): libpitrace/pitrace.c include/pitrace/pitrace.h include/pitrace/abi.h
	@mkdir -p lib
	$(CC) $(CPPFLAGS) $(filter-out -MMD -MP,$(CFLAGS)) -fPIC -shared $(LDFLAGS) \
		-Wl,-soname,$(LIBPITRACE_SONAME) -o $@ $<

lib/libpitrace.so: lib/$(LIBPITRACE_SONAME)
	ln -sf $(LIBPITRACE_SONAME) $@

$(O)/progs/%: tests/progs/%.S
	@mkdir -p $(dir $@)
	$(CC) -nostdlib -static -g -o $@ $< $(call buildflags,$<)

$(O)/progs/%: tests/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) -g -O0 -Wall -o $@ $< $(call buildflags,$<)

$(O)/progs/%: tests/progs/%.cc
	@mkdir -p $(dir $@)
	g++ -g -O0 -Wall -o $@ $< $(call buildflags,$<)

$(O)/progs/demo: examples/demo.c
	@mkdir -p $(dir $@)
	$(CC) -g -O1 -Wall -o $@ $<

progs: $(PROGS)

# Test programs that link libpitrace ("// build: ... -lpitrace") need it first.
$(patsubst tests/progs/%.c,$(O)/progs/%,$(shell grep -l -- '-lpitrace' $(PROG_C) /dev/null)): \
	lib/libpitrace.so

deps:
	@scripts/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all progs
	@scripts/demo.sh

check: deps
	@$(MAKE) --no-print-directory all progs $(O)/unit-tests $(O)/fuzz/fuzz_post
	@$(MAKE) --no-print-directory check-unit check-fuzz check-e2e check-pkg check-vm

check-unit: $(O)/unit-tests
	$(O)/unit-tests

check-e2e: all progs man
	tests/run-e2e.sh

# Boots each installed kernel with headers in QEMU; VM_CASES=PATTERN picks cases.
check-vm: all progs
	PT_BIN=$(BIN) PT_PROGS=$(O)/progs tests/vm/run.sh '$(VM_CASES)'

# The same with two CPU hogs on the host: the suite waits for progress, not time.
check-vm-loaded: all progs
	PT_VM_HOGS=2 PT_BIN=$(BIN) PT_PROGS=$(O)/progs tests/vm/run.sh '$(VM_CASES)'

bench: all progs
	@scripts/bench.sh
	@scripts/bench_post.sh

driver:
	@# Kbuild reads O= (and CFLAGS) as its own: the sub-make gets only what it needs.
	@MAKEFLAGS= $(MAKE) --no-print-directory -C driver OUT=$(abspath $(O))/driver $(if $(KDIR),KDIR=$(KDIR))

clean:
	rm -rf $(O) $(BIN) lib/libpitrace.so lib/$(LIBPITRACE_SONAME)
	@if [ -f driver/Makefile ]; then $(MAKE) -C driver clean; fi

# ---- man pages, install, release tarball, Debian packages ----
# One markdown source per page (docs/man/, which docs/ link to); t802
# checks every page against --help.
MAN_SRC := $(wildcard docs/man/*.[1-9].md)
MAN_PAGES := $(patsubst docs/man/%.md,$(O)/man/%,$(MAN_SRC))
man: $(MAN_PAGES)
$(O)/man/%: docs/man/%.md scripts/man.sh $(wildcard docs/man/_*.md docs/*.md) $(O)/version-stamp
	scripts/man.sh $< $@ '$(VERSION)'

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/pitrace
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DKMS_VERSION ?= $(VERSION)
DKMSDIR ?= /usr/src/pitrace-$(DKMS_VERSION)
INSTALL ?= install

$(O)/libpitrace.pc: libpitrace/libpitrace.pc.in $(O)/version-stamp Makefile
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(VERSION)|' $< >$@

install: all man $(O)/libpitrace.pc
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(INCLUDEDIR)/pitrace $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DOCDIR)
	$(INSTALL) -m 755 $(BIN)/pitrace $(BIN)/post $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 644 lib/$(LIBPITRACE_SONAME) $(DESTDIR)$(LIBDIR)/
	ln -sf $(LIBPITRACE_SONAME) $(DESTDIR)$(LIBDIR)/libpitrace.so
	$(INSTALL) -m 644 $(O)/libpitrace.pc $(DESTDIR)$(PKGCONFIGDIR)/
	$(INSTALL) -m 644 include/pitrace/*.h $(DESTDIR)$(INCLUDEDIR)/pitrace/
	set -e; for p in $(MAN_PAGES); do s=$${p##*.}; \
		$(INSTALL) -d $(DESTDIR)$(MANDIR)/man$$s; $(INSTALL) -m 644 $$p $(DESTDIR)$(MANDIR)/man$$s/; done
	$(INSTALL) -m 644 completion/pitrace.bash $(DESTDIR)$(BASHCOMPDIR)/pitrace
	$(INSTALL) -m 644 completion/post.bash $(DESTDIR)$(BASHCOMPDIR)/post
	$(INSTALL) -m 644 README.md docs/*.md $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/pitrace $(DESTDIR)$(BINDIR)/post \
		$(DESTDIR)$(LIBDIR)/$(LIBPITRACE_SONAME) $(DESTDIR)$(LIBDIR)/libpitrace.so \
		$(DESTDIR)$(PKGCONFIGDIR)/libpitrace.pc \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/pitrace/,$(notdir $(wildcard include/pitrace/*.h))) \
		$(DESTDIR)$(BASHCOMPDIR)/pitrace $(DESTDIR)$(BASHCOMPDIR)/post
	set -e; for p in $(notdir $(MAN_PAGES)); do rm -f $(DESTDIR)$(MANDIR)/man$${p##*.}/$$p; done
	rm -rf $(DESTDIR)$(DOCDIR)
	-rmdir $(DESTDIR)$(INCLUDEDIR)/pitrace

# What DKMS needs to build pitrace.ko for any kernel: driver/Makefile and
# Kbuild with the sources they name, the shared headers, the version.
DKMS_FILES := $(wildcard driver/*.c driver/*.h arch/*/driver/*.[ch] include/pitrace/*.h) \
	driver/Kbuild driver/Makefile scripts/version.sh
install-dkms: $(O)/version-stamp
	set -e; for f in $(DKMS_FILES); do \
		$(INSTALL) -D -m 644 $$f $(DESTDIR)$(DKMSDIR)/$$f; done
	chmod 755 $(DESTDIR)$(DKMSDIR)/scripts/version.sh
	echo '$(VERSION)' >$(DESTDIR)$(DKMSDIR)/VERSION
	sed 's/#MODULE_VERSION#/$(DKMS_VERSION)/' driver/dkms.conf >$(DESTDIR)$(DKMSDIR)/dkms.conf

dist: $(O)/version-stamp
	scripts/dist.sh $(O) '$(VERSION)'

# The packages are built from the release tarball, unpacked in $(O)/deb.
deb: dist
	scripts/deb.sh $(O) '$(VERSION)'

# The packages installed on this host (root), used and purged again; the
# 6.12 guest boots with the module dkms built (tests/pkg/install.sh).
check-pkg: deb progs
	PT_PROGS=$(O)/progs tests/pkg/install.sh

-include $(CORE_OBJ:.o=.d) $(PITRACE_OBJ:.o=.d) $(POST_OBJ:.o=.d) $(UNIT_OBJ:.o=.d)

# ---- fuzzing: post's trace reader and reports under libFuzzer, ASan and UBSan ----
# make fuzz runs for FUZZ_TIME seconds (default 600); make check-fuzz (part of
# make check) replays every saved input (tests/fuzz/corpus, tests/fuzz/regress)
# through every report, then fuzzes for FUZZ_SMOKE_TIME seconds (default 60).
# tests/fuzz/README.md says how, and what a finding is.
FUZZ_CC ?= clang
FUZZ_O := $(O)/fuzz
FUZZ_TIME ?= 600
FUZZ_SMOKE_TIME ?= 60
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	$(filter-out -O% -g,$(CFLAGS)) -Ipost
FUZZ_OBJ := $(patsubst %.c,$(FUZZ_O)/%.o,$(CORE_SRC) $(filter-out post/main.c,$(wildcard post/*.c)))

$(FUZZ_O)/util/version.o: $(O)/version-stamp
$(FUZZ_O)/util/version.o: CFLAGS += -DPITRACE_VERSION='"$(VERSION)"'
$(FUZZ_O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_O)/fuzz_post: $(FUZZ_O)/tests/fuzz/fuzz_post.o $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS_CORE) -lncursesw -ltinfo -lm

.PHONY: fuzz check-fuzz
fuzz: $(FUZZ_O)/fuzz_post
	O=$(O) tests/fuzz/run.sh fuzz $(FUZZ_TIME)

check-fuzz: $(FUZZ_O)/fuzz_post
	O=$(O) tests/fuzz/run.sh check $(FUZZ_SMOKE_TIME)

-include $(FUZZ_OBJ:.o=.d) $(FUZZ_O)/tests/fuzz/fuzz_post.d
