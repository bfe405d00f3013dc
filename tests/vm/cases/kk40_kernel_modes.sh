# SPDX-License-Identifier: GPL-2.0
# Kernel mode with count and block modes, and the step limit: count mode
# counts user plus kernel instructions (more than user alone by at least
# the getpid bodies); block mode records kernel-ring steps; a per-syscall
# limit of 50 ends long system calls with a GAP (limit) and the program
# still runs normally.
. /pt/cases/lib.inc
steps_of() {	# steps_of FILE: the step total pitrace record printed
	sed -n 's/^pitrace: \([0-9][0-9]*\) steps.*/\1/p' "$1"
}
pitrace record --mode count -o u -- $PT_PROGS/kern_syscalls 10 >user.out 2>&1
pitrace record --mode count --kernel -o k -- $PT_PROGS/kern_syscalls 10 >kern.out 2>&1
check_eq kk-count-status "exit status, count mode" 0 $?
u=$(steps_of user.out) k=$(steps_of kern.out)
echo "INFO kernel count mode: user only $u, user+kernel $k steps"
[ -n "$u" ] && [ -n "$k" ] && [ "$k" -gt $((u + 11 * 50)) ] && echo "PASS kk-count-more" ||
	echo "FAIL kk-count-more: user $u, with kernel $k"
pitrace record --mode block --kernel -o b -- $PT_PROGS/kern_syscalls 3 >block.out 2>&1
check_eq kk-block-status "exit status, block mode" 0 $?
post -i b counts --ring kernel >bk.out 2>&1
kb=$(sed -n 's/^# shown: \([0-9][0-9]*\) steps.*/\1/p' bk.out)
[ "${kb:-0}" -gt 0 ] && echo "PASS kk-block-kernel-steps" || { head bk.out; echo "FAIL kk-block-kernel-steps: ${kb:-none}"; }
pitrace record --kernel --kernel-limit 50 -o l -- $PT_PROGS/kern_syscalls 3 >limit.out 2>&1
check_eq kk-limit-status "exit status, --kernel-limit 50" 0 $?
post -i l dump >ldump.out 2>&1
n=$(grep -c 'GAP.*reason 2' ldump.out)
[ "$n" -gt 0 ] && echo "PASS kk-limit-gap"; echo "INFO kernel limit: $n GAP(limit) records" || echo "FAIL kk-limit-gap: no GAP with reason 2 (kernel limit)"
pitrace record --kernel=faults -o f -- $PT_PROGS/kern_syscalls 1 >faults.out 2>&1
check_eq kk-faults-refused "exit status of --kernel=faults (usage error)" 2 $?
