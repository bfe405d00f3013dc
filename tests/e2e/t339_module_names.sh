#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tree and flow name a function's module where execution enters it: a
# thread's first function, and every call into another module than its
# caller's.  On the demo (dynamic): ld.so's _start and the program's
# _start read apart, main is entered from libc, printf from main, while
# fib, called by main and by itself, names none.  The viewer's tree and
# flow show what post's do (t330, t331 compare them line by line).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

arc_record trace "$PROGS/demo"
"$POST" -i trace flow >flow.out || fail "post flow"
"$POST" -i trace tree >tree.out || fail "post tree"
"$POST" -i trace flow --condensed >condensed.out || fail "post flow --condensed"

ld=$(awk '/ > _start \[/ { print $6; exit }' flow.out)
case $ld in
"[ld-linux"*) ;;
*) fail "the thread's first line names no ld.so: '$ld'" ;;
esac
expect_eq "the program's _start, entered from ld.so" 1 "$(grep -c '> _start \[demo\]' flow.out)"
expect_eq "main, called from libc" 1 "$(grep -c '> main \[demo\]$' flow.out)"
expect_eq "printf, called from main" 1 "$(grep -c '> printf \[libc.so.6\]$' flow.out)"
expect_eq "fib's entries naming a module" 0 "$(grep -c '> fib \[' flow.out)"
[ "$(grep -c '> fib$' flow.out)" -gt 100 ] || fail "fib's calls: $(grep -c '> fib$' flow.out)"
expect_eq "tree: main under libc" 1 "$(grep -cE '  main \[demo\]$' tree.out)"
expect_eq "tree: printf under main" 1 "$(grep -cE '  printf \[libc.so.6\]$' tree.out)"
expect_eq "tree: fib names no module" 0 "$(grep -cE '  fib \[' tree.out)"
expect_eq "condensed: printf" 1 "$(grep -c '  printf \[libc.so.6\]$' condensed.out)"
# the machine-readable tree has the module of every row
"$POST" -i trace tree --format csv >tree.csv || fail "tree --format csv"
python3 - tree.csv <<'EOF' || fail "tree --format csv lacks modules"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r['module'] for r in rows if r['function']), rows[:3]
EOF
echo "PASS"
