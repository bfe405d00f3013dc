# SPDX-License-Identifier: GPL-2.0
# Kernel mode teardown: a syscall-heavy two-thread program is selected by
# name with --kernel before it starts; the collector is killed mid-run (the
# session ends), then the module is removed (a task inside a kernel-stepped
# system call pins it until that call returns: retried briefly).  The
# program goes on and ends normally: no SIGTRAP, no stray TF.
. /pt/cases/lib.inc
pitrace start --kernel --comm kern_threads -o t >start.out 2>&1 ||
	{ cat start.out; echo "FAIL kk-teardown-start: pitrace start failed"; }
$PT_PROGS/kern_threads 4000 >prog.out 2>&1 &
prog=$!
sleep 3
st=$(pitrace status 2>&1)
steps=$(echo "$st" | sed -n 's/^steps: //p')
[ "${steps:-0}" -gt 0 ] && echo "PASS kk-teardown-tracing" || echo "FAIL kk-teardown-tracing: $st"
owner=$(echo "$st" | sed -n 's/^session: held by [^0-9]*\([0-9][0-9]*\).*/\1/p' | head -n 1)
if [ -n "$owner" ]; then kill -9 $owner; else echo "FAIL kk-teardown-owner: $st"; fi
ok=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	if rmmod pitrace 2>/dev/null; then ok=1; break; fi
	sleep 0.5
done
[ $ok = 1 ] && echo "PASS kk-teardown-rmmod" || echo "FAIL kk-teardown-rmmod: module still in use after 10 s"
wait $prog
check_eq kk-teardown-status "program exit status (133: SIGTRAP)" 0 $?
check_eq kk-teardown-output "program output" "kern_threads 2x 4000 ok" "$(cat prog.out)"
[ $ok = 1 ] && insmod $PT_KO
