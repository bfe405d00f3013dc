# SPDX-License-Identifier: GPL-2.0
# arm64 driver, step mode, selection by pid, command name and process
# tree: the recorded instructions of vm_loop equal its count by
# construction (1 + 3 * 10000 + 3 = 30004, its svc included), the EXIT
# record's total agrees (selected by comm: from exec on), nothing is lost,
# and the ptrace backend, run in the same guest, counts the same.  Count
# mode gives the same total.
. /pt/cases/lib.inc
for kind in pid comm tree; do
	ptdrv run -k $kind -- $PT_PROGS/vm_loop >out.$kind 2>&1
	line=$(prog_line out.$kind vm_loop)
	if [ -z "$line" ]; then
		cat out.$kind
		echo "FAIL a-drv-step-$kind: no EXEC record for vm_loop"
		continue
	fi
	check_eq a-drv-step-$kind "steps after exec" 30004 "$(field "$line" after_exec)"
	# The EXIT total counts the thread's steps before exec too, but for comm.
	[ $kind = comm ] && check_eq a-drv-step-$kind-exit-total "EXIT record steps" 30004 \
		"$(field "$line" exit_steps)"
	check_eq a-drv-step-$kind-lost "lost steps" 0 "$(total out.$kind lost)"
	check_eq a-drv-step-$kind-exit "vm_loop's exit status" 0 \
		"$(grep '^child exit' out.$kind | cut -d' ' -f3)"
done
want=$(field "$(prog_line out.pid vm_loop)" after_exec)
got=$(ptrace_steps vm_loop) || got="pitrace record failed"
check_eq a-drv-equals-ptrace "ptrace backend's steps (driver: $want)" "$want" "$got"
pitrace record --backend driver -o rec -- $PT_PROGS/vm_loop >rec.out 2>&1
check_eq a-drv-record-exit "exit status of pitrace record --backend driver" 0 $?
check_eq a-drv-record-steps "post info steps" 30004 "$(post -i rec info | sed -n 's/^steps: *//p')"
pitrace record --backend driver --mode count -o cnt -- $PT_PROGS/vm_loop >cnt.out 2>&1
check_eq a-drv-count-exit "exit status of pitrace record --mode count" 0 $?
check_eq a-drv-count-steps "steps pitrace counted in count mode" 30004 \
	"$(sed -n 's/^pitrace: \([0-9]*\) steps counted.*/\1/p' cnt.out)"
