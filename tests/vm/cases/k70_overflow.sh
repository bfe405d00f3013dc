# SPDX-License-Identifier: GPL-2.0
# Buffer overflow: two 4 KiB sub-buffers per CPU, nothing drained while
# tracing.  Stop policy: steps are lost and counted, what was recorded
# still decodes, and recorded + lost = every step taken.  Wrap policy: the
# newest data survives (vm_loop's EXIT record, with its 30004 steps) and decodes.
. /pt/cases/lib.inc
ptdrv run -q -P stop -b 8192 -s 4096 -k comm -- $PT_PROGS/vm_loop >out 2>&1
lost=$(total out lost)
recorded=$(field "$(prog_line out vm_loop)" steps)
[ "$lost" -gt 0 ] && echo "PASS overflow-stop-lost" || echo "FAIL overflow-stop-lost: lost=$lost"
check_eq overflow-stop-decodes "undecodable streams" 0 "$(total out bad)"
check_eq overflow-stop-accounted "recorded + lost" 30004 $((recorded + lost))
check_eq overflow-stop-status "STATUS flags (stopped full)" 0x2 "$(final out flags)"
ptdrv run -q -P wrap -b 8192 -s 4096 -k comm -- $PT_PROGS/vm_loop >wrap 2>&1
check_eq overflow-wrap-decodes "undecodable streams" 0 "$(total wrap bad)"
# The EXEC record was overwritten; the EXIT record (with the thread's total) is the newest.
check_eq overflow-wrap-newest "threads whose EXIT record says 30004 steps" 1 \
	"$(grep -c '^tid .* exited 1 exit_status 0 exit_steps 30004 ' wrap)"
