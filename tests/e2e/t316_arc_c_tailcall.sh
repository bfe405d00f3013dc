#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/arc_tailcall.c at -O2: middle() jumps to leaf() (10 tail calls)
# and ping()/pong() jump to each other 100 times: arcs count the jumps, the
# stack stays flat; counts equal callgrind's.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

objdump -d "$PROGS/arc_tailcall" | grep -q 'jmp.*<leaf>' || skip "the compiler made no tail call to leaf"
LD_BIND_NOW=1 arc_record oracle "$PROGS/arc_tailcall"
# 100 mutual tail calls must not add 100 frames
arc_check oracle 20
"$POST" -i oracle flow --symbol leaf >flow || fail "flow"
expect_eq "tail calls to leaf" 10 "$(grep -c '> leaf (tail call from middle)' flow)"
"$POST" -i oracle arc --symbol pong >arc || fail "arc"
expect_eq "ping -> pong arcs" 50 "$(awk '/ < ping$/ { print $1 }' arc)"
arc_oracle "$PROGS/arc_tailcall" main middle leaf ping pong
echo "PASS"
