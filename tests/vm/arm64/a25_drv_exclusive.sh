# SPDX-License-Identifier: GPL-2.0
# arm64 exclusive sequences under the driver: a load-exclusive is never
# stepped (the step's exception return would clear the monitor and the
# store-exclusive would fail forever); the driver emulates the sequence
# from it to its store-exclusive in the task's context, every instruction
# recorded as a step (docs/arm64.md).  Under both backends, in this guest:
#  - vm_atomic, 1000 ldaxr/stlxr increments: 6008 instructions by
#    construction, 1000 ATOMIC records all "stored", ldaxr counted 1000
#    times, exit status 0 (every stlxr stored);
#  - vm_excl_forms, every form the emulator takes (ldaxp/stlxp of
#    doublewords, ldxp/stxp of words, ldxrb/stxrb, a ldaxrh compare that
#    leaves early, tbnz and movk inside, a cbz that leaves straight to
#    another sequence's ldaxr): 1753 instructions by construction, 252
#    sequences stored and 2 left early, exit status 0 (every value right).
# Nothing runs untraced: no GAP.
. /pt/cases/lib.inc
info_field() {	# info_field TRACE KEY: the value of "KEY:" in post info
	post -i "$1" info | sed -n "s/^$2: *//p"
}
# load_excl TRACE: executions of load-exclusives, from post counts --by insn
load_excl() {
	post -i "$1" counts --by insn | awk '$5 ~ /^lda?x[rp][bh]?$/ { n += $1 } END { print n + 0 }'
}

exact="1000 sequences: 1000 stored, 0 failed and retried, 0 left early;"
exact="$exact not exact: 0 ran untraced, 0 path guessed"
for b in driver ptrace; do
	pitrace record --backend $b -o loop.$b -- "$PT_PROGS/vm_atomic" >loop.$b.out 2>&1
	check_eq a-drv-atomic-$b-exit "exit status (0: every stlxr stored)" 0 $?
	check_eq a-drv-atomic-$b-steps "steps (4 + 1000 * 6 + 4 by construction)" 6008 \
		"$(info_field loop.$b steps)"
	check_eq a-drv-atomic-$b-records "post info atomic" "$exact" "$(info_field loop.$b atomic)"
	check_eq a-drv-atomic-$b-ldaxr "ldaxr executions" 1000 "$(load_excl loop.$b)"
	check_eq a-drv-atomic-$b-gaps "post info gaps" "" "$(info_field loop.$b gaps)"
done
check_eq a-drv-atomic-equals-ptrace "driver's steps against the ptrace backend's" \
	"$(info_field loop.ptrace steps)" "$(info_field loop.driver steps)"
echo "INFO vm_atomic: driver $(grep '^pitrace: .* steps' loop.driver.out);" \
	"ptrace $(grep '^pitrace: .* steps' loop.ptrace.out)"

forms="254 sequences: 252 stored, 0 failed and retried, 2 left early;"
forms="$forms not exact: 0 ran untraced, 0 path guessed"
for b in driver ptrace; do
	pitrace record --backend $b -o forms.$b -- "$PT_PROGS/vm_excl_forms" >forms.$b.out 2>&1
	check_eq a-drv-forms-$b-exit "exit status (0: every value right)" 0 $?
	check_eq a-drv-forms-$b-steps "steps (by construction)" 1753 "$(info_field forms.$b steps)"
	check_eq a-drv-forms-$b-records "post info atomic" "$forms" "$(info_field forms.$b atomic)"
	check_eq a-drv-forms-$b-loads "load-exclusives executed" 254 "$(load_excl forms.$b)"
	check_eq a-drv-forms-$b-gaps "post info gaps" "" "$(info_field forms.$b gaps)"
done
# The same ATOMIC records, in order: kind, pc and steps (3 for a stored
# increment, 4 for a pair's, 3 and 2 for the two that left).
post -i forms.driver dump --steps | grep ATOMIC | sed 's/.*ATOMIC *//' >atomic.driver
post -i forms.ptrace dump --steps | grep ATOMIC | sed 's/.*ATOMIC *//' >atomic.ptrace
check_eq a-drv-forms-same-records "the driver's ATOMIC records against the ptrace backend's" \
	"$(md5sum <atomic.ptrace) $(wc -l <atomic.ptrace)" \
	"$(md5sum <atomic.driver) $(wc -l <atomic.driver)"
