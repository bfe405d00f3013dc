#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/arc_exception.cc: an exception thrown 5 frames down and caught
# in main, three times: the thrower frames are unwound (not returned from)
# and main goes on; counts equal callgrind's (which demangles the name).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

LD_BIND_NOW=1 arc_record oracle "$PROGS/arc_exception"
arc_check oracle 40
"$POST" -i oracle flow --symbol _ZL7throweri >flow || fail "flow"
expect_eq "thrower calls" 15 "$(grep -c '> _ZL7throweri$' flow)"
expect_eq "thrower frames unwound" 15 "$(grep -c '< _ZL7throweri (.*, unwound)' flow)"
expect_eq "main returns normally" 1 \
	"$("$POST" -i oracle flow --symbol main | grep -c '< main (incl [0-9]*, self [0-9]*)$')"
arc_oracle "$PROGS/arc_exception" main "_ZL7throweri=thrower(int)"
echo "PASS"
