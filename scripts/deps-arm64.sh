#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What building and testing pitrace for arm64 (aarch64) needs on an x86_64
# Debian 12 host, idempotent (scripts/deps.sh runs it):
#   - the arm64 architecture for apt, the cross compilers, QEMU for
#     aarch64, and the -dev:arm64 libraries the commands link;
#   - Debian's arm64 kernels (6.1 from bookworm, 6.12 from
#     bookworm-security, when the archive has it): each kernel's Image
#     (vmlinuz) and its header set, downloaded with apt-get download and
#     unpacked into PT_ARM64_DIR (default
#     /var/cache/pitrace/arm64/RELEASE/{vmlinuz,build}), not installed: a
#     foreign kernel package would pull a foreign gcc;
#   - busybox-static:arm64's busybox for the test guests (PT_ARM64_DIR/busybox).
# The header sets build with the host's kbuild (linux-kbuild-*, installed
# with the x86_64 headers) and share linux-headers-*-common with them.
# With --check: install nothing, print what is missing and exit 1.
set -eu

DIR=${PT_ARM64_DIR:-/var/cache/pitrace/arm64}
PACKAGES="gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-system-arm
libelf-dev:arm64 libdw-dev:arm64 libcapstone-dev:arm64 libzstd-dev:arm64
zlib1g-dev:arm64 libncurses-dev:arm64 libarchive-dev:arm64 libdebuginfod-dev:arm64"
# The kernels: Debian's metapackages, resolved to their versioned packages.
KERNEL_META="linux-image-arm64 linux-image-6.12-arm64"

say() { echo "deps-arm64: $*"; }

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# What is missing, in one line (nothing when everything is here).
missing_what() {
	for p in $PACKAGES; do
		installed "$p" || { echo "$p is not installed"; return; }
	done
	[ -x "$DIR/busybox" ] || { echo "no arm64 busybox in $DIR"; return; }
	[ -s "$DIR/releases" ] || { echo "no arm64 kernel in $DIR"; return; }
	while read -r rel; do
		[ -s "$DIR/$rel/vmlinuz" ] && [ -e "$DIR/$rel/build/.config" ] ||
			{ echo "kernel $rel incomplete in $DIR"; return; }
	done <"$DIR/releases"
}
# --check: say what is missing and fail, install nothing.
if [ "${1:-}" = --check ]; then
	what=$(missing_what)
	[ -z "$what" ] || { echo "$what"; exit 1; }
	exit 0
fi
# Everything already here: no network at all.
[ -z "$(missing_what)" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	say "arm64 cross tools or kernels missing (run 'make deps' as root)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	say "adding the arm64 architecture to dpkg"
	dpkg --add-architecture arm64
fi
# Another architecture's index lagging behind (mid-sync) must not stop this one.
apt-get update -qq || say "apt-get update failed in part: going on with the indexes it has"

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

# The package a metapackage depends on (linux-image-6.1.0-57-arm64).
resolve() {
	apt-cache depends "$1:arm64" 2>/dev/null | sed -n 's/^ *Depends: \([^:]*\).*/\1/p' |
		grep -m1 '^linux-image-'
}

# Download package $1 (arch $2) into $tmp; prints the .deb's path.
download() {
	(cd "$tmp" && apt-get download -qq "$1:$2" 2>/dev/null) || return 1
	ls "$tmp"/"$1"_*_"$2".deb
}

fetch_kernel() {	# fetch_kernel RELEASE
	local rel=$1 deb size kbuild common
	if [ -s "$DIR/$rel/vmlinuz" ] && [ -e "$DIR/$rel/build/.config" ]; then
		return 0
	fi
	mkdir -p "$DIR/$rel"
	size=$(apt-cache show "linux-image-$rel:arm64" 2>/dev/null | sed -n 's/^Size: //p' | head -n1)
	say "downloading linux-image-$rel (arm64, $((${size:-0} / 1048576)) MB): its Image only"
	deb=$(download "linux-image-$rel" arm64) || { say "cannot download linux-image-$rel" >&2; return 1; }
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "./boot/vmlinuz-$rel"
	mv "$tmp/boot/vmlinuz-$rel" "$DIR/$rel/vmlinuz"
	rm -f "$deb"
	say "downloading linux-headers-$rel (arm64): the module build tree"
	deb=$(download "linux-headers-$rel" arm64) || { say "cannot download linux-headers-$rel" >&2; return 1; }
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
		say "$meta:arm64 is not in the archive: that kernel is not tested"
		continue
	fi
	rel=${pkg#linux-image-}
	fetch_kernel "$rel" && echo "$rel" >>"$tmp/releases"
done
mv "$tmp/releases" "$DIR/releases"

if [ ! -x "$DIR/busybox" ]; then
	say "downloading busybox-static (arm64, 1 MB)"
	deb=$(download busybox-static arm64)
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" ./bin/busybox
	mv "$tmp/bin/busybox" "$DIR/busybox"
fi
say "arm64 kernels in $DIR: $(tr '\n' ' ' <"$DIR/releases")"
