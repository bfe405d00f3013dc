#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make install and uninstall (staged), then the Debian packages (make deb)
# on this host, as a user gets them:
#   apt install ./pitrace_*.deb ./pitrace-dkms_*.deb ./libpitrace-dev_*.deb ./python3-pitrace_*.deb
# then the installed commands record and report a program whose count is
# known by construction, man pages and bash completion are found where man
# and bash-completion look, a program builds against libpitrace with
# pkg-config (and one that reads a trace with its reader), python3 imports
# the module and its tables are the installed post's reports (tables.py),
# post script runs, dkms has built and installed pitrace.ko for every
# kernel with headers (and rebuilds one with dkms -k), and the 6.12 guest
# boots with the module dkms built and runs tests/vm/cases/k05_modprobe.sh
# with the installed commands.  Then the packages are purged and the host is checked
# to be as it was: nothing of pitrace left in dpkg, dkms, /usr/src or
# /lib/modules.
#
# Usage: tests/pkg/install.sh  (as root; make check-pkg builds the packages
# first).  Environment: PT_DEBS (directory of the .deb files, default the
# source tree's top), PT_PROGS (build/progs), PT_PKG_VM_KERNEL (the guest,
# default the installed 6.12 kernel; "none" skips the boot).
# Output: "pkg: PASS name" etc., then "check-pkg: N passed, N failed, N
# skipped"; exit status 1 on any failure.  Safe to run again, also after
# an interrupted run (a marker file says the packages are the test's).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DEBS=$(realpath -m "${PT_DEBS:-$ROOT}")
PROGS=$(realpath -m "${PT_PROGS:-$ROOT/build/progs}")
PKGS=(pitrace pitrace-dkms libpitrace-dev python3-pitrace)
MARK=/var/tmp/pitrace-pkg-test.installed
WORK=$(mktemp -d /tmp/pitrace-pkg.XXXXXX)
APT=(apt-get -y -q -o DPkg::Lock::Timeout=600)
export DEBIAN_FRONTEND=noninteractive

npass=0 nfail=0 nskip=0
result() {	# result "PASS name" | "FAIL name: why" | "SKIP name: why"
	echo "pkg: $1"
	case $1 in
	PASS*) npass=$((npass + 1)) ;;
	FAIL*) nfail=$((nfail + 1)) ;;
	SKIP*) nskip=$((nskip + 1)) ;;
	esac
}
check() {	# check NAME WHY CMD...: PASS if CMD succeeds, else FAIL with WHY
	local name=$1 why=$2
	shift 2
	if "$@"; then result "PASS $name"; else result "FAIL $name: $why"; fi
}
finish() {
	echo "check-pkg: $npass passed, $nfail failed, $nskip skipped ($SECONDS s)"
	rm -rf "$WORK"
	[ "$nfail" = 0 ]
	exit
}

installed() {	# installed PKG: dpkg has it installed (or half: unpacked, failed)
	dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null | grep -qv '^not-installed$'
}
dkms_has_pitrace() { dkms status -m pitrace 2>/dev/null | grep -q .; }

# What must be gone after the purge (and was not there before).
leftovers() {
	local p
	for p in "${PKGS[@]}"; do installed "$p" && echo "package $p"; done
	dkms_has_pitrace && echo "dkms: $(dkms status -m pitrace 2>/dev/null | head -n 1)"
	compgen -G "/usr/src/pitrace-*" && true
	[ -e /var/lib/dkms/pitrace ] && echo /var/lib/dkms/pitrace
	find /lib/modules -path '*/updates/*' -name 'pitrace.ko*' 2>/dev/null
	grep -l '/pitrace\.ko' /lib/modules/*/modules.dep 2>/dev/null
	return 0
}

purge() {	# the packages that are installed (apt refuses names it does not know)
	local p there=()
	for p in "${PKGS[@]}"; do installed "$p" && there+=("$p"); done
	[ ${#there[@]} = 0 ] && return 0
	"${APT[@]}" purge "${there[@]}" >"$WORK/purge.log" 2>&1 || { tail -n 20 "$WORK/purge.log"; return 1; }
}

cleanup() {
	local left
	if [ -f "$MARK" ]; then
		purge || result "FAIL purge: apt-get purge failed (log above)"
		[ "$made_mok" = 1 ] && rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
		rm -f "$MARK"
		left=$(leftovers)
		if [ -n "$left" ]; then
			result "FAIL purge-clean: left behind: $(tr '\n' ' ' <<<"$left")"
		else
			result "PASS purge-clean"
		fi
	fi
	finish
}

[ "$(id -u)" = 0 ] || { result "SKIP install: needs root (apt install)"; finish; }
for tool in apt-get dpkg-deb dkms modinfo man pkg-config cc; do
	command -v $tool >/dev/null || { result "FAIL setup: $tool missing (make deps)"; finish; }
done
debs=()
for p in "${PKGS[@]}"; do
	f=$(ls "$DEBS/${p}"_*.deb 2>/dev/null)
	[ "$(wc -w <<<"$f")" = 1 ] ||
		{ result "FAIL setup: need one ${p}_*.deb in $DEBS (make deb), found: ${f:-none}"; finish; }
	debs+=("$f")
done
debver=$(dpkg-deb -f "${debs[0]}" Version)

# Packages someone else installed are not ours to replace; ours from an
# interrupted run go first.
if [ -f "$MARK" ]; then
	echo "pkg: purging the packages an interrupted run left"
	purge || { result "FAIL setup: cannot purge what an earlier run left"; finish; }
	rm -f "$MARK"
fi
for p in "${PKGS[@]}"; do
	installed "$p" && { result "SKIP install: $p is installed here; this test would replace it"; finish; }
done
dkms_has_pitrace && { result "SKIP install: dkms already has a pitrace module here"; finish; }
left=$(leftovers)
[ -n "$left" ] && { result "SKIP install: pitrace files are installed here: $(tr '\n' ' ' <<<"$left")"; finish; }
made_mok=0
[ -e /var/lib/dkms/mok.key ] || made_mok=1	# dkms makes its signing key on first use

# Kernels dkms should build for: every one whose headers are installed.
kernels=
for d in /lib/modules/*/build; do
	[ -e "$d/include/generated/utsrelease.h" ] && kernels="$kernels $(basename "$(dirname "$d")")"
done
[ -n "$kernels" ] || { result "FAIL setup: no kernel headers (make deps)"; finish; }

# make install and make uninstall, staged: every file installed, then none.
stage=$WORK/stage
make -s -C "$ROOT" install DESTDIR="$stage" PREFIX=/usr/local >"$WORK/make-install.log" 2>&1
rc=$?
want="bin/pitrace bin/post lib/libpitrace.so.0 lib/libpitrace.so lib/pkgconfig/libpitrace.pc
include/pitrace/pitrace.h include/pitrace/reader.h include/pitrace/abi.h
share/man/man1/pitrace-record.1 share/man/man4/pitrace.ko.4 share/man/man5/pitrace-trace-format.5
share/bash-completion/completions/pitrace share/bash-completion/completions/post
share/doc/pitrace/README.md"
missing=
for f in $want; do [ -e "$stage/usr/local/$f" ] || missing="$missing $f"; done
check make-install "exit $rc, missing:$missing $(tail -n 2 "$WORK/make-install.log")" \
	test $rc = 0 -a -z "$missing"
make -s -C "$ROOT" uninstall DESTDIR="$stage" PREFIX=/usr/local >"$WORK/make-uninstall.log" 2>&1
left=$(find "$stage" ! -type d)
check make-uninstall "left: $(tr '\n' ' ' <<<"$left")" test -z "$left"

echo "$debver" >"$MARK"
trap cleanup EXIT
trap 'exit 1' INT TERM
start=$SECONDS
if ! "${APT[@]}" install "${debs[@]}" >"$WORK/install.log" 2>&1; then
	tail -n 40 "$WORK/install.log"
	result "FAIL install: apt-get install failed"
	exit
fi
result "PASS install"
echo "pkg: INFO apt install took $((SECONDS - start)) s (dkms builds for$kernels)"

# The commands on PATH record and report: vm_loop runs 30004 instructions.
check on-path "pitrace and post are not /usr/bin's" \
	test "$(command -v pitrace) $(command -v post)" = "/usr/bin/pitrace /usr/bin/post"
upver=$(cat /usr/src/pitrace-"$debver"/VERSION 2>/dev/null)
check version "pitrace --version says '$(pitrace --version | head -n 1)', the package is $upver" \
	test "$(pitrace --version | head -n 1)" = "pitrace $upver"
check post-version "post --version says '$(post --version | head -n 1)'" \
	test "$(post --version | head -n 1)" = "post $upver"
(cd "$WORK" && pitrace record -o loop.data -- "$PROGS/vm_loop") >"$WORK/record.log" 2>&1
rc=$?
check record "pitrace record failed: $(tail -n 1 "$WORK/record.log")" test $rc = 0
steps=$(post -i "$WORK/loop.data" info 2>/dev/null | sed -n 's/^steps: *//p')
check record-steps "post info says $steps steps, vm_loop runs 30004" test "$steps" = 30004
total=$(post -i "$WORK/loop.data" counts --by symbol 2>/dev/null | awk '$NF == "total" { print $1 }')
check post-counts "post counts' total is $total, expected 30004" test "$total" = 30004

# Man pages where man looks, and their text.
pages=$(dpkg -L pitrace | sed -n 's,^/usr/share/man/man[0-9]/\(.*\)\.\([0-9]\)\.gz$,\2 \1,p')
missing=
while read -r sec name; do
	man -w "$sec" "$name" >/dev/null 2>&1 || missing="$missing $name($sec)"
done <<<"$pages"
check man-pages "man does not find:$missing" test -z "$missing" -a "$(wc -l <<<"$pages")" -ge 20
check man-text "man pitrace-record lacks --no-pin" \
	bash -c 'MANWIDTH=200 man pitrace-record 2>/dev/null | grep -q -- --no-pin'

# bash-completion loads the installed files on demand; they complete.
for c in pitrace post; do
	spec=$(bash -c '. /usr/share/bash-completion/bash_completion; __load_completion "$1" &&
		complete -p "$1"' x $c 2>/dev/null)
	check completion-$c "bash-completion does not load it ($spec)" test "$spec" = "complete -F _$c $c"
done
PT_BIN=/usr/bin PT_PROGS=$PROGS PT_COMPLETION_DIR=/usr/share/bash-completion/completions \
	bash "$ROOT/tests/e2e/t801_completion.sh" >"$WORK/t801.log" 2>&1
rc=$?
check completion-installed "$(tail -n 1 "$WORK/t801.log")" test $rc = 0

# libpitrace-dev: the headers and pkg-config file build a program that
# links the installed library; without the driver pitrace_on() fails with
# ENOENT.
cat >"$WORK/onoff.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <pitrace/abi.h>
#include <pitrace/format.h>
#include <pitrace/pitrace.h>
int main(void)
{
	int r = pitrace_on();
	printf("%d %s abi %d format %d\n", r, r < 0 && errno == ENOENT ? "ENOENT" : "?",
	       PITRACE_ABI_MAJOR, PT_FORMAT_VERSION);
	return pitrace_off() == r ? 0 : 1;
}
C
# shellcheck disable=SC2046 # pkg-config's words
cc -Wall -Werror $(pkg-config --cflags libpitrace) -o "$WORK/onoff" "$WORK/onoff.c" \
	$(pkg-config --libs libpitrace) >"$WORK/cc.log" 2>&1
rc=$?	# before the message's $(...), which sets $? again
check dev-build "cannot build against libpitrace: $(head -n 3 "$WORK/cc.log")" test $rc = 0
out=$(env -u PITRACE_DEVICE "$WORK/onoff" 2>&1)
[ -e /dev/pitrace ] && result "SKIP dev-run: /dev/pitrace exists here" ||
	check dev-run "the program said '$out'" test "${out%% abi*}" = "-1 ENOENT"
lib=$(ldd "$WORK/onoff" | awk '$1 == "libpitrace.so.0" { print $3 }')
lib=$(realpath -m "$lib")
check dev-linked "it runs with '$lib', not the package's" \
	test "$lib" = "$(dpkg -L pitrace | grep '/libpitrace\.so\.0$')"

# The reader (pitrace/reader.h): examples/reader/count_steps.c built with
# pkg-config against the package reads vm_loop's trace, every step of it.
# shellcheck disable=SC2046 # pkg-config's words
cc -Wall -Werror -o "$WORK/count_steps" "$ROOT/examples/reader/count_steps.c" \
	$(pkg-config --cflags --libs libpitrace) >"$WORK/cc-reader.log" 2>&1
rc=$?
check dev-reader-build "cannot build a reader: $(head -n 3 "$WORK/cc-reader.log")" test $rc = 0
read_steps=$("$WORK/count_steps" "$WORK/loop.data" 2>"$WORK/reader.log" | sed -n 's/^steps //p')
check dev-reader "the reader read '$read_steps' steps of 30004: $(head -n 2 "$WORK/reader.log")" \
	test "$read_steps" = 30004

# python3-pitrace: the system's python3 imports the module and counts the
# trace's steps; post script runs the same callbacks.
cat >"$WORK/steps.py" <<'PY'
n = 0
def step(s):
    global n
    n += 1
def end():
    print(n)
PY
py_steps=$(cd / && /usr/bin/python3 -c 'import sys, pitrace
n = [0]
def step(s): n[0] += 1
pitrace.open(sys.argv[1]).run(step=step)
print(n[0])' "$WORK/loop.data" 2>&1)
check python3-module "python3 read '$py_steps' steps of 30004" test "$py_steps" = 30004
script_steps=$(post -i "$WORK/loop.data" script "$WORK/steps.py" 2>&1)
check post-script "post script counted '$script_steps' steps of 30004" test "$script_steps" = 30004
# Its tables are post's reports: t.profile(), t.counts(by="symbol") and t.arcs()
# of the package's module match the package's post profile, counts --by symbol
# and arc, on vm_loop's trace and on arc_basic's (calls and arcs).
(cd "$WORK" && pitrace record -o calls.data -- "$PROGS/arc_basic") >"$WORK/record-calls.log" 2>&1
rc=$?
check record-calls "pitrace record arc_basic failed: $(tail -n 1 "$WORK/record-calls.log")" \
	test $rc = 0
(cd / && env -u PYTHONPATH -u LD_LIBRARY_PATH /usr/bin/python3 "$ROOT/tests/pkg/tables.py" \
	--post /usr/bin/post --module-dir /usr/lib/python3/dist-packages \
	"$WORK/loop.data" "$WORK/calls.data") >"$WORK/tables.log" 2>&1
rc=$?
check python3-tables "$(grep -v ', the same$' "$WORK/tables.log" | head -n 4 | tr '\n' ' ')" \
	test $rc = 0

# dkms built and installed the module for each kernel, from /usr/src.
for k in $kernels; do
	st=$(dkms status -m pitrace -v "$debver" -k "$k" 2>/dev/null)
	check "dkms-$k" "dkms status: '$st'" grep -q ': installed' <<<"$st"
	ko=$(find "/lib/modules/$k/updates/dkms" -name 'pitrace.ko*' 2>/dev/null | head -n 1)
	check "dkms-$k-module" "modinfo of '$ko': $(modinfo -F vermagic "$ko" 2>&1 | head -n 1)" \
		bash -c "modinfo -F vermagic '$ko' | grep -q '^$k ' &&
			test \"\$(modinfo -F version '$ko')\" = '$upver'"
done
# A kernel installed later is built the same way: remove one, build it with -k.
k=${kernels# }; k=${k%% *}
start=$SECONDS
if dkms remove -m pitrace -v "$debver" -k "$k" >"$WORK/dkms.log" 2>&1 &&
	dkms install -m pitrace -v "$debver" -k "$k" >>"$WORK/dkms.log" 2>&1 &&
	dkms status -m pitrace -v "$debver" -k "$k" 2>/dev/null | grep -q ': installed'; then
	result "PASS dkms-k-rebuild"
	echo "pkg: INFO dkms remove + install -k $k took $((SECONDS - start)) s"
else
	tail -n 20 "$WORK/dkms.log"
	result "FAIL dkms-k-rebuild: dkms remove/install -k $k failed"
fi

# The guest boots with the module dkms built; the installed commands load it.
guest=${PT_PKG_VM_KERNEL:-$(tr ' ' '\n' <<<"$kernels" | grep '^6\.12\.' | head -n 1)}
if [ "$guest" = none ]; then
	result "SKIP vm: PT_PKG_VM_KERNEL=none"
elif [ -z "$guest" ]; then
	result "SKIP vm: no 6.12 kernel with headers to boot (PT_PKG_VM_KERNEL names another)"
else
	PT_VM_KO_DIR=/lib/modules PT_BIN=/usr/bin PT_PROGS=$PROGS PT_VM_KERNELS=$guest \
		"$ROOT/tests/vm/run.sh" '^k05_modprobe' >"$WORK/vm.log" 2>&1
	rc=$?
	grep '^vm\[' "$WORK/vm.log" | grep -v ': INFO' | sed 's/^/pkg: /'
	grep -q "^vm\[$guest\]: module /lib/modules/$guest/updates/dkms/pitrace.ko" "$WORK/vm.log"
	check vm-dkms-module "the guest did not get dkms's module" test $? = 0
	check vm "$(tail -n 1 "$WORK/vm.log")" test $rc = 0
fi
exit
