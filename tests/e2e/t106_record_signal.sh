#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Signals are delivered unchanged and their handlers traced: pt_signal raises
# SIGUSR1 twice; its handler runs pt_spin2(3000) (6002 instructions) each
# time.  Output and exit status (5) are those of the untraced run; ASYNC
# records mark each handler entry and each return from it (rt_sigreturn).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_signal

"$PROGS/pt_signal" >want
want_rc=$?
"$PITRACE" record -o t -- "$PROGS/pt_signal" >got
got_rc=$?
expect_eq "exit status" "$want_rc" "$got_rc"
expect_same_file "output" want got
expect_eq "pt_spin2 (handler work)" 12004 "$(count_of t pt_spin2)"
expect_eq "pt_spin (main)" 202 "$(count_of t pt_spin)"
[ -n "$(count_of t on_usr1)" ] || fail "the handler on_usr1 was not counted"
expect_eq "ASYNC signal records" 2 "$("$POST" -i t dump --steps | grep -c 'ASYNC .*kind 1 number 10')"
expect_eq "ASYNC sigreturn records" 2 "$("$POST" -i t dump --steps | grep -c 'ASYNC .*kind 2 ')"
echo "PASS"
