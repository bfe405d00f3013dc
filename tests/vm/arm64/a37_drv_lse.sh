# SPDX-License-Identifier: GPL-2.0
# LSE atomics (ARMv8.1; QEMU's -cpu max has them) under the driver:
# vm_atomics_lse, 4 threads adding 200 times each with one ldaddal per
# increment.  The right totals (exit status 0); exactly 4 * 200 = 800
# ldadd instructions executed in worker, by construction; one ATOMIC
# record for every load-exclusive executed (glibc's own code may still
# have some) and nothing untraced (no GAP).
# case-timeout: 900
. /pt/cases/lib.inc
info_field() {	# info_field TRACE KEY: the value of "KEY:" in post info
	post -i "$1" info | sed -n "s/^$2: *//p"
}
pitrace record --backend driver -o lse -- "$PT_PROGS/vm_atomics_lse" 200 >lse.out 2>&1
check_eq a-drv-lse-exit "exit status (0: no increment lost)" 0 $?
check_eq a-drv-lse-totals "what vm_atomics_lse printed" "atomic 800 locked 800 expected 800" \
	"$(grep '^atomic ' lse.out)"
echo "INFO vm_atomics_lse under the driver: $(grep '^pitrace: .* steps' lse.out);" \
	"atomic: $(info_field lse atomic)"
post -i lse counts --by insn >lse.insns
check_eq a-drv-lse-ldadd "worker's ldadd instructions executed (4 threads * 200, by construction)" \
	800 "$(awk '$4 ~ /^worker\+/ && $5 ~ /^ldadd/ { n += $1 } END { print n + 0 }' lse.insns)"
records=$(info_field lse atomic | sed -n 's/^\([0-9]*\) sequences.*/\1/p')
check_eq a-drv-lse-records "ATOMIC records (none: no line) against load-exclusives executed" \
	"$(awk '$5 ~ /^lda?x[rp][bh]?$/ { n += $1 } END { print n + 0 }' lse.insns)" "${records:-0}"
check_eq a-drv-lse-gaps "post info gaps" "" "$(info_field lse gaps)"
