#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/progs/arc_threads.c: two threads, each calling work(); each has its
# own stack and tree; --merged adds them up; counts equal callgrind's.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/arc-lib.sh"

LD_BIND_NOW=1 arc_record oracle "$PROGS/arc_threads"
arc_check oracle 30
expect_eq "threads" 2 "$(arc_stat oracle threads)"
"$POST" -i oracle tree --symbol work >tree || fail "tree"
expect_eq "work in each thread's tree" 2 "$(grep -c '^ *[0-9].* work$' tree)"
expect_eq "work calls, merged" 2 "$("$POST" -i oracle tree --merged --symbol work | awk '!/^#/ && $NF == "work" { n += $2 } END { print n }')"
# called by libc's start_thread: its module named
"$POST" -i oracle tree --symbol thread_main | grep -q '^ *[0-9].* thread_main \[arc_threads\]$' ||
	fail "thread_main not in a tree"
arc_oracle "$PROGS/arc_threads" main work thread_main
echo "PASS"
