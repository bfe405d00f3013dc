#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/arc_qsort.c: libc's qsort calls back into cmp_int; its callers
# are libc functions, never main; counts equal callgrind's.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

LD_BIND_NOW=1 arc_record oracle "$PROGS/arc_qsort"
arc_check oracle 30
"$POST" -i oracle arc --symbol cmp_int >arc || fail "arc"
callers=$(awk '$NF != "cmp_int" && / < / { print $NF }' arc)
[ -n "$callers" ] || fail "cmp_int has no callers: $(cat arc)"
echo "$callers" | grep -qx main && fail "main shown calling cmp_int directly"
"$POST" -i oracle arc --check --module libc.so.6 >/dev/null || fail "invariants"
arc_oracle "$PROGS/arc_qsort" main cmp_int
echo "PASS"
