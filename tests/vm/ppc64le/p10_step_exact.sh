# SPDX-License-Identifier: GPL-2.0
# POWER step mode, selection by pid, command name, pid range, pid minimum,
# process tree and all processes: the recorded instructions of static
# ppc64 programs equal their counts by construction (vm_loop 30004,
# vm_syscalls 404: the instruction after each sc is recorded at syscall
# exit), the EXIT record's total agrees, and the ptrace backend, run in
# the same guest, counts the same.
. /pt/cases/lib.inc
for kind in pid comm range min tree all; do
	for spec in vm_loop:30004 vm_syscalls:404; do
		prog=${spec%%:*} want=${spec#*:}
		ptdrv run -k $kind -- $PT_PROGS/$prog >out.$kind.$prog 2>&1
		line=$(prog_line out.$kind.$prog $prog)
		if [ -z "$line" ]; then
			cat out.$kind.$prog
			echo "FAIL p-step-$kind-$prog: no EXEC record for $prog"
			continue
		fi
		check_eq p-step-$kind-$prog "steps after exec" $want "$(field "$line" after_exec)"
		[ $kind = comm ] && check_eq p-step-$kind-$prog-exit-total "EXIT record steps" $want \
			"$(field "$line" exit_steps)"
		check_eq p-step-$kind-$prog-lost "lost steps" 0 "$(total out.$kind.$prog lost)"
	done
done
for prog in vm_loop vm_syscalls; do
	want=$(field "$(prog_line out.pid.$prog $prog)" after_exec)
	got=$(ptrace_steps $prog) || { echo "FAIL p-step-$prog-equals-ptrace: pitrace record failed"; continue; }
	check_eq p-step-$prog-equals-ptrace "ptrace backend's steps (driver: $want)" "$want" "$got"
done
