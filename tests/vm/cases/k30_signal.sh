# SPDX-License-Identifier: GPL-2.0
# A program whose signal handler runs three times: the handler's and the
# restorer's instructions are recorded, nothing twice, no stray SIGTRAP:
# 50 instructions by construction, exit status 0, 3 SIGNAL and 3 SIGRETURN
# markers; the ptrace backend in the same guest counts the same.
. /pt/cases/lib.inc
ptdrv run -k comm -- $PT_PROGS/vm_signal >out 2>&1
line=$(prog_line out vm_signal)
check_eq signal-exit "child exit status" 0 "$(grep '^child exit' out | cut -d' ' -f3)"
check_eq signal-steps "steps" 50 "$(field "$line" after_exec)"
check_eq signal-markers "signal/sigreturn markers" "3/3" \
	"$(field "$line" signals)/$(field "$line" sigreturns)"
got=$(ptrace_steps vm_signal) || { echo "SKIP signal-equals-ptrace: no pitrace binary"; exit 0; }
check_eq signal-equals-ptrace "ptrace backend's steps" "$(field "$line" after_exec)" "$got"
