#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian's stripped /bin/gzip and /bin/true: code without symbols is cut
# into functions by the FDEs of .eh_frame, named MODULE+0xVADDR of their
# entry; the call tree nests them, every return matches, no "[gzip]"
# pseudo-function is left in the hot rows, and --on takes such a name.
# Code no FDE covers (crtbegin.o's) is cut at the calls into it.
# main, which no symbol names, is found from the entry code and named main.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

command -v readelf >/dev/null || skip "readelf (binutils) missing"
for p in /bin/gzip /bin/true; do
	[ -x "$p" ] || skip "$p missing"
	readelf -SW "$p" | grep -q ' \.symtab ' && skip "$p is not stripped"
	readelf -SW "$p" | grep -q ' \.eh_frame_hdr ' || skip "$p has no .eh_frame_hdr"
done
# The FDE entries of a file, as readelf reads them: "0x4290" a line.
fde_entries() {
	readelf --debug-dump=frames "$1" | sed -n 's/.* FDE .* pc=0*\([0-9a-f]*\)\.\..*/0x\1/p'
}
# Is 0xADDR inside an FDE of FILE?  in_fde FILE 0xADDR
in_fde() {
	local lo hi
	while read -r lo hi; do
		[ $(($2)) -ge $((16#$lo)) ] && [ $(($2)) -lt $((16#$hi)) ] && return 0
	done < <(readelf --debug-dump=frames "$1" |
		sed -n 's/.* FDE .* pc=0*\([0-9a-f]*\)\.\.0*\([0-9a-f]*\)$/\1 \2/p')
	return 1
}
# Small: most steps are gzip's set-up; each byte compressed adds ~140.
head -c 300 "$ROOT/docs/symbols.md" >in.txt

arc_record gz /bin/gzip -c in.txt
arc_check gz 40
expect_eq "gzip unmatched returns" 0 "$(arc_stat gz unmatched)"
"$POST" -i gz counts --by symbol --module gzip --top 10 >counts || fail "counts"
grep -q '\[gzip\]' counts && fail "counts has a [gzip] pseudo-function: $(grep '\[gzip\]' counts)"
expect_eq "top gzip rows named gzip+0x... or main" 10 \
	"$(grep -v '^#' counts | grep -c -E ' (gzip\+0x[0-9a-f]*|main)$')"
# Each is a whole function: the entry of one of gzip's FDEs.
fde_entries /bin/gzip >fdes
[ "$(wc -l <fdes)" -gt 50 ] || fail "readelf lists $(wc -l <fdes) FDEs of /bin/gzip"
for f in $(grep -v '^#' counts | awk '$NF ~ /^gzip\+/ { sub(/^gzip\+/, "", $NF); print $NF }'); do
	grep -qx "$f" fdes || fail "gzip+$f is no FDE entry of /bin/gzip"
done
# The tree nests them: a gzip+0x function under another.
"$POST" -i gz tree >tree || fail "tree"
awk '/  gzip\+0x/ { ind = match($0, /gzip\+0x/); if (prev && ind > prev) nested = 1; prev = ind }
	!/gzip\+0x/ { prev = 0 } END { exit !nested }' tree || fail "tree: no nested gzip+0x frames"
"$POST" -i gz profile >profile || fail "profile"
# Only crtbegin.o's few steps (no FDE; frame_dummy, reached from .init_array, is a call target) may stay.
awk '$NF == "[gzip]" && $(NF-1) == "[gzip]" && $2 > 100 { exit 1 }' profile ||
	fail "profile: [gzip] pseudo-function: $(grep '  \[gzip\] \[gzip\]$' profile)"

# --on takes the name: the most called gzip+0x function with callees, recorded alone.
fn=$(awk '$NF == "[gzip]" && $(NF-1) ~ /^gzip\+0x/ && $1 > 1 && $4 > $2 { print $(NF-1); exit }' profile)
[ -n "$fn" ] || fn=$(awk '$NF == "[gzip]" && $(NF-1) ~ /^gzip\+0x/ && $1 > 1 { print $(NF-1); exit }' profile)
[ -n "$fn" ] || fail "profile: no gzip+0x function called more than once"
grep -qx "${fn#gzip+}" fdes || fail "$fn is no FDE entry of /bin/gzip"
calls=$(awk -v f="$fn" '$(NF-1) == f { print $1 }' profile)
cum=$(awk -v f="$fn" '$(NF-1) == f { print $4 }' profile)
"$PITRACE" record --on "$fn" -o on -- /bin/gzip -c in.txt >/dev/null 2>on.err ||
	{ cat on.err; fail "record --on $fn"; }
"$POST" -i on profile >on.prof || fail "profile of --on $fn"
expect_eq "--on $fn: its calls" "$calls" "$(awk -v f="$fn" '$(NF-1) == f { print $1 }' on.prof)"
expect_eq "--on $fn: only its activations' steps" "$cum" \
	"$("$POST" -i on counts --by symbol | awk '$NF == "total" { print $1 }')"
expect_eq "--on $fn: root functions" "$fn" \
	"$("$POST" -i on tree | awk '$6 ~ /^gzip\+0x/ && /^ *0 / { print $6 }' | sort -u)"
# --symbol and annotate --symbol select it by that name.
"$POST" -i gz counts --symbol "$fn" --by symbol >sel || fail "counts --symbol $fn"
expect_eq "--symbol $fn rows" "$fn" "$(grep -v '^#' sel | awk '$NF != "total" { print $NF }')"
"$POST" -i gz annotate --symbol "$fn" >ann || fail "annotate --symbol $fn"
grep -q "^# function $fn \[gzip\] at ${fn#gzip+}, " ann || fail "annotate: $(grep '^# function' ann)"

# main: in counts and arc, whole (it is an FDE's entry), and --on main records exactly its Cum.
"$POST" -i gz counts --by symbol --module gzip >all.counts || fail "counts --module gzip"
grep -q '  gzip  *main$' all.counts || fail "counts: no main of gzip"
"$POST" -i gz arc >arc || fail "arc"
grep -q '%  main \[gzip\]$' arc || fail "arc: no main [gzip]"
"$POST" -i gz annotate --symbol main >ann.main || fail "annotate --symbol main"
main_at=$(sed -n 's/^# function main \[gzip\] at \(0x[0-9a-f]*\), .*/\1/p' ann.main)
grep -qx "$main_at" fdes || fail "main of gzip at '$main_at': no FDE entry of /bin/gzip"
main_cum=$(awk '$(NF-1) == "main" && $NF == "[gzip]" { print $4 }' profile)
[ -n "$main_cum" ] || fail "profile: no main [gzip]"
"$PITRACE" record --on main -o onmain -- /bin/gzip -c in.txt >/dev/null 2>onmain.err ||
	{ cat onmain.err; fail "record --on main"; }
expect_eq "--on main: the steps of main's Cum" "$main_cum" \
	"$("$POST" -i onmain counts --by symbol | awk '$NF == "total" { print $1 }')"
expect_eq "--on main: one root, main" "main" \
	"$("$POST" -i onmain tree | awk '/^ *0 / { print $6 }' | sort -u)"

arc_record tr /bin/true
expect_eq "true unmatched returns" 0 "$(arc_stat tr unmatched)"
"$POST" -i tr profile >tr.prof || fail "profile of true"
grep -q ' true+0x[0-9a-f]* \[true\]$' tr.prof || fail "true: no true+0x function"
awk '$NF == "[true]" && $(NF-1) == "[true]" && $2 > 100 { exit 1 }' tr.prof ||
	fail "true: [true] pseudo-function: $(grep '  \[true\] \[true\]$' tr.prof)"
fde_entries /bin/true >tfdes
for f in $(awk '$NF == "[true]" && $(NF-1) ~ /^true\+0x/ && $1 > 0 { sub(/^true\+/, "", $(NF-1)); print $(NF-1) }' tr.prof); do
	grep -qx "$f" tfdes || [ "$(readelf -SW /bin/true | awk -v a="${f#0x}" '$2 ~ /^\.(init|fini)$/ && $4 ~ a"$"')" ] ||
		! in_fde /bin/true "$f" ||
		fail "true+$f is no FDE entry nor .init/.fini of /bin/true, nor a call target no FDE covers"
done
echo "PASS"
