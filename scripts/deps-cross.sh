#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What building and testing pitrace for a foreign architecture (ppc64le or
# arm64) needs on an x86_64 Debian 12 host, idempotent (scripts/deps.sh runs
# it through deps-ppc64le.sh and deps-arm64.sh):
#   - the architecture for apt, the cross compilers, QEMU for it, and the
#     -dev libraries the commands link;
#   - Debian's kernels for it (6.1 from bookworm, 6.12 from
#     bookworm-security, when the archive has it): each kernel's image and
#     its header set, downloaded with apt-get download and unpacked into
#     PT_<ARCH>_DIR (default /var/cache/pitrace/ARCH/RELEASE/{IMAGE,build}),
#     not installed: a foreign kernel package would pull a foreign gcc;
#   - busybox-static's busybox for the test guests (PT_<ARCH>_DIR/busybox).
# The header sets build with the host's kbuild (linux-kbuild-*, installed
# with the x86_64 headers) and share linux-headers-*-common with them.
# The kernels are resolved and downloaded through a private apt index of
# that architecture only (PT_<ARCH>_DIR/apt-lists): the host's
# `apt-get update` drops a release's security index when another index of
# that release fails mid-sync, and then the 6.12 kernel is not found.
#
#   deps-cross.sh ARCH [--check]   ARCH is ppc64le or arm64
# With --check: install nothing, print what is missing and exit 1.
set -eu

ARCH=${1:-}
case "$ARCH" in
ppc64le)
	DEBARCH=ppc64el TRIPLE=powerpc64le-linux-gnu QEMU=qemu-system-ppc NAME=POWER
	IMAGE=vmlinux	# what the guest boots: the ELF vmlinux
	KERNEL_META="linux-image-powerpc64le linux-image-6.12-powerpc64le"
	DIR=${PT_PPC64LE_DIR:-/var/cache/pitrace/ppc64le} ;;
arm64)
	DEBARCH=arm64 TRIPLE=aarch64-linux-gnu QEMU=qemu-system-arm NAME=arm64
	IMAGE=vmlinuz	# the Image (Debian names it vmlinuz)
	KERNEL_META="linux-image-arm64 linux-image-6.12-arm64"
	DIR=${PT_ARM64_DIR:-/var/cache/pitrace/arm64} ;;
*)
	echo "usage: deps-cross.sh ppc64le|arm64 [--check]" >&2
	exit 2 ;;
esac
shift
PACKAGES="gcc-$TRIPLE g++-$TRIPLE $QEMU"
for lib in libelf libdw libcapstone libzstd zlib1g libncurses libarchive libdebuginfod; do
	PACKAGES="$PACKAGES $lib-dev:$DEBARCH"
done

say() { echo "deps-$ARCH: $*"; }

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# What is missing, in one line (nothing when everything is here).
missing_what() {
	for p in $PACKAGES; do
		installed "$p" || { echo "$p is not installed"; return; }
	done
	[ -x "$DIR/busybox" ] || { echo "no $DEBARCH busybox in $DIR"; return; }
	[ -s "$DIR/releases" ] || { echo "no $DEBARCH kernel in $DIR"; return; }
	while read -r rel; do
		[ -s "$DIR/$rel/$IMAGE" ] && [ -e "$DIR/$rel/build/.config" ] ||
			{ echo "kernel $rel incomplete in $DIR"; return; }
	done <"$DIR/releases"
}
# Fewer kernels than metapackages: one was not found last time, so an
# install run looks again (the suite runs on the ones there are).
kernels_short() {
	[ "$(wc -l <"$DIR/releases")" -lt "$(echo $KERNEL_META | wc -w)" ]
}
# --check: say what is missing and fail, install nothing (make check-vm ARCH=...).
if [ "${1:-}" = --check ]; then
	what=$(missing_what)
	[ -z "$what" ] || { echo "$what"; exit 1; }
	exit 0
fi
# Everything already here: no network at all.
[ -z "$(missing_what)" ] && ! kernels_short && exit 0

if [ "$(id -u)" != 0 ]; then
	say "$NAME cross tools or kernels missing (run 'make deps' as root)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! dpkg --print-foreign-architectures | grep -qx "$DEBARCH"; then
	say "adding the $DEBARCH architecture to dpkg"
	dpkg --add-architecture "$DEBARCH"
fi

missing=""
for p in $PACKAGES; do installed "$p" || missing="$missing $p"; done
if [ -n "$missing" ]; then
	# Another architecture's index lagging behind (mid-sync) must not stop this one.
	apt-get update -qq || say "apt-get update failed in part: going on with the indexes it has"
	say "installing$missing"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

mkdir -p "$DIR/apt-lists/partial"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# apt restricted to this architecture, with its own index (see the top).
xapt() {
	cmd=$1
	shift
	"$cmd" -o Dir::State::Lists="$DIR/apt-lists" -o APT::Architectures::="$DEBARCH" \
		-o APT::Architecture="$DEBARCH" "$@"
}
xapt apt-get update -qq || say "apt-get update ($DEBARCH) failed in part: going on"

# The package a metapackage depends on (linux-image-6.1.0-57-arm64).
resolve() {
	xapt apt-cache depends "$1" 2>/dev/null | sed -n 's/^ *Depends: \([^:]*\).*/\1/p' |
		grep -m1 '^linux-image-'
}

# Download package $1 into $tmp; prints the .deb's path.
download() {
	(cd "$tmp" && xapt apt-get download -qq "$1" 2>/dev/null) || return 1
	ls "$tmp"/"$1"_*_"$DEBARCH".deb
}

fetch_kernel() {	# fetch_kernel RELEASE
	local rel=$1 deb size kbuild common
	if [ -s "$DIR/$rel/$IMAGE" ] && [ -e "$DIR/$rel/build/.config" ]; then
		return 0
	fi
	mkdir -p "$DIR/$rel"
	size=$(xapt apt-cache show "linux-image-$rel" 2>/dev/null | sed -n 's/^Size: //p' | head -n1)
	say "downloading linux-image-$rel ($DEBARCH, $((${size:-0} / 1048576)) MB): its $IMAGE only"
	deb=$(download "linux-image-$rel") || { say "cannot download linux-image-$rel" >&2; return 1; }
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "./boot/$IMAGE-$rel"
	mv "$tmp/boot/$IMAGE-$rel" "$DIR/$rel/$IMAGE"
	rm -f "$deb"
	say "downloading linux-headers-$rel ($DEBARCH): the module build tree"
	deb=$(download "linux-headers-$rel") || { say "cannot download linux-headers-$rel" >&2; return 1; }
	rm -rf "$tmp/x" "$DIR/$rel/build"
	mkdir -p "$tmp/x"
	dpkg-deb -x "$deb" "$tmp/x"
	rm -f "$deb"
	mv "$tmp/x/usr/src/linux-headers-$rel" "$DIR/$rel/build"
	# scripts/ and tools/ point at the kbuild package relatively: make them absolute.
	kbuild=$(readlink "$DIR/$rel/build/scripts" | sed 's,^\(\.\./\)*,/usr/,; s,/scripts$,,')
	ln -sfn "$kbuild/scripts" "$DIR/$rel/build/scripts"
	ln -sfn "$kbuild/tools" "$DIR/$rel/build/tools"
	# The common headers (arch: all) and the host's kbuild of that version,
	# from the host's own index.
	common=$(sed -n 's,^include /usr/src/\(linux-headers-[^/]*-common\)/Makefile,\1,p' \
		"$DIR/$rel/build/Makefile")
	for p in $common $(basename "$kbuild"); do
		installed "$p" && continue
		say "installing $p"
		apt-get install -y -qq --no-install-recommends "$p" >/dev/null || {
			apt-get update -qq || true
			apt-get install -y -qq --no-install-recommends "$p" >/dev/null
		}
	done
}

: >"$tmp/releases"
for meta in $KERNEL_META; do
	pkg=$(resolve "$meta") || pkg=""
	if [ -z "$pkg" ]; then
		say "$meta:$DEBARCH is not in the archive: that kernel is not tested"
		continue
	fi
	rel=${pkg#linux-image-}
	fetch_kernel "$rel" && echo "$rel" >>"$tmp/releases"
done
mv "$tmp/releases" "$DIR/releases"

if [ ! -x "$DIR/busybox" ]; then
	say "downloading busybox-static ($DEBARCH, 1 MB)"
	deb=$(download busybox-static)
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" ./bin/busybox
	mv "$tmp/bin/busybox" "$DIR/busybox"
fi
say "$NAME kernels in $DIR: $(tr '\n' ' ' <"$DIR/releases")"
