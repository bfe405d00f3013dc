#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# arm64 traces read on another machine, host half (see a95_cross_read.sh):
# the guest's arm64 trace of a program that exists only in the guest, read
# by the host's own post (x86_64 here).  Without the archive the program has
# no names; after pitrace archive --unpack, every report equals the
# guest's, byte for byte: counts by symbol and by line, profile, arcs, and
# steps with their instruction text.
APP=/opt/pt-guest-only/bin/atomics-app
export XDG_CACHE_HOME=$PWD/xdg	# not the user's build-id cache
unset DEBUGINFOD_URLS
check_eq() {
	if [ "$3" = "$4" ]; then echo "PASS $1"; else echo "FAIL $1: $2: expected $3, got $4"; fi
}
if ! "$PT_HOST_BIN/post" --help >/dev/null 2>&1; then
	echo "FAIL a-cross-host-post: $PT_HOST_BIN/post does not run here (make, for the host)"
	exit 0
fi
if [ ! -s "$PT_EXPORT/a95-cross.tgz" ] || ! tar xzf "$PT_EXPORT/a95-cross.tgz"; then
	echo "FAIL a-cross-export: nothing came out of the guest"
	exit 0
fi
echo "PASS a-cross-export"
if [ -e "$APP" ]; then
	echo "SKIP a-cross-host: $APP exists on this host (the test needs it to be the guest's only)"
	exit 0
fi
check_eq a-cross-host-arch "the trace's arch as the host's post reads it" aarch64 \
	"$("$PT_HOST_BIN/post" -i t info | sed -n 's/^arch: *//p')"
"$PT_HOST_BIN/post" -i t counts --by symbol >none.symbol 2>&1
if grep -q ' worker$' none.symbol; then
	echo "FAIL a-cross-needs-archive: the program is named without its archive"
else
	echo "PASS a-cross-needs-archive"
fi
"$PT_HOST_BIN/pitrace" archive --unpack --buildid-dir cache t.tar.zst >unpack.out 2>&1
check_eq a-cross-unpack "exit status of pitrace archive --unpack" 0 $?
echo "INFO a95: $(cat unpack.out)"
# compare NAME GUEST_FILE POST_ARGS...: the host's report equals the guest's
compare() {
	local name=$1 want=$2
	shift 2
	"$PT_HOST_BIN/post" -i t --buildid-dir cache "$@" >"host.$want" 2>&1
	if [ -s "$want" ] && diff -u "$want" "host.$want" >"$want.diff"; then
		echo "PASS $name"
	else
		head -n 20 "$want.diff"
		echo "FAIL $name: the host's report differs from the guest's (or the guest's is empty)"
	fi
}
compare a-cross-counts-symbol counts.symbol counts --by symbol
compare a-cross-counts-line counts.line counts --by line --module atomics-app
compare a-cross-profile profile profile
compare a-cross-arc arc arc
compare a-cross-steps steps steps
