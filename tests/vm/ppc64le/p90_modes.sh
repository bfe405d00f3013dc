# SPDX-License-Identifier: GPL-2.0
# POWER modes: kernel-mode stepping is refused with one clear line (the
# driver does not step powerpc kernel code: docs/kernel-mode.md), and
# block mode, which the driver does not take from MSR_BE, is noted as
# degraded in STATUS while every instruction is still recorded exactly.
. /pt/cases/lib.inc
pitrace record --kernel -o k -- $PT_PROGS/vm_loop >k.out 2>&1
check_eq p-kernel-refused-exit "exit status of pitrace record --kernel" 1 $?
check_eq p-kernel-refused-message "pitrace record --kernel says" \
	"pitrace: error: the driver cannot step kernel code on this architecture (--kernel; docs/kernel-mode.md says why)" \
	"$(cat k.out)"
ptdrv run -m block -k comm -- $PT_PROGS/vm_loop >out 2>&1
check_eq p-block-degraded "STATUS flags (1: block mode degraded)" 1 $(($(final out flags) & 1))
check_eq p-block-exact "steps with block mode degraded" 30004 \
	"$(field "$(prog_line out vm_loop)" after_exec)"
