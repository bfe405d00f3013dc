#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# pitrace exits with the command's status (128+N when signal N killed it),
# and the command's stdin/stdout work as if untraced.  Counts are known by
# construction (pt_exit3.S: 3 instructions, pt_killed.S: 6, the kill syscall
# being the last one executed).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_exit3 pt_killed pt_cat

run_expect_status "record pt_exit3" 3 "$PITRACE" record -o e3 -- "$PROGS/pt_exit3"
expect_eq "pt_exit3 total" 3 "$(total_of e3)"
"$POST" -i e3 dump --tasks | grep -q "EXIT .*status 768" || fail "EXIT record without status 3<<8"

run_expect_status "record pt_killed" 138 "$PITRACE" record -o k -- "$PROGS/pt_killed"
expect_eq "pt_killed total" 6 "$(total_of k)"
expect_eq "state" complete "$(info_field k state)"

# stdin to stdout through the traced command
out=$(printf 'through the tracer\n' | "$PITRACE" record -o c -- "$PROGS/pt_cat")
expect_eq "pt_cat output" "through the tracer" "$out"
expect_eq "pt_cat total" 12 "$(total_of c)"
echo "PASS"
