#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The report options of every table report: --sort, --percent-limit, --top
# (on arc and tree too), step and time windows (counts, profile, arc, tree,
# export), tree --inverted, post diff; and for people on a terminal only:
# thousands separators, colour, a pager.  Programs with counts known by
# construction: arc_basic.S (23 steps), diff_loop.c (work(): 8 instructions
# an iteration, fixed(): the same in every run).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

rows() { grep -v '^#' "$1"; }

arc_record basic "$PROGS/arc_basic"
arc_record d100 "$PROGS/diff_loop" 100
arc_record d300 "$PROGS/diff_loop" 300

# --sort: profile by calls (non-increasing), by name (in order); counts by name.
"$POST" -i d100 profile --sort calls >p || fail "profile --sort calls"
rows p | awk '{ print $1 }' | sort -nrc || fail "--sort calls: calls not in order"
"$POST" -i d100 profile --module diff_loop --sort name >p || fail "profile --sort name"
rows p | awk '{ print $6 }' | LC_ALL=C sort -c || fail "--sort name: names not in order: $(rows p)"
"$POST" -i d100 counts --module diff_loop --sort name >c || fail "counts --sort name"
rows c | grep -v ' total$' | awk '{ print $4 }' | LC_ALL=C sort -c || fail "counts --sort name"
run_expect_status "--sort with an unknown key" 2 "$POST" -i d100 profile --sort bogus

# --percent-limit: only rows at P% or more; the rest in one line.
"$POST" -i d100 profile --percent-limit 5 >p || fail "--percent-limit"
rows p | awk '{ sub("%", "", $3); if ($3 + 0 < 5) bad = 1 } END { exit bad }' || fail "a row under 5%: $(rows p)"
grep -q '^# [0-9]* more functions with' p || fail "--percent-limit: no line for the rest"
"$POST" -i d100 counts --percent-limit 5 >c || fail "counts --percent-limit"
rows c | grep -v ' total$' | awk '{ sub("%", "", $2); if ($2 + 0 < 5) bad = 1 } END { exit bad }' ||
	fail "counts: a row under 5%"

# --top on arc (functions) and tree (children of each node).
"$POST" -i d100 arc --top 3 >a || fail "arc --top"
expect_eq "arc --top 3 functions" 3 "$(grep -c '^ .*  *[0-9.]*%  .* \[.*\]$' a)"
"$POST" -i d100 tree --merged --top 1 >t || fail "tree --top"
rows t | awk '{ print $1 }' | awk 'NR > 1 && $1 != prev + 1 { bad = 1 } { prev = $1 } END { exit bad }' ||
	fail "tree --top 1: a node with two children shown: $(rows t)"

# Windows: steps 2..8 of arc_basic are 7 steps in every aggregate report.
for rep in "profile" "arc" "tree --merged" "counts"; do
	# shellcheck disable=SC2086
	"$POST" -i basic $rep --from 2 --to 8 >w || fail "$rep --from 2 --to 8"
	grep -qx '# window: steps 2 to 8' w || fail "$rep: no window line"
	grep -q '^# total: 7 steps in the window (percentages are of these)$' w || fail "$rep: $(grep total w)"
done
"$POST" -i basic profile --from 2 --to 8 | rows /dev/stdin | awk '{ s += $2 } END { exit s != 7 }' ||
	fail "profile --from 2 --to 8: Base adds up to other than 7"
"$POST" -i basic arc --check --from 2 --to 8 | grep -qx 'invariants: hold' || fail "windowed invariants"
"$POST" -i basic export --format callgrind --from 2 --to 8 -o w.cg || fail "export window"
expect_eq "callgrind_annotate's total of the window" 7 \
	"$(callgrind_annotate w.cg | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)"
"$POST" -i basic profile --time-from 0 --time-to 1000s | grep -q '^# total: 23 steps' ||
	fail "a time window over all of it"
"$POST" -i basic profile --time-from 1000s >w 2>err || fail "a time window after it"
grep -q 'holds none of' err || fail "an empty time window says so: $(cat err)"

# tree --inverted: each function's callers, its Base through each path.
"$POST" -i d100 tree --inverted --module diff_loop >inv || fail "tree --inverted"
expect_eq "inverted root of work" 812 "$(awk '$1 == 0 && $5 == "work" { print $3 }' inv)"
expect_eq "work's caller" "main" "$(awk '$1 == 1 { print $5 }' inv | head -1)"
awk '$1 == 0 && $5 == "fixed" { print $3 }' inv | grep -qx 310 || fail "fixed: $(cat inv)"

# post diff: work() 8 more instructions an iteration; fixed() the same.
"$POST" diff d100 d300 --module diff_loop >diff || fail "post diff"
row=$(grep ' work \[diff_loop\]$' diff)
# 8 * 100 + 12 and 8 * 300 + 12 instructions; B/A 2412 / 812
expect_eq "diff work" "812 2412 +1600 2.970" "$(awk '{ print $1, $2, $3, $4 }' <<<"$row")"
grep ' fixed \[diff_loop\]$' diff | awk '{ exit !($3 == 0 && $4 == "1.000") }' || fail "fixed changed: $(cat diff)"
rows diff | head -1 | grep -q ' work ' || fail "the largest change first: $(rows diff | head -1)"
run_expect_status "diff with one trace" 2 "$POST" diff d100

# On a terminal: separators, colour, a pager; piped: none of them.
command -v script >/dev/null || skip "script (util-linux) is not installed"
cat >pager.sh <<PAGER
#!/bin/sh
touch "$TMP/paged"
cat
PAGER
chmod +x pager.sh
PAGER=$TMP/pager.sh script -qec "$POST -i d100 profile --top 3" /dev/null >tty.out || fail "on a tty"
[ -e paged ] || fail "no pager on a terminal"
grep -Eq ' 1[0-9]*,[0-9]{3} ' tty.out || fail "no thousands separators on a terminal: $(cat tty.out)"
grep -q $'\033\[3[12]m' tty.out || fail "no colour on a terminal"
rm -f paged
PAGER=$TMP/pager.sh script -qec "$POST -i d100 profile --top 3 --no-pager --color never" /dev/null >tty2.out
[ -e paged ] && fail "--no-pager ran the pager"
grep -q $'\033\[' tty2.out && fail "--color never printed colour"
"$POST" -i d100 profile --top 3 >plain
grep -Eq '[0-9],[0-9]{3}' plain && fail "separators in piped output"
grep -q $'\033' plain && fail "escapes in piped output"
"$POST" -i d100 profile --top 3 --color always | grep -q $'\033\[3[12]m' || fail "--color always"
echo "PASS"
