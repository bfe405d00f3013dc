# SPDX-License-Identifier: GPL-2.0
# arm64 threads selected by pid: every thread is traced (those created
# after the selection from their first instruction), each worker records at
# least its 3 * 20000 loop instructions, every thread's EXIT record matches
# the steps in the stream, and the program exits normally (glibc's thread
# start-up and join are futexes and atomics; exclusive sequences among
# them run natively, docs/arm64.md).
. /pt/cases/lib.inc
ptdrv run -k pid -- $PT_PROGS/vm_threads >out 2>&1
check_eq a-threads-drv-exit "exit status" 0 "$(grep '^child exit' out | cut -d' ' -f3)"
pid=$(prog_line out vm_threads | cut -d' ' -f4)
lines=$(grep "^tid [0-9]* pid $pid " out)
check_eq a-threads-drv-count "threads traced" 3 "$(echo "$lines" | grep -c .)"
workers=0 mismatch=
while read -r line; do
	tid=$(field "$line" tid)
	steps=$(field "$line" steps)
	[ "$tid" != "$pid" ] && [ "$steps" -ge 60000 ] && workers=$((workers + 1))
	[ "$(field "$line" exited)" = 1 ] && [ "$(field "$line" exit_steps)" = "$steps" ] ||
		mismatch="$mismatch $tid"
done <<EOT
$lines
EOT
check_eq a-threads-drv-workers "worker threads with >= 60000 steps" 2 $workers
check_eq a-threads-drv-exit-totals "threads whose EXIT total differs from the stream" "" "$mismatch"
