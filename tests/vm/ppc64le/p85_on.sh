# SPDX-License-Identifier: GPL-2.0
# POWER, the ptrace backend's --on: vm_onfunc calls work three times from
# its own module (a bl to the local entry, past the global entry's TOC
# set-up) and once through a pointer (the global entry).  Recording only
# while work runs must give every instruction of work that the full trace
# has, and nothing else: breakpoints at both entries, and each region ends
# when work returns to LR with its entry stack pointer.
. /pt/cases/lib.inc
sym() {	# sym TRACE SYMBOL: its count in post counts --by symbol
	post -i "$1" counts --by symbol | awk -v s="$2" '!/^#/ && $NF == s { n = $1 } END { print n + 0 }'
}
pitrace record --backend ptrace -o all -- $PT_PROGS/vm_onfunc >/dev/null 2>&1
check_eq p-on-full-exit "exit status of the full recording" 0 $?
pitrace record --backend ptrace --on work -o on -- $PT_PROGS/vm_onfunc >/dev/null 2>&1
check_eq p-on-exit "exit status with --on work" 0 $?
want=$(sym all work)
[ "$want" -gt 0 ] || echo "FAIL p-on-reference: work has no steps in the full trace"
check_eq p-on-work "work's steps with --on (the full trace's)" "$want" "$(sym on work)"
check_eq p-on-nothing-else "steps with --on, all symbols" "$want" \
	"$(post -i on info | sed -n 's/^steps: *//p')"
