#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/arc_longjmp.c: three longjmps out of deep(0), 6 frames below
# main: every deep frame is unwound back to main, the stack does not grow.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

LD_BIND_NOW=1 arc_record oracle "$PROGS/arc_longjmp"
arc_check oracle 30
"$POST" -i oracle flow --symbol deep >flow || fail "flow"
expect_eq "deep calls" 18 "$(grep -c '> deep$' flow)"
expect_eq "deep frames unwound" 18 "$(grep -c '< deep (.*, unwound)' flow)"
expect_eq "main still running after the jumps" 1 \
	"$("$POST" -i oracle flow --symbol main | grep -c '< main (incl [0-9]*, self [0-9]*)$')"
arc_oracle "$PROGS/arc_longjmp" main deep
echo "PASS"
