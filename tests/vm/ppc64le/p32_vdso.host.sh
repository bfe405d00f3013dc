#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# POWER vDSO calls, host half (see p32_vdso.sh): the host's post reads the
# guest's ptrace trace of vm_vdso with its NATIVE records and the two
# handlers entered through the vDSO's trampoline: invariants hold, and
# counts and arc reports are the guest post's.
POST=$PT_HOST_BIN/post
check_eq() {
	if [ "$3" = "$4" ]; then echo "PASS $1"; else echo "FAIL $1: $2: expected $3, got $4"; fi
}
check_same() {	# check_same NAME WHAT GUEST HOST
	if diff "$3" "$4" >"$1.diff"; then
		echo "PASS $1"
	else
		head -n 20 "$1.diff"
		echo "FAIL $1: $2 differ between the guest's post and the host's"
	fi
}
if ! "$POST" --help >/dev/null 2>&1; then
	echo "FAIL p-vdso-host-post: $POST does not run here (make, for the host)"
	exit 0
fi
if [ ! -s "$PT_EXPORT/p32.tgz" ] || ! tar xzf "$PT_EXPORT/p32.tgz"; then
	echo "FAIL p-vdso-host-export: no trace came out of the guest"
	exit 0
fi
mkdir -p root/pt
ln -s "$(realpath "$PT_PROGS")" root/pt/progs
"$POST" --symfs root -i r1 arc --check >host.check 2>&1
check_eq p-vdso-host-arc-check "the host's post arc --check exit status" 0 $?
check_same p-vdso-host-check "arc --check" check.out host.check
"$POST" --symfs root -i r1 counts --by symbol >host.counts 2>&1
check_same p-vdso-host-counts "counts --by symbol (native row included)" r1.counts host.counts
"$POST" --symfs root -i r1 arc >host.arc 2>&1
check_same p-vdso-host-arc "arc reports" r1.arc host.arc
