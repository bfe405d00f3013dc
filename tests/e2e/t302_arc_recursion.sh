#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Call-flow reports on tests/progs/arc_recurse.S: rec(5) recurses 6 deep;
# its 28 instructions count once in its Cum; the stack is 7 frames at most.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

arc_record trace "$PROGS/arc_recurse"
arc_check trace 7
expect_eq "deepest stack" 7 "$(arc_stat trace max-depth)"
arc_golden t302_recurse.arc trace arc
arc_golden t302_recurse.tree trace tree
arc_golden t302_recurse.pruned trace tree --prune 50
arc_golden t302_recurse.flow trace flow
arc_golden t302_recurse.profile trace profile --top 1
echo "PASS"
