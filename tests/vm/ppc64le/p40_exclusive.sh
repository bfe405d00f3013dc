# SPDX-License-Identifier: GPL-2.0
# POWER: one session at a time; while a kernel debugger holds the step hook
# (xmon, switched on through debugfs, sets __debugger_sstep) CLAIM gets
# EBUSY with STATUS step_users naming it and pitrace says so in one line;
# once xmon is off a session starts again.  A task that ptrace single-steps
# (user_enable_single_step(): TIF_SINGLESTEP) is refused at SELECT.
. /pt/cases/lib.inc
ptdrv claim -w >holder.out 2>&1 &
holder=$!
until ptdrv status | grep -q claimed=1; do sleep 0.1; done
check_eq p-exclusive-ebusy "second claim" "EBUSY owner=$holder" "$(ptdrv claim 2>&1)"
kill $holder
wait $holder

mount -t debugfs none /sys/kernel/debug 2>/dev/null
x=/sys/kernel/debug/powerpc/xmon
if [ ! -w $x ]; then
	echo "SKIP p-xmon: no $x (kernel without CONFIG_XMON or debugfs)"
else
	echo 1 >$x
	check_eq p-xmon-status "STATUS step_users with xmon on" 0x4 \
		"$(ptdrv status | tr ' ' '\n' | sed -n 's/^step_users=//p')"
	check_eq p-xmon-claim-ebusy "CLAIM while xmon is on" "EBUSY owner=0 step_users=0x4" \
		"$(ptdrv claim 2>&1)"
	pitrace record --backend driver -o rec -- $PT_PROGS/vm_loop >rec.out 2>&1
	check_eq p-xmon-record-exit "exit status of pitrace record" 1 $?
	check_eq p-xmon-record-message "pitrace record says" \
		"pitrace: error: cannot claim the step trap: a kernel debugger (xmon or kgdb) holds it (xmon: echo 0 > /sys/kernel/debug/powerpc/xmon)" \
		"$(cat rec.out)"
	echo 0 >$x
	out=$(ptdrv claim 2>&1)
	check_eq p-xmon-off-claim "claim once xmon is off" "claimed pid=" "${out%%[0-9]*}"
fi

# ptrace: a stepper single-steps vm_block (asleep in read) for the whole of its life.
mkfifo in
ptstep $PT_PROGS/vm_block <in >ptstep.out 2>&1 &
exec 3>in
until grep -q stepping ptstep.out; do sleep 0.1; done	# the case timeout guards a hang
tracer=$(sed -n 's/^ptstep: tracer \([0-9]*\) stepping.*/\1/p' ptstep.out)
stepped=$(sed -n 's/^ptstep: tracer [0-9]* stepping \([0-9]*\)/\1/p' ptstep.out)
state() { sed 's/.*) \(.\).*/\1/' /proc/$stepped/stat 2>/dev/null; }
i=0
until [ "$(state)" = S ] || [ $i -ge 600 ]; do i=$((i + 1)); sleep 0.2; done
ptdrv follow -p $stepped >follow.out 2>&1
line=$(grep '^select-failed' follow.out)
check_eq p-ptrace-select-conflict "STATUS conflict and tracer" "$stepped $tracer" \
	"$(echo "$line" | tr ' ' '\n' | sed -n 's/^conflict=//p;s/^tracer=//p' | tr '\n' ' ' |
		sed 's/ $//')"
exec 3>&-
wait
# A traced program that single-steps its child: the child's traps are the
# stepper's.  powerpc reports a ptrace step over sc at syscall exit only
# when syscall tracing is on (a session's sys_exit tracepoint turns it on
# for every task), else after the next instruction: the stepper's reference
# count is taken with a session open, tracing nothing.
ptdrv claim -w >ref-session.out 2>&1 &
holder=$!
until ptdrv status | grep -q claimed=1; do sleep 0.1; done
alone=$(ptstep $PT_PROGS/vm_syscalls | sed -n 's/^ptstep: steps \([0-9]*\).*/\1/p')
kill $holder
wait $holder
pitrace record --backend driver -o nested.trace -- ptstep $PT_PROGS/vm_syscalls >nested.out 2>&1
check_eq p-ptrace-nested-exit "exit status of pitrace record -- ptstep vm_syscalls" 0 $?
check_eq p-ptrace-nested-steps "steps the stepper saw (alone: $alone)" "$alone" \
	"$(sed -n 's/^ptstep: steps \([0-9]*\).*/\1/p' nested.out)"
