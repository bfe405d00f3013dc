#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A trace read on another machine, host half (see s50_archive.sh): the
# guest's driver trace of a program that exists only in the guest, read
# here through the archive the guest made.  Without it the program has no
# names; after pitrace archive --unpack, post's counts by symbol and by
# line and its profile equal the guest's, byte for byte.
APP=/opt/pt-guest-only/bin/qsort-app
export XDG_CACHE_HOME=$PWD/xdg	# not the user's build-id cache
unset DEBUGINFOD_URLS
if [ ! -s "$PT_EXPORT/s50-archive.tgz" ] || ! tar xzf "$PT_EXPORT/s50-archive.tgz"; then
	echo "FAIL s50-export: nothing came out of the guest"
	exit 0
fi
echo "PASS s50-export"
if [ -e "$APP" ]; then
	echo "SKIP s50-host: $APP exists on this host (the test needs it to be the guest's only)"
	exit 0
fi
"$PT_BIN/post" -i t counts --by symbol --module qsort-app >none.symbol 2>&1
if grep -q ' cmp_int$' none.symbol; then
	echo "FAIL s50-needs-archive: the program is named without its archive"
else
	echo "PASS s50-needs-archive"
fi
"$PT_BIN/pitrace" archive --unpack --buildid-dir cache t.tar.zst >unpack.out 2>&1
if [ $? = 0 ]; then echo "PASS s50-unpack"; else echo "FAIL s50-unpack: $(cat unpack.out)"; fi
echo "INFO s50: $(cat unpack.out)"
# compare NAME GUEST_FILE POST_ARGS...: the host's report equals the guest's
compare() {
	local name=$1 want=$2
	shift 2
	"$PT_BIN/post" -i t --buildid-dir cache "$@" >"host.$want" 2>&1
	if diff -u "$want" "host.$want" >"$want.diff"; then
		echo "PASS $name"
	else
		head -n 20 "$want.diff"
		echo "FAIL $name: the host's report differs from the guest's"
	fi
}
compare s50-counts-symbol counts.symbol counts --by symbol --module qsort-app
compare s50-counts-line counts.line counts --by line --module qsort-app
compare s50-profile profile profile --module qsort-app
