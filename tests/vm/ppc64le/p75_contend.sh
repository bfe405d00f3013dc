# SPDX-License-Identifier: GPL-2.0
# Retries under contention, counted.  vm_contend: 4 threads each add 1 N
# times to one word with __atomic_fetch_add, nothing else.  In worker()
# only the retry loop (lwarx .. stwcx. and the bne- back) runs a number of
# times that depends on the threads' timing, once per failed stwcx.  So,
# under each backend (post's own counts of the trace):
#  - retries = worker's stwcx. executions - 4 * N, and the ATOMIC records
#    at worker's lwarx say "failed and retried" exactly that often;
#  - worker's steps - retries * the loop's length (from its addresses) is
#    the same under the driver and under the ptrace backend: the backends'
#    counts differ by retry-loop instructions only.
. /pt/cases/lib.inc
n=200
# insn_rows TRACE: worker's instructions, post counts --by insn
#   (count percent address symbol+off mnemonic operands)
insn_rows() {
	post -i "$1" counts --by insn --symbol worker --no-pager | grep -v '^#' | grep -v ' total$'
}
for b in driver ptrace; do
	pitrace record --backend $b -o c.$b -- $PT_PROGS/vm_contend $n >c.$b.out 2>&1
	check_eq p-contend-$b-exit "exit status (0: no increment lost)" 0 $?
	insn_rows c.$b >rows.$b
	lwarx=$(awk '$5 == "lwarx" { print $3; exit }' rows.$b)
	stwcx=$(awk '$5 == "stwcx." { print $3; exit }' rows.$b)
	if [ -z "$lwarx" ] || [ -z "$stwcx" ]; then
		cat rows.$b
		echo "FAIL p-contend-$b-loop: no lwarx/stwcx. in worker"
		continue
	fi
	len=$(( (stwcx - lwarx) / 4 + 2 ))	# lwarx .. stwcx., then the bne- back
	stores=$(awk '$5 == "stwcx." { n += $1 } END { print n + 0 }' rows.$b)
	retries=$((stores - 4 * n))
	steps=$(post -i c.$b counts --symbol worker --no-pager | awk '$NF == "total" { print $1 }')
	failed=$(post -i c.$b dump --steps | grep -c "ATOMIC.*(failed) pc $(printf '%#x' $((lwarx)))")
	check_eq p-contend-$b-failed-records "ATOMIC failed records at worker's lwarx" \
		"$retries" "$failed"
	eval "adj_$b=$((steps - retries * len))"
	echo "INFO p-contend-$b: worker $steps steps, $retries retries of its $len-instruction loop" \
		"(stwcx. $stores for $((4 * n)) increments), $((steps - retries * len)) without them"
done
check_eq p-contend-backends-agree "worker's steps less retry-loop steps, driver against ptrace" \
	"${adj_driver:-none}" "${adj_ptrace:-none}"
