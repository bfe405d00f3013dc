# SPDX-License-Identifier: GPL-2.0
# Two processes selected at once (a pid list), running at the same time on
# two CPUs: each one's recorded instructions equal vm_loop's 30004.
. /pt/cases/lib.inc
ptdrv run -n 2 -k pid -- $PT_PROGS/vm_loop >out 2>&1
check_eq two-exit "exit status" 0 "$(grep '^child exit' out | cut -d' ' -f3)"
counts=$(grep "^tid .* exec [^ ]*/vm_loop " out | while read -r line; do field "$line" after_exec; done |
	tr '\n' ' ')
check_eq two-processes "steps of each process" "30004 30004 " "$counts"
