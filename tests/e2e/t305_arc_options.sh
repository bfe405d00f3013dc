#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Filters and option errors of the call-flow reports, on tests/progs/arc_basic.S.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

arc_record trace "$PROGS/arc_basic"
tid=$("$POST" -i trace tree | sed -n 's/^# thread \([0-9]*\) .*/\1/p')

# --symbol: only g's row, its 9 steps in 3 calls
expect_eq "profile --symbol g" "3 9" "$("$POST" -i trace profile --symbol g | awk '!/^#/ { print $1, $2 }')"
# --module: all four functions are arc_basic's; another module has none
expect_eq "profile --module arc_basic" 4 "$("$POST" -i trace profile --module arc_basic | grep -vc '^#')"
expect_eq "profile --module libc.so.6" 0 "$("$POST" -i trace profile --module libc.so.6 | grep -vc '^#')"
# --tid: the thread's 23 steps; another thread has none
expect_eq "--tid $tid" 23 "$("$POST" -i trace arc --check --tid "$tid" | head -1 | cut -d' ' -f2)"
expect_eq "--tid other" 0 "$("$POST" -i trace arc --check --tid 1 | head -1 | cut -d' ' -f2)"
# a window of steps 2..8: f's call (2), g's call (4) and return (7), f's return (8)
arc_golden t305_window.flow trace flow --from 2 --to 8
expect_eq "steps --from 3 --to 5" 3 "$("$POST" -i trace steps --from 3 --to 5 | grep -vc '^#')"
# the tree of f's subtrees only
arc_golden t305_symbol.tree trace tree --merged --symbol f

# usage errors exit 2, runtime errors 1, each with one error line
run_expect_status "unknown option" 2 "$POST" -i trace arc --bogus
run_expect_status "--from after --to" 2 "$POST" -i trace flow --from 9 --to 2
run_expect_status "--prune out of range" 2 "$POST" -i trace tree --prune 200
run_expect_status "--top 0" 2 "$POST" -i trace profile --top 0
run_expect_status "--tid not a number" 2 "$POST" -i trace arc --tid abc
run_expect_status "export without -o" 2 "$POST" -i trace export --format folded
run_expect_status "export bad format" 2 "$POST" -i trace export --format xml -o x
run_expect_status "export bad clock" 2 "$POST" -i trace export --format chrome --clock x -o x
run_expect_status "export to a missing dir" 1 "$POST" -i trace export --format folded -o /nonexistent/x
run_expect_status "missing trace" 1 "$POST" -i /nonexistent arc
"$POST" -i trace arc --bogus 2>err.txt
expect_eq "one error line" 1 "$(wc -l <err.txt)"
grep -q "^post: error: " err.txt || fail "error line: $(cat err.txt)"
echo "PASS"
