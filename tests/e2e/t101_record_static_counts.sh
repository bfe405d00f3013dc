#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# pitrace record of a static no-libc program whose per-function instruction
# counts are known by construction (tests/progs/pt_loops.S): every executed
# instruction is recorded exactly once, from the first after execve to the
# exit_group syscall.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_loops

run_expect_status "record pt_loops" 0 "$PITRACE" record -o t -- "$PROGS/pt_loops"
expect_eq "state" complete "$(info_field t state)"
expect_eq "backend" ptrace "$(info_field t backend)"
expect_eq "mode" step "$(info_field t mode)"
# name count: from the arithmetic in pt_loops.S
while read -r name want; do
	expect_eq "count of $name" "$want" "$(count_of t "$name")"
done <<'TABLE'
f 9006
g 1502
_start 14
total 10522
TABLE
expect_eq "steps in the header" 10522 "$(info_field t steps)"
# the module table names the program with its build-id (readelf is the oracle)
bid=$(readelf -n "$PROGS/pt_loops" | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || skip "pt_loops has no build-id"
"$POST" -i t dump --tasks | grep "MMAP" | grep -q "build-id $bid.*pt_loops" ||
	fail "no MMAP record of pt_loops with build-id $bid"
"$POST" -i t dump --tasks | grep -q "EXIT .*status 0" || fail "no EXIT record"
echo "PASS"
