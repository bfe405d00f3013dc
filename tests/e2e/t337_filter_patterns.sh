#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Filters as perf and uftrace users write them, on a dynamically linked
# program's trace (tests/progs/filter_strings.c: strlen, strcmp, memcpy
# through glibc's ifuncs, clock_gettime in the vDSO): repeated --symbol
# and comma lists add up; globs and re: regular expressions select what
# the unfiltered report's names say they should; an ifunc's name takes the
# implementation the trace ran (__strlen_evex...), =NAME only itself;
# --module vdso takes [vdso]; pitrace record --on takes the same patterns
# and refuses one that matches too many functions.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog filter_strings
prog=$PROGS/filter_strings
command -v readelf >/dev/null || skip "binutils not installed"
libc=$(ldd "$prog" | awk '$1 ~ /^libc\.so/ { print $3 }')
[ -n "$libc" ] || skip "filter_strings is not linked with glibc"
readelf -sW "$libc" | awk '$4 == "IFUNC" && $8 ~ /^strlen@/' | grep -q . ||
	skip "this glibc's strlen is not an ifunc"

"$PITRACE" record --on main -o t "$prog" >/dev/null 2>err || fail "record --on main: $(cat err)"

# rows TRACE [options]: "module symbol count" of counts --by symbol, sorted
rows() {
	local trace=$1
	shift
	"$POST" -i "$trace" counts --by symbol "$@" 2>>"$TMP/warnings" |
		awk '!/^#/ && NF == 4 && $4 != "total" { print $3, $4, $1 }' | sort
}
rows t >all
[ -s all ] || fail "no rows in the unfiltered counts"
# want AWK-CONDITION: the unfiltered rows whose symbol ($2) passes
want() { awk "$1" all; }

: >"$TMP/warnings"
# Repeated --symbol and a comma list: both functions with their implementations.
want '$2 ~ /^(strlen|strcmp|__strlen_.+|__strcmp_.+)$/' >want.both
grep -q ' __strlen_' want.both && grep -q ' __strcmp_' want.both ||
	fail "the trace ran no __strlen_*/__strcmp_* implementation: $(cat all)"
rows t --symbol strlen --symbol strcmp >got
expect_same_file "--symbol strlen --symbol strcmp" want.both got
rows t --symbol strlen,strcmp >got
expect_same_file "--symbol strlen,strcmp" want.both got
"$POST" -i t counts --symbol strlen --symbol strcmp | grep -qx '# filter: symbol strlen, symbol strcmp' ||
	fail "filter line of repeated --symbol"

# An ifunc's name: its resolver and the implementation it chose; =NAME: the resolver only.
want '$2 ~ /^(strlen|__strlen_.+)$/' >want.strlen
rows t --symbol strlen >got
expect_same_file "--symbol strlen (ifunc)" want.strlen got
want '$2 == "strlen"' >want.exact
rows t --symbol =strlen >got
expect_same_file "--symbol =strlen" want.exact got

# A glob and a regular expression.
want '$2 ~ /^str/' >want.glob
rows t --symbol 'str*' >got
expect_same_file "--symbol 'str*'" want.glob got
want '$2 ~ /^__(strlen|memcpy)_/' >want.re
[ -s want.re ] || fail "no __strlen_/__memcpy_ rows"
rows t --symbol 're:^__(strlen|memcpy)_' >got
expect_same_file "--symbol re:" want.re got
# Modules too, repeated and as globs.
awk '$1 == "filter_strings" || $1 ~ /^ld-/' all >want.mod
rows t --module filter_strings --module 'ld*' >got
expect_same_file "--module filter_strings --module 'ld*'" want.mod got
[ -s "$TMP/warnings" ] && fail "warnings for filters that match: $(cat "$TMP/warnings")"

# One warning for the one item of a list that matches nothing.
"$POST" -i t counts --symbol nosuch,strlen >/dev/null 2>err || fail "counts --symbol nosuch,strlen"
expect_eq "warnings" "post: warning: --symbol nosuch matches no function (post profile lists them)" "$(cat err)"
"$POST" -i t counts --symbol 're:(' >/dev/null 2>err
expect_eq "exit status of a bad regular expression" 2 $?
grep -q "^post: error: counts: --symbol: '(' is not a regular expression" err || fail "bad re: $(cat err)"

# --module vdso: the vDSO's native run, and nothing else's.
for m in vdso '[vdso]'; do
	"$POST" -i t counts --module "$m" >vd 2>err || fail "counts --module $m"
	[ -s err ] && fail "--module $m: $(cat err)"
	grep -Eq '^ +1 +.* \[vdso\] +clock_gettime \(native\)$' vd || fail "--module $m: $(cat vd)"
done
"$POST" -i t counts --module libc | grep -q '\[vdso\]' && fail "--module libc shows the vDSO's run"

# record --on with the same patterns: each work_ function, one activation each.
"$PITRACE" record --on 'work_*' -o on >/dev/null 2>err "$prog" || fail "record --on 'work_*': $(cat err)"
"$POST" -i on profile >prof || fail "profile of --on 'work_*'"
for fn in work_len work_cmp; do
	expect_eq "--on 'work_*': calls of $fn" 1 "$(awk -v f="$fn" '!/^#/ && $6 == f { print $1 }' prof)"
done
grep -q ' main \[' prof && fail "--on 'work_*' recorded main"
cum=$(awk '!/^#/ && $6 ~ /^work_/ { s += $4 } END { print s }' prof)
expect_eq "--on 'work_*': the trace is the two calls" "$(total_of on)" "$cum"
"$PITRACE" record --on work_len,re:^work_cmp$ -o on2 >/dev/null 2>&1 "$prog" || fail "record --on list"
expect_eq "--on list and glob: the same steps" "$(total_of on)" "$(total_of on2)"
"$PITRACE" record --on '*' -o star "$prog" >/dev/null 2>err
expect_eq "exit status of record --on '*'" 2 $?
grep -Eq "^pitrace: error: --on \*: more than [0-9]+ functions match in " err || fail "--on '*': $(cat err)"
"$PITRACE" record --on 're:(' -o bad "$prog" >/dev/null 2>err
expect_eq "exit status of record --on 're:('" 2 $?
grep -q "^pitrace: error: record: --on: '(' is not a regular expression" err || fail "--on re:(: $(cat err)"
echo "PASS"
