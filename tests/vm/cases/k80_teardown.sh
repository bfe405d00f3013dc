# SPDX-License-Identifier: GPL-2.0
# Teardown: rmmod during an active session is refused (the collector's open
# file pins the module); killing the collector ends the session, every task
# loses TF (a running one and one sleeping in the kernel), rmmod then
# succeeds, and neither task ever gets a SIGTRAP.
. /pt/cases/lib.inc
$PT_PROGS/vm_spin &
spin=$!
sleep 600 &
sleeper=$!
ptdrv follow -k pid -p $spin >follow.out 2>&1 &
coll=$!
steps=$(wait_steps 0)
[ "${steps:-0}" -gt 0 ] && echo "PASS teardown-tracing" || echo "FAIL teardown-tracing: steps=$steps"
if rmmod pitrace 2>/dev/null; then
	echo "FAIL teardown-rmmod-busy: rmmod succeeded with a session open"
	insmod $PT_KO
else
	echo "PASS teardown-rmmod-busy"
fi
# The sleeper joins the selection while asleep in the kernel.
ptdrv status >/dev/null
kill -9 $coll
wait $coll 2>/dev/null
ptdrv follow -k pid -p $sleeper >follow2.out 2>&1 &
coll=$!
until ptdrv status | grep -q claimed=1; do sleep 0.1; done
sleep 0.5
kill -9 $coll
wait $coll 2>/dev/null
st=$(ptdrv status)
case $st in
*"claimed=0"*"traced=0"*) echo "PASS teardown-killed-collector" ;;
*) echo "FAIL teardown-killed-collector: $st" ;;
esac
if rmmod pitrace; then echo "PASS teardown-rmmod-after"; else echo "FAIL teardown-rmmod-after: rmmod failed"; fi
sleep 1
if kill -0 $spin 2>/dev/null; then echo "PASS teardown-task-alive"; else echo "FAIL teardown-task-alive: vm_spin died"; fi
kill $spin
wait $spin
check_eq teardown-spin-status "vm_spin exit status (143: our SIGTERM, 133: SIGTRAP)" 143 $?
kill -0 $sleeper 2>/dev/null && echo "PASS teardown-sleeper-alive" ||
	echo "FAIL teardown-sleeper-alive: the sleeping task died"
kill $sleeper
wait $sleeper
check_eq teardown-sleeper-status "sleep exit status (143: our SIGTERM, 133: SIGTRAP)" 143 $?
