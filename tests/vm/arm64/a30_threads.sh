# SPDX-License-Identifier: GPL-2.0
# arm64 exclusive sequences under threads: vm_atomics, 4 threads adding 50
# times each to one word with __atomic_fetch_add (inline ldaxr/stlxr:
# -mno-outline-atomics -march=armv8-a) and to another under a pthread
# mutex, recorded by the ptrace backend: the right totals (exit status 0),
# and one ATOMIC record for every load-exclusive executed (retries
# included).
# case-module: none
# case-timeout: 900
. /pt/cases/lib.inc
info_field() {	# info_field TRACE KEY: the value of "KEY:" in post info
	post -i "$1" info | sed -n "s/^$2: *//p"
}
"$PT_PROGS/vm_atomics" 50 >plain.out 2>&1
check_eq a-atomics-untraced "exit status untraced" 0 $?
pitrace record --backend ptrace -o many -- "$PT_PROGS/vm_atomics" 50 >many.out 2>&1
check_eq a-atomics-exit "exit status (0: no increment lost)" 0 $?
check_eq a-atomics-totals "what vm_atomics printed" "atomic 200 locked 200 expected 200" \
	"$(grep '^atomic ' many.out)"
echo "INFO vm_atomics: $(grep '^pitrace: .* steps' many.out); atomic: $(info_field many atomic)"
check_eq a-atomics-records "ATOMIC records against load-exclusives executed" \
	"$(post -i many counts --by insn | awk '$5 ~ /^lda?x[rp][bh]?$/ { n += $1 } END { print n + 0 }')" \
	"$(info_field many atomic | sed -n 's/^\([0-9]*\) sequences.*/\1/p')"
