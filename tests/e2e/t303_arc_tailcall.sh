#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Call-flow reports on tests/progs/arc_tail.S: a's "jmp b" is a tail call
# (an arc a->b, b's frame replaces a's, b returns to _start).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

arc_record trace "$PROGS/arc_tail"
arc_check trace 3
arc_golden t303_tail.arc trace arc
arc_golden t303_tail.tree trace tree
arc_golden t303_tail.flow trace flow
arc_golden t303_tail.condensed trace flow --condensed
echo "PASS"
