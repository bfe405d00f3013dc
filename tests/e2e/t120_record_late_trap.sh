#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Late step traps: a hypervisor that emulates cpuid (KVM) may deliver its
# step trap one instruction late, so the instruction after it would be
# missing.  pt_cpuid runs 1,000 cpuids in a loop (the dec after each must
# count 1000) and one in main before three nops (the first must count 1).
# Recorded as it is, and with the recorder's restoration off
# (PITRACE_NO_RESTORE=1) so that post restores: every report is the same,
# and nothing is an unexplained asynchronous entry.  /bin/true (glibc's
# start-up runs cpuid) has no unexplained entry either way.  Synthetic
# traces of pt_cpuid's main: one step skipped is restored, two are a GAP.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_cpuid mktrace
command -v objdump >/dev/null || skip "objdump not installed"
PROG=$PROGS/pt_cpuid

# stat TRACE KEY: a number from the first line of post arc --check
stat() { "$POST" -i "$1" arc --check | head -1 | tr ' ' '\n' | sed -n "/^$2\$/{n;p}"; }
# insn TRACE ADDR: the count of the instruction at ADDR (hex, no 0x)
insn() { "$POST" -i "$1" counts --by insn | awk -v a="0x$2" '!/^#/ && $3 == a { print $1; exit }'; }

# main's and cpuid_loop's instructions: "addr function mnemonic"
objdump -d --no-show-raw-insn "$PROG" | awk '
	/^[0-9a-f]+ <.*>:$/ { fn = substr($2, 2, length($2) - 3) }
	/^ +[0-9a-f]+:/ && (fn == "main" || fn == "cpuid_loop") { sub(":", "", $1); print $1, fn, $2 }' >insns
after() { awk -v f="$1" -v m="$2" '$2 == f && prev == m { print $1; exit } $2 == f { prev = $3 }' insns; }
loop_dec=$(after cpuid_loop cpuid)
main_nop=$(after main cpuid)
[ -n "$loop_dec" ] && [ -n "$main_nop" ] || fail "no cpuid in pt_cpuid's disassembly"

# the same environment's length both times: the program's own steps are equal
PITRACE_NO_RESTORE=0 "$PITRACE" -v record -o rec -- "$PROG" >/dev/null 2>rec.err || fail "record: $(cat rec.err)"
PITRACE_NO_RESTORE=1 "$PITRACE" record -o raw -- "$PROG" >/dev/null 2>raw.err || fail "record: $(cat raw.err)"
for t in rec raw; do
	expect_eq "$t: cpuid_loop's instruction after cpuid" 1000 "$(insn $t "$loop_dec")"
	expect_eq "$t: main's first nop after cpuid" 1 "$(insn $t "$main_nop")"
	expect_eq "$t: unexplained" 0 "$(stat $t unexplained)"
	expect_eq "$t: gaps" 0 "$(stat $t gaps)"
done
restored=$(stat rec restored)
expect_eq "restored by post as by the recorder" "$restored" "$(stat raw restored)"
if [ "$restored" = 0 ]; then
	echo "note: this machine delivers cpuid's step trap on time; restoration not needed here"
else
	# every cpuid of the program is late alike: its 1,001 and glibc's
	[ "$restored" -ge 1001 ] || fail "restored $restored steps, fewer than pt_cpuid's 1,001 cpuids"
	grep -q "^pitrace: .*: $restored steps restored after a late step trap" rec.err ||
		fail "pitrace -v does not say it restored $restored steps: $(cat rec.err)"
fi
"$POST" -i rec info | grep -qx "restored:    $restored steps a late step trap skipped (the recorder checked every step)" ||
	fail "post info: $("$POST" -i rec info | grep restored)"
"$POST" -i raw info | grep -q "^restored:    not checked when recorded" || fail "post info of raw"
"$POST" -i raw info --read | grep -qx "restored:    $restored steps a late step trap skipped, by the read; 0 gaps where one could not be" ||
	fail "post info --read: $("$POST" -i raw info --read | grep restored)"
# every report the same, by runs (counts, arc), as encoded and one step at a time (steps)
for report in "counts --by insn" "arc" "tree" "steps --from 38000 --to 38200" "flow --symbol main"; do
	# shellcheck disable=SC2086
	"$POST" -i rec $report | grep -v '^# \(restored\|thread\|.*of trace\)' | sed 's/^\( *[0-9]* *\)[0-9]\+ /\1TID /' >a
	# shellcheck disable=SC2086
	"$POST" -i raw $report | grep -v '^# \(restored\|thread\|.*of trace\)' | sed 's/^\( *[0-9]* *\)[0-9]\+ /\1TID /' >b
	expect_same_file "$report: restored by post as by the recorder" a b
done

# glibc's start-up: every cpuid of it explained
for v in 0 1; do
	rm -rf true
	PITRACE_NO_RESTORE=$v "$PITRACE" record -o true -- /bin/true 2>/dev/null || fail "record /bin/true"
	expect_eq "/bin/true (restoration off: $v): unexplained" 0 "$(stat true unexplained)"
	expect_eq "/bin/true (restoration off: $v): gaps" 0 "$(stat true gaps)"
done

# synthetic: main as it ran, but for the steps its cpuid's late trap skipped
read -r off vaddr memsz < <(readelf -lW "$PROG" | awk '$1 == "LOAD" && $8 == "E" { print $2, $3, $6 }')
main_list() {	# main's instructions from its first xor up to its call of puts, but those in $1
	awk -v skip="$1" '$2 == "main" && $3 == "xor" { go = 1 } go && $3 == "call" { exit }
		go && !index(skip, $1) { printf "%s0x%s*1", sep, $1; sep = "," }' insns
	echo
}
second_nop=$(awk -v a="$main_nop" '$2 == "main" && p == a { print $1; exit } { p = $1 }' insns)
"$PROGS/mktrace" one --mmap "$PROG:$vaddr:$memsz:$off" --pcs "$(main_list "$main_nop")" || fail "mktrace"
"$PROGS/mktrace" two --mmap "$PROG:$vaddr:$memsz:$off" --pcs "$(main_list "$main_nop $second_nop")" || fail "mktrace"
expect_eq "one skipped: the first nop" 1 "$(insn one "$main_nop")"
expect_eq "one skipped: restored" 1 "$(stat one restored)"
expect_eq "one skipped: unexplained" 0 "$(stat one unexplained)"
expect_eq "two skipped: the first nop" "" "$(insn two "$main_nop")"
expect_eq "two skipped: restored" 0 "$(stat two restored)"
expect_eq "two skipped: a gap" 1 "$(stat two gaps)"
expect_eq "two skipped: unexplained" 0 "$(stat two unexplained)"
"$POST" -i two info --read | grep -qx "restored:    0 steps a late step trap skipped, by the read; 1 gaps where one could not be" ||
	fail "post info --read of two: $("$POST" -i two info --read | grep restored)"
echo "PASS"
