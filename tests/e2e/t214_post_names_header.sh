#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reports a user reads as they are: a function and a program named in
# UTF-8 (café, as gcc accepts it) keep the tables aligned by the columns a
# terminal shows; the command line in each report's header is quoted as a
# shell would and cut when long (post info shows it whole); a traced
# binary that is no longer there is said once, with the ways out.
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || skip "gcc is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"

cat >cafe.c <<'C'
static volatile int sink;
__attribute__((noinline)) void café(int n) { for (int i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void tea(int n) { for (int i = 0; i < n; i++) sink ^= i; }
void _start(void)
{
	café(30);
	tea(10);
	__asm__ volatile("mov $60, %eax; xor %edi, %edi; syscall");
}
C
gcc -O1 -g -static -nostdlib -fno-stack-protector -fcf-protection=none -o café cafe.c ||
	fail "cannot build café"
# 40 arguments of 3,000 bytes: a 120 KB command line after three to quote
big=$(printf 'x%.0s' $(seq 3000))
bigs=()
for _ in $(seq 40); do bigs+=("$big"); done
"$PITRACE" record -o c.data -- ./café "a b" "it's" $'x\ny' "${bigs[@]}" 2>/dev/null ||
	fail "record café"

# aligned: each table's last column starts at the same character on every row
# (python counts characters: é is one, as a terminal shows it)
aligned() {
	python3 -c '
import sys
rows = [l.rstrip("\n") for l in open(sys.argv[1], encoding="utf-8") if not l.startswith("#")]
rows = [r for r in rows if not r.rstrip().endswith("total")]
starts = {r.rindex("  ") for r in rows}
assert len(rows) >= 3 and len(starts) == 1, "columns differ: %r" % rows
' "$1"
}
for by in symbol line insn; do
	LC_ALL=C "$POST" -i c.data counts --by "$by" >"by-$by" || fail "counts --by $by"
	aligned "by-$by" || { cat "by-$by"; fail "counts --by $by: not aligned (LC_ALL=C)"; }
	LC_ALL=C.UTF-8 "$POST" -i c.data counts --by "$by" >"by-$by.utf8" || fail "counts --by $by"
	expect_same_file "counts --by $by in C.UTF-8" "by-$by" "by-$by.utf8"
done
grep -q '^ *184  *72\.16%  café  *café$' by-symbol || { cat by-symbol; fail "café's row"; }
"$POST" -i c.data steps --to 3 >steps.out || fail "steps"
python3 -c '
import sys
rows = [l for l in open(sys.argv[1], encoding="utf-8") if not l.startswith("#")]
assert len({r.index(" cafe.c:") for r in rows}) == 1, rows
' steps.out || { cat steps.out; fail "steps: the source column is not aligned"; }

# the header: quoted, cut after 200 bytes with how much more; post info whole
line=$(grep '^# command: ' by-symbol)
quoted="'./café' 'a b' \$'it\\'s' \$'x\\ny'"
case "$line" in
"# command: $quoted xxx"*) ;;
*) fail "header's command not quoted: ${line:0:120}" ;;
esac
whole_len=$(( $(printf %s "$quoted" | wc -c) + 40 * (3000 + 1) ))
shown=${line#\# command: }
shown=${shown%%... (*}
more=$(sed -n 's/.*\.\.\. (\([0-9]*\) more bytes)$/\1/p' <<<"$line")
[ -n "$more" ] || fail "header's command not cut: ${#line} bytes"
expect_eq "shown + more bytes" "$whole_len" "$(( $(printf %s "$shown" | wc -c) + more ))"
[ "$(printf %s "$line" | wc -c)" -lt 300 ] || fail "header line of $(printf %s "$line" | wc -c) bytes"
info=$("$POST" -i c.data info | grep '^command:')
expect_eq "post info: the whole command" "command:     $quoted ${bigs[*]}" "$info"

# the binary moved: one warning naming it and the ways out; --symfs finds it
mkdir -p root"$TMP" && mv café root"$TMP"/
"$POST" -i c.data counts --by symbol >moved.out 2>err || fail "counts with café moved"
expect_eq "warnings" 1 "$(wc -l <err)"
expect_eq "the warning" "post: warning: $TMP/café: not found (moved or deleted since it was traced): its code shows as café+0x...; --symfs DIR reads it under DIR, and 'pitrace archive' keeps a trace's files while they are there" "$(cat err)"
grep -q 'café+0x' moved.out || fail "rows not shown as café+0x...: $(cat moved.out)"
"$POST" -i c.data --symfs root counts --by symbol >symfs.out 2>err || fail "--symfs"
[ -s err ] && fail "--symfs: $(cat err)"
expect_same_file "--symfs" <(grep -v '^#' by-symbol) <(grep -v '^#' symfs.out)

# --unpack given the trace instead of its archive: said in pitrace's words
run_expect_status "--unpack a trace" 1 "$PITRACE" archive --unpack c.data 2>err
expect_eq "--unpack a trace" "pitrace: error: archive: c.data is a trace, not an archive: 'pitrace archive c.data' writes c.data.tar.zst, which --unpack takes" "$(cat err)"
echo "PASS"
