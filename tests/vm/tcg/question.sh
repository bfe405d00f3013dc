#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The multi-threaded TCG question (docs/driver.md, "Multi-threaded TCG"):
# the VM suite runs QEMU's single-threaded TCG because of an "Oops: int3"
# and soft lockups seen under load with thread=multi.  This boots each
# kernel with two CPU hogs on the host, PT_TCG_BOOTS times (default 3), and
# runs, one boot each, the cases PT_TCG_CASES (default "c00 c10"): c00,
# static keys flipped by tpflip.ko (a module with no pitrace: pitrace.ko is
# unloaded, and tpflip only attaches and detaches the tracepoints a session
# attaches), and c10, the same flips by pitrace's own sessions.
# PT_TCG_THREAD=multi (default) or single: QEMU's TCG threading, single
# being the control.  The harness fails a boot whose kernel log has an
# Oops, a WARNING or a soft lockup.  Prints each boot's result, the first
# lines of any bad kernel log, and a summary; every boot's whole output is
# kept in PT_TCG_LOG (default /tmp/pitrace-tcg-logs).  Figures, not a
# pass/fail test of pitrace.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
boots=${PT_TCG_BOOTS:-3}
thread=${PT_TCG_THREAD:-multi}
logs=${PT_TCG_LOG:-/tmp/pitrace-tcg-logs}
WORK=$(mktemp -d /tmp/pitrace-tcg.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/cases" "$WORK/build" "$logs"
cp "$ROOT"/tests/vm/tcg/c*.sh "$WORK/cases/"
cp "$ROOT/tests/vm/cases/lib.inc" "$WORK/cases/"
for b in /lib/modules/*/build; do
	rel=$(basename "$(dirname "$b")")
	[ -e "$b/include/generated/utsrelease.h" ] || continue
	rm -rf "$WORK/build/$rel" && mkdir -p "$WORK/build/$rel"
	cp "$ROOT/tests/vm/tcg/tpflip.c" "$ROOT/tests/vm/tcg/Kbuild" "$WORK/build/$rel/"
	make -s -C "$b" M="$WORK/build/$rel" modules >/dev/null 2>&1 &&
		cp "$WORK/build/$rel/tpflip.ko" "$WORK/cases/tpflip-$rel.ko" ||
		echo "tcg: cannot build tpflip.ko for $rel"
done
echo "tcg: thread=$thread, $boots boots of each case (${PT_TCG_CASES:-c00 c10}), logs in $logs"
# One boot per case, so that a bad kernel log is the case's.
declare -A bad=()
for n in $(seq "$boots"); do
	for c in ${PT_TCG_CASES:-c00 c10}; do
		log=$logs/$thread-$c-$n.log
		PT_VM_ACCEL="-accel tcg,thread=$thread" PT_VM_HOGS=2 PT_VM_CASES_DIR=$WORK/cases \
			"$ROOT/tests/vm/run.sh" "^$c" >"$log" 2>&1
		grep -E '^vm\[|^check-vm|Oops|RIP:|BUG|watchdog|WARNING|Call Trace|\+0x' "$log" |
			grep -v '^pitrace-vm:' | head -n 40 | sed "s/^/boot $n $c: /"
		while read -r rel; do
			bad[$rel $c]=$(( ${bad[$rel $c]:-0} + 1 ))
		done < <(sed -n 's/^vm\[\([^]]*\)\]: FAIL dmesg.*/\1/p' "$log" | sort -u)
	done
done
for k in "${!bad[@]}"; do echo "tcg: thread=$thread $k: ${bad[$k]} of $boots boots with a bad kernel log"; done
[ ${#bad[@]} = 0 ] && echo "tcg: thread=$thread, $boots boots of each kernel and case, no bad kernel log"
exit 0
