#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/arc_exception.cc: an exception thrown 5 frames down and caught
# in main, three times: the thrower frames are unwound (not returned from)
# and main goes on; counts equal callgrind's under the same demangled names
# (libstdc++'s own functions included); --no-demangle shows nm's names and
# --symbol takes either form.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

command -v nm >/dev/null && command -v c++filt >/dev/null || skip "binutils (nm, c++filt) missing"
command -v python3 >/dev/null || skip "python3 is not installed"
LD_BIND_NOW=1 arc_record oracle "$PROGS/arc_exception"
arc_check oracle 40

# The static thrower(int) as the symbol table has it, and demangled by binutils.
raw=$(nm "$PROGS/arc_exception" | awk '$3 ~ /^_Z.*thrower/ { print $3 }')
[ "$(echo "$raw" | wc -w)" = 1 ] || fail "nm: no single thrower symbol: '$raw'"
shown=$(c++filt "$raw")
expect_eq "c++filt demangles $raw" "thrower(int)" "$shown"

"$POST" -i oracle flow --symbol "$shown" >flow || fail "flow"
expect_eq "thrower calls" 15 "$(grep -cF "> $shown" flow)"
expect_eq "thrower frames unwound" 15 "$(grep -c '< thrower(int) (.*, unwound)' flow)"
expect_eq "main returns normally" 1 \
	"$("$POST" -i oracle flow --symbol main | grep -c '< main (incl [0-9]*, self [0-9]*)$')"
"$POST" -i oracle flow --symbol "$raw" >flow.raw || fail "flow --symbol $raw"
expect_same_file "flow --symbol $raw (but for the filter line)" \
	<(grep -v '^# filter' flow) <(grep -v '^# filter' flow.raw)

# --no-demangle: nm's names in every report, either form still selects.
"$POST" -i oracle --no-demangle flow --symbol "$shown" >flow.nd || fail "flow --no-demangle"
expect_eq "--no-demangle thrower calls" 15 "$(grep -c "> $raw\$" flow.nd)"
"$POST" -i oracle profile --no-demangle >profile.nd || fail "profile --no-demangle"
grep -q "  $raw \[arc_exception\]\$" profile.nd || fail "--no-demangle profile lacks $raw"
grep -v '^#' profile.nd | grep -q '(' &&
	fail "--no-demangle profile shows a demangled name: $(grep -v '^#' profile.nd | grep '(' | head -1)"
"$POST" -i oracle profile >profile || fail "profile"
expect_eq "functions with and without demangling" \
	"$(sed -n 's/^# \([0-9][0-9]*\) functions$/\1/p' profile.nd)" \
	"$(sed -n 's/^# \([0-9][0-9]*\) functions$/\1/p' profile)"
# Each raw C++ name of the program shows as c++filt demangles it.
for r in $(awk '{ print $NF, $(NF-1) }' profile.nd | awk '$1 == "[arc_exception]" && $2 ~ /^_Z/ { print $2 }'); do
	d=$(c++filt "$r")
	grep -qF "  $d [arc_exception]" profile || fail "profile: $r not shown as '$d'"
done

# Reports and exports use the demangled names; callgrind's are the same.
"$POST" -i oracle export --format folded -o folded || fail "export folded"
grep -q ';thrower(int);thrower(int) [0-9]*$' folded || fail "folded: no thrower(int) frames"
awk '{ if ($NF !~ /^[0-9]+$/) { print "bad line: " $0; exit 1 } }' folded || fail "folded count"
"$POST" -i oracle export --format chrome --clock steps -o chrome.json || fail "export chrome"
expect_eq "chrome: thrower(int) begins" 15 "$(python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print(sum(1 for e in ev if e["ph"] == "B" and e["name"] == "thrower(int)"))' chrome.json)"
arc_oracle "$PROGS/arc_exception" main "thrower(int)" \
	"__cxxabiv1::__class_type_info::__do_catch(std::type_info const*, void**, unsigned int) const" \
	"__cxa_throw" "_Unwind_RaiseException"
echo "PASS"
