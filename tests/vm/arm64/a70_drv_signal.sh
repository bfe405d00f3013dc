# SPDX-License-Identifier: GPL-2.0
# arm64 signals under the driver: vm_signal runs its handler three times
# (kill to self, sa_restorer's rt_sigreturn): 59 user instructions by
# construction, and exit status 0 (every handler ran and returned).  The
# ptrace backend must count the same; where it says it took late step
# traps after a system call (GAPs), it counts the instruction after that
# svc twice on arm64 (docs/arm64.md): then SKIP, naming its count.
. /pt/cases/lib.inc
ptdrv run -k pid -- $PT_PROGS/vm_signal >out 2>&1
check_eq a-signal-drv-exit "exit status" 0 "$(grep '^child exit' out | cut -d' ' -f3)"
check_eq a-signal-drv-steps "steps after exec (59 by construction)" 59 \
	"$(field "$(prog_line out vm_signal)" after_exec)"
got=$(ptrace_steps vm_signal) || got="pitrace record failed"
late=$(post -i ptrace.vm_signal info 2>/dev/null | sed -n 's/^gaps:.*late step trap \([0-9]*\).*/\1/p')
if [ "$got" != 59 ] && [ -n "$late" ]; then
	echo "SKIP a-signal-ptrace-steps: the ptrace backend counts $got after $late late step traps" \
		"(known: docs/arm64.md)"
else
	check_eq a-signal-ptrace-steps "ptrace backend's steps (59 by construction)" 59 "$got"
fi
