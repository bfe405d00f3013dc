# SPDX-License-Identifier: GPL-2.0
# arm64: one session at a time (a second CLAIM gets EBUSY naming the
# owner); a task that ptrace single-steps (TIF_SINGLESTEP, the flag the
# driver's own steps use too, on a ptraced task) is refused at SELECT with
# its tracer named; kernel-mode stepping is refused in one line.
. /pt/cases/lib.inc
ptdrv claim -w >holder.out 2>&1 &
holder=$!
until ptdrv status | grep -q claimed=1; do sleep 0.1; done
check_eq a-exclusive-ebusy "second claim" "EBUSY owner=$holder" "$(ptdrv claim 2>&1)"
kill $holder
wait $holder

# ptrace: a stepper single-steps vm_block (asleep in read) for the whole of its life.
mkfifo in
ptstep $PT_PROGS/vm_block <in >ptstep.out 2>&1 &
exec 3>in
i=0
until grep -q stepping ptstep.out || [ $i -ge 100 ]; do i=$((i + 1)); sleep 0.1; done
tracer=$(sed -n 's/^ptstep: tracer \([0-9]*\) stepping.*/\1/p' ptstep.out)
stepped=$(sed -n 's/^ptstep: tracer [0-9]* stepping \([0-9]*\)/\1/p' ptstep.out)
state() { sed 's/.*) \(.\).*/\1/' /proc/$stepped/stat 2>/dev/null; }
i=0
until [ "$(state)" = S ] || [ $i -ge 600 ]; do i=$((i + 1)); sleep 0.2; done
ptdrv follow -p $stepped >follow.out 2>&1
line=$(grep '^select-failed' follow.out)
check_eq a-ptrace-select-conflict "STATUS conflict and tracer" "$stepped $tracer" \
	"$(echo "$line" | tr ' ' '\n' | sed -n 's/^conflict=//p;s/^tracer=//p' | tr '\n' ' ' |
		sed 's/ $//')"
exec 3>&-
wait

pitrace record --backend driver --kernel -o k -- $PT_PROGS/vm_loop >k.out 2>&1
check_eq a-kernel-refused-exit "exit status of pitrace record --kernel" 1 $?
check_eq a-kernel-refused-message "what pitrace record --kernel says" \
	"pitrace: error: the driver cannot step kernel code on this architecture (--kernel; docs/kernel-mode.md says why)" \
	"$(cat k.out)"
