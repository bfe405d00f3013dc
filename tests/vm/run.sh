#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Driver tests in QEMU: boot every installed Debian kernel that has headers,
# with pitrace.ko built for it, and run the guest-side case files.
#
# Usage: tests/vm/run.sh [REGEX]   (only cases whose file name matches REGEX, e.g. '^k')
# Environment: PT_BIN (default bin/), PT_PROGS (default build/progs/),
#   PT_LIB (default lib/), PT_VM_KERNELS (space-separated releases to boot,
#   default: all with headers), PT_VM_WORK (work directory, default a temp
#   dir), PT_VM_TIMEOUT (seconds per boot, default 1800), PT_VM_KEEP=1 (keep
#   the work directory and console logs), PT_VM_CASES_DIR (default
#   tests/vm/cases; tests/vm/bench.sh uses tests/vm/bench), PT_VM_ACCEL
#   (QEMU's accelerator words, default "-accel tcg,thread=single"),
#   PT_VM_KO_DIR (a modules tree such as /lib/modules: boot each release
#   with the pitrace.ko its RELEASE/modules.dep names, e.g. the one dkms
#   built and installed, instead of building the module from source),
#   PT_VM_ARCH (the guests' architecture, default the host's: x86_64 boots
#   /boot's kernels with /lib/modules' headers in qemu-system-x86_64;
#   ppc64le boots the POWER kernels scripts/deps-ppc64le.sh put in
#   PT_PPC64LE_DIR in qemu-system-ppc64 -M pseries -cpu power9, with
#   pitrace.ko, bin/, lib/ and the programs cross-built for it, cases from
#   tests/vm/ppc64le); arm64 boots the arm64 kernels scripts/deps-arm64.sh
#   put in PT_ARM64_DIR in qemu-system-aarch64 -M virt -cpu max, with
#   pitrace.ko, bin/, lib/ and the programs cross-built for it, cases from
#   tests/vm/arm64; a kernel without arm64's step hook lists gets the
#   module that refuses to load, and PT_KO_REFUSES set in the guest).
#   PT_VM_JOBS=N (boot N releases at once, default one per host CPU),
#   PT_VM_HOGS=N (run N CPU hogs on the host for the whole run, to show the
#   suite holds on a loaded host: make check-vm-loaded starts two).
#   PT_BENCH_*=VALUE (letters, digits, ., _, -): set in the guest's cases
#   too (the benchmarks' knobs, e.g. PT_BENCH_POST_ITERS).
#
# Case-file contract (tests/vm/cases/NAME.sh, run by busybox sh as root in
# the guest, in name order, each in a fresh empty directory):
#   - pitrace.ko is loaded before each case and unloaded after it (a case
#     may rmmod/insmod itself; "insmod $PT_KO" loads it again); a case
#     file with a line "# case-module: none" starts without it.  A module
#     that cannot be unloaded after a case fails that case.  The module is
#     also installed as the kernel's modules are (/lib/modules/RELEASE,
#     updates/dkms/pitrace.ko, with depmod's modules.dep), so modprobe
#     finds it.
#   - Environment: PT_BIN (pitrace, post), PT_PROGS (build/progs/*),
#     PT_LIB (libpitrace.so if built), PT_KO (the module), PT_TOOLS
#     (test tools built from tests/vm/*.c: ptdrv), PT_CASE (case name),
#     PATH includes PT_BIN and PT_TOOLS.  /dev/pitrace exists while loaded.
#   - Print one line per check: "PASS name", "FAIL name: why" or
#     "SKIP name: why" (name without spaces); "INFO text" lines are shown
#     as they are (figures); anything else is log.  A case
#     that prints no result line, or exits non-zero without a FAIL line,
#     fails.  Each case file gets PT_CASE_TIMEOUT seconds (default 240),
#     or the N of its own "# case-timeout: N" line: a hang guard only.
#   - The harness, not the case, checks the kernel log: after each boot any
#     WARNING, BUG, Oops, soft lockup, RCU stall or general protection fault
#     fails the run ("FAIL dmesg: ...").
#   - Exporting a file to the host: export_file NAME FILE (lib.inc) prints
#     "pitrace-vm: export NAME begin", FILE in base64, "pitrace-vm: export
#     NAME end" (NAME: letters, digits, ".", "_", "-").  After the boot the
#     harness decodes it to $WORK/export-RELEASE/NAME; lines inside the block
#     that are not base64 (console messages) are dropped, and the block is
#     left out of the console check (the dmesg dump at the end still has
#     every kernel message).
#   - Host-side checks: tests/vm/cases/NAME.host.sh (never copied into the
#     guest) runs on the host with bash after each boot whose cases included
#     NAME.sh, with PT_EXPORT (the export directory above), PT_RELEASE (the
#     booted kernel), PT_BIN, PT_PROGS, PT_ROOT (the source tree), in an
#     empty directory, with PT_CASE_TIMEOUT seconds (or its own "#
#     case-timeout: N"); same result-line
#     contract as a case.  For what the guest cannot hold or do (a 500 MB
#     vmlinux with debug info, binutils).  PT_HOST_BIN is where the host's
#     own pitrace and post are (PT_BIN's are the guest's: another
#     architecture's in a cross suite).
# Output: "vm[RELEASE]: PASS name" etc., then
#   "check-vm: N passed, N failed, N skipped"; exit status 1 on any failure.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=$(realpath -m "${PT_BIN:-$ROOT/bin}")
PROGS=$(realpath -m "${PT_PROGS:-$ROOT/build/progs}")
LIBDIR=$(realpath -m "${PT_LIB:-$ROOT/lib}")
HOST_BIN=$(realpath -m "${PT_HOST_BIN:-$BIN}")
PATTERN=${1:-}
TIMEOUT=${PT_VM_TIMEOUT:-1800}
# One host thread runs both vCPUs by default.  With QEMU's multi-threaded
# TCG (7.2), a vCPU translating kernel text while the other patches it
# (static keys flipping as tracepoints attach) can run the stale int3 of
# text_poke_bp: "Oops: int3" in __schedule on 6.12, and (probably the same
# race) soft lockups with one CPU no longer taking timer interrupts on 6.1,
# each seen a few times while developing, under heavy host load.
# The guest still has 2 CPUs and its tasks still interleave on them;
# single-threaded TCG was also faster on this 2-core host (2m33s against
# 2m59s for the k* cases).  tests/vm/bench.sh asks for thread=multi.
# shellcheck disable=SC2206 # split on purpose: QEMU words
ACCEL=(${PT_VM_ACCEL:--accel tcg,thread=single})
VM_ARCH=${PT_VM_ARCH:-$(uname -m)}
[ "$VM_ARCH" = aarch64 ] && VM_ARCH=arm64
PPC64LE_DIR=${PT_PPC64LE_DIR:-/var/cache/pitrace/ppc64le}
ARM64_DIR=${PT_ARM64_DIR:-/var/cache/pitrace/arm64}
# Whether the guests get pitrace.ko (built for each release).
DRIVER=1
FOREIGN_LIBDIRS=
# Per architecture: QEMU, its console, the guest's busybox, the test tools'
# compiler, where its kernels and their header sets are, the case files.
case $VM_ARCH in
x86_64)
	QEMU=(qemu-system-x86_64 -m 1G)
	CONSOLE=ttyS0 BUSYBOX=$(command -v busybox) TOOLS_CC=gcc
	DEFAULT_CASES=$ROOT/tests/vm/cases
	kernel_image() { echo "/boot/vmlinuz-$1"; }
	kernel_build() { echo "/lib/modules/$1/build"; }
	;;
ppc64le)
	# pseries: POWER9 with a hypervisor console; -nodefaults would drop it.
	QEMU=(qemu-system-ppc64 -M pseries -cpu power9 -m 1G)
	CONSOLE=hvc0 BUSYBOX=$PPC64LE_DIR/busybox TOOLS_CC=powerpc64le-linux-gnu-gcc
	DEFAULT_CASES=$ROOT/tests/vm/ppc64le
	kernel_image() { echo "$PPC64LE_DIR/$1/vmlinux"; }
	kernel_build() { echo "$PPC64LE_DIR/$1/build"; }
	RELEASES_FILE=$PPC64LE_DIR/releases
	FOREIGN_TRIPLET=powerpc64le-linux-gnu
	;;
arm64)
	# virt: a PL011 console; -cpu max has every feature TCG emulates (LSE, PAuth, BTI).
	QEMU=(qemu-system-aarch64 -M virt -cpu max -m 1G)
	CONSOLE=ttyAMA0 BUSYBOX=$ARM64_DIR/busybox TOOLS_CC=aarch64-linux-gnu-gcc
	DEFAULT_CASES=$ROOT/tests/vm/arm64
	kernel_image() { echo "$ARM64_DIR/$1/vmlinuz"; }
	kernel_build() { echo "$ARM64_DIR/$1/build"; }
	RELEASES_FILE=$ARM64_DIR/releases
	FOREIGN_TRIPLET=aarch64-linux-gnu
	;;
*)
	echo "check-vm: no VM suite for architecture $VM_ARCH (x86_64, ppc64le, arm64)" >&2
	exit 2
	;;
esac
CASES=${PT_VM_CASES_DIR:-$DEFAULT_CASES}
WORK=${PT_VM_WORK:-$(mktemp -d /tmp/pitrace-vm.XXXXXX)}
mkdir -p "$WORK"
hogs=()
cleanup() {
	[ ${#hogs[@]} = 0 ] || kill "${hogs[@]}" 2>/dev/null
	[ "${PT_VM_KEEP:-0}" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT
# Host load on request: busy loops at normal priority, as other jobs would be.
for _ in $(seq "${PT_VM_HOGS:-0}"); do
	(trap - EXIT; while :; do :; done) &
	hogs+=($!)
done
[ ${#hogs[@]} = 0 ] || echo "check-vm: ${#hogs[@]} CPU hogs on the host (pids ${hogs[*]})"

npass=0 nfail=0 nskip=0
failures=()
result() {	# result RELEASE "PASS name" | "FAIL name: why" | "SKIP name: why"
	echo "vm[$1]: $2"
	[ -n "${TALLY:-}" ] && echo "$2" >>"$TALLY"
	case $2 in
	PASS*) npass=$((npass + 1)) ;;
	FAIL*) nfail=$((nfail + 1)) failures+=("vm[$1]: $2") ;;
	SKIP*) nskip=$((nskip + 1)) ;;
	esac
}
finish() {	# the failures again last: a log's tail names them
	[ ${#failures[@]} = 0 ] || printf 'check-vm: %s\n' "${failures[@]}"
	echo "check-vm: $npass passed, $nfail failed, $nskip skipped"
	[ "$nfail" = 0 ]
	exit
}

for tool in "${QEMU[0]}" "$TOOLS_CC" cpio gzip depmod xz; do
	command -v "$tool" >/dev/null || { result host "FAIL setup: $tool missing (make deps)"; finish; }
done
[ -x "$BUSYBOX" ] || { result host "FAIL setup: no busybox for $VM_ARCH (make deps)"; finish; }
readelf -l "$BUSYBOX" 2>/dev/null | grep -q INTERP &&
	{ result host "FAIL setup: $BUSYBOX is not static (make deps installs busybox-static)"; finish; }

# Kernels to boot: images that have a matching header set.
releases=${PT_VM_KERNELS:-}
if [ -z "$releases" ]; then
	if [ -n "${RELEASES_FILE:-}" ]; then
		candidates=$(cat "$RELEASES_FILE" 2>/dev/null)
	else
		candidates=$(for k in /boot/vmlinuz-*; do echo "${k#/boot/vmlinuz-}"; done)
	fi
	for rel in $candidates; do
		[ -e "$(kernel_image "$rel")" ] &&
			[ -e "$(kernel_build "$rel")/include/generated/utsrelease.h" ] &&
			releases="$releases $rel"
	done
fi
[ -n "$releases" ] || { result host "FAIL setup: no $VM_ARCH kernel with headers (make deps)"; finish; }

# Test tools: tests/vm/*.c, static so the guest needs no libraries for them.
mkdir -p "$WORK/tools"
for src in "$ROOT"/tests/vm/*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	"$TOOLS_CC" -O2 -Wall -Wextra -static -I"$ROOT/include" -I"$ROOT" -o "$WORK/tools/$name" \
		"$src" "$ROOT/util/stepcodec.c" ||
		{ result host "FAIL setup: cannot build $src"; finish; }
done

# The shared libraries an ELF file needs, with their dynamic loader, as
# host paths (the loader is a path the guest must have too).  Native files
# ask ldd; foreign ones are walked by their DT_NEEDED entries through the
# multiarch and cross library directories.
triplet=${FOREIGN_TRIPLET:-}
[ -n "$triplet" ] && FOREIGN_LIBDIRS="/lib/$triplet /usr/lib/$triplet /usr/$triplet/lib"
elf_libs() {	# elf_libs FILE
	if [ "$VM_ARCH" = "$(uname -m)" ]; then
		ldd "$1" 2>/dev/null | grep -o '/[^ ]*'
		return
	fi
	local todo=$1 seen=" " f lib d
	readelf -l "$1" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p'
	while [ -n "$todo" ]; do
		set -- $todo
		f=$1
		shift
		todo="$*"
		for lib in $(readelf -d "$f" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
			case $seen in *" $lib "*) continue ;; esac
			seen="$seen$lib "
			for d in $FOREIGN_LIBDIRS; do
				[ -e "$d/$lib" ] || continue
				echo "$d/$lib"
				todo="$todo $d/$lib"
				break
			done
		done
	done
}

# Copy an ELF file and the shared libraries it needs into the guest tree.
copy_elf() {	# copy_elf FILE DESTDIR ROOTFS
	local lib dest
	cp -L "$1" "$2/" || return 1
	elf_libs "$1" | while read -r lib; do
		dest=$lib
		# The cross toolchain's libraries (libstdc++) live in the multiarch place in a guest.
		case $lib in /usr/"${FOREIGN_TRIPLET:-none}"/lib/*) dest=/lib/$FOREIGN_TRIPLET/${lib##*/} ;; esac
		[ -e "$3$dest" ] && continue
		mkdir -p "$3$(dirname "$dest")"
		cp -L "$lib" "$3$dest"
	done
}

# The module as modprobe finds it: RELEASE/updates/dkms/pitrace.ko (where
# dkms installs it; uncompressed, for busybox) and depmod's tables.
install_module() {	# install_module RELEASE KO ROOTFS
	local mods=$3/lib/modules/$1
	mkdir -p "$mods/updates/dkms"
	case $2 in
	*.xz) xz -dc "$2" >"$mods/updates/dkms/pitrace.ko" ;;
	*) cp "$2" "$mods/updates/dkms/pitrace.ko" ;;
	esac
	cp "$mods/updates/dkms/pitrace.ko" "$3/pt/pitrace.ko"
	echo updates/dkms/pitrace.ko >"$mods/modules.order"
	: >"$mods/modules.builtin"
	: >"$mods/modules.builtin.modinfo"
	depmod -b "$3" "$1"
}

build_initramfs() {	# build_initramfs RELEASE KO OUT
	local rfs=$WORK/rootfs-$1 f
	rm -rf "$rfs"
	mkdir -p "$rfs"/{bin,sbin,dev,proc,sys,tmp,etc,root,pt/bin,pt/progs,pt/lib,pt/tools,pt/cases}
	cp "$BUSYBOX" "$rfs/bin/busybox"
	[ "$DRIVER" = 0 ] || install_module "$1" "$2" "$rfs" || return 1
	cp "$ROOT/tests/vm/init.sh" "$rfs/init"
	chmod 755 "$rfs/init"
	echo "root:x:0:0:root:/root:/bin/sh" >"$rfs/etc/passwd"
	echo "nobody:x:65534:65534:nobody:/:/bin/sh" >>"$rfs/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$rfs/etc/group"
	for f in "$BIN/pitrace" "$BIN/post"; do
		[ -x "$f" ] && copy_elf "$f" "$rfs/pt/bin" "$rfs"
	done
	for f in "$PROGS"/*; do
		[ -f "$f" ] && [ -x "$f" ] && copy_elf "$f" "$rfs/pt/progs" "$rfs"
	done
	for f in "$LIBDIR"/*.so "$LIBDIR"/*.so.[0-9]*; do
		[ -f "$f" ] && copy_elf "$f" "$rfs/pt/lib" "$rfs"
	done
	for f in "$WORK"/tools/*; do
		[ -f "$f" ] && cp "$f" "$rfs/pt/tools/"
	done
	for f in "$CASES"/* "$ROOT"/tests/vm/cases/lib.inc; do
		[ -f "$f" ] || continue
		case $(basename "$f") in
		*.host.sh) ;;	# run on the host after the boot
		*.sh) basename "$f" | grep -qE -- "$PATTERN" && cp "$f" "$rfs/pt/cases/" ;;
		*) cp "$f" "$rfs/pt/cases/" ;;	# helpers the cases source
		esac
	done
	# The cases' knobs set on the host (PT_BENCH_*), for the guest's init to export.
	env | grep -E '^PT_BENCH_[A-Z_]+=[A-Za-z0-9._-]*$' | sed 's/^/export /' >"$rfs/pt/env"
	# A module built to refuse this kernel (driver/Makefile said why): its cases SKIP.
	grep -q 'has no arm64 step hook lists' "$WORK/driver-$1.log" 2>/dev/null &&
		echo 'export PT_KO_REFUSES="no arm64 step hook lists in this kernel"' >>"$rfs/pt/env"
	# The dynamic loader the copied programs name.
	[ "$VM_ARCH" = x86_64 ] && [ -e /lib64/ld-linux-x86-64.so.2 ] && mkdir -p "$rfs/lib64" &&
		cp -L /lib64/ld-linux-x86-64.so.2 "$rfs/lib64/"
	[ "$VM_ARCH" = ppc64le ] && mkdir -p "$rfs/lib64" &&
		ln -sf /lib/powerpc64le-linux-gnu/ld64.so.2 "$rfs/lib64/ld64.so.2"
	(cd "$rfs" && find . | cpio -o -H newc --quiet | gzip -1) >"$3"
}

# Files the cases exported (see the header): console log -> DIR/NAME.
extract_exports() {	# extract_exports CONSOLE_LOG DIR
	local name
	rm -rf "$2"
	mkdir -p "$2"
	awk -v dir="$2" '
		/^pitrace-vm: export [A-Za-z0-9._-]+ begin$/ { name = $3; f = dir "/" name ".b64"
			printf "" >f; next }
		/^pitrace-vm: export [A-Za-z0-9._-]+ end$/ {
			if (name != "") { close(f); print name }
			name = ""; next }
		name != "" && /^[A-Za-z0-9+\/=]+$/ { print >f }' "$1" |
		while read -r name; do
			base64 -d "$2/$name.b64" >"$2/$name" && rm -f "$2/$name.b64"
		done
}

# Host-side checks (see the header) of the cases this boot ran.
run_host_checks() {	# run_host_checks RELEASE
	local h name dir out rc limit
	for h in "$CASES"/*.host.sh; do
		[ -f "$h" ] || continue
		name=$(basename "$h" .host.sh)
		[ -f "$CASES/$name.sh" ] && echo "$name.sh" | grep -qE -- "$PATTERN" || continue
		dir=$WORK/host-$1-$name
		out=$dir.out
		limit=$(sed -n 's/^# case-timeout: \([0-9][0-9]*\)$/\1/p' "$h")
		rm -rf "$dir"
		mkdir -p "$dir"
		(cd "$dir" && PT_EXPORT=$WORK/export-$1 PT_RELEASE=$1 PT_BIN=$BIN PT_PROGS=$PROGS \
			PT_HOST_BIN=$HOST_BIN PT_ROOT=$ROOT PT_CASE=$name \
			timeout "${limit:-${PT_CASE_TIMEOUT:-240}}" bash "$h") \
			>"$out" 2>&1
		rc=$?
		[ -n "${PT_VM_VERBOSE:-}" ] && cat "$out"
		grep -E '^(PASS|FAIL|SKIP|INFO) ' "$out" >"$out.results"
		while read -r line; do result "$1" "$line"; done <"$out.results"
		if ! grep -q -E '^(PASS|FAIL|SKIP) ' "$out"; then
			tail -n 20 "$out"
			result "$1" "FAIL $name.host: no result line (exit $rc)"
		elif [ $rc != 0 ] && ! grep -q '^FAIL ' "$out"; then
			tail -n 20 "$out"
			result "$1" "FAIL $name.host: exit status $rc"
		fi
	done
}

# Kernel log lines that fail a boot whatever the cases said.
BAD_KERNEL_LOG='WARNING:|BUG:|Oops|general protection fault|soft lockup|hard LOCKUP|rcu_.*stall|self-detected stall|Call Trace:|Kernel panic'

# Build the module and the initramfs for RELEASE: $WORK/initrd-RELEASE.gz.
prepare_release() {	# prepare_release RELEASE
	local rel=$1 ko initrd
	ko=$WORK/driver/$rel/pitrace.ko
	if [ -n "${PT_VM_KO_DIR:-}" ]; then
		ko=$(awk -F: -v dir="$PT_VM_KO_DIR/$rel" \
			'$1 ~ /(^|\/)pitrace\.ko(\.[a-z]+)?$/ { print dir "/" $1; exit }' \
			"$PT_VM_KO_DIR/$rel/modules.dep" 2>/dev/null)
		if [ -z "$ko" ] || [ ! -f "$ko" ]; then
			result "$rel" "FAIL setup: no pitrace.ko in $PT_VM_KO_DIR/$rel/modules.dep"
			return 1
		fi
		echo "vm[$rel]: module $ko ($(modinfo -F version "$ko"))"
	elif [ "$DRIVER" = 0 ]; then
		ko=""
	# MAKEFLAGS from a calling make (O=, BIN=) would reach Kbuild, which reads O= itself.
	elif ! MAKEFLAGS= make -s -C "$ROOT/driver" KDIR="$(kernel_build "$rel")" OUT="$WORK/driver" \
		PITRACE_ARCH="$VM_ARCH" >"$WORK/driver-$rel.log" 2>&1; then
		cat "$WORK/driver-$rel.log"
		result "$rel" "FAIL build: pitrace.ko does not build"
		return 1
	fi
	initrd=$WORK/initrd-$rel.gz
	build_initramfs "$rel" "$ko" "$initrd" ||
		{ result "$rel" "FAIL setup: initramfs"; return 1; }
}

# Boot RELEASE, collect its results, run the host-side checks, read dmesg.
boot_release() {	# boot_release RELEASE
	local rel=$1 log rc attempt bad why initrd=$WORK/initrd-$rel.gz
	log=$WORK/console-$rel.log
	# no_timer_check: on a loaded host TCG can be too slow for the kernel's
	# IO-APIC timer check, which then panics at boot.  A boot that dies
	# before /init starts is retried once (and the retry is reported).
	for attempt in 1 2; do
		timeout "$TIMEOUT" "${QEMU[@]}" "${ACCEL[@]}" -smp 2 -nographic -no-reboot \
			-kernel "$(kernel_image "$rel")" -initrd "$initrd" \
			-append "console=$CONSOLE panic=-1 loglevel=4 no_timer_check rdinit=/init" \
			</dev/null >"$log" 2>&1
		rc=$?
		tr -d '\r' <"$log" >"$log.txt"
		grep -q 'pitrace-vm: kernel' "$log.txt" && break	# after the console's reset codes
		[ $attempt = 1 ] && echo "vm[$rel]: the guest died before /init; booting again:" &&
			grep -E "$BAD_KERNEL_LOG" "$log.txt" | head -n 3
	done
	extract_exports "$log.txt" "$WORK/export-$rel"
	# The console without exported files: their base64 could spell "Oops".
	sed '/^pitrace-vm: export [^ ]* begin$/,/^pitrace-vm: export [^ ]* end$/d' "$log.txt" \
		>"$log.cons"
	[ -n "${PT_VM_VERBOSE:-}" ] && cat "$log.cons"
	grep -E '^(PASS|FAIL|SKIP|INFO) ' "$log.cons" >"$WORK/results-$rel"
	while read -r line; do result "$rel" "$line"; done <"$WORK/results-$rel"
	run_host_checks "$rel"
	if ! grep -q '^pitrace-vm: done' "$log.txt"; then
		[ $rc = 124 ] && why="timed out after ${TIMEOUT}s" || why="guest stopped early (qemu exit $rc)"
		tail -n 30 "$log.txt"
		result "$rel" "FAIL boot: $why"
	fi
	bad=$(grep -E "$BAD_KERNEL_LOG" "$log.cons" | grep -v '^pitrace-vm:' | head -n 5)
	if [ -n "$bad" ]; then
		grep -E -B2 -A25 "$BAD_KERNEL_LOG" "$log.cons" | head -n 80
		result "$rel" "FAIL dmesg: $(echo "$bad" | head -n 1)"
	else
		result "$rel" "PASS dmesg-clean"
	fi
}

# Releases boot PT_VM_JOBS at a time (default: one per host CPU; TCG runs a
# guest on one host thread), each one's output shown when it is done.  The
# modules and initramfs are built first, one at a time.
jobs=${PT_VM_JOBS:-$(nproc)}
booted=() pids=()
# alive: boots not yet reaped (the CPU hogs never end)
alive() { local n=0 p; for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && n=$((n + 1)); done; echo $n; }
for rel in $releases; do
	prepare_release "$rel" || continue
	booted+=("$rel")
done
for rel in "${booted[@]}"; do
	while [ "$(alive)" -ge "$jobs" ]; do wait -n; done
	echo "vm[$rel]: booting"
	(TALLY=$WORK/tally-$rel; : >"$TALLY"; boot_release "$rel" >"$WORK/out-$rel" 2>&1
	 cat "$WORK/out-$rel") &
	pids+=($!)
done
wait "${pids[@]}" 2>/dev/null
for rel in "${booted[@]}"; do
	npass=$((npass + $(grep -c '^PASS' "$WORK/tally-$rel")))
	nfail=$((nfail + $(grep -c '^FAIL' "$WORK/tally-$rel")))
	nskip=$((nskip + $(grep -c '^SKIP' "$WORK/tally-$rel")))
	while read -r line; do failures+=("vm[$rel]: $line"); done < <(grep '^FAIL' "$WORK/tally-$rel")
done
finish
