# SPDX-License-Identifier: GPL-2.0
# POWER larx/stcx. sequences, which a single step would livelock: they run
# as one unit (the driver emulates each sequence in the task's context; the
# ptrace backend runs it natively to breakpoints at its exits), every
# instruction still counted, retries included.
#  - vm_atomic, a single-threaded lwarx/stwcx. loop: 6009 instructions by
#    construction under both backends, 1000 ATOMIC records all "stored",
#    the same records (kind, pc, steps) under both, and its lwarx counted
#    1000 times;
#  - vm_atomic100, 100 increments of a word whose page is not written before:
#    511 instructions by construction under both backends, all 100 stored.
#    Its first stwcx. would take the page's copy-on-write fault, which
#    loses the reservation: the driver pins the page for writing first, the
#    ptrace backend writes the word back through /proc/PID/mem before the
#    native run, so neither adds a retry (untraced, the program retries
#    once: 515);
#  - vm_atomics, 4 threads adding to one word with __atomic_fetch_add and
#    to another under a pthread mutex: the right totals under both
#    backends, and every load-reserve executed has its ATOMIC record (the
#    retries a contended store-conditional causes are steps of their own,
#    and post info counts them).
. /pt/cases/lib.inc
info_field() {	# info_field TRACE KEY: the value of "KEY:" in post info
	post -i "$1" info | sed -n "s/^$2: *//p"
}
# larx_count TRACE: executions of load-reserve instructions, from post counts --by insn
larx_count() {
	post -i "$1" counts --by insn | awk '$5 ~ /^l[bhwdq]arx$/ { n += $1 } END { print n + 0 }'
}
# atomic_records TRACE: ATOMIC records, from post info
atomic_records() {
	info_field "$1" atomic | sed -n 's/^\([0-9]*\) sequences.*/\1/p'
}

exact="1000 sequences: 1000 stored, 0 failed and retried, 0 left early; not exact: 0 ran untraced, 0 path guessed"
for b in driver ptrace; do
	pitrace record --backend $b -o loop.$b -- $PT_PROGS/vm_atomic >loop.$b.out 2>&1
	check_eq p-atomic-loop-$b-exit "exit status (0: every stwcx. stored)" 0 $?
	check_eq p-atomic-loop-$b-steps "steps (5 + 1000 * 6 + 4 by construction)" 6009 \
		"$(info_field loop.$b steps)"
	check_eq p-atomic-loop-$b-records "post info atomic" "$exact" "$(info_field loop.$b atomic)"
	check_eq p-atomic-loop-$b-lwarx "lwarx executions" 1000 "$(larx_count loop.$b)"
done

# The same ATOMIC records under both backends, in order: kind, pc and
# steps, each counting its sequence's instructions only (3: lwarx, addi,
# stwcx.), not the one it goes on to.
post -i loop.driver dump --steps | grep ATOMIC | sed 's/.*ATOMIC *//' >atomic.driver
post -i loop.ptrace dump --steps | grep ATOMIC | sed 's/.*ATOMIC *//' >atomic.ptrace
check_eq p-atomic-loop-same-records "the driver's ATOMIC records against the ptrace backend's" \
	"$(md5sum <atomic.ptrace) $(wc -l <atomic.ptrace)" \
	"$(md5sum <atomic.driver) $(wc -l <atomic.driver)"
echo "INFO p-atomic-loop: first ATOMIC record: $(head -n 1 atomic.driver)"

exact100="100 sequences: 100 stored, 0 failed and retried, 0 left early; not exact: 0 ran untraced, 0 path guessed"
for b in driver ptrace; do
	pitrace record --backend $b -o cow.$b -- $PT_PROGS/vm_atomic100 >cow.$b.out 2>&1
	check_eq p-atomic-cow-$b-exit "exit status (0: every increment stored)" 0 $?
	check_eq p-atomic-cow-$b-steps "steps (6 + 100 * 5 + 5 by construction)" 511 \
		"$(info_field cow.$b steps)"
	check_eq p-atomic-cow-$b-records "post info atomic" "$exact100" "$(info_field cow.$b atomic)"
	check_eq p-atomic-cow-$b-lwarx "lwarx executions" 100 "$(larx_count cow.$b)"
done

for spec in driver:2000 ptrace:100; do
	b=${spec%%:*} n=${spec#*:}
	pitrace record --backend $b -o many.$b -- $PT_PROGS/vm_atomics $n >many.$b.out 2>&1
	check_eq p-atomics-$b-exit "exit status (0: no increment lost)" 0 $?
	check_eq p-atomics-$b-totals "what vm_atomics printed" \
		"atomic $((4 * n)) locked $((4 * n)) expected $((4 * n))" "$(grep '^atomic ' many.$b.out)"
	check_eq p-atomics-$b-records "ATOMIC records against load-reserves executed" \
		"$(larx_count many.$b)" "$(atomic_records many.$b)"
	echo "INFO p-atomics-$b ($n per thread): $(info_field many.$b atomic)"
done
