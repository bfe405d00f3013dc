# SPDX-License-Identifier: GPL-2.0
# POWER count mode: no step records, per-thread COUNT records that add up
# to the instruction count by construction, STATUS steps agreeing; the
# larx/stcx. loop counts the same as recorded (its sequences are emulated
# in count mode too).
. /pt/cases/lib.inc
for spec in vm_loop:30004 vm_atomic:6009; do
	prog=${spec%%:*} want=${spec#*:}
	ptdrv run -m count -k comm -- $PT_PROGS/$prog >out.$prog 2>&1
	line=$(prog_line out.$prog $prog)
	check_eq p-count-$prog-total "COUNT records" $want "$(field "$line" counted)"
	check_eq p-count-$prog-no-steps "step records" 0 "$(field "$line" steps)"
	check_eq p-count-$prog-status "STATUS steps" $want "$(final out.$prog steps)"
	check_eq p-count-$prog-exit "exit status" 0 "$(grep '^child exit' out.$prog | cut -d' ' -f3)"
done
