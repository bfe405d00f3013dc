#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Call-flow reports on tests/progs/arc_basic.S, whose calls and counts are
# known by construction (see its header): every report equals its golden file.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

arc_record trace "$PROGS/arc_basic"
arc_check trace 4
expect_eq "steps" 23 "$(arc_stat trace steps)"
arc_golden t301_basic.arc trace arc
arc_golden t301_basic.tree trace tree
arc_golden t301_basic.profile trace profile
arc_golden t301_basic.flow trace flow
arc_golden t301_basic.condensed trace flow --condensed
arc_golden t301_basic.steps trace steps
echo "PASS"
