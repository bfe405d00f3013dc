# SPDX-License-Identifier: GPL-2.0
# arm64 exclusive sequences under threads, by the driver (which emulates
# each sequence) and by the ptrace backend in the same guest: vm_atomics,
# 4 threads adding N times each to one word with __atomic_fetch_add
# (inline ldaxr/stlxr: -mno-outline-atomics -march=armv8-a) and to another
# under a pthread mutex (driver: N = 200, ptrace: N = 50).  Under each:
# the right totals (exit status 0), one ATOMIC record for every
# load-exclusive executed (retries included), nothing untraced (no GAP).
# In worker() the sequence's ldaxr runs once per increment and once more
# per failed stlxr: its count less the ATOMIC "failed" records at it is
# 4 * N under both backends, and its ATOMIC records there are the ldaxr's
# executions.
# case-timeout: 900
. /pt/cases/lib.inc
info_field() {	# info_field TRACE KEY: the value of "KEY:" in post info
	post -i "$1" info | sed -n "s/^$2: *//p"
}
for spec in driver:200 ptrace:50; do
	b=${spec%%:*} n=${spec#*:}
	pitrace record --backend $b -o many.$b -- "$PT_PROGS/vm_atomics" $n >many.$b.out 2>&1
	check_eq a-drv-atomics-$b-exit "exit status (0: no increment lost)" 0 $?
	check_eq a-drv-atomics-$b-totals "what vm_atomics printed" \
		"atomic $((4 * n)) locked $((4 * n)) expected $((4 * n))" "$(grep '^atomic ' many.$b.out)"
	echo "INFO vm_atomics $b ($n per thread): $(grep '^pitrace: .* steps' many.$b.out);" \
		"atomic: $(info_field many.$b atomic)"
	post -i many.$b counts --by insn >insns.$b
	check_eq a-drv-atomics-$b-records "ATOMIC records against load-exclusives executed" \
		"$(awk '$5 ~ /^lda?x[rp][bh]?$/ { n += $1 } END { print n + 0 }' insns.$b)" \
		"$(info_field many.$b atomic | sed -n 's/^\([0-9]*\) sequences.*/\1/p')"
	check_eq a-drv-atomics-$b-gaps "post info gaps" "" "$(info_field many.$b gaps)"
	ldaxr=$(awk '$4 ~ /^worker\+/ && $5 == "ldaxr" { print $3; exit }' insns.$b)
	runs=$(awk '$4 ~ /^worker\+/ && $5 == "ldaxr" { n += $1 } END { print n + 0 }' insns.$b)
	post -i many.$b dump --steps | grep "ATOMIC.* pc $ldaxr " >records.$b
	failed=$(grep -c "(failed)" records.$b)
	check_eq a-drv-atomics-$b-worker "worker's ldaxr executions less its failed stlxr" \
		$((4 * n)) $((runs - failed))
	check_eq a-drv-atomics-$b-worker-records "ATOMIC records at worker's ldaxr" "$runs" \
		"$(grep -c . records.$b)"
	echo "INFO vm_atomics $b: worker's ldaxr at $ldaxr ran $runs times, $failed retries"
done
