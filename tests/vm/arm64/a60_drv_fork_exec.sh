# SPDX-License-Identifier: GPL-2.0
# arm64 process tree: the traced program forks, the child execs vm_loop.
# With TREE selection the child is traced from the fork on, and what it
# runs after exec is exactly vm_loop's 30004 instructions; FORK and EXEC
# records are present.  With PIDS selection the child is not traced at all.
. /pt/cases/lib.inc
ptdrv run -k tree -- $PT_PROGS/vm_forkexec $PT_PROGS/vm_loop >out 2>&1
check_eq a-forkexec-drv-exit "exit status" 0 "$(grep '^child exit' out | cut -d' ' -f3)"
check_eq a-forkexec-drv-child-steps "vm_loop steps after exec" 30004 \
	"$(field "$(prog_line out vm_loop)" after_exec)"
[ "$(total out forks)" -ge 1 ] && [ "$(total out execs)" -ge 2 ] &&
	echo "PASS a-forkexec-drv-records" ||
	echo "FAIL a-forkexec-drv-records: forks $(total out forks), execs $(total out execs)"
ptdrv run -k pid -- $PT_PROGS/vm_forkexec $PT_PROGS/vm_loop >out2 2>&1
check_eq a-forkexec-drv-pid-only "vm_loop traced under PIDS selection" "" "$(prog_line out2 vm_loop)"
check_eq a-forkexec-drv-pid-exit "exit status" 0 "$(grep '^child exit' out2 | cut -d' ' -f3)"
