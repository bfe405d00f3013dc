# SPDX-License-Identifier: GPL-2.0
# POWER signals: a handler run three times, entered by the kernel with LR
# at the vDSO's signal trampoline: its first instruction (run before any
# trap, the frame set-up having moved the pc with MSR_SE still set) and the
# trampoline's are recorded, nothing twice: 61 instructions by
# construction, exit status 0, 3 SIGNAL and 3 SIGRETURN markers; the
# ptrace backend in the same guest counts the same.
. /pt/cases/lib.inc
ptdrv run -k comm -- $PT_PROGS/vm_signal >out 2>&1
line=$(prog_line out vm_signal)
check_eq p-signal-exit "child exit status" 0 "$(grep '^child exit' out | cut -d' ' -f3)"
check_eq p-signal-steps "steps" 61 "$(field "$line" after_exec)"
check_eq p-signal-markers "signal/sigreturn markers" "3/3" \
	"$(field "$line" signals)/$(field "$line" sigreturns)"
got=$(ptrace_steps vm_signal) || { echo "FAIL p-signal-equals-ptrace: pitrace record failed"; exit 0; }
check_eq p-signal-equals-ptrace "ptrace backend's steps" "$(field "$line" after_exec)" "$got"
