# SPDX-License-Identifier: GPL-2.0
# pitrace: build the commands, the driver, the tests; run demo, check, bench.
#
#   make            bin/pitrace, bin/post (and lib/libpitrace.so)
#   make ARCH=ppc64le   the same for POWER, cross-compiled (objects in build/ppc64le)
#   make ARCH=arm64     the same for arm64 (build/arm64; docs/arm64.md)
#   make deps       install what the build and tests need (apt-get, idempotent)
#   make demo       deps + build + trace examples/demo and print reports
#   make check      deps + build + every test (unit, fuzz, end-to-end, packages, VM)
#   make fuzz       fuzz post for FUZZ_TIME seconds (tests/fuzz/README.md)
#   make check-vm-loaded  the VM suite with two CPU hogs on the host
#   make driver     driver/pitrace.ko for each installed header set (or KDIR=)
#   make bench      benchmarks: figures, not pass/fail (ARCH=ppc64le, arm64: their driver)
#   make man        man pages from docs/man/*.md (pandoc)
#   make install    commands, libpitrace, man pages, completion, docs under
#                   PREFIX (/usr/local), staged in DESTDIR; make uninstall
#   make install-dkms  the driver's source and dkms.conf in /usr/src (DESTDIR)
#   make dist       pitrace-VERSION.tar.gz (with its VERSION file) in $(O)/
#   make deb        Debian packages (debian/) in this directory
#   make check-pkg  install the packages here, use them, purge them (root)
#   make DEBUG=1 ...  the same with invariants checked (DASSERT), in build/debug

.DEFAULT_GOAL := all
# ARCH names arch/ARCH: uname -m's name, but arm64 for aarch64 (as Linux and
# Debian name it); traces say uname -m's (ARCH_NAME).
HOST_ARCH := $(patsubst aarch64,arm64,$(shell uname -m))
NPROC := $(shell nproc)
ARCH ?= $(HOST_ARCH)
override ARCH := $(patsubst aarch64,arm64,$(ARCH))
ARCH_NAME_arm64 := aarch64
ARCH_NAME := $(or $(ARCH_NAME_$(ARCH)),$(ARCH))
# post reads traces of every architecture here (arch/<arch>/ decoders and
# symbol rules); the ptrace backend and the driver are ARCH's only.
ARCHES := x86_64 ppc64le arm64
CROSS_COMPILE_ppc64le := powerpc64le-linux-gnu-
CROSS_COMPILE_arm64 := aarch64-linux-gnu-
CROSS_COMPILE_x86_64 := x86_64-linux-gnu-
ifneq ($(ARCH),$(HOST_ARCH))
CROSS_COMPILE ?= $(CROSS_COMPILE_$(ARCH))
CC := $(CROSS_COMPILE)gcc
CXX := $(CROSS_COMPILE)g++
AR := $(CROSS_COMPILE)ar
O ?= build/$(ARCH)
endif
# make DEBUG=1: the invariants util/assert.h's DASSERT states are checked
# (the fuzz target always checks them); objects and commands in build/debug.
ifeq ($(DEBUG),1)
O ?= build/debug
BIN ?= $(O)/bin
LIB ?= $(O)/lib
endif
O ?= build
BIN ?= bin
LIB ?= lib
CC ?= gcc
CXX ?= g++
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -Iinclude -I. -MMD -MP
ifeq ($(DEBUG),1)
CFLAGS += -DPT_DEBUG
endif
LDLIBS_CORE := -ldw -lelf -lcapstone -lzstd -lz -lpthread -lstdc++ -lm
# Optional libraries, used when their headers are there (make deps installs
# them): libdebuginfod (post's download progress and debuginfo of missing
# files; loaded only when DEBUGINFOD_URLS is set, as libdw does), libarchive
# (pitrace archive).
# (\043 is '#': make 4.3 keeps a backslash before '#' in a function call,
# and cpp -E passes a stray '\#include' through without an error.)
have_header = $(shell printf '\043include <%s>\n' '$(1)' | $(CC) $(2) -E -x c - >/dev/null 2>&1 \
		&& echo y)
ifeq ($(call have_header,elfutils/debuginfod.h),y)
CFLAGS += -DHAVE_LIBDEBUGINFOD
LDLIBS_CORE += -ldl
endif
ifeq ($(call have_header,archive.h),y)
CFLAGS += -DHAVE_LIBARCHIVE
$(BIN)/pitrace $(O)/unit-tests: LDLIBS_CORE += -larchive
endif

# Python 3 (python3-dev) for post script and the pitrace module
# (python/): the system's, by its python3-config; without it post says so.
PYTHON_CONFIG ?= /usr/bin/python3-config
PYTHON_CFLAGS := $(shell $(PYTHON_CONFIG) --includes 2>/dev/null)
PYTHON_VERSION := $(patsubst python%,%,$(notdir $(firstword $(PYTHON_CFLAGS:-I%=%))))
ifeq ($(call have_header,Python.h,$(PYTHON_CFLAGS)),y)
HAVE_PYTHON := y
PYTHON_LIBS := $(shell $(PYTHON_CONFIG) --ldflags --embed)
PYTHON_EXT := $(shell $(PYTHON_CONFIG) --extension-suffix)
endif

CORE_SRC := $(wildcard util/*.c) arch/arch.c arch/$(ARCH)/ptrace.c \
	    $(foreach a,$(ARCHES),$(filter-out arch/$(a)/ptrace.c,$(wildcard arch/$(a)/*.c)))
CORE_OBJ := $(CORE_SRC:%.c=$(O)/%.o)
PITRACE_OBJ := $(patsubst %.c,$(O)/%.o,$(wildcard pitrace/*.c))
POST_OBJ := $(patsubst %.c,$(O)/%.o,$(wildcard post/*.c))
UNIT_OBJ := $(patsubst %.c,$(O)/%.o,$(wildcard tests/unit/*.c))
# The pitrace Python module: in post (post script) and, position-independent,
# the extension.
PY_SRCS := $(wildcard python/*.c)
PY_OBJ := $(PY_SRCS:%.c=$(O)/%.o)
PY_PIC_OBJ := $(PY_SRCS:%.c=$(O)/pic/%.o)
# The arm64 driver's A64 emulator, built for the host too: its unit tests run anywhere.
UNIT_OBJ += $(O)/arch/arm64/driver/emul.o

# Test programs: PROG_DIR/NAME.{S,c,cc} -> build/progs/NAME (x86_64's in
# tests/progs, POWER's in tests/progs/ppc64le, arm64's in tests/progs/arm64).  A line "// build: FLAGS"
# (or "# build: FLAGS" in .S) in the source adds flags, and sources
# (util/*.c) to compile and link with it.
PROG_DIR_x86_64 := tests/progs
PROG_DIR_ppc64le := tests/progs/ppc64le
PROG_DIR_arm64 := tests/progs/arm64
PROG_DIR := $(PROG_DIR_$(ARCH))
PROG_S := $(wildcard $(PROG_DIR)/*.S)
PROG_C := $(wildcard $(PROG_DIR)/*.c)
PROG_CC := $(wildcard $(PROG_DIR)/*.cc)
PROGS := $(patsubst $(PROG_DIR)/%.S,$(O)/progs/%,$(PROG_S)) \
	 $(patsubst $(PROG_DIR)/%.c,$(O)/progs/%,$(PROG_C)) \
	 $(patsubst $(PROG_DIR)/%.cc,$(O)/progs/%,$(PROG_CC)) \
	 $(O)/progs/demo
buildflags = $(shell sed -n 's,^\(//\|#\) build: ,,p' $(1))
buildsources = $(filter %.c %.cc %.S,$(call buildflags,$(1)))
# A program's dependencies, in $(O)/progs/NAME.d: every file its build
# reads, the sources its build line names and the headers they all
# include.  gcc -MM, in a pass of its own: a gcc that compiles several
# sources in one command writes only the last one's -MMD output.  The file
# replaces the old one once the program is built.  Each dependency gets an
# empty rule (-MP's for headers, ours for the named sources), so that a
# file since dropped from a line does not stop an incremental tree; a file
# a line still names but that is missing fails the build.  $(1): the
# compiler.
progdeps = $(1) -MM -MP -MT $@ $< $(call buildflags,$<) >$@.d.tmp \
	$(if $(call buildsources,$<),&& printf '%s:\n' $(call buildsources,$<) >>$@.d.tmp)

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
# The demo program too: README's "Using it" traces it (one small file).
all: $(BIN)/pitrace $(BIN)/post $(LIB)/libpitrace.so $(O)/progs/demo

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(O)/arch/arch.o: CFLAGS += -DPT_NATIVE_ARCH='"$(ARCH_NAME)"'

# bin/ and lib/ hold one architecture's build at a time: DIR/.arch says
# which, so that switching ARCH relinks instead of keeping the other's.
# A stamp that says another architecture is remade (FORCE, decided when
# the Makefile is read); one that says ARCH is up to date, so make -n and
# -q see no work where there is none.
$(foreach d,$(BIN) $(LIB),$(if $(filter $(ARCH),$(shell cat $(d)/.arch 2>/dev/null)),,$(eval $(d)/.arch: FORCE)))
%/.arch:
	@mkdir -p $(dir $@)
	@echo "$(ARCH)" >$@

$(O)/libcore.a: $(CORE_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BIN)/pitrace: $(PITRACE_OBJ) $(O)/libcore.a $(BIN)/.arch
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %/.arch,$^) $(LDLIBS_CORE)

# post script: post links the reader and the pitrace module (python/) in.
ifeq ($(HAVE_PYTHON),y)
POST_PY_OBJ := $(PY_OBJ) $(O)/libpitrace/reader.o
$(O)/post/cmd_script.o $(PY_OBJ) $(PY_PIC_OBJ): CFLAGS += -DHAVE_PYTHON $(PYTHON_CFLAGS)
endif
$(BIN)/post: $(POST_OBJ) $(POST_PY_OBJ) $(O)/libcore.a $(BIN)/.arch
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter-out %/.arch,$^) $(LDLIBS_CORE) -lncursesw -ltinfo \
		$(PYTHON_LIBS)

# import pitrace in the system's Python 3: the same module as an extension
# on libpitrace, in $(LIB)/python3 (PYTHONPATH; installed in dist-packages).
ifeq ($(HAVE_PYTHON),y)
PYTHON_MOD := $(LIB)/python3/pitrace$(PYTHON_EXT)
all: $(PYTHON_MOD)
$(PYTHON_MOD): $(PY_PIC_OBJ) $(LIB)/libpitrace.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared $(LDFLAGS) -o $@ $(PY_PIC_OBJ) -L$(LIB) -lpitrace
endif

# pitrace's modules without main(), so unit tests can link the ones they test.
$(O)/libpitrace-cmd.a: $(filter-out $(O)/pitrace/main.o,$(PITRACE_OBJ))
	rm -f $@
	$(AR) rcs $@ $^

# post's modules without main(), for the unit tests of its views.
$(O)/libpost.a: $(filter-out $(O)/post/main.o,$(POST_OBJ))
	rm -f $@
	$(AR) rcs $@ $^

$(O)/unit-tests: $(UNIT_OBJ) $(O)/libpitrace/reader.o $(O)/libpitrace-cmd.a $(O)/libpost.a \
		 $(O)/libcore.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS_CORE) -lcunit -lncursesw -ltinfo

# libpitrace: pitrace_on()/pitrace_off() for traced programs (include/pitrace/pitrace.h)
# and the trace reader (include/pitrace/reader.h: libpitrace/reader.c over the
# report session, the engine and the symbols, built position-independent in
# $(O)/pic).  The version script exports pitrace_* and ptr_* only, so the
# shared code's names never meet a program's.  The soname's number changes
# only when a program linked with it would break.
LIBPITRACE_SONAME := libpitrace.so.0
LIBPITRACE_OBJ := $(O)/pic/libpitrace/pitrace.o $(O)/pic/libpitrace/reader.o
$(O)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c $< -o $@
$(O)/pic/arch/arch.o: CFLAGS += -DPT_NATIVE_ARCH='"$(ARCH_NAME)"'
$(O)/pic/util/version.o: $(O)/version-stamp
$(O)/pic/util/version.o: CFLAGS += -DPITRACE_VERSION='"$(VERSION)"'
$(O)/libcore-pic.a: $(CORE_SRC:%.c=$(O)/pic/%.o)
	rm -f $@
	$(AR) rcs $@ $^
$(LIB)/$(LIBPITRACE_SONAME): $(LIBPITRACE_OBJ) $(O)/libcore-pic.a libpitrace/libpitrace.map \
			    $(LIB)/.arch
	$(CC) $(CFLAGS) -shared $(LDFLAGS) -Wl,-soname,$(LIBPITRACE_SONAME) \
		-Wl,--version-script,libpitrace/libpitrace.map -Wl,--no-undefined \
		-o $@ $(LIBPITRACE_OBJ) $(O)/libcore-pic.a $(LDLIBS_CORE)

$(LIB)/libpitrace.so: $(LIB)/$(LIBPITRACE_SONAME)
	ln -sf $(LIBPITRACE_SONAME) $@

$(O)/progs/%: $(PROG_DIR)/%.S
	@mkdir -p $(dir $@)
	@$(call progdeps,$(CC))
	$(CC) -nostdlib -static -g -o $@ $< $(call buildflags,$<)
	@mv $@.d.tmp $@.d

$(O)/progs/%: $(PROG_DIR)/%.c
	@mkdir -p $(dir $@)
	@$(call progdeps,$(CC))
	$(CC) -g -O0 -Wall -o $@ $< $(call buildflags,$<)
	@mv $@.d.tmp $@.d

$(O)/progs/%: $(PROG_DIR)/%.cc
	@mkdir -p $(dir $@)
	@$(call progdeps,$(CXX))
	$(CXX) -g -O0 -Wall -o $@ $< $(call buildflags,$<)
	@mv $@.d.tmp $@.d

$(O)/progs/demo: examples/demo.c
	@mkdir -p $(dir $@)
	$(CC) -g -O1 -Wall -MMD -MP -o $@ $<

progs: $(PROGS)
-include $(wildcard $(PROGS:=.d))
# A program without its dependency file (built before there were any) is built again.
$(filter-out $(patsubst %.d,%,$(wildcard $(PROGS:=.d))),$(PROGS)): FORCE

# Test programs that link libpitrace ("// build: ... -lpitrace") need it first.
$(patsubst $(PROG_DIR)/%.c,$(O)/progs/%,$(shell grep -l -- '-lpitrace' $(PROG_C) /dev/null)): \
	$(LIB)/libpitrace.so

deps:
	@scripts/deps.sh

demo: deps
	@$(MAKE) --no-print-directory all progs
	@scripts/demo.sh

# Every architecture: the host's natively, then (on x86_64) POWER's VM
# suite and arm64's suite, cross-built.
# The builds use every CPU; the suites run one after another.
check: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all progs $(O)/unit-tests $(O)/fuzz/fuzz_post
	@$(MAKE) --no-print-directory -j$(NPROC) DEBUG=1 O=$(O)/debug BIN=$(O)/debug/bin \
		LIB=$(O)/debug/lib $(O)/debug/unit-tests
	@$(MAKE) --no-print-directory check-unit check-fuzz check-e2e check-pkg check-vm
ifeq ($(HOST_ARCH),x86_64)
	@$(MAKE) --no-print-directory -j$(NPROC) ARCH=ppc64le check-vm
	@$(MAKE) --no-print-directory -j$(NPROC) ARCH=arm64 check-vm
endif

ifeq ($(DEBUG),1)
check-unit: $(O)/unit-tests
	$(O)/unit-tests
else
# The unit tests run with the invariants checked: a debug build of them, beside this one.
check-unit:
	@$(MAKE) --no-print-directory DEBUG=1 O=$(O)/debug BIN=$(O)/debug/bin LIB=$(O)/debug/lib \
		check-unit
endif

check-e2e: all progs man
	tests/run-e2e.sh

# Boots each installed kernel with headers in QEMU; VM_CASES=PATTERN picks cases.
# ARCH=ppc64le: Debian's POWER kernels in qemu-system-ppc64 (tests/vm/ppc64le).
ifeq ($(ARCH),$(HOST_ARCH))
check-vm: all progs
	PT_BIN=$(BIN) PT_PROGS=$(O)/progs PT_LIB=$(LIB) tests/vm/run.sh '$(VM_CASES)'
else
# A cross suite runs the guests' build from $(O) (bin/ stays the host's, whose
# post the host-side checks run on the guests' traces).  Without POWER's
# cross tools and kernels (make deps could not get them) it says SKIP and why.
# ARCH=arm64: Debian's arm64 kernels in qemu-system-aarch64 (tests/vm/arm64), driver and
# ptrace backend.
check-vm:
	@if [ -x scripts/deps-$(ARCH).sh ] && ! why=$$(scripts/deps-$(ARCH).sh --check); then \
		echo "vm[host]: SKIP $(ARCH)-suite: $$why (make deps)"; \
		echo "check-vm: 0 passed, 0 failed, 1 skipped"; \
	else \
		$(MAKE) --no-print-directory ARCH=$(HOST_ARCH) all && \
		$(MAKE) --no-print-directory BIN=$(O)/bin LIB=$(O)/lib all progs && \
		PT_BIN=$(O)/bin PT_PROGS=$(O)/progs PT_LIB=$(O)/lib PT_HOST_BIN=$(BIN) \
			PT_VM_ARCH=$(ARCH) tests/vm/run.sh '$(VM_CASES)'; \
	fi
endif

# The same with two CPU hogs on the host: the suite waits for progress, not time.
check-vm-loaded:
	@PT_VM_HOGS=2 $(MAKE) --no-print-directory check-vm

ifeq ($(ARCH),$(HOST_ARCH))
bench: all progs
	@scripts/bench.sh
	@scripts/bench_post.sh
else
# POWER and arm64: the driver's recorded against count-only steps/s in QEMU.
bench:
	@$(MAKE) --no-print-directory BIN=$(O)/bin LIB=$(O)/lib all progs
	@PT_BIN=$(O)/bin PT_PROGS=$(O)/progs PT_LIB=$(O)/lib PT_VM_ARCH=$(ARCH) tests/vm/bench.sh
endif

driver:
	@# Kbuild reads O= (and CFLAGS) as its own: the sub-make gets only what it needs.
	@MAKEFLAGS= $(MAKE) --no-print-directory -C driver OUT=$(abspath $(O))/driver \
		PITRACE_ARCH=$(ARCH) $(if $(KDIR),KDIR=$(KDIR))

clean:
	rm -rf $(O) $(BIN) $(LIB)/libpitrace.so $(LIB)/$(LIBPITRACE_SONAME) $(LIB)/.arch
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
# Where the system's python3 looks for modules: Debian's own under /usr,
# the local site directory of its version elsewhere.
PYTHON3DIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$\
	$(PREFIX)/lib/python$(PYTHON_VERSION)/dist-packages)
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
ifeq ($(HAVE_PYTHON),y)
	$(INSTALL) -d $(DESTDIR)$(PYTHON3DIR)
	$(INSTALL) -m 644 $(PYTHON_MOD) $(DESTDIR)$(PYTHON3DIR)/
endif

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/pitrace $(DESTDIR)$(BINDIR)/post \
		$(DESTDIR)$(LIBDIR)/$(LIBPITRACE_SONAME) $(DESTDIR)$(LIBDIR)/libpitrace.so \
		$(DESTDIR)$(PKGCONFIGDIR)/libpitrace.pc \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/pitrace/,$(notdir $(wildcard include/pitrace/*.h))) \
		$(DESTDIR)$(BASHCOMPDIR)/pitrace $(DESTDIR)$(BASHCOMPDIR)/post \
		$(if $(PYTHON_MOD),$(DESTDIR)$(PYTHON3DIR)/$(notdir $(PYTHON_MOD)))
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

-include $(CORE_OBJ:.o=.d) $(PITRACE_OBJ:.o=.d) $(POST_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) \
	$(CORE_SRC:%.c=$(O)/pic/%.d) $(LIBPITRACE_OBJ:.o=.d) $(O)/libpitrace/reader.d \
	$(PY_OBJ:.o=.d) $(PY_PIC_OBJ:.o=.d)

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
	$(filter-out -O% -g -DPT_DEBUG,$(CFLAGS)) -DPT_DEBUG
FUZZ_OBJ := $(patsubst %.c,$(FUZZ_O)/%.o,$(CORE_SRC) $(filter-out post/main.c,$(wildcard post/*.c)))

$(FUZZ_O)/arch/arch.o: CFLAGS += -DPT_NATIVE_ARCH='"$(ARCH_NAME)"'
$(FUZZ_O)/util/version.o: $(O)/version-stamp
$(FUZZ_O)/util/version.o: CFLAGS += -DPITRACE_VERSION='"$(VERSION)"'
$(FUZZ_O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_O)/fuzz_post: $(FUZZ_O)/tests/fuzz/fuzz_post.o $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS_CORE) -lncursesw -ltinfo

.PHONY: fuzz check-fuzz
fuzz: $(FUZZ_O)/fuzz_post
	O=$(O) tests/fuzz/run.sh fuzz $(FUZZ_TIME)

check-fuzz: $(FUZZ_O)/fuzz_post
	O=$(O) tests/fuzz/run.sh check $(FUZZ_SMOKE_TIME)

-include $(FUZZ_OBJ:.o=.d) $(FUZZ_O)/tests/fuzz/fuzz_post.d
