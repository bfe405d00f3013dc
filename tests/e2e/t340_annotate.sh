#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# post annotate on programs whose counts are known by construction:
# tests/progs/labels.S (beta's loop runs 4 times: 3 taken branches of 4)
# as goldens in its three layouts, in a window and with --percent total;
# every function's rows add up to its Base; without source lines (DWARF
# stripped: the instructions, saying why; no symbols at all: functions by
# address, cut at the calls and the entry); a source file moved (--source-dir finds it) or edited since;
# C++ names in either form; usage errors.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"

# annot_golden NAME DIR ARGS...: post annotate ARGS on DIR must equal
# expected/NAME, the source tree's path as ROOT
annot_golden() {
	local name=$1 dir=$2
	shift 2
	"$POST" -i "$dir" annotate "$@" >"$TMP/out.raw" 2>"$TMP/err" || { cat "$TMP/err"; fail "annotate $*"; }
	[ ! -s "$TMP/err" ] || fail "annotate $*: unexpected stderr: $(cat "$TMP/err")"
	arc_norm "$dir" <"$TMP/out.raw" | sed "s|$ROOT|ROOT|g" >"$TMP/$name"
	[ -z "${PT_UPDATE_GOLDEN:-}" ] || cp "$TMP/$name" "$EXPECTED/$name"
	expect_same_file "post annotate $*" "$EXPECTED/$name" "$TMP/$name"
}

arc_record labels "$PROGS/labels"
annot_golden t340_labels.mixed labels
annot_golden t340_labels.source labels --source --symbol beta
annot_golden t340_labels.asm labels --asm --top 1
annot_golden t340_labels.total labels --symbol beta --percent total --hot 1
# steps 6..12 are beta's xor, then add, dec, jne twice: the first jne's
# jump (9 -> 10) is in the window, the second's (12 -> 13) is not
annot_golden t340_labels.window labels --asm --symbol beta --from 6 --to 12

# Every function's instructions add up to its Base, and its lines are the
# same in both layouts (demo: libc's functions with their debug lines and
# inlined headers, ld.so's, PLT entries).
arc_record demo "$PROGS/demo"
"$POST" -i demo annotate --all >demo.ann || fail "annotate demo"
"$POST" -i demo annotate --all --source >demo.src 2>/dev/null || fail "annotate --source demo"

# Without --symbol, --top or --all: the 5 hottest, and a line saying how to see more
"$POST" -i demo annotate >demo.5 || fail "annotate demo (default)"
expect_eq "functions annotated by default" 5 "$(grep -c '^# function' demo.5)"
expect_eq "the default's functions" "$(grep '^# function' demo.ann | head -5)" \
	"$(grep '^# function' demo.5)"
more=$(( $(grep -c '^# function' demo.ann) - 5 ))
expect_eq "the default's last line" \
	"# $more more functions with steps not shown: --top N shows the N hottest, --all every one" \
	"$(tail -1 demo.5)"
"$POST" -i demo annotate --top 7 | grep -c '^# function' >n7
expect_eq "--top 7" 7 "$(cat n7)"
"$POST" -i demo profile --wide >demo.prof || fail "profile demo"
E2E=$ROOT/tests/e2e python3 - demo.ann demo.src demo.prof <<'PY' || fail "annotate's rows do not add up"
import os, sys
sys.path.insert(0, os.environ['E2E'])
import post_annotate
base = {}
for line in open(sys.argv[3]):
    if not line.startswith('#'):
        p = line.rstrip('\n').split(None, 5)
        name, module = p[5].rsplit(' [', 1)
        base[(name, module[:-1])] = int(p[1])
mixed = post_annotate.functions(open(sys.argv[1]).read())
source = {(f.name, f.module): f for f in post_annotate.functions(open(sys.argv[2]).read())}
ran = [k for k, n in base.items() if n]
assert sorted((f.name, f.module) for f in mixed) == sorted(ran), 'other functions than profile\'s'
for f in mixed:
    want = base[(f.name, f.module)]
    insns = sum(int(r.count) for r in f.insns())
    assert insns == want, '%s: instructions %d, Base %d' % (f.name, insns, want)
    s = source[(f.name, f.module)]
    if f.head('source: none'):
        assert 'address' in s.cols, '%s: --source without lines is not instructions' % f.name
    else:
        assert f.line_counts() == s.line_counts(), '%s: the layouts\' lines differ' % f.name
        assert sum(f.line_counts().values()) <= want
print('%d functions: every one\'s instructions add up to its Base' % len(mixed))
PY

# A C program of its own (no libc: a few thousand steps), built here, so its
# source can move: square_sum's loop body runs 1000 times.
mkdir -p build/src elsewhere/deep
cat >build/src/moved.c <<'EOF'
static int __attribute__((noinline)) square_sum(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i * i;
	return s;
}

void _start(void)
{
	int s = square_sum(1000);

	asm volatile("syscall" : : "a"(60), "D"(s == 0));
	for (;;)
		;
}
EOF
body=$(grep -n 's += i \* i;' build/src/moved.c | cut -d: -f1)
gcc -g -O0 -nostdlib -static -fno-pie -no-pie -o moved "$TMP/build/src/moved.c" || fail "gcc moved.c"
arc_record moved.data ./moved

# Without DWARF: every instruction (the same addresses and counts), no lines, and why.
cp moved nodebug && strip --strip-debug nodebug
cp moved stripped && strip stripped
arc_record nodebug.data ./nodebug
arc_record stripped.data ./stripped
"$POST" -i moved.data annotate --asm --symbol square_sum >with.asm || fail "annotate moved"
"$POST" -i nodebug.data annotate --symbol square_sum >nodebug.out || fail "annotate nodebug"
grep -qx "# source: none: no line table covers it in $TMP/nodebug (code built without -g, or stripped and its debuginfo not found)" nodebug.out ||
	fail "no reason for the missing source: $(grep '^# source' nodebug.out)"
diff <(grep -v '^#' with.asm) <(grep -v '^#' nodebug.out) >/dev/null ||
	fail "without DWARF the instructions or counts differ: $(diff <(grep -v '^#' with.asm) <(grep -v '^#' nodebug.out))"
"$POST" -i nodebug.data annotate --symbol square_sum --source >/dev/null 2>err || fail "annotate --source nodebug"
grep -qx "post: warning: annotate: square_sum has no source lines (no line table covers it in $TMP/nodebug (code built without -g, or stripped and its debuginfo not found)); its instructions are shown" err ||
	fail "--source without lines: no warning: $(cat err)"
# no symbols, no FDEs: the code is cut at the calls the trace shows and at
# the entry, each function named by its address; square_sum's instructions
# count as in the unstripped build
ss=$(printf '0x%x' "0x$(nm moved | awk '$3 == "square_sum" { print $1 }')")
"$POST" -i stripped.data annotate --module stripped --all >stripped.out || fail "annotate stripped"
grep -q "^# function stripped+$ss \[stripped\] at $ss, " stripped.out ||
	fail "stripped: square_sum is not stripped+$ss: $(grep '^# function' stripped.out)"
entry=$(readelf -h stripped | awk '/Entry point/ { print $4 }')
grep -q "^# function stripped+$entry \[stripped\] at $entry, " stripped.out ||
	fail "stripped: no function at the entry $entry: $(grep '^# function' stripped.out)"
grep -q '^# function \[stripped\]' stripped.out && fail "stripped: a [stripped] pseudo-function is left"
"$POST" -i stripped.data annotate --symbol "stripped+$ss" | grep -v '^#' | awk '{ print $1 }' |
	sort -n >got.counts
"$POST" -i moved.data annotate --asm --symbol square_sum | grep -v '^#' | awk '{ print $1 }' |
	sort -n >want.counts
[ "$(wc -l <got.counts)" -gt 10 ] || fail "stripped: $(wc -l <got.counts) rows"
expect_same_file "stripped: square_sum's instruction counts" want.counts got.counts

# A source file moved since the build: lines by number, the reason, --source-dir.
mv build/src/moved.c elsewhere/deep/
"$POST" -i moved.data annotate --symbol square_sum >moved.out || fail "annotate moved"
grep -qx "# source: $TMP/build/src/moved.c: No such file or directory (lines by number only; see --source-dir)" moved.out ||
	fail "moved: $(grep '^# source' moved.out)"
grep -Eq "^ +3000 +[0-9.]+% \\* +$body +\\|\$" moved.out ||
	fail "moved: line $body not by number: $(cat moved.out)"
# the recorded path's trailing components under DIR: not DIR/deep/moved.c
"$POST" -i moved.data annotate --symbol square_sum --source-dir "$TMP/elsewhere" >found.out ||
	fail "annotate --source-dir"
grep -q "^# source: $TMP/build/src/moved.c: No such file or directory" found.out ||
	fail "--source-dir took a file the recorded path does not end in: $(grep '^# source' found.out)"
mv elsewhere/deep/moved.c elsewhere/moved.c
"$POST" -i moved.data annotate --symbol square_sum --source-dir "$TMP/elsewhere" >found.out ||
	fail "annotate --source-dir"
grep -qx "# source: $TMP/build/src/moved.c (read from $TMP/elsewhere/moved.c)" found.out ||
	fail "--source-dir: $(grep '^# source' found.out)"
grep -Eq "^ +3000 +[0-9.]+% \\* +$body .*s \\+= i \\* i;\$" found.out ||
	fail "--source-dir: no text of line $body"
mkdir -p build/src && cp elsewhere/moved.c build/src/moved.c && touch -d '+1 hour' build/src/moved.c
"$POST" -i moved.data annotate --symbol square_sum >newer.out || fail "annotate newer source"
grep -qx "# source: $TMP/build/src/moved.c (modified after $TMP/moved was built: lines may not match)" newer.out ||
	fail "a source newer than its binary: $(grep '^# source' newer.out)"

# C++: the demangled and the mangled name give the same annotation.
arc_record cxx "$PROGS/arc_exception"
"$POST" -i cxx annotate --symbol 'thrower(int)' | grep -v '^# filter' >demangled.out || fail "annotate thrower(int)"
"$POST" -i cxx annotate --symbol _ZL7throweri | grep -v '^# filter' >mangled.out || fail "annotate _ZL7throweri"
expect_same_file "--symbol mangled vs demangled" demangled.out mangled.out
grep -qx '# function thrower(int) \[arc_exception\] at 0x[0-9a-f]*, [0-9]* bytes' demangled.out ||
	fail "C++: $(grep '^# function' demangled.out)"
grep -qx '# symbol: _ZL7throweri' demangled.out || fail "C++: the mangled name is not shown"
grep -q 'call 0x[0-9a-f]* <thrower(int)>$' demangled.out || fail "C++: the recursive call's target is not named"
# the throw's path: 3 of the 15 frames throw, 12 recurse (n = 4..0, three times)
grep -Eq '# taken 12 of 15$' demangled.out || fail "C++: the branch to the recursion: $(grep taken demangled.out)"
"$POST" -i cxx --no-demangle annotate --symbol _ZL7throweri >raw.out || fail "annotate --no-demangle"
grep -q '^# function _ZL7throweri \[arc_exception\]' raw.out || fail "--no-demangle: $(grep '^# function' raw.out)"
grep -q '^# symbol' raw.out && fail "--no-demangle shows the symbol twice"

# Usage errors: one line, exit 2.
run_expect_status "--source --asm" 2 "$POST" -i labels annotate --source --asm 2>err
expect_eq "--source --asm" "post: error: annotate: --source and --asm exclude each other" "$(cat err)"
run_expect_status "--percent bad" 2 "$POST" -i labels annotate --percent most 2>err
expect_eq "--percent bad" "post: error: annotate: --percent 'most' is not one of function, total" "$(cat err)"
run_expect_status "--top --all" 2 "$POST" -i labels annotate --top 2 --all 2>err
expect_eq "--top --all" "post: error: annotate: --top and --all exclude each other" "$(cat err)"
run_expect_status "--top 0" 2 "$POST" -i labels annotate --top 0 2>err
grep -qx "post: error: annotate: --top '0' is not a positive number of rows" err || fail "--top 0: $(cat err)"
"$POST" -i labels annotate --symbol nosuch >none.out 2>err || fail "annotate --symbol nosuch: exit $?"
grep -q "^post: warning: --symbol nosuch matches no function" err || fail "nosuch: $(cat err)"
grep -q '^# function' none.out && fail "nosuch: a function annotated"
echo PASS
