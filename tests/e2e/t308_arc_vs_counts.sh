#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two independent paths to the same numbers: post profile's Base per function
# (the call-flow engine) equals post counts --by symbol (the counting module)
# for every named function of a traced program, with PLT stubs kept as
# functions (--plt keep): counts counts each instruction where it is.  The
# default folds them into their callers: no stub has a row then, and the
# Base of the rest adds up to the same total.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

arc_record trace "$PROGS/arc_qsort"
"$POST" -i trace counts --by symbol >counts.out 2>counts.err || { cat counts.err; fail "post counts"; }
# "calls base base% cum cum% function [module]" -> "module function base"
"$POST" -i trace --plt keep profile |
	awk '!/^#/ && $6 !~ /^\[/ { m = $7; gsub(/[][]/, "", m); print m, $6, $2 }' | sort >profile
# "  count  percent  module  symbol" -> "module symbol count"; code without a
# symbol nor an FDE is "module+0xOFFSET" per address there and one "[module]"
# in the profile: left out; a function named by its FDE (module+0xENTRY,
# PLT0 here) is in both
awk 'NR == FNR { fn[$1 " " $2] = 1; next }
	!/^#/ && NF >= 4 && $4 !~ /^\[/ && $3 != "total" &&
	($4 !~ /\+0x/ || ($3 " " $4) in fn) { print $3, $4, $1 }' profile counts.out |
	sort >counts
[ "$(wc -l <profile)" -gt 50 ] || fail "too few functions in the profile: $(wc -l <profile)"
expect_same_file "profile Base vs counts by symbol" counts profile
grep -q '@plt' profile || fail "no PLT stub in the profile with --plt keep"
"$POST" -i trace profile --wide >folded || fail "post profile"
grep -v '^#' folded | grep -qE ' [^ ]*@plt \[| \.plt(\.sec|\.got)? \[' &&
	fail "a stub has a row with --plt fold: $(grep -E '@plt \[|\.plt' folded | head -1)"
expect_eq "Base of every function, folded and kept" \
	"$(awk '{ s += $3 } END { print s }' profile)" \
	"$(awk '!/^#/ && $6 !~ /^\[/ { s += $2 } END { print s }' folded)"
echo "PASS"
