#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/arc_names.S: which names are demangled and how reports and
# exports write them (counts in the program's header).  Only a real C++
# name changes (as c++filt demangles it); "i" stays (not the type int), the
# broken _ZN3foo stays; folded stacks write "odd;name" as "odd:name" so the
# line still splits into its frames; --no-demangle shows nm's names.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

command -v nm >/dev/null && command -v c++filt >/dev/null || skip "binutils (nm, c++filt) missing"
arc_record names "$PROGS/arc_names"
arc_check names 3
for raw in _ZN2ns1fEi i _ZN3foo 'odd;name'; do
	nm "$PROGS/arc_names" | grep -q " t $raw\$\| T $raw\$" || fail "nm: no function $raw"
done
cxx=$(c++filt _ZN2ns1fEi)
expect_eq "c++filt _ZN2ns1fEi" "ns::f(int)" "$cxx"

"$POST" -i names export --format folded -o folded || fail "export folded"
printf '%s\n' "_start 4" "_start;$cxx 4" "_start;$cxx;_ZN3foo 1" "_start;$cxx;i 2" \
	"_start;$cxx;odd:name 3" >want
expect_same_file "folded stacks" want folded
# Split as flame-graph tools do: count after the last space, frames at ';'.
expect_eq "folded: frames and counts" "1:4 2:4 3:1 3:2 3:3" \
	"$(awk '{ c = $NF; sub(/ [0-9]+$/, ""); printf "%s%d:%s", (NR > 1 ? " " : ""), split($0, f, ";"), c }' folded)"
"$POST" -i names --no-demangle export --format folded -o folded.raw || fail "folded --no-demangle"
sed "s/$cxx/_ZN2ns1fEi/" want >want.raw
expect_same_file "folded stacks, --no-demangle" want.raw folded.raw

"$POST" -i names counts --by symbol >counts || fail "counts"
for row in "4 _start" "4 $cxx" "3 odd;name" "2 i" "1 _ZN3foo"; do
	awk -v c="${row%% *}" -v s="  ${row#* }" '$1 == c && substr($0, length($0) - length(s) + 1) == s { f = 1 }
		END { exit !f }' counts || fail "counts: no row '$row'"
done
"$POST" -i names profile >profile || fail "profile"
grep -qF "  $cxx [arc_names]" profile || fail "profile: no $cxx"
expect_eq "profile: $cxx calls, Base, Cum" "1 4 10" \
	"$(grep -F "  $cxx [arc_names]" profile | awk '{ print $1, $2, $4 }')"
"$POST" -i names profile --no-demangle >profile.raw || fail "profile --no-demangle"
expect_same_file "profile, --no-demangle" <(sed "s/$cxx/_ZN2ns1fEi/" profile) profile.raw

# --symbol takes either form, with or without --no-demangle.
for opt in "" --no-demangle; do
	for sym in _ZN2ns1fEi "$cxx"; do
		"$POST" -i names $opt arc --symbol "$sym" >arc || fail "arc $opt --symbol $sym"
		expect_eq "arc $opt --symbol $sym: callees" 3 "$(grep -c ' > ' arc)"
	done
done
"$POST" -i names arc --symbol 'ns::f' >arc || fail "arc --symbol ns::f"
expect_eq "a name is matched whole" 0 "$(grep -c ' > ' arc)"

"$POST" -i names export --format callgrind -o names.cg || fail "export callgrind"
grep -qx "fn=$cxx" names.cg || fail "callgrind: no fn=$cxx"
if command -v callgrind_annotate >/dev/null; then
	callgrind_annotate names.cg >ann 2>ann.err && [ ! -s ann.err ] ||
		{ cat ann.err; fail "callgrind_annotate"; }
	grep -qF "$cxx" ann || fail "callgrind_annotate does not show $cxx"
fi
echo "PASS"
