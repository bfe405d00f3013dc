# SPDX-License-Identifier: GPL-2.0
# arm64 exclusive sequences, which a single step would livelock (the step
# trap clears the exclusive monitor): the ptrace backend runs each one
# natively to breakpoints at its exits, every instruction still counted.
# vm_atomic, a single-threaded ldaxr/stlxr loop: 6008 instructions by
# construction, 1000 ATOMIC records all "stored", ldaxr counted 1000 times,
# and exit status 0 (every stlxr stored, as untraced).
# case-module: none
. /pt/cases/lib.inc
info_field() {	# info_field TRACE KEY: the value of "KEY:" in post info
	post -i "$1" info | sed -n "s/^$2: *//p"
}
"$PT_PROGS/vm_atomic"
check_eq a-atomic-untraced-exit "exit status untraced (0: every stlxr stored)" 0 $?
pitrace record --backend ptrace -o loop -- "$PT_PROGS/vm_atomic" >loop.out 2>&1
check_eq a-atomic-exit "exit status (0: every stlxr stored)" 0 $?
echo "INFO vm_atomic: $(grep '^pitrace: .* steps' loop.out)"
check_eq a-atomic-steps "steps (4 + 1000 * 6 + 4 by construction)" 6008 "$(info_field loop steps)"
check_eq a-atomic-records "post info atomic" \
	"1000 sequences: 1000 stored, 0 failed and retried, 0 left early; not exact: 0 ran untraced, 0 path guessed" \
	"$(info_field loop atomic)"
check_eq a-atomic-ldaxr "ldaxr executions" 1000 \
	"$(post -i loop counts --by insn | awk '$5 == "ldaxr" { n += $1 } END { print n + 0 }')"
