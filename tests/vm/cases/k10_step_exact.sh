# SPDX-License-Identifier: GPL-2.0
# Step mode, selection by pid, by command name and by pid range: the
# recorded instructions of static programs equal their counts by
# construction (confirmed by valgrind --tool=lackey on the host): vm_loop
# 30004, vm_syscalls 404 (each syscall's next instruction is recorded at
# syscall exit), and the EXIT record's per-thread total agrees.
. /pt/cases/lib.inc
for kind in pid comm range; do
	for spec in vm_loop:30004 vm_syscalls:404; do
		prog=${spec%%:*} want=${spec#*:}
		ptdrv run -k $kind -- $PT_PROGS/$prog >out.$kind.$prog 2>&1
		line=$(prog_line out.$kind.$prog $prog)
		if [ -z "$line" ]; then
			cat out.$kind.$prog
			echo "FAIL step-$kind-$prog: no EXEC record for $prog"
			continue
		fi
		check_eq step-$kind-$prog "steps after exec" $want "$(field "$line" after_exec)"
		# by comm, the task is armed at exec exactly: the exit total must match too
		[ $kind = comm ] && check_eq step-$kind-$prog-exit-total "EXIT record steps" $want \
			"$(field "$line" exit_steps)"
		check_eq step-$kind-$prog-lost "lost steps" 0 "$(total out.$kind.$prog lost)"
	done
done
