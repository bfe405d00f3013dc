#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/cxx_catch_lib.cc at -O2 throws and catches 10 times through
# the system's libstdc++, whose local functions Debian strips: those
# (__cxa_end_catch's exception cleanup) are functions named
# libstdc++.so.6.X+0xVADDR, no [libstdc++] pseudo-function is left, and
# main's self steps and calls equal callgrind's.  Recorded --on main: the
# dynamic linker's million steps would cost minutes.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

prog=$PROGS/cxx_catch_lib
[ -x "$prog" ] || skip "$prog is not built (make progs)"
command -v readelf >/dev/null || skip "readelf (binutils) missing"
lib=$(ldd "$prog" | awk '$1 ~ /^libstdc\+\+/ { print $3 }')
[ -n "$lib" ] || skip "$prog does not link libstdc++ dynamically"
lib=$(readlink -f "$lib")
readelf -SW "$lib" | grep -q ' \.symtab ' && skip "$lib keeps its local symbols"
mod=${lib##*/}
LD_BIND_NOW=1 "$PITRACE" record --on main -o oracle -- "$prog" >record.out 2>&1 ||
	{ cat record.out; fail "record --on main"; }
arc_check oracle 20
expect_eq "unmatched returns" 0 "$(arc_stat oracle unmatched)"
"$POST" -i oracle profile >profile || fail "profile"
grep -qF "  [$mod] [$mod]" profile && fail "profile has a [$mod] pseudo-function"
grep -qF "  $mod+0x" profile || fail "profile: no $mod+0x function"
# The exception's cleanup, a local function of libstdc++, runs once per catch.
"$POST" -i oracle arc --symbol _Unwind_DeleteException >arc || fail "arc"
grep -q "^ *10 .* > $mod+0x[0-9a-f]*\$" arc ||
	fail "_Unwind_DeleteException does not enter a $mod+0x function 10 times: $(cat arc)"
arc_oracle "$prog" "main+main.cold" "thrower(int)+thrower(int) [clone .cold]" \
	__cxa_begin_catch __cxa_end_catch __cxa_throw
echo "PASS"
