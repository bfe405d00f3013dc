# SPDX-License-Identifier: GPL-2.0
# Other single-step users.  mmiotrace (kmmio steps kernel code): while it
# is on, CLAIM gets EBUSY with STATUS step_users naming it and pitrace
# start/record exit 1 saying how to stop it; a session already running when
# it starts keeps every step, also those left on the CPU mmiotrace took
# offline; once it is off the CPUs are back and sessions count exactly on
# both.  ptrace: a task a stepper single-steps is refused at SELECT with the
# task and its tracer named; a traced program that steps a child itself
# leaves the child's traps to it.  uprobes: a probed traced program runs
# normally, its counts equal the ptrace backend's, every probe hit counts.
. /pt/cases/lib.inc
T=/sys/kernel/tracing
[ -e $T/current_tracer ] || mount -t tracefs nodev $T 2>/dev/null
online() { cat /sys/devices/system/cpu/online; }
wait_online() {	# wait_online LIST: up to 20 s until the online CPUs are LIST
	_i=0
	while [ "$(online)" != "$1" ] && [ $_i -lt 200 ]; do _i=$((_i + 1)); sleep 0.1; done
}
status_field() { ptdrv status | tr ' ' '\n' | sed -n "s/^$1=//p"; }
all_cpus=$(online)
mmio_msg="pitrace: error: cannot claim the step trap: mmiotrace is tracing"
mmio_msg="$mmio_msg (echo nop > $T/current_tracer to stop it)"

if ! grep -qw mmiotrace $T/available_tracers 2>/dev/null; then
	echo "SKIP mmiotrace: no mmiotrace tracer in $T/available_tracers"
elif [ "$all_cpus" != 0-1 ]; then
	echo "SKIP mmiotrace: needs 2 CPUs (online: $all_cpus)"
else
	# A session running when mmiotrace starts: the program recorded its
	# first loop on CPU 1, which goes offline; the second runs on CPU 0.
	mkfifo go.fifo
	exec 3<>go.fifo
	taskset -c 1 ptdrv run -k pid -- $PT_PROGS/conflict_wait <&3 >during.out 2>&1 &
	runner=$!
	wait_steps 30000 >/dev/null
	echo mmiotrace >$T/current_tracer
	check_eq mmiotrace-takes-cpus "online CPUs while mmiotrace is on" 0 "$(online)"
	check_eq mmiotrace-status-during-session "STATUS step_users in a session" 0x1 \
		"$(status_field step_users)"
	echo x >&3
	wait $runner
	exec 3>&-
	check_eq mmiotrace-session-survives "steps of conflict_wait (60010 by construction)" 60010 \
		"$(field "$(prog_line during.out conflict_wait)" after_exec)"
	check_eq mmiotrace-session-lost "lost steps" 0 "$(total during.out lost)"

	# Refused while it is on, with the reason.
	check_eq mmiotrace-claim-ebusy "CLAIM while mmiotrace is on" \
		"EBUSY owner=0 step_users=0x1" \
		"$(ptdrv claim 2>&1)"
	pitrace start -p $$ -o s.trace >start.out 2>&1
	check_eq mmiotrace-start-exit "exit status of pitrace start" 1 $?
	check_eq mmiotrace-start-message "pitrace start says" "$mmio_msg" "$(cat start.out)"
	pitrace record -o r.trace -- $PT_PROGS/vm_loop >record.out 2>&1
	check_eq mmiotrace-record-exit "exit status of pitrace record" 1 $?
	check_eq mmiotrace-record-message "pitrace record says" "$mmio_msg" "$(cat record.out)"
	pitrace status >status.out 2>&1
	check_eq mmiotrace-pitrace-status "pitrace status names the other step user" \
		"step trap also used by: mmiotrace (no new session; kernel-mode stepping paused)" \
		"$(grep '^step trap' status.out)"

	echo nop >$T/current_tracer
	wait_online "$all_cpus"
	check_eq mmiotrace-cpus-back "online CPUs after echo nop" "$all_cpus" "$(online)"
	check_eq mmiotrace-status-after "STATUS step_users after echo nop" 0 \
		"$(status_field step_users)"
	# Sessions claimed after the hotplug: the rings of both CPUs record.
	for cpu in 0 1; do
		echo x | taskset -c $cpu ptdrv run -k pid -- $PT_PROGS/conflict_wait \
			>after.$cpu 2>&1
		check_eq mmiotrace-after-cpu$cpu "steps of conflict_wait on CPU $cpu" 60010 \
			"$(field "$(prog_line after.$cpu conflict_wait)" after_exec)"
	done
	pitrace record -o after.trace -- $PT_PROGS/vm_loop >/dev/null 2>&1
	check_eq mmiotrace-after-record "pitrace record of vm_loop (30004 by construction)" 30004 \
		"$(post -i after.trace info 2>/dev/null | sed -n 's/^steps: *//p')"
fi

# ptrace: a stepper single-steps sleep for the whole of its life.
ptstep sleep 600 >ptstep.out 2>&1 &
i=0
until grep -q stepping ptstep.out; do sleep 0.1; done	# the case timeout guards a hang
tracer=$(sed -n 's/^ptstep: tracer \([0-9]*\) stepping.*/\1/p' ptstep.out)
stepped=$(sed -n 's/^ptstep: tracer [0-9]* stepping \([0-9]*\)/\1/p' ptstep.out)
# Until sleep sleeps, stepper and stepped switch CPUs all the time; sessions starting then
# patch the scheduler's tracepoint while it runs, which QEMU's TCG was seen to get wrong.
state() { sed 's/.*) \(.\).*/\1/' /proc/$stepped/stat 2>/dev/null; }
i=0
until [ "$(state)" = S ] && sleep 0.5 && [ "$(state)" = S ] || [ $i -ge 300 ]; do
	i=$((i + 1))
	sleep 0.2
done
want="pitrace: error: cannot trace pid $stepped (sleep): pid $tracer (ptstep) is"
want="$want single-stepping it through ptrace and the step trap can't be shared"
for how in "-p $stepped" "--comm sleep" "--all"; do
	name=ptrace-start-$(echo "${how%% *}" | tr -d -)
	pitrace start $how -o p.trace >p.out 2>&1
	rc=$?
	check_eq $name-exit "exit status of pitrace start $how" 1 $rc
	check_eq $name-message "pitrace start $how says" "$want" "$(cat p.out)"
	[ $rc = 0 ] && pitrace stop >/dev/null 2>&1
done
ptdrv follow -p $stepped >follow.out 2>&1
line=$(grep '^select-failed' follow.out)
check_eq ptrace-select-conflict "STATUS conflict and tracer" "$stepped $tracer" \
	"$(echo "$line" | tr ' ' '\n' | sed -n 's/^conflict=//p;s/^tracer=//p' | tr '\n' ' ' |
		sed 's/ $//')"
kill $tracer $stepped 2>/dev/null
wait
# A traced program that single-steps its child: the child's traps are the stepper's.
alone=$(ptstep $PT_PROGS/vm_syscalls | sed -n 's/^ptstep: steps \([0-9]*\).*/\1/p')
pitrace record -o nested.trace -- ptstep $PT_PROGS/vm_syscalls >nested.out 2>&1
check_eq ptrace-nested-exit "exit status of pitrace record -- ptstep vm_syscalls" 0 $?
check_eq ptrace-nested-steps "steps the stepper saw (alone: $alone)" "$alone" \
	"$(sed -n 's/^ptstep: steps \([0-9]*\).*/\1/p' nested.out)"

# uprobes on a traced program: one emulated (push), one stepped out of line (add to memory).
if ! [ -w $T/uprobe_events ]; then
	echo "SKIP uprobes: no $T/uprobe_events"
else
	set -- $($PT_PROGS/uprobe_target offsets)
	calls=1000
	rm -rf base.trace
	# Output to a file every time: libc does more work for a terminal or /dev/null.
	pitrace record --backend ptrace -o base.trace -- $PT_PROGS/uprobe_target $calls \
		>base.out 2>&1
	base=$(post -i base.trace info 2>/dev/null | sed -n 's/^steps: *//p')
	pitrace record -o plain.trace -- $PT_PROGS/uprobe_target $calls >plain.out 2>&1
	plain=$(post -i plain.trace info 2>/dev/null | sed -n 's/^steps: *//p')
	echo "p:pitrace/entry $PT_PROGS/uprobe_target:$1" >>$T/uprobe_events &&
		echo "p:pitrace/xol $PT_PROGS/uprobe_target:$2" >>$T/uprobe_events &&
		echo 1 >$T/events/pitrace/enable
	echo >$T/trace
	pitrace record -o u.trace -- $PT_PROGS/uprobe_target $calls >u.out 2>&1
	check_eq uprobe-record-exit "exit status of pitrace record with uprobes" 0 $?
	check_eq uprobe-program-output "program output" "uprobe_target: $calls calls" \
		"$(grep '^uprobe_target' u.out)"
	probed=$(post -i u.trace info 2>/dev/null | sed -n 's/^steps: *//p')
	check_eq uprobe-steps-equal-ptrace "steps with uprobes (ptrace backend, no uprobes)" \
		"$base" "$probed"
	check_eq uprobe-steps-equal-plain "steps with uprobes (driver, no uprobes)" "$plain" \
		"$probed"
	check_eq uprobe-entry-hits "entry probe hits" $calls "$(grep -c ' entry: ' $T/trace)"
	check_eq uprobe-xol-hits "out-of-line probe hits" $calls "$(grep -c ' xol: ' $T/trace)"
	echo 0 >$T/events/pitrace/enable
	echo "-:pitrace/entry" >>$T/uprobe_events
	echo "-:pitrace/xol" >>$T/uprobe_events
fi
