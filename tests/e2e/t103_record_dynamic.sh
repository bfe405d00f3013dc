#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A dynamically linked C program: ld.so and libc run before and around
# main and appear by module and function name; the program's own known
# work (pt_spin(1000): 2*1000+2 instructions) is exact; its output and the
# vdso image (saved as file "vdso") are there.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_hello

out=$("$PITRACE" record -o t -- "$PROGS/pt_hello") || fail "record exit status $?"
expect_eq "output" "hello from pt_hello" "$out"
expect_eq "pt_spin" 2002 "$(count_of t pt_spin)"
"$POST" -i t counts --by module >mods
for m in ld-linux-x86-64.so.2 libc.so.6 pt_hello; do
	grep -q " $m\$" mods || { cat mods; fail "module $m missing"; }
done
# ld.so's entry and libc's startup by name (exported, so named without debuginfo)
[ -n "$(count_of t _dl_start)" ] || fail "_dl_start (ld.so) not counted"
[ -n "$(count_of t __libc_start_main --module libc.so.6)" ] ||
	fail "__libc_start_main (libc) not counted"
# nothing executed outside known modules
unknown=$(count_of t "[unknown]")
[ -z "$unknown" ] || fail "$unknown steps in [unknown]"
# per-module counts add up to the total
sum=$(awk '!/^#/ && $NF != "total" { s += $1 } END { print s }' mods)
expect_eq "sum of modules" "$(total_of t)" "$sum"
[ -s t/vdso ] || fail "no vdso image in the trace"
"$POST" -i t dump --tasks | grep -q 'MMAP.*path \[vdso\]' || fail "no [vdso] MMAP record"
echo "PASS"
