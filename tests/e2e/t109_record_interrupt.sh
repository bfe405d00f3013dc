#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# e2e: serial (see tests/run-e2e.sh)
# SIGTERM to `pitrace record`: passed on to the command like a shell would,
# every tracee detached, the trace finalized as "interrupted" and readable;
# pitrace exits with the command's status (killed by SIGTERM: 143).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_forever

"$PITRACE" record -o t -- "$PROGS/pt_forever" "$TMP/ctr" &
tracer=$!
# pt_forever writes ctr after its first pt_spin: steps of it are in the trace
for _ in $(seq 600); do [ -s "$TMP/ctr" ] && break; sleep 0.1; done
victim=$(pgrep -P $tracer pt_forever)
[ -n "$victim" ] || fail "pt_forever did not start"
kill -TERM $tracer
wait $tracer
rc=$?
expect_eq "exit status" 143 "$rc"
kill -0 "$victim" 2>/dev/null && fail "the command is still running"
expect_eq "state" interrupted "$(info_field t state)"
n=$(count_of t pt_spin)
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "no pt_spin steps recorded"
expect_eq "header steps = counted steps" "$(info_field t steps)" "$(total_of t)"
echo "PASS"
