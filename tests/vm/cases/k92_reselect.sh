# SPDX-License-Identifier: GPL-2.0
# The selection changes while tracing: selecting nothing stops recording a
# running process (its step total stays still, it is no longer armed),
# selecting it again resumes; the process runs on unharmed.
. /pt/cases/lib.inc
status() { ptdrv status | tr ' ' '\n' | sed -n "s/^$1=//p"; }
$PT_PROGS/vm_spin &
spin=$!
ptdrv follow -k pid -p $spin >out 2>&1 &
coll=$!
s0=$(wait_steps 0)
[ "${s0:-0}" -gt 0 ] && echo "PASS reselect-tracing" || echo "FAIL reselect-tracing: steps=$s0"
ptdrv select -k none
sleep 0.5
s1=$(status steps)
sleep 1
check_eq reselect-none-stops "steps after selecting nothing" "$s1" "$(status steps)"
check_eq reselect-none-disarmed "traced tasks" 0 "$(status traced)"
ptdrv select -k pid -p $spin
s2=$(wait_steps $s1)
[ "${s2:-0}" -gt "$s1" ] && echo "PASS reselect-resumes" ||
	echo "FAIL reselect-resumes: steps $s1 -> $s2"
check_eq reselect-armed "traced tasks" 1 "$(status traced)"
kill $coll
wait $coll
kill $spin
wait $spin
check_eq reselect-task-status "vm_spin exit status" 143 $?
