#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two independent paths to the same numbers: post profile's Base per function
# (the call-flow engine) equals post counts --by symbol (the counting module)
# for every named function of a traced program.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

arc_record trace "$PROGS/arc_qsort"
"$POST" -i trace counts --by symbol >counts.out 2>counts.err || { cat counts.err; fail "post counts"; }
# "  count  percent  module  symbol" -> "module symbol count"; code without a
# symbol is "module+0xOFFSET" per address there and one "[module]" here: left out
awk '!/^#/ && NF >= 4 && $4 !~ /^\[|\+0x/ && $3 != "total" { print $3, $4, $1 }' counts.out |
	sort >counts
# "calls base base% cum cum% function [module]" -> "module function base"
"$POST" -i trace profile | awk '!/^#/ && $6 !~ /^\[/ { m = $7; gsub(/[][]/, "", m); print m, $6, $2 }' |
	sort >profile
[ "$(wc -l <profile)" -gt 50 ] || fail "too few functions in the profile: $(wc -l <profile)"
expect_same_file "profile Base vs counts by symbol" counts profile
echo "PASS"
