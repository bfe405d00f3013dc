# SPDX-License-Identifier: GPL-2.0
# Kernel mode under load: a two-thread program making 10,000 system calls
# (2 x 1000 rounds of getpid, pipe write, pipe read, dup, close) traced
# with --kernel on 2 vCPUs while an untraced program runs; both produce
# their normal output and status, both threads have kernel steps, and the
# getpid function's kernel steps are 2000 calls' worth (the per-call count
# measured on kern_getpid in the same boot).  The harness checks dmesg (no
# WARN, BUG, Oops, soft lockup or RCU stall) after the boot.
. /pt/cases/lib.inc
getpid_steps() {	# getpid_steps DIR: kernel steps in the getpid syscall function
	post -i $1 counts --ring kernel --by symbol |
		awk '$4 ~ /^__(x64|do|ia32)_sys_getpid$/ { n += $1 } END { print n + 0 }'
}
pitrace record --kernel -o cal -- $PT_PROGS/kern_getpid 10 >cal.out 2>&1
per_call=$(($(getpid_steps cal) / 11))
echo "INFO kernel stress: the getpid function itself runs $per_call kernel instructions per call"
want=$(seq 1 30000 | md5sum)	# the untraced workload's answer, computed before tracing
(seq 1 30000 | md5sum >untraced.out; $PT_PROGS/kern_syscalls 200 >>untraced.out; echo "rc $?" >>untraced.out) &
bg=$!
pitrace record --kernel -o t -- $PT_PROGS/kern_threads 1000 >rec.out 2>&1
check_eq kk-stress-status "exit status of pitrace record" 0 $?
check_eq kk-stress-output "program output" "kern_threads 2x 1000 ok" "$(grep '^kern_threads' rec.out)"
wait $bg
check_eq kk-untraced-output "untraced md5" "$want" "$(head -n 1 untraced.out)"
check_eq kk-untraced-syscalls "untraced program" "kern_syscalls 200 rounds ok rc 0" \
	"$(tail -n 2 untraced.out | tr '\n' ' ' | sed 's/ $//')"
grep '^pitrace:' rec.out | sed 's/^/INFO kernel stress: /'
post -i t counts --ring kernel --by thread >threads.out 2>&1
n=$(awk '!/^#/ && $1 > 100000' threads.out | wc -l)
[ "$n" -ge 2 ] && echo "PASS kk-stress-threads" ||
	{ cat threads.out; echo "FAIL kk-stress-threads: $n threads with kernel steps"; }
calls=$(($(getpid_steps t) / ${per_call:-1}))
check_eq kk-stress-getpid-calls "getpid calls (5 system calls each round)" 2000 $calls
