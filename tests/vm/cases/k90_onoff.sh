# SPDX-License-Identifier: GPL-2.0
# On/off through the ioctls: a session claimed off records nothing; ON
# starts recording a running process, OFF stops it (the step total stays
# still), and the stream holds the ON and OFF markers on every CPU.
. /pt/cases/lib.inc
steps() { ptdrv status | tr ' ' '\n' | sed -n 's/^steps=//p'; }
$PT_PROGS/vm_spin &
spin=$!
ptdrv follow -O -k pid -p $spin >out 2>&1 &
coll=$!
until ptdrv status | grep -q claimed=1; do sleep 0.1; done
sleep 1
check_eq onoff-starts-off "steps while off" 0 "$(steps)"
ptdrv on
s=$(wait_steps 0)
[ "${s:-0}" -gt 0 ] && echo "PASS onoff-on" || echo "FAIL onoff-on: steps=$s"
ptdrv off
sleep 0.5
s1=$(steps)
sleep 1
check_eq onoff-off "steps after OFF" "$s1" "$(steps)"
kill $coll
wait $coll
ncpu=$(grep -c ^processor /proc/cpuinfo)
check_eq onoff-markers "ON/OFF records" "$ncpu/$ncpu" "$(total out on)/$(total out off)"
kill $spin
wait $spin
check_eq onoff-task-status "vm_spin exit status" 143 $?
