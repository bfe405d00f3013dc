#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two independent paths to the same numbers: post profile's Base per function
# (the call-flow engine) equals post counts --by symbol (the counting module)
# for every named function of a traced program.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

arc_record trace "$PROGS/arc_qsort"
"$POST" -i trace counts --by symbol >counts.out 2>counts.err || { cat counts.err; fail "post counts"; }
# "calls base base% cum cum% function [module]" -> "module function base"
"$POST" -i trace profile | awk '!/^#/ && $6 !~ /^\[/ { m = $7; gsub(/[][]/, "", m); print m, $6, $2 }' |
	sort >profile
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
echo "PASS"
