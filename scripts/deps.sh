#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install every Debian package pitrace's build, demo, tests and packages
# (man pages: pandoc; make deb: debhelper, dh-dkms, lintian; the viewer's
# tests: tmux; the exports opened in a browser: chromium; the fuzzer: clang and
# its libFuzzer and sanitizer runtimes; programs this project did not write, recorded
# by tests and benches: lua5.4, pigz) need, then cache the
# test kernels' vmlinux with debug info (scripts/debug-vmlinux.sh).
# Idempotent: installs only what is missing, non-interactively.
set -eu

PACKAGES="gcc g++ make pkg-config libelf-dev libdw-dev libcapstone-dev libzstd-dev zlib1g-dev
libncurses-dev libcunit1-dev libarchive-dev libdebuginfod-dev valgrind gdb strace python3
python3-dev dh-python python3-pandas
debuginfod curl zstd llvm
kcachegrind xvfb xdotool imagemagick tesseract-ocr tesseract-ocr-eng dbus chromium
linux-headers-amd64 linux-headers-6.12-amd64 linux-image-amd64 linux-image-6.12-amd64
qemu-system-x86 busybox-static cpio kmod
pandoc man-db bash-completion dkms dh-dkms debhelper dpkg-dev lintian xz-utils tmux
clang libclang-rt-14-dev
lua5.4 pigz"

# POWER's cross tools and kernels (make check tests both), arm64's (make
# ARCH=arm64 builds), then the test kernels' vmlinux with debug info (kernel
# source lines, tests/vm kk60).  What POWER and arm64 need comes from their
# archives, which can lag behind (mid-sync) or be unreachable: without it
# the POWER suite says SKIP and why.
finish() {
	if [ "$(uname -m)" = x86_64 ] && ! "$(dirname "$0")/deps-ppc64le.sh"; then
		echo "deps: POWER's cross tools or kernels could not all be had: make check" \
			"skips the POWER suite (scripts/deps-ppc64le.sh --check says why)" >&2
	fi
	if [ "$(uname -m)" = x86_64 ] && ! "$(dirname "$0")/deps-arm64.sh"; then
		echo "deps: arm64's cross tools or kernels could not all be had" \
			"(scripts/deps-arm64.sh --check says why)" >&2
	fi
	exec "$(dirname "$0")/debug-vmlinux.sh"
}

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && finish
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run 'make deps' as root)" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
finish
