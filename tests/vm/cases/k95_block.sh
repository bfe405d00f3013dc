# SPDX-License-Identifier: GPL-2.0
# Block mode: where DEBUGCTL.BTF works, fewer records than instructions;
# where it doesn't (QEMU TCG), STATUS says so and every instruction is
# still recorded exactly.
. /pt/cases/lib.inc
ptdrv run -m block -k comm -- $PT_PROGS/vm_loop >out 2>&1
steps=$(field "$(prog_line out vm_loop)" after_exec)
flags=$(final out flags)
if [ $((flags & 1)) = 1 ]; then
	check_eq block-degraded-exact "steps with BTF not honoured" 30004 "$steps"
else
	[ "$steps" -gt 0 ] && [ "$steps" -lt 30004 ] && echo "PASS block-branches" ||
		echo "FAIL block-branches: $steps records for 30004 instructions"
fi
check_eq block-exit "exit status" 0 "$(grep '^child exit' out | cut -d' ' -f3)"
