# SPDX-License-Identifier: GPL-2.0
# Count mode: no step records, per-thread COUNT records that add up to the
# instruction count by construction, and STATUS steps agreeing.
. /pt/cases/lib.inc
ptdrv run -m count -k comm -- $PT_PROGS/vm_loop >out 2>&1
line=$(prog_line out vm_loop)
check_eq count-mode-total "COUNT records" 30004 "$(field "$line" counted)"
check_eq count-mode-no-steps "step records" 0 "$(field "$line" steps)"
check_eq count-mode-status "STATUS steps" 30004 "$(final out steps)"
