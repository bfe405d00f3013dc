# SPDX-License-Identifier: GPL-2.0
# arm64: one session at a time (a second CLAIM gets EBUSY naming the
# owner); a task that ptrace single-steps (TIF_SINGLESTEP, the flag the
# driver's own steps use too, on a ptraced task) is refused at SELECT with
# its tracer named; kernel-mode stepping is refused in one line; uprobes on
# a traced program (below).
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

# uprobes on a traced program: one simulated (adrp), one stepped out of
# line (ldr).  The driver lends its step flag to uprobes at the breakpoint
# (docs/arm64.md): the count equals the ptrace backend's and the driver's
# without uprobes, and every probe hits.
T=/sys/kernel/tracing
mount -t tracefs none $T 2>/dev/null
if ! [ -w $T/uprobe_events ]; then
	echo "SKIP a-uprobes: no $T/uprobe_events"
else
	set -- $($PT_PROGS/uprobe_target offsets)
	calls=300
	# Output to a file every time: libc does more work for a terminal or /dev/null.
	pitrace record --backend ptrace -o base.trace -- $PT_PROGS/uprobe_target $calls \
		>base.out 2>&1
	base=$(post -i base.trace info 2>/dev/null | sed -n 's/^steps: *//p')
	pitrace record --backend driver -o plain.trace -- $PT_PROGS/uprobe_target $calls \
		>plain.out 2>&1
	plain=$(post -i plain.trace info 2>/dev/null | sed -n 's/^steps: *//p')
	echo "p:pitrace/entry $PT_PROGS/uprobe_target:$1" >>$T/uprobe_events &&
		echo "p:pitrace/xol $PT_PROGS/uprobe_target:$2" >>$T/uprobe_events &&
		echo 1 >$T/events/pitrace/enable
	echo >$T/trace
	pitrace record --backend driver -o u.trace -- $PT_PROGS/uprobe_target $calls >u.out 2>&1
	check_eq a-uprobe-record-exit "exit status of pitrace record with uprobes" 0 $?
	check_eq a-uprobe-program-output "program output" "uprobe_target: $calls calls" \
		"$(grep '^uprobe_target' u.out)"
	probed=$(post -i u.trace info 2>/dev/null | sed -n 's/^steps: *//p')
	check_eq a-uprobe-steps-equal-ptrace "steps with uprobes (ptrace backend, no uprobes)" \
		"$base" "$probed"
	check_eq a-uprobe-steps-equal-plain "steps with uprobes (driver, no uprobes)" "$plain" \
		"$probed"
	check_eq a-uprobe-gaps "post info gaps with uprobes" "" \
		"$(post -i u.trace info 2>/dev/null | sed -n 's/^gaps: *//p')"
	check_eq a-uprobe-entry-hits "entry probe hits" $calls "$(grep -c ' entry: ' $T/trace)"
	check_eq a-uprobe-xol-hits "out-of-line probe hits" $calls "$(grep -c ' xol: ' $T/trace)"
	echo 0 >$T/events/pitrace/enable
	echo "-:pitrace/entry" >>$T/uprobe_events
	echo "-:pitrace/xol" >>$T/uprobe_events
fi
