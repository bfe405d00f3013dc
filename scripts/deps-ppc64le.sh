#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What building and testing pitrace for POWER (ppc64le) needs on an x86_64
# Debian 12 host, idempotent (scripts/deps.sh runs it):
#   - the ppc64el architecture for apt, the cross compilers, QEMU for ppc64,
#     and the -dev:ppc64el libraries the commands link;
#   - Debian's ppc64el kernels (6.1 from bookworm, 6.12 from
#     bookworm-security, when the archive has it): each kernel's vmlinux and
#     its header set, downloaded with apt-get download and unpacked into
#     PT_PPC64LE_DIR (default /var/cache/pitrace/ppc64le/RELEASE/{vmlinux,build}),
#     not installed: a foreign kernel package would pull a foreign gcc;
#   - busybox-static:ppc64el's busybox for the test guests
#     (PT_PPC64LE_DIR/busybox).
# The header sets build with the host's kbuild (linux-kbuild-*, installed
# with the x86_64 headers) and share linux-headers-*-common with them.
# With --check: install nothing, print what is missing and exit 1.
set -eu

DIR=${PT_PPC64LE_DIR:-/var/cache/pitrace/ppc64le}
PACKAGES="gcc-powerpc64le-linux-gnu g++-powerpc64le-linux-gnu qemu-system-ppc
libelf-dev:ppc64el libdw-dev:ppc64el libcapstone-dev:ppc64el libzstd-dev:ppc64el
zlib1g-dev:ppc64el libncurses-dev:ppc64el libarchive-dev:ppc64el libdebuginfod-dev:ppc64el"
# The kernels: Debian's metapackages, resolved to their versioned packages.
KERNEL_META="linux-image-powerpc64le linux-image-6.12-powerpc64le"

say() { echo "deps-ppc64le: $*"; }

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# What is missing, in one line (nothing when everything is here).
missing_what() {
	for p in $PACKAGES; do
		installed "$p" || { echo "$p is not installed"; return; }
	done
	[ -x "$DIR/busybox" ] || { echo "no ppc64el busybox in $DIR"; return; }
	[ -s "$DIR/releases" ] || { echo "no ppc64el kernel in $DIR"; return; }
	while read -r rel; do
		[ -s "$DIR/$rel/vmlinux" ] && [ -e "$DIR/$rel/build/.config" ] ||
			{ echo "kernel $rel incomplete in $DIR"; return; }
	done <"$DIR/releases"
}
# --check: say what is missing and fail, install nothing (make check-vm ARCH=ppc64le).
if [ "${1:-}" = --check ]; then
	what=$(missing_what)
	[ -z "$what" ] || { echo "$what"; exit 1; }
	exit 0
fi
# Everything already here: no network at all.
[ -z "$(missing_what)" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	say "POWER cross tools or kernels missing (run 'make deps' as root)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! dpkg --print-foreign-architectures | grep -qx ppc64el; then
	say "adding the ppc64el architecture to dpkg"
	dpkg --add-architecture ppc64el
fi
apt-get update -qq

missing=""
for p in $PACKAGES; do installed "$p" || missing="$missing $p"; done
if [ -n "$missing" ]; then
	say "installing$missing"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

mkdir -p "$DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The package a metapackage depends on (linux-image-6.1.0-57-powerpc64le).
resolve() {
	apt-cache depends "$1:ppc64el" 2>/dev/null | sed -n 's/^ *Depends: \([^:]*\).*/\1/p' |
		grep -m1 '^linux-image-'
}

# Download package $1 (arch $2) into $tmp; prints the .deb's path.
download() {
	(cd "$tmp" && apt-get download -qq "$1:$2" 2>/dev/null) || return 1
	ls "$tmp"/"$1"_*_"$2".deb
}

fetch_kernel() {	# fetch_kernel RELEASE
	local rel=$1 deb size kbuild common
	if [ -s "$DIR/$rel/vmlinux" ] && [ -e "$DIR/$rel/build/.config" ]; then
		return 0
	fi
	mkdir -p "$DIR/$rel"
	size=$(apt-cache show "linux-image-$rel:ppc64el" 2>/dev/null | sed -n 's/^Size: //p' | head -n1)
	say "downloading linux-image-$rel (ppc64el, $((${size:-0} / 1048576)) MB): its vmlinux only"
	deb=$(download "linux-image-$rel" ppc64el) || { say "cannot download linux-image-$rel" >&2; return 1; }
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "./boot/vmlinux-$rel"
	mv "$tmp/boot/vmlinux-$rel" "$DIR/$rel/vmlinux"
	rm -f "$deb"
	say "downloading linux-headers-$rel (ppc64el): the module build tree"
	deb=$(download "linux-headers-$rel" ppc64el) || { say "cannot download linux-headers-$rel" >&2; return 1; }
	rm -rf "$tmp/x" "$DIR/$rel/build"
	mkdir -p "$tmp/x"
	dpkg-deb -x "$deb" "$tmp/x"
	rm -f "$deb"
	mv "$tmp/x/usr/src/linux-headers-$rel" "$DIR/$rel/build"
	# scripts/ and tools/ point at the kbuild package relatively: make them absolute.
	kbuild=$(readlink "$DIR/$rel/build/scripts" | sed 's,^\(\.\./\)*,/usr/,; s,/scripts$,,')
	ln -sfn "$kbuild/scripts" "$DIR/$rel/build/scripts"
	ln -sfn "$kbuild/tools" "$DIR/$rel/build/tools"
	# The common headers (arch: all) and the host's kbuild of that version.
	common=$(sed -n 's,^include /usr/src/\(linux-headers-[^/]*-common\)/Makefile,\1,p' \
		"$DIR/$rel/build/Makefile")
	for p in $common $(basename "$kbuild"); do
		installed "$p" && continue
		say "installing $p"
		apt-get install -y -qq --no-install-recommends "$p" >/dev/null
	done
}

: >"$tmp/releases"
for meta in $KERNEL_META; do
	pkg=$(resolve "$meta") || pkg=""
	if [ -z "$pkg" ]; then
		say "$meta:ppc64el is not in the archive: that kernel is not tested"
		continue
	fi
	rel=${pkg#linux-image-}
	fetch_kernel "$rel" && echo "$rel" >>"$tmp/releases"
done
mv "$tmp/releases" "$DIR/releases"

if [ ! -x "$DIR/busybox" ]; then
	say "downloading busybox-static (ppc64el, 1 MB)"
	deb=$(download busybox-static ppc64el)
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" ./bin/busybox
	mv "$tmp/bin/busybox" "$DIR/busybox"
fi
say "POWER kernels in $DIR: $(tr '\n' ' ' <"$DIR/releases")"
