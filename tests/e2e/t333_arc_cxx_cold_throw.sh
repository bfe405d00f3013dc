#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/arc_coldthrow.cc at -O2 (g++): main jumps into the middle of
# main.cold before a throw.  main stays one activation (its cold part's
# frames nest above it and end back in it), as callgrind keeps it: one
# activation of main, no frame of main replaced, main.cold's three frames
# nested above it.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

command -v g++ >/dev/null || skip "g++ is not installed"
prog=$TMP/arc_coldthrow
g++ -O2 -g -o "$prog" "$ROOT/tests/progs/arc_coldthrow.cc" || fail "g++ cannot build arc_coldthrow.cc"
objdump -d --no-show-raw-insn "$prog" >dis
grep -q '<main\.cold>:' dis || fail "g++ -O2 made no main.cold (the layout this test is about)"
awk '/<main>:/,/^$/' dis | grep -Eq 'j[a-z]+ +[0-9a-f]+ <main\.cold\+0x[0-9a-f]+>$' ||
	fail "main does not jump into the middle of main.cold"

LD_BIND_NOW=1 arc_record oracle "$prog"
arc_check oracle 40
"$POST" -i oracle flow --symbol main >flow || fail "post flow"
expect_eq "activations of main" 1 "$(grep -Ec '> main( |$)' flow)"
expect_eq "frames of main replaced" 0 "$(grep -c '< main (.*replaced' flow)"
"$POST" -i oracle flow --symbol main.cold >flow.cold || fail "post flow"
# i = 3: main.cold's first instruction (a call); i = 4, 9: its middle
expect_eq "main.cold called" 1 "$(grep -c '> main.cold$' flow.cold)"
expect_eq "main.cold entered by a jump from main" 2 "$(grep -c '> main.cold (jump from main)' flow.cold)"
expect_eq "main.cold frames nested above main" 3 "$(awk '$3 == 4 && /> main.cold/' flow.cold | wc -l)"
echo "PASS"
