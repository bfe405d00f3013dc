#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Symbol resolution on real recordings: PLT entries (lazy .plt and IBT
# .plt.sec) named sym@plt with one row per call, a static function and its
# source lines as addr2line gives them, and [vdso] named from the image the
# recorder saved (its calls run natively: rows of their own).  tests/progs/sym_plt_vdso.c makes CALLS calls of each.
. "$(dirname "$0")/lib.sh"
for p in sym_plt_vdso sym_plt_ibt; do
	[ -x "$PROGS/$p" ] || skip "$p not built (make progs)"
done
command -v objdump >/dev/null && command -v addr2line >/dev/null || skip "binutils not installed"
"$PITRACE" record -o probe true >/dev/null 2>&1 || skip "pitrace record cannot trace here"

CALLS=$(sed -n 's/^#define CALLS \([0-9]*\)$/\1/p' "$ROOT/tests/progs/sym_plt_vdso.c")
[ -n "$CALLS" ] || fail "no CALLS in sym_plt_vdso.c"

# count TRACE MODULE NAME: the instructions post counts for one symbol
count() {
	"$POST" -i "$1" counts --by symbol --module "$2" | awk -v n="$3" '!/^#/ && $NF == n { print $1 }'
}

# instructions of PLT entry NAME up to its indirect jump: what one call
# executes once the symbol is bound (LD_BIND_NOW below)
plt_insns() {
	objdump -d "$1" | awk -v e="<$2>:" '
		$0 ~ e { on = 1; next }
		on && /^ +[0-9a-f]+:/ { n++; if ($0 ~ /jmp/) { print n; exit } }
		on && /^$/ { exit }'
}

for p in sym_plt_vdso sym_plt_ibt; do
	prog=$PROGS/$p
	LD_BIND_NOW=1 "$PITRACE" record -o "$p.tr" "$prog" >"$p.out" 2>&1 || fail "record $p: exit $?"
	for fn in puts clock_gettime; do
		per=$(plt_insns "$prog" "$fn@plt")
		[ -n "$per" ] || fail "$p: objdump shows no $fn@plt"
		expect_eq "$p: $fn@plt instructions" "$((CALLS * per))" "$(count "$p.tr" "$p" "$fn@plt")"
	done
	per=$(plt_insns "$prog" printf@plt)
	expect_eq "$p: printf@plt instructions" "$per" "$(count "$p.tr" "$p" printf@plt)"

	# helper: straight-line code, every instruction runs once a call
	objdump -d --no-show-raw-insn "$prog" | awk '/<helper>:/ { on = 1; next }
		on && /^ +[0-9a-f]+:/ { sub(":", "", $1); print $1 } on && /^$/ { exit }' >helper.insns
	n=$(wc -l <helper.insns)
	[ "$n" -gt 0 ] || fail "$p: objdump shows no helper"
	expect_eq "$p: helper instructions" "$((CALLS * n))" "$(count "$p.tr" "$p" helper)"

	# its lines, in sym_plt_vdso.c: CALLS times the instructions addr2line
	# puts on each line number (only the number: binutils 2.40 names the
	# including file, sym_plt_ibt.c, for DWARF 5 file 1; gdb does not)
	sed 's/^/0x/' helper.insns | addr2line -e "$prog" | sed 's/ (discriminator.*//; s/.*://' |
		sort | uniq -c | awk -v c="$CALLS" '{ print $1 * c, $2 }' | sort >want.lines
	[ -s want.lines ] || fail "$p: addr2line gave no lines for helper"
	"$POST" -i "$p.tr" counts --by line --module "$p" |
		awk '!/^#/ && $NF ~ /\/sym_plt_vdso\.c:/ { sub(".*:", "", $NF); print $1, $NF }' >all.lines
	awk 'NR == FNR { n[$2] = $1; next } { print ($2 in n) ? n[$2] : 0, $2 }' all.lines want.lines \
		>got.lines
	expect_same_file "$p: helper's lines (addr2line's, times CALLS)" want.lines got.lines

	# [vdso]: clock_gettime runs there, natively (docs/record.md), CALLS runs in
	# the rows after the table; every name is one the saved image has
	[ -f "$p.tr/vdso" ] || fail "$p: no vdso image saved in the trace"
	"$POST" -i "$p.tr" counts --by symbol >all.counts
	awk '$3 == "[vdso]" && $NF == "(native)" { print $(NF - 1) }' all.counts >vdso.names
	[ -s vdso.names ] || fail "$p: no [vdso] function named: $(cat all.counts)"
	expect_eq "$p: native [vdso] runs" "$CALLS" \
		"$(awk '$3 == "[vdso]" && $NF == "(native)" { n += $1 } END { print n }' all.counts)"
	objdump -T "$p.tr/vdso" | awk '$4 == ".text" { print $NF }' | sort -u >vdso.funcs
	while read -r name; do
		grep -qxF "$name" vdso.funcs || fail "$p: [vdso] symbol $name is not in the image"
	done <vdso.names
done
echo PASS
