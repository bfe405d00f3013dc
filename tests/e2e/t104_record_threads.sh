#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A multithreaded program: each thread's steps are in its own stream, the
# per-thread totals add up to the total, and each thread's known work is
# exact (thread i runs pt_spin(10000*(i+1)), main pt_spin2(5000); pt_spin(n)
# is 2n+2 instructions).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/ptrace_lib.sh"
need_prog pt_threads

"$PITRACE" record -o t -- "$PROGS/pt_threads" >out || fail "record exit status $?"
[ "$(grep -c '^thread ' out)" = 3 ] || { cat out; fail "expected 3 thread lines"; }
while read -r _ tid _ n; do
	expect_eq "pt_spin of thread $tid" $((2 * n + 2)) "$(count_of t pt_spin --tid "$tid")"
done < <(grep '^thread ' out)
read -r _ main _ _ < <(grep '^main ' out)
expect_eq "pt_spin2 of main $main" 10002 "$(count_of t pt_spin2 --tid "$main")"
expect_eq "pt_spin of all" 120006 "$(count_of t pt_spin)"
"$POST" -i t counts --by thread >threads
expect_eq "threads" 4 "$(grep -vc '^#\|total$' threads)"
sum=$(awk '!/^#/ && $NF != "total" { s += $1 } END { print s }' threads)
expect_eq "sum of threads" "$(total_of t)" "$sum"
expect_eq "threads in header" 4 "$(ls t/steps.t* | wc -l)"
echo "PASS"
