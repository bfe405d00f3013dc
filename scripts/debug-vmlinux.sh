#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Cache the vmlinux with DWARF of each installed test kernel, for kernel
# source lines (post --vmlinux, --debug-dir) without installing the 5-6 GB
# linux-image-RELEASE-dbg packages: the package is downloaded, only
# ./usr/lib/debug/boot/vmlinux-RELEASE is extracted, the .deb is deleted.
#
# Usage: scripts/debug-vmlinux.sh [RELEASE...]   (default: every /boot/vmlinuz-*
#   that has headers, the kernels tests/vm/run.sh boots)
# Environment: PT_DEBUG_CACHE (default /var/cache/pitrace/debug), laid out
#   as a debug directory: boot/vmlinux-RELEASE and .build-id/xx/yyyy.debug.
# Idempotent: a release whose vmlinux and build-id link exist is skipped.
set -eu

CACHE=${PT_DEBUG_CACHE:-/var/cache/pitrace/debug}

releases="$*"
if [ -z "$releases" ]; then
	for k in /boot/vmlinuz-*; do
		[ -e "$k" ] || continue
		rel=${k#/boot/vmlinuz-}
		[ -e "/lib/modules/$rel/build/include/generated/utsrelease.h" ] &&
			releases="$releases $rel"
	done
fi

# The GNU build-id of an ELF file in hex ("" without one), via binutils.
build_id() {
	readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1
}

# DEBUG_DIR/.build-id/xx/yyyy.debug -> ../../boot/vmlinux-RELEASE, as gdb and
# post look a file up by its build-id.
link_build_id() {	# link_build_id RELEASE
	bid=$(build_id "$CACHE/boot/vmlinux-$1")
	[ -n "$bid" ] || { echo "deps: $CACHE/boot/vmlinux-$1 has no build-id" >&2; return 1; }
	dir=$CACHE/.build-id/$(echo "$bid" | cut -c1-2)
	mkdir -p "$dir"
	ln -sfn "../../boot/vmlinux-$1" "$dir/$(echo "$bid" | cut -c3-).debug"
}

have_link() {	# have_link RELEASE: the vmlinux and its build-id link are in place
	bid=$(build_id "$CACHE/boot/vmlinux-$1")
	[ -n "$bid" ] &&
		[ -e "$CACHE/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug" ]
}

for rel in $releases; do
	out=$CACHE/boot/vmlinux-$rel
	if [ -s "$out" ] && have_link "$rel"; then
		continue
	fi
	if [ "$(id -u)" != 0 ] && ! mkdir -p "$CACHE/boot" 2>/dev/null; then
		echo "deps: cannot create $CACHE (run 'make deps' as root)" >&2
		exit 1
	fi
	mkdir -p "$CACHE/boot" "$CACHE/download"
	pkg=linux-image-$rel-dbg
	start=$(date +%s)
	if [ ! -s "$out" ]; then
		echo "deps: $pkg: downloading (about 1 GB) to extract vmlinux-$rel"
		rm -f "$CACHE/download/"*.deb
		# apt-get download writes into the current directory; it needs the lists.
		(cd "$CACHE/download" && { apt-get download -qq "$pkg" 2>/dev/null ||
			{ apt-get update -qq && apt-get download -qq "$pkg"; }; }) ||
			{ echo "deps: cannot download $pkg" >&2; exit 1; }
		deb=$(ls "$CACHE/download/"*.deb)
		# --occurrence=1: tar stops reading at the first (only) match, which
		# comes early in the archive (seconds, not minutes); dpkg-deb then
		# complains of the closed pipe, which is expected and silenced.
		dpkg-deb --fsys-tarfile "$deb" 2>/dev/null |
			tar -x -O --occurrence=1 "./usr/lib/debug/boot/vmlinux-$rel" >"$out.tmp" ||
			{ rm -f "$out.tmp"; echo "deps: cannot extract vmlinux-$rel" >&2; exit 1; }
		[ -s "$out.tmp" ] ||
			{ rm -f "$out.tmp"; echo "deps: $deb has no vmlinux-$rel" >&2; exit 1; }
		mv "$out.tmp" "$out"
		rm -f "$deb"
		rmdir "$CACHE/download" 2>/dev/null || true
	fi
	link_build_id "$rel"
	echo "deps: $out ($(du -m "$out" | cut -f1) MB) in $(($(date +%s) - start)) s"
done
