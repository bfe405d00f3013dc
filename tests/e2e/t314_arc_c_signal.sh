#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/arc_signal.c: three raise(SIGUSR1)s enter on_usr1
# asynchronously; each entry is marked, sigreturn leads back to the
# interrupted frame and the stack does not grow.  callgrind counts no calls
# into a handler, post counts each asynchronous entry as one.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

LD_BIND_NOW=1 arc_record oracle "$PROGS/arc_signal"
arc_check oracle 30
expect_eq "asynchronous entries" 3 "$(arc_stat oracle async)"
expect_eq "unmatched returns" 0 "$(arc_stat oracle unmatched)"
"$POST" -i oracle flow >flow || fail "flow"
# entered from libc's kill: its module named
expect_eq "marked entries" 3 "$(grep -c '! on_usr1 \[arc_signal\] (asynchronous entry)' flow)"
arc_oracle "$PROGS/arc_signal" main on_usr1:async=3
echo "PASS"
