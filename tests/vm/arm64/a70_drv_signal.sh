# SPDX-License-Identifier: GPL-2.0
# arm64 signals under the driver: vm_signal runs its handler three times
# (kill to self, sa_restorer's rt_sigreturn): 59 user instructions by
# construction, and exit status 0 (every handler ran and returned).  The
# ptrace backend must count the same.
. /pt/cases/lib.inc
ptdrv run -k pid -- $PT_PROGS/vm_signal >out 2>&1
check_eq a-signal-drv-exit "exit status" 0 "$(grep '^child exit' out | cut -d' ' -f3)"
check_eq a-signal-drv-steps "steps after exec (59 by construction)" 59 \
	"$(field "$(prog_line out vm_signal)" after_exec)"
got=$(ptrace_steps vm_signal) || got="pitrace record failed"
check_eq a-signal-ptrace-steps "ptrace backend's steps (59 by construction)" 59 "$got"
