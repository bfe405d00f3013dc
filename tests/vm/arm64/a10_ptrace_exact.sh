# SPDX-License-Identifier: GPL-2.0
# arm64's ptrace backend (PTRACE_SINGLESTEP, registers from
# PTRACE_GETREGSET): the recorded instructions of a static program equal
# its count by construction (vm_loop: 1 + 3 * 10000 + 3 = 30004, its svc
# included), vm_calls' functions count and call as its source says, and
# vm_signal's system calls and handlers count as its source says.
# case-module: none
. /pt/cases/lib.inc
pitrace record --backend ptrace -o loop -- "$PT_PROGS/vm_loop" >loop.out 2>&1
check_eq a-step-vm_loop-exit "exit status of vm_loop recorded" 0 $?
echo "INFO vm_loop: $(grep '^pitrace: .* steps' loop.out)"
check_eq a-step-vm_loop "ptrace backend's steps (1 + 3 * 10000 + 3 by construction)" 30004 \
	"$(post -i loop info | sed -n 's/^steps: *//p')"

# vm_calls: "NAME CALLS BASE CUM" of each function, from post arc.
pitrace record --backend ptrace -o calls -- "$PT_PROGS/vm_calls" >calls.out 2>&1
check_eq a-calls-exit "exit status of vm_calls recorded" 0 $?
post -i calls arc >calls.arc 2>&1
for want in "_start 0 504 1604" "f 100 500 700" "g 100 200 200" "h 200 400 400"; do
	name=${want%% *}
	check_eq "a-calls-$name" "calls, base and cum of $name (by construction)" "$want" \
		"$(awk -v f="$name" '$NF == "[vm_calls]" && $(NF - 1) == f { print f, $1, $2, $4 }' \
			calls.arc)"
done

# vm_signal: system calls in mid-run (rt_sigaction, getpid, kill, the
# restorer's rt_sigreturn) and a handler run three times: 59 instructions
# by construction, none counted twice after an svc, no GAP.
pitrace record --backend ptrace -o sig -- "$PT_PROGS/vm_signal" >sig.out 2>&1
check_eq a-signal-exit "exit status of vm_signal recorded (every handler ran)" 0 $?
check_eq a-signal-steps "ptrace backend's steps of vm_signal (59 by construction)" 59 \
	"$(post -i sig info | sed -n 's/^steps: *//p')"
check_eq a-signal-no-gap "GAPs in vm_signal's trace" "" "$(post -i sig info | grep '^gaps:')"
