#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/arc_recursion.c: fib(10) makes 177 calls, sum_to(50) 51,
# is_even/is_odd(20) 11 + 10; recursion never double counts Cum; self and
# calls of the program's functions equal callgrind's.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

LD_BIND_NOW=1 arc_record oracle "$PROGS/arc_recursion"
# sum_to's 51 frames over main and the libc/loader frames below it
arc_check oracle 60
"$POST" -i oracle profile --module arc_recursion >prof || fail "profile"
row() { awk -v f="$1" '!/^#/ && $6 == f { print $1, ($2 == $4 ? "cum=base" : "cum>base") }' prof; }
expect_eq "fib" "177 cum=base" "$(row fib)"
expect_eq "sum_to" "51 cum=base" "$(row sum_to)"
expect_eq "is_even" "11 cum>base" "$(row is_even)"
expect_eq "is_odd" "10 cum>base" "$(row is_odd)"
arc_oracle "$PROGS/arc_recursion" fib sum_to is_even is_odd main
echo "PASS"
