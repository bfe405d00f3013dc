# SPDX-License-Identifier: GPL-2.0
# Late step traps in a QEMU guest: pt_cpuid (static) runs 1,000 cpuids in a
# loop, then one cpuid before three nops in main.  Some hypervisors (KVM on
# AMD) deliver cpuid's step trap one instruction late; whether this guest
# does is printed as INFO (the steps restored).  Either way, under the
# driver and the ptrace backend, the instruction after each cpuid must be
# counted: the loop's dec 1000 times, main's first nop once, no
# unexplained entry, and no gap but where a late trap skipped a branch.
. /pt/cases/lib.inc
[ -x $PT_PROGS/pt_cpuid ] || { echo "SKIP late-trap: no pt_cpuid built"; exit 0; }

# after TRACE FN: the count of FN's instruction after its cpuid, by address
after() {
	post -i "$1" counts --by insn 2>/dev/null | awk -v fn="$2" '
		!/^#/ && index($4, fn "+0x") == 1 { print $3, $1, $5 }' | sort |
		awk 'prev == "cpuid" { print $2; exit } { prev = $3 }'
}
# stat TRACE KEY: a number from arc --check's first line
stat() { post -i "$1" arc --check 2>/dev/null | head -n 1 | tr ' ' '\n' | sed -n "/^$2\$/{n;p}"; }

for backend in driver ptrace; do
	pitrace record --backend $backend -o $backend -- $PT_PROGS/pt_cpuid >$backend.out 2>&1
	check_eq late-trap-$backend-status "exit status of pitrace record" 0 $?
	check_eq late-trap-$backend-output "program output" "cpuid done" "$(grep '^cpuid' $backend.out)"
	check_eq late-trap-$backend-loop "cpuid_loop's instruction after cpuid" 1000 \
		"$(after $backend cpuid_loop)"
	check_eq late-trap-$backend-main "main's first nop after cpuid" 1 "$(after $backend main)"
	check_eq late-trap-$backend-unexplained "unexplained entries" 0 "$(stat $backend unexplained)"
	# A trap that skipped a branch cannot be restored exactly: a gap that
	# says so is right (QEMU may lose a step trap to an interrupt).  Any
	# other gap is not.
	gaps=$(stat $backend gaps)
	post -i $backend info --read >info.$backend 2>&1
	late=$(( $(sed -n 's/^restored: .*; \([0-9]*\) gaps where one could not be$/\1/p' \
		info.$backend) + $(sed -n 's/^gaps: .*late step trap \([0-9]*\).*/\1/p' info.$backend) + 0))
	other=$((gaps - late))
	[ $other -lt 0 ] && other=0
	check_eq late-trap-$backend-gaps "gaps other than late traps'" 0 $other
	[ "${late:-0}" = 0 ] || echo "INFO late-trap-$backend: $late late traps skipped a branch: gaps"
	if [ "$gaps" != 0 ]; then	# what they are, for the log
		post -i $backend dump --steps 2>&1 | grep -i -B2 -A1 gap | head -n 20
		post -i $backend info 2>&1 | grep -i 'gap\|lost\|steps'
		tar czf $backend.tgz $backend && export_file k12-$backend.tgz $backend.tgz
	fi
	echo "INFO late-trap-$backend: $(stat $backend restored) steps restored after a late trap"
done
