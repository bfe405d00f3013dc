#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/arc_nosym.c calls assembly without CFI; stripped, neither a
# symbol nor an FDE covers it.  That code is cut into functions at the
# calls into it the trace shows, named MODULE+0xVADDR: every report of
# the stripped build equals the unstripped one's (where the assembly has
# symbols), names aside (main keeps its name, found from the entry code),
# with the calls known by construction; a trace
# whose code is all covered takes no pass to find them.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

prog=$PROGS/arc_nosym
[ -x "$prog" ] || skip "$prog is not built (make progs)"
for t in strip nm readelf; do
	command -v $t >/dev/null || skip "$t (binutils) missing"
done
mkdir s && strip -o s/arc_nosym "$prog" || fail "strip $prog"
[ -z "$(nm s/arc_nosym 2>/dev/null)" ] || fail "s/arc_nosym has symbols: $(nm s/arc_nosym | head -3)"
# The functions' addresses: "main 0x1040" a line.
nm --defined-only "$prog" | while read -r a t n; do
	case $t in t | T) printf '%s 0x%x\n' "$n" "$((16#$a))" ;; esac
done >addrs
addr() { awk -v n="$1" '$1 == n { print $2 }' addrs; }
for f in main asm_outer asm_inner asm_leaf c_back; do
	[ -n "$(addr $f)" ] || fail "nm gives no address of $f in $prog"
done
# No FDE covers the assembly.
readelf --debug-dump=frames "$prog" | sed -n 's/.* FDE .* pc=0*\([0-9a-f]*\)\.\.0*\([0-9a-f]*\)$/\1 \2/p' |
	while read -r lo hi; do
		for f in asm_outer asm_inner asm_leaf; do
			a=$(($(addr $f)))
			[ "$a" -ge "$((16#$lo))" ] && [ "$a" -lt "$((16#$hi))" ] && echo "$f"
		done
	done >covered
[ -s covered ] && fail "an FDE covers $(cat covered)"

# Both builds recorded from main on: a few hundred steps, no startup code.
"$PITRACE" record --on main -o u -- "$prog" >u.out 2>&1 || { cat u.out; fail "record --on main"; }
# main keeps its name stripped: it is found from the entry code
"$PITRACE" record --on main -o st -- s/arc_nosym >s.out 2>&1 ||
	{ cat s.out; fail "record --on main of the stripped build"; }
arc_verify u
arc_verify st
"$POST" -i st --verify annotate >verify.out 2>&1 || { cat verify.out; fail "--verify annotate"; }
arc_check u 8
arc_check st 8
expect_eq "unmatched returns" 0 "$(arc_stat st unmatched)"

# The unstripped build's reports with each function named as the stripped one's.
names=()
for f in asm_outer asm_inner asm_leaf c_back; do
	names+=(-e "s/\\b$f\\b/arc_nosym+$(addr $f)/g")
done
# compare WHAT ARGS...: post ARGS on both, the unstripped output renamed.
compare() {
	local what=$1
	shift
	"$POST" -i u "$@" >u.rep || fail "post $what"
	mapfile -t sargs < <(printf '%s\n' "$@" | sed "${names[@]}")
	"$POST" -i st "${sargs[@]}" >s.rep || fail "post $what on the stripped build"
	arc_norm u <u.rep | grep -v '^#' | sed "${names[@]}" | tr -s ' ' >u.cmp
	arc_norm st <s.rep | grep -v '^#' | tr -s ' ' >s.cmp
	expect_same_file "$what of the stripped build" u.cmp s.cmp
}
compare profile profile
compare arc arc
compare tree tree
compare "arc --symbol asm_inner" arc --symbol asm_inner
compare counts counts --by symbol
compare flow flow
grep -q '\[arc_nosym\]  *\[arc_nosym\]' <("$POST" -i st profile) && fail "a [arc_nosym] pseudo-function"
# The calls, known by construction.
calls() { awk -v f="$1" '$(NF-1) == f { print $1 }' s.prof; }
"$POST" -i st profile >s.prof || fail "profile"
expect_eq "calls of asm_outer" 3 "$(calls arc_nosym+$(addr asm_outer))"
expect_eq "calls of asm_inner" 12 "$(calls arc_nosym+$(addr asm_inner))"
expect_eq "calls of c_back" 12 "$(calls arc_nosym+$(addr c_back))"
expect_eq "calls of asm_leaf" 2 "$(calls arc_nosym+$(addr asm_leaf))"
# Exports and annotate name them so too.
"$POST" -i st export --format callgrind -o cg.out || fail "export"
grep -q "^fn=.*arc_nosym+$(addr asm_inner)\$" cg.out || fail "callgrind: no fn arc_nosym+$(addr asm_inner)"
"$POST" -i st annotate --symbol "arc_nosym+$(addr asm_inner)" >ann || fail "annotate"
grep -q "^# function arc_nosym+$(addr asm_inner) \[arc_nosym\] at $(addr asm_inner), " ann ||
	fail "annotate: $(grep '^# function' ann)"

# Only a trace that runs code no function covers takes the pass that finds the calls.
"$POST" -v -i st arc >/dev/null 2>err || fail "post -v arc"
grep -q 'cut at the calls into it' err || fail "stripped: no pass for the calls: $(cat err)"
"$POST" -v -i u arc >/dev/null 2>err || fail "post -v arc"
grep -q 'cut at the calls into it' err && fail "unstripped: a pass for the calls"
echo "PASS"
