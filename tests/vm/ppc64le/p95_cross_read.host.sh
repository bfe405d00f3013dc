#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cross-architecture reading, host half (see p95_cross_read.sh): the
# guest's POWER trace read by the host's own post gives the guest's post's
# reports, instruction text included, the guest's programs read through
# --symfs (the trace names /pt/progs/..., a guest path).
POST=$PT_HOST_BIN/post
check_same() {	# check_same NAME WHAT GUEST HOST
	if diff "$3" "$4" >"$1.diff"; then
		echo "PASS $1"
	else
		head -n 20 "$1.diff"
		echo "FAIL $1: $2 differ between the guest's post and the host's"
	fi
}
if ! "$POST" --help >/dev/null 2>&1; then
	echo "FAIL p-cross-host-post: $POST does not run here (make, for the host)"
	exit 0
fi
if [ ! -s "$PT_EXPORT/p95.tgz" ] || ! tar xzf "$PT_EXPORT/p95.tgz"; then
	echo "FAIL p-cross-host-export: no trace came out of the guest"
	exit 0
fi
# The guest's files where the trace names them, under a --symfs root.
mkdir -p root/pt
ln -s "$(realpath "$PT_PROGS")" root/pt/progs
check_eq() {
	if [ "$3" = "$4" ]; then echo "PASS $1"; else echo "FAIL $1: $2: expected $3, got $4"; fi
}
check_eq p-cross-host-arch "the trace's arch as the host's post reads it" ppc64le \
	"$("$POST" -i sig info | sed -n 's/^arch: *//p')"
"$POST" --symfs root -i sig counts --by symbol >host.counts 2>&1
check_same p-cross-host-counts "counts --by symbol" sig.counts host.counts
"$POST" --symfs root -i sig arc >host.arc 2>&1
check_same p-cross-host-arc "arc reports" sig.arc host.arc
"$POST" --symfs root -i sig steps >host.steps 2>&1
check_same p-cross-host-steps "steps (addresses, symbols, bytes, disassembly)" sig.steps host.steps
