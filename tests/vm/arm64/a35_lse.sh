# SPDX-License-Identifier: GPL-2.0
# LSE atomics (ARMv8.1; QEMU's -cpu max has them): vm_atomics_lse, 4 threads
# adding 50 times each with one ldaddal per increment, recorded by the
# ptrace backend.  The right totals (exit status 0); exactly 4 * 50 = 200
# ldadd instructions executed in worker, by construction (glibc's thread
# code runs some of its own); and one ATOMIC record for
# every load-exclusive executed (glibc's mutex may still use them).
# case-module: none
# case-timeout: 900
. /pt/cases/lib.inc
info_field() {	# info_field TRACE KEY: the value of "KEY:" in post info
	post -i "$1" info | sed -n "s/^$2: *//p"
}
"$PT_PROGS/vm_atomics_lse" 50 >plain.out 2>&1
check_eq a-lse-untraced "exit status untraced (the CPU has LSE)" 0 $?
pitrace record --backend ptrace -o lse -- "$PT_PROGS/vm_atomics_lse" 50 >lse.out 2>&1
check_eq a-lse-exit "exit status (0: no increment lost)" 0 $?
check_eq a-lse-totals "what vm_atomics_lse printed" "atomic 200 locked 200 expected 200" \
	"$(grep '^atomic ' lse.out)"
echo "INFO vm_atomics_lse: $(grep '^pitrace: .* steps' lse.out); atomic: $(info_field lse atomic)"
post -i lse counts --by insn >lse.insns
check_eq a-lse-ldadd "worker's ldadd instructions executed (4 threads * 50, by construction)" 200 \
	"$(awk '$4 ~ /^worker\+/ && $5 ~ /^ldadd/ { n += $1 } END { print n + 0 }' lse.insns)"
records=$(info_field lse atomic | sed -n 's/^\([0-9]*\) sequences.*/\1/p')
check_eq a-lse-records "ATOMIC records (none: no line) against load-exclusives executed" \
	"$(awk '$5 ~ /^lda?x[rp][bh]?$/ { n += $1 } END { print n + 0 }' lse.insns)" "${records:-0}"
